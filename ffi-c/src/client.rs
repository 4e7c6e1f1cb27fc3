//! `codex_client_t`: lifecycle, requests, callbacks and poll mode, as an adapter over the
//! core's delivery.
//!
//! Callbacks mode: the core client runs in callback delivery; one event handler
//! (`Client::on_event`) turns each core event into a borrowed `codex_event_t` and runs the
//! program's callback on the core's dispatch thread — events, server requests, connection
//! reports and completions of `codex_client_request` (the core's `send_request` responses)
//! alike, one at a time, in order. Poll mode: `codex_client_next_event` pulls the core's
//! events (responses included) and `codex_client_event_fd` is the core's readiness
//! descriptor. The binding has no thread, queue or descriptor of its own.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, RwLock, Weak};
use std::time::Duration;

use codex_client::{Client, Error, Event, InitializeResult, RequestOptions};
use serde_json::value::RawValue;

use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};
use crate::event::{codex_event_t, Body, Response};
use crate::options::{self, codex_options_t};
use crate::strings::{clear_out, opt_str, params_raw, params_value, put_string, req_str};

/// Lock a mutex, ignoring poisoning (a panic elsewhere must not take the client down).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

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

#[derive(Clone, Copy)]
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *mut codex_event_t),
    userdata: usize,
}

/// Where the completion of one `codex_client_request` goes.
#[derive(Clone, Copy)]
struct Completion {
    callback: codex_callback_t,
    userdata: usize,
}

static NEXT_CLIENT_KEY: AtomicU64 = AtomicU64::new(1);

pub(crate) struct Shared {
    /// Unique id of the client (never reused), tying request handles to their client.
    pub(crate) key: u64,
    core: Client,
    poll: bool,
    /// Whether there is a connection to end (set after a connect, cleared by disconnect).
    connected: Mutex<bool>,
    /// A `codex_client_connect` is under way (a disconnect then aborts it).
    connecting: AtomicBool,
    callbacks: RwLock<[Option<Callback>; 3]>,
    /// Requests sent with `codex_client_request` whose completion has not been delivered.
    completions: Mutex<HashMap<u64, Completion>>,
    next_request: AtomicU64,
    /// Set by `codex_client_free`: no callback runs afterwards.
    freed: AtomicBool,
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

/// Request options with a timeout in milliseconds (0: the client's default).
pub(crate) fn request_options(timeout_ms: u64) -> RequestOptions {
    if timeout_ms == 0 {
        RequestOptions::default()
    } else {
        RequestOptions::timeout(Duration::from_millis(timeout_ms))
    }
}

impl Shared {
    fn create(opts: *const codex_options_t) -> Result<Arc<Shared>, Fail> {
        // `convert` looks the handle up in the options registry; it never reads through it.
        let conv = options::convert(opts)?;
        let shared = Arc::new(Shared {
            key: NEXT_CLIENT_KEY.fetch_add(1, Ordering::Relaxed),
            core: Client::new(conv.options),
            poll: conv.poll,
            connected: Mutex::new(false),
            connecting: AtomicBool::new(false),
            callbacks: RwLock::new([None; 3]),
            completions: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
            freed: AtomicBool::new(false),
        });
        if !shared.poll {
            let me: Weak<Shared> = Arc::downgrade(&shared);
            shared.core.on_event(move |ev| {
                if let Some(s) = me.upgrade() {
                    s.run_event(ev);
                }
            })?;
        }
        Ok(shared)
    }

    fn connect(&self) -> Result<InitializeResult, Error> {
        // No lock is held meanwhile, so `disconnect` from another thread can abort it (the
        // core refuses a second concurrent connect).
        self.connecting.store(true, Ordering::SeqCst);
        let init = self.core.connect();
        self.connecting.store(false, Ordering::SeqCst);
        let init = init?;
        // A disconnect that ran meanwhile has already ended this connection.
        *lock(&self.connected) = self.core.is_connected();
        Ok(init)
    }

