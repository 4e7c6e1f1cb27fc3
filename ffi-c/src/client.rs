//! `codex_client_t`: lifecycle, requests, callbacks and poll mode, as an adapter over the
//! core's client.
//!
//! Callbacks mode: each program callback is registered into the core's handler table
//! (`Client::on_notification`, `on_server_request`, `on_connection_event`) and runs on the
//! core's dispatch thread with a borrowed `codex_event_t`; the completion of a
//! `codex_client_request` travels through the core attached to its request
//! (`Client::send_request_with`) and comes back to the core's response handler
//! (`Client::on_response`), which runs the request's callback. Poll mode:
//! `codex_client_next_event` pulls the core's events (responses included, each carrying its
//! userdata) and `codex_client_event_fd` is the core's readiness descriptor. The binding keeps
//! no thread, queue, descriptor, handler table, request table or connection state of its own.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;
use std::time::Duration;

use codex_client::{Client, Delivery, Error, HandlerSlot, RequestOptions, RpcError};

use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};
use crate::event::{codex_callback_t, codex_event_t, Completion};
use crate::handles::{self, Handle, Kind, Table};
use crate::options::{self, codex_options_t};
use crate::request::{self, codex_request_t};
use crate::strings::{clear_out, opt_str, params_raw, params_value, put_string, req_str, req_strs};

/// Which callback `codex_client_register_callback` sets.
pub type codex_callback_kind_t = u32;

/// Server notifications (`CODEX_EVENT_NOTIFICATION` events).
pub const CODEX_CALLBACK_NOTIFICATION: codex_callback_kind_t = 1;

/// Server requests (`CODEX_EVENT_SERVER_REQUEST` events). Without one, every server request
/// is answered fail-closed: approvals are declined.
pub const CODEX_CALLBACK_SERVER_REQUEST: codex_callback_kind_t = 2;

/// Connection reports: `CODEX_EVENT_ERROR`, `CODEX_EVENT_OVERFLOW`, `CODEX_EVENT_DISCONNECTED`,
/// `CODEX_EVENT_RECONNECTING`, `CODEX_EVENT_RECONNECTED`.
pub const CODEX_CALLBACK_CONNECTION: codex_callback_kind_t = 3;

/// A client of one Codex app-server. Opaque handle: a token the library checks on every
/// call (a NULL, freed or foreign pointer gives CODEX_STATUS_INVALID_ARGUMENT), never
/// dereferenced.
///
/// Create with `codex_client_new`, free with `codex_client_free`. All functions taking a
/// client may be called from any thread, concurrently (except `codex_client_free`, which must
/// be the last call).
pub struct codex_client_t {
    _opaque: [u8; 0],
}

/// What a client handle stands for.
pub(crate) struct ClientState {
    /// Unique id of the client (its handle's serial, never reused), tying server-request
    /// handles to their client.
    pub(crate) key: u64,
    core: Client,
}

static CLIENTS: Table<ClientState> = Table::new();

impl Handle for codex_client_t {
    type Target = ClientState;
    const KIND: Kind = Kind::Client;
    const NOT_LIVE: &'static str = "is not a live client (already freed with codex_client_free?)";
    fn table() -> &'static Table<ClientState> {
        &CLIENTS
    }
}

/// Request options with a timeout in milliseconds (0: the client's default).
pub(crate) fn request_options(timeout_ms: u64) -> RequestOptions {
    if timeout_ms == 0 {
        RequestOptions::default()
    } else {
        RequestOptions::timeout(Duration::from_millis(timeout_ms))
    }
}

/// The client behind a handle: INVALID_ARGUMENT for NULL or a handle that is not a live
/// client (already freed, or never returned by `codex_client_new`).
pub(crate) fn shared(client: *const codex_client_t) -> Result<Arc<ClientState>, Fail> {
    handles::get(client, "client")
}

impl ClientState {
    pub(crate) fn core(&self) -> &Client {
        &self.core
    }

    fn is_poll(&self) -> bool {
        self.core.options().delivery == Delivery::Poll
    }

    /// Callbacks mode: completions of `codex_client_request` run their request's callback.
    fn route_responses(&self) -> Result<(), Fail> {
        self.core.on_response(|r| {
            let (mut event, callback) = codex_event_t::response(r);
            if let Some(f) = callback {
                let userdata = event.userdata();
                // SAFETY: the program passed `f` with this request; the event lives for the
                // call.
                unsafe { f(userdata as *mut c_void, &mut event) };
            }
        })?;
        Ok(())
    }

