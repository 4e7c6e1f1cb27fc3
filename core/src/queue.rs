//! The bounded event queue between the reader (on the runtime thread) and the consumer
//! (the dispatch thread, a blocking `next_event` caller or an async stream).
//!
//! Rules:
//! - Below `capacity` every event is queued.
//! - At `capacity` the reader waits (it stops reading, so the server blocks on its output) —
//!   unless a request of ours is pending: then the reader keeps reading so the response can
//!   arrive (a blocking request made from a callback must not deadlock), and events go above
//!   `capacity` up to `hard_capacity`.
//! - Above `hard_capacity` notifications are shed and counted; an `Overflow` event reports
//!   them when there is room again. Server requests and connection events are never shed.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::event::{ConnectionEvent, Event};
use crate::readiness::Readiness;
use std::sync::Arc;

struct State {
    items: VecDeque<Event>,
    closed: bool,
    dropped: u64,
    blocked_waiters: usize,
    /// Events were queued without waking consumers (see [`EventQueue::push_deferred`]).
    wake_pending: bool,
    readiness: Option<Arc<Readiness>>,
}

impl State {
    /// Keep the readiness descriptor readable exactly while events wait or the queue is closed.
    fn sync_readiness(&self) {
        if let Some(r) = &self.readiness {
            if self.items.is_empty() && !self.closed {
                r.clear();
            } else {
                r.set();
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
    hard_capacity: usize,
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
    pub(crate) fn new(capacity: usize) -> Self {
        Self::with_signal(capacity, Arc::default())
    }

    /// A queue whose consumers wake the reader through `signal`.
    pub(crate) fn with_signal(capacity: usize, signal: Arc<ReaderSignal>) -> Self {
        let capacity = capacity.max(1);
        EventQueue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                closed: false,
                dropped: 0,
                blocked_waiters: 0,
                wake_pending: false,
                readiness: None,
            }),
            cv: Condvar::new(),
            async_notify: tokio::sync::Notify::new(),
            signal,
            capacity,
            hard_capacity: capacity.saturating_mul(16).max(capacity + 1024),
        }
    }

    /// Attach a readiness descriptor (poll mode); it reflects the queue from now on.
    pub(crate) fn set_readiness(&self, readiness: Option<Arc<Readiness>>) {
        let mut st = self.state.lock().unwrap();
        st.readiness = readiness;
        st.sync_readiness();
    }

    /// Try to queue an event from the reader. `spill` is true while a request is pending.
    #[cfg(test)]
    pub(crate) fn push(&self, event: Event, spill: bool) -> Push {
        self.push_inner(event, spill, false)
    }

    /// Like `push`, but consumers are not woken until [`flush_wake`](Self::flush_wake): the
    /// reader queues every line it already has in its buffer, then wakes consumers once, so a
    /// fast stream costs one wake-up per batch instead of one per event. `Full` flushes first.
    pub(crate) fn push_deferred(&self, event: Event, spill: bool) -> Push {
        self.push_inner(event, spill, true)
    }

    /// Wake consumers for events queued by [`push_deferred`](Self::push_deferred).
    pub(crate) fn flush_wake(&self) {
        let mut st = self.state.lock().unwrap();
        if !std::mem::take(&mut st.wake_pending) {
            return;
        }
        st.sync_readiness();
        let wake_blocked = st.blocked_waiters > 0;
        drop(st);
        if wake_blocked {
            self.cv.notify_one();
        }
        self.async_notify.notify_one();
    }

    fn push_inner(&self, event: Event, spill: bool, defer: bool) -> Push {
        let mut st = self.state.lock().unwrap();
        if st.closed {
            return Push::Closed(event);
        }
        let len = st.items.len();
        if len >= self.capacity {
            if !spill {
                self.signal.reader_waiting.store(true, Ordering::Release);
                drop(st);
                // The consumer must see what is queued, or it never makes room.
                self.flush_wake();
                return Push::Full(event);
            }
            if len >= self.hard_capacity && matches!(event, Event::Notification(_)) {
                st.dropped += 1;
                return Push::Done;
            }
        }
        if defer {
            if st.dropped > 0 {
                let dropped = std::mem::take(&mut st.dropped);
                st.items
                    .push_back(Event::Connection(ConnectionEvent::Overflow { dropped }));
            }
            st.items.push_back(event);
            st.wake_pending = true;
        } else {
            self.enqueue(st, event);
        }
        Push::Done
    }

    /// Queue an event regardless of capacity (connection events, the final disconnect).
    pub(crate) fn force_push(&self, event: Event) {
        let st = self.state.lock().unwrap();
        if !st.closed {
            self.enqueue(st, event);
        }
    }

    fn enqueue(&self, mut st: std::sync::MutexGuard<'_, State>, event: Event) {
        let was_empty = st.items.is_empty();
        if st.dropped > 0 {
            let dropped = std::mem::take(&mut st.dropped);
            st.items
                .push_back(Event::Connection(ConnectionEvent::Overflow { dropped }));
        }
        st.items.push_back(event);
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

    fn after_pop(&self, st: &State) {
        if st.items.is_empty() {
            st.sync_readiness();
        }
        if st.items.len() < self.capacity {
            self.signal.wake();
        }
    }

    #[cfg(test)]
    /// Move up to `max` events into `out` without waiting. Returns `false` once the queue is
    /// closed and empty.
    pub(crate) fn drain_into(&self, out: &mut Vec<Event>, max: usize) -> bool {
        let mut st = self.state.lock().unwrap();
        let n = st.items.len().min(max);
        out.extend(st.items.drain(..n));
        self.after_pop(&st);
        !(st.closed && st.items.is_empty() && n == 0)
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
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock().unwrap();
        loop {
            if !st.items.is_empty() {
                let n = st.items.len().min(max);
                out.extend(st.items.drain(..n));
                self.after_pop(&st);
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
            let notified = self.async_notify.notified();
            {
                let mut st = self.state.lock().unwrap();
                if !st.items.is_empty() {
                    let n = st.items.len().min(max);
                    out.extend(st.items.drain(..n));
                    self.after_pop(&st);
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
        Event::Notification(Notification {
            method: format!("n/{i}"),
            params: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        })
    }

    #[test]
    fn full_queue_pushes_back_without_spill_and_spills_with_pending_requests() {
        let q = EventQueue::new(2);
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
    fn shedding_above_hard_capacity_reports_overflow() {
        let q = EventQueue::new(1);
        let hard = q.hard_capacity;
        for i in 0..hard + 10 {
            assert!(matches!(q.push(note(i), true), Push::Done));
        }
        assert_eq!(q.len(), hard);
        let mut out = Vec::new();
        q.drain_into(&mut out, usize::MAX);
        assert!(matches!(q.push(note(0), true), Push::Done));
        out.clear();
        q.drain_into(&mut out, usize::MAX);
        match &out[0] {
            Event::Connection(ConnectionEvent::Overflow { dropped }) => assert_eq!(*dropped, 10),
            other => panic!("expected overflow, got {other:?}"),
        }
        assert!(matches!(out[1], Event::Notification(_)));
    }

    #[test]
    fn closed_queue_drains_then_ends_and_timeouts_return() {
        let q = EventQueue::new(4);
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
        let q = std::sync::Arc::new(EventQueue::new(4));
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
        let q = Arc::new(EventQueue::new(4));
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
