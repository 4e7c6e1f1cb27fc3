//! Turn streams: one turn's events, in order, ending after its `turn/completed`.

use serde_json::Value;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::connection::Client;
use crate::delivery::queue::EventQueue;
use crate::delivery::router::Route;
use crate::delivery::stream::{poll_filled, poll_refill, BatchFuture};
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::{ConnectionEvent, Event, Notification};
use crate::session::SessionShared;
use crate::skills::SkillInfo;

/// What a finished turn produced, gathered from its events.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TurnResult {
    /// The thread the turn ran on.
    pub thread_id: String,
    /// The turn's id.
    pub turn_id: String,
    /// Final status from `turn/completed` (`completed`, `interrupted`, `failed`, ...).
    pub status: String,
    /// Text of the last completed agent message, if any.
    pub final_response: Option<String>,
    /// Every item completed during the turn (`item/completed` params.item), in order.
    pub items: Vec<Value>,
    /// The last token usage reported for the thread during the turn
    /// (`thread/tokenUsage/updated` params.tokenUsage).
    pub usage: Option<Value>,
    /// The turn's last unified diff (`turn/diff/updated` params.diff).
    pub diff: Option<String>,
    /// The turn's error object, when it failed.
    pub error: Option<Value>,
    /// The whole `turn` object of `turn/completed`.
    pub turn: Value,
    /// The skills injected into the prompt as text because the server has no `skill` input
    /// item (exec, mcp, app-servers before Codex 0.169.0); empty when they went natively.
    pub emulated_skills: Vec<SkillInfo>,
}

impl TurnResult {
    /// Fold one event of the turn into the result.
    fn absorb(&mut self, n: &Notification) {
        match n.method.as_str() {
            "item/completed" => {
                let mut p = n.params_value();
                let item = p.get_mut("item").map(Value::take).unwrap_or(Value::Null);
                if item["type"] == "agentMessage" {
                    if let Some(t) = item["text"].as_str() {
                        self.final_response = Some(t.to_owned());
                    }
                }
                self.items.push(item);
            }
            "thread/tokenUsage/updated" => {
                let mut p = n.params_value();
                self.usage = p.get_mut("tokenUsage").map(Value::take);
            }
            "turn/diff/updated" => {
                let p = n.params_value();
                self.diff = p["diff"].as_str().map(str::to_owned);
            }
            "turn/completed" => {
                let mut p = n.params_value();
                let turn = p.get_mut("turn").map(Value::take).unwrap_or(Value::Null);
                self.status = turn["status"].as_str().unwrap_or_default().to_owned();
                if !turn["error"].is_null() {
                    self.error = Some(turn["error"].clone());
                }
                self.turn = turn;
            }
            _ => {}
        }
    }

    /// Whether the turn completed normally.
    pub fn is_completed(&self) -> bool {
        self.status == "completed"
    }
}

/// How long [`TurnStream::give_up`] waits for the answer to `turn/interrupt`, and then for the
/// turn's last events.
const GIVE_UP_GRACE: Duration = Duration::from_secs(5);

/// The bounds of a turn as its consumer waits for its events: the whole turn (`timeout`,
/// counted from [`new`](Self::new)) and the silence between two events (`idle`); `None`: no
/// bound. [`TurnStream::finish_within`] waits with them; a binding that waits its own way
/// (the Python clients, blocking with Ctrl-C checks or on an asyncio loop) asks them how long
/// to wait for the next event and, when none came, which bound ran out, then gives the turn up
/// ([`TurnStream::give_up`], [`TurnStream::give_up_async`]).
///
/// ```
/// use std::time::Duration;
/// use codex_client::TurnBounds;
///
/// let b = TurnBounds::new(Some(Duration::from_secs(60)), Some(Duration::from_secs(5)));
/// assert_eq!(b.next_wait(), Some(Duration::from_secs(5))); // the idle bound is the shorter
/// assert!(!b.overall_expired());
/// assert_eq!(TurnBounds::new(None, None).next_wait(), None); // no bound: wait for ever
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnBounds {
    timeout: Option<Duration>,
    idle: Option<Duration>,
    deadline: Option<std::time::Instant>,
}

