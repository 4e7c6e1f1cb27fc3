//! Requests by method name on any server, as JSON text: `codex_client_request` (async, its
//! completion a callback or a poll-mode event), `codex_client_cancel_request`,
//! `codex_client_call` (blocking) and `codex_client_notify`. The typed functions of the
//! Codex client (`crate::codex`) and the MCP request names (`crate::mcp`) build on the same
//! core calls.

use std::ffi::{c_char, c_void};

use codex_client::Error;

use super::client::{codex_client_t, request_options, shared};
use super::event::{codex_callback_t, Completion};
use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};
use crate::strings::{clear_out, opt_str, params_raw, params_value, put_string, req_str};

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
        let id = s.core().send_request_with(
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
        if s.core().cancel_request(request_id) {
            return Ok(());
        }
        if !s.core().is_connected() {
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
        let raw = s.core().request_raw_blocking(method, &params, request_options(timeout_ms))?;
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
        s.core().notify(method, params)?;
        Ok(())
    }
}
