//! Server-request handles (`codex_request_t`).
//!
//! A handle is an opaque token, not a pointer: the library keeps every live request in a
//! registry keyed by token, and tokens are never reused. So a handle that was freed (or never
//! existed) is reported as `CODEX_STATUS_INVALID_ARGUMENT` instead of touching freed memory.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use codex_client::{RpcError, ServerRequest};

use crate::client::codex_client_t;
use crate::client::lock;
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{opt_str, req_str, to_cstring};

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
}

struct Entry {
    owner: u64,
    data: Arc<ReqData>,
    request: ServerRequest,
}

static REGISTRY: LazyLock<Mutex<HashMap<u64, Arc<Entry>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// The handle pointer of a token.
pub(crate) fn handle_of(token: u64) -> *mut codex_request_t {
    token as usize as *mut codex_request_t
}

fn token_of(handle: *const codex_request_t) -> u64 {
    handle as usize as u64
}

/// Register a server request of client `owner`; returns its token and data.
pub(crate) fn register(owner: u64, request: ServerRequest) -> (u64, Arc<ReqData>) {
    let id_json = serde_json::to_string(&request.id).unwrap_or_else(|_| "null".into());
    let data = Arc::new(ReqData {
        method: to_cstring(&request.method),
        params: to_cstring(request.params_json()),
        id_json: to_cstring(&id_json),
        thread_id: request.thread_id().map(|s| to_cstring(&s)),
        turn_id: request.turn_id().map(|s| to_cstring(&s)),
    });
    let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
    let entry = Arc::new(Entry {
        owner,
        data: data.clone(),
        request,
    });
    lock(&REGISTRY).insert(token, entry);
    (token, data)
}

/// Forget a token; the request is answered fail-closed if it is still open.
pub(crate) fn release(token: u64) {
    let entry = lock(&REGISTRY).remove(&token);
    drop(entry); // outside the lock: dropping may answer the server
}

fn lookup(handle: *const codex_request_t) -> Option<Arc<Entry>> {
    if handle.is_null() {
        return None;
    }
    lock(&REGISTRY).get(&token_of(handle)).cloned()
}

fn entry_for(
    client: *const codex_client_t,
    request: *const codex_request_t,
) -> Result<Arc<Entry>, Fail> {
    let c = crate::client::shared(client)?;
    if request.is_null() {
        return Err(invalid_arg("request is NULL"));
    }
    let e = lookup(request).ok_or_else(|| {
        invalid_arg("unknown request handle (already freed with codex_request_free?)")
    })?;
    if e.owner != c.key {
        return Err(invalid_arg("the request belongs to another client"));
    }
    Ok(e)
}

fn data_ptr(
    request: *const codex_request_t,
    f: impl Fn(&ReqData) -> Option<&CString>,
) -> *const c_char {
    lookup(request)
        .and_then(|e| f(&e.data).map(|s| s.as_ptr()))
        .unwrap_or(std::ptr::null())
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
        let e = entry_for(client, request)?;
        let json = req_str(result_json, "result_json")?;
        e.request.respond_json(json)?;
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
        let e = entry_for(client, request)?;
        let message = req_str(message, "message")?.to_owned();
        let data = match opt_str(data_json, "data_json")? {
            None => None,
            Some(t) => Some(serde_json::from_str(t)
                .map_err(|err| invalid_arg(format!("data_json is not valid JSON: {err}")))?),
        };
        e.request.respond_error(&RpcError { code, message, data })?;
        Ok(())
    }
}

ffi_fn! {
    /// Free a server request the program owns. If it was never answered it is answered
    /// fail-closed first (approvals declined, other methods get a JSON-RPC error). NULL and
    /// already-freed handles are ignored.
    /// Thread: any, including inside callbacks.
    unsafe fn codex_request_free(request: *mut codex_request_t) {
        if !request.is_null() {
            release(token_of(request));
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
        lookup(request).is_some_and(|e| e.request.is_open())
    } ?= false
}
