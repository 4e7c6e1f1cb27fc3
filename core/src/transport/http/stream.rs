//! SSE streams from a Streamable HTTP server: a POST's answer stream and the standalone GET
//! stream. When a stream ends or drops before it is done (a POST's before its answer came;
//! the standalone one at any time) it is resumed with a GET carrying `Last-Event-ID`, after
//! the server's last `retry:` delay; a few attempts in a row without an event, then it is
//! given up (a request then fails with an error answer). A 404 to a GET is taken as "no
//! stream" (servers without a GET route answer so), not as the session's end: that is told
//! by POSTs.

use reqwest::{Response, StatusCode};
use std::collections::VecDeque;
use std::time::Duration;

use super::body::{describe, is_sse};
use super::conn::Conn;
use super::peek::Head;
use super::sse::{Data, Event, Parser};
use super::Gate;
use crate::transport::io::Inbound;

/// The reconnection delay when the server gave none.
const DEFAULT_RETRY: Duration = Duration::from_millis(1000);
/// The longest reconnection delay honoured.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// Reconnection attempts in a row without an event before a stream is given up.
const MAX_ATTEMPTS: u32 = 5;
/// Longest wait for the HTTP status of a GET that opens a stream.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the messages after `notifications/initialized` wait for the standalone stream's
/// HTTP status at most.
const GATE_WAIT: Duration = Duration::from_secs(1);

/// GET the stream at the endpoint (resuming after `last_id`), within [`OPEN_TIMEOUT`].
async fn get(conn: &Conn, last_id: Option<&str>) -> Result<Response, String> {
    match tokio::time::timeout(OPEN_TIMEOUT, conn.execute(conn.get(last_id))).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(describe(&e)),
        Err(_) => Err(format!("no HTTP answer within {OPEN_TIMEOUT:?}")),
    }
}

/// One stream being read: its parser (which keeps the last event id and `retry:` across
/// reconnections) and the events parsed but not yet handled.
pub(super) struct Reading {
    /// The stream's parser.
    pub(super) parser: Parser,
    /// Events parsed and not handled yet.
    pub(super) events: VecDeque<Event>,
}

impl Reading {
    /// A new stream with messages capped at `cap` bytes.
    pub(super) fn new(cap: usize) -> Self {
        Reading {
            parser: Parser::new(cap),
            events: VecDeque::new(),
        }
    }

    /// Read `resp` to its end, delivering its `message` events (on behalf of `head` while
    /// its answer is awaited: `answered` is set once it came). Whether the stream was cut
    /// off (dropped, or ended inside an event).
    pub(super) async fn pump(
        &mut self,
        conn: &Conn,
        resp: &mut Response,
        head: Option<&Head>,
        answered: &mut bool,
    ) -> bool {
        loop {
            while let Some(ev) = self.events.pop_front() {
                if ev.kind != "message" {
                    tracing::debug!("MCP HTTP: ignoring an SSE event of type `{}`", ev.kind);
                    continue;
                }
                match ev.data {
                    Data::TooLong(n) => conn.deliver(Inbound::TooLong(n)).await,
                    Data::Text(t) if t.iter().all(u8::is_ascii_whitespace) => {}
                    Data::Text(t) => {
                        let on_behalf = head.filter(|_| !*answered);
                        *answered |= conn.deliver_message(on_behalf, t.into()).await;
                    }
                }
            }
            match resp.chunk().await {
                Ok(Some(chunk)) => self.parser.feed(&chunk, &mut self.events),
                Ok(None) => return self.parser.mid_event(),
                Err(e) => {
                    tracing::debug!("MCP HTTP: SSE stream dropped: {}", describe(&e));
                    return true;
                }
            }
        }
    }
}

/// Whether a failed stream request is worth repeating.
fn retryable(status: StatusCode) -> bool {
    status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
}

/// Read an SSE stream to its end: a POST's answer stream (`head`: the request; done once
/// answered) or the standalone stream (`None`: never done), resuming it when it breaks off.
pub(super) async fn follow(conn: &Conn, mut resp: Response, head: Option<&Head>) {
    let mut reading = Reading::new(conn.cap);
    // A POST of something that is not a request awaits no answer.
    let mut answered = head.is_some_and(|h| h.request_id().is_none());
    let mut attempts = 0u32;
    loop {
        let blocks = reading.parser.blocks();
        let cut = reading.pump(conn, &mut resp, head, &mut answered).await;
        if reading.parser.blocks() > blocks {
            attempts = 0;
        }
        if (head.is_some() && answered) || conn.is_expired() {
            return;
        }
        let last_id = reading.parser.last_event_id().map(str::to_owned);
        if let (Some(h), None) = (head, &last_id) {
            let how = if cut { "dropped" } else { "ended" };
            let why = format!("the MCP server's answer stream {how} before the answer, with no event id to resume it from");
            return conn.fail(h, None, &why).await;
        }
        let delay = reading
            .parser
            .retry()
            .unwrap_or(DEFAULT_RETRY)
            .min(MAX_RETRY);
        match reopen(conn, last_id.as_deref(), delay, &mut attempts).await {
            Ok(r) => {
                resp = r;
                reading.parser.restart();
            }
            Err(why) => {
                tracing::warn!("MCP HTTP: gave up resuming an SSE stream: {why}");
                if let Some(h) = head {
                    let why = format!(
                        "the MCP server's answer stream broke off and could not be resumed: {why}"
                    );
                    conn.fail(h, None, &why).await;
                }
                return;
            }
        }
    }
}

/// GET the stream again after `delay`, resuming after `last_id`; a few attempts.
async fn reopen(
    conn: &Conn,
    last_id: Option<&str>,
    delay: Duration,
    attempts: &mut u32,
) -> Result<Response, String> {
    loop {
        *attempts += 1;
        if *attempts > MAX_ATTEMPTS {
            return Err(format!("{MAX_ATTEMPTS} attempts failed"));
        }
        tokio::time::sleep(delay).await;
        match get(conn, last_id).await {
            Ok(r) if r.status().is_success() && is_sse(&r) => return Ok(r),
            Ok(r) if r.status().is_success() || retryable(r.status()) => {
                tracing::debug!(
                    "MCP HTTP: resuming an SSE stream: HTTP {}",
                    r.status().as_u16()
                );
            }
            Ok(r) => return Err(format!("HTTP {} on GET", r.status().as_u16())),
            Err(e) => tracing::debug!("MCP HTTP: resuming an SSE stream: {e}"),
        }
    }
}

/// Open the server's standalone stream with a GET (any answer but 2xx SSE means it has none)
/// and read it for the connection's life; `gate` opens once the GET's status arrived, or after
/// [`GATE_WAIT`] at most.
pub(super) async fn standalone(conn: &Conn, mut gate: Gate) {
    let opening = get(conn, None);
    tokio::pin!(opening);
    let opened = tokio::select! {
        r = &mut opening => r,
        _ = tokio::time::sleep(GATE_WAIT) => {
            gate.open();
            opening.await
        }
    };
    gate.open();
    match opened {
        Ok(r) if r.status().is_success() && is_sse(&r) => follow(conn, r, None).await,
        Ok(r) => tracing::debug!(
            "MCP HTTP: no standalone SSE stream (GET answered HTTP {})",
            r.status().as_u16()
        ),
        Err(e) => tracing::warn!("MCP HTTP: the standalone SSE stream could not be opened: {e}"),
    }
}
