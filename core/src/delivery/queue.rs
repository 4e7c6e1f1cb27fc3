//! The bounded event queue between the reader (on the runtime thread) and the consumer
//! (the dispatch thread, a blocking `next_event` caller or an async stream).
//!
//! Rules:
//! - Below `capacity` every event is queued.
//! - At `capacity` the reader waits (it stops reading, so the server blocks on its output) —
//!   unless a *read-ahead* request is pending (one made on a thread that delivers events,
//!   which would otherwise wait for itself): then the reader keeps reading so the response
//!   can arrive, and events go above `capacity` until the queued events add up to the
//!   read-ahead byte budget.
//! - Past that budget (read-ahead only) notifications are shed and counted; an `Overflow`
//!   event reports them as soon as a consumer makes room. Server requests and connection
//!   events are never shed. Without read-ahead nothing is ever shed.
//! - Responses to [`send_request`](crate::Client::send_request) go to a lane of their own that
//!   consumers drain first: they never wait behind undelivered events and never count
//!   against the capacity (there is at most one per request).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::delivery::readiness::Readiness;
use crate::event::{ConnectionEvent, Event};
use std::sync::Arc;

/// An emptied queue whose buffer holds more events than this gives the memory back...
const SHRINK_ABOVE: usize = 1024;
/// ...keeping room for this many.
const SHRINK_TO: usize = 64;

struct State {
    /// Responses, delivered before `items`.
    responses: VecDeque<Event>,
    items: VecDeque<Event>,
    /// Sum of [`Event::queued_bytes`] over `items`.
    bytes: usize,
    closed: bool,
    dropped: u64,
    blocked_waiters: usize,
    /// Events were queued without waking consumers (see [`EventQueue::push_deferred`]).
    wake_pending: bool,
    readiness: Option<Arc<Readiness>>,
    /// Called (under the queue's lock) whenever events wait or the queue closes: a shared
    /// dispatch thread's wake-up (callback mode).
    on_ready: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl State {
    fn push_back(&mut self, event: Event) {
        self.bytes += event.queued_bytes();
        self.items.push_back(event);
    }

    /// Whether nothing waits.
    fn is_empty(&self) -> bool {
        self.items.is_empty() && self.responses.is_empty()
    }

    /// Move up to `max` events into `out`, responses first.
    fn drain_to(&mut self, out: &mut Vec<Event>, max: usize) -> usize {
        let r = self.responses.len().min(max);
        out.extend(self.responses.drain(..r));
        let n = self.items.len().min(max - r);
        for ev in self.items.drain(..n) {
            self.bytes -= ev.queued_bytes();
            out.push(ev);
        }
        // A burst grew the queue; once it is drained, give the memory back (a connection
        // otherwise keeps its largest backlog's worth for good).
        if self.items.is_empty() && self.items.capacity() > SHRINK_ABOVE {
            self.items.shrink_to(SHRINK_TO);
        }
        r + n
    }

    /// Queue the report of shed notifications, if any.
    fn report_dropped(&mut self) {
        if self.dropped > 0 {
            let dropped = std::mem::take(&mut self.dropped);
            self.push_back(Event::Connection(ConnectionEvent::Overflow { dropped }));
        }
    }

    /// Keep the readiness descriptor readable exactly while events wait or the queue is closed.
    fn sync_readiness(&self) {
        let ready = !self.is_empty() || self.closed;
        if let Some(r) = &self.readiness {
            if ready {
                r.set();
            } else {
                r.clear();
            }
        }
        if ready {
            if let Some(f) = &self.on_ready {
                f();
            }
        }
    }
}

pub(crate) struct EventQueue {
    state: Mutex<State>,
    cv: Condvar,
    async_notify: tokio::sync::Notify,
    /// Wakes the reader waiting for room (shared by all queues of one connection).
    pub(crate) signal: Arc<ReaderSignal>,
    capacity: usize,
    /// Read-ahead budget: queued bytes past which notifications are shed in read-ahead.
    read_ahead_bytes: usize,
    /// The reader has this queue in its list of queues to wake (see `SessionShared::deliver`).
    pub(crate) in_wake_list: AtomicBool,
}

/// Outcome of a push attempt by the reader.
pub(crate) enum Push {
    Done,
    /// The queue is full: wait on `space` and try again with the event given back.
    Full(Event),
    /// The queue is closed (its consumer is gone): the event is given back.
    Closed(Event),
}

/// How consumers wake a reader that waits for room. One per connection, shared by the main
/// queue and every turn queue, so a new pending request can wake the reader whatever queue
/// it waits on.
#[derive(Default)]
pub(crate) struct ReaderSignal {
    /// The reader waits on this for room (or for a request to become pending).
    pub(crate) space: tokio::sync::Notify,
    pub(crate) reader_waiting: AtomicBool,
}

impl ReaderSignal {
    /// Wake the reader if it is waiting.
    pub(crate) fn wake(&self) {
        if self.reader_waiting.swap(false, Ordering::AcqRel) {
            self.space.notify_one();
        }
    }
}

impl EventQueue {
    #[cfg(test)]
    pub(crate) fn new(capacity: usize, read_ahead_bytes: usize) -> Self {
        Self::with_signal(capacity, read_ahead_bytes, Arc::default())
    }

