//! `codex_event_t`: one event (notification, server request, request completion, connection
//! report) with lazy accessors. Events are directly owned allocations, not registry tokens
//! (see `handles.rs`): a callback's event is borrowed for the call, one from
//! `codex_client_next_event` is the program's until `codex_event_free`.

use std::ffi::{c_char, c_void, CString};
use std::sync::{Arc, OnceLock};

use codex_client::{ConnectionEvent, Error, Event, EventView, Notification, ServerRequest};
use serde_json::value::RawValue;

use super::server_request::{codex_request_t, register, release, ReqData};
use crate::error::{codex_status_t, invalid_arg, invalid_state, status_of, RpcParts};
use crate::handles;
use crate::util::to_cstring;

/// A callback. `event` is borrowed for the duration of the call: read it with the
/// `codex_event_*` accessors, never free it; take a server request out of it with
/// `codex_event_take_request` to answer after returning. Runs on the client's dispatch thread.
/// Must return normally (no C++ exception, no longjmp across it).
pub type codex_callback_t =
    Option<unsafe extern "C" fn(userdata: *mut c_void, event: *mut codex_event_t)>;

/// Where the completion of one `codex_client_request` goes: attached to the request in the
/// core (`Client::send_request_with`) and handed back with its response.
#[derive(Clone, Copy)]
pub(crate) struct Completion {
    pub callback: codex_callback_t,
    pub userdata: usize,
}

/// What an event is. The numbers are stable; new kinds are only ever appended (a minor ABI
/// version): a program must ignore (and free as usual) an event of a kind it does not know.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum codex_event_kind_t {
    /// Not an event (returned for a NULL event).
    CODEX_EVENT_NONE = 0,
    /// A server notification: `method`, `params`, `thread_id`, `turn_id`, `delta`.
    CODEX_EVENT_NOTIFICATION = 1,
    /// A request from the server awaiting an answer: `method`, `params`, `thread_id`,
    /// `turn_id`, and the request handle (`codex_event_request`, `codex_event_take_request`).
    CODEX_EVENT_SERVER_REQUEST = 2,
    /// The completion of a `codex_client_request`: `request_id`, `status`, `result` or the
    /// error accessors, `method`, `userdata`.
    CODEX_EVENT_RESPONSE = 3,
    /// A line that broke the protocol or was too long; the connection goes on: `error_message`.
    CODEX_EVENT_ERROR = 4,
    /// Notifications were dropped because the program fell far behind: `dropped`.
    CODEX_EVENT_OVERFLOW = 5,
    /// The connection ended (last event of a connection): `error_message` (the reason) and
    /// `stderr_tail`.
    CODEX_EVENT_DISCONNECTED = 6,
    /// The connection dropped and the client is about to reconnect (with
    /// `codex_options_set_reconnect`): `reconnect_attempt`, `reconnect_delay_ms`,
    /// `error_message` (why: the drop, or the last attempt's failure), `reconnect_json`.
    /// ABI 1.2.
    CODEX_EVENT_RECONNECTING = 7,
    /// The client reconnected and resumed its threads: `reconnect_attempt` (attempts it
    /// took), `reconnect_json` (threads resumed and not, requests failed, turns ended).
    /// ABI 1.2.
    CODEX_EVENT_RECONNECTED = 8,
    /// MCP authorization (an MCP HTTP transport with OAuth options) started, succeeded,
    /// refreshed its token or failed: `error_message` (the step in words, never a secret),
    /// `reconnect_json` (`{"auth": "started"|"succeeded"|"refreshed"|"failed", "reason",
    /// "grant", "issuer", "scope"}` as they apply). ABI 1.6.
    CODEX_EVENT_AUTH = 9,
    /// The app-server's Codex version is outside the supported window (or it said none); the
    /// connection goes on: `error_message` (in words), `reconnect_json` (`{"version",
    /// "position": "older"|"newer"|"unknown", "matches", "window"}`). Delivered once per
    /// connect (and per reconnect to such a server). ABI 1.10.
    CODEX_EVENT_OUTSIDE_WINDOW = 10,
    /// The app-server behind the local control socket (`codex app-server daemon`'s) runs
    /// another Codex version than the installed CLI (the `codex` binary the options name); the
    /// connection goes on with the server's version: `error_message` (in words),
    /// `reconnect_json` (the server version's JSON, as OUTSIDE_WINDOW's, with `"source":
    /// "control_socket"` and `"cli_version"`). Delivered once per connect (and per reconnect
    /// to such a server). ABI 1.11.
    CODEX_EVENT_VERSION_MISMATCH = 11,
}

