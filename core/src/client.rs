//! The public client: connect, requests, callbacks and the pull interface.

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::delivery::dispatch::{
    ConnectionHandler, Dispatcher, EventHandler, Handlers, NotificationHandler,
    ServerRequestHandler,
};
use crate::delivery::queue::EventQueue;
use crate::delivery::readiness::Readiness;
use crate::delivery::{wait_spinning, Spin};
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::{ConnectionEvent, Event, Notification, ServerRequest};
use crate::options::{ClientOptions, Delivery, Protocol, RequestOptions};
use crate::session::{Session, SessionShared};

mod mcp_shim;
mod routes;
pub use routes::HandlerSlot;

/// What the server said in answer to `initialize` (for an MCP server: `raw` holds its
/// `protocolVersion`, `capabilities`, `serverInfo` and `instructions`; see the accessors).
#[derive(Debug, Clone, PartialEq)]
pub struct InitializeResult {
    /// The server's user agent string (includes the Codex version).
    pub user_agent: Option<String>,
    /// The `CODEX_HOME` the server uses.
    pub codex_home: Option<String>,
    /// Platform family, for example `unix`.
    pub platform_family: Option<String>,
    /// Operating system, for example `linux`.
    pub platform_os: Option<String>,
    /// The whole result object, including fields this version does not know.
    pub raw: Value,
}

impl InitializeResult {
    /// The Codex version the app-server reports in its user agent (`0.169.0`), if any.
    pub fn codex_version(&self) -> Option<&str> {
        self.user_agent.as_deref().and_then(user_agent_version)
    }
    /// MCP: the protocol version the server chose.
    pub fn protocol_version(&self) -> Option<&str> {
        self.raw.get("protocolVersion").and_then(Value::as_str)
    }
    /// MCP: the server's capabilities (`tools`, `resources`, `prompts`, `logging`, …).
    pub fn capabilities(&self) -> Option<&Value> {
        self.raw.get("capabilities")
    }
    /// MCP: the server's capabilities, typed (`None` when absent or malformed).
    pub fn mcp_capabilities(&self) -> Option<crate::protocol::mcp::ServerCapabilities> {
        serde_json::from_value(self.capabilities()?.clone()).ok()
    }
    /// MCP: the server's `serverInfo` (`name`, `version`, …).
    pub fn server_info(&self) -> Option<&Value> {
        self.raw.get("serverInfo")
    }
    /// MCP: the server's usage instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.raw.get("instructions").and_then(Value::as_str)
    }

    fn from_value(raw: Value) -> Self {
        let s = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_owned);
        InitializeResult {
            user_agent: s("userAgent"),
            codex_home: s("codexHome"),
            platform_family: s("platformFamily"),
            platform_os: s("platformOs"),
            raw,
        }
    }
}

/// One connection of a client: the session and, in callback mode, its dispatch thread.
struct Connection {
    session: Arc<Session>,
    dispatcher: Option<Dispatcher>,
    init: InitializeResult,
}

