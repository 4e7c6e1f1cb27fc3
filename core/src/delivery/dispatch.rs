//! Callback delivery: registered handlers and the library-owned dispatch threads that run
//! them: a small shared pool ([`DISPATCH_THREADS`]), each client pinned to one of its threads
//! (so its callbacks run on one thread, in order), or a thread of the client's own.

use std::any::Any;
use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};

use crate::delivery::queue::EventQueue;
use crate::event::{ConnectionEvent, Event, Notification, Response, ServerRequest};

/// Handler of server notifications.
pub type NotificationHandler = Arc<dyn Fn(&Notification) + Send + Sync>;
/// Handler of server requests; it owns the request and answers it now or later.
pub type ServerRequestHandler = Arc<dyn Fn(ServerRequest) + Send + Sync>;
/// Handler of connection events (errors, overflow, disconnect).
pub type ConnectionHandler = Arc<dyn Fn(&ConnectionEvent) + Send + Sync>;
/// Handler of the outcomes of requests sent without waiting
/// ([`Client::on_response`](crate::Client::on_response)).
pub type ResponseHandler = Arc<dyn Fn(Response) + Send + Sync>;
/// Handler that takes every event, owned (see [`Client::on_event`](crate::Client::on_event)).
pub type EventHandler = Arc<dyn Fn(Event) + Send + Sync>;
/// An object a binding keeps alive beside the handlers it registered (its callables), so that
/// its garbage collector can trace them (`Client::keep_with_handlers`, hidden: for bindings).
pub type Kept = Arc<dyn Any + Send + Sync>;

/// The handlers registered on a client. They survive reconnects.
#[derive(Default)]
pub(crate) struct Handlers {
    pub notification: RwLock<Option<NotificationHandler>>,
    /// Handlers of one notification method each; they take precedence over `notification`.
    pub notification_by_method: RwLock<HashMap<String, NotificationHandler>>,
    /// The fallback: server requests of every method without a handler of its own.
    pub server_request: RwLock<Option<ServerRequestHandler>>,
    /// Handlers of one server request method each (typed handlers); they take precedence over
    /// `server_request`.
    pub by_method: RwLock<HashMap<String, ServerRequestHandler>>,
    /// Handlers of one method on one thread (`(thread id, method)`); they take precedence over
    /// `by_method`.
    pub by_thread: RwLock<HashMap<(String, String), ServerRequestHandler>>,
    pub connection: RwLock<Option<ConnectionHandler>>,
    /// Takes the outcomes of requests sent without waiting.
    pub response: RwLock<Option<ResponseHandler>>,
    /// Takes every event instead of the handlers above (a binding's own delivery).
    pub any: RwLock<Option<EventHandler>>,
    /// Whether the warning about a server request with no handler was logged (once per
    /// client).
    pub warned_unhandled: AtomicBool,
    /// Server requests of a streamed turn stay in its stream even when a handler takes their
    /// method; its consumer hands them to [`run_request`](Self::run_request)
    /// ([`Client::turn_streams_keep_requests`](crate::Client::turn_streams_keep_requests)).
    pub turn_streams_keep_requests: AtomicBool,
    /// What bindings keep alive beside their handlers, by a key of their choosing.
    pub kept: Mutex<HashMap<String, Kept>>,
    /// Notifications (not routed to a turn stream) reach the subscriptions only, not the
    /// client's own delivery ([`Client::queue_notifications`](crate::Client::queue_notifications)
    /// off). Here, with the handlers, so clients sharing a table (a pool's endpoints) agree.
    pub notifications_off: AtomicBool,
}

