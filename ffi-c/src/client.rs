//! `codex_client_t`: lifecycle, requests, callbacks and poll mode.
//!
//! The core client always runs in poll delivery. In callbacks mode the binding owns one
//! dispatch thread per client that pulls the core's events in batches and also completes async
//! requests, so every C callback (events, server requests, connection reports and request
//! completions) runs on that one thread, in order. In poll mode no binding thread exists: the
//! program's `codex_client_next_event` call polls request completions and pulls core events.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_char, c_int, c_void};
use std::future::Future;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, RwLock};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use codex_client::{Client, Error, Event, InitializeResult, RequestOptions};
use serde_json::value::RawValue;

use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};
use crate::event::{codex_event_t, Body, Response};
use crate::options::{self, codex_options_t};
use crate::strings::{clear_out, opt_str, params_raw, params_value, put_string, req_str};
use crate::wake::{lock, WakeShared};

/// Which callback `codex_client_register_callback` sets.
pub type codex_callback_kind_t = u32;

/// Server notifications (`CODEX_EVENT_NOTIFICATION` events).
pub const CODEX_CALLBACK_NOTIFICATION: codex_callback_kind_t = 1;

/// Server requests (`CODEX_EVENT_SERVER_REQUEST` events). Without one, every server request
/// is answered fail-closed: approvals are declined.
pub const CODEX_CALLBACK_SERVER_REQUEST: codex_callback_kind_t = 2;

/// Connection reports: `CODEX_EVENT_ERROR`, `CODEX_EVENT_OVERFLOW`, `CODEX_EVENT_DISCONNECTED`.
pub const CODEX_CALLBACK_CONNECTION: codex_callback_kind_t = 3;

/// A callback. `event` is borrowed for the duration of the call: read it with the
/// `codex_event_*` accessors, never free it; take a server request out of it with
/// `codex_event_take_request` to answer after returning. Runs on the client's dispatch thread.
/// Must return normally (no C++ exception, no longjmp across it).
pub type codex_callback_t =
    Option<unsafe extern "C" fn(userdata: *mut c_void, event: *mut codex_event_t)>;

type RequestFuture = Pin<Box<dyn Future<Output = Result<Box<RawValue>, Error>> + Send>>;

/// An async request awaiting its response.
struct InFlight {
    fut: RequestFuture,
    waker: Waker,
    method: String,
    callback: codex_callback_t,
    userdata: usize,
}

/// A completed async request awaiting delivery.
struct Done {
    response: Response,
    callback: codex_callback_t,
}

#[derive(Default)]
struct Requests {
    inflight: HashMap<u64, InFlight>,
    done: VecDeque<Done>,
}

/// Coordination between the dispatch thread and `disconnect`/`free`.
struct Gate {
    /// Bumped by every disconnect; events pulled under an older epoch are not delivered.
    epoch: u64,
    /// A callback is running on the dispatch thread.
    running: bool,
    /// The client is being freed: the dispatch thread runs no more callbacks and exits.
    stop: bool,
}

#[derive(Clone, Copy)]
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *mut codex_event_t),
    userdata: usize,
}

/// How long `disconnect`/`free` wait for in-flight request completions to be delivered.
const QUIET_LIMIT: Duration = Duration::from_secs(10);
/// Events pulled from the core per round of the dispatch thread.
const BATCH: usize = 64;

static NEXT_CLIENT_KEY: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// Key of the client whose dispatch thread this is (0: none).
    static DISPATCH_KEY: Cell<u64> = const { Cell::new(0) };
}