    /// A queue whose consumers wake the reader through `signal`.
    pub(crate) fn with_signal(
        capacity: usize,
        read_ahead_bytes: usize,
        signal: Arc<ReaderSignal>,
    ) -> Self {
        let capacity = capacity.max(1);
        EventQueue {
            state: Mutex::new(State {
                responses: VecDeque::new(),
                items: VecDeque::new(),
                bytes: 0,
                closed: false,
                dropped: 0,
                blocked_waiters: 0,
                wake_pending: false,
                readiness: None,
                on_ready: None,
            }),
            cv: Condvar::new(),
            async_notify: tokio::sync::Notify::new(),
            signal,
            capacity,
            read_ahead_bytes,
            in_wake_list: AtomicBool::new(false),
        }
    }

    /// Call `f` (under the queue's lock; it must not take it) whenever events wait or the
    /// queue is closed, and now if they do or it is; `None` detaches it.
    pub(crate) fn set_on_ready(&self, f: Option<Arc<dyn Fn() + Send + Sync>>) {
        let mut st = self.state.lock().unwrap();
        st.on_ready = f;
        if !st.is_empty() || st.closed {
            if let Some(f) = &st.on_ready {
                f();
            }
        }
    }

    /// Whether events wait or the queue is closed (a consumer has something to do).
    pub(crate) fn has_work(&self) -> bool {
        let st = self.state.lock().unwrap();
        !st.is_empty() || st.closed
    }

    /// Attach a readiness descriptor (poll mode); it reflects the queue from now on.
    pub(crate) fn set_readiness(&self, readiness: Option<Arc<Readiness>>) {
        let mut st = self.state.lock().unwrap();
        st.readiness = readiness;
        st.sync_readiness();
    }

    /// Try to queue an event from the reader. `read_ahead` is true while a read-ahead
    /// request is pending.
    #[cfg(test)]
    pub(crate) fn push(&self, event: Event, read_ahead: bool) -> Push {
        self.push_inner(event, read_ahead, false)
    }

    /// Like `push`, but consumers are not woken until [`flush_wake`](Self::flush_wake): the
    /// reader queues every line it can read without waiting (up to a batch), then wakes
    /// consumers once, so a fast stream costs one wake-up per batch instead of one per event.
    /// `Full` flushes first.
    pub(crate) fn push_deferred(&self, event: Event, read_ahead: bool) -> Push {
        self.push_inner(event, read_ahead, true)
    }