impl Connection {
    fn close(&mut self) {
        if let Some(d) = &self.dispatcher {
            d.halt();
        }
        self.session.shutdown();
        if let Some(d) = &mut self.dispatcher {
            d.join();
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.close();
    }
}

/// The client's connection slot: the live connection, or the one being opened.
#[derive(Default)]
struct Slot {
    live: Option<Arc<Mutex<Connection>>>,
    /// A `connect()` in progress: `disconnect()` shuts it down, which ends the connect.
    connecting: Option<Arc<Session>>,
}

struct Inner {
    options: ClientOptions,
    handlers: Arc<Handlers>,
    conn: Mutex<Slot>,
    /// The session of the current connection, for the request fast path.
    current: Mutex<Option<Arc<SessionShared>>>,
    /// Poll mode: the last connection after `disconnect()`, whose remaining events (responses,
    /// the `Disconnected` event) can still be pulled until the next connect.
    previous: Mutex<Option<Arc<SessionShared>>>,
    /// Poll mode readiness descriptor, shared by every connection of this client.
    readiness: Mutex<Option<Arc<Readiness>>>,
    /// The spin of blocking waits for replies (adapts to how fast this server answers).
    spin: Arc<Spin>,
}

/// A client of one Codex server. Cheap to clone (clones share the connection).
///
/// Lifecycle is explicit: [`connect`](Self::connect) spawns the server, runs the
/// `initialize`/`initialized` handshake and returns the server's `initialize` result;
/// [`disconnect`](Self::disconnect) stops it. Dropping the last clone disconnects too.
///
/// # What keeps a client alive
/// Every `Client` clone, wherever it is: a clone captured by a handler registered on this
/// client keeps it (and its server) alive until [`disconnect`](Self::disconnect), since the
/// client owns its handlers. In a handler capture a [`WeakClient`]
/// ([`downgrade`](Self::downgrade)) instead; then dropping the last other clone disconnects.
/// Server requests, turn streams and threads hold the connection only while in use.
///
/// # Threads
/// The connection is a task on the library's one runtime, shared by every client of the
/// process ([`rt::WORKERS`](crate::rt::WORKERS) threads named `codex-client-rt`, started on
/// first use). In [`Delivery::Callbacks`] mode every callback of a client runs on one
/// library-owned dispatch thread (`codex-client-dispatch`), in arrival order; the thread is
/// one of a small pool shared by all clients
/// ([`DISPATCH_THREADS`](crate::delivery::DISPATCH_THREADS)), so a callback that
/// blocks holds up the other clients on that thread (unless
/// [`ClientOptions::dedicated_dispatch_thread`] gives this client a thread of its own). In
/// [`Delivery::Poll`] mode the user pulls events with [`next_event`](Self::next_event) or
/// [`events`](Self::events).
///
/// # Backpressure
/// At most `event_queue_capacity` undelivered events are held; then the reader stops reading
/// and the server blocks, and nothing is lost. A request made on a thread that delivers this
/// client's events (a callback, a thread pulling events) would wait for itself, so while one
/// is pending the reader reads ahead until the queued events add up to
/// [`ClientOptions::read_ahead_bytes`]; past that notifications are shed and an
/// [`ConnectionEvent::Overflow`] event, queued as soon as there is room, says how many.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// Create a client. Nothing is started until [`connect`](Self::connect).
    pub fn new(options: ClientOptions) -> Client {
        Client {
            inner: Arc::new(Inner {
                handlers: Arc::new(Handlers::default()),
                conn: Mutex::new(Slot::default()),
                current: Mutex::new(None),
                previous: Mutex::new(None),
                readiness: Mutex::new(None),
                spin: Arc::new(Spin::new(options.reply_spin)),
                options,
            }),
        }
    }

    /// The options this client was created with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// A handle that does not keep the client alive: capture it in handlers registered on
    /// this client (see "What keeps a client alive").
    pub fn downgrade(&self) -> WeakClient {
        WeakClient {
            inner: Arc::downgrade(&self.inner),
        }
    }

    fn initialize_params(&self) -> Box<RawValue> {
        let o = &self.inner.options;
        let mut info = serde_json::Map::new();
        info.insert("name".into(), o.client_name.clone().into());
        if let Some(t) = &o.client_title {
            info.insert("title".into(), t.clone().into());
        }
        info.insert("version".into(), o.client_version.clone().into());
        let params = if o.transport.protocol() == Protocol::Mcp {
            crate::protocol::mcp::initialize_params(info, o.mcp.capabilities.clone())
        } else {
            let mut caps = serde_json::Map::new();
            caps.insert("experimentalApi".into(), Value::Bool(o.experimental_api));
            if !o.opt_out_notification_methods.is_empty() {
                caps.insert(
                    "optOutNotificationMethods".into(),
                    o.opt_out_notification_methods.clone().into(),
                );
            }
            serde_json::json!({ "clientInfo": info, "capabilities": caps })
        };
        serde_json::value::to_raw_value(&params).expect("initialize params serialize")
    }