pub(crate) struct Shared {
    /// Unique id of the client (never reused), tying request handles to their client.
    pub(crate) key: u64,
    core: Client,
    poll: bool,
    /// Whether there is a connection to end (set after a connect, cleared by disconnect).
    connected: Mutex<bool>,
    /// A `codex_client_connect` is under way (a disconnect then aborts it).
    connecting: AtomicBool,
    /// Bumped by every successful connect.
    conn_gen: AtomicU64,
    callbacks: RwLock<[Option<Callback>; 3]>,
    gate: Mutex<Gate>,
    gate_cv: Condvar,
    requests: Mutex<Requests>,
    next_request: AtomicU64,
    wake: Arc<WakeShared>,
    core_fd: RawFd,
    /// Poll mode: the descriptor the program watches (epoll over the core's and ours).
    epoll: Option<OwnedFd>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// A client of one Codex app-server. Opaque handle.
///
/// Create with `codex_client_new`, free with `codex_client_free`. All functions taking a
/// client may be called from any thread, concurrently (except `codex_client_free`, which must
/// be the last call).
pub struct codex_client_t {
    /// Makes every handle a distinct allocation; the state lives in the `CLIENTS` registry.
    _unique: u8,
}

fn transport(what: &str, e: std::io::Error) -> Fail {
    Fail::Core(Error::Transport(format!("{what}: {e}")))
}

fn request_options(timeout_ms: u64) -> RequestOptions {
    if timeout_ms == 0 {
        RequestOptions::default()
    } else {
        RequestOptions::timeout(Duration::from_millis(timeout_ms))
    }
}

/// Wait until one of `fds` is readable, up to `timeout_ms` (-1: forever).
fn wait_readable(fds: &[RawFd], timeout_ms: c_int) {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `p` holds `p.len()` initialised pollfd entries.
    unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
}

fn epoll_over(fds: &[RawFd]) -> std::io::Result<OwnedFd> {
    // SAFETY: plain syscall; a non-negative result is a fresh descriptor we now own.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if ep < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `ep` was just created and is owned by nobody else.
    let ep = unsafe { OwnedFd::from_raw_fd(ep) };
    for &fd in fds {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: fd as u64,
        };
        // SAFETY: valid epoll descriptor, valid target descriptor, valid event struct.
        if unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(ep)
}

impl Shared {
    fn create(opts: *const codex_options_t) -> Result<Arc<Shared>, Fail> {
        // Looked up in the options registry, never dereferenced.
        let conv = options::convert(opts)?;
        let core = Client::new(conv.options);
        let core_fd = core.event_fd()?;
        let wake = WakeShared::new().map_err(|e| transport("could not create an eventfd", e))?;
        let epoll = if conv.poll {
            Some(
                epoll_over(&[core_fd, wake.fd.fd()])
                    .map_err(|e| transport("could not create the event descriptor", e))?,
            )
        } else {
            None
        };
        let shared = Arc::new(Shared {
            key: NEXT_CLIENT_KEY.fetch_add(1, Ordering::Relaxed),
            core,
            poll: conv.poll,
            connected: Mutex::new(false),
            connecting: AtomicBool::new(false),
            conn_gen: AtomicU64::new(0),
            callbacks: RwLock::new([None; 3]),
            gate: Mutex::new(Gate {
                epoch: 0,
                running: false,
                stop: false,
            }),
            gate_cv: Condvar::new(),
            requests: Mutex::new(Requests::default()),
            next_request: AtomicU64::new(1),
            wake,
            core_fd,
            epoll,
            thread: Mutex::new(None),
        });
        if !shared.poll {
            let s = shared.clone();
            let t = std::thread::Builder::new()
                .name("codex-c-dispatch".into())
                .spawn(move || dispatch_loop(s))
                .map_err(|e| transport("could not start the dispatch thread", e))?;
            *lock(&shared.thread) = Some(t);
        }
        Ok(shared)
    }

    fn on_own_dispatch_thread(&self) -> bool {
        DISPATCH_KEY.with(|k| k.get()) == self.key
    }

    fn connect(&self) -> Result<InitializeResult, Error> {
        // The connection's runtime thread (which writes to the server's stdin) is spawned
        // here and inherits this thread's signal mask: with SIGPIPE blocked, writing to a
        // server that exited fails with EPIPE instead of killing the host process (C programs
        // keep SIGPIPE's default action; Rust binaries ignore it, C ones do not). No lock is
        // held meanwhile, so `disconnect` from another thread can abort it (the core refuses
        // a second concurrent connect).
        self.connecting.store(true, Ordering::SeqCst);
        let init = with_sigpipe_blocked(|| self.core.connect());
        self.connecting.store(false, Ordering::SeqCst);
        let init = init?;
        // A disconnect that ran meanwhile has already ended this connection.
        *lock(&self.connected) = self.core.is_connected();
        self.conn_gen.fetch_add(1, Ordering::SeqCst);
        self.wake.fd.signal();
        Ok(init)
    }

