//! [`Pool`]: many Codex app-servers (endpoints) behind one handle — client-side balancing,
//! not a scheduler. A new thread goes to the least busy healthy endpoint with capacity;
//! every later call of the thread goes to the endpoint that holds it (the [`Thread`] handle
//! is bound to that endpoint's client); `thread/start` refused as overloaded tries another
//! endpoint within the placement bound; endpoints are added, drained and removed while
//! threads run; a lost endpoint's running turns end with an error, and its threads can be
//! resumed on an endpoint that shares its `CODEX_HOME`.
//!
//! Each endpoint is an ordinary [`CodexClient`] made from its own
//! [`ClientOptions`] (stdio, `ws://`/`wss://` with either auth mode, `unix://`: anything a
//! client connects to), so one client on one endpoint and a pool are built from the same
//! parts. The endpoints share one handler table (handlers registered on the pool serve every
//! endpoint, now and later) and the library's threads: a pool of 64 endpoints runs on the
//! same runtime and dispatch threads as one client.
//!
//! ```no_run
//! use codex_client::{ClientOptions, EndpointOptions, Pool, PoolOptions};
//! let pool = Pool::new(PoolOptions::default().max_running_turns(8));
//! for (name, url) in [("a", "ws://10.0.0.1:4500"), ("b", "ws://10.0.0.2:4500")] {
//!     let options = ClientOptions::default().websocket(url, Some("token".into()));
//!     pool.add_endpoint(name, options, EndpointOptions::default()).unwrap();
//! }
//! let thread = pool.thread_start(serde_json::json!({})).unwrap();
//! println!("{} on {:?}", thread.id(), pool.endpoint_of(thread.id()));
//! let result = thread.run("Say hello").unwrap();
//! println!("{:?}", result.final_response);
//! ```

mod endpoint;
mod events;
pub mod options;
mod place;
mod status;

use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::codex::thread::thread_from;
use crate::codex::thread::{Helper, Thread};
use crate::codex::CodexClient;
use crate::connection::{Client, HandlerSlot, InitializeResult};
use crate::delivery::dispatch::Handlers;
use crate::delivery::merge::Merge;
use crate::error::{Error, Result};
use crate::event::{ConnectionEvent, Notification, ServerRequest};
#[cfg(doc)]
use crate::options::Delivery;
use crate::options::{ClientOptions, Protocol, RequestOptions, RetryPolicy};
use endpoint::{Endpoint, Load, Watch, ACTIVE, DRAINING, REMOVED};
pub use events::{PoolEvent, PoolEvents};
pub use options::{EndpointOptions, PoolKey, PoolOptions, ENDPOINT_KEYS, POOL_KEYS};
pub use status::EndpointStatus;

/// A pool of Codex app-servers. Cheap to clone (clones share the pool); dropping the last
/// clone closes it (every endpoint disconnected). See the [module docs](self).
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    options: PoolOptions,
    /// The handler table every endpoint's client shares.
    handlers: Arc<Handlers>,
    /// A client never connected, over the shared table: where handlers are registered.
    template: CodexClient,
    state: Mutex<State>,
    /// Capacity or health changed somewhere (a turn ended, an endpoint was lost or came
    /// back, one was added): placement waiting for capacity looks again.
    changed: Arc<tokio::sync::Notify>,
    /// Placements made, for the tie-break rotation.
    placements: AtomicU64,
    /// Reservations not yet keyed by a thread id.
    pending: AtomicU64,
}

#[derive(Default)]
struct State {
    endpoints: Vec<Arc<Endpoint>>,
    /// Names being connected by `add_endpoint` (reserved against a duplicate).
    adding: Vec<String>,
    /// Where each thread the pool placed or resumed lives, and the params it started with.
    threads: HashMap<String, Placed>,
    /// The subscriptions ([`Pool::subscribe`]) that new endpoints join.
    merges: Vec<Weak<Merge>>,
    closed: bool,
}