impl TurnBounds {
    /// Bounds starting now: the whole turn within `timeout`, no silence longer than `idle`.
    pub fn new(timeout: Option<Duration>, idle: Option<Duration>) -> TurnBounds {
        TurnBounds {
            timeout,
            idle,
            deadline: timeout.map(|t| std::time::Instant::now() + t),
        }
    }

    /// The whole-turn bound.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The bound on the silence between two events.
    pub fn idle(&self) -> Option<Duration> {
        self.idle
    }

    /// How long to wait for the next event: the time left of the whole turn or the idle
    /// bound, whichever is shorter (`None`: no bound).
    pub fn next_wait(&self) -> Option<Duration> {
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(std::time::Instant::now()));
        match (left, self.idle) {
            (Some(l), Some(i)) => Some(l.min(i)),
            (l, i) => l.or(i),
        }
    }

    /// Whether the whole-turn bound has run out (after a wait of [`next_wait`](Self::next_wait)
    /// that saw no event: else it was the idle bound).
    pub fn overall_expired(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// The events of one running turn, from `turn/start` to its `turn/completed` (inclusive).
///
/// Iterate it ([`iter`](Self::iter), blocking) or poll it as an async `Stream`. Events of other threads
/// and other turns never appear here. Server requests of the thread arrive here when no
/// handler registered on the client takes them; a request dropped unanswered is declined.
/// When the stream is dropped before the turn ends, the rest of the turn's events go to the
/// client's normal delivery; dropping does not interrupt the turn (call
/// [`interrupt`](Self::interrupt) for that).
pub struct TurnStream {
    client: Client,
    session: Arc<SessionShared>,
    route: Arc<Route>,
    queue: Arc<EventQueue>,
    thread_id: String,
    turn_id: String,
    turn: Value,
    buf: VecDeque<Event>,
    fut: Option<BatchFuture>,
    done: bool,
    result: TurnResult,
    ended_by_disconnect: Option<Error>,
    /// The method of the last notification seen (for timeout messages).
    last_method: Option<String>,
}

/// The turn id in a `turn/start` result (`{"turn": {"id": ...}}`).
pub fn turn_id_of(result: &Value) -> Result<String> {
    result["turn"]["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::Protocol(format!("turn/start result has no turn id: {result}")))
}

impl TurnStream {
    /// Start a turn with `params` (a `turn/start` params object; `threadId` is set here) and
    /// stream it. Blocking part: the `turn/start` round trip.
    pub(crate) fn start(client: &Client, thread_id: &str, mut params: Value) -> Result<TurnStream> {
        let (session, route, queue) = Self::open_route(client, thread_id, &mut params)?;
        let outcome = client.request_blocking(Self::START, params);
        Self::finish_start(client, session, route, queue, thread_id, outcome)
    }

    /// Async form of [`start`](Self::start).
    pub(crate) async fn start_async(
        client: &Client,
        thread_id: &str,
        mut params: Value,
    ) -> Result<TurnStream> {
        let (session, route, queue) = Self::open_route(client, thread_id, &mut params)?;
        let outcome = client.request(Self::START, params).await;
        Self::finish_start(client, session, route, queue, thread_id, outcome)
    }

    #[allow(clippy::type_complexity)]
    fn open_route(
        client: &Client,
        thread_id: &str,
        params: &mut Value,
    ) -> Result<(Arc<SessionShared>, Arc<Route>, Arc<EventQueue>)> {
        let obj = params
            .as_object_mut()
            .ok_or_else(|| Error::InvalidArgument("turn/start params must be an object".into()))?;
        obj.insert("threadId".into(), Value::String(thread_id.to_owned()));
        let session = client.live_session()?;
        let queue = session.new_queue();
        let route = session.router.add(thread_id, queue.clone())?;
        Ok((session, route, queue))
    }

    fn finish_start(
        client: &Client,
        session: Arc<SessionShared>,
        route: Arc<Route>,
        queue: Arc<EventQueue>,
        thread_id: &str,
        outcome: Result<Value>,
    ) -> Result<TurnStream> {
        let v = match outcome {
            Ok(v) => v,
            Err(e) => {
                session.router.remove(&route);
                return Err(e);
            }
        };
        let turn = v.get("turn").cloned().unwrap_or(Value::Null);
        let turn_id = match turn_id_of(&v) {
            Ok(id) => id,
            Err(e) => {
                session.router.remove(&route);
                return Err(e);
            }
        };
        route.set_turn_id(&turn_id);
        Ok(TurnStream {
            client: client.clone(),
            session,
            route,
            queue,
            thread_id: thread_id.to_owned(),
            result: TurnResult {
                thread_id: thread_id.to_owned(),
                turn_id: turn_id.clone(),
                ..Default::default()
            },
            turn_id,
            turn,
            buf: VecDeque::new(),
            fut: None,
            done: false,
            ended_by_disconnect: None,
            last_method: None,
        })
    }

    /// Record the skills emulated in the turn's input (reported in its result).
    pub(crate) fn set_emulated_skills(&mut self, skills: Vec<SkillInfo>) {
        self.result.emulated_skills = skills;
    }

    /// The thread id.
    pub fn thread_id(&self) -> &str {
        &self.thread_id
    }

    /// The turn id.
    pub fn turn_id(&self) -> &str {
        &self.turn_id
    }

    /// The `turn` object `turn/start` returned.
    pub fn started_turn(&self) -> &Value {
        &self.turn
    }

    /// Interrupt the turn (`turn/interrupt`). The stream then ends with a `turn/completed`
    /// whose status is `interrupted`.
    pub fn interrupt(&self) -> Result<()> {
        let (method, params) = Self::interrupt_request(&self.thread_id, &self.turn_id);
        self.client.request_blocking(method, params).map(|_| ())
    }

    /// Add input to the running turn (`turn/steer`). `input` is a list of user input items.
    pub fn steer(&self, input: Value) -> Result<()> {
        let (method, params) = Self::steer_request(&self.thread_id, &self.turn_id, input);
        self.client.request_blocking(method, params).map(|_| ())
    }

    /// The `turn/start` method.
    const START: &'static str =
        <crate::protocol::methods::TurnStart as crate::protocol::ClientMethod>::NAME;

    /// The `turn/start` request of a turn on `thread_id` with `input` (a list of user input
    /// items, e.g. `Input::to_value`); `overrides` are extra
    /// params (an object, or `Null`). For bindings that start a turn without streaming it
    /// here (its events then arrive through the client's own delivery); the result's turn id
    /// is [`turn_id_of`].
    pub fn start_request(
        thread_id: &str,
        input: Value,
        overrides: Value,
    ) -> Result<(&'static str, Value)> {
        let mut params = if overrides.is_null() {
            serde_json::json!({})
        } else {
            overrides
        };
        let obj = params
            .as_object_mut()
            .ok_or_else(|| Error::InvalidArgument("turn params must be a JSON object".into()))?;
        obj.insert("threadId".into(), Value::String(thread_id.to_owned()));
        obj.insert("input".into(), input);
        Ok((Self::START, params))
    }

    /// The `turn/interrupt` request of a turn (method and params), for callers that send it
    /// their own way (asynchronously, without waiting, after the stream is gone).
    pub fn interrupt_request(thread_id: &str, turn_id: &str) -> (&'static str, Value) {
        use crate::protocol::{methods, ClientMethod};
        let params = serde_json::json!({"threadId": thread_id, "turnId": turn_id});
        (methods::TurnInterrupt::NAME, params)
    }

    /// The `turn/steer` request adding `input` (a list of user input items) to a running
    /// turn (see [`interrupt_request`](Self::interrupt_request)).
    pub fn steer_request(thread_id: &str, turn_id: &str, input: Value) -> (&'static str, Value) {
        use crate::protocol::{methods, ClientMethod};
        let params = serde_json::json!({
            "threadId": thread_id,
            "expectedTurnId": turn_id,
            "input": input,
        });
        (methods::TurnSteer::NAME, params)
    }

    /// The disconnect as this turn reports it: the cause, then which endpoint (the client's
    /// label, when it has one), thread and turn died with it (what [`finish`](Self::finish)
    /// returns; bindings that end a turn themselves use it too).
    pub fn lost_here(&self, info: &DisconnectInfo) -> DisconnectInfo {
        let place = match self.client.label() {
            Some(label) => format!("endpoint `{label}`, "),
            None => String::new(),
        };
        DisconnectInfo::new(
            format!(
                "{} (the turn was lost: {place}thread {}, turn {})",
                info.reason, self.thread_id, self.turn_id
            ),
            info.stderr_tail.clone(),
        )
    }

    fn absorb_event(&mut self, ev: Event) -> Event {
        match &ev {
            Event::Notification(n) => {
                if self.last_method.as_deref() != Some(n.method.as_str()) {
                    self.last_method = Some(n.method.clone());
                }
                self.result.absorb(n)
            }
            Event::Connection(ConnectionEvent::Disconnected(info)) => {
                self.ended_by_disconnect = Some(Error::Disconnected(self.lost_here(info)));
            }
            _ => {}
        }
        ev
    }

    /// Wait up to `timeout` (`None` = forever) for the next event. `Ok(None)` on timeout or
    /// at the end (see [`is_done`](Self::is_done)).
    pub fn next_event(&mut self, timeout: Option<Duration>) -> Result<Option<Event>> {
        if let Some(ev) = self.buf.pop_front() {
            return Ok(Some(self.absorb_event(ev)));
        }
        if self.done {
            return Ok(None);
        }
        let mut out = Vec::new();
        if !self.queue.wait_drain(&mut out, 256, timeout) {
            self.done = true;
        }
        self.buf.extend(out);
        Ok(self.buf.pop_front().map(|ev| self.absorb_event(ev)))
    }

    /// Whether the stream has ended (turn completed, or the connection closed).
    pub fn is_done(&self) -> bool {
        self.done && self.buf.is_empty()
    }

    /// Drain the rest of the turn, answering server requests that reach the stream
    /// fail-closed, and return the result.
    pub fn finish(mut self) -> Result<TurnResult> {
        while let Some(ev) = self.next_event(None)? {
            drop(ev);
        }
        self.into_result()
    }

    /// Drain the rest of the turn like [`finish`](Self::finish), but give up when the whole
    /// turn takes longer than `timeout` or no event comes for `idle` (each `None`: no bound):
    /// then the turn is interrupted (`turn/interrupt`, and its last events are drained for up
    /// to 5 s) and this fails with [`Error::Timeout`] naming the bound and the last event
    /// seen. The result gathered so far stays readable with [`result`](Self::result).
    pub fn finish_within(
        &mut self,
        timeout: Option<Duration>,
        idle: Option<Duration>,
    ) -> Result<TurnResult> {
        let bounds = TurnBounds::new(timeout, idle);
        loop {
            match self.next_event(bounds.next_wait())? {
                Some(ev) => drop(ev),
                None if self.is_done() => break,
                None => return Err(self.give_up(bounds.overall_expired(), timeout, idle)),
            }
        }
        if self.result.status.is_empty() {
            if let Some(e) = self.ended_by_disconnect.take() {
                return Err(e);
            }
        }
        Ok(self.result.clone())
    }

    /// Give up on the turn past one of its bounds, as [`finish_within`](Self::finish_within)
    /// does (for bindings that wait on the stream themselves): interrupt it
    /// (`turn/interrupt`), drain its last events for up to 5 s, and return the
    /// [`Error::Timeout`] naming the bound — the whole-turn `timeout` when `overall`, else
    /// `idle` — and the last event seen.
    pub fn give_up(
        &mut self,
        overall: bool,
        timeout: Option<Duration>,
        idle: Option<Duration>,
    ) -> Error {
        let (method, params) = Self::interrupt_request(&self.thread_id, &self.turn_id);
        let _ = self.client.request_blocking_with(
            method,
            params,
            crate::options::RequestOptions::timeout(GIVE_UP_GRACE),
        );
        let end = std::time::Instant::now() + GIVE_UP_GRACE;
        while !self.is_done() {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.next_event(Some(left)) {
                Ok(Some(_)) => {}
                _ => break,
            }
            if left.is_zero() {
                break;
            }
        }
        self.timeout_error(overall, timeout, idle)
    }

    /// [`give_up`](Self::give_up) without blocking, for a consumer on an event loop (the
    /// asyncio client): the interrupt is awaited and the last events drained as a stream, on
    /// any executor, each for up to 5 s.
    pub async fn give_up_async(
        &mut self,
        overall: bool,
        timeout: Option<Duration>,
        idle: Option<Duration>,
    ) -> Error {
        use futures_core::Stream;
        let (method, params) = Self::interrupt_request(&self.thread_id, &self.turn_id);
        let opts = crate::options::RequestOptions::timeout(GIVE_UP_GRACE);
        let _ = self.client.request_with(method, params, opts).await;
        let drain = std::future::poll_fn(|cx| loop {
            match Pin::new(&mut *self).poll_next(cx) {
                Poll::Ready(Some(ev)) => drop(ev),
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        });
        crate::delivery::within(Some(GIVE_UP_GRACE), drain).await;
        self.timeout_error(overall, timeout, idle)
    }

    /// The [`Error::Timeout`] of a turn given up on (see [`give_up`](Self::give_up)).
    fn timeout_error(
        &self,
        overall: bool,
        timeout: Option<Duration>,
        idle: Option<Duration>,
    ) -> Error {
        let what = match (overall, timeout, idle) {
            (true, Some(t), _) => format!("the turn took longer than {t:?}"),
            (_, _, Some(i)) => format!("no event for {i:?}"),
            _ => "the turn timed out".into(),
        };
        let last = self.last_method.as_deref().unwrap_or("none");
        Error::Timeout {
            method: format!(
                "turn {} ({what}; interrupted; last event: {last})",
                self.turn_id
            ),
            after: if overall {
                timeout.unwrap_or_default()
            } else {
                idle.unwrap_or_default()
            },
        }
    }

    /// The result gathered so far; an error when the connection closed before the turn
    /// completed.
    pub fn into_result(mut self) -> Result<TurnResult> {
        if self.result.status.is_empty() {
            if let Some(e) = self.ended_by_disconnect.take() {
                return Err(e);
            }
        }
        Ok(std::mem::take(&mut self.result))
    }

    /// The result gathered so far, by reference.
    pub fn result(&self) -> &TurnResult {
        &self.result
    }
}

/// Blocking iterator over a [`TurnStream`] (from [`TurnStream::iter`]).
pub struct TurnIter<'a>(&'a mut TurnStream);

impl Iterator for TurnIter<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.0.next_event(None).ok().flatten()
    }
}