use codex_event_kind_t::*;

/// The completion of an async request.
pub(crate) struct Response {
    pub id: u64,
    pub method: String,
    pub outcome: Result<Box<RawValue>, Error>,
    pub userdata: usize,
}

/// A notification: owned (poll mode) or borrowed from the core for a callback.
pub(crate) enum Note {
    Owned(Notification),
    /// Valid while the callback that received the event runs (the event lives no longer).
    Borrowed(*const Notification),
}

impl Note {
    fn get(&self) -> &Notification {
        match self {
            Note::Owned(n) => n,
            // SAFETY: a borrowed note lives in an event that lives only during the handler
            // call that lent the notification (`codex_event_t::with_notification`).
            Note::Borrowed(p) => unsafe { &**p },
        }
    }
}

pub(crate) enum Body {
    Notification(Note),
    ServerRequest {
        handle: *mut codex_request_t,
        data: Arc<ReqData>,
        /// Whether the event still owns the handle (not taken by the program).
        owned: bool,
    },
    Response(Response),
    Connection(ConnectionEvent),
}

/// One event. Opaque.
///
/// Ownership: from `codex_client_next_event` the program owns it and frees it with
/// `codex_event_free`; in a callback it is borrowed and freed by the library when the callback
/// returns. Strings returned by its accessors live as long as the event.
pub struct codex_event_t {
    pub(crate) body: Body,
    /// The strings the accessors return, by `Text`, made on first access.
    texts: [OnceLock<Option<CString>>; 11],
    rpc: OnceLock<Option<RpcParts>>,
}

/// The slots of `codex_event_t::texts`.
#[derive(Clone, Copy)]
enum Text {
    Method,
    Params,
    ThreadId,
    TurnId,
    Delta,
    Result,
    Message,
    StderrTail,
    Reconnect,
    Json,
    Endpoint,
}

impl codex_event_t {
    pub(crate) fn new(body: Body) -> codex_event_t {
        codex_event_t {
            body,
            texts: Default::default(),
            rpc: OnceLock::new(),
        }
    }

    /// Wrap a core event (poll mode); server requests are registered as handles of client
    /// `owner`. `None` for a kind of event this binding does not know (a newer core's).
    pub(crate) fn from_core(owner: u64, ev: Event) -> Option<codex_event_t> {
        Some(match ev {
            Event::Notification(n) => codex_event_t::new(Body::Notification(Note::Owned(n))),
            Event::ServerRequest(r) => codex_event_t::server_request(owner, r),
            Event::Connection(c) => codex_event_t::connection(c),
            Event::Response(r) => codex_event_t::response(r).0,
            _ => return None,
        })
    }

    /// Run `f` with an event borrowing notification `n` (callbacks mode: no copy).
    pub(crate) fn with_notification<T>(n: &Notification, f: impl FnOnce(&mut Self) -> T) -> T {
        let mut ev = codex_event_t::new(Body::Notification(Note::Borrowed(n)));
        f(&mut ev)
    }

    /// A server request event; the request is registered as a handle of client `owner`
    /// (released, and answered fail-closed if still open, when the event is dropped unless
    /// the program took it).
    pub(crate) fn server_request(owner: u64, r: ServerRequest) -> codex_event_t {
        let (handle, data) = register(owner, r);
        codex_event_t::new(Body::ServerRequest {
            handle,
            data,
            owned: true,
        })
    }

    /// A connection report.
    pub(crate) fn connection(c: ConnectionEvent) -> codex_event_t {
        codex_event_t::new(Body::Connection(c))
    }