    /// Spawn the server and run the handshake (blocking). Returns the `initialize` result.
    ///
    /// Errors: [`Error::AlreadyConnected`] when connected; spawn and handshake failures.
    pub fn connect(&self) -> Result<InitializeResult> {
        let (session, rx) = self.begin_connect()?;
        let outcome = futures_executor::block_on(rx);
        self.finish_connect(session, outcome)
    }

    /// Async form of [`connect`](Self::connect). Works on any executor.
    pub async fn connect_async(&self) -> Result<InitializeResult> {
        let (session, rx) = self.begin_connect()?;
        let outcome = rx.await;
        self.finish_connect(session, outcome)
    }

    /// Start the session (the transport opens on the runtime thread) and send `initialize`,
    /// whose deadline is the connect timeout: it bounds the opening and the handshake.
    #[allow(clippy::type_complexity)]
    fn begin_connect(
        &self,
    ) -> Result<(
        Arc<Session>,
        tokio::sync::oneshot::Receiver<Result<Box<RawValue>>>,
    )> {
        let handlers = match self.inner.options.delivery {
            Delivery::Callbacks => Some(self.inner.handlers.clone()),
            Delivery::Poll => None,
        };
        let session = {
            let mut slot = self.inner.conn.lock().unwrap();
            if slot.live.as_ref().is_some_and(|c| {
                let shared = &c.lock().unwrap().session.shared;
                shared.is_open() || shared.is_reconnecting()
            }) {
                return Err(Error::AlreadyConnected);
            }
            if slot.connecting.is_some() {
                return Err(Error::InvalidState(
                    "a connect() of this client is already in progress".into(),
                ));
            }
            // The mcp transport's shim drives an internal `Client`; the transport layer gets
            // it from here (it cannot name it without an import loop).
            crate::transport::shim::provide_mcp(mcp_shim::McpShim::create);
            let session = Arc::new(Session::start(&self.inner.options, handlers)?);
            slot.connecting = Some(session.clone());
            session
        };
        let opts = RequestOptions {
            timeout: Some(self.inner.options.connect_timeout),
            retry: Some(crate::RetryPolicy::none()),
            read_ahead: Some(false),
        };
        let params = self.initialize_params();
        session.shared.set_init_params(&params);
        match session
            .shared
            .start_request("initialize", &params, opts, true)
        {
            Ok(rx) => Ok((session, rx)),
            Err(e) => {
                self.abandon_connect(&session);
                Err(e)
            }
        }
    }

    /// Stop a connect that failed and free the slot (unless `disconnect()` took it).
    fn abandon_connect(&self, session: &Arc<Session>) {
        {
            let mut slot = self.inner.conn.lock().unwrap();
            if slot
                .connecting
                .as_ref()
                .is_some_and(|s| Arc::ptr_eq(s, session))
            {
                slot.connecting = None;
            }
        }
        session.shutdown();
    }

    fn finish_connect(
        &self,
        session: Arc<Session>,
        outcome: std::result::Result<Result<Box<RawValue>>, tokio::sync::oneshot::error::RecvError>,
    ) -> Result<InitializeResult> {
        let result = self.complete_handshake(&session, outcome);
        if result.is_err() {
            self.abandon_connect(&session);
        }
        result
    }