impl TurnStream {
    /// A blocking iterator over the remaining events.
    pub fn iter(&mut self) -> TurnIter<'_> {
        TurnIter(self)
    }
}

impl TurnStream {
    /// Events moved from the turn's queue into this stream's buffer at a time.
    const BATCH: usize = 256;

    /// Ready once the next [`poll_next`](futures_core::Stream::poll_next) returns without
    /// waiting: an event is buffered here or the stream has ended. Takes no event (the result
    /// absorbs an event when it is taken).
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        poll_filled(
            &self.queue,
            &mut self.buf,
            &mut self.fut,
            &mut self.done,
            Self::BATCH,
            cx,
        )
    }
}

impl futures_core::Stream for TurnStream {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let this = &mut *self;
        let next = poll_refill(
            &this.queue,
            &mut this.buf,
            &mut this.fut,
            &mut this.done,
            Self::BATCH,
            cx,
        );
        next.map(|ev| ev.map(|ev| this.absorb_event(ev)))
    }
}

impl Drop for TurnStream {
    fn drop(&mut self) {
        // Unread events of this turn stay in its queue: hand them back to the client's normal
        // delivery so nothing is lost, then let later events take the normal path too.
        self.session.router.remove(&self.route);
        let mut rest = Vec::new();
        while self
            .queue
            .wait_drain(&mut rest, usize::MAX, Some(Duration::ZERO))
            && !rest.is_empty()
        {
            for ev in rest.drain(..) {
                if !matches!(ev, Event::Connection(ConnectionEvent::Disconnected(_))) {
                    self.session.queue.force_push(ev);
                }
            }
        }
        for ev in self.buf.drain(..) {
            if !matches!(ev, Event::Connection(ConnectionEvent::Disconnected(_))) {
                self.session.queue.force_push(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn interrupt_and_steer_requests() {
        assert_eq!(
            TurnStream::interrupt_request("t", "u"),
            ("turn/interrupt", json!({"threadId": "t", "turnId": "u"}))
        );
        assert_eq!(
            TurnStream::steer_request("t", "u", json!([1])),
            (
                "turn/steer",
                json!({"threadId": "t", "expectedTurnId": "u", "input": [1]})
            )
        );
    }
}
