//! The protocol-neutral connection, [`Client`], below the Codex and MCP clients (connect and
//! handshake, disconnect, state); requests
//! (`requests`), callbacks (`callbacks`) and pulling events (`pull`) are in child modules.

use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::{Arc, Mutex};

use crate::delivery::dispatch::{Dispatcher, Handlers};
use crate::delivery::readiness::Readiness;
use crate::delivery::Spin;
use crate::error::{DisconnectInfo, Error, Result};
use crate::options::{ClientOptions, Delivery};
use crate::rules::{First, Handshake, Negotiated, Opening, Outcome, Step};
use crate::session::{Session, SessionShared};

mod by_ref;
mod callbacks;
mod pull;
mod requests;
mod skill_sources;
mod view;
pub(crate) use view::{forward, protocol_view};

pub use crate::rules::handshake::InitializeResult;
pub use callbacks::HandlerSlot;

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

/// Aborts the connect of a [`Client::connect_async`] future dropped before the handshake
/// ended, as `disconnect()` would, without blocking the dropping thread: the slot is freed at
/// once and the session is shut down on the library's runtime (where dropping it does not
/// wait), which stops and reaps its server.
struct AbortConnectOnDrop<'a> {
    client: &'a Client,
    /// `None` once the connect has ended (disarmed).
    session: Option<Arc<Session>>,
}

impl Drop for AbortConnectOnDrop<'_> {
    fn drop(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        self.client.release_connect(&session);
        tracing::debug!("connect abandoned by its caller; aborting it");
        // The runtime exists (the session runs on it); should it fail anyway, the session is
        // dropped here, which shuts it down blocking.
        let _ = crate::rt::spawn_root(async move { session.shutdown_async().await });
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
    /// The client's process-unique random id: the owner of its server requests.
    id: Arc<str>,
    options: ClientOptions,
    handlers: Arc<Handlers>,
    /// What a layer above watches of each connection's events (a pool's endpoint), if any.
    tap: Option<Arc<dyn crate::session::tap::Tap>>,
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
    /// The MCP clients this client's turns take skills from, by label.
    skill_sources: skill_sources::SkillSources,
}