    /// Wake consumers for events queued by [`push_deferred`](Self::push_deferred).
    pub(crate) fn flush_wake(&self) {
        let mut st = self.state.lock().unwrap();
        if !std::mem::take(&mut st.wake_pending) {
            return;
        }
        self.wake_consumers(st);
    }

    /// Make the readiness descriptor right and wake a blocked and an async consumer.
    fn wake_consumers(&self, st: std::sync::MutexGuard<'_, State>) {
        st.sync_readiness();
        let wake_blocked = st.blocked_waiters > 0;
        drop(st);
        if wake_blocked {
            self.cv.notify_one();
        }
        self.async_notify.notify_one();
    }

    fn push_inner(&self, event: Event, read_ahead: bool, defer: bool) -> Push {
        let mut st = self.state.lock().unwrap();
        if st.closed {
            return Push::Closed(event);
        }
        if st.items.len() >= self.capacity {
            if !read_ahead {
                self.signal.reader_waiting.store(true, Ordering::Release);
                drop(st);
                // The consumer must see what is queued, or it never makes room.
                self.flush_wake();
                return Push::Full(event);
            }
            if st.bytes >= self.read_ahead_bytes && matches!(event, Event::Notification(_)) {
                st.dropped += 1;
                return Push::Done;
            }
        }
        if defer {
            st.report_dropped();
            st.push_back(event);
            st.wake_pending = true;
        } else {
            self.enqueue(st, event);
        }
        Push::Done
    }

    /// Queue a response in the responses lane (consumers take it before other events).
    /// Returns it when the queue is closed.
    pub(crate) fn push_response(&self, event: Event) -> Option<Event> {
        let mut st = self.state.lock().unwrap();
        if st.closed {
            return Some(event);
        }
        st.responses.push_back(event);
        self.wake_consumers(st);
        None
    }

    /// Queue an event regardless of capacity (connection events, the final disconnect).
    pub(crate) fn force_push(&self, event: Event) {
        let st = self.state.lock().unwrap();
        if !st.closed {
            self.enqueue(st, event);
        }
    }

    fn enqueue(&self, mut st: std::sync::MutexGuard<'_, State>, event: Event) {
        let was_empty = st.is_empty();
        st.report_dropped();
        st.push_back(event);
        if was_empty {
            st.sync_readiness();
        }
        let wake_blocked = st.blocked_waiters > 0;
        drop(st);
        if wake_blocked {
            self.cv.notify_one();
        }
        if was_empty {
            self.async_notify.notify_one();
        }
    }

    /// Close the queue: consumers drain what is left, then see the end.
    pub(crate) fn close(&self) {
        let mut st = self.state.lock().unwrap();
        st.closed = true;
        st.sync_readiness();
        drop(st);
        // A reader waiting for room in this queue must not wait for a consumer that is gone.
        self.signal.wake();
        self.cv.notify_all();
        self.async_notify.notify_one();
    }

    /// After a consumer took events: report shed notifications at once (the stream may stay
    /// quiet for a long time), keep the readiness fd right and wake a reader waiting for room.
    fn after_pop(&self, st: &mut State) {
        if st.dropped > 0 && !st.closed {
            st.report_dropped();
            st.sync_readiness();
            self.async_notify.notify_one();
        }
        if st.is_empty() {
            st.sync_readiness();
        }
        if st.items.len() < self.capacity {
            self.signal.wake();
        }
    }

    /// Take events back that a consumer took but did not hand on (a dropped stream): they go
    /// to the front, in order, for the next consumer.
    pub(crate) fn give_back(&self, events: impl DoubleEndedIterator<Item = Event>) {
        let mut st = self.state.lock().unwrap();
        let mut any = false;
        for ev in events.rev() {
            st.bytes += ev.queued_bytes();
            st.items.push_front(ev);
            any = true;
        }
        if any {
            self.wake_consumers(st);
        }
    }