thread_local! {
    static ON_DISPATCH_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the current thread is a dispatch thread (clients' callbacks run here).
pub fn on_dispatch_thread() -> bool {
    ON_DISPATCH_THREAD.with(|c| c.get())
}

impl Handlers {
    /// Whether a registered handler takes server requests of `method` on `thread_id` as they
    /// arrive (then they go to the client's own delivery even while a turn stream is open on
    /// their thread). Never while `turn_streams_keep_requests` is on: the requests then reach
    /// the handlers only through whoever pulls them (a turn's consumer, `dispatch_events`),
    /// and an MCP `roots/list` embedded in a result is answered from the `mcp_roots` option
    /// when one is set, as for a binding that never told the core about its handlers.
    pub(crate) fn handles(&self, method: &str, thread_id: Option<&str>) -> bool {
        !self.turn_streams_keep_requests.load(Ordering::Acquire)
            && self.request_handler(method, thread_id).is_some()
    }

    /// The handler for a server request: the thread's own for the method, else the method's,
    /// else the generic one.
    fn request_handler(
        &self,
        method: &str,
        thread_id: Option<&str>,
    ) -> Option<ServerRequestHandler> {
        if let Some(t) = thread_id {
            let map = self.by_thread.read().unwrap();
            if !map.is_empty() {
                if let Some(h) = map.get(&(t.to_owned(), method.to_owned())) {
                    return Some(h.clone());
                }
            }
        }
        let own = self.by_method.read().unwrap().get(method).cloned();
        own.or_else(|| self.server_request.read().unwrap().clone())
    }

    /// Log that a server request had no handler and was answered fail-closed: at WARN the
    /// first time on this client (with how to handle it), at INFO after that.
    pub(crate) fn warn_unhandled(&self, method: &str) {
        if self.warned_unhandled.swap(true, Ordering::Relaxed) {
            tracing::info!(method, "no server request handler; answered fail-closed");
        } else {
            tracing::warn!(
                method,
                "no handler for server request `{method}`: answered fail-closed (approvals \
                 declined, elicitations declined, others refused). Register a handler for it \
                 (on_server_request / a typed on_* handler) to decide yourself; this warning \
                 is logged once per client"
            );
        }
    }

    /// Report a handler failure (a panic or an error) as a connection error event.
    pub(crate) fn report_error(&self, msg: String) {
        tracing::error!("{msg}");
        let handler = self.connection.read().unwrap().clone();
        if let Some(h) = handler {
            let ev = ConnectionEvent::Error(msg);
            let _ = catch_unwind(AssertUnwindSafe(|| h(&ev)));
        }
    }

    fn report_panic(&self, what: &str, payload: &(dyn std::any::Any + Send)) {
        self.report_error(format!(
            "{what} callback panicked: {}",
            crate::rt::panic_message(payload)
        ));
    }

    /// Run the handler the table picks for one server request (the thread's own for its
    /// method, the method's, the fallback), or answer it fail-closed (logged) when none takes
    /// it. A panicking handler drops the request, which answers it fail-closed too.
    pub(crate) fn run_request(&self, r: ServerRequest) {
        match self.request_handler(&r.method, r.thread_id().as_deref()) {
            Some(h) => {
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(r))) {
                    self.report_panic("server request", &*p);
                }
            }
            None => {
                self.warn_unhandled(&r.method);
                let _ = r.respond_fail_closed();
            }
        }
    }

    /// The handler for a notification: the method's own, else the generic one.
    fn notification_handler(&self, method: &str) -> Option<NotificationHandler> {
        let map = self.notification_by_method.read().unwrap();
        if !map.is_empty() {
            if let Some(h) = map.get(method) {
                return Some(h.clone());
            }
        }
        drop(map);
        self.notification.read().unwrap().clone()
    }

    /// Run the right handler for one event. Server requests without a handler are answered
    /// fail-closed; a panicking server-request handler drops the request, which answers it
    /// fail-closed too.
    pub(crate) fn dispatch(&self, event: Event) {
        let any = self.any.read().unwrap().clone();
        if let Some(h) = any {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(event))) {
                self.report_panic("event", &*p);
            }
            return;
        }
        match event {
            Event::Notification(n) => {
                if let Some(h) = self.notification_handler(&n.method) {
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(&n))) {
                        self.report_panic("notification", &*p);
                    }
                }
            }
            Event::ServerRequest(r) => self.run_request(r),
            Event::Connection(c) => {
                let h = self.connection.read().unwrap().clone();
                if let Some(h) = h {
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(&c))) {
                        self.report_panic("connection", &*p);
                    }
                }
            }
            Event::Response(r) => {
                let h = self.response.read().unwrap().clone();
                match h {
                    Some(h) => {
                        if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(r))) {
                            self.report_panic("response", &*p);
                        }
                    }
                    None => {
                        tracing::debug!(token = r.token, method = %r.method, "response with no handler; dropped");
                    }
                }
            }
        }
    }
}

/// Threads of the shared dispatch pool. Callbacks are the program's code: two threads let
/// one client's slow callback leave the clients on the other thread served, while the count
/// stays fixed however many clients there are (a client whose callbacks block should ask for
/// its own thread: [`ClientOptions::dedicated_dispatch_thread`](crate::ClientOptions::dedicated_dispatch_thread)).
pub const DISPATCH_THREADS: usize = 2;