    /// End the connection; returns whether there was one. In callbacks mode (and not on the
    /// dispatch thread) waits until the running callback returned and every in-flight request's
    /// completion was delivered.
    fn disconnect(&self) -> bool {
        let had = {
            let mut connected = lock(&self.connected);
            let had =
                std::mem::replace(&mut *connected, false) || self.connecting.load(Ordering::SeqCst);
            self.core.disconnect();
            lock(&self.gate).epoch += 1;
            had
        };
        // Every pending request has failed by now; make sure each future is polled again.
        let ids: Vec<u64> = lock(&self.requests).inflight.keys().copied().collect();
        for id in ids {
            self.wake.wake(id);
        }
        // Wake every thread blocked in `codex_client_next_event` (and the dispatch thread): they
        // re-check and report the ended connection instead of waiting on.
        self.wake.fd.signal();
        if !self.poll && !self.on_own_dispatch_thread() {
            self.wait_quiet(QUIET_LIMIT);
        }
        had
    }

    fn wait_quiet(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut g = lock(&self.gate);
        loop {
            let pending = {
                let rq = lock(&self.requests);
                !rq.inflight.is_empty() || !rq.done.is_empty()
            };
            if (!pending && !g.running) || g.stop || Instant::now() >= deadline {
                return;
            }
            g = self
                .gate_cv
                .wait_timeout(g, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn shutdown(&self) {
        self.disconnect();
        lock(&self.gate).stop = true;
        self.gate_cv.notify_all();
        self.wake.fd.signal();
        let t = lock(&self.thread).take();
        if let Some(t) = t {
            if !self.on_own_dispatch_thread() {
                let _ = t.join();
            }
        }
    }

    /// Poll the futures of woken requests; move finished ones to `done`.
    fn collect(&self) {
        let ids = self.wake.take_woken();
        if ids.is_empty() {
            return;
        }
        let mut rq = lock(&self.requests);
        for id in ids {
            let Some(f) = rq.inflight.get_mut(&id) else {
                continue;
            };
            let mut cx = Context::from_waker(&f.waker);
            if let Poll::Ready(outcome) = f.fut.as_mut().poll(&mut cx) {
                let f = rq.inflight.remove(&id).expect("present");
                rq.done.push_back(Done {
                    callback: f.callback,
                    response: Response {
                        id,
                        method: f.method,
                        outcome,
                        userdata: f.userdata,
                    },
                });
            }
        }
    }

    fn start_request(
        &self,
        method: &str,
        params: Box<RawValue>,
        timeout_ms: u64,
        callback: codex_callback_t,
        userdata: usize,
    ) -> Result<u64, Fail> {
        if self.poll && callback.is_some() {
            return Err(invalid_state(
                "poll mode: a request's completion arrives as a CODEX_EVENT_RESPONSE event from \
                 codex_client_next_event; pass a NULL callback",
            ));
        }
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let core = self.core.clone();
        let m = method.to_owned();
        let opts = request_options(timeout_ms);
        let fut: RequestFuture = Box::pin(async move { core.request_raw(&m, &params, opts).await });
        let mut f = InFlight {
            fut,
            waker: self.wake.waker(id),
            method: method.to_owned(),
            callback,
            userdata,
        };
        let mut rq = lock(&self.requests);
        // The first poll sends the request (now, on the caller's thread).
        let mut cx = Context::from_waker(&f.waker);
        match f.fut.as_mut().poll(&mut cx) {
            // Refused before anything was sent: the call fails and no completion comes.
            Poll::Ready(Err(
                e @ (Error::NotConnected
                | Error::AlreadyConnected
                | Error::InvalidArgument(_)
                | Error::InvalidState(_)
                | Error::Unsupported(_)),
            )) => Err(e.into()),
            // Sent and already finished (a fast answer, an RPC error): deliver it as the
            // completion like any other, so the caller sees exactly one outcome.
            Poll::Ready(outcome) => {
                rq.done.push_back(Done {
                    callback,
                    response: Response {
                        id,
                        method: f.method,
                        outcome,
                        userdata,
                    },
                });
                self.wake.fd.signal();
                Ok(id)
            }
            Poll::Pending => {
                rq.inflight.insert(id, f);
                Ok(id)
            }
        }
    }

    fn pop_done(&self) -> Option<Done> {
        let mut rq = lock(&self.requests);
        let d = rq.done.pop_front();
        if !rq.done.is_empty() {
            self.wake.fd.signal();
        }
        d
    }

    fn next_event(&self, timeout_ms: i64) -> Result<Box<codex_event_t>, Fail> {
        if !self.poll {
            return Err(invalid_state(
                "the client uses callback delivery; create it with \
                 codex_options_set_delivery(o, CODEX_DELIVERY_POLL) to pull events",
            ));
        }
        let deadline =
            (timeout_ms >= 0).then(|| Instant::now() + Duration::from_millis(timeout_ms as u64));
        // Fast path (events waiting): no syscall unless a request future was woken.
        if self.wake.take_pending() {
            self.wake.fd.reset();
            self.collect();
        }
        loop {
            if let Some(d) = self.pop_done() {
                return Ok(Box::new(codex_event_t::new(Body::Response(d.response))));
            }
            match self.core.next_event(Some(Duration::ZERO)) {
                Ok(Some(ev)) => return Ok(Box::new(codex_event_t::from_core(self.key, ev))),
                Ok(None) => {}
                Err(e) => return Err(e.into()),
            }
            // About to wait: clear the wake descriptor, then look once more, so a wake that
            // came before the clear is collected now and one after it ends the wait.
            self.wake.take_pending();
            self.wake.fd.reset();
            self.collect();
            if let Some(d) = self.pop_done() {
                return Ok(Box::new(codex_event_t::new(Body::Response(d.response))));
            }
            match self.core.next_event(Some(Duration::ZERO)) {
                Ok(Some(ev)) => return Ok(Box::new(codex_event_t::from_core(self.key, ev))),
                Ok(None) => {}
                Err(e) => return Err(e.into()),
            }
            let wait = match deadline {
                None => -1,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(Fail::Status(
                            codex_status_t::CODEX_STATUS_TIMEOUT,
                            format!("no event within {timeout_ms} ms"),
                        ));
                    }
                    (d - now).as_millis().min(i32::MAX as u128) as c_int + 1
                }
            };
            wait_readable(&[self.wake.fd.fd(), self.core_fd], wait);
        }
    }

    fn callback(&self, slot: usize) -> Option<Callback> {
        self.callbacks.read().unwrap_or_else(|e| e.into_inner())[slot]
    }

    /// Mark a callback as running, unless the client is stopping or (for events) the event
    /// belongs to an ended connection.
    fn enter(&self, epoch: Option<u64>) -> bool {
        let mut g = lock(&self.gate);
        if g.stop || epoch.is_some_and(|e| e != g.epoch) {
            return false;
        }
        g.running = true;
        true
    }

    fn leave(&self) {
        lock(&self.gate).running = false;
        self.gate_cv.notify_all();
    }

    fn run_event(&self, ev: Event, epoch: u64) {
        let slot = match &ev {
            Event::Notification(_) => 0,
            Event::ServerRequest(_) => 1,
            _ => 2,
        };
        let Some(cb) = self.callback(slot) else {
            if let Event::ServerRequest(r) = ev {
                // No handler: fail closed (approvals declined).
                let _ = r.respond_fail_closed();
            }
            return;
        };
        if !self.enter(Some(epoch)) {
            return; // dropped; a server request among them answers fail-closed
        }
        let mut event = codex_event_t::from_core(self.key, ev);
        // SAFETY: the program registered `f` for this client; the event lives for the call.
        unsafe { (cb.f)(cb.userdata as *mut c_void, &mut event) };
        drop(event);
        self.leave();
    }

    fn run_done(&self, d: Done) {
        let Some(f) = d.callback else {
            return;
        };
        if !self.enter(None) {
            return;
        }
        let userdata = d.response.userdata;
        let mut event = codex_event_t::new(Body::Response(d.response));
        // SAFETY: the program passed `f` with this request; the event lives for the call.
        unsafe { f(userdata as *mut c_void, &mut event) };
        drop(event);
        self.leave();
    }

    fn stopping(&self) -> bool {
        lock(&self.gate).stop
    }

    /// One round of the dispatch thread. Returns false when the thread should exit.
    fn dispatch_round(&self, ended_gen: &mut Option<u64>, batch: &mut Vec<Event>) -> bool {
        self.wake.fd.reset();
        self.collect();
        while let Some(d) = self.pop_done() {
            self.run_done(d);
        }
        let gen = self.conn_gen.load(Ordering::SeqCst);
        let mut epoch = 0;
        if *ended_gen != Some(gen) {
            let g = lock(&self.gate);
            epoch = g.epoch;
            match self.core.next_events(batch, BATCH, Some(Duration::ZERO)) {
                Ok(true) => {}
                Ok(false) | Err(_) => *ended_gen = Some(gen),
            }
        }
        let full = batch.len() >= BATCH;
        for ev in batch.drain(..) {
            self.run_event(ev, epoch);
        }
        if self.stopping() {
            return false;
        }
        if full {
            return true;
        }
        if *ended_gen != Some(self.conn_gen.load(Ordering::SeqCst)) {
            wait_readable(&[self.wake.fd.fd(), self.core_fd], -1);
        } else {
            wait_readable(&[self.wake.fd.fd()], -1);
        }
        true
    }
}

/// Run `f` with SIGPIPE blocked in the calling thread (threads spawned by `f` inherit the
/// blocked mask), then restore the previous mask.
fn with_sigpipe_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: sigset operations on local, initialised sets; pthread_sigmask only changes the
    // calling thread's mask, restored below.
    unsafe {
        let mut block: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut block);
        libc::sigaddset(&mut block, libc::SIGPIPE);
        let changed = libc::pthread_sigmask(libc::SIG_BLOCK, &block, &mut old) == 0;
        let out = f();
        if changed {
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        }
        out
    }
}

