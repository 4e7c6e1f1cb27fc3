//! One live connection: wires a transport (`transport`) to correlation (`correlation`) and
//! to the event queues. [`SessionShared`] is the connection's state, shared by its runtime
//! tasks and every handle: its lifecycle (handshake, open, closed and why), sending requests
//! and notifications, the server requests still open, and the close sequence. Lines from the
//! server are handled in `incoming`; the runtime thread and its tasks are in `runtime`.

mod embedded;
mod incoming;
mod outgoing;
mod parked;
mod reconnect;
mod runtime;
pub(crate) mod tap;
mod wire;

pub(crate) use runtime::Session;

use bytes::Bytes;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use tokio::sync::{mpsc, oneshot};

use crate::correlation::{Correlation, Outcome, Reply};
use crate::delivery::dispatch::Handlers;
use crate::delivery::queue::{EventQueue, ReaderSignal};
use crate::delivery::router::Router;
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::Notification;
use crate::event::{ConnectionEvent, Event};
use crate::message::{notification_line, RequestId};
use crate::options::{ClientOptions, Protocol, ReconnectPolicy, RequestOptions, RetryPolicy};
use crate::responder::{OpenRequests, Responder};
use crate::rules::Rules;
use crate::transport::stderr::StderrTail;
use outgoing::{Out, Outgoing};

const HANDSHAKE: u8 = 0;
const OPEN: u8 = 1;
const CLOSED: u8 = 2;
/// The link dropped; the client is reconnecting (requests are held until it has rejoined).
const RECONNECTING: u8 = 3;

/// State shared by the runtime tasks and every handle of one connection.
pub(crate) struct SessionShared {
    // The connection: its lifecycle, the writer's channel and the server's traces.
    state: AtomicU8,
    /// Taken shared by every send, exclusively when a link drops: a request is either in
    /// flight on the old link (and fails) or held for the next one, never both.
    send_gate: RwLock<()>,
    close_info: OnceLock<DisconnectInfo>,
    /// Why the last link dropped (a reconnect followed).
    lost: Mutex<Option<DisconnectInfo>>,
    /// Reconnect policy (`None`: a dropped link closes the connection).
    pub(crate) reconnect: Option<ReconnectPolicy>,
    /// WebSocket heartbeat: the writer pings.
    pub(crate) heartbeat: Option<crate::options::Heartbeat>,
    /// Events made up from a resumed history, delivered before the next line is read.
    synthesized: Mutex<Vec<Notification>>,
    /// Counts links: replies to a rejoin's requests act only on their own link.
    link_gen: AtomicU64,
    /// Whether the transport opened: `None` while it opens, then `Some(true)` (the first
    /// link is up: a server process runs or an endpoint is set up) or `Some(false)` (it
    /// never opened, or the connection closed first).
    opened: tokio::sync::watch::Sender<Option<bool>>,
    /// The current link's number, unique in the process ([`next_link`]): the `connection` of
    /// the server requests that come on it (0 before the first link).
    link_id: AtomicU64,
    /// The first link's number: references of links from it on are this session's.
    first_link: AtomicU64,
    /// The id of the client this connection belongs to (the owner of its server requests).
    pub(crate) owner: Arc<str>,
    /// The client's label (option `label`), carried by every event.
    pub(crate) endpoint: Option<Arc<str>>,
    /// Server requests parked until their answer by reference (or their bound).
    parked: parked::Parked,
    /// The connect timeout: it bounds each request of a handshake.
    connect_timeout: std::time::Duration,
    /// The latest `initialize` result (a reconnect replaces it).
    init_result: Mutex<Option<serde_json::Value>>,
    /// Why the transport could not be opened, when that is how the connection ended.
    open_error: OnceLock<Error>,
    /// Lines for the server (to the writer task, or written at once).
    out: Arc<Out>,
    max_line_bytes: usize,
    /// Log every line received (`ClientOptions::trace_wire`).
    pub(crate) trace_wire: bool,
    /// The protocol spoken.
    pub(crate) protocol: Protocol,
    /// Its rules, with its per-connection state: the engine asks them wherever the
    /// protocols differ ([`Rules`]).
    pub(crate) rules: Arc<dyn Rules>,
    /// Process id of the spawned server, once spawned (0: none).
    pid: AtomicU32,
    stderr: StderrTail,
    /// The client's requests awaiting a response.
    correlation: Arc<Correlation>,
    /// The server's requests awaiting an answer.
    open_requests: OpenRequests,
    // Delivery: the connection's queue, the turn streams' routes and the reader's batching.
    pub(crate) queue: Arc<EventQueue>,
    pub(crate) router: Router,
    /// The client's handlers (whether one takes a server request decides its route).
    handlers: Option<Arc<Handlers>>,
    /// What a layer above watches of this connection's events (the pool), if anything.
    tap: Option<Arc<dyn tap::Tap>>,
    signal: Arc<ReaderSignal>,
    queue_capacity: usize,
    read_ahead_bytes: usize,
    /// Queues with events whose consumers were not woken yet (reader-side batching).
    dirty: Mutex<Vec<Arc<EventQueue>>>,
    /// `dirty.len()`, read by the reader for every line.
    dirty_len: std::sync::atomic::AtomicUsize,
    /// Subscriptions ([`Client::subscribe`](crate::Client::subscribe)): each gets a copy of
    /// the notifications and connection events the main queue gets.
    subscribers: Mutex<Vec<Arc<EventQueue>>>,
    has_subscribers: AtomicBool,
    /// Whether notifications (not routed to a turn stream) go to the client's own delivery
    me: Weak<SessionShared>,
}

