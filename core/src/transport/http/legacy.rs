//! The HTTP+SSE transport of protocol 2024-11-05, for servers that refuse the first POST: a
//! GET on the URL opens the SSE stream whose first event (`endpoint`) names where to POST
//! messages (same origin only: the token and headers go there); every answer and server
//! message then comes over that stream, and the connection ends with it.

use bytes::Bytes;
use reqwest::Url;
use std::time::Duration;

use super::body::{describe, is_sse, read_quote};
use super::conn::Conn;
use super::conn::ACCEPT_TIMEOUT;
use super::peek::Head;
use super::post::Refused;
use super::sse::{Data, Event};
use super::stream::Reading;
use super::Gate;
use crate::transport::io::Inbound;

/// Longest wait for the SSE stream and its `endpoint` event.
const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

/// The first POST was refused: open the legacy SSE stream, POST the first message
/// (`initialize`) to its endpoint, open the gate, and read the stream until it ends.
pub(super) async fn fallback(conn: &Conn, first: Bytes, head: &Head, refusal: Refused) {
    let Refused {
        mut gate,
        status,
        said,
    } = refusal;
    let refused = status.as_u16();
    tracing::info!(
        "MCP HTTP: the server refused the first POST (HTTP {refused}); trying the HTTP+SSE transport (2024-11-05)"
    );
    let mut reading = Reading::new(conn.cap);
    let opened = tokio::time::timeout(ENDPOINT_TIMEOUT, async {
        let mut resp = conn
            .execute(conn.get(None))
            .await
            .map_err(|e| describe(&e))?;
        if !resp.status().is_success() || !is_sse(&resp) {
            let status = resp.status().as_u16();
            return Err(format!("HTTP {status} on GET: {}", read_quote(resp).await));
        }
        let endpoint = loop {
            match reading.events.pop_front() {
                // A priming event (no data) before it is skipped.
                Some(ev) if ev.kind == "message" && ev.data == Data::Text(Vec::new()) => continue,
                Some(ev) => break ev,
                None => {}
            }
            match resp.chunk().await {
                Ok(Some(chunk)) => reading.parser.feed(&chunk, &mut reading.events),
                Ok(None) => return Err("the SSE stream ended before its `endpoint` event".into()),
                Err(e) => return Err(describe(&e)),
            }
        };
        Ok((resp, endpoint_url(conn.url(), endpoint)?))
    })
    .await
    .unwrap_or_else(|_| Err(format!("no `endpoint` event within {ENDPOINT_TIMEOUT:?}")));
    let (mut resp, endpoint) = match opened {
        Ok(r) => r,
        Err(why) => {
            gate.open();
            let why = format!(
                "HTTP {refused}: {said} (and no HTTP+SSE stream as the 2024-11-05 fallback: {why})"
            );
            return conn.fail(head, Some(refused), &why).await;
        }
    };
    conn.set_legacy_endpoint(endpoint);
    post(conn, first, head, gate).await;
    let mut answered = false;
    if reading.pump(conn, &mut resp, None, &mut answered).await {
        tracing::warn!("MCP HTTP: the server's SSE stream broke off");
        let why = "the MCP server's SSE stream (HTTP+SSE transport) broke off".to_owned();
        conn.deliver(Inbound::Failed(why)).await;
    } else {
        tracing::info!("MCP HTTP: the server closed its SSE stream");
        conn.deliver(Inbound::Closed).await;
    }
}

/// The POST endpoint an `endpoint` event names, relative to the SSE URL; refused when it is
/// on another origin.
fn endpoint_url(sse_url: &Url, event: Event) -> Result<Url, String> {
    let Data::Text(data) = event.data else {
        return Err("the `endpoint` event is too long".into());
    };
    if event.kind != "endpoint" {
        return Err(format!(
            "the first SSE event is `{}`, not `endpoint`",
            event.kind
        ));
    }
    let text = String::from_utf8_lossy(&data);
    let url = sse_url
        .join(text.trim())
        .map_err(|e| format!("bad `endpoint` URL: {e}"))?;
    if url.origin() != sse_url.origin() {
        return Err(format!(
            "the `endpoint` event names another origin ({}); not sending messages there",
            url.origin().ascii_serialization()
        ));
    }
    Ok(url)
}

/// POST one message to the legacy endpoint (its answer comes over the SSE stream); open
/// `gate` once the HTTP status arrived.
pub(super) async fn post(conn: &Conn, msg: Bytes, head: &Head, mut gate: Gate) {
    let Some(endpoint) = conn.legacy_endpoint() else {
        return;
    };
    let sent = tokio::time::timeout(ACCEPT_TIMEOUT, conn.execute(conn.post(endpoint, msg))).await;
    gate.open();
    match sent {
        Err(_) => {
            let why = format!("no HTTP answer within {ACCEPT_TIMEOUT:?}");
            conn.fail(head, None, &why).await;
        }
        Ok(Err(e)) => {
            let why = format!("could not reach the MCP server: {}", describe(&e));
            conn.fail(head, None, &why).await;
        }
        Ok(Ok(r)) if r.status().is_success() => {}
        Ok(Ok(r)) => {
            let status = r.status().as_u16();
            let why = format!("HTTP {status}: {}", read_quote(r).await);
            conn.fail(head, Some(status), &why).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, data: &str) -> Event {
        Event {
            kind: kind.into(),
            data: Data::Text(data.as_bytes().to_vec()),
        }
    }

    #[test]
    fn endpoint_is_relative_and_same_origin() {
        let sse = Url::parse("http://127.0.0.1:5/sse").unwrap();
        let u = endpoint_url(&sse, ev("endpoint", "/message?sessionId=abc")).unwrap();
        assert_eq!(u.as_str(), "http://127.0.0.1:5/message?sessionId=abc");
        assert!(endpoint_url(&sse, ev("endpoint", "http://127.0.0.1:6/m")).is_err());
        assert!(endpoint_url(&sse, ev("message", "/m")).is_err());
    }
}
