//! Client-wide event delivery: the pump thread, its subscriber queues and the Python-facing
//! [`EventStream`].
//!
//! One pump thread per connection pulls the core's (poll-mode) event stream in batches,
//! without ever taking the GIL, and fans the events out: notifications and connection events
//! to every open `client.events()` stream; server requests, connection events and (when an
//! `on_notification` callback is set) notifications to the client's *inbox*, which the Python
//! layer drains on its dispatch thread (sync client) or in a task on the event loop (async
//! client). A full subscriber queue makes the pump wait, which is the core's backpressure.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use codex_client::Event;
use futures_core::Stream;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::executor::Executor;

/// How long a blocking wait runs before it checks for Python signals (Ctrl-C).
pub(crate) const SIGNAL_SLICE: Duration = Duration::from_millis(100);

struct SubState {
    items: VecDeque<Event>,
    /// The producer is done (connection ended).
    ended: bool,
    /// The consumer is gone: drop whatever arrives.
    closed: bool,
    waker: Option<Waker>,
}

/// A bounded queue from the pump to one consumer.
pub(crate) struct SubQueue {
    st: Mutex<SubState>,
    cv: Condvar,
    cap: usize,
}

impl SubQueue {
    pub(crate) fn new(cap: usize) -> Arc<SubQueue> {
        Arc::new(SubQueue {
            st: Mutex::new(SubState {
                items: VecDeque::new(),
                ended: false,
                closed: false,
                waker: None,
            }),
            cv: Condvar::new(),
            cap: cap.max(1),
        })
    }

    /// Append a batch, waiting while the queue is full (unless the consumer is gone).
    fn push(&self, evs: Vec<Event>) {
        let mut st = self.st.lock().unwrap();
        while st.items.len() >= self.cap && !st.closed {
            st = self.cv.wait(st).unwrap();
        }
        if st.closed {
            drop(st);
            drop(evs); // server requests among them are answered fail-closed
            return;
        }
        st.items.extend(evs);
        let w = st.waker.take();
        drop(st);
        self.cv.notify_all();
        if let Some(w) = w {
            w.wake();
        }
    }

    /// The producer is done.
    pub(crate) fn end(&self) {
        let mut st = self.st.lock().unwrap();
        st.ended = true;
        let w = st.waker.take();
        drop(st);
        self.cv.notify_all();
        if let Some(w) = w {
            w.wake();
        }
    }

    /// The consumer is gone: drop queued events and never queue again.
    pub(crate) fn close(&self) {
        let mut st = self.st.lock().unwrap();
        st.closed = true;
        st.ended = true;
        let items = std::mem::take(&mut st.items);
        let w = st.waker.take();
        drop(st);
        self.cv.notify_all();
        drop(items);
        if let Some(w) = w {
            w.wake();
        }
    }

    /// Move up to `max` events into `out`. Returns `false` once ended and empty. The calling
    /// thread consumes events (the dispatch thread, the event loop): a request it makes lets
    /// the core read ahead rather than wait behind a full queue for this very thread.
    fn take(&self, out: &mut VecDeque<Event>, max: usize) -> bool {
        codex_client::mark_event_delivery_thread();
        let mut st = self.st.lock().unwrap();
        let was_full = st.items.len() >= self.cap;
        if st.items.is_empty() {
            return !st.ended;
        }
        if out.is_empty() && st.items.len() <= max {
            std::mem::swap(&mut st.items, out);
        } else {
            let n = st.items.len().min(max);
            out.extend(st.items.drain(..n));
        }
        drop(st);
        if was_full {
            self.cv.notify_all();
        }
        true
    }