    /// The completion of a `codex_client_request`, and the callback it goes to (the
    /// completion attached to the request comes back with the core's response).
    pub(crate) fn response(r: codex_client::Response) -> (codex_event_t, codex_callback_t) {
        let c = r
            .attachment
            .as_ref()
            .and_then(|a| a.downcast_ref::<Completion>())
            .copied()
            .unwrap_or(Completion {
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

    pub(crate) fn kind(&self) -> codex_event_kind_t {
        match &self.body {
            Body::Notification(_) => CODEX_EVENT_NOTIFICATION,
            Body::ServerRequest { .. } => CODEX_EVENT_SERVER_REQUEST,
            Body::Response(_) => CODEX_EVENT_RESPONSE,
            Body::Connection(c) => match c {
                ConnectionEvent::Error(_) => CODEX_EVENT_ERROR,
                ConnectionEvent::Overflow { .. } => CODEX_EVENT_OVERFLOW,
                ConnectionEvent::Disconnected(_) => CODEX_EVENT_DISCONNECTED,
                ConnectionEvent::Reconnecting(_) => CODEX_EVENT_RECONNECTING,
                ConnectionEvent::Reconnected(_) => CODEX_EVENT_RECONNECTED,
                ConnectionEvent::Auth(_) => CODEX_EVENT_AUTH,
                ConnectionEvent::OutsideWindow(_) => CODEX_EVENT_OUTSIDE_WINDOW,
                ConnectionEvent::VersionMismatch(_) => CODEX_EVENT_VERSION_MISMATCH,
                // A connection event newer than this ABI: reported as an error event (its
                // message and JSON view still say what it is).
                _ => CODEX_EVENT_ERROR,
            },
        }
    }

    /// The `userdata` of a RESPONSE event's request (0 for other kinds).
    pub(crate) fn userdata(&self) -> usize {
        match &self.body {
            Body::Response(r) => r.userdata,
            _ => 0,
        }
    }

    fn error(&self) -> Option<&Error> {
        match &self.body {
            Body::Response(r) => r.outcome.as_ref().err(),
            _ => None,
        }
    }
}

impl Drop for codex_event_t {
    fn drop(&mut self) {
        if let Body::ServerRequest {
            handle,
            owned: true,
            ..
        } = &self.body
        {
            release(*handle);
        }
    }
}

/// The string in slot `t` of `e`, made by `f` on first access (NULL for `None`).
fn cached(e: &codex_event_t, t: Text, f: impl FnOnce() -> Option<CString>) -> *const c_char {
    e.texts[t as usize]
        .get_or_init(f)
        .as_ref()
        .map_or(std::ptr::null(), |s| s.as_ptr())
}

/// Run `f` on a non-NULL event, else return `default`.
fn with<T>(ev: *const codex_event_t, default: T, f: impl FnOnce(&codex_event_t) -> T) -> T {
    // SAFETY: the program passes a live event or NULL.
    match unsafe { ev.as_ref() } {
        Some(e) => f(e),
        None => default,
    }
}

/// Generate a string accessor: `|e| EXPR` makes the string of event `e` (`None`: NULL) on
/// first access; it is kept in slot `Text::SLOT` of the event, which owns it.
macro_rules! text_accessor {
    ($(#[$doc:meta])* $name:ident, $slot:ident, |$e:ident| $make:expr) => {
        ffi_fn! {
            $(#[$doc])*
            unsafe fn $name(event: *const codex_event_t) -> *const c_char {
                with(event, std::ptr::null(), |$e| cached($e, Text::$slot, || $make))
            } ?= std::ptr::null()
        }
    };
}

/// Generate a value accessor: `|e| EXPR` reads event `e`; NULL (or a panic) gives `DEFAULT`.
macro_rules! value_accessor {
    ($(#[$doc:meta])* $name:ident -> $ty:ty = $default:expr, |$e:ident| $read:expr) => {
        ffi_fn! {
            $(#[$doc])*
            unsafe fn $name(event: *const codex_event_t) -> $ty {
                with(event, $default, |$e| $read)
            } ?= $default
        }
    };
}

ffi_fn! {
    /// The kind of an event (`CODEX_EVENT_NONE` for NULL).
    ///
    /// Event accessors (all `codex_event_*` readers): the event stays owned by whoever owned it;
    /// returned strings are borrowed from the event. Thread: any thread, but not concurrently with
    /// `codex_event_free` of the same event; a callback's event only inside the callback.
    unsafe fn codex_event_kind(event: *const codex_event_t) -> codex_event_kind_t {
        with(event, CODEX_EVENT_NONE, |e| e.kind())
    } ?= CODEX_EVENT_NONE
}

text_accessor! {
    /// The method: of the notification, of the server request, or of the request a RESPONSE
    /// completes. NULL for other kinds. Ownership: the event's (valid until it is freed).
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_method, Method, |e| match &e.body {
        Body::Notification(n) => Some(to_cstring(&n.get().method)),
        Body::ServerRequest { data, .. } => Some(data.method.clone()),
        Body::Response(r) => Some(to_cstring(&r.method)),
        _ => None,
    }
}

text_accessor! {
    /// The `params` JSON text of a notification or server request ("null" when the server sent
    /// none); NULL for other kinds. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_params, Params, |e| match &e.body {
        Body::Notification(n) => Some(to_cstring(n.get().params_json())),
        Body::ServerRequest { data, .. } => Some(data.params.clone()),
        _ => None,
    }
}

text_accessor! {
    /// `params.threadId` of a notification or server request, or NULL. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_thread_id, ThreadId, |e| match &e.body {
        Body::Notification(n) => n.get().thread_id().map(|s| to_cstring(&s)),
        Body::ServerRequest { data, .. } => data.thread_id.clone(),
        _ => None,
    }
}

text_accessor! {
    /// The turn a notification or server request belongs to: `params.turnId`, or for notifications
    /// that carry the turn itself (`turn/started`, `turn/completed`) `params.turn.id`; NULL when
    /// there is none. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_turn_id, TurnId, |e| match &e.body {
        Body::Notification(n) => n.get().turn_id().map(|s| to_cstring(&s)),
        Body::ServerRequest { data, .. } => data.turn_id.clone(),
        _ => None,
    }
}

ffi_fn! {
    /// The text of a delta notification (`params.delta` of `item/agentMessage/delta` and the
    /// other notifications whose method ends in `/delta`), decoded, without parsing JSON yourself; NULL when the event
    /// has no string `params.delta`. When `len` is not NULL it receives the length in bytes (the
    /// text may contain NUL bytes; the returned string is NUL-terminated after `len` bytes).
    /// Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    unsafe fn codex_event_delta(
        event: *const codex_event_t,
        len: *mut usize,
    ) -> *const c_char {
        if !len.is_null() {
            *len = 0;
        }
        with(event, std::ptr::null(), |e| {
            let cell = e.texts[Text::Delta as usize].get_or_init(|| match &e.body {
                Body::Notification(n) => n.get().delta().map(|d| {
                    // Keep interior NULs: build the C string from the raw bytes.
                    let mut bytes = d.into_bytes();
                    bytes.push(0);
                    // SAFETY: exactly one terminating NUL was appended; interior NULs are
                    // allowed by `from_vec_with_nul_unchecked` and reported through `len`.
                    unsafe { CString::from_vec_with_nul_unchecked(bytes) }
                }),
                _ => None,
            });
            match cell {
                Some(s) => {
                    if !len.is_null() {
                        *len = s.as_bytes_with_nul().len() - 1;
                    }
                    s.as_ptr()
                }
                None => std::ptr::null(),
            }
        })
    } ?= std::ptr::null()
}

value_accessor! {
    /// The handle of a SERVER_REQUEST event's request (NULL for other kinds). Borrowed: valid
    /// while the event lives, unless taken with `codex_event_take_request` (then until the program
    /// frees it). Answer it with `codex_client_respond`, even without taking it.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_request -> *mut codex_request_t = std::ptr::null_mut(), |e| match &e.body {
        Body::ServerRequest { handle, .. } => *handle,
        _ => std::ptr::null_mut(),
    }
}

ffi_fn! {
    /// Take ownership of a SERVER_REQUEST event's request, to answer it after the event is freed
    /// (or after the callback returns). The program must free it with `codex_request_free`.
    /// A request that is not taken is answered fail-closed when its event is freed (or, in a
    /// callback, when the callback returns) unless it was answered already.
    /// Errors: INVALID_ARGUMENT (NULL, not a server request), INVALID_STATE (already taken).
    /// Thread: any (inside a callback: before it returns).
    unsafe fn codex_event_take_request(
        event: *mut codex_event_t,
        request: *mut *mut codex_request_t,
    ) -> codex_status_t {
        crate::strings::clear_out(request);
        let e = event.as_mut().ok_or_else(|| invalid_arg("event is NULL"))?;
        if request.is_null() {
            return Err(invalid_arg("request (out) is NULL"));
        }
        match &mut e.body {
            Body::ServerRequest { handle, owned, .. } => {
                if !*owned {
                    return Err(invalid_state("the request was already taken from this event"));
                }
                *owned = false;
                *request = *handle;
                Ok(())
            }
            _ => Err(invalid_arg("not a CODEX_EVENT_SERVER_REQUEST event")),
        }
    }
}

value_accessor! {
    /// The id `codex_client_request` returned, for a RESPONSE event (0 otherwise). Thread: as for
    /// every event accessor (see `codex_event_kind`).
    codex_event_request_id -> u64 = 0, |e| match &e.body {
        Body::Response(r) => r.id,
        _ => 0,
    }
}

ffi_fn! {
    /// The outcome of a RESPONSE event (`CODEX_STATUS_OK`, `CODEX_STATUS_RPC_ERROR`,
    /// `CODEX_STATUS_TIMEOUT`, `CODEX_STATUS_DISCONNECTED`, `CODEX_STATUS_CANCELLED` after
    /// `codex_client_cancel_request`, ...); `CODEX_STATUS_DISCONNECTED` for a
    /// DISCONNECTED event; `CODEX_STATUS_OK` for other kinds; `CODEX_STATUS_INVALID_ARGUMENT` for
    /// NULL.
    /// Thread: as every event accessor (see `codex_event_kind`).
    unsafe fn codex_event_status(event: *const codex_event_t) -> codex_status_t {
        with(event, codex_status_t::CODEX_STATUS_INVALID_ARGUMENT, |e| match &e.body {
            Body::Response(r) => match &r.outcome {
                Ok(_) => codex_status_t::CODEX_STATUS_OK,
                Err(err) => status_of(err),
            },
            Body::Connection(ConnectionEvent::Disconnected(_)) => {
                codex_status_t::CODEX_STATUS_DISCONNECTED
            }
            _ => codex_status_t::CODEX_STATUS_OK,
        })
    } ?= codex_status_t::CODEX_STATUS_PANIC
}

text_accessor! {
    /// The result JSON text of a successful RESPONSE event; NULL otherwise. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_result, Result, |e| match &e.body {
        Body::Response(Response { outcome: Ok(v), .. }) => Some(to_cstring(v.get())),
        _ => None,
    }
}

text_accessor! {
    /// A human-readable message: the error of a failed RESPONSE, the text of an ERROR event, the
    /// reason of a DISCONNECTED event; NULL otherwise. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_error_message, Message, |e| match &e.body {
        Body::Response(Response { outcome: Err(err), .. }) => Some(to_cstring(&err.to_string())),
        Body::Connection(c @ ConnectionEvent::Error(_)) => Some(to_cstring(&c.to_string())),
        Body::Connection(ConnectionEvent::Disconnected(info)) => Some(to_cstring(&info.reason)),
        Body::Connection(ConnectionEvent::Reconnecting(a)) => Some(to_cstring(&a.cause)),
        Body::Connection(c @ ConnectionEvent::Auth(_)) => Some(to_cstring(&c.to_string())),
        _ => None,
    }
}