    /// End the connection; returns whether there was one. In callbacks mode (and not on the
    /// dispatch thread) the core returns after the running callback returned and every
    /// in-flight request's completion was delivered.
    fn disconnect(&self) -> bool {
        let had = std::mem::replace(&mut *lock(&self.connected), false)
            || self.connecting.load(Ordering::SeqCst);
        self.core.disconnect();
        had
    }

    fn shutdown(&self) {
        self.disconnect();
        self.freed.store(true, Ordering::SeqCst);
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
        lock(&self.completions).insert(id, Completion { callback, userdata });
        if let Err(e) = self
            .core
            .send_request(method, &params, request_options(timeout_ms), id)
        {
            // Refused before anything was sent: no completion will come.
            lock(&self.completions).remove(&id);
            return Err(e.into());
        }
        Ok(id)
    }

    /// A core event as a C event; a response is matched with its request's userdata (and
    /// callback, returned beside it).
    fn to_c(&self, ev: Event) -> (codex_event_t, codex_callback_t) {
        match ev {
            Event::Response(r) => {
                let c = lock(&self.completions).remove(&r.token);
                let c = c.unwrap_or(Completion {
                    callback: None,
                    userdata: 0,
                });
                let body = Body::Response(Response {
                    id: r.token,
                    method: r.method,
                    outcome: r.result,
                    userdata: c.userdata,
                });
                (codex_event_t::new(body), c.callback)
            }
            other => (codex_event_t::from_core(self.key, other), None),
        }
    }

    fn next_event(&self, timeout_ms: i64) -> Result<Box<codex_event_t>, Fail> {
        if !self.poll {
            return Err(invalid_state(
                "the client uses callback delivery; create it with \
                 codex_options_set_delivery(o, CODEX_DELIVERY_POLL) to pull events",
            ));
        }
        let timeout = (timeout_ms >= 0).then(|| Duration::from_millis(timeout_ms as u64));
        match self.core.next_event(timeout)? {
            Some(ev) => Ok(Box::new(self.to_c(ev).0)),
            None => Err(Fail::Status(
                codex_status_t::CODEX_STATUS_TIMEOUT,
                format!("no event within {timeout_ms} ms"),
            )),
        }
    }

    fn callback(&self, slot: usize) -> Option<Callback> {
        self.callbacks.read().unwrap_or_else(|e| e.into_inner())[slot]
    }