    fn complete_handshake(
        &self,
        session: &Arc<Session>,
        outcome: std::result::Result<Result<Box<RawValue>>, tokio::sync::oneshot::error::RecvError>,
    ) -> Result<InitializeResult> {
        let raw = match outcome {
            Ok(Ok(raw)) => raw,
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(session.shared.disconnect_error()),
        };
        let value: Value = serde_json::from_str(raw.get())
            .map_err(|e| Error::Protocol(format!("bad initialize result: {e}")))?;
        if !value.is_object() {
            return Err(Error::Protocol(format!(
                "initialize result is not an object: {value}"
            )));
        }
        let mcp = self.inner.options.transport.protocol() == Protocol::Mcp;
        if mcp {
            crate::protocol::mcp::check_initialize(&value)?;
        } else if !matches!(
            self.inner.options.transport,
            crate::options::TransportKind::Exec(_) | crate::options::TransportKind::Mcp
        ) {
            // A real app-server (the exec and mcp shims answer for themselves).
            warn_on_other_version(value.get("userAgent").and_then(Value::as_str));
        }
        session.shared.set_init_result(value.clone());
        let init = InitializeResult::from_value(value);
        session.shared.notify(
            if mcp {
                "notifications/initialized"
            } else {
                "initialized"
            },
            None,
        )?;
        session.shared.mark_open();
        let dispatcher = match self.inner.options.delivery {
            Delivery::Callbacks => Some(
                Dispatcher::start(
                    session.shared.queue.clone(),
                    self.inner.handlers.clone(),
                    self.inner.options.dedicated_dispatch_thread,
                )
                .map_err(|e| {
                    Error::Transport(format!("could not start the dispatch thread: {e}"))
                })?,
            ),
            Delivery::Poll => None,
        };
        if let Some(r) = self.inner.readiness.lock().unwrap().clone() {
            session.shared.queue.set_readiness(Some(r));
        }
        let mut slot = self.inner.conn.lock().unwrap();
        if !slot
            .connecting
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, session))
        {
            // disconnect() ran meanwhile: it has shut this session down.
            drop(slot);
            drop(dispatcher);
            return Err(Error::Disconnected(DisconnectInfo {
                reason: "connect aborted by disconnect()".into(),
                stderr_tail: String::new(),
            }));
        }
        slot.connecting = None;
        let conn = Connection {
            session: session.clone(),
            dispatcher,
            init: init.clone(),
        };
        let old = slot.live.replace(Arc::new(Mutex::new(conn)));
        *self.inner.current.lock().unwrap() = Some(session.shared.clone());
        *self.inner.previous.lock().unwrap() = None;
        drop(slot);
        drop(old);
        Ok(init)
    }

    /// Stop the server and end the connection, or abort a `connect()` in progress (it then
    /// fails with [`Error::Disconnected`]). Every pending request fails with
    /// [`Error::Disconnected`]. Idempotent. After it returns no callback runs again (when
    /// called from a callback on this client's dispatch thread, its own or another client's
    /// sharing the thread, the current callback is the last but for responses, delivered after
    /// it) and the server process is reaped (except when called on a thread of the library's
    /// runtime, which must not block: there the connection ends on its own).
    pub fn disconnect(&self) {
        self.end_connection();
    }

    /// Async form of [`disconnect`](Self::disconnect): the wait for the server to exit (up to
    /// its exit grace) does not block the executor. Works on any executor. The last step
    /// joins the dispatch thread, which waits for a callback still running.
    pub async fn disconnect_async(&self) {
        let (live, connecting) = self.take_connection();
        if let Some(s) = connecting {
            s.shutdown_async().await;
        }
        if let Some(c) = live {
            let session = {
                let conn = c.lock().unwrap();
                if let Some(d) = &conn.dispatcher {
                    d.halt();
                }
                conn.session.clone()
            };
            session.shutdown_async().await;
            c.lock().unwrap().close();
        }
    }

    /// Empty the connection slot (the caller stops what it held).
    #[allow(clippy::type_complexity)]
    fn take_connection(&self) -> (Option<Arc<Mutex<Connection>>>, Option<Arc<Session>>) {
        let taken = {
            let mut slot = self.inner.conn.lock().unwrap();
            (slot.live.take(), slot.connecting.take())
        };
        let last = self.inner.current.lock().unwrap().take();
        if self.inner.options.delivery == Delivery::Poll {
            *self.inner.previous.lock().unwrap() = last;
        }
        taken
    }

    /// Whether the client is connected (handshake done, server alive).
    pub fn is_connected(&self) -> bool {
        self.session().is_some_and(|s| s.is_open())
    }

    /// Whether the connection dropped and the client is reconnecting
    /// ([`ClientOptions::reconnect`]): requests made now wait for the rejoin (within their
    /// timeout).
    pub fn is_reconnecting(&self) -> bool {
        self.session().is_some_and(|s| s.is_reconnecting())
    }

    /// The `initialize` result of the current connection (after a reconnect, the new one).
    pub fn initialize_result(&self) -> Option<InitializeResult> {
        let live = self.inner.conn.lock().unwrap().live.clone()?;
        let conn = live.lock().unwrap();
        Some(
            conn.session
                .shared
                .init_result()
                .map(InitializeResult::from_value)
                .unwrap_or_else(|| conn.init.clone()),
        )
    }

    /// The last bytes the server wrote to stderr (empty when never connected).
    pub fn stderr_tail(&self) -> String {
        self.session().map(|s| s.stderr_tail()).unwrap_or_default()
    }

    /// Process id of the spawned server of the current connection.
    pub fn server_pid(&self) -> Option<u32> {
        self.session().and_then(|s| s.pid())
    }

    fn session(&self) -> Option<Arc<SessionShared>> {
        self.inner.current.lock().unwrap().clone()
    }

    pub(crate) fn live_session(&self) -> Result<Arc<SessionShared>> {
        self.session().ok_or(Error::NotConnected)
    }

    /// Send a request with raw JSON params and await the raw JSON result.
    pub async fn request_raw(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let session = self.live_session()?;
        let (id, rx) = session.start_tracked(method, params, opts, false)?;
        // Dropped before the answer (the caller's future was cancelled): give the request up.
        let mut guard = AbandonOnDrop(Some((session.clone(), id)));
        let outcome = rx.await;
        // Answered: disarm (not `mem::forget`, which would leak the session it holds).
        guard.0 = None;
        outcome.unwrap_or_else(|_| Err(session.disconnect_error()))
    }

    /// Blocking form of [`request_raw`](Self::request_raw).
    pub fn request_raw_blocking(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let session = self.live_session()?;
        let rx = session.start_request(method, params, opts, false)?;
        self.wait_reply(rx)
            .unwrap_or_else(|_| Err(session.disconnect_error()))
    }

    /// Block on a reply, spinning first as [`reply_spin`](ClientOptions::reply_spin) allows.
    fn wait_reply<F: std::future::Future>(&self, fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        loop {
            // The reply always comes (correlation bounds every request); the deadline only
            // re-arms the wait.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3600);
            if let Some(v) = wait_spinning(fut.as_mut(), deadline, &self.inner.spin) {
                return v;
            }
        }
    }

    /// The spin of this client's blocking waits for replies, for a binding's own blocking
    /// waits (see [`wait_spinning`]).
    pub fn reply_spin(&self) -> Arc<Spin> {
        self.inner.spin.clone()
    }

    /// Send a request and await its result. `Value::Null` params are sent as `{}`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value> {
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    /// [`request`](Self::request) with per-request options (timeout, retry).
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<Value> {
        let raw = self.request_raw(method, &to_params(params)?, opts).await?;
        parse_result(&raw)
    }

    /// Blocking form of [`request`](Self::request).
    pub fn request_blocking(&self, method: &str, params: Value) -> Result<Value> {
        self.request_blocking_with(method, params, RequestOptions::default())
    }

    /// Blocking form of [`request_with`](Self::request_with).
    pub fn request_blocking_with(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<Value> {
        let raw = self.request_raw_blocking(method, &to_params(params)?, opts)?;
        parse_result(&raw)
    }

    /// Send a client notification (no response).
    pub fn notify(&self, method: &str, params: Value) -> Result<()> {
        let session = self.live_session()?;
        if !session.is_open() && !session.is_reconnecting() {
            return Err(if session.is_closed() {
                session.disconnect_error()
            } else {
                Error::NotConnected
            });
        }
        session.notify(method, Some(&to_params(params)?))
    }

    /// The client's handler table.
    pub(crate) fn handlers(&self) -> &Arc<Handlers> {
        &self.inner.handlers
    }

    pub(crate) fn check_callbacks_mode(&self) -> Result<()> {
        match self.inner.options.delivery {
            Delivery::Callbacks => Ok(()),
            Delivery::Poll => Err(Error::InvalidState(
                "client uses poll delivery; callbacks cannot be registered".into(),
            )),
        }
    }

    /// Register the notification callback (replaces the previous one). Runs on the dispatch
    /// thread. Errors in poll mode.
    pub fn on_notification(&self, f: impl Fn(&Notification) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.notification.write().unwrap() =
            Some(Arc::new(f) as NotificationHandler);
        Ok(())
    }

    /// Register the server-request callback (replaces the previous one). It owns the request
    /// and may answer it later from any thread. Without one, requests are answered
    /// fail-closed (approvals declined). Errors in poll mode.
    pub fn on_server_request(
        &self,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.server_request.write().unwrap() =
            Some(Arc::new(f) as ServerRequestHandler);
        Ok(())
    }

    /// Send a request without waiting: its outcome arrives as one [`Event::Response`]
    /// carrying `token` (callbacks: the [`on_event`](Self::on_event) handler on the dispatch
    /// thread; poll: `next_event`/`events()`). Responses go ahead of waiting events and every
    /// such request gets exactly one (the result, an RPC error, the timeout or the
    /// disconnect), before the connection's `Disconnected` event. Errors (not connected, bad
    /// arguments) are returned at once and produce no event.
    pub fn send_request(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        token: u64,
    ) -> Result<()> {
        let session = self.live_session()?;
        session
            .send_request(
                method,
                params,
                opts,
                false,
                crate::correlation::Reply::Event(token, None),
            )
            .map(drop)
    }

    /// Cancel a request sent with [`send_request`](Self::send_request) that has not been
    /// answered: its [`Event::Response`] comes at once with [`Error::Cancelled`], and an MCP
    /// server is told (`notifications/cancelled`). False when no request with `token` is
    /// pending.
    pub fn cancel_request(&self, token: u64) -> bool {
        self.session().is_some_and(|s| s.cancel_token(token))
    }

    /// Register one handler that takes every event, owned, on the dispatch thread, instead
    /// of every other handler (none of them is called while it is set). For a binding that
    /// turns core events into its own representation. A server request it drops unanswered
    /// is answered fail-closed. Errors in poll mode.
    pub fn on_event(&self, f: impl Fn(Event) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.any.write().unwrap() = Some(Arc::new(f) as EventHandler);
        Ok(())
    }

    /// Register the connection-event callback (errors, overflow, disconnect). Errors in poll mode.
    pub fn on_connection_event(
        &self,
        f: impl Fn(&ConnectionEvent) + Send + Sync + 'static,
    ) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.connection.write().unwrap() = Some(Arc::new(f) as ConnectionHandler);
        Ok(())
    }

    fn poll_queue(&self) -> Result<(Arc<SessionShared>, Arc<EventQueue>)> {
        if self.inner.options.delivery != Delivery::Poll {
            return Err(Error::InvalidState(
                "client uses callback delivery; use Delivery::Poll to pull events".into(),
            ));
        }
        let s = match self.session() {
            Some(s) => s,
            None => self
                .inner
                .previous
                .lock()
                .unwrap()
                .clone()
                .ok_or(Error::NotConnected)?,
        };
        let q = s.queue.clone();
        Ok((s, q))
    }

    /// Poll mode: wait up to `timeout` (`None` = forever) for the next event. `Ok(None)` means
    /// the timeout passed. After the `Disconnected` event the next call returns the
    /// disconnect error. After `disconnect()` the connection's last events (responses to
    /// [`send_request`](Self::send_request), `Disconnected`) can still be pulled; before any
    /// connect it returns [`Error::NotConnected`].
    pub fn next_event(&self, timeout: Option<Duration>) -> Result<Option<Event>> {
        let (s, q) = self.poll_queue()?;
        let mut out = Vec::with_capacity(1);
        if q.wait_drain(&mut out, 1, timeout) {
            Ok(out.pop())
        } else {
            Err(s.disconnect_error())
        }
    }

    /// Poll mode: move up to `max` waiting events into `out`, waiting up to `timeout` for the
    /// first. Returns `false` once the connection's events are exhausted.
    pub fn next_events(
        &self,
        out: &mut Vec<Event>,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<bool> {
        let (_, q) = self.poll_queue()?;
        Ok(q.wait_drain(out, max.max(1), timeout))
    }

    /// Poll mode: a file descriptor that is readable exactly while events are waiting (or
    /// the connection has ended and its last events are unread). Watch it with
    /// `poll`/`epoll`/`enif_select`, then drain with `next_event(Some(Duration::ZERO))` until it
    /// returns `Ok(None)`. The descriptor is owned by the client, stays the same across
    /// reconnects and is closed when the client is dropped.
    pub fn event_fd(&self) -> Result<std::os::fd::RawFd> {
        if self.inner.options.delivery != Delivery::Poll {
            return Err(Error::InvalidState("event_fd needs Delivery::Poll".into()));
        }
        let mut slot = self.inner.readiness.lock().unwrap();
        if let Some(r) = &*slot {
            return Ok(r.fd());
        }
        let r = Arc::new(
            Readiness::new()
                .map_err(|e| Error::Transport(format!("could not create the event fd: {e}")))?,
        );
        if let Some(s) = self.session() {
            s.queue.set_readiness(Some(r.clone()));
        }
        let fd = r.fd();
        *slot = Some(r);
        Ok(fd)
    }

    /// Poll mode: an async stream of this connection's events, ending after `Disconnected`.
    pub fn events(&self) -> Result<EventStream> {
        let (_, q) = self.poll_queue()?;
        Ok(EventStream::new(q, false))
    }

    /// A subscription to this connection's notifications (those not routed to a turn stream)
    /// and connection events, in either delivery mode, beside the client's own delivery: each
    /// subscription gets its own copy, holds up to `event_queue_capacity` of them (then the
    /// reader waits for it, like for the main queue), and ends after `Disconnected`.
    /// Dropping it unsubscribes. Server requests and responses never go to subscriptions.
    pub fn subscribe(&self) -> Result<EventStream> {
        let session = self.live_session()?;
        Ok(EventStream::new(session.subscribe(), true))
    }
}

