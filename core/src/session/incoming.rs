//! Lines from the server: each is parsed and classified, then handed to correlation (a
//! response) or delivered as an event (a notification or server request) onto the queue it
//! belongs to, the turn stream's or the connection's (with a copy for each subscription),
//! waiting for room when it is full.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::SessionShared;
use crate::delivery::queue::{EventQueue, Push};
use crate::event::{null_raw, ConnectionEvent, Event, Ids, Notification, ServerRequest};
use crate::message::{classify, response_line, Classified, Incoming, RequestId};
use crate::rules::{Link, Route};

/// Lines handled between two consumer wake-ups, per queue with events, while lines keep
/// arriving.
const WAKE_BATCH: usize = 256;
/// The most lines handled between two wake-ups (bounds the added latency: a few ms).
const WAKE_BATCH_MAX: usize = 2048;

impl SessionShared {
    /// Queue an event on `queue`, waiting for room when it is full and nothing is pending.
    /// A closed turn queue hands the event to the main queue; a closed main queue drops it
    /// (the connection is gone; a server request dropped here is answered fail-closed, which
    /// fails quietly).
    async fn deliver(&self, queue: &Arc<EventQueue>, mut event: Event) {
        let mut queue = queue;
        loop {
            let read_ahead = self.correlation.reads_ahead();
            match queue.push_deferred(event, read_ahead) {
                Push::Done => {
                    // Listed once however many events it gets before the next flush. Read
                    // first: a write on every event would move the cache line the consumer
                    // reads on every pop from its core to the reader's and back.
                    if !queue.in_wake_list.load(Ordering::Acquire)
                        && !queue.in_wake_list.swap(true, Ordering::AcqRel)
                    {
                        let mut dirty = self.dirty.lock().unwrap();
                        dirty.push(queue.clone());
                        self.dirty_len.store(dirty.len(), Ordering::Release);
                    }
                    return;
                }
                Push::Closed(ev) => {
                    if Arc::ptr_eq(queue, &self.queue) || self.unsubscribe(queue) {
                        return;
                    }
                    event = ev;
                    queue = &self.queue;
                }
                Push::Full(ev) => {
                    event = ev;
                    self.signal.space.notified().await;
                }
            }
        }
    }

    /// Wake the consumers of every queue that got events since the last flush. The reader
    /// calls it when its next read would wait (or after a batch).
    pub(crate) fn flush_wakes(&self) {
        let dirty = {
            let mut d = self.dirty.lock().unwrap();
            self.dirty_len.store(0, Ordering::Release);
            std::mem::take(&mut *d)
        };
        for q in dirty {
            q.in_wake_list.store(false, Ordering::Release);
            q.flush_wake();
        }
    }

    /// Lines the reader may handle before it wakes consumers while lines keep arriving:
    /// [`WAKE_BATCH`] per queue with events (interleaved turns then still wake each consumer
    /// for a batch of its own, not for one or two events), at most [`WAKE_BATCH_MAX`].
    pub(crate) fn wake_batch(&self) -> usize {
        (WAKE_BATCH * self.dirty_len.load(Ordering::Acquire).max(1)).min(WAKE_BATCH_MAX)
    }

    /// A new queue for a turn stream, sharing this connection's reader signal.
    pub(crate) fn new_queue(&self) -> Arc<EventQueue> {
        Arc::new(EventQueue::with_signal(
            self.queue_capacity,
            self.read_ahead_bytes,
            self.signal.clone(),
        ))
    }

    /// Report a connection error event (the connection goes on).
    pub(super) fn report(&self, message: String) {
        tracing::warn!("{message}");
        self.connection_event(ConnectionEvent::Error(message));
    }

    /// Send notifications to the client's own delivery too (`true`, the default) or only to
    /// the subscriptions.
    fn main_notifications(&self) -> bool {
        self.handlers
            .as_ref()
            .is_none_or(|h| !h.notifications_off.load(Ordering::Acquire))
    }

    /// A new subscription queue, fed from now on (closed at once on a closed connection).
    pub(crate) fn subscribe(&self) -> Arc<EventQueue> {
        let q = self.new_queue();
        let mut subs = self.subscribers.lock().unwrap();
        if self.is_closed() {
            q.close();
        } else {
            subs.push(q.clone());
            self.has_subscribers.store(true, Ordering::Release);
        }
        q
    }

    /// Forget a subscription whose consumer is gone; false when `queue` is none.
    fn unsubscribe(&self, queue: &Arc<EventQueue>) -> bool {
        let mut subs = self.subscribers.lock().unwrap();
        let before = subs.len();
        subs.retain(|q| !Arc::ptr_eq(q, queue));
        self.has_subscribers
            .store(!subs.is_empty(), Ordering::Release);
        subs.len() != before
    }

    pub(super) fn subscribers(&self) -> Vec<Arc<EventQueue>> {
        if !self.has_subscribers.load(Ordering::Acquire) {
            return Vec::new();
        }
        self.subscribers.lock().unwrap().clone()
    }