impl SessionShared {
    /// The state of a connection about to open: lines for the server go to `out`.
    fn new(
        opts: &ClientOptions,
        handlers: Option<Arc<Handlers>>,
        tap: Option<Arc<dyn tap::Tap>>,
        out: mpsc::UnboundedSender<Outgoing>,
        owner: Arc<str>,
    ) -> Arc<SessionShared> {
        let signal = Arc::new(ReaderSignal::default());
        let queue = Arc::new(EventQueue::with_signal(
            opts.event_queue_capacity,
            opts.read_ahead_bytes,
            signal.clone(),
        ));
        let rules = crate::rules::for_options(opts);
        let out = Arc::new(Out::new(out, rules.jsonrpc_member()).traced(opts.trace_wire));
        let resend = out.clone();
        let cancels = out.clone();
        let responses = queue.clone();
        let observer = rules.clone();
        let correlation = Correlation::new(
            opts.default_timeout,
            if rules.retries_overload() {
                opts.retry
            } else {
                RetryPolicy::none()
            },
            move |line| {
                let _ = resend.line(line);
            },
            move |token, method, result, attachment| {
                let response = Event::Response(crate::event::Response {
                    token,
                    method,
                    result,
                    attachment,
                });
                if responses.push_response(response).is_some() {
                    tracing::debug!(token, "response after the event queue closed; dropped");
                }
            },
            {
                let rules = rules.clone();
                move |id, reason| {
                    if let Some((method, params)) = rules.cancelled(id, reason) {
                        let line = notification_line(method, Some(&params));
                        let _ = cancels.line(Bytes::from(line));
                    }
                }
            },
            move |method, line, result| observer.observe_result(method, line, result),
        );
        Arc::new_cyclic(|me| SessionShared {
            state: AtomicU8::new(HANDSHAKE),
            send_gate: RwLock::new(()),
            close_info: OnceLock::new(),
            lost: Mutex::new(None),
            reconnect: opts.reconnect,
            heartbeat: opts.heartbeat,
            synthesized: Mutex::new(Vec::new()),
            link_gen: AtomicU64::new(0),
            opened: tokio::sync::watch::Sender::new(None),
            link_id: AtomicU64::new(0),
            first_link: AtomicU64::new(0),
            owner,
            endpoint: opts.label.as_deref().map(Arc::from),
            parked: parked::Parked::new(opts.parked_request_timeout),
            connect_timeout: opts.connect_timeout,
            init_result: Mutex::new(None),
            open_error: OnceLock::new(),
            out,
            max_line_bytes: opts.max_line_bytes,
            trace_wire: opts.trace_wire,
            protocol: opts.transport.protocol(),
            rules,
            pid: AtomicU32::new(0),
            stderr: StderrTail::new(opts.stderr_tail_bytes),
            correlation,
            open_requests: OpenRequests::default(),
            queue,
            router: Router::default(),
            handlers,
            tap,
            signal,
            queue_capacity: opts.event_queue_capacity,
            read_ahead_bytes: opts.read_ahead_bytes,
            dirty: Mutex::new(Vec::new()),
            dirty_len: std::sync::atomic::AtomicUsize::new(0),
            subscribers: Mutex::new(Vec::new()),
            has_subscribers: AtomicBool::new(false),
            me: me.clone(),
        })
    }

