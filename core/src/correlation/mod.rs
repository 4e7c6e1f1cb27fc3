//! Correlation: the client's requests awaiting a response. It numbers requests, keeps their
//! deadlines and times them out, retries overload errors, matches each response to its
//! request (and names the responses that match none) and fails what is left when the
//! connection closes. It knows ids and deadlines, nothing about transports or queues: the
//! session hands it every response, and gives it a function that sends a request again and
//! one that takes the outcomes of requests answered as events.

mod table;

use bytes::Bytes;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, Notify};

use crate::error::{Error, Result, RpcError, OVERLOADED_CODE};
use crate::event::Attachment;
use crate::message::{request_line, RequestId};
use crate::options::{RequestOptions, RetryPolicy};
use table::{Entry, Table};

pub(crate) use table::Reply;

/// Request ids that timed out, remembered so that a late answer can be named as one (and as
/// many given up by their caller, whose late answer is discarded quietly).
const TIMED_OUT_MEMORY: usize = 64;

/// Where a waiting caller's outcome arrives. It always does: the response, a timeout, an
/// overload error or the disconnect.
pub(crate) type Outcome = oneshot::Receiver<Result<Box<RawValue>>>;

/// Takes the outcome of a request answered as an event: its token, method, result and the
/// value its sender attached.
type Respond = dyn Fn(u64, String, Result<Box<RawValue>>, Option<Attachment>) + Send + Sync;
/// Shown every successful result with its request's method and line (the session tracks
/// which threads are loaded).
type Observe = dyn Fn(&str, &[u8], &RawValue) + Send + Sync;
/// Told that a pending request was given up (timed out, or dropped by its caller): its id
/// and why, so the protocol can tell the server (MCP's `notifications/cancelled`).
type GiveUp = dyn Fn(i64, &str) + Send + Sync;

/// Requests taken out of the table, to be failed.
pub(crate) struct Pending(Vec<Entry>);

/// A request registered with [`Correlation::register`], to be sent now.
pub(crate) struct Registered {
    pub(crate) id: i64,
    /// The serialized request line.
    pub(crate) line: Bytes,
}

/// The requests of one connection awaiting a response.
pub(crate) struct Correlation {
    table: Mutex<Table>,
    next_id: AtomicI64,
    /// Pending requests that let the reader read ahead past a full queue (made on a thread
    /// that delivers events; see `ClientOptions::read_ahead_bytes`).
    read_ahead_pending: AtomicUsize,
    /// Wakes the timer loop when a new deadline is the earliest.
    timer_wake: Notify,
    default_timeout: Duration,
    retry: RetryPolicy,
    /// Sends a request line again (overload retries).
    resend: Box<dyn Fn(Bytes) + Send + Sync>,
    /// Takes the outcomes of [`Reply::Event`] requests.
    respond: Box<Respond>,
    /// Told of requests given up.
    give_up: Box<GiveUp>,
    /// Shown successful results.
    observe: Box<Observe>,
    /// Requests whose timeout restarts with each progress update, by progress token.
    progress: Mutex<std::collections::HashMap<String, i64>>,
    me: Weak<Correlation>,
}

impl Correlation {
    /// Requests time out after `default_timeout` and retry overload errors by `retry` unless
    /// their options say otherwise; `resend` sends a request line again; `respond` takes the
    /// outcome of each request answered as an event; `give_up` is told of each request that
    /// timed out or whose caller stopped waiting; `observe` is shown each successful result.
    pub(crate) fn new(
        default_timeout: Duration,
        retry: RetryPolicy,
        resend: impl Fn(Bytes) + Send + Sync + 'static,
        respond: impl Fn(u64, String, Result<Box<RawValue>>, Option<Attachment>) + Send + Sync + 'static,
        give_up: impl Fn(i64, &str) + Send + Sync + 'static,
        observe: impl Fn(&str, &[u8], &RawValue) + Send + Sync + 'static,
    ) -> Arc<Correlation> {
        Arc::new_cyclic(|me| Correlation {
            table: Mutex::new(Table::default()),
            next_id: AtomicI64::new(1),
            read_ahead_pending: AtomicUsize::new(0),
            timer_wake: Notify::new(),
            default_timeout,
            retry,
            resend: Box::new(resend),
            respond: Box::new(respond),
            give_up: Box::new(give_up),
            observe: Box::new(observe),
            progress: Mutex::default(),
            me: me.clone(),
        })
    }