    /// Handle one line from the server.
    pub(super) async fn handle_line(&self, line: &[u8]) {
        let excerpt = || String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
        // Validated once here (vectorised); serde then skips UTF-8 checks of its own.
        let text = simdutf8::basic::from_utf8(line).ok();
        // The common case, a notification, is checked and taken apart in one pass of the
        // scanner, without serde.
        let want_ids = self.router.has_routes();
        if let Some((note, ids)) = text.and_then(|t| crate::event::scan_note_line(t, want_ids)) {
            let params = match note.params {
                // SAFETY: the scan checked `p` is one well-formed JSON value, without
                // whitespace around it (`from_string_unchecked`'s contract).
                Some(p) => unsafe { crate::event::shared_raw_unchecked(p) },
                None => crate::event::null_shared(),
            };
            let note = Notification {
                method: note.method.to_owned(),
                params,
                endpoint: self.endpoint.clone(),
            };
            return self.on_notification(note, ids).await;
        }
        let parsed = match text {
            Some(text) => serde_json::from_str::<Incoming<'_>>(text),
            None => serde_json::from_slice(line),
        };
        let msg: Incoming<'_> = match parsed {
            Ok(m) => m,
            Err(e) => {
                self.report(format!("malformed line from server ({e}): {}", excerpt()));
                return;
            }
        };
        match classify(msg) {
            Err(why) => {
                self.report(format!(
                    "unexpected message from server ({why}): {}",
                    excerpt()
                ));
            }
            Ok(Classified::Response { id, outcome }) => {
                if let Err(message) = self.correlation.complete(id, outcome) {
                    self.report(message);
                }
                // A rejoin's resumption answer fills its gap now, before the live events
                // that follow it.
                self.flush_synthesized().await;
            }
            Ok(Classified::Notification { method, params }) => {
                let params = params.map_or_else(crate::event::null_shared, |p| {
                    // SAFETY: serde parsed `p` as one JSON value.
                    unsafe { crate::event::shared_raw_unchecked(p.get()) }
                });
                let endpoint = self.endpoint.clone();
                let note = Notification {
                    method,
                    params,
                    endpoint,
                };
                self.on_notification(note, None).await;
            }
            Ok(Classified::Request { id, method, params }) => {
                if self.answer_itself(&id, &method) {
                    return;
                }
                let params = params.map(|p| p.to_owned()).unwrap_or_else(null_raw);
                let state = self.open_requests.open(id.clone(), &method);
                let req =
                    ServerRequest::new(id, method, params, state, self.me.clone(), self.origin());
                // A handler registered on the client wins over an open turn stream.
                let route = match &self.handlers {
                    Some(h) if h.handles(&req.method, req.thread_id().as_deref()) => None,
                    _ => self.router.route_request(&req),
                };
                let queue = route.as_ref().map_or(&self.queue, |r| &r.queue);
                self.deliver(queue, Event::ServerRequest(req)).await;
            }
        }
    }

    /// A notification from the server: the library's own bookkeeping, then delivery. `ids`
    /// are its params' ids when the reader already found them.
    async fn on_notification(&self, note: Notification, ids: Option<Ids<'_>>) {
        let route = self.rules.notified(&note.method, &note.params, self);
        let main_queue = route == Route::Deliver;
        self.dispatch_notification(note, main_queue, ids).await;
    }

    /// Deliver the events a rejoin made up from resumed histories.
    pub(super) async fn flush_synthesized(&self) {
        let synthesized = std::mem::take(&mut *self.synthesized.lock().unwrap());
        for mut note in synthesized {
            note.endpoint = self.endpoint.clone();
            self.dispatch_notification(note, true, None).await;
        }
    }

    /// Deliver a notification to its turn stream, or to every subscription and (unless
    /// `main_queue` is false) the client's queue. With reconnect on, one that repeats an
    /// event already delivered (after a rejoin) is dropped. `ids`: see
    /// [`Router::route_notification`](crate::delivery::router::Router::route_notification).
    async fn dispatch_notification(
        &self,
        note: Notification,
        main_queue: bool,
        ids: Option<Ids<'_>>,
    ) {
        if !self.rules.admit(&note) {
            tracing::debug!(method = %note.method, "dropped a repeated event after a rejoin");
            return;
        }
        if let Some(t) = &self.tap {
            t.notification(&note);
        }
        let ends = self.rules.delivering(&note);
        match self.router.route_notification(&note, ids, ends) {
            None => {
                for sub in self.subscribers() {
                    self.deliver(&sub, Event::Notification(note.clone())).await;
                }
                if main_queue && self.main_notifications() {
                    self.deliver(&self.queue, Event::Notification(note)).await
                }
            }
            Some((route, last)) => {
                self.deliver(&route.queue, Event::Notification(note)).await;
                if last {
                    route.queue.close();
                }
            }
        }
    }

    /// Answer a server request the protocol answers itself (MCP `ping`; `roots/list` with
    /// roots configured: on the wire the configured roots are the answer, before any
    /// handler). True when answered.
    fn answer_itself(&self, id: &RequestId, method: &str) -> bool {
        let Some(result) = self.rules.answers_itself(method, false) else {
            return false;
        };
        let raw = serde_json::value::to_raw_value(&result).expect("answer serializes");
        let _ = self.send_line(response_line(id, Ok(&raw)));
        true
    }
}

/// What the protocol's rules may do while the reader handles a line.
impl Link for SessionShared {
    fn request_withdrawn(&self, id: &RequestId) {
        self.open_requests.resolve(id);
        self.unpark(id);
    }
    fn request_progressed(&self, token: &str) {
        self.correlation.progress(token);
    }
    fn connection_event(&self, event: ConnectionEvent) {
        SessionShared::connection_event(self, event);
    }
}