struct Placed {
    endpoint: Arc<str>,
    params: Value,
    /// The endpoint's `shared_home` (kept here: the endpoint may leave the pool).
    shared_home: Option<String>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let (endpoints, merges) = {
            let st = self.state.get_mut().unwrap();
            st.closed = true;
            (
                std::mem::take(&mut st.endpoints),
                std::mem::take(&mut st.merges),
            )
        };
        close_all(endpoints, merges);
    }
}

fn close_all(endpoints: Vec<Arc<Endpoint>>, merges: Vec<Weak<Merge>>) {
    for ep in endpoints {
        ep.phase.store(REMOVED, Ordering::Release);
        ep.client.disconnect();
    }
    for m in merges.iter().filter_map(Weak::upgrade) {
        m.close();
    }
}

fn kind_may_move(e: &Error) -> bool {
    matches!(
        e,
        Error::Overloaded { .. }
            | Error::Disconnected(_)
            | Error::ConnectionLost(_)
            | Error::NotConnected
            | Error::Transport(_)
    )
}

impl Pool {
    /// An empty pool; add endpoints with [`add_endpoint`](Self::add_endpoint).
    pub fn new(options: PoolOptions) -> Pool {
        let handlers = Arc::new(Handlers::default());
        let template = CodexClient::from(Client::with_parts(
            ClientOptions::default(),
            handlers.clone(),
            None,
        ));
        Pool {
            inner: Arc::new(Inner {
                options,
                handlers,
                template,
                state: Mutex::new(State::default()),
                changed: Arc::new(tokio::sync::Notify::new()),
                placements: AtomicU64::new(0),
                pending: AtomicU64::new(0),
            }),
        }
    }

    /// The pool's options.
    pub fn options(&self) -> &PoolOptions {
        &self.inner.options
    }

    /// Connect to a new endpoint and let it take threads (blocking: the endpoint's
    /// `connect_timeout` bounds it). `name` is how every status, event and error names it.
    /// Refused: an empty or duplicate name, options of an MCP server, a closed pool. In
    /// [`Delivery::Poll`] each endpoint's client delivers through its own queue (a binding
    /// drains each, as for one client); in callbacks mode the shared handlers run on the
    /// library's dispatch threads. [`subscribe`](Self::subscribe) works in both.
    pub fn add_endpoint(
        &self,
        name: &str,
        options: ClientOptions,
        endpoint: EndpointOptions,
    ) -> Result<InitializeResult> {
        crate::delivery::block_on(self.add_endpoint_async(name, options, endpoint), None)
    }

    /// Async form of [`add_endpoint`](Self::add_endpoint).
    pub async fn add_endpoint_async(
        &self,
        name: &str,
        options: ClientOptions,
        endpoint: EndpointOptions,
    ) -> Result<InitializeResult> {
        if name.trim().is_empty() {
            return Err(Error::InvalidArgument(
                "an endpoint needs a non-empty name".into(),
            ));
        }
        if options.transport.protocol() != Protocol::AppServer {
            return Err(Error::InvalidArgument(format!(
                "endpoint `{name}`: a pool holds Codex app-servers; {} is not one",
                options.transport.describe()
            )));
        }
        {
            let mut st = self.inner.state.lock().unwrap();
            if st.closed {
                return Err(Error::InvalidState("the pool is closed".into()));
            }
            if st.adding.iter().any(|n| n == name) || st.endpoints.iter().any(|e| &*e.name == name)
            {
                return Err(Error::InvalidArgument(format!(
                    "endpoint `{name}` is already in the pool"
                )));
            }
            st.adding.push(name.to_owned());
        }
        let outcome = self.connect_endpoint(name, options, endpoint).await;
        let joined = {
            let mut st = self.inner.state.lock().unwrap();
            st.adding.retain(|n| n != name);
            match &outcome {
                Ok((ep, _)) if !st.closed => {
                    st.merges.retain(|m| m.strong_count() > 0);
                    for m in st.merges.iter().filter_map(Weak::upgrade) {
                        if let Ok(q) = ep.client.connection().subscribe_queue() {
                            m.add(ep.name.clone(), q);
                        }
                    }
                    st.endpoints.push(ep.clone());
                    true
                }
                _ => false,
            }
        };
        let (ep, init) = outcome?;
        if !joined {
            ep.client.disconnect_async().await;
            return Err(Error::InvalidState("the pool is closed".into()));
        }
        tracing::info!(endpoint = name, target = %ep.client.options().transport.describe(), "endpoint added to the pool");
        self.inner.changed.notify_waiters();
        Ok(init)
    }