    /// Register (or with `None`, remove) the program's callback of one kind in the core's
    /// handler table.
    fn set_callback(
        &self,
        kind: codex_callback_kind_t,
        callback: codex_callback_t,
        userdata: usize,
    ) -> Result<(), Fail> {
        let slot = match kind {
            CODEX_CALLBACK_NOTIFICATION => HandlerSlot::Notification,
            CODEX_CALLBACK_SERVER_REQUEST => HandlerSlot::ServerRequest,
            CODEX_CALLBACK_CONNECTION => HandlerSlot::Connection,
            k => return Err(invalid_arg(format!("unknown callback kind {k}"))),
        };
        let Some(f) = callback else {
            self.core.clear_handler(slot)?;
            return Ok(());
        };
        // SAFETY (each call of `f` below): the program registered `f` with `userdata` for
        // this client; the event lives for the call.
        match slot {
            HandlerSlot::Notification => self.core.on_notification(move |n| {
                codex_event_t::with_notification(n, |ev| unsafe { f(userdata as *mut c_void, ev) })
            })?,
            HandlerSlot::ServerRequest => {
                let owner = self.key;
                self.core.on_server_request(move |r| {
                    // Dropped after the call: an untaken, unanswered request answers
                    // fail-closed.
                    let mut ev = codex_event_t::server_request(owner, r);
                    unsafe { f(userdata as *mut c_void, &mut ev) }
                })?
            }
            _ => self.core.on_connection_event(move |c| {
                let mut ev = codex_event_t::connection(c.clone());
                unsafe { f(userdata as *mut c_void, &mut ev) }
            })?,
        }
        Ok(())
    }

    /// Free: end the connection (its in-flight completions run), then take every callback
    /// out of the core's table, so none runs afterwards even when this is called from a
    /// callback (whose thread the disconnect does not wait for).
    fn shutdown(&self) {
        self.core.disconnect();
        if !self.is_poll() {
            for slot in [
                HandlerSlot::Notification,
                HandlerSlot::ServerRequest,
                HandlerSlot::Connection,
                HandlerSlot::Response,
            ] {
                let _ = self.core.clear_handler(slot);
            }
        }
    }

    fn next_event(&self, timeout_ms: i64) -> Result<Box<codex_event_t>, Fail> {
        if !self.is_poll() {
            return Err(invalid_state(
                "the client uses callback delivery; create it with \
                 codex_options_set_delivery(o, CODEX_DELIVERY_POLL) to pull events",
            ));
        }
        let timeout = (timeout_ms >= 0).then(|| Duration::from_millis(timeout_ms as u64));
        loop {
            match self.core.next_event(timeout)? {
                Some(ev) => {
                    if let Some(e) = codex_event_t::from_core(self.key, ev) {
                        return Ok(Box::new(e));
                    }
                    // A kind of event this binding does not know: skipped.
                }
                None => {
                    return Err(Fail::Status(
                        codex_status_t::CODEX_STATUS_TIMEOUT,
                        format!("no event within {timeout_ms} ms"),
                    ))
                }
            }
        }
    }
}

