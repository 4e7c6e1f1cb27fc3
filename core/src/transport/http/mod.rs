//! The MCP Streamable HTTP transport (protocol 2025-11-25), with the legacy HTTP+SSE
//! fallback (2024-11-05).
//!
//! A task between the engine's channel halves and the server: each message the engine writes
//! is POSTed ([`post`]); answers come back as one JSON body or as an SSE stream that is
//! resumed with `Last-Event-ID` when it drops ([`stream`]); after `notifications/initialized`
//! a GET opens the server's standalone stream; when the writer closes, the session is
//! `DELETE`d and the reader sees end of stream. If the first POST is refused with 400, 404 or
//! 405 the server is taken for an HTTP+SSE one ([`legacy`]).
//!
//! Order: the first message, notifications and responses go out one after another (each
//! waits for the previous one's HTTP status, so `notifications/initialized` reaches the
//! server before later requests); requests do not wait for each other's answers, so a ping
//! passes a long tool call. Each answer stream is delivered in its order.

mod body;
mod conn;
mod handshake;
mod legacy;
mod modern;
mod peek;
mod post;
mod renew;
mod sse;
mod stream;
#[cfg(test)]
mod tests;

use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::task::{JoinHandle, JoinSet};

use super::io::{channel_halves, MessageReader, MessageWriter};
use crate::error::Result;
use crate::options::McpHttp;
use conn::Conn;
use peek::Head;

/// Messages buffered each way between the engine and the transport task.
const CHANNEL_DEPTH: usize = 1024;
/// How long messages already sent get to reach the server when the writer closes.
const SEND_GRACE: Duration = Duration::from_millis(500);

/// How the HTTP client reaches the server: TLS settings (the client's `tls_*` options, as for
/// `wss://`) and the proxy (option `mcp_proxy`).
#[derive(Default)]
pub(crate) struct Net<'a> {
    /// Extra CA file and client certificate (none: reqwest's own roots).
    pub tls: Option<&'a crate::options::TlsOptions>,
    /// `None`: the environment's proxies, none for a loopback endpoint; `"none"`: never;
    /// a URL: that proxy.
    pub proxy: Option<&'a str>,
}

impl Net<'_> {
    /// `builder` with these settings for a client of `endpoint` (the MCP server: with no
    /// proxy option a loopback endpoint goes direct). The MCP connection and its
    /// authorization (discovery, registration, token requests) both use it, so an
    /// authorization server behind the same private CA or proxy is reached as the MCP
    /// server is.
    pub(crate) fn apply(
        &self,
        builder: reqwest::ClientBuilder,
        endpoint: &url::Url,
    ) -> Result<reqwest::ClientBuilder> {
        let builder = match self.proxy {
            Some("none") => builder.no_proxy(),
            Some(proxy) => builder.proxy(reqwest::Proxy::all(proxy).map_err(|e| {
                crate::error::Error::InvalidArgument(format!(
                    "bad MCP proxy URL: {}",
                    body::describe(&e)
                ))
            })?),
            None if crate::transport::is_loopback(endpoint.host_str().unwrap_or("")) => {
                builder.no_proxy()
            }
            None => builder,
        };
        Ok(match self.tls.filter(|t| **t != Default::default()) {
            // The same TLS as wss://: the system's roots plus the CA file, the client
            // certificate; server names always checked.
            Some(tls) => builder.use_preconfigured_tls(crate::transport::tls::client_config(tls)?),
            None => builder,
        })
    }
}

/// Open an MCP HTTP connection with the default network settings (see [`open_with`]).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) async fn open(
    cfg: &McpHttp,
    max_message_bytes: usize,
    auth_events: Option<crate::auth::EventSink>,
) -> Result<(MessageReader, MessageWriter, JoinHandle<()>)> {
    open_with(cfg, &Net::default(), max_message_bytes, auth_events).await
}

/// Open an MCP HTTP connection: the message halves the engine reads and writes, and the task
/// that serves them (ends after the session's `DELETE` once the writer closed).
/// Authorization events go to `auth_events`.
pub(crate) async fn open_with(
    cfg: &McpHttp,
    net: &Net<'_>,
    max_message_bytes: usize,
    auth_events: Option<crate::auth::EventSink>,
) -> Result<(MessageReader, MessageWriter, JoinHandle<()>)> {
    let (reader, writer, outgoing, deliver) = channel_halves(CHANNEL_DEPTH);
    let conn = Arc::new(Conn::new(
        cfg,
        net,
        max_message_bytes,
        deliver,
        auth_events,
    )?);
    let task = crate::rt::spawn(run(conn, outgoing));
    Ok((reader, writer, task))
}

/// Lets the next ordered message go: when opened, or when dropped.
pub(super) struct Gate(Option<watch::Sender<bool>>);

impl Gate {
    /// Let the next ordered message go.
    fn open(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(true);
        }
    }
}

/// Send what the engine writes until it closes the writer, then end the session.
async fn run(conn: Arc<Conn>, mut outgoing: mpsc::Receiver<Bytes>) {
    let mut tasks = JoinSet::new();
    let mut last_gate: Option<watch::Receiver<bool>> = None;
    let mut first = true;
    while let Some(msg) = outgoing.recv().await {
        while tasks.try_join_next().is_some() {}
        let head = Head::of(&msg);
        let after = last_gate.clone();
        let gate = if first || head.request_id().is_none() {
            let (tx, rx) = watch::channel(false);
            last_gate = Some(rx);
            Gate(Some(tx))
        } else {
            Gate(None)
        };
        // The stateless era's probe is not the first message of the legacy fallback: a
        // server that refuses it gets `initialize` next (see `client::era`).
        let probe = head.is("server/discover");
        let first = !probe && std::mem::take(&mut first);
        tasks.spawn(crate::rt::scoped(send(
            conn.clone(),
            msg,
            head,
            after,
            gate,
            first,
        )));
    }
    if let Some(mut g) = last_gate {
        let _ = tokio::time::timeout(SEND_GRACE, g.wait_for(|open| *open)).await;
    }
    tasks.shutdown().await;
    conn.end_session().await;
}

/// Send one message once the ordered message before it (`after`) went out.
async fn send(
    conn: Arc<Conn>,
    msg: Bytes,
    head: Head,
    after: Option<watch::Receiver<bool>>,
    gate: Gate,
    first: bool,
) {
    if let Some(mut after) = after {
        let _ = after.wait_for(|open| *open).await;
    }
    if conn.legacy_endpoint().is_some() {
        legacy::post(&conn, msg, &head, gate).await;
    } else if let Some(refused) = post::send(&conn, &msg, &head, gate, first).await {
        legacy::fallback(&conn, msg, &head, refused).await;
    }
}