    async fn connect_endpoint(
        &self,
        name: &str,
        options: ClientOptions,
        endpoint: EndpointOptions,
    ) -> Result<(Arc<Endpoint>, InitializeResult)> {
        let watch = Arc::new(Watch {
            load: Mutex::new(Load::default()),
            changed: self.inner.changed.clone(),
        });
        // The endpoint's client is named after it: its events, server requests, thread
        // references and errors say which endpoint they belong to.
        let options = options.label(name);
        let client = CodexClient::from(Client::with_parts(
            options,
            self.inner.handlers.clone(),
            Some(watch.clone()),
        ));
        let init = client.connect_async().await.map_err(|e| {
            tracing::warn!(endpoint = name, error = %e, "endpoint could not be added");
            e
        })?;
        let ep = Arc::new(Endpoint {
            name: name.into(),
            client,
            limit: endpoint
                .max_running_turns
                .unwrap_or(self.inner.options.max_running_turns),
            shared_home: endpoint.shared_home,
            watch,
            phase: AtomicU8::new(ACTIVE),
        });
        Ok((ep, init))
    }

    fn find(&self, name: &str) -> Result<Arc<Endpoint>> {
        let st = self.inner.state.lock().unwrap();
        st.endpoints
            .iter()
            .find(|e| &*e.name == name)
            .cloned()
            .ok_or_else(|| unknown_endpoint(name, &st.endpoints))
    }

    /// Take endpoint `name` out now: it takes no new thread and is disconnected at once (its
    /// running turns end with the disconnect error). Its threads stay known to the pool
    /// ([`threads_on`](Self::threads_on), [`resume_elsewhere`](Self::resume_elsewhere)).
    pub fn remove_endpoint(&self, name: &str) -> Result<()> {
        let ep = self.take_out(name)?;
        ep.client.disconnect();
        tracing::info!(endpoint = name, "endpoint removed from the pool");
        Ok(())
    }

    /// Async form of [`remove_endpoint`](Self::remove_endpoint).
    pub async fn remove_endpoint_async(&self, name: &str) -> Result<()> {
        let ep = self.take_out(name)?;
        ep.client.disconnect_async().await;
        tracing::info!(endpoint = name, "endpoint removed from the pool");
        Ok(())
    }

    fn take_out(&self, name: &str) -> Result<Arc<Endpoint>> {
        let mut st = self.inner.state.lock().unwrap();
        let i = st
            .endpoints
            .iter()
            .position(|e| &*e.name == name)
            .ok_or_else(|| unknown_endpoint(name, &st.endpoints))?;
        let ep = st.endpoints.remove(i);
        ep.phase.store(REMOVED, Ordering::Release);
        drop(st);
        self.inner.changed.notify_waiters();
        Ok(ep)
    }

    /// Drain endpoint `name`: it takes no new thread from now on, and once no turn runs on it
    /// (and no thread placed on it waits for its first turn) it is disconnected and leaves the
    /// pool. Returns at once; [`endpoints`](Self::endpoints) shows `draining` until then.
    pub fn drain_endpoint(&self, name: &str) -> Result<()> {
        let ep = self.find(name)?;
        if ep
            .phase
            .compare_exchange(ACTIVE, DRAINING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Ok(());
        }
        tracing::info!(endpoint = name, "endpoint draining");
        let pool = Arc::downgrade(&self.inner);
        crate::rt::spawn_anywhere(drain_when_idle(pool, ep))?;
        Ok(())
    }