    /// Give a request its id and deadline before it is sent; its outcome goes to `reply`.
    /// With `read_ahead` the reader reads ahead past a full queue while it waits. Once
    /// closed, fails with the error the connection closed with.
    pub(crate) fn register(
        &self,
        method: &str,
        params: &RawValue,
        opts: &RequestOptions,
        read_ahead: bool,
        reply: Reply,
    ) -> Result<Registered> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = Bytes::from(request_line(id, method, params));
        let timeout = opts.timeout.unwrap_or(self.default_timeout);
        let entry = Entry {
            tx: reply,
            method: method.to_owned(),
            line: line.clone(),
            attempts: 1,
            retry: opts.retry.unwrap_or(self.retry),
            deadline: Instant::now() + timeout,
            timeout,
            read_ahead,
        };
        let earliest = {
            let mut table = self.table.lock().unwrap();
            if let Some(e) = &table.closed {
                return Err(e.clone());
            }
            if read_ahead {
                self.read_ahead_pending.fetch_add(1, Ordering::AcqRel);
            }
            table.insert(id, entry)
        };
        if earliest {
            self.timer_wake.notify_one();
        }
        Ok(Registered { id, line })
    }

    /// Progress updates with `token` are for request `id`: each restarts its timeout (the
    /// whole timeout again from the update), as long as it is pending.
    pub(crate) fn watch_progress(&self, token: String, id: i64) {
        self.progress.lock().unwrap().insert(token, id);
    }

    /// Stop restarting a request's timeout on its progress.
    pub(crate) fn unwatch_progress(&self, token: &str) {
        self.progress.lock().unwrap().remove(token);
    }

    /// A progress update with `token` arrived: restart the timeout of its request.
    pub(crate) fn progress(&self, token: &str) {
        let Some(id) = self.progress.lock().unwrap().get(token).copied() else {
            return;
        };
        if !self
            .table
            .lock()
            .unwrap()
            .restart_timeout(id, Instant::now())
        {
            self.unwatch_progress(token);
        }
    }

    /// Whether a pending request lets the reader read ahead past a full queue.
    pub(crate) fn reads_ahead(&self) -> bool {
        self.read_ahead_pending.load(Ordering::Acquire) > 0
    }

    /// Fail a pending request (one that could not be sent).
    pub(crate) fn fail(&self, id: i64, err: Error) {
        let entry = self.table.lock().unwrap().map.remove(&id);
        if let Some(e) = entry {
            self.finish(e, Err(err));
        }
    }

    /// The caller of request `id` stopped waiting (dropped its future): forget the request
    /// (its late answer is discarded without an error event) and tell `give_up`. Nothing
    /// happens once it is answered.
    pub(crate) fn abandon(&self, id: i64) {
        let entry = {
            let mut table = self.table.lock().unwrap();
            let entry = table.map.remove(&id);
            if entry.is_some() {
                remember_abandoned(&mut table, id);
            }
            entry
        };
        if let Some(e) = entry {
            if e.read_ahead {
                self.read_ahead_pending.fetch_sub(1, Ordering::AcqRel);
            }
            tracing::debug!(method = %e.method, id, "request abandoned by its caller");
            (self.give_up)(id, "the client stopped waiting for the request");
        }
    }

    /// Drop request `id` without an outcome or telling anyone (a reconnect's own request
    /// whose link is gone).
    pub(crate) fn forget(&self, id: i64) {
        let entry = self.table.lock().unwrap().map.remove(&id);
        if entry.is_some_and(|e| e.read_ahead) {
            self.read_ahead_pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Give up the request sent with event token `token` (see [`abandon`](Self::abandon)):
    /// its outcome event says it was cancelled. False when no such request is pending.
    pub(crate) fn cancel_token(&self, token: u64, error: Error) -> bool {
        let entry = {
            let mut table = self.table.lock().unwrap();
            let id = table
                .map
                .iter()
                .find(|(_, e)| matches!(e.tx, Reply::Event(t, _) if t == token))
                .map(|(id, _)| *id);
            let entry = id.and_then(|id| table.map.remove(&id).map(|e| (id, e)));
            if let Some((id, _)) = &entry {
                remember_abandoned(&mut table, *id);
            }
            entry
        };
        let Some((id, e)) = entry else { return false };
        (self.give_up)(id, "the client cancelled the request");
        self.finish(e, Err(error));
        true
    }

    /// Hand a request its outcome (the entry is already out of the table).
    fn finish(&self, entry: Entry, outcome: Result<Box<RawValue>>) {
        if entry.read_ahead {
            self.read_ahead_pending.fetch_sub(1, Ordering::AcqRel);
        }
        if let Ok(raw) = &outcome {
            (self.observe)(&entry.method, &entry.line, raw);
        }
        match entry.tx {
            Reply::Call(f) => f(outcome),
            Reply::Wait(tx) => {
                let _ = tx.send(outcome);
            }
            Reply::Event(token, attached) => (self.respond)(token, entry.method, outcome, attached),
        }
    }

    /// Hand a response to its pending request, retrying overload errors. A response that
    /// matches none (unknown id, a second answer, an answer after the timeout) fails no
    /// request: the error returned says what to report; the connection goes on.
    pub(crate) fn complete(
        &self,
        id: RequestId,
        outcome: std::result::Result<&RawValue, RpcError>,
    ) -> std::result::Result<(), String> {
        let mut table = self.table.lock().unwrap();
        let entry = match &id {
            RequestId::Int(n) => table.map.remove(n),
            RequestId::Str(_) => None,
        };
        let Some(mut entry) = entry else {
            if let RequestId::Int(n) = id {
                if let Some(at) = table.abandoned.iter().position(|i| *i == n) {
                    // Its caller gave it up: the late answer is expected (a second one is not).
                    table.abandoned.remove(at);
                    tracing::debug!(
                        id = n,
                        "late answer to a request its caller gave up; discarded"
                    );
                    return Ok(());
                }
            }
            let why = self.unmatched_response(&table, &id);
            return Err(format!("protocol error: {why}; dropped"));
        };
        let RequestId::Int(n) = id else {
            unreachable!("only integer ids are pending")
        };
        let result = match outcome {
            Ok(raw) => Ok(raw.to_owned()),
            Err(e) if e.code == OVERLOADED_CODE => {
                if entry.attempts < entry.retry.max_attempts {
                    let delay = entry.retry.backoff(entry.attempts - 1);
                    if Instant::now() + delay < entry.deadline {
                        tracing::debug!(method = %entry.method, attempt = entry.attempts, ?delay, "server overloaded; retrying");
                        entry.attempts += 1;
                        let line = entry.line.clone();
                        table.map.insert(n, entry);
                        drop(table);
                        self.resend_later(n, line, delay);
                        return Ok(());
                    }
                }
                Err(Error::Overloaded {
                    attempts: entry.attempts,
                    last: e,
                })
            }
            Err(e) => Err(e.into_error()),
        };
        drop(table);
        self.finish(entry, result);
        Ok(())
    }

    /// Send request `id` again after `delay`, unless it is no longer pending by then.
    fn resend_later(&self, id: i64, line: Bytes, delay: Duration) {
        let me = self.me.clone();
        crate::rt::spawn(async move {
            tokio::time::sleep(delay).await;
            if let Some(c) = me.upgrade() {
                // Under the table's lock: a reconnect that takes the request out meanwhile
                // also drains this line (see `SessionShared::lose_link`).
                let table = c.table.lock().unwrap();
                if table.map.contains_key(&id) {
                    (c.resend)(line);
                }
            }
        });
    }

    /// Why a response matches no pending request, in words for the error event.
    fn unmatched_response(&self, table: &Table, id: &RequestId) -> String {
        match id {
            RequestId::Int(n) => match table.timed_out.iter().find(|(i, _)| i == n) {
                Some((_, method)) => {
                    format!("late response to request {n} (`{method}`), which had timed out")
                }
                None if *n >= 1 && *n < self.next_id.load(Ordering::Relaxed) => {
                    format!(
                        "response to request {n}, which is no longer pending (a second answer, or one after a timeout)"
                    )
                }
                None => format!("response with id {n}, which this client never used"),
            },
            RequestId::Str(_) => format!("response with id {id}, which this client never used"),
        }
    }

    /// Fail the requests whose deadline is at or before `now` with a timeout.
    fn expire(&self, now: Instant) {
        let expired = {
            let mut table = self.table.lock().unwrap();
            let expired = table.take_expired(now);
            for (id, e) in &expired {
                if table.timed_out.len() == TIMED_OUT_MEMORY {
                    table.timed_out.pop_front();
                }
                table.timed_out.push_back((*id, e.method.clone()));
            }
            expired
        };
        for (id, e) in expired {
            tracing::debug!(method = %e.method, "request timed out");
            (self.give_up)(id, "timed out");
            let err = Error::Timeout {
                method: e.method.clone(),
                after: e.timeout,
            };
            self.finish(e, Err(err));
        }
    }

    /// Time requests out as their deadlines pass; runs until its task is aborted.
    pub(crate) async fn run_timers(&self) {
        loop {
            let next = self.table.lock().unwrap().next_deadline();
            match next {
                None => self.timer_wake.notified().await,
                Some(when) => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(when.into()) => self.expire(Instant::now()),
                        _ = self.timer_wake.notified() => {}
                    }
                }
            }
        }
    }

    /// Take every pending request out of the table (the link dropped; the connection goes
    /// on after a reconnect); fail them with [`fail_pending`](Self::fail_pending).
    pub(crate) fn take_pending(&self) -> Pending {
        Pending(self.table.lock().unwrap().take_all())
    }

    /// Fail requests taken by [`take_pending`](Self::take_pending) with `error`; how many.
    pub(crate) fn fail_pending(&self, pending: Pending, error: Error) -> usize {
        let n = pending.0.len();
        for e in pending.0 {
            self.finish(e, Err(error.clone()));
        }
        n
    }

    /// Fail every pending request with `error` and refuse later ones with it. `on_close` runs
    /// first, under the table's lock (the connection records why it closed); nothing happens
    /// when already closed (returns false).
    pub(crate) fn close(&self, error: Error, on_close: impl FnOnce()) -> bool {
        let entries = {
            let mut table = self.table.lock().unwrap();
            if table.closed.is_some() {
                return false;
            }
            table.closed = Some(error.clone());
            on_close();
            table.take_all()
        };
        for e in entries {
            self.finish(e, Err(error.clone()));
        }
        true
    }
}