value_accessor! {
    /// RECONNECTING: the attempt about to be made (1 for the first); RECONNECTED: the attempts
    /// it took. 0 for other kinds. Thread: as every event accessor (see `codex_event_kind`).
    /// ABI 1.2.
    codex_event_reconnect_attempt -> u32 = 0, |e| match &e.body {
        Body::Connection(ConnectionEvent::Reconnecting(a)) => a.attempt,
        Body::Connection(ConnectionEvent::Reconnected(r)) => r.attempts,
        _ => 0,
    }
}

value_accessor! {
    /// RECONNECTING: how long the client waits before this attempt, in milliseconds; 0
    /// otherwise. Thread: as every event accessor (see `codex_event_kind`). ABI 1.2.
    codex_event_reconnect_delay_ms -> u64 = 0, |e| match &e.body {
        Body::Connection(ConnectionEvent::Reconnecting(a)) => a.delay.as_millis() as u64,
        _ => 0,
    }
}

text_accessor! {
    /// The whole report of a RECONNECTING, RECONNECTED, AUTH, OUTSIDE_WINDOW or
    /// VERSION_MISMATCH event as JSON text (OUTSIDE_WINDOW, VERSION_MISMATCH: see their
    /// kinds); NULL for other kinds. RECONNECTING: `{"attempt","maxAttempts","delayMs","cause"}`. RECONNECTED:
    /// `{"attempts","threads":[id…],"failedThreads":[{"threadId","error"}…],
    /// "requestsFailed","serverRequestsDropped","turnsEnded":[{"threadId","turnId","status"}…]}`.
    /// Ownership: the event's. Thread: as every event accessor (see `codex_event_kind`).
    /// ABI 1.2.
    codex_event_reconnect_json, Reconnect, |e| match &e.body {
        Body::Connection(c) => c.report_json().map(|j| to_cstring(&j)),
        _ => None,
    }
}

