//! Sending one message to a Streamable HTTP server and taking in what the POST answers: 202
//! (nothing), one JSON message or a batch, or an SSE stream; an HTTP error answers a request
//! with an error so it fails at once; a 404 with a session id starts a new session and sends
//! the message again, once ([`renew`]).

use bytes::Bytes;
use reqwest::{Response, StatusCode};
use serde_json::value::RawValue;

use super::body::{content_type, describe, read_capped, read_quote, Body};
use super::conn::Conn;
use super::conn::ACCEPT_TIMEOUT;
use super::peek::Head;
use super::{renew, stream, Gate};
use crate::transport::io::Inbound;
use std::sync::Arc;

/// The first POST was refused the way a legacy HTTP+SSE server refuses it (400, 404 or 405).
pub(super) struct Refused {
    /// The gate of the first message, still closed.
    pub(super) gate: Gate,
    /// The HTTP status.
    pub(super) status: StatusCode,
    /// The start of the body, quoted.
    pub(super) said: String,
}

/// POST `msg` to the MCP endpoint, open `gate` once its HTTP status arrived, and take in the
/// answer. After `notifications/initialized` was taken, the standalone stream is opened (and
/// read for the connection's life) before `gate` opens, so the server can use it for what
/// follows. The first message refused with 400, 404 or 405 is handed back for the legacy
/// fallback.
pub(super) async fn send(
    conn: &Arc<Conn>,
    msg: &Bytes,
    head: &Head,
    mut gate: Gate,
    first: bool,
) -> Option<Refused> {
    conn.handshake().note(msg, head);
    let generation = conn.handshake().generation();
    let sent = conn.post(conn.url(), msg.clone()).send();
    let resp = if head.request_id().is_some() {
        sent.await
    } else {
        match tokio::time::timeout(ACCEPT_TIMEOUT, sent).await {
            Ok(r) => r,
            Err(_) => {
                gate.open();
                let why = format!("no HTTP answer within {ACCEPT_TIMEOUT:?}");
                conn.fail(head, None, &why).await;
                return None;
            }
        }
    };
    let resp = match resp {
        Ok(r) => r,
        Err(e) => {
            gate.open();
            let why = format!("could not reach the MCP server: {}", describe(&e));
            conn.fail(head, None, &why).await;
            return None;
        }
    };
    let resp = renew::after(conn, msg, head, generation, resp).await?;
    let status = resp.status();
    if first && matches!(status.as_u16(), 400 | 404 | 405) {
        let said = read_quote(resp).await;
        return Some(Refused { gate, status, said });
    }
    if first && status.is_success() {
        conn.set_session(resp.headers());
    }
    if head.request_id().is_some() || !status.is_success() {
        gate.open();
        take_answer(conn, resp, head).await;
        return None;
    }
    // A notification or response was taken (202, or any 2xx: its body means nothing).
    drop(resp);
    if head.is("notifications/initialized") {
        stream::standalone(conn, gate).await;
    }
    None
}

/// What a POST of `head` answered.
async fn take_answer(conn: &Conn, resp: Response, head: &Head) {
    let status = resp.status();
    if status == StatusCode::ACCEPTED {
        return;
    }
    if status.is_success() {
        let ct = content_type(&resp);
        match ct.as_str() {
            "text/event-stream" => stream::follow(conn, resp, Some(head)).await,
            "application/json" => take_json(conn, resp, head).await,
            _ if head.request_id().is_none() => {}
            _ => {
                let quote = read_quote(resp).await;
                let why = format!(
                    "HTTP {}: unexpected content type `{ct}`: {quote}",
                    status.as_u16()
                );
                conn.fail(head, Some(status.as_u16()), &why).await;
            }
        }
        return;
    }
    if status == StatusCode::NOT_FOUND && conn.has_session() {
        return conn.expire().await;
    }
    if head.request_id().is_some()
        && matches!(status.as_u16(), 400 | 404)
        && content_type(&resp) == "application/json"
    {
        return take_error_json(conn, resp, head).await;
    }
    let hint = match status.as_u16() {
        401 => " (missing or wrong token)",
        403 => " (forbidden)",
        300..=399 => " (redirects are not followed)",
        _ => "",
    };
    let quote = read_quote(resp).await;
    let why = format!("HTTP {}{hint}: {quote}", status.as_u16());
    conn.fail(head, Some(status.as_u16()), &why).await;
}

/// A JSON body: one message or a batch of them.
async fn take_json(conn: &Conn, resp: Response, head: &Head) {
    let status = resp.status().as_u16();
    let body = match read_capped(resp, conn.cap).await {
        Ok(Body::Full(b)) => b,
        Ok(Body::TooLong(n)) => {
            conn.deliver(Inbound::TooLong(n)).await;
            let why = format!(
                "HTTP {status}: the answer of {n} bytes is larger than the message size limit ({} bytes)",
                conn.cap
            );
            return conn.fail(head, Some(status), &why).await;
        }
        Err(e) => {
            let why = format!("reading the HTTP answer failed: {}", describe(&e));
            return conn.fail(head, Some(status), &why).await;
        }
    };
    let text = body.trim_ascii();
    let mut answered = false;
    if text.starts_with(b"[") {
        if let Ok(batch) = serde_json::from_slice::<Vec<&RawValue>>(text) {
            for m in batch {
                let m = Bytes::copy_from_slice(m.get().as_bytes());
                answered |= conn.deliver_message(Some(head), m).await;
            }
            return not_answered(conn, head, answered, status).await;
        }
    } else if let Some(incoming) = Head::parse(text) {
        answered = head.answered_by_head(&incoming);
        conn.deliver_answer(Some(head), answered, body.slice_ref(text))
            .await;
        return not_answered(conn, head, answered, status).await;
    }
    let why = format!(
        "HTTP {status}: the answer is not a JSON-RPC message: {}",
        super::peek::quote(text)
    );
    conn.fail(head, Some(status), &why).await;
}

/// A request whose JSON answer did not answer it fails (the server will not answer it later).
async fn not_answered(conn: &Conn, head: &Head, answered: bool, status: u16) {
    if !answered && head.request_id().is_some() {
        let why = format!("HTTP {status}: the JSON answer does not answer the request");
        conn.fail(head, Some(status), &why).await;
    }
}

/// An HTTP error whose body is JSON: a JSON-RPC error answering the request is delivered as
/// the server sent it (its code and data matter: an unsupported protocol version lists the
/// supported ones); anything else fails the request with the status and the body's start.
async fn take_error_json(conn: &Conn, resp: Response, head: &Head) {
    let status = resp.status().as_u16();
    let body = match read_capped(resp, conn.cap).await {
        Ok(Body::Full(b)) => b,
        _ => Bytes::new(),
    };
    let text = body.trim_ascii();
    if let Some(incoming) = Head::parse(text) {
        if head.answered_by_head(&incoming) {
            return conn
                .deliver_answer(Some(head), true, body.slice_ref(text))
                .await;
        }
    }
    let why = format!("HTTP {status}: {}", super::peek::quote(text));
    conn.fail(head, Some(status), &why).await;
}