    /// Every endpoint and its state, in the order they were added.
    pub fn endpoints(&self) -> Vec<EndpointStatus> {
        let endpoints = self.inner.state.lock().unwrap().endpoints.clone();
        let now = Instant::now();
        endpoints
            .iter()
            .map(|e| {
                let state = e.state_name().to_owned();
                let mut load = e.watch.load.lock().unwrap();
                let busy = load.busy(now);
                EndpointStatus {
                    name: e.name.to_string(),
                    target: e.client.options().transport.describe(),
                    state,
                    running_turns: load.running.len(),
                    waiting_threads: busy - load.running.len(),
                    threads_placed: load.placed,
                    max_running_turns: e.limit,
                    shared_home: e.shared_home.clone(),
                    lost: load.lost.clone(),
                    codex_version: e
                        .client
                        .initialize_result()
                        .and_then(|i| i.codex_version().map(str::to_owned)),
                }
            })
            .collect()
    }

    /// The client of endpoint `name` (for calls that belong to no thread: `model/list`,
    /// `config/read`, account calls, raw requests).
    pub fn endpoint(&self, name: &str) -> Result<CodexClient> {
        Ok(self.find(name)?.client.clone())
    }

    /// `thread/start` on the least busy endpoint that takes threads (blocking), and the
    /// thread's handle, bound to that endpoint. An endpoint at its limit of running turns is
    /// passed over; when every endpoint is, the call waits for a turn to end, up to
    /// `place_timeout`. An endpoint that answers overloaded (`-32001`), or whose connection
    /// fails, is passed over for `overload_backoff` and the next one is tried. Errors:
    /// [`Error::Unavailable`] at once when no endpoint is healthy and accepting (or after
    /// `place_timeout` when all stayed at their limit), [`Error::Overloaded`] when the bound
    /// passed with overloaded answers; any other error of `thread/start` as it came.
    pub fn thread_start(&self, params: Value) -> Result<Thread> {
        crate::delivery::block_on(self.thread_start_async(params), None)
    }

