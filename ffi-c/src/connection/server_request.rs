//! Server-request handles (`codex_request_t`): registry tokens (see `handles.rs`) of the
//! requests the server sent. Answering one is a client function (`codex_client_respond`, in
//! `respond.rs`, which checks the request belongs to that client).

use std::ffi::{c_char, CString};
use std::sync::Arc;

use codex_client::ServerRequest;

use crate::handles::{self, Handle, Kind, Table};
use crate::util::to_cstring;

/// A request the server sent (an approval, a question, ...). Opaque handle.
///
/// Ownership: after `codex_event_take_request` the program owns it and must free it with
/// `codex_request_free` (an unanswered request is then answered fail-closed: approvals are
/// declined). Answer it with `codex_client_respond` or `codex_client_respond_error`, now or
/// later, from any thread.
pub struct codex_request_t {
    _opaque: [u8; 0],
}

/// The parts of a server request the accessors return, shared with its event.
pub(crate) struct ReqData {
    pub method: CString,
    pub params: CString,
    pub id_json: CString,
    pub thread_id: Option<CString>,
    pub turn_id: Option<CString>,
    /// The label of the client that received it (option `label`).
    pub endpoint: Option<CString>,
}

/// A live server request: the client it came to, its accessor strings, the core request.
pub(crate) struct Entry {
    /// The serial of the client that received it (`codex_client_respond` checks it).
    pub owner: u64,
    pub data: Arc<ReqData>,
    pub request: ServerRequest,
}

static REQUESTS: Table<Entry> = Table::new();

impl Handle for codex_request_t {
    type Target = Entry;
    const KIND: Kind = Kind::Request;
    const NOT_LIVE: &'static str =
        "is not a live request handle (already freed with codex_request_free?)";
    fn table() -> &'static Table<Entry> {
        &REQUESTS
    }
}

/// Register a server request of client `owner`; returns its handle and data.
pub(crate) fn register(owner: u64, request: ServerRequest) -> (*mut codex_request_t, Arc<ReqData>) {
    let id_json = serde_json::to_string(&request.id).unwrap_or_else(|_| "null".into());
    let data = Arc::new(ReqData {
        method: to_cstring(&request.method),
        params: to_cstring(request.params_json()),
        id_json: to_cstring(&id_json),
        thread_id: request.thread_id().map(|s| to_cstring(&s)),
        turn_id: request.turn_id().map(|s| to_cstring(&s)),
        endpoint: request.endpoint().map(to_cstring),
    });
    let entry = Arc::new(Entry {
        owner,
        data: data.clone(),
        request,
    });
    (handles::insert::<codex_request_t>(entry), data)
}

/// Forget a handle; the request is answered fail-closed if it is still open (when the last
/// call using it returns). Stale handles are ignored.
pub(crate) fn release(handle: *mut codex_request_t) {
    let entry = handles::remove(handle, "request");
    drop(entry); // outside the registry lock: dropping may answer the server
}

fn data_ptr(
    request: *const codex_request_t,
    f: impl Fn(&ReqData) -> Option<&CString>,
) -> *const c_char {
    handles::find(request)
        .and_then(|e| f(&e.data).map(|s| s.as_ptr()))
        .unwrap_or(std::ptr::null())
}

ffi_fn! {
    /// Free a server request the program owns. If it was never answered it is answered
    /// fail-closed first (approvals declined, other methods get a JSON-RPC error). NULL and
    /// already-freed handles are ignored.
    /// Thread: any, including inside callbacks.
    unsafe fn codex_request_free(request: *mut codex_request_t) {
        if !request.is_null() {
            release(request);
        }
    }
}

ffi_fn! {
    /// The request's method, for example "item/commandExecution/requestApproval".
    /// Ownership: the library's; valid until the request is freed (`codex_request_free` once taken,
    /// otherwise until its event is freed or its callback returns). NULL for a NULL or freed handle.
    /// Thread: any.
    unsafe fn codex_request_method(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| Some(&d.method))
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The request's `params` as JSON text. Ownership, lifetime and thread as `codex_request_method`.
    unsafe fn codex_request_params(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| Some(&d.params))
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The server's id of the request as JSON text (for example "0" or "\"abc\"").
    /// Ownership, lifetime and thread as `codex_request_method`.
    unsafe fn codex_request_id(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| Some(&d.id_json))
    } ?= std::ptr::null()
}

ffi_fn! {
    /// `params.threadId`, or NULL. Ownership, lifetime and thread as `codex_request_method`.
    unsafe fn codex_request_thread_id(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| d.thread_id.as_ref())
    } ?= std::ptr::null()
}

ffi_fn! {
    /// `params.turnId`, or NULL. Ownership, lifetime and thread as `codex_request_method`.
    unsafe fn codex_request_turn_id(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| d.turn_id.as_ref())
    } ?= std::ptr::null()
}

ffi_fn! {
    /// Whether the request can still be answered (not answered, resolved, freed or disconnected).
    /// Thread: any.
    unsafe fn codex_request_is_open(request: *const codex_request_t) -> bool {
        handles::find(request).is_some_and(|e| e.request.is_open())
    } ?= false
}

ffi_fn! {
    /// The label of the client that received the request (option `label`; in a pool, the
    /// endpoint's name), or NULL when it has none. Ownership, lifetime and thread as
    /// `codex_request_method`. ABI 1.11.
    unsafe fn codex_request_endpoint(request: *const codex_request_t) -> *const c_char {
        data_ptr(request, |d| d.endpoint.as_ref())
    } ?= std::ptr::null()
}