/// Remember that the caller of request `id` gave it up (see [`Table::abandoned`]).
fn remember_abandoned(table: &mut Table, id: i64) {
    if table.abandoned.len() == TIMED_OUT_MEMORY {
        table.abandoned.pop_front();
    }
    table.abandoned.push_back(id);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.into()).unwrap()
    }

    fn correlation() -> Arc<Correlation> {
        Correlation::new(
            Duration::from_secs(60),
            RetryPolicy::none(),
            |_| {},
            |_, _, _, _| {},
            |_, _| {},
            |_, _, _| {},
        )
    }

    /// Register a request whose caller waits.
    fn register(c: &Correlation, method: &str, read_ahead: bool) -> (i64, Outcome) {
        let (tx, rx) = oneshot::channel();
        let opts = RequestOptions::default();
        let r = c
            .register(method, &raw("{}"), &opts, read_ahead, Reply::Wait(tx))
            .unwrap();
        (r.id, rx)
    }

    #[test]
    fn responses_that_match_nothing_are_named() {
        let c = correlation();
        let (id, _rx) = register(&c, "a", false);
        assert!(c.complete(RequestId::Int(id), Ok(&raw("1"))).is_ok());
        let twice = c.complete(RequestId::Int(id), Ok(&raw("1"))).unwrap_err();
        assert!(twice.contains("which is no longer pending"), "{twice}");
        let never = c.complete(RequestId::Int(99), Ok(&raw("1"))).unwrap_err();
        assert_eq!(
            never,
            "protocol error: response with id 99, which this client never used; dropped"
        );
        let late = {
            let (id, _rx) = register(&c, "slow", false);
            c.expire(Instant::now() + Duration::from_secs(61));
            c.complete(RequestId::Int(id), Ok(&raw("1"))).unwrap_err()
        };
        assert!(late.contains("(`slow`), which had timed out"), "{late}");
    }

    #[test]
    fn close_fails_pending_and_later_requests_and_counts_read_ahead() {
        let c = correlation();
        let (_, mut rx) = register(&c, "a", true);
        assert!(c.reads_ahead());
        let mut closed_once = 0;
        assert!(c.close(Error::NotConnected, || closed_once += 1));
        assert!(!c.close(Error::AlreadyConnected, || closed_once += 1));
        assert_eq!(closed_once, 1);
        assert!(!c.reads_ahead());
        assert!(matches!(rx.try_recv(), Ok(Err(Error::NotConnected))));
        let (tx, _rx) = oneshot::channel();
        let opts = RequestOptions::default();
        let later = c.register("b", &raw("{}"), &opts, false, Reply::Wait(tx));
        assert!(matches!(later, Err(Error::NotConnected)));
    }

    #[test]
    fn event_replies_go_to_the_response_sink() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = got.clone();
        let c = Correlation::new(
            Duration::from_secs(60),
            RetryPolicy::none(),
            |_| {},
            move |token, method, result: Result<Box<RawValue>>, _| {
                sink.lock()
                    .unwrap()
                    .push((token, method, result.map(|r| r.get().to_owned())));
            },
            |_, _| {},
            |_, _, _| {},
        );
        let opts = RequestOptions::default();
        let r = c
            .register("m", &raw("{}"), &opts, false, Reply::Event(7, None))
            .unwrap();
        c.complete(RequestId::Int(r.id), Ok(&raw("[1]"))).unwrap();
        let got = got.lock().unwrap();
        assert!(matches!(&got[..], [(7, m, Ok(v))] if m == "m" && v == "[1]"));
    }

    #[test]
    fn requests_given_up_are_reported_once_and_answered_never() {
        let given_up = Arc::new(Mutex::new(Vec::new()));
        let log = given_up.clone();
        let responses = Arc::new(Mutex::new(Vec::new()));
        let sink = responses.clone();
        let c = Correlation::new(
            Duration::from_secs(60),
            RetryPolicy::none(),
            |_| {},
            move |token, _, result: Result<Box<RawValue>>, _| {
                sink.lock().unwrap().push((token, result.is_err()));
            },
            move |id, why: &str| log.lock().unwrap().push((id, why.to_owned())),
            |_, _, _| {},
        );
        let opts = RequestOptions::default();
        let (waited, _rx) = register(&c, "a", false);
        c.abandon(waited);
        c.abandon(waited);
        let ev = c
            .register("b", &raw("{}"), &opts, false, Reply::Event(9, None))
            .unwrap();
        assert!(c.cancel_token(9, Error::Cancelled("test".into())));
        assert!(!c.cancel_token(9, Error::Cancelled("test".into())));
        let short = RequestOptions::timeout(Duration::from_millis(1));
        let timed = c
            .register("c", &raw("{}"), &short, false, Reply::Event(10, None))
            .unwrap();
        c.expire(Instant::now() + Duration::from_millis(5));
        let ids: Vec<i64> = given_up.lock().unwrap().iter().map(|(i, _)| *i).collect();
        assert_eq!(ids, vec![waited, ev.id, timed.id]);
        assert_eq!(*responses.lock().unwrap(), vec![(9, true), (10, true)]);
        // A late answer to a given-up request completes nothing and is discarded quietly
        // (the caller gave it up); a second answer is reported. A timed-out one is reported.
        assert!(c.complete(RequestId::Int(waited), Ok(&raw("1"))).is_ok());
        assert!(c.complete(RequestId::Int(waited), Ok(&raw("1"))).is_err());
        assert!(c.complete(RequestId::Int(ev.id), Ok(&raw("1"))).is_ok());
        assert!(c.complete(RequestId::Int(timed.id), Ok(&raw("1"))).is_err());
        assert_eq!(responses.lock().unwrap().len(), 2);
    }
}
