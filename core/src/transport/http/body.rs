//! Reading HTTP response bodies within bounds: a JSON answer up to the message cap (longer
//! ones are counted, not kept), the start of an error body, the content type; and one-line
//! descriptions of HTTP client errors.

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::Response;
use std::time::Duration;

use super::peek;

/// Most bytes of an error body read to quote it.
const QUOTE_BYTES: usize = 1024;
/// Longest wait for the start of an error body.
const QUOTE_WAIT: Duration = Duration::from_secs(2);

/// A body read up to a cap.
pub(super) enum Body {
    /// The whole body.
    Full(Bytes),
    /// The body was longer than the cap; its length in bytes.
    TooLong(usize),
}

/// Read a whole body of at most `cap` bytes (a longer one is read to its end and counted, or
/// not read at all when its `Content-Length` says so).
pub(super) async fn read_capped(mut resp: Response, cap: usize) -> reqwest::Result<Body> {
    let announced = resp
        .content_length()
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    if let Some(n) = announced.filter(|&n| n > cap) {
        return Ok(Body::TooLong(n));
    }
    let mut buf = Vec::with_capacity(announced.unwrap_or(0));
    let mut total = 0usize;
    while let Some(chunk) = resp.chunk().await? {
        total = total.saturating_add(chunk.len());
        if total > cap {
            buf = Vec::new();
        } else {
            buf.extend_from_slice(&chunk);
        }
    }
    Ok(if total > cap {
        Body::TooLong(total)
    } else {
        Body::Full(Bytes::from(buf))
    })
}

/// The start of a body as one line (see [`peek::quote`]); what arrives within a short wait.
pub(super) async fn read_quote(mut resp: Response) -> String {
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(QUOTE_WAIT, async {
        while buf.len() < QUOTE_BYTES {
            match resp.chunk().await {
                Ok(Some(chunk)) => buf.extend_from_slice(&chunk),
                _ => break,
            }
        }
    })
    .await;
    buf.truncate(QUOTE_BYTES);
    peek::quote(&buf)
}

/// The media type of a response (`text/event-stream`), lowercase, without parameters.
pub(super) fn content_type(resp: &Response) -> String {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether a response is an SSE stream.
pub(super) fn is_sse(resp: &Response) -> bool {
    content_type(resp) == "text/event-stream"
}

/// An error with its causes, on one line (`error sending request: ...: connection refused`).
pub(super) fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