/// The Codex version in an app-server user agent (`codex_cli_rs/0.169.0 (Debian …) …`: the
/// text after the first `/` up to the first space).
fn user_agent_version(user_agent: &str) -> Option<&str> {
    let rest = user_agent.split_once('/')?.1;
    Some(rest.split(' ').next().unwrap_or(rest)).filter(|v| !v.is_empty())
}

/// Log one warning when the server is not the Codex version the typed protocol was generated
/// from: what it added is kept raw, what it removed fails as the server says.
fn warn_on_other_version(user_agent: Option<&str>) {
    let vendored = crate::protocol::SCHEMA_CODEX_VERSION;
    match user_agent.and_then(user_agent_version) {
        Some(v) if v == vendored => {}
        Some(v) => tracing::warn!(
            server = v,
            vendored,
            "the server is Codex {v}, the library's protocol types are from Codex {vendored}: \
             methods, fields and variants it does not know are kept raw (typed accessors give \
             Unknown); `codex-client compat` (codex_client::compat::report) lists the differences"
        ),
        None => tracing::warn!(
            vendored,
            "the server did not say its Codex version (userAgent); the library's protocol types \
             are from Codex {vendored}"
        ),
    }
}

/// Gives a request up when the future awaiting it is dropped before the answer.
struct AbandonOnDrop(Option<(Arc<SessionShared>, i64)>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        if let Some((session, id)) = self.0.take() {
            session.abandon(id);
        }
    }
}

