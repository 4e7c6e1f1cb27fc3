//! Server requests answered by reference (issue 40): a request's JSON reference
//! (`codex_request_to_json`, or the `server_request` member of `codex_event_to_json`), which
//! parks it, goes to another process; the answer comes back with that reference to the
//! client that owns it (`codex_client_respond_ref`, `codex_client_respond_ref_error`). The
//! lookup, the parking and every error are the core's (`Client::request_by_ref`).

use std::ffi::c_char;

use codex_client::{RequestRef, RpcError};

use super::client::{codex_client_t, shared};
use super::server_request::codex_request_t;
use crate::error::codex_status_t;
use crate::handles;
use crate::strings::{opt_str, params_value, put_string, req_out, req_str};

ffi_fn! {
    /// The client's id: 128 random bits in hex, made by `codex_client_new` (never the same in
    /// two processes). It is the `owner` of the client's server-request references: a
    /// reference is answered only by the client whose id it names. `*out` receives a string
    /// the program frees with `codex_string_free`. Thread: any. ABI 1.11.
    unsafe fn codex_client_id(
        client: *const codex_client_t,
        out: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let s = shared(client)?;
        put_string(out, s.core().id());
        Ok(())
    }
}

ffi_fn! {
    /// The reference of a server request as JSON text: `{"owner", "connection", "endpoint",
    /// "id", "method", "params"}` (`owner`: the id of the client that received it;
    /// `connection`: the link it came on; `endpoint`: the client's label, option `label`,
    /// absent when it has none). Making it **parks** the request: the client keeps it open,
    /// even once every handle is freed, until the answer comes by reference
    /// (`codex_client_respond_ref`, from this or another process), the server resolves it,
    /// the connection ends, or option `parked_request_timeout` passes (then it is answered
    /// fail-closed, approvals declined, with a WARNING log line). `*json_out` receives a
    /// string the program frees with `codex_string_free`. `CODEX_STATUS_INVALID_ARGUMENT` for
    /// a NULL or freed handle. Thread: any, including inside callbacks. ABI 1.11.
    unsafe fn codex_request_to_json(
        request: *const codex_request_t,
        json_out: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(json_out, "json_out")?;
        let e = handles::get(request, "request")?;
        put_string(json_out, &e.request.to_json());
        Ok(())
    }
}

ffi_fn! {
    /// Answer the server request a JSON reference names (`ref_json`: from
    /// `codex_request_to_json`, or the `server_request` member of `codex_event_to_json`) with
    /// a result given as JSON text (for an approval `{"decision":"accept"}`; see
    /// `codex_client_respond_ref_decision` for the generic words), on the client that owns it.
    ///
    /// Returns `CODEX_STATUS_INVALID_ARGUMENT` for a reference of another client (the message
    /// names both ids and labels), one naming another method than the request of its id, bad
    /// JSON or a NULL argument; `CODEX_STATUS_CONNECTION_LOST` when its connection was lost
    /// and the client reconnected or is reconnecting (the server asks again);
    /// `CODEX_STATUS_DISCONNECTED` when its connection has ended; and
    /// `CODEX_STATUS_ALREADY_RESPONDED` when it was answered (by reference or through a
    /// handle, also fail-closed at its bound) or resolved by the server. Ownership: borrows
    /// everything. Thread: any, including inside callbacks; now or later. Never blocks.
    /// ABI 1.11.
    unsafe fn codex_client_respond_ref(
        client: *mut codex_client_t,
        ref_json: *const c_char,
        result_json: *const c_char,
    ) -> codex_status_t {
        let s = shared(client)?;
        let r = req_str(ref_json, "ref_json")?;
        let result = req_str(result_json, "result_json")?;
        s.core().respond_ref_json(r, result)?;
        Ok(())
    }
}

ffi_fn! {
    /// Answer the server request a JSON reference names with a JSON-RPC error `{code,
    /// message, data}`; `data_json` may be NULL (no data). Errors as for
    /// `codex_client_respond_ref`. Thread: any, including inside callbacks. ABI 1.11.
    unsafe fn codex_client_respond_ref_error(
        client: *mut codex_client_t,
        ref_json: *const c_char,
        code: i64,
        message: *const c_char,
        data_json: *const c_char,
    ) -> codex_status_t {
        let s = shared(client)?;
        let r = RequestRef::from_json(req_str(ref_json, "ref_json")?)?;
        let message = req_str(message, "message")?.to_owned();
        let data = match opt_str(data_json, "data_json")? {
            None => None,
            text => Some(params_value(text, "data_json", serde_json::Value::Null)?),
        };
        s.core().respond_ref_error(&r, &RpcError::new(code, message, data))?;
        Ok(())
    }
}