    /// Move up to `max` events into `out` without waiting. Returns `false` once the queue is
    /// closed and empty.
    pub(crate) fn drain_into(&self, out: &mut Vec<Event>, max: usize) -> bool {
        let mut st = self.state.lock().unwrap();
        let n = st.drain_to(out, max);
        self.after_pop(&mut st);
        !(st.closed && st.is_empty() && n == 0)
    }

    #[cfg(test)]
    /// Number of events waiting.
    pub(crate) fn len(&self) -> usize {
        self.state.lock().unwrap().items.len()
    }

    /// Wait up to `timeout` (`None` = forever) for events and move up to `max` of them into
    /// `out`. Returns `false` when the queue is closed and empty.
    pub(crate) fn wait_drain(
        &self,
        out: &mut Vec<Event>,
        max: usize,
        timeout: Option<Duration>,
    ) -> bool {
        crate::delivery::mark_event_delivery_thread();
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock().unwrap();
        loop {
            if !st.is_empty() {
                st.drain_to(out, max);
                self.after_pop(&mut st);
                return true;
            }
            if st.closed {
                return false;
            }
            st.blocked_waiters += 1;
            st = match deadline {
                None => self.cv.wait(st).unwrap(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        st.blocked_waiters -= 1;
                        return true;
                    }
                    self.cv.wait_timeout(st, d - now).unwrap().0
                }
            };
            st.blocked_waiters -= 1;
        }
    }