/// Events one client gets delivered in a row before the thread turns to its next client.
const BATCH: usize = 256;

/// One dispatch thread: the clients pinned to it that have events waiting, in turn.
struct Worker {
    /// Unique among all dispatch threads (pool and dedicated) of the process.
    id: usize,
    state: Mutex<WorkerState>,
    cv: Condvar,
    /// A client's own thread: it ends once that client's events are drained.
    dedicated: bool,
}

#[derive(Default)]
struct WorkerState {
    ready: VecDeque<Arc<Entry>>,
    /// Clients pinned to this thread and not drained yet.
    clients: usize,
}

/// One client's place on its dispatch thread.
struct Entry {
    queue: Arc<EventQueue>,
    handlers: Arc<Handlers>,
    worker: Arc<Worker>,
    /// In its thread's ready list (or about to be).
    scheduled: AtomicBool,
    /// Only responses are delivered from now on.
    halted: AtomicBool,
    /// Its queue is closed and drained: no callback of this client runs again.
    finished: Mutex<bool>,
    finished_cv: Condvar,
}

impl Entry {
    fn schedule(self: &Arc<Self>) {
        if !self.scheduled.swap(true, Ordering::AcqRel) {
            let mut st = self.worker.state.lock().unwrap_or_else(|e| e.into_inner());
            st.ready.push_back(self.clone());
            drop(st);
            self.worker.cv.notify_one();
        }
    }

    fn is_finished(&self) -> bool {
        *self.finished.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_finished(&self) {
        let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        while !*f {
            f = self.finished_cv.wait(f).unwrap_or_else(|e| e.into_inner());
        }
    }
}

thread_local! {
    /// The id of the dispatch thread this is, if it is one.
    static WORKER_ID: Cell<Option<usize>> = const { Cell::new(None) };
}

static NEXT_WORKER_ID: AtomicUsize = AtomicUsize::new(0);

/// Which dispatch thread waits (in [`Dispatcher::join`]) for a client of which other one:
/// a wait that would close a loop is skipped instead of deadlocking.
static WAITS_FOR: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// The shared pool and the process it was started in (a child after `fork` starts its own).
static POOL: Mutex<Option<(u32, Vec<Arc<Worker>>)>> = Mutex::new(None);

/// Live dispatch threads (pool and dedicated), for tests and diagnostics.
static LIVE_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Number of dispatch threads running now: the shared pool's ([`DISPATCH_THREADS`], once a
/// client in callback mode connected) and the dedicated ones of clients that asked for their
/// own.
pub fn dispatch_threads() -> usize {
    LIVE_THREADS.load(Ordering::Acquire)
}

/// Start a dispatch thread; a dedicated one starts with its client counted.
fn start_worker(dedicated: bool) -> std::io::Result<Arc<Worker>> {
    let worker = Arc::new(Worker {
        id: NEXT_WORKER_ID.fetch_add(1, Ordering::Relaxed),
        state: Mutex::new(WorkerState {
            ready: VecDeque::new(),
            clients: usize::from(dedicated),
        }),
        cv: Condvar::new(),
        dedicated,
    });
    let w = worker.clone();
    std::thread::Builder::new()
        .name("codex-client-dispatch".into())
        .spawn(move || run_worker(w))?;
    LIVE_THREADS.fetch_add(1, Ordering::AcqRel);
    Ok(worker)
}

/// The thread for a new client, with the client counted: its own, or the pool's with the
/// fewest clients.
fn pick_worker(dedicated: bool) -> std::io::Result<Arc<Worker>> {
    if dedicated {
        return start_worker(true);
    }
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if pool.as_ref().is_none_or(|(p, _)| *p != pid) {
        let mut workers = Vec::with_capacity(DISPATCH_THREADS);
        for _ in 0..DISPATCH_THREADS {
            workers.push(start_worker(false)?);
        }
        *pool = Some((pid, workers));
    }
    let workers = &pool.as_ref().expect("started above").1;
    let best = workers
        .iter()
        .min_by_key(|w| w.state.lock().unwrap_or_else(|e| e.into_inner()).clients)
        .expect("the pool has threads");
    best.state.lock().unwrap_or_else(|e| e.into_inner()).clients += 1;
    Ok(best.clone())
}

fn run_worker(worker: Arc<Worker>) {
    crate::rt::block_sigpipe();
    ON_DISPATCH_THREAD.with(|c| c.set(true));
    WORKER_ID.with(|c| c.set(Some(worker.id)));
    crate::delivery::mark_event_delivery_thread();
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        let entry = {
            let mut st = worker.state.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(e) = st.ready.pop_front() {
                    break e;
                }
                if worker.dedicated && st.clients == 0 {
                    LIVE_THREADS.fetch_sub(1, Ordering::AcqRel);
                    return;
                }
                st = worker.cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        // Cleared first: events queued from now on schedule the client again.
        entry.scheduled.store(false, Ordering::Release);
        if entry.is_finished() {
            // Scheduled once more by its queue's closing, after it was drained.
            continue;
        }
        let alive = entry.queue.drain_into(&mut batch, BATCH);
        for ev in batch.drain(..) {
            // Once halted only responses are delivered (every sent request gets its answer);
            // the rest is dropped (server requests answer fail-closed on drop).
            if entry.halted.load(Ordering::Acquire) && !matches!(ev, Event::Response(_)) {
                continue;
            }
            entry.handlers.dispatch(ev);
        }
        if !alive {
            entry.queue.set_on_ready(None);
            *entry.finished.lock().unwrap_or_else(|e| e.into_inner()) = true;
            entry.finished_cv.notify_all();
            let mut st = worker.state.lock().unwrap_or_else(|e| e.into_inner());
            st.clients = st.clients.saturating_sub(1);
            continue;
        }
        if entry.queue.has_work() {
            entry.schedule();
        }
    }
}

/// Record that dispatch thread `me` waits for `target`, unless `target` waits (through any
/// chain) for `me`: then false, and `me` must not wait.
fn begin_wait(me: usize, target: usize) -> bool {
    let mut waits = WAITS_FOR.lock().unwrap_or_else(|e| e.into_inner());
    let mut t = target;
    loop {
        if t == me {
            return false;
        }
        match waits.iter().find(|(from, _)| *from == t) {
            Some((_, next)) => t = *next,
            None => break,
        }
    }
    waits.push((me, target));
    true
}

fn end_wait(me: usize) {
    WAITS_FOR
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(from, _)| *from != me);
}