    /// Run the program's callback for one event (on the core's dispatch thread): a response
    /// goes to its request's callback, anything else to the callback of its kind.
    fn run_event(&self, ev: Event) {
        if self.freed.load(Ordering::SeqCst) {
            return; // dropped; a server request among them answers fail-closed
        }
        let (mut event, f, userdata) = match ev {
            Event::Response(_) => {
                let (event, callback) = self.to_c(ev);
                let userdata = match &event.body {
                    Body::Response(r) => r.userdata,
                    _ => 0,
                };
                (event, callback, userdata)
            }
            ev => {
                let slot = match &ev {
                    Event::Notification(_) => 0,
                    Event::ServerRequest(_) => 1,
                    _ => 2,
                };
                let Some(cb) = self.callback(slot) else {
                    return; // a server request dropped here answers fail-closed
                };
                (
                    codex_event_t::from_core(self.key, ev),
                    Some(cb.f),
                    cb.userdata,
                )
            }
        };
        if let Some(f) = f {
            // SAFETY: the program registered `f` for this client (or passed it with this
            // request); the event lives for the call.
            unsafe { f(userdata as *mut c_void, &mut event) };
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
    /// free it with `codex_client_free`. Nothing runs yet: the library's shared runtime and
    /// dispatch threads start with the process's first `codex_client_connect` (and are then
    /// used by every client). Errors: INVALID_ARGUMENT (NULL `out`; `opts` not a live options object: freed,
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
    /// Free a client: disconnects first when connected (see `codex_client_disconnect`) and
    /// waits until its callbacks are done on its dispatch thread (so it waits for a callback that is running to return:
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
    /// Callbacks mode, called from any thread but the client's dispatch thread: returns after the
    /// running callback (if any) returned and after the completion callbacks of all in-flight
    /// async requests ran (with CODEX_STATUS_DISCONNECTED); no event callback of this
    /// connection runs afterwards. Called from inside a callback that runs on the client's own
    /// dispatch thread (a callback of this client, or of another client sharing its thread):
    /// the current callback is the last event callback; failed request completions are
    /// delivered after it returns. (Likewise when two callbacks on different dispatch threads
    /// disconnect each other's clients: the second does not wait for the first, so neither
    /// deadlocks.)
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
    /// Whether the connection dropped and the client is reconnecting (with
    /// `codex_options_set_reconnect`); requests made now wait for the rejoin. False for NULL
    /// or a freed client. Thread: any, including inside callbacks. ABI 1.2.
    unsafe fn codex_client_is_reconnecting(client: *const codex_client_t) -> bool {
        shared(client).is_ok_and(|s| s.core.is_reconnecting())
    } ?= false
}

ffi_fn! {
    /// Set (or with a NULL `callback`, remove) the callback of one kind:
    /// `CODEX_CALLBACK_NOTIFICATION`, `CODEX_CALLBACK_SERVER_REQUEST` or
    /// `CODEX_CALLBACK_CONNECTION`. `userdata` is passed back unchanged.
    ///
    /// Every callback of a client runs on the client's one dispatch thread (a library-owned
    /// thread, never the caller's), one at a time, in arrival order. The thread may be shared
    /// with other clients (a small fixed pool): a callback that blocks holds up the other
    /// clients on that thread (`codex_options_set_dedicated_dispatch_thread` gives a client a
    /// thread of its own). Callbacks may call any
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
    /// `codex_client_cancel_request(client, *request_id)` cancels it while it is pending.
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
    /// Cancel a request sent with `codex_client_request` (`request_id` is the id it returned)
    /// that has not been answered yet: its completion comes at once with
    /// `CODEX_STATUS_CANCELLED` (callbacks mode: the completion callback on the dispatch
    /// thread; poll mode: a CODEX_EVENT_RESPONSE event), and an MCP server is told with
    /// `notifications/cancelled` (a later answer of the server is dropped). Exactly one
    /// completion still comes per request: when the answer, a timeout or the disconnect
    /// settled the request first, this returns INVALID_STATE and the completion carries that
    /// outcome. A blocking `codex_client_call` cannot be cancelled (bound it with its
    /// `timeout_ms`; a timed-out MCP request is cancelled at the server too).
    /// Errors: INVALID_ARGUMENT (`request_id` 0), NOT_CONNECTED, INVALID_STATE (no such request
    /// pending: answered, timed out or failed already, or never sent by this client).
    /// Thread: any, including inside callbacks.
    unsafe fn codex_client_cancel_request(
        client: *mut codex_client_t,
        request_id: u64,
    ) -> codex_status_t {
        let s = shared(client)?;
        if request_id == 0 {
            return Err(invalid_arg("request_id 0 is no request's id (ids start at 1)"));
        }
        if s.core.cancel_request(request_id) {
            return Ok(());
        }
        if !s.core.is_connected() {
            return Err(Fail::Core(Error::NotConnected));
        }
        Err(invalid_state(format!(
            "no request {request_id} is pending on this client: it was answered, timed out or \
             failed already (its completion carries that outcome), or codex_client_request never \
             returned that id"
        )))
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
        let r = shared(client).and_then(|s| {
            if !s.poll {
                return Err(invalid_state(
                    "codex_client_event_fd needs a client created with \
                     codex_options_set_delivery(o, CODEX_DELIVERY_POLL)",
                ));
            }
            Ok(s.core.event_fd()?)
        });
        crate::error::value_or(r, -1)
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