fn to_params(params: Value) -> Result<Box<RawValue>> {
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    serde_json::value::to_raw_value(&params).map_err(|e| Error::InvalidArgument(e.to_string()))
}

fn parse_result(raw: &RawValue) -> Result<Value> {
    serde_json::from_str(raw.get()).map_err(|e| Error::Protocol(format!("bad result JSON: {e}")))
}

type BatchFuture = Pin<Box<dyn Future<Output = (bool, Vec<Event>)> + Send>>;

/// A stream of events: the client's own in poll mode ([`Client::events`]), or a
/// subscription ([`Client::subscribe`]). An async `Stream`, or pull it blocking with
/// [`next_blocking`](Self::next_blocking). Cancellation-safe: dropping the client's stream
/// loses no event (events it had taken but not yet yielded go back to the front of the
/// client's queue); dropping a subscription ends it.
pub struct EventStream {
    queue: Arc<EventQueue>,
    buf: VecDeque<Event>,
    fut: Option<BatchFuture>,
    done: bool,
    /// A subscription: its queue is its own.
    owned: bool,
}

impl EventStream {
    fn new(queue: Arc<EventQueue>, owned: bool) -> EventStream {
        EventStream {
            queue,
            buf: VecDeque::new(),
            fut: None,
            done: false,
            owned,
        }
    }