/// One connection to one server — a Codex app-server, `codex exec`, `codex mcp-server` or an
/// MCP server — and the engine under it: connect and reconnect, requests, handlers, events
/// and subscriptions. [`CodexClient`](crate::CodexClient) and [`McpClient`](crate::McpClient)
/// are the protocols' views of it (each forwards these methods; neither offers the other's).
/// Cheap to clone (clones share the connection).
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
/// [`events`](Self::events), or has the registered handlers run on its own thread with
/// [`dispatch_events`](Self::dispatch_events).
///
/// # Backpressure
/// At most `event_queue_capacity` undelivered events are held; then the reader stops reading
/// and the server blocks, and nothing is lost. A request made on a thread that delivers this
/// client's events (a callback, a thread pulling events) would wait for itself, so while one
/// is pending the reader reads ahead until the queued events add up to
/// [`ClientOptions::read_ahead_bytes`]; past that notifications are shed and an
/// [`ConnectionEvent::Overflow`](crate::ConnectionEvent::Overflow) event, queued as soon as there is room, says how many.
///
/// # Abandoning a call
/// A dropped [`connect_async`](Self::connect_async) future aborts the connect as
/// [`disconnect`](Self::disconnect) would (the server it started is stopped and reaped; the
/// client can connect again at once). A dropped request future gives the request up (see
/// [`request_raw`](Self::request_raw): `notifications/cancelled` for MCP, the late answer
/// discarded for Codex); [`cancel_request`](Self::cancel_request) does the same for a
/// [`send_request`](Self::send_request). Dropping a turn's stream or a `run_async` future
/// stops the wait, not the turn: it runs on until
/// [`TurnStream::interrupt`](crate::TurnStream::interrupt). A dropped
/// [`disconnect_async`](Self::disconnect_async) future does not stop the disconnect once
/// polled.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// Create a client. Nothing is started until [`connect`](Self::connect).
    pub fn new(options: ClientOptions) -> Client {
        Self::with_parts(options, Arc::new(Handlers::default()), None)
    }

    /// A client whose handler table is `handlers` (shared with other clients: a pool's
    /// endpoints share one) and whose connections report to `tap`.
    pub(crate) fn with_parts(
        options: ClientOptions,
        handlers: Arc<Handlers>,
        tap: Option<Arc<dyn crate::session::tap::Tap>>,
    ) -> Client {
        Client {
            inner: Arc::new(Inner {
                id: new_client_id(),
                handlers,
                tap,
                conn: Mutex::new(Slot::default()),
                current: Mutex::new(None),
                previous: Mutex::new(None),
                readiness: Mutex::new(None),
                spin: Arc::new(Spin::new(options.reply_spin)),
                skill_sources: Default::default(),
                options,
            }),
        }
    }

    /// The options this client was created with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// This client's id: 128 random bits in hex, made by [`new`](Self::new), the same for
    /// every clone and every connection. It is the owner of the client's server requests
    /// ([`RequestRef::owner`](crate::RequestRef::owner)): a reference answers only on the
    /// client whose id it names, and one made in another process never matches by accident.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The client's label (option `label`; `None`: none): what its events, its server-request
    /// and thread references and its log lines carry as their `endpoint`.
    pub fn label(&self) -> Option<&str> {
        self.inner.options.label.as_deref()
    }

    /// The MCP skill sources of this client (see [`Client::add_skill_source`]).
    pub(crate) fn skill_sources(&self) -> &skill_sources::SkillSources {
        &self.inner.skill_sources
    }

    /// A handle that does not keep the client alive: capture it in handlers registered on
    /// this client (see "What keeps a client alive").
    pub fn downgrade(&self) -> WeakClient {
        WeakClient {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// Spawn the server and run the handshake (blocking). Returns the `initialize` result.
    ///
    /// Errors: [`Error::AlreadyConnected`] when connected; spawn and handshake failures.
    pub fn connect(&self) -> Result<InitializeResult> {
        let (session, first) = self.begin_connect(false, None)?;
        let outcome = crate::delivery::block_on(Self::negotiate(&session, first), None);
        let (session, outcome) = match outcome {
            Negotiated::Done(outcome) => (session, outcome),
            Negotiated::Restart(why) => {
                session.shared.rules.restarting(&why);
                // The first server is reaped before the second starts.
                session.shutdown();
                let (next, first) = self.begin_connect(true, Some(&session))?;
                let outcome = match crate::delivery::block_on(Self::negotiate(&next, first), None) {
                    Negotiated::Done(o) => o,
                    Negotiated::Restart(_) => unreachable!("no second restart"),
                };
                let outcome = Self::after_restart(&next, outcome, &why);
                (next, outcome)
            }
        };
        self.finish_connect(session, outcome)
    }

    /// The protocol's negotiation of a connect's first step (see `Rules::negotiate`).
    async fn negotiate(session: &Arc<Session>, first: First) -> Negotiated {
        let h = HandshakeOn(session);
        session.shared.rules.negotiate(&h, first).await
    }

    /// The outcome of the handshake after a restart, as the protocol says.
    fn after_restart(session: &Arc<Session>, outcome: Outcome, why: &str) -> Outcome {
        let h = HandshakeOn(session);
        session.shared.rules.after_restart(&h, outcome, why)
    }

    /// Async form of [`connect`](Self::connect). Works on any executor; a failed connect
    /// waits for its server to exit without blocking the executor.
    ///
    /// # Cancellation
    /// Dropping the future before it completes (a `select!` or timeout that gives up, a
    /// cancelled task) aborts the connect as [`disconnect`](Self::disconnect) would: the
    /// handshake stops, a server the library started is stopped and reaped, and the client
    /// is at once ready for a new `connect()`. The drop does not block: the server's exit (at
    /// most its exit grace, then it is killed) completes on the library's runtime.
    pub async fn connect_async(&self) -> Result<InitializeResult> {
        let (session, first) = self.begin_connect(false, None)?;
        let mut abort = AbortConnectOnDrop {
            client: self,
            session: Some(session.clone()),
        };
        let (session, outcome) = match Self::negotiate(&session, first).await {
            Negotiated::Done(outcome) => (session, outcome),
            Negotiated::Restart(why) => {
                session.shared.rules.restarting(&why);
                session.shutdown_async().await;
                let (next, first) = self.begin_connect(true, Some(&session))?;
                abort.session = Some(next.clone());
                let outcome = match Self::negotiate(&next, first).await {
                    Negotiated::Done(o) => o,
                    Negotiated::Restart(_) => unreachable!("no second restart"),
                };
                let outcome = Self::after_restart(&next, outcome, &why);
                (next, outcome)
            }
        };
        let result = self.complete_handshake(&session, outcome);
        if result.is_err() {
            self.release_connect(&session);
            // Still armed: dropped during this wait, the shutdown goes on in the background.
            session.shutdown_async().await;
        }
        abort.session = None;
        result
    }

    /// Start the session (the transport opens on the runtime thread) and send what the
    /// protocol opens with (`Rules::opening`: the handshake request, or a probe; its deadline
    /// is the connect timeout, which bounds the opening and the handshake; nothing for a
    /// remembered verdict). `restarted` / `replacing`: the session of this connect whose
    /// server ended during the first step (already shut down): the new session takes its
    /// place in the slot, unless `disconnect()` ended the connect meanwhile.
    fn begin_connect(
        &self,
        restarted: bool,
        replacing: Option<&Arc<Session>>,
    ) -> Result<(Arc<Session>, First)> {
        self.options().validate()?;
        // Also in poll mode: handlers registered there run in `dispatch_events`.
        let handlers = Some(self.inner.handlers.clone());
        let session = {
            let mut slot = self.inner.conn.lock().unwrap();
            if let Some(old) = replacing {
                if !slot
                    .connecting
                    .as_ref()
                    .is_some_and(|s| Arc::ptr_eq(s, old))
                {
                    return Err(Error::Disconnected(DisconnectInfo {
                        reason: "connect aborted by disconnect()".into(),
                        stderr_tail: String::new(),
                    }));
                }
                slot.connecting = None;
            } else if slot.live.as_ref().is_some_and(|c| {
                let shared = &c.lock().unwrap().session.shared;
                shared.is_open() || shared.is_reconnecting()
            }) {
                return Err(Error::AlreadyConnected);
            } else if slot.connecting.is_some() {
                return Err(Error::InvalidState(
                    "a connect() of this client is already in progress".into(),
                ));
            }
            let session = Arc::new(Session::start(
                &self.inner.options,
                handlers,
                self.inner.tap.clone(),
                self.inner.id.clone(),
            )?);
            slot.connecting = Some(session.clone());
            session
        };
        let rules = session.shared.rules.clone();
        let (method, params) = match rules.opening(restarted) {
            Opening::Adopt => return Ok((session, First::Adopted)),
            Opening::Send(method, params) => (method, params),
        };
        let opts = session.shared.handshake_request_options();
        match session.shared.start_request(method, &params, opts, true) {
            Ok(rx) => Ok((session, First::Sent(method, rx))),
            Err(e) => {
                self.abandon_connect(&session);
                Err(e)
            }
        }
    }

    /// Stop a connect that failed and free the slot (unless `disconnect()` took it).
    fn abandon_connect(&self, session: &Arc<Session>) {
        self.release_connect(session);
        session.shutdown();
    }

    /// Free the slot of the connect of `session` (unless `disconnect()` took it): a new
    /// `connect()` may start. The caller stops the session.
    fn release_connect(&self, session: &Arc<Session>) {
        let mut slot = self.inner.conn.lock().unwrap();
        if slot
            .connecting
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, session))
        {
            // Not the last owner (the caller holds one): dropping it here does not block.
            slot.connecting = None;
        }
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
        // A stateless handshake's result was checked by the protocol's negotiation.
        let stateless = session.shared.rules.stateless();
        if !stateless {
            session.shared.rules.check_handshake(&value)?;
        }
        session.shared.rules.handshaken(&value, &*session.shared);
        session.shared.set_init_result(value.clone());
        let init = InitializeResult::from_value(value);
        if !stateless {
            session
                .shared
                .notify(session.shared.rules.initialized_method(), None)?;
        }
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

    /// [`disconnect`](Self::disconnect), telling whether there was anything to end: a
    /// connection (also one the server ended and no disconnect has ended yet) or a connect
    /// in progress. Of two concurrent calls, one gets `true`.
    pub fn end_connection(&self) -> bool {
        let (live, connecting) = self.take_connection();
        let had = live.is_some() || connecting.is_some();
        if let Some(s) = connecting {
            s.shutdown();
        }
        if let Some(c) = live {
            c.lock().unwrap().close();
        }
        had
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

    /// Process id of the spawned server of the current connection, or of the connect in
    /// progress once its server runs (`None` for remote transports).
    pub fn server_pid(&self) -> Option<u32> {
        // Read under the lock: a clone of the session could be its last owner.
        if let Some(s) = &self.inner.conn.lock().unwrap().connecting {
            return s.shared.pid();
        }
        self.session().and_then(|s| s.pid())
    }

    fn session(&self) -> Option<Arc<SessionShared>> {
        self.inner.current.lock().unwrap().clone()
    }

    pub(crate) fn live_session(&self) -> Result<Arc<SessionShared>> {
        self.session().ok_or(Error::NotConnected)
    }
}

/// A new client id: 128 bits from the system's random source (`ring`), in hex; a counter
/// would repeat across processes.
fn new_client_id() -> Arc<str> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    if ring::rand::SystemRandom::new().fill(&mut bytes).is_err() {
        // No system randomness (never seen on Linux): time, pid and a counter, mixed.
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mixed = t ^ ((std::process::id() as u128) << 64) ^ ((n as u128) << 96);
        bytes = mixed.to_le_bytes();
    }
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .into()
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

/// A `Client` is its own connection: a function that takes any view of a connection
/// (`impl AsRef<Client>`: a `Client`, a `CodexClient`, an `McpClient`) takes it as it is.
impl AsRef<Client> for Client {
    fn as_ref(&self) -> &Client {
        self
    }
}

/// The handshake of a connect on a session, as its protocol's negotiation sees it.
struct HandshakeOn<'s>(&'s Arc<Session>);

impl Handshake for HandshakeOn<'_> {
    fn request(
        &self,
        method: &'static str,
        params: &RawValue,
    ) -> Result<tokio::sync::oneshot::Receiver<Result<Box<RawValue>>>> {
        let shared = &self.0.shared;
        shared.start_request(method, params, shared.handshake_request_options(), true)
    }
    fn opened(&self) -> Step<'_, Result<()>> {
        Box::pin(self.0.shared.wait_link_opened())
    }
    fn link_opened(&self) -> bool {
        self.0.shared.link_opened()
    }
    fn is_closed(&self) -> bool {
        self.0.shared.is_closed()
    }
    fn disconnect_error(&self) -> Error {
        self.0.shared.disconnect_error()
    }
    fn stderr_tail(&self) -> String {
        self.0.shared.stderr_tail()
    }
}
