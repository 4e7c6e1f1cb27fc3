//! Answering a server request (`codex_request_t`) with a result or a JSON-RPC error, from any
//! thread, now or later: `codex_client_respond`, `codex_client_respond_error`. The Codex
//! approvals' own answers are the Codex client's (`codex/approval.rs`).

use std::ffi::c_char;
use std::sync::Arc;

use codex_client::RpcError;

use super::client::{codex_client_t, shared};
use super::server_request::{codex_request_t, Entry};
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::handles;
use crate::strings::{opt_str, params_value, req_str};

/// The server request behind `request`, checked to belong to `client`.
pub(crate) fn request_of(
    client: *const codex_client_t,
    request: *const codex_request_t,
) -> Result<Arc<Entry>, Fail> {
    let c = shared(client)?;
    let e = handles::get(request, "request")?;
    if e.owner != c.key {
        return Err(invalid_arg("the request belongs to another client"));
    }
    Ok(e)
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