text_accessor! {
    /// The last lines the server wrote to stderr, for a DISCONNECTED event or a RESPONSE that
    /// failed with `CODEX_STATUS_DISCONNECTED` (may be ""); NULL otherwise. Ownership: the event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_stderr_tail, StderrTail, |e| match &e.body {
        Body::Connection(ConnectionEvent::Disconnected(info)) => Some(to_cstring(&info.stderr_tail)),
        Body::Response(Response { outcome: Err(Error::Disconnected(info)), .. }) => {
            Some(to_cstring(&info.stderr_tail))
        }
        _ => None,
    }
}

fn rpc(e: &codex_event_t) -> Option<&RpcParts> {
    e.rpc
        .get_or_init(|| e.error().and_then(RpcParts::of))
        .as_ref()
}

value_accessor! {
    /// The JSON-RPC error code of a RESPONSE that failed with `CODEX_STATUS_RPC_ERROR` or
    /// `CODEX_STATUS_OVERLOADED`; 0 otherwise.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_rpc_code -> i64 = 0, |e| rpc(e).map_or(0, |r| r.code)
}

value_accessor! {
    /// The server's JSON-RPC error message of such a RESPONSE; NULL otherwise. Ownership: the
    /// event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_rpc_message -> *const c_char = std::ptr::null(), |e| rpc(e).map_or(std::ptr::null(), |r| r.message.as_ptr())
}