/// Block SIGPIPE for the rest of the calling (library-owned) thread.
fn block_sigpipe_here() {
    // SAFETY: as in `with_sigpipe_blocked`; this thread is ours.
    unsafe {
        let mut block: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut block);
        libc::sigaddset(&mut block, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &block, std::ptr::null_mut());
    }
}

fn dispatch_loop(shared: Arc<Shared>) {
    block_sigpipe_here();
    DISPATCH_KEY.with(|k| k.set(shared.key));
    let mut ended_gen = None;
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        match catch_unwind(AssertUnwindSafe(|| {
            shared.dispatch_round(&mut ended_gen, &mut batch)
        })) {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) => {
                // A bug in this loop: keep the thread alive, and do not spin.
                batch.clear();
                let mut g = lock(&shared.gate);
                g.running = false;
                let stop = g.stop;
                drop(g);
                shared.gate_cv.notify_all();
                if stop {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// Live clients by handle address. Every export looks its handle up here, so a NULL, freed or
/// foreign pointer gives CODEX_STATUS_INVALID_ARGUMENT instead of touching freed memory, and a
/// call racing `codex_client_free` keeps the client's state alive until it returns.
static CLIENTS: LazyLock<Mutex<HashMap<usize, Arc<Shared>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The client behind a handle: INVALID_ARGUMENT for NULL or a handle that is not a live
/// client (already freed, or never returned by `codex_client_new`).
pub(crate) fn shared(client: *const codex_client_t) -> Result<Arc<Shared>, Fail> {
    if client.is_null() {
        return Err(invalid_arg("client is NULL"));
    }
    lock(&CLIENTS)
        .get(&(client as usize))
        .cloned()
        .ok_or_else(|| {
            invalid_arg("client is not a live client (already freed with codex_client_free?)")
        })
}

impl Shared {
    pub(crate) fn core(&self) -> &Client {
        &self.core
    }
}

ffi_fn! {
    /// Create a client (nothing is started until `codex_client_connect`).
    ///
    /// `opts`: NULL (all defaults) or an options object from `codex_options_new`. Its options
    /// are copied, so it may be freed (or changed for another client) when this returns; the
    /// caller keeps owning it. On success `*out` receives the client, owned by the program:
    /// free it with `codex_client_free`. In callbacks mode this starts the client's dispatch
    /// thread. Errors: INVALID_ARGUMENT (NULL `out`; `opts` not a live options object: freed,
    /// or not from `codex_options_new`, such as the options struct of a program built against
    /// the ABI 0 header - nothing is read through it and the message says so), TRANSPORT (no
    /// descriptor or thread). Thread: any.
    unsafe fn codex_client_new(
        opts: *const codex_options_t,
        out: *mut *mut codex_client_t,
    ) -> codex_status_t {
        clear_out(out);
        if out.is_null() {
            return Err(invalid_arg("out is NULL"));
        }
        let shared = Shared::create(opts)?;
        let handle = Box::into_raw(Box::new(codex_client_t { _unique: 0 }));
        lock(&CLIENTS).insert(handle as usize, shared);
        *out = handle;
        Ok(())
    }
}

ffi_fn! {
    /// Free a client: disconnects first when connected (see `codex_client_disconnect`), stops
    /// the dispatch thread and waits for it (so it waits for a callback that is running to return:
    /// a callback that never returns blocks this call; everything else it waits for is bounded). After it returns no callback of this client runs
    /// again and `client` is invalid: passing it to any function afterwards returns
    /// CODEX_STATUS_INVALID_ARGUMENT (freeing it twice is detected and ignored; the last error says
    /// so). Request handles taken earlier must still be freed with `codex_request_free` (they can
    /// no longer be answered). Events pulled earlier stay valid until `codex_event_free`. NULL is
    /// ignored.
    ///
    /// Call it last, once, when no other thread uses the client. Do not call it from one of this
    /// client's callbacks (it works, but the callback must not touch the client afterwards and
    /// completions still pending are dropped).
    unsafe fn codex_client_free(client: *mut codex_client_t) {
        if client.is_null() {
            return;
        }
        let registered = lock(&CLIENTS).remove(&(client as usize));
        match registered {
            Some(shared) => {
                // SAFETY: the handle was live (registered) and is now unregistered, so this is
                // the one place that frees it.
                drop(Box::from_raw(client));
                shared.shutdown();
            }
            None => {
                crate::error::record(&invalid_arg(
                    "codex_client_free: not a live client (freed twice?); ignored",
                ));
            }
        }
    }
}

ffi_fn! {
    /// Spawn the server and run the `initialize` handshake (blocking). When `init_result_json`
    /// is not NULL it receives the server's `initialize` result as JSON text (free it with
    /// `codex_string_free`).
    ///
    /// A client can connect again after `codex_client_disconnect` or after its server died;
    /// callbacks stay registered. Errors: ALREADY_CONNECTED, TRANSPORT (spawn failed), TIMEOUT,
    /// DISCONNECTED (server exited during the handshake, message has its stderr), PROTOCOL.
    /// Thread: any, including inside callbacks.
    unsafe fn codex_client_connect(
        client: *mut codex_client_t,
        init_result_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(init_result_json);
        let s = shared(client)?;
        let init = s.connect()?;
        put_string(init_result_json, &init.raw.to_string());
        Ok(())
    }
}

ffi_fn! {
    /// End the connection: stops the server (closes its stdin, waits up to 500 ms, then kills
    /// its process group); every pending request fails with CODEX_STATUS_DISCONNECTED.
    ///
    /// Callbacks mode, called from any thread but the dispatch thread: returns after the running
    /// callback (if any) returned and after the completion callbacks of all in-flight async
    /// requests ran (with CODEX_STATUS_DISCONNECTED); no event callback of this connection runs
    /// afterwards. Called from inside a callback: the current callback is the last event callback;
    /// failed request completions are delivered after it returns.
    /// Returns CODEX_STATUS_NOT_CONNECTED (harmless) when there was no connection to end, so a
    /// second disconnect is an error code, never a crash.
    unsafe fn codex_client_disconnect(client: *mut codex_client_t) -> codex_status_t {
        let s = shared(client)?;
        if s.disconnect() {
            Ok(())
        } else {
            Err(Fail::Core(Error::NotConnected))
        }
    }
}

ffi_fn! {
    /// Whether the client is connected (handshake done and server alive). False for NULL or a
    /// freed client. Thread: any, including inside callbacks. No pointers are kept.
    unsafe fn codex_client_is_connected(client: *const codex_client_t) -> bool {
        shared(client).is_ok_and(|s| s.core.is_connected())
    } ?= false
}

ffi_fn! {
    /// Set (or with a NULL `callback`, remove) the callback of one kind:
    /// `CODEX_CALLBACK_NOTIFICATION`, `CODEX_CALLBACK_SERVER_REQUEST` or
    /// `CODEX_CALLBACK_CONNECTION`. `userdata` is passed back unchanged.
    ///
    /// Every callback of a client runs on the client's one dispatch thread (a library-owned
    /// thread, never the caller's), one at a time, in arrival order. Callbacks may call any
    /// function of this library, including blocking calls (`codex_client_call`) and
    /// `codex_client_disconnect`, except `codex_client_next_event`.
    /// Errors: INVALID_STATE on a poll-mode client, INVALID_ARGUMENT for an unknown kind.
    /// Thread: any; takes effect for the next event.
    unsafe fn codex_client_register_callback(
        client: *mut codex_client_t,
        kind: codex_callback_kind_t,
        callback: codex_callback_t,
        userdata: *mut c_void,
    ) -> codex_status_t {
        let s = shared(client)?;
        if s.poll {
            return Err(invalid_state(
                "the client uses poll delivery (CODEX_DELIVERY_POLL); callbacks cannot be \
                 registered: pull events with codex_client_next_event",
            ));
        }
        let slot = match kind {
            CODEX_CALLBACK_NOTIFICATION => 0,
            CODEX_CALLBACK_SERVER_REQUEST => 1,
            CODEX_CALLBACK_CONNECTION => 2,
            k => return Err(invalid_arg(format!("unknown callback kind {k}"))),
        };
        s.callbacks.write().unwrap_or_else(|e| e.into_inner())[slot] = callback.map(|f| Callback {
            f,
            userdata: userdata as usize,
        });
        Ok(())
    }
}

ffi_fn! {
    /// Send a request without waiting (async). `params_json` may be NULL (sent as `{}`).
    /// `timeout_ms`: 0 = the client's default timeout. On success `*request_id` (may be NULL)
    /// receives the request's id (unique per client, never 0).
    ///
    /// Callbacks mode: `callback` (may be NULL: result discarded) is called exactly once, on the
    /// dispatch thread like every other callback, with a CODEX_EVENT_RESPONSE event (status,
    /// result or error, request id, `userdata`), also when the request fails by timeout or
    /// disconnect. Poll mode: `callback` must be NULL; the completion is a CODEX_EVENT_RESPONSE
    /// event from `codex_client_next_event` (`codex_event_userdata` gives `userdata` back).
    /// When this returns an error the request was not sent and no completion will come.
    /// Thread: any, including inside callbacks.
    unsafe fn codex_client_request(
        client: *mut codex_client_t,
        method: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        callback: codex_callback_t,
        userdata: *mut c_void,
        request_id: *mut u64,
    ) -> codex_status_t {
        if !request_id.is_null() {
            *request_id = 0;
        }
        let s = shared(client)?;
        let method = req_str(method, "method")?;
        let params = params_raw(opt_str(params_json, "params_json")?, "params_json")?;
        let id = s.start_request(method, params, timeout_ms, callback, userdata as usize)?;
        if !request_id.is_null() {
            *request_id = id;
        }
        Ok(())
    }
}

ffi_fn! {
    /// Send a request and wait for its result (blocking). `params_json` may be NULL (sent as
    /// `{}`); `timeout_ms`: 0 = the client's default timeout. On success `*result_json` (may be
    /// NULL: result discarded) receives the result as JSON text; free it with `codex_string_free`.
    ///
    /// Errors: NOT_CONNECTED, TIMEOUT, RPC_ERROR (see `codex_last_error_rpc_code`, `..._message`,
    /// `..._data`), OVERLOADED, DISCONNECTED, INVALID_ARGUMENT (bad JSON).
    /// Thread: any, including inside callbacks (a response never waits behind undelivered events).
    unsafe fn codex_client_call(
        client: *mut codex_client_t,
        method: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        result_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(result_json);
        let s = shared(client)?;
        let method = req_str(method, "method")?;
        let params = params_raw(opt_str(params_json, "params_json")?, "params_json")?;
        let raw = s.core.request_raw_blocking(method, &params, request_options(timeout_ms))?;
        put_string(result_json, raw.get());
        Ok(())
    }
}

ffi_fn! {
    /// Send a client notification (no response). `params_json` may be NULL (sent as `{}`).
    /// Thread: any.
    unsafe fn codex_client_notify(
        client: *mut codex_client_t,
        method: *const c_char,
        params_json: *const c_char,
    ) -> codex_status_t {
        let s = shared(client)?;
        let method = req_str(method, "method")?;
        let params = params_value(opt_str(params_json, "params_json")?, "params_json", serde_json::Value::Null)?;
        s.core.notify(method, params)?;
        Ok(())
    }
}

ffi_fn! {
    /// Poll mode: wait up to `timeout_ms` (negative: forever, 0: do not wait) for the next event.
    /// On success `*event` receives it, owned by the program: free it with `codex_event_free`.
    ///
    /// Events come in arrival order; completions of `codex_client_request` (CODEX_EVENT_RESPONSE)
    /// are interleaved as they finish. Returns TIMEOUT (and `*event` = NULL) when nothing arrived
    /// in time; after the CODEX_EVENT_DISCONNECTED event of a connection the next call returns
    /// DISCONNECTED (or NOT_CONNECTED once disconnected), until the client connects again.
    /// Errors: INVALID_STATE on a callbacks-mode client.
    /// Thread: any (several threads may call it; each event goes to one of them). Never from a
    /// callback.
    unsafe fn codex_client_next_event(
        client: *mut codex_client_t,
        timeout_ms: i64,
        event: *mut *mut codex_event_t,
    ) -> codex_status_t {
        clear_out(event);
        let s = shared(client)?;
        if event.is_null() {
            return Err(invalid_arg("event (out) is NULL"));
        }
        *event = crate::event::into_owned(s.next_event(timeout_ms)?);
        Ok(())
    }
}

ffi_fn! {
    /// Poll mode: a file descriptor that is readable while events wait for
    /// `codex_client_next_event`, or -1 on error (the last error says why: INVALID_ARGUMENT for a
    /// NULL or freed client, INVALID_STATE on a callbacks-mode client).
    ///
    /// Watch it with poll/epoll/select or `enif_select` (`POLLIN`), then call
    /// `codex_client_next_event(client, 0, &ev)` until it returns CODEX_STATUS_TIMEOUT. It is
    /// level-triggered: it stays readable while an event waits; it is also readable once the
    /// connection has ended (next_event then reports it, and it stays readable until the next
    /// connect: stop watching it then) and may occasionally be readable with nothing to read
    /// (next_event returns TIMEOUT at once).
    ///
    /// Ownership: the client's; it stays the same across reconnects and is closed by
    /// `codex_client_free` (remove it from your poll set / `enif_select` before that). Never close
    /// it, read from it or write to it yourself. Thread: any.
    unsafe fn codex_client_event_fd(client: *const codex_client_t) -> c_int {
        let r = shared(client).and_then(|s| match &s.epoll {
            Some(ep) => Ok(ep.as_raw_fd()),
            None => Err(invalid_state(
                "codex_client_event_fd needs a client created with \
                 codex_options_set_delivery(o, CODEX_DELIVERY_POLL)",
            )),
        });
        match r {
            Ok(fd) => fd,
            Err(f) => {
                crate::error::record(&f);
                -1
            }
        }
    } ?= -1
}

ffi_fn! {
    /// The process id of the server of the current connection, written to `*pid` (the caller's
    /// storage). Errors: NOT_CONNECTED, INVALID_ARGUMENT (NULL). Thread: any.
    unsafe fn codex_client_server_pid(
        client: *const codex_client_t,
        pid: *mut u32,
    ) -> codex_status_t {
        let s = shared(client)?;
        if pid.is_null() {
            return Err(invalid_arg("pid (out) is NULL"));
        }
        *pid = s.core.server_pid().ok_or(Error::NotConnected)?;
        Ok(())
    }
}

ffi_fn! {
    /// The last bytes the server wrote to stderr ("" when never connected). `*out` receives a
    /// string the program frees with `codex_string_free`. Thread: any.
    unsafe fn codex_client_stderr_tail(
        client: *const codex_client_t,
        out: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(out);
        let s = shared(client)?;
        if out.is_null() {
            return Err(invalid_arg("out is NULL"));
        }
        put_string(out, &s.core.stderr_tail());
        Ok(())
    }
}