    /// Wait up to `timeout` (`None` = forever) for events and move up to `max` of them into
    /// `out`. Returns `false` once the stream has ended (after `Disconnected`).
    pub fn next_blocking(
        &mut self,
        out: &mut Vec<Event>,
        max: usize,
        timeout: Option<Duration>,
    ) -> bool {
        let max = max.max(1);
        if !self.buf.is_empty() {
            let n = self.buf.len().min(max);
            out.extend(self.buf.drain(..n));
            return true;
        }
        if self.done || self.fut.is_some() {
            // An async poll is under way: the events it takes come through it.
            return !self.done;
        }
        let more = self.queue.wait_drain(out, max, timeout);
        self.done = !more;
        more
    }
}

impl EventStream {
    /// Take what is queued now, without waiting: events pushed but whose wake-up the reader
    /// has not sent yet included (an async poll under way is dropped; it holds no event).
    pub(crate) fn take_ready(&mut self) -> Vec<Event> {
        self.fut = None;
        let mut out: Vec<Event> = self.buf.drain(..).collect();
        if !self.done {
            self.done = !self.queue.drain_into(&mut out, usize::MAX);
        }
        out
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        if self.owned {
            self.queue.close();
        } else if !self.buf.is_empty() {
            self.queue.give_back(self.buf.drain(..));
        }
    }
}

