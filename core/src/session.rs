//! One live connection: the runtime thread with its reader, writer, timer and stderr tasks,
//! the pending-request table and the event queue.

use bytes::Bytes;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use crate::correlation::{Correlation, Outcome, Reply};
use crate::dispatch::Handlers;
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::{null_raw, ConnectionEvent, Event, Notification, ServerRequest};
use crate::message::{classify, notification_line, Classified, Incoming, RequestId};
use crate::options::{ClientOptions, RequestOptions};
use crate::queue::{EventQueue, Push, ReaderSignal};
use crate::responder::{OpenRequests, Responder};
use crate::router::Router;
use crate::transport::io::{MessageReader, MessageWriter};
use crate::transport::lines::LineRead;
use crate::transport::stderr::StderrTail;
use crate::transport::{self, Link};

const HANDSHAKE: u8 = 0;
const OPEN: u8 = 1;
const CLOSED: u8 = 2;

/// How long to wait for the last stderr lines after the server's stdout closed.
const STDERR_GRACE: Duration = Duration::from_millis(300);
/// After the server process exited: how long to keep reading what it wrote before exiting
/// when its stdout does not close (a process it left behind holds the pipe).
const EXIT_DRAIN: Duration = Duration::from_millis(250);

enum Outgoing {
    Line(Bytes),
    Close,
}

/// State shared by the runtime tasks and every handle of one connection.
pub(crate) struct SessionShared {
    correlation: Arc<Correlation>,
    out: mpsc::UnboundedSender<Outgoing>,
    pub(crate) queue: Arc<EventQueue>,
    signal: Arc<ReaderSignal>,
    queue_capacity: usize,
    pub(crate) router: Router,
    state: AtomicU8,
    close_info: OnceLock<DisconnectInfo>,
    /// Why the transport could not be opened, when that is how the connection ended.
    open_error: OnceLock<Error>,
    stderr: StderrTail,
    open_requests: OpenRequests,
    max_line_bytes: usize,
    read_ahead_bytes: usize,
    /// Process id of the spawned server, once spawned.
    pid: OnceLock<u32>,
    /// The client's handlers in callback mode (`None` in poll mode).
    handlers: Option<Arc<Handlers>>,
    /// Queues with events whose consumers were not woken yet (reader-side batching).
    dirty: Mutex<Vec<Arc<EventQueue>>>,
    /// Subscriptions ([`Client::subscribe`](crate::Client::subscribe)): each gets a copy of
    /// the notifications and connection events the main queue gets.
    subscribers: Mutex<Vec<Arc<EventQueue>>>,
    has_subscribers: std::sync::atomic::AtomicBool,
    me: Weak<SessionShared>,
}

impl SessionShared {
    /// Whether the handshake finished and the connection is still up.
    pub(crate) fn is_open(&self) -> bool {
        self.state.load(Ordering::Acquire) == OPEN
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.state.load(Ordering::Acquire) == CLOSED
    }

