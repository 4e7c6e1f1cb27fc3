//! Threads of the Codex client: `codex_client_thread_start`.

use std::ffi::c_char;

use codex_client::{thread_id_of, Helper};
use serde_json::Value;

use crate::connection::client::{codex_client_t, request_options, shared};
use crate::error::codex_status_t;
use crate::strings::{clear_out, params_object, put_string};

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
        let extra = Value::Object(params_object(params_json, "params_json")?);
        let helper = Helper::ThreadStart;
        let params = helper.params(None, Value::Null, extra)?;
        let r = s.core().request_blocking_with(helper.method(), params, request_options(timeout_ms))?;
        put_string(thread_id, &thread_id_of(&r)?);
        Ok(())
    }
}
