//! Blocking helpers for the common path: start a thread, start a turn, interrupt, steer.

use std::ffi::c_char;
use std::time::Duration;

use codex_client::{thread_id_of, turn_id_of, Helper, Input, RequestOptions, TurnStream};
use serde_json::{json, Value};

use crate::client::{codex_client_t, shared};
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{clear_out, opt_str, params_value, put_string, req_str};

fn opts(timeout_ms: u64) -> RequestOptions {
    if timeout_ms == 0 {
        RequestOptions::default()
    } else {
        RequestOptions::timeout(Duration::from_millis(timeout_ms))
    }
}

fn object(json: *const c_char, what: &str) -> Result<serde_json::Map<String, Value>, Fail> {
    // SAFETY: the program passes NULL or a valid string.
    let text = unsafe { opt_str(json, what) }?;
    match params_value(text, what, json!({}))? {
        Value::Object(m) => Ok(m),
        _ => Err(invalid_arg(format!("{what} must be a JSON object"))),
    }
}

ffi_fn! {
    /// `thread/start`: start a new thread. `params_json` (may be NULL) is a JSON object of extra
    /// parameters (for example `{"approvalPolicy":"untrusted","cwd":"/src"}`). On success
    /// `*thread_id` (may be NULL) receives the new thread's id; free it with `codex_string_free`.
    /// `timeout_ms`: 0 = the client's default. Blocking; thread: any, including inside callbacks.
    unsafe fn codex_client_thread_start(
        client: *mut codex_client_t,
        params_json: *const c_char,
        timeout_ms: u64,
        thread_id: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(thread_id);
        let s = shared(client)?;
        let extra = Value::Object(object(params_json, "params_json")?);
        let helper = Helper::ThreadStart;
        let params = helper.params(None, Value::Null, extra)?;
        let r = s.core().request_blocking_with(helper.method(), params, opts(timeout_ms))?;
        put_string(thread_id, &thread_id_of(&r)?);
        Ok(())
    }
}

ffi_fn! {
    /// `turn/start`: send the user message `text` on thread `thread_id` and start a turn; the
    /// turn's events then arrive as notifications (`item/agentMessage/delta`, ...,
    /// `turn/completed`). `params_json` (may be NULL) is a JSON object of extra parameters merged
    /// into the request (for example `{"model":"..."}`). On success `*turn_id` (may be NULL)
    /// receives the turn's id; free it with `codex_string_free`.
    /// Blocking (returns when the turn started, not when it completed); thread: any.
    unsafe fn codex_client_turn_start(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        text: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        turn_id: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(turn_id);
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let text = req_str(text, "text")?;
        let extra = Value::Object(object(params_json, "params_json")?);
        let (method, params) = TurnStream::start_request(thread, Input::text(text).to_value(), extra)?;
        let r = s.core().request_blocking_with(method, params, opts(timeout_ms))?;
        put_string(turn_id, &turn_id_of(&r)?);
        Ok(())
    }
}

ffi_fn! {
    /// `turn/interrupt`: stop the running turn `turn_id` of thread `thread_id`. The turn then
    /// completes with status "interrupted" (a `turn/completed` notification).
    /// Blocking; thread: any, including inside callbacks.
    unsafe fn codex_client_turn_interrupt(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        turn_id: *const c_char,
        timeout_ms: u64,
    ) -> codex_status_t {
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let turn = req_str(turn_id, "turn_id")?;
        let (method, params) = TurnStream::interrupt_request(thread, turn);
        s.core().request_blocking_with(method, params, opts(timeout_ms))?;
        Ok(())
    }
}

ffi_fn! {
    /// `turn/steer`: add the user message `text` to the running turn `expected_turn_id` of
    /// thread `thread_id` (fails with CODEX_STATUS_RPC_ERROR when that turn is not the active
    /// one). Blocking; thread: any, including inside callbacks.
    unsafe fn codex_client_turn_steer(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        expected_turn_id: *const c_char,
        text: *const c_char,
        timeout_ms: u64,
    ) -> codex_status_t {
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let turn = req_str(expected_turn_id, "expected_turn_id")?;
        let text = req_str(text, "text")?;
        let input = Input::text(text).to_value();
        let (method, params) = TurnStream::steer_request(thread, turn, input);
        s.core().request_blocking_with(method, params, opts(timeout_ms))?;
        Ok(())
    }
}