/// Callback delivery of one connection: its place on a dispatch thread. Every callback of the
/// client runs on that one thread, in arrival order; the thread may serve other clients too.
pub(crate) struct Dispatcher {
    entry: Option<Arc<Entry>>,
}

impl Dispatcher {
    /// Deliver `queue`'s events to `handlers` on a pool thread (or, with `dedicated`, on a
    /// thread of the client's own).
    pub(crate) fn start(
        queue: Arc<EventQueue>,
        handlers: Arc<Handlers>,
        dedicated: bool,
    ) -> std::io::Result<Dispatcher> {
        let worker = pick_worker(dedicated)?;
        let entry = Arc::new(Entry {
            queue: queue.clone(),
            handlers,
            worker,
            scheduled: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            finished: Mutex::new(false),
            finished_cv: Condvar::new(),
        });
        let weak = Arc::downgrade(&entry);
        queue.set_on_ready(Some(Arc::new(move || {
            if let Some(e) = weak.upgrade() {
                e.schedule();
            }
        })));
        Ok(Dispatcher { entry: Some(entry) })
    }

    /// Stop running callbacks: events still queued are dropped (server requests among them
    /// are answered fail-closed when the connection is still up), except responses, which are
    /// still delivered until the connection's queue closes.
    pub(crate) fn halt(&self) {
        if let Some(e) = &self.entry {
            e.halted.store(true, Ordering::Release);
        }
    }

    /// Halt, then wait until the client's events are drained (its queue closed: close the
    /// connection first) and no callback of it runs. Not when called from the client's own
    /// dispatch thread (a callback: it is the last but for responses), nor from another
    /// dispatch thread that the client's thread is itself waiting for (a loop of
    /// disconnects between callbacks).
    pub(crate) fn join(&mut self) {
        self.halt();
        let Some(entry) = self.entry.take() else {
            return;
        };
        if entry.is_finished() {
            return;
        }
        match WORKER_ID.with(|c| c.get()) {
            None => entry.wait_finished(),
            Some(me) if me == entry.worker.id => {}
            Some(me) => {
                if begin_wait(me, entry.worker.id) {
                    entry.wait_finished();
                    end_wait(me);
                }
            }
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.join();
    }
}