/// A [`Client`] handle that does not keep the client alive ([`Client::downgrade`]).
#[derive(Clone)]
pub struct WeakClient {
    inner: std::sync::Weak<Inner>,
}

impl WeakClient {
    /// The client, while some `Client` clone still exists.
    pub fn upgrade(&self) -> Option<Client> {
        self.inner.upgrade().map(|inner| Client { inner })
    }
}

impl futures_core::Stream for EventStream {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        loop {
            if let Some(ev) = self.buf.pop_front() {
                return Poll::Ready(Some(ev));
            }
            if self.done {
                return Poll::Ready(None);
            }
            if self.fut.is_none() {
                let q = self.queue.clone();
                self.fut = Some(Box::pin(async move {
                    let mut v = Vec::new();
                    let more = q.next_batch(&mut v, 1024).await;
                    (more, v)
                }));
            }
            let fut = self.fut.as_mut().expect("set above");
            match fut.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready((more, v)) => {
                    self.fut = None;
                    self.done = !more;
                    self.buf.extend(v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tracing_subscriber::layer::SubscriberExt;

    struct CountWarnings(Arc<AtomicUsize>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for CountWarnings {
        fn on_event(&self, e: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
            if *e.metadata().level() == tracing::Level::WARN {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn warnings(user_agent: Option<&str>) -> usize {
        let n = Arc::new(AtomicUsize::new(0));
        let subscriber = tracing_subscriber::registry().with(CountWarnings(n.clone()));
        tracing::subscriber::with_default(subscriber, || warn_on_other_version(user_agent));
        n.load(Ordering::Relaxed)
    }

    #[test]
    fn one_warning_when_the_server_is_another_codex_version() {
        let ours = format!(
            "codex_cli_rs/{} (Debian 12.0.0; x86_64) xterm (tests; 0)",
            crate::protocol::SCHEMA_CODEX_VERSION
        );
        assert_eq!(
            user_agent_version(&ours),
            Some(crate::protocol::SCHEMA_CODEX_VERSION)
        );
        assert_eq!(warnings(Some(&ours)), 0);
        assert_eq!(warnings(Some("codex_cli_rs/0.92.0 (Linux)")), 1);
        assert_eq!(warnings(Some("fake/0.0.0")), 1);
        assert_eq!(warnings(None), 1);
        assert_eq!(user_agent_version("noslash"), None);
    }
}