    /// Async form of [`thread_start`](Self::thread_start).
    pub async fn thread_start_async(&self, params: Value) -> Result<Thread> {
        let params = Helper::ThreadStart.params(None, Value::Null, params)?;
        let started = Instant::now();
        let deadline = started + self.inner.options.place_timeout;
        let mut last_move: Option<Error> = None;
        loop {
            let notified = self.inner.changed.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            let now = Instant::now();
            let (ep, key) = match self.pick(now) {
                Ok(p) => p,
                Err(place::NoChoice::NoneAccepting) => {
                    return Err(last_move
                        .unwrap_or_else(|| self.unavailable("no endpoint accepts threads")))
                }
                Err(place::NoChoice::AllBusy(retry_at)) => {
                    if now >= deadline {
                        return Err(last_move.unwrap_or_else(|| {
                            self.unavailable(&format!(
                                "every endpoint stayed at its limit of running turns for {:?} (place_timeout)",
                                self.inner.options.place_timeout
                            ))
                        }));
                    }
                    let until = retry_at.map_or(deadline, |t| t.min(deadline));
                    let _ = crate::delivery::within(
                        Some(until.saturating_duration_since(now)),
                        notified,
                    )
                    .await;
                    continue;
                }
            };
            let opts = RequestOptions {
                timeout: Some(
                    deadline
                        .saturating_duration_since(now)
                        .max(Duration::from_millis(1)),
                ),
                retry: Some(RetryPolicy::none()),
                read_ahead: None,
            };
            let outcome = ep
                .client
                .connection()
                .request_with(Helper::ThreadStart.method(), params.clone(), opts)
                .await;
            let mut load = ep.watch.load.lock().unwrap();
            load.fresh.remove(&key);
            match outcome.and_then(|v| thread_from(ep.client.connection(), &params, v)) {
                Ok(thread) => {
                    load.fresh.insert(thread.id().to_owned(), Instant::now());
                    load.placed += 1;
                    drop(load);
                    self.inner.state.lock().unwrap().threads.insert(
                        thread.id().to_owned(),
                        Placed {
                            endpoint: ep.name.clone(),
                            params: params.clone(),
                            shared_home: ep.shared_home.clone(),
                        },
                    );
                    tracing::debug!(endpoint = %ep.name, thread = thread.id(), "thread placed");
                    return Ok(thread);
                }
                Err(e) if kind_may_move(&e) => {
                    load.overloaded_until =
                        Some(Instant::now() + self.inner.options.overload_backoff);
                    drop(load);
                    tracing::debug!(endpoint = %ep.name, error = %e, "thread/start refused; trying another endpoint");
                    last_move = Some(match e {
                        Error::Overloaded { .. } => e,
                        other => Error::Unavailable(format!(
                            "endpoint `{}` failed thread/start ({other}) and no other endpoint took it",
                            ep.name
                        )),
                    });
                    if Instant::now() >= deadline {
                        return Err(last_move.expect("set above"));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Choose an endpoint and reserve a place on it (under the pool's lock, so concurrent
    /// placements see each other).
    fn pick(&self, now: Instant) -> std::result::Result<(Arc<Endpoint>, String), place::NoChoice> {
        let st = self.inner.state.lock().unwrap();
        let candidates: Vec<place::Candidate> = st
            .endpoints
            .iter()
            .map(|e| {
                let accepts = e.accepts();
                let mut load = e.watch.load.lock().unwrap();
                place::Candidate {
                    accepts,
                    busy: load.busy(now),
                    limit: e.limit,
                    overloaded_until: load.overloaded_until,
                }
            })
            .collect();
        let turn = self.inner.placements.fetch_add(1, Ordering::Relaxed) as usize;
        let i = place::choose(&candidates, turn, now)?;
        let ep = st.endpoints[i].clone();
        let key = format!(
            "\u{0}placing-{}",
            self.inner.pending.fetch_add(1, Ordering::Relaxed)
        );
        ep.watch.load.lock().unwrap().fresh.insert(key.clone(), now);
        Ok((ep, key))
    }

    fn unavailable(&self, why: &str) -> Error {
        let states: Vec<String> = self
            .endpoints()
            .iter()
            .map(|s| match &s.lost {
                Some(l) => format!("{} {} ({l})", s.name, s.state),
                None => format!(
                    "{} {} ({}/{} turns)",
                    s.name,
                    s.state,
                    s.running_turns,
                    if s.max_running_turns == 0 {
                        "-".to_owned()
                    } else {
                        s.max_running_turns.to_string()
                    }
                ),
            })
            .collect();
        Error::Unavailable(if states.is_empty() {
            format!("{why}: the pool has no endpoint")
        } else {
            format!("{why}: {}", states.join(", "))
        })
    }

    /// The handle of a thread the pool placed or resumed, bound to the endpoint that holds
    /// it. Errors: a thread the pool does not know, or whose endpoint has left the pool
    /// (then [`resume_elsewhere`](Self::resume_elsewhere) may bring it back).
    pub fn thread(&self, thread_id: &str) -> Result<Thread> {
        let name = self.endpoint_of(thread_id).ok_or_else(|| {
            Error::InvalidArgument(format!("thread {thread_id} is not a thread of this pool"))
        })?;
        let ep = self.find(&name).map_err(|_| {
            Error::Unavailable(format!(
                "thread {thread_id} was on endpoint `{name}`, which has left the pool (resume_elsewhere may bring it back)"
            ))
        })?;
        Ok(ep.client.thread(thread_id))
    }

    /// The endpoint that holds thread `thread_id`, if the pool placed or resumed it.
    pub fn endpoint_of(&self, thread_id: &str) -> Option<String> {
        let st = self.inner.state.lock().unwrap();
        st.threads.get(thread_id).map(|p| p.endpoint.to_string())
    }

    /// The threads the pool placed or resumed on endpoint `name` (also after it left the
    /// pool: the threads that died with it).
    pub fn threads_on(&self, name: &str) -> Vec<String> {
        let st = self.inner.state.lock().unwrap();
        let mut v: Vec<String> = st
            .threads
            .iter()
            .filter(|(_, p)| &*p.endpoint == name)
            .map(|(id, _)| id.clone())
            .collect();
        v.sort();
        v
    }

    /// Resume thread `thread_id` on another endpoint (blocking): one that shares the
    /// `CODEX_HOME` of the endpoint that held it (`shared_home`), is healthy and accepting,
    /// least busy first. `params` go to `thread/resume` over the params the thread was
    /// started with. Errors: an unknown thread, an endpoint that shares its home with none,
    /// no such endpoint available now.
    pub fn resume_elsewhere(&self, thread_id: &str, params: Value) -> Result<Thread> {
        crate::delivery::block_on(self.resume_elsewhere_async(thread_id, params), None)
    }

    /// Async form of [`resume_elsewhere`](Self::resume_elsewhere).
    pub async fn resume_elsewhere_async(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let (from, mut resume, home) = {
            let st = self.inner.state.lock().unwrap();
            let p = st.threads.get(thread_id).ok_or_else(|| {
                Error::InvalidArgument(format!("thread {thread_id} is not a thread of this pool"))
            })?;
            (p.endpoint.clone(), p.params.clone(), p.shared_home.clone())
        };
        let home = home.ok_or_else(|| no_shared_home(&from))?;
        if let (Some(base), Some(over)) = (resume.as_object_mut(), params.as_object()) {
            for (k, v) in over {
                base.insert(k.clone(), v.clone());
            }
        }
        let now = Instant::now();
        let target = {
            let st = self.inner.state.lock().unwrap();
            st.endpoints
                .iter()
                .filter(|e| *e.name != *from && e.shared_home.as_deref() == Some(&home) && e.accepts())
                .min_by_key(|e| e.watch.load.lock().unwrap().busy(now))
                .cloned()
        }
        .ok_or_else(|| {
            self.unavailable(&format!(
                "no healthy endpoint other than `{from}` shares its CODEX_HOME `{home}` to resume thread {thread_id}"
            ))
        })?;
        let thread = target
            .client
            .thread_resume_async(thread_id, resume.clone())
            .await?;
        target.watch.load.lock().unwrap().placed += 1;
        self.inner.state.lock().unwrap().threads.insert(
            thread_id.to_owned(),
            Placed {
                endpoint: target.name.clone(),
                params: resume,
                shared_home: target.shared_home.clone(),
            },
        );
        tracing::info!(thread = thread_id, from = %from, to = %target.name, "thread resumed on another endpoint");
        Ok(thread)
    }

    /// A subscription to the notifications and connection events of every endpoint, now and
    /// later added, each tagged with its endpoint ([`PoolEvents`]).
    pub fn subscribe(&self) -> Result<PoolEvents> {
        let merge = Arc::new(Merge::default());
        let mut st = self.inner.state.lock().unwrap();
        if st.closed {
            return Err(Error::InvalidState("the pool is closed".into()));
        }
        for ep in &st.endpoints {
            if let Ok(q) = ep.client.connection().subscribe_queue() {
                merge.add(ep.name.clone(), q);
            }
        }
        st.merges.retain(|m| m.strong_count() > 0);
        st.merges.push(Arc::downgrade(&merge));
        Ok(PoolEvents::new(merge))
    }

    /// Disconnect every endpoint and end every subscription. Idempotent; also what dropping
    /// the last clone does.
    pub fn close(&self) {
        let (endpoints, merges) = {
            let mut st = self.inner.state.lock().unwrap();
            st.closed = true;
            (
                std::mem::take(&mut st.endpoints),
                std::mem::take(&mut st.merges),
            )
        };
        close_all(endpoints, merges);
        self.inner.changed.notify_waiters();
    }

    // -- handlers: one table for every endpoint -----------------------------------------------

    /// The client the pool's handlers are registered on (never connected): its handler
    /// table is every endpoint's. A binding registers its handlers here the way it does on
    /// one client.
    pub fn handler_client(&self) -> &CodexClient {
        &self.inner.template
    }

    /// The notification handler of every endpoint ([`Client::on_notification`]).
    pub fn on_notification(&self, f: impl Fn(&Notification) + Send + Sync + 'static) -> Result<()> {
        self.inner.template.connection().on_notification(f)
    }

    /// The fallback server-request handler of every endpoint ([`Client::on_server_request`]).
    pub fn on_server_request(
        &self,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        self.inner.template.connection().on_server_request(f)
    }

    /// A handler of server requests of `method`, on every endpoint
    /// ([`Client::on_method_request`]).
    pub fn on_method_request(
        &self,
        method: &str,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        self.inner
            .template
            .connection()
            .on_method_request(method, f)
    }

    /// A handler of notifications of `method`, on every endpoint
    /// ([`Client::on_method_notification`]).
    pub fn on_method_notification(
        &self,
        method: &str,
        f: impl Fn(&Notification) + Send + Sync + 'static,
    ) -> Result<()> {
        self.inner
            .template
            .connection()
            .on_method_notification(method, f)
    }

    /// The connection-event handler of every endpoint ([`Client::on_connection_event`]).
    pub fn on_connection_event(
        &self,
        f: impl Fn(&ConnectionEvent) + Send + Sync + 'static,
    ) -> Result<()> {
        self.inner.template.connection().on_connection_event(f)
    }

    /// Remove a handler of every endpoint ([`Client::clear_handler`]).
    pub fn clear_handler(&self, slot: HandlerSlot) -> Result<()> {
        self.inner.template.connection().clear_handler(slot)
    }
}

async fn drain_when_idle(pool: Weak<Inner>, ep: Arc<Endpoint>) {
    let changed = match pool.upgrade() {
        Some(p) => p.changed.clone(),
        None => return,
    };
    loop {
        let notified = changed.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().enable();
        if ep.phase.load(Ordering::Acquire) != DRAINING || pool.strong_count() == 0 {
            return;
        }
        if ep.is_idle() || !ep.client.is_connected() {
            break;
        }
        // Woken by a turn's end; looks again at least every second (the fresh placements
        // expire without an event).
        let _ = crate::delivery::within(Some(Duration::from_secs(1)), notified).await;
    }
    if let Some(p) = pool.upgrade() {
        let mut st = p.state.lock().unwrap();
        st.endpoints.retain(|e| !Arc::ptr_eq(e, &ep));
    }
    ep.phase.store(REMOVED, Ordering::Release);
    ep.client.disconnect_async().await;
    tracing::info!(endpoint = %ep.name, "endpoint drained and closed");
}

fn unknown_endpoint(name: &str, endpoints: &[Arc<Endpoint>]) -> Error {
    let names: Vec<&str> = endpoints.iter().map(|e| &*e.name).collect();
    Error::InvalidArgument(format!(
        "no endpoint `{name}` in the pool (endpoints: {})",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    ))
}

fn no_shared_home(name: &str) -> Error {
    Error::InvalidArgument(format!(
        "endpoint `{name}` shares its CODEX_HOME with no other endpoint (set its `shared_home` to resume its threads elsewhere)"
    ))
}