    /// Wait for events asynchronously and move up to `max` of them into `out`. Returns
    /// `false` when the queue is closed and empty.
    pub(crate) async fn next_batch(&self, out: &mut Vec<Event>, max: usize) -> bool {
        loop {
            crate::delivery::mark_event_delivery_thread();
            let notified = self.async_notify.notified();
            {
                let mut st = self.state.lock().unwrap();
                if !st.is_empty() {
                    st.drain_to(out, max);
                    self.after_pop(&mut st);
                    return true;
                }
                if st.closed {
                    // Let another async consumer see the end too.
                    self.async_notify.notify_one();
                    return false;
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Notification;

    fn note(i: usize) -> Event {
        Event::Notification(Notification::new(
            format!("n/{i}"),
            serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        ))
    }

    #[test]
    fn full_queue_pushes_back_without_read_ahead_and_reads_ahead_when_asked() {
        let q = EventQueue::new(2, 1 << 20);
        assert!(matches!(q.push(note(0), false), Push::Done));
        assert!(matches!(q.push(note(1), false), Push::Done));
        assert!(matches!(q.push(note(2), false), Push::Full(_)));
        assert!(q.signal.reader_waiting.load(Ordering::Acquire));
        assert!(matches!(q.push(note(2), true), Push::Done));
        assert_eq!(q.len(), 3);
        let mut out = Vec::new();
        assert!(q.drain_into(&mut out, 10));
        assert_eq!(out.len(), 3);
        assert!(
            !q.signal.reader_waiting.load(Ordering::Acquire),
            "drain must wake the reader"
        );
    }

    #[test]
    fn a_drained_burst_gives_its_memory_back() {
        let q = EventQueue::new(10_000, 1 << 30);
        for i in 0..5000 {
            assert!(matches!(q.push(note(i), false), Push::Done));
        }
        assert!(q.state.lock().unwrap().items.capacity() >= 5000);
        let mut out = Vec::new();
        q.drain_into(&mut out, 4000);
        assert!(
            q.state.lock().unwrap().items.capacity() >= 5000,
            "not empty yet"
        );
        q.drain_into(&mut out, usize::MAX);
        assert_eq!(out.len(), 5000);
        assert!(q.state.lock().unwrap().items.capacity() <= 2 * SHRINK_TO);
    }

    #[test]
    fn read_ahead_sheds_past_the_byte_budget_and_reports_as_soon_as_there_is_room() {
        let per = note(0).queued_bytes();
        let q = EventQueue::new(1, per * 5);
        for i in 0..15 {
            assert!(matches!(q.push(note(i), true), Push::Done));
        }
        assert_eq!(q.len(), 5, "the budget holds five events");
        // The stream goes quiet: the report of the ten shed must not wait for a later event.
        let mut out = Vec::new();
        q.drain_into(&mut out, usize::MAX);
        assert_eq!(out.len(), 5);
        out.clear();
        assert!(q.wait_drain(&mut out, usize::MAX, Some(Duration::ZERO)));
        match &out[..] {
            [Event::Connection(ConnectionEvent::Overflow { dropped })] => assert_eq!(*dropped, 10),
            other => panic!("expected one overflow report, got {other:?}"),
        }
        assert_eq!(
            q.state.lock().unwrap().bytes,
            0,
            "byte count returns to zero"
        );
        // Without read-ahead nothing is shed: the reader is told to wait.
        assert!(matches!(q.push(note(1), false), Push::Done));
        assert!(matches!(q.push(note(2), false), Push::Full(_)));
    }

    #[test]
    fn events_given_back_come_first_in_order() {
        let q = EventQueue::new(8, 1 << 20);
        for i in 0..4 {
            assert!(matches!(q.push(note(i), false), Push::Done));
        }
        let mut out = Vec::new();
        q.drain_into(&mut out, 2);
        q.give_back(out.drain(..));
        q.drain_into(&mut out, usize::MAX);
        let methods: Vec<_> = out.iter().map(|e| e.method().unwrap().to_owned()).collect();
        assert_eq!(methods, ["n/0", "n/1", "n/2", "n/3"]);
    }

    #[test]
    fn closed_queue_drains_then_ends_and_timeouts_return() {
        let q = EventQueue::new(4, 1 << 20);
        let mut out = Vec::new();
        assert!(q.wait_drain(&mut out, 1, Some(Duration::from_millis(10))));
        assert!(out.is_empty());
        q.force_push(note(1));
        q.close();
        assert!(q.wait_drain(&mut out, 8, None));
        assert_eq!(out.len(), 1);
        assert!(!q.wait_drain(&mut out, 8, None));
    }

    #[test]
    fn async_consumer_is_woken_from_another_thread() {
        let q = std::sync::Arc::new(EventQueue::new(4, 1 << 20));
        let q2 = q.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            q2.force_push(note(7));
        });
        let mut out = Vec::new();
        assert!(futures_executor::block_on(q.next_batch(&mut out, 8)));
        assert_eq!(out.len(), 1);
        t.join().unwrap();
    }

    #[test]
    fn deferred_pushes_wake_consumers_once_on_flush_and_full_flushes() {
        let q = Arc::new(EventQueue::new(4, 1 << 20));
        assert!(matches!(q.push_deferred(note(0), false), Push::Done));
        assert!(matches!(q.push_deferred(note(1), false), Push::Done));
        // Visible to a consumer that looks, even before the wake.
        assert_eq!(q.len(), 2);
        let r = Arc::new(Readiness::new().unwrap());
        q.set_readiness(Some(r.clone()));
        let mut out = Vec::new();
        assert!(q.wait_drain(&mut out, 10, Some(Duration::ZERO)));
        assert_eq!(out.len(), 2);
        // A blocked consumer is woken by flush_wake, not by the push.
        let q2 = q.clone();
        let waiter = std::thread::spawn(move || {
            let mut out = Vec::new();
            q2.wait_drain(&mut out, 10, Some(Duration::from_secs(10)));
            out.len()
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(matches!(q.push_deferred(note(2), false), Push::Done));
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "no wake before the flush");
        q.flush_wake();
        assert_eq!(waiter.join().unwrap(), 1);
        // At capacity, Full wakes consumers itself (else the reader would wait forever).
        for i in 0..4 {
            assert!(matches!(q.push_deferred(note(i), false), Push::Done));
        }
        assert!(matches!(q.push_deferred(note(9), false), Push::Full(_)));
        assert!(!q.state.lock().unwrap().wake_pending);
    }
}