    /// The state of this connection's protocol, when it speaks the protocol of rules `T`.
    pub(crate) fn rules_of<T: 'static>(&self) -> Option<&T> {
        self.rules.as_any().downcast_ref()
    }

    /// Whether the handshake finished and the connection is still up.
    pub(crate) fn is_open(&self) -> bool {
        self.state.load(Ordering::Acquire) == OPEN
    }

    /// Whether the connection ended (or never opened).
    pub(crate) fn is_closed(&self) -> bool {
        self.state.load(Ordering::Acquire) == CLOSED
    }

    /// Whether the link dropped and the client is reconnecting.
    pub(crate) fn is_reconnecting(&self) -> bool {
        self.state.load(Ordering::Acquire) == RECONNECTING
    }

    /// The first link is up (called by the connection's task).
    pub(crate) fn mark_link_opened(&self) {
        self.opened.send_if_modified(|s| {
            let first = s.is_none();
            if first {
                *s = Some(true);
            }
            first
        });
    }

    /// Whether the transport opened (a server process was started, an endpoint set up),
    /// even if the connection has closed since.
    pub(crate) fn link_opened(&self) -> bool {
        *self.opened.borrow() == Some(true)
    }

    /// Wait until the transport opened (`Ok`) or the connection closed without it (the
    /// reason). Bounded: the opening is bounded by the connect timeout, and a connection
    /// that ends marks the wait over. Awaitable on any executor.
    pub(crate) async fn wait_link_opened(&self) -> Result<()> {
        let mut rx = self.opened.subscribe();
        match rx.wait_for(Option::is_some).await.map(|s| *s) {
            Ok(Some(true)) => Ok(()),
            _ => Err(self.disconnect_error()),
        }
    }

    /// The handshake finished: requests other than `initialize` may go out.
    pub(crate) fn mark_open(&self) {
        let _ = self
            .state
            .compare_exchange(HANDSHAKE, OPEN, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The options of a handshake's requests: bounded by the connect timeout, no retry, no
    /// read-ahead.
    pub(crate) fn handshake_request_options(&self) -> crate::options::RequestOptions {
        crate::options::RequestOptions {
            timeout: Some(self.connect_timeout),
            retry: Some(RetryPolicy::none()),
            read_ahead: Some(false),
        }
    }

    /// Record the latest `initialize` result.
    pub(crate) fn set_init_result(&self, result: serde_json::Value) {
        *self.init_result.lock().unwrap() = Some(result);
    }

    /// The latest `initialize` result.
    pub(crate) fn init_result(&self) -> Option<serde_json::Value> {
        self.init_result.lock().unwrap().clone()
    }

    /// The error for calls on a closed connection, with the reason and stderr tail (or the
    /// reason the transport never opened).
    pub(crate) fn disconnect_error(&self) -> Error {
        if let Some(e) = self.open_error.get() {
            return e.clone();
        }
        if !self.is_closed() {
            if let Some(info) = self.lost.lock().unwrap().clone() {
                return Error::ConnectionLost(info);
            }
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
        Some(self.pid.load(Ordering::Acquire)).filter(|p| *p != 0)
    }

    /// The last bytes of the server's stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr.tail()
    }

    /// Queue a raw line (response or notification) for the writer.
    pub(crate) fn send_line(&self, line: Vec<u8>) -> Result<()> {
        let _gate = self.send_gate.read().unwrap();
        if self.is_closed() {
            return Err(self.disconnect_error());
        }
        self.out
            .line(Bytes::from(line))
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
        Ok(self
            .start_tracked(method, params, opts, during_handshake)?
            .1)
    }

    /// [`start_request`](Self::start_request), also returning the request's id (for
    /// [`abandon`](Self::abandon)).
    pub(crate) fn start_tracked(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        during_handshake: bool,
    ) -> Result<(i64, Outcome)> {
        let (tx, rx) = oneshot::channel();
        let id = self.send_request(method, params, opts, during_handshake, Reply::Wait(tx))?;
        Ok((id, rx))
    }

    /// Each progress update with `token` restarts request `id`'s timeout (MCP).
    pub(crate) fn watch_progress(&self, token: String, id: i64) {
        self.correlation.watch_progress(token, id);
    }

    /// Progress with `token` no longer restarts a timeout.
    pub(crate) fn unwatch_progress(&self, token: &str) {
        self.correlation.unwatch_progress(token);
    }

    /// The caller of request `id` stopped waiting: forget it (an MCP server is told).
    pub(crate) fn abandon(&self, id: i64) {
        self.correlation.abandon(id);
    }

    /// Cancel the request sent with event token `token`; its response event carries
    /// [`Error::Cancelled`]. False when none is pending.
    pub(crate) fn cancel_token(&self, token: u64) -> bool {
        self.correlation.cancel_token(
            token,
            Error::Cancelled("cancelled by the client before the answer came".into()),
        )
    }

    /// Register a request whose outcome goes to `reply`, and send it; its id. The reply always
    /// comes: the response, a timeout, an overload error or the disconnect.
    pub(crate) fn send_request(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        during_handshake: bool,
        reply: Reply,
    ) -> Result<i64> {
        if method.is_empty() {
            return Err(Error::InvalidArgument("method name is empty".into()));
        }
        // A method the server is known to lack is refused here.
        if let Some(e) = self.rules.refusal(method) {
            return Err(e);
        }
        let _gate = self.send_gate.read().unwrap();
        match self.state.load(Ordering::Acquire) {
            // While reconnecting the line waits in the channel for the rejoined link.
            OPEN | RECONNECTING => {}
            HANDSHAKE if during_handshake => {}
            HANDSHAKE => return Err(Error::NotConnected),
            _ => return Err(self.disconnect_error()),
        }
        let read_ahead = opts
            .read_ahead
            .unwrap_or_else(crate::delivery::delivers_events);
        let sent = self.rules.params_to_send(params)?;
        let params = sent.as_deref().unwrap_or(params);
        let request = self
            .correlation
            .register(method, params, &opts, read_ahead, reply)?;
        // A caller's own progress token: each update restarts this request's timeout.
        if let Some(token) = self.rules.progress_token(params) {
            self.correlation.watch_progress(token, request.id);
        }
        if read_ahead {
            // A reader stalled on a full queue must read on: this thread would otherwise
            // wait for itself.
            self.signal.wake();
        }
        if self.out.line(request.line).is_err() {
            self.correlation.fail(request.id, self.disconnect_error());
        }
        Ok(request.id)
    }

    /// The link dropped and the client reconnects: fail what was in flight with
    /// [`Error::ConnectionLost`], discard the lines not yet written (those requests', and
    /// answers to server requests of the lost link), close the open server requests (the
    /// server asks again after the rejoin). Requests sent from now on wait for the next link.
    /// Returns (requests failed, server requests dropped).
    fn lose_link(
        &self,
        info: &DisconnectInfo,
        unsent: &mut mpsc::UnboundedReceiver<Outgoing>,
    ) -> (usize, usize) {
        let pending = {
            let _gate = self.send_gate.write().unwrap();
            self.state.store(RECONNECTING, Ordering::Release);
            *self.lost.lock().unwrap() = Some(info.clone());
            // Taken first: an overload retry re-sends only while its request is in the table
            // (under the table's lock), so every line of a failed request is drained below.
            let pending = self.correlation.take_pending();
            self.out.discard(unsent);
            pending
        };
        let failed = self
            .correlation
            .fail_pending(pending, Error::ConnectionLost(info.clone()));
        let dropped = self.open_requests.close_all();
        self.parked.clear();
        (failed, dropped)
    }

    /// The reconnect's handshake and rejoin are done: held requests go out.
    pub(crate) fn mark_rejoined(&self) {
        let _ =
            self.state
                .compare_exchange(RECONNECTING, OPEN, Ordering::AcqRel, Ordering::Acquire);
        // `lost` stays: answering a server request of the lost link still says why it fails.
    }

    /// Send a request of the reconnect's own (handshake, rejoin) on `link`, ahead of the
    /// requests held for it; its outcome goes to `reply`. Its id.
    pub(crate) fn control_request(
        &self,
        link: &mpsc::UnboundedSender<Bytes>,
        method: &str,
        params: &RawValue,
        timeout: std::time::Duration,
        reply: Reply,
    ) -> Result<i64> {
        let opts = RequestOptions {
            timeout: Some(timeout),
            retry: Some(RetryPolicy::none()),
            read_ahead: Some(false),
        };
        let r = self
            .correlation
            .register(method, params, &opts, false, reply)?;
        if link.send(r.line).is_err() {
            self.correlation.forget(r.id);
            return Err(Error::Transport("the new link closed".into()));
        }
        Ok(r.id)
    }

    /// Report a connection event (reconnecting, reconnected) to the client and every
    /// subscription.
    pub(crate) fn connection_event(&self, ev: ConnectionEvent) {
        if let Some(t) = &self.tap {
            t.connection(&ev);
        }
        for sub in self.subscribers() {
            sub.force_push(Event::Connection(ev.clone()));
        }
        self.queue.force_push(Event::Connection(ev));
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
        self.opened.send_if_modified(|s| {
            let first = s.is_none();
            if first {
                *s = Some(false);
            }
            first
        });
        self.open_requests.close_all();
        self.parked.clear();
        tracing::debug!(reason = %info.reason, endpoint = self.endpoint.as_deref().unwrap_or(""), "connection closed");
        // Every queue ends with the disconnect: turn streams, subscriptions, the main queue.
        if let Some(t) = &self.tap {
            t.connection(&ConnectionEvent::Disconnected(info.clone()));
        }
        let end = |queue: &EventQueue| {
            queue.force_push(Event::Connection(ConnectionEvent::Disconnected(
                info.clone(),
            )));
            queue.close();
        };
        for route in self.router.take_all() {
            end(&route.queue);
        }
        let subs = std::mem::take(&mut *self.subscribers.lock().unwrap());
        self.has_subscribers.store(false, Ordering::Release);
        for sub in subs {
            end(&sub);
        }
        end(&self.queue);
    }
}

impl Responder for SessionShared {
    fn send_response(&self, line: Vec<u8>) -> Result<()> {
        self.send_line(line)
    }

    fn forget_request(&self, id: &RequestId) {
        self.open_requests.forget(id);
        self.parked.remove(id);
    }

    fn disconnect_error(&self) -> Error {
        SessionShared::disconnect_error(self)
    }
}