    pub(crate) fn mark_open(&self) {
        let _ = self
            .state
            .compare_exchange(HANDSHAKE, OPEN, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The error for calls on a closed connection, with the reason and stderr tail (or the
    /// reason the transport never opened).
    pub(crate) fn disconnect_error(&self) -> Error {
        if let Some(e) = self.open_error.get() {
            return e.clone();
        }
        Error::Disconnected(
            self.close_info
                .get()
                .cloned()
                .unwrap_or_else(|| DisconnectInfo {
                    reason: "connection closed".into(),
                    stderr_tail: self.stderr.tail(),
                }),
        )
    }

    /// Process id of the server, for transports that spawn one.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid.get().copied()
    }

    /// The last bytes of the server's stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr.tail()
    }

    /// Queue a raw line (response or notification) for the writer.
    pub(crate) fn send_line(&self, line: Vec<u8>) -> Result<()> {
        if self.is_closed() {
            return Err(self.disconnect_error());
        }
        self.out
            .send(Outgoing::Line(Bytes::from(line)))
            .map_err(|_| self.disconnect_error())
    }

    /// Send a client notification.
    pub(crate) fn notify(&self, method: &str, params: Option<&RawValue>) -> Result<()> {
        self.send_line(notification_line(method, params))
    }

    /// Register a request and send it. The returned receiver always completes: with the
    /// response, a timeout, an overload error or the disconnect.
    pub(crate) fn start_request(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        during_handshake: bool,
    ) -> Result<Outcome> {
        let (tx, rx) = oneshot::channel();
        self.send_request(method, params, opts, during_handshake, Reply::Wait(tx))?;
        Ok(rx)
    }

    /// Register a request whose outcome goes to `reply`, and send it. The reply always
    /// comes: the response, a timeout, an overload error or the disconnect.
    pub(crate) fn send_request(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        during_handshake: bool,
        reply: Reply,
    ) -> Result<()> {
        if method.is_empty() {
            return Err(Error::InvalidArgument("method name is empty".into()));
        }
        match self.state.load(Ordering::Acquire) {
            OPEN => {}
            HANDSHAKE if during_handshake => {}
            HANDSHAKE => return Err(Error::NotConnected),
            _ => return Err(self.disconnect_error()),
        }
        let read_ahead = opts
            .read_ahead
            .unwrap_or_else(crate::delivery::delivers_events);
        let request = self
            .correlation
            .register(method, params, &opts, read_ahead, reply)?;
        if read_ahead {
            // A reader stalled on a full queue must read on: this thread would otherwise
            // wait for itself.
            self.signal.wake();
        }
        if self.out.send(Outgoing::Line(request.line)).is_err() {
            self.correlation.fail(request.id, self.disconnect_error());
        }
        Ok(())
    }

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
                    let mut dirty = self.dirty.lock().unwrap();
                    if !dirty.last().is_some_and(|q| Arc::ptr_eq(q, queue)) {
                        dirty.push(queue.clone());
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
    /// calls it when it has no complete line left in its buffer (or after a batch).
    pub(crate) fn flush_wakes(&self) {
        let dirty = std::mem::take(&mut *self.dirty.lock().unwrap());
        for q in dirty {
            q.flush_wake();
        }
    }

    /// A new queue for a turn stream, sharing this connection's reader signal.
    pub(crate) fn new_queue(&self) -> Arc<EventQueue> {
        Arc::new(EventQueue::with_signal(
            self.queue_capacity,
            self.read_ahead_bytes,
            self.signal.clone(),
        ))
    }

    fn report(&self, message: String) {
        tracing::warn!("{message}");
        let ev = ConnectionEvent::Error(message);
        for sub in self.subscribers() {
            sub.force_push(Event::Connection(ev.clone()));
        }
        self.queue.force_push(Event::Connection(ev));
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

    fn subscribers(&self) -> Vec<Arc<EventQueue>> {
        if !self.has_subscribers.load(Ordering::Acquire) {
            return Vec::new();
        }
        self.subscribers.lock().unwrap().clone()
    }

    async fn handle_line(&self, line: &[u8]) {
        let msg: Incoming<'_> = match serde_json::from_slice(line) {
            Ok(m) => m,
            Err(e) => {
                let excerpt = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
                self.report(format!("malformed line from server ({e}): {excerpt}"));
                return;
            }
        };
        match classify(msg) {
            Err(why) => {
                let excerpt = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
                self.report(format!("unexpected message from server ({why}): {excerpt}"));
            }
            Ok(Classified::Response { id, outcome }) => {
                if let Err(message) = self.correlation.complete(id, outcome) {
                    self.report(message);
                }
            }
            Ok(Classified::Notification { method, params }) => {
                let params = params.map(|p| p.to_owned()).unwrap_or_else(null_raw);
                if method == "serverRequest/resolved" {
                    self.mark_resolved(&params);
                }
                let note = Notification { method, params };
                match self.router.route_notification(&note) {
                    None => {
                        for sub in self.subscribers() {
                            self.deliver(&sub, Event::Notification(note.clone())).await;
                        }
                        self.deliver(&self.queue, Event::Notification(note)).await
                    }
                    Some((route, last)) => {
                        self.deliver(&route.queue, Event::Notification(note)).await;
                        if last {
                            route.queue.close();
                        }
                    }
                }
            }
            Ok(Classified::Request { id, method, params }) => {
                let params = params.map(|p| p.to_owned()).unwrap_or_else(null_raw);
                let state = self.open_requests.open(id.clone());
                let req = ServerRequest::new(id, method, params, state, self.me.clone());
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

    fn mark_resolved(&self, params: &RawValue) {
        #[derive(serde::Deserialize)]
        struct Resolved {
            #[serde(rename = "requestId")]
            request_id: RequestId,
        }
        if let Ok(r) = serde_json::from_str::<Resolved>(params.get()) {
            self.open_requests.resolve(&r.request_id);
        }
    }

    /// Fail everything and emit the final event. Idempotent.
    fn close(&self, info: DisconnectInfo) {
        self.close_with(info, None)
    }

    /// [`close`](Self::close), failing pending requests with `error` instead of the
    /// disconnect (a connect that failed reports why).
    fn close_with(&self, info: DisconnectInfo, error: Option<Error>) {
        let failure = error
            .clone()
            .unwrap_or_else(|| Error::Disconnected(info.clone()));
        let closed_now = self.correlation.close(failure, || {
            if let Some(e) = error {
                let _ = self.open_error.set(e);
            }
            self.state.store(CLOSED, Ordering::Release);
            let _ = self.close_info.set(info.clone());
        });
        if !closed_now {
            return;
        }
        self.open_requests.close_all();
        tracing::debug!(reason = %info.reason, "connection closed");
        for route in self.router.take_all() {
            route
                .queue
                .force_push(Event::Connection(ConnectionEvent::Disconnected(
                    info.clone(),
                )));
            route.queue.close();
        }
        let subs = std::mem::take(&mut *self.subscribers.lock().unwrap());
        self.has_subscribers.store(false, Ordering::Release);
        for sub in subs {
            sub.force_push(Event::Connection(ConnectionEvent::Disconnected(
                info.clone(),
            )));
            sub.close();
        }
        self.queue
            .force_push(Event::Connection(ConnectionEvent::Disconnected(info)));
        self.queue.close();
    }
}

impl Responder for SessionShared {
    fn send_response(&self, line: Vec<u8>) -> Result<()> {
        self.send_line(line)
    }

    fn forget_request(&self, id: &RequestId) {
        self.open_requests.forget(id);
    }

    fn disconnect_error(&self) -> Error {
        SessionShared::disconnect_error(self)
    }
}

/// A running connection: owns the runtime thread.
pub(crate) struct Session {
    pub(crate) shared: Arc<SessionShared>,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Completes (with an error: its sender is dropped) when the runtime thread is done.
    finished: Mutex<Option<oneshot::Receiver<()>>>,
}

impl Session {
    /// Start a connection on a new runtime thread and return at once: the transport opens
    /// on that thread (bounded by `connect_timeout`, aborted by [`shutdown`](Self::shutdown)).
    /// Requests started now are sent once it is open; if it cannot open they fail with the
    /// reason. The handshake is the caller's job.
    pub(crate) fn start(opts: &ClientOptions, handlers: Option<Arc<Handlers>>) -> Result<Session> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Transport(format!("could not build runtime: {e}")))?;
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (shutdown_tx, shutdown_rx) = oneshot::channel();
        let signal = Arc::new(ReaderSignal::default());
        let queue = Arc::new(EventQueue::with_signal(
            opts.event_queue_capacity,
            opts.read_ahead_bytes,
            signal.clone(),
        ));
        let resend = out_tx.clone();
        let responses = queue.clone();
        let correlation = Correlation::new(
            opts.default_timeout,
            opts.retry,
            move |line| {
                let _ = resend.send(Outgoing::Line(line));
            },
            move |token, method, result| {
                let response = Event::Response(crate::event::Response {
                    token,
                    method,
                    result,
                });
                if responses.push_response(response).is_some() {
                    tracing::debug!(token, "response after the event queue closed; dropped");
                }
            },
        );
        let shared = Arc::new_cyclic(|me| SessionShared {
            correlation,
            out: out_tx,
            queue,
            signal,
            queue_capacity: opts.event_queue_capacity,
            router: Router::default(),
            state: AtomicU8::new(HANDSHAKE),
            close_info: OnceLock::new(),
            open_error: OnceLock::new(),
            stderr: StderrTail::new(opts.stderr_tail_bytes),
            open_requests: OpenRequests::default(),
            max_line_bytes: opts.max_line_bytes,
            read_ahead_bytes: opts.read_ahead_bytes,
            pid: OnceLock::new(),
            handlers,
            dirty: Mutex::new(Vec::new()),
            subscribers: Mutex::new(Vec::new()),
            has_subscribers: std::sync::atomic::AtomicBool::new(false),
            me: me.clone(),
        });
        let opts = opts.clone();
        let rt_shared = shared.clone();
        let (finished_tx, finished_rx) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("codex-client-rt".into())
            .spawn(move || {
                // Declared first, dropped last: after the runtime and its tasks are gone.
                let _finished = finished_tx;
                crate::dispatch::block_sigpipe();
                rt.block_on(open_and_run(rt_shared, opts, out_rx, shutdown_rx));
                drop(rt);
            })
            .map_err(|e| Error::Transport(format!("could not start the runtime thread: {e}")))?;
        Ok(Session {
            shared,
            shutdown: Mutex::new(Some(shutdown_tx)),
            thread: Mutex::new(Some(thread)),
            finished: Mutex::new(Some(finished_rx)),
        })
    }

    /// [`shutdown`](Self::shutdown) without blocking: awaits the runtime thread's end, then
    /// joins it (at once).
    pub(crate) async fn shutdown_async(&self) {
        if let Some(tx) = self.shutdown.lock().unwrap().take() {
            let _ = tx.send(());
        }
        let finished = self.finished.lock().unwrap().take();
        if let Some(rx) = finished {
            let _ = rx.await;
        }
        self.shutdown();
    }

    /// Stop the server and the runtime thread (or abort the connect in progress); every
    /// pending request fails. Idempotent.
    pub(crate) fn shutdown(&self) {
        if let Some(tx) = self.shutdown.lock().unwrap().take() {
            let _ = tx.send(());
        }
        let handle = self.thread.lock().unwrap().take();
        if let Some(h) = handle {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The runtime thread's work: open the transport within the connect timeout (unless the
/// client gives up first), then run the connection until it ends.
async fn open_and_run(
    shared: Arc<SessionShared>,
    opts: ClientOptions,
    out_rx: mpsc::UnboundedReceiver<Outgoing>,
    mut shutdown_rx: oneshot::Receiver<()>,
) {
    // Timers run from the start: the `initialize` deadline covers the transport's opening.
    let correlation = shared.correlation.clone();
    let timer = tokio::spawn(async move { correlation.run_timers().await });
    let opened = tokio::select! {
        r = transport::open(&opts) => r,
        _ = &mut shutdown_rx => Err(Error::Disconnected(DisconnectInfo {
            reason: "connect aborted by disconnect()".into(),
            stderr_tail: String::new(),
        })),
    };
    let link = match opened {
        Ok(link) => link,
        Err(e) => {
            timer.abort();
            let info = DisconnectInfo {
                reason: e.to_string(),
                stderr_tail: String::new(),
            };
            shared.close_with(info, Some(e));
            return;
        }
    };
    if let Some(pid) = link.peer.pid() {
        let _ = shared.pid.set(pid);
    }
    run(shared, link, out_rx, shutdown_rx, timer).await;
}

async fn run(
    shared: Arc<SessionShared>,
    link: Link,
    out_rx: mpsc::UnboundedReceiver<Outgoing>,
    shutdown_rx: oneshot::Receiver<()>,
    timer: tokio::task::JoinHandle<()>,
) {
    let Link {
        reader,
        writer,
        stderr,
        mut peer,
    } = link;
    let stderr_task = stderr.map(|e| {
        let shared = shared.clone();
        tokio::spawn(async move { shared.stderr.collect(e).await })
    });
    let mut writer = tokio::spawn(writer_loop(writer, out_rx));
    let mut reading = std::pin::pin!(reader_loop(&shared, reader));
    let reason = tokio::select! {
        reason = &mut reading => reason,
        _ = shutdown_rx => if shared.is_open() {
            "disconnected by the client".to_string()
        } else {
            "connect aborted by disconnect()".to_string()
        },
        // The server's own exit ends the connection even while a process it left behind
        // keeps its stdout open: read what it wrote before exiting, then close.
        how = peer.exited() => {
            tokio::time::timeout(EXIT_DRAIN, &mut reading).await.unwrap_or(how)
        }
    };
    // Let queued writes go out, then close our side so the server can finish on its own.
    let _ = shared.out.send(Outgoing::Close);
    if tokio::time::timeout(Duration::from_millis(200), &mut writer)
        .await
        .is_err()
    {
        writer.abort();
    }
    let reason = match peer.stop().await {
        Some(exit) if exit != reason => format!("{reason} ({exit})"),
        _ => reason,
    };
    if let Some(t) = stderr_task {
        let _ = tokio::time::timeout(STDERR_GRACE, t).await;
    }
    timer.abort();
    shared.close(DisconnectInfo {
        reason,
        stderr_tail: shared.stderr.tail(),
    });
}

/// Lines handled between two consumer wake-ups at most, while lines keep arriving.
const WAKE_BATCH: usize = 256;

async fn reader_loop(shared: &SessionShared, mut reader: MessageReader) -> String {
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut since_wake = 0usize;
    loop {
        since_wake += 1;
        if since_wake >= WAKE_BATCH || !reader.has_buffered_line() {
            shared.flush_wakes();
            since_wake = 0;
        }
        match reader.read(&mut buf, shared.max_line_bytes).await {
            Err(e) => return format!("reading from the server failed: {e}"),
            Ok(LineRead::Eof) => return "the server closed the connection".to_string(),
            Ok(LineRead::TooLong(n)) => shared.report(format!(
                "skipped a {n}-byte message from the server (limit {} bytes)",
                shared.max_line_bytes
            )),
            Ok(LineRead::Line) => {
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    shared.handle_line(&buf).await;
                }
                if buf.capacity() > 1024 * 1024 {
                    buf = Vec::with_capacity(16 * 1024);
                }
            }
        }
    }
}

async fn writer_loop(mut w: MessageWriter, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(msg) = rx.recv().await {
        let mut close = false;
        let mut next = Some(msg);
        // Write everything already queued, then flush once.
        while let Some(m) = next.take() {
            match m {
                Outgoing::Line(line) => {
                    if let Err(e) = w.write(line).await {
                        tracing::debug!("writing to the server failed: {e}");
                        return;
                    }
                }
                Outgoing::Close => {
                    close = true;
                    break;
                }
            }
            next = rx.try_recv().ok();
        }
        if let Err(e) = w.flush().await {
            tracing::debug!("flushing to the server failed: {e}");
            return;
        }
        if close {
            w.close().await;
            return;
        }
    }
}