value_accessor! {
    /// The JSON-RPC error `data` (JSON text) of such a RESPONSE; NULL when absent. Ownership: the
    /// event's.
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_rpc_data -> *const c_char = std::ptr::null(), |e| rpc(e)
        .and_then(|r| r.data.as_ref())
        .map_or(std::ptr::null(), |d| d.as_ptr())
}

value_accessor! {
    /// How many notifications an OVERFLOW event reports as dropped (0 otherwise).
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_dropped -> u64 = 0, |e| match &e.body {
        Body::Connection(ConnectionEvent::Overflow { dropped }) => *dropped,
        _ => 0,
    }
}

value_accessor! {
    /// The `userdata` given to `codex_client_request`, for a RESPONSE event (NULL otherwise).
    /// Thread: as every event accessor (see `codex_event_kind`).
    codex_event_userdata -> *mut c_void = std::ptr::null_mut(), |e| e.userdata() as *mut c_void
}

text_accessor! {
    /// The label of the client that received a notification or server request (option
    /// `label`; in a pool, the endpoint's name); NULL for other kinds or when the client has
    /// none. Ownership: the event's. Thread: as every event accessor (see `codex_event_kind`).
    /// ABI 1.11.
    codex_event_endpoint, Endpoint, |e| match &e.body {
        Body::Notification(n) => n.get().endpoint().map(to_cstring),
        Body::ServerRequest { data, .. } => data.endpoint.clone(),
        _ => None,
    }
}

text_accessor! {
    /// The event in the core's serialised form, as JSON text, for another process:
    /// `{"notification": {"method", "params", "endpoint"}}`, `{"server_request": {"owner",
    /// "connection", "endpoint", "id", "method", "params"}}` (the request's reference, which
    /// `codex_client_respond_ref` answers on the owning client; making it **parks** the
    /// request, see `codex_request_to_json`), `{"connection": {"kind", "message", ...}}` or
    /// `{"response": {"token", "method", "result" | "error"}}`. NULL for a server request
    /// already taken out of the event and freed. Ownership: the event's. Thread: as every
    /// event accessor (see `codex_event_kind`). ABI 1.11.
    codex_event_to_json, Json, |e| match &e.body {
        Body::Notification(n) => Some(to_cstring(&EventView::Notification(n.get()).to_json())),
        Body::ServerRequest { handle, .. } => handles::find(*handle)
            .map(|entry| to_cstring(&EventView::ServerRequest(&entry.request).to_json())),
        Body::Connection(c) => Some(to_cstring(&EventView::Connection(c).to_json())),
        Body::Response(r) => {
            let core = codex_client::Response::new(r.id, r.method.clone(), r.outcome.clone());
            Some(to_cstring(&EventView::Response(&core).to_json()))
        }
    }
}

ffi_fn! {
    /// Free an event returned by `codex_client_next_event`. A server request it still owns (not
    /// taken) is answered fail-closed if unanswered. NULL is ignored. Freeing an event twice, or
    /// the borrowed event a callback receives, is detected and ignored (the calling thread's last
    /// error becomes CODEX_STATUS_INVALID_ARGUMENT).
    /// Thread: any.
    unsafe fn codex_event_free(event: *mut codex_event_t) {
        if event.is_null() {
            return;
        }
        if let Some(e) = handles::take_back(event) {
            drop(e);
        } else {
            crate::error::record(&invalid_arg(
                "codex_event_free: not an event from codex_client_next_event (freed twice, or \
                 a callback's borrowed event); ignored",
            ));
        }
    }
}
