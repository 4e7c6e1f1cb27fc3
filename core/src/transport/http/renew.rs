//! A new session when the server forgot ours (2025-11-25, Streamable HTTP: "when a client
//! receives HTTP 404 in response to a request containing an `Mcp-Session-Id`, it MUST start a
//! new session by sending a new `InitializeRequest` without a session ID attached").
//!
//! The handshake the engine made is remembered (the `initialize` request and
//! `notifications/initialized`, as sent); on a 404 to a message that carried the session id,
//! the handshake is replayed without the id (its answer stays here: the engine already has
//! one), the new session's standalone stream is opened, and the message is sent once more.
//! Concurrent 404s of one session renew it once. If the renewal fails, or the message is
//! refused with 404 again, the connection ends as before (session expired).

use bytes::Bytes;
use reqwest::{Response, StatusCode};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::body::{content_type, describe, read_capped, Body};
use super::conn::Conn;
use super::peek::Head;
use super::sse::{Data, Parser};
use super::{stream, Gate};

/// Longest wait for the replayed `initialize` to be answered.
const RENEW_TIMEOUT: Duration = Duration::from_secs(30);

/// `resp` answered `msg` (sent in session generation `sent_in`): a 404 while the connection
/// has a session starts a new one and sends `msg` again, once; the answer to that is
/// returned. Anything else is returned as it is. `None`: the renewal failed and the
/// connection ended.
pub(super) async fn after(
    conn: &Arc<Conn>,
    msg: &Bytes,
    head: &Head,
    sent_in: u64,
    resp: Response,
) -> Option<Response> {
    if resp.status() != StatusCode::NOT_FOUND
        || !conn.has_session()
        || head.is("initialize")
        || conn.is_expired()
    {
        return Some(resp);
    }
    drop(resp);
    if let Err(why) = renew(conn, sent_in).await {
        tracing::warn!("MCP HTTP: could not start a new session: {why}");
        conn.expire().await;
        return None;
    }
    match conn.post(conn.url(), msg.clone()).send().await {
        Ok(r) => Some(r),
        Err(e) => {
            let why = format!("could not reach the MCP server: {}", describe(&e));
            conn.fail(head, None, &why).await;
            None
        }
    }
}

/// Start a new session unless one was started since generation `sent_in`.
async fn renew(conn: &Arc<Conn>, sent_in: u64) -> Result<(), String> {
    let hs = conn.handshake();
    let _one = hs.renewing().await;
    if hs.generation() != sent_in {
        return Ok(());
    }
    let (Some(init), Some(done)) = hs.messages() else {
        return Err("the handshake was not complete".into());
    };
    tracing::warn!("MCP session expired (HTTP 404): starting a new session");
    conn.clear_session();
    let resp = tokio::time::timeout(RENEW_TIMEOUT, conn.post(conn.url(), init.clone()).send())
        .await
        .map_err(|_| format!("initialize: no HTTP answer within {RENEW_TIMEOUT:?}"))?
        .map_err(|e| format!("initialize: {}", describe(&e)))?;
    if !resp.status().is_success() {
        return Err(format!("initialize: HTTP {}", resp.status().as_u16()));
    }
    conn.set_session(resp.headers());
    let answer = tokio::time::timeout(RENEW_TIMEOUT, answer_of(conn, resp))
        .await
        .map_err(|_| format!("initialize: no answer within {RENEW_TIMEOUT:?}"))??;
    if answer.get("result").is_none() {
        return Err(format!("initialize was refused: {}", answer["error"]));
    }
    let sent = conn.post(conn.url(), done.clone()).send().await;
    match sent {
        Ok(r) if r.status().is_success() => {}
        Ok(r) => {
            return Err(format!(
                "notifications/initialized: HTTP {}",
                r.status().as_u16()
            ))
        }
        Err(e) => return Err(format!("notifications/initialized: {}", describe(&e))),
    }
    hs.renewed();
    let c = conn.clone();
    crate::rt::spawn(crate::rt::scoped(async move {
        stream::standalone(&c, Gate(None)).await;
    }));
    Ok(())
}

/// The JSON-RPC answer in an `initialize` POST's response (one JSON body or an SSE stream).
async fn answer_of(conn: &Conn, mut resp: Response) -> Result<serde_json::Value, String> {
    let parse = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).ok();
    if content_type(&resp) != "text/event-stream" {
        return match read_capped(resp, conn.cap).await {
            Ok(Body::Full(b)) => parse(&b).ok_or_else(|| "initialize: not JSON".into()),
            Ok(Body::TooLong(n)) => Err(format!("initialize: an answer of {n} bytes")),
            Err(e) => Err(format!("initialize: {}", describe(&e))),
        };
    }
    let mut parser = Parser::new(conn.cap);
    let mut events: VecDeque<super::sse::Event> = VecDeque::new();
    loop {
        while let Some(ev) = events.pop_front() {
            if let (true, Data::Text(t)) = (ev.kind == "message", &ev.data) {
                match parse(t) {
                    Some(v) if v.get("result").is_some() || v.get("error").is_some() => {
                        return Ok(v)
                    }
                    _ => {}
                }
            }
        }
        match resp.chunk().await {
            Ok(Some(chunk)) => parser.feed(&chunk, &mut events),
            Ok(None) => return Err("initialize: the stream ended before the answer".into()),
            Err(e) => return Err(format!("initialize: {}", describe(&e))),
        }
    }
}