    /// Wait up to `timeout` until events wait or the queue ended. Returns whether so.
    fn wait(&self, timeout: Duration) -> bool {
        let st = self.st.lock().unwrap();
        let (st, _) = self
            .cv
            .wait_timeout_while(st, timeout, |s| s.items.is_empty() && !s.ended)
            .unwrap();
        !st.items.is_empty() || st.ended
    }

    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut st = self.st.lock().unwrap();
        if !st.items.is_empty() || st.ended {
            Poll::Ready(())
        } else {
            st.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// The consumers of one connection's events.
pub(crate) struct Generation {
    subs: Mutex<Vec<Arc<SubQueue>>>,
    pub(crate) inbox: Arc<SubQueue>,
    want_notifications: Arc<AtomicBool>,
    ended: AtomicBool,
    cap: usize,
}

impl Generation {
    fn route(&self, batch: Vec<Event>) {
        let subs = self.subs.lock().unwrap().clone();
        let want = self.want_notifications.load(Ordering::Acquire);
        let mut outs: Vec<Vec<Event>> = (0..subs.len())
            .map(|_| Vec::with_capacity(batch.len()))
            .collect();
        let mut to_inbox = Vec::new();
        for ev in batch {
            match ev {
                Event::Notification(n) => {
                    if want {
                        to_inbox.push(Event::Notification(n.clone()));
                    }
                    if let Some((last, rest)) = outs.split_last_mut() {
                        for o in rest {
                            o.push(Event::Notification(n.clone()));
                        }
                        last.push(Event::Notification(n));
                    }
                }
                Event::Connection(c) => {
                    for o in &mut outs {
                        o.push(Event::Connection(c.clone()));
                    }
                    to_inbox.push(Event::Connection(c));
                }
                // Server requests, and anything newer, go to the client's own handlers.
                other => to_inbox.push(other),
            }
        }
        if !to_inbox.is_empty() {
            self.inbox.push(to_inbox);
        }
        for (q, evs) in subs.iter().zip(outs) {
            if !evs.is_empty() {
                q.push(evs);
            }
        }
    }

    fn end(&self) {
        self.ended.store(true, Ordering::Release);
        let subs = std::mem::take(&mut *self.subs.lock().unwrap());
        for s in subs {
            s.end();
        }
        self.inbox.end();
    }

    fn subscribe(&self) -> Arc<SubQueue> {
        let q = SubQueue::new(self.cap);
        let mut subs = self.subs.lock().unwrap();
        if self.ended.load(Ordering::Acquire) {
            q.end();
        } else {
            subs.push(q.clone());
        }
        q
    }

    fn unsubscribe(&self, q: &Arc<SubQueue>) {
        self.subs.lock().unwrap().retain(|s| !Arc::ptr_eq(s, q));
    }
}

/// Per-client state shared across connections.
pub(crate) struct Hub {
    current: Mutex<Arc<Generation>>,
    pub(crate) want_notifications: Arc<AtomicBool>,
    cap: usize,
}

impl Hub {
    pub(crate) fn new(cap: usize) -> Arc<Hub> {
        let want = Arc::new(AtomicBool::new(false));
        let g = Arc::new(Generation {
            subs: Mutex::new(Vec::new()),
            inbox: SubQueue::new(cap),
            want_notifications: want.clone(),
            ended: AtomicBool::new(true),
            cap,
        });
        g.inbox.end();
        Arc::new(Hub {
            current: Mutex::new(g),
            want_notifications: want,
            cap,
        })
    }

    /// Open the consumers of a new connection.
    pub(crate) fn new_generation(&self) -> Arc<Generation> {
        let g = Arc::new(Generation {
            subs: Mutex::new(Vec::new()),
            inbox: SubQueue::new(self.cap),
            want_notifications: self.want_notifications.clone(),
            ended: AtomicBool::new(false),
            cap: self.cap,
        });
        *self.current.lock().unwrap() = g.clone();
        g
    }

    pub(crate) fn current(&self) -> Arc<Generation> {
        self.current.lock().unwrap().clone()
    }
}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// A waker that unparks the current thread.
pub(crate) fn thread_waker() -> Waker {
    Waker::from(Arc::new(ThreadWaker(std::thread::current())))
}

/// Start the pump thread of one connection.
pub(crate) fn spawn_pump(
    mut stream: codex_client::EventStream,
    generation: Arc<Generation>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("codexclient-py-pump".into())
        .spawn(move || {
            let waker = thread_waker();
            let mut cx = Context::from_waker(&waker);
            let mut ended = false;
            while !ended {
                let mut batch = Vec::new();
                let mut pending = false;
                loop {
                    match Pin::new(&mut stream).poll_next(&mut cx) {
                        Poll::Ready(Some(ev)) => {
                            batch.push(ev);
                            if batch.len() >= 1024 {
                                break;
                            }
                        }
                        Poll::Ready(None) => {
                            ended = true;
                            break;
                        }
                        Poll::Pending => {
                            pending = true;
                            break;
                        }
                    }
                }
                if !batch.is_empty() {
                    generation.route(batch);
                }
                if pending {
                    std::thread::park();
                }
            }
            generation.end();
        })
}

/// A stream of events: `client.events()` or the client's inbox.
///
/// Iterate it (blocking, the GIL released while waiting), or from asyncio drain it with
/// `take()` and wait with `wait_async()`.
#[pyclass(module = "codexclient._native", frozen)]
pub struct EventStream {
    queue: Arc<SubQueue>,
    local: Mutex<VecDeque<Event>>,
    generation: Weak<Generation>,
}

impl EventStream {
    pub(crate) fn subscribe(generation: &Arc<Generation>) -> EventStream {
        EventStream {
            queue: generation.subscribe(),
            local: Mutex::new(VecDeque::new()),
            generation: Arc::downgrade(generation),
        }
    }

    pub(crate) fn inbox(generation: &Arc<Generation>) -> EventStream {
        EventStream {
            queue: generation.inbox.clone(),
            local: Mutex::new(VecDeque::new()),
            generation: Weak::new(),
        }
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.do_close();
    }
}

impl EventStream {
    fn do_close(&self) {
        if let Some(g) = self.generation.upgrade() {
            g.unsubscribe(&self.queue);
        }
        self.queue.close();
        let rest = std::mem::take(&mut *self.local.lock().unwrap());
        drop(rest);
    }
}

#[pymethods]
impl EventStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event; blocks (GIL released) until one arrives. Ends with the connection.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if let Some(ev) = self.local.lock().unwrap().pop_front() {
                return Ok(Some(crate::events::to_object(py, ev)?.0));
            }
            let more = py.detach(|| {
                if !self.queue.wait(SIGNAL_SLICE) {
                    return None;
                }
                let mut local = self.local.lock().unwrap();
                Some(self.queue.take(&mut local, 1024))
            });
            match more {
                Some(false) => return Ok(None),
                Some(true) => {}
                None => py.check_signals()?,
            }
        }
    }

    /// Up to `max` waiting events, without waiting: a list (empty when none wait), or `None`
    /// once the stream has ended.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let mut local = self.local.lock().unwrap();
        let more = if local.len() < max {
            let room = max - local.len();
            self.queue.take(&mut local, room)
        } else {
            true
        };
        if local.is_empty() {
            return Ok(if more { Some(PyList::empty(py)) } else { None });
        }
        let n = local.len().min(max);
        let list = PyList::empty(py);
        crate::events::extend_list(py, &list, local.drain(..n), None)?;
        Ok(Some(list))
    }

    /// Wait (blocking, GIL released) up to `timeout` seconds for events or the end.
    fn wait(&self, py: Python<'_>, timeout: f64) -> bool {
        if !self.local.lock().unwrap().is_empty() {
            return true;
        }
        let d = Duration::from_secs_f64(timeout.max(0.0));
        py.detach(|| self.queue.wait(d))
    }

    /// Resolve the asyncio future `fut` (with `None`) once events wait or the stream ended.
    /// Returns the executor task id (cancel it with `executor.cancel(id)`).
    fn wait_async(&self, py: Python<'_>, executor: &Executor, fut: Py<PyAny>) -> u64 {
        let q = self.queue.clone();
        let f = std::future::poll_fn(move |cx| q.poll_ready(cx));
        executor.spawn(py, none_outcome(f), Some(fut))
    }

    /// Stop receiving: the pump skips this stream from now on; waiting events are dropped.
    fn close(&self) {
        self.do_close();
    }
}

/// Wrap a `()` future into one producing a `None` outcome.
pub(crate) async fn none_outcome(
    f: impl Future<Output = ()> + Send + 'static,
) -> crate::executor::Outcome {
    f.await;
    Box::new(|py: Python<'_>| Ok(py.None()))
}