/// The server request behind `request`, checked to belong to `client`.
fn request_of(
    client: *const codex_client_t,
    request: *const codex_request_t,
) -> Result<Arc<request::Entry>, Fail> {
    let c = shared(client)?;
    let e = handles::get(request, "request")?;
    if e.owner != c.key {
        return Err(invalid_arg("the request belongs to another client"));
    }
    Ok(e)
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
        // `build` looks the options handle up in the registry; it never reads through it.
        let options = options::build(opts)?;
        *out = handles::insert_with::<codex_client_t, Fail>(|key| {
            let state = ClientState {
                key,
                core: Client::new(options),
            };
            if !state.is_poll() {
                state.route_responses()?;
            }
            Ok(Arc::new(state))
        })?;
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
        match handles::remove(client, "client") {
            Ok(state) => state.shutdown(),
            Err(_) => {
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
        let init = s.core.connect()?;
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
        if s.core.end_connection() {
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
        if s.is_poll() {
            return Err(invalid_state(
                "the client uses poll delivery (CODEX_DELIVERY_POLL); callbacks cannot be \
                 registered: pull events with codex_client_next_event",
            ));
        }
        s.set_callback(kind, callback, userdata as usize)
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
        if s.is_poll() && callback.is_some() {
            return Err(invalid_state(
                "poll mode: a request's completion arrives as a CODEX_EVENT_RESPONSE event from \
                 codex_client_next_event; pass a NULL callback",
            ));
        }
        let completion = Completion {
            callback,
            userdata: userdata as usize,
        };
        let id = s.core.send_request_with(
            method,
            &params,
            request_options(timeout_ms),
            Box::new(completion),
        )?;
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
        *event = handles::hand_out(s.next_event(timeout_ms)?);
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
            if !s.is_poll() {
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

ffi_fn! {
    /// Answer a server request with a result, given as JSON text (for an approval:
    /// `{"decision":"accept"}` or `{"decision":"decline"}`).
    ///
    /// Returns `CODEX_STATUS_ALREADY_RESPONDED` when it was answered before (or the server resolved
    /// it), `CODEX_STATUS_DISCONNECTED` when its connection ended, `CODEX_STATUS_INVALID_ARGUMENT`
    /// for bad JSON, a freed handle or another client's request.
    /// Ownership: borrows everything; the request stays owned by whoever owned it.
    /// Thread: any, including inside callbacks; now or later.
    unsafe fn codex_client_respond(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        result_json: *const c_char,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        let json = req_str(result_json, "result_json")?;
        e.request.respond_json(json)?;
        Ok(())
    }
}

ffi_fn! {
    /// Answer an approval request with a decision named by its generic word: `"accept"`,
    /// `"acceptForSession"`, `"decline"` or `"cancel"` (decline and interrupt the turn). The
    /// core words it for the request's method (`{"decision":"accept"}` for the v2 approvals,
    /// `{"decision":"approved"}` for the v1 ones), so a program never spells the protocol's
    /// answer.
    ///
    /// Returns `CODEX_STATUS_INVALID_ARGUMENT` for another word or a request that is not an
    /// approval (answer those with `codex_client_respond`), else as `codex_client_respond`.
    /// Ownership: borrows everything. Thread: any, including inside callbacks; now or later.
    /// ABI 1.7.
    unsafe fn codex_client_respond_decision(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        decision: *const c_char,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        let word = req_str(decision, "decision")?;
        let d = codex_client::Decision::parse(word).ok_or_else(|| {
            invalid_arg(format!(
                "unknown decision {word:?} (accept, acceptForSession, decline, cancel)"
            ))
        })?;
        if !codex_client::is_approval(&e.request.method) {
            return Err(invalid_arg(format!(
                "{} is not an approval request: answer it with codex_client_respond",
                e.request.method
            )));
        }
        e.request.respond_decision(d)?;
        Ok(())
    }
}

ffi_fn! {
    /// Approve a command approval and add an exec-policy rule that allows commands starting
    /// with the `prefix_len` words of `prefix` from now on (`prefix_len` 0: the amendment the
    /// server proposed, `proposedExecpolicyAmendment`). The core words the answer for the
    /// request's method (`acceptWithExecpolicyAmendment` for
    /// `item/commandExecution/requestApproval`, `approved_execpolicy_amendment` for the v1
    /// `execCommandApproval`), so a program never spells it.
    ///
    /// Returns `CODEX_STATUS_INVALID_ARGUMENT` for a request that is not a command approval,
    /// `prefix_len` 0 when the server proposed no amendment, or `prefix` NULL with a non-zero
    /// `prefix_len`; else as `codex_client_respond`. Ownership: borrows everything (`prefix`
    /// is only read during the call). Thread: any, including inside callbacks; now or later.
    /// ABI 1.10.
    unsafe fn codex_client_respond_execpolicy_amendment(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        prefix: *const *const c_char,
        prefix_len: usize,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        if prefix.is_null() && prefix_len > 0 {
            return Err(invalid_arg("prefix is NULL but prefix_len is not 0"));
        }
        let words: Vec<String> = req_strs(prefix, prefix_len, "prefix")?
            .into_iter()
            .map(str::to_owned)
            .collect();
        e.request.respond_execpolicy_amendment(&words)?;
        Ok(())
    }
}

ffi_fn! {
    /// Answer a server request with a JSON-RPC error `{code, message, data}`; `data_json` may be
    /// NULL (no data). Errors as for `codex_client_respond`.
    /// Thread: any, including inside callbacks; now or later.
    unsafe fn codex_client_respond_error(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        code: i64,
        message: *const c_char,
        data_json: *const c_char,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        let message = req_str(message, "message")?.to_owned();
        let data = match opt_str(data_json, "data_json")? {
            None => None,
            text => Some(params_value(text, "data_json", serde_json::Value::Null)?),
        };
        e.request.respond_error(&RpcError::new(code, message, data))?;
        Ok(())
    }
}
