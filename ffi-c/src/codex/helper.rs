//! The core's app-server helpers by name (`codex_client_helper`: logout, rate limits, config
//! batch write, review, MCP server status and OAuth login, feedback, ...). ABI 1.6.

use std::ffi::c_char;

use codex_client::Helper;
use serde_json::Value;

use crate::connection::client::{codex_client_t, request_options, shared};
use crate::error::{codex_status_t, invalid_arg};
use crate::strings::{clear_out, opt_str, params_value, put_string, req_str};

ffi_fn! {
    /// Send the request of the core's helper `name` and return its result: `account_logout`,
    /// `account_rate_limits`, `account_read`, `config_read`, `config_batch_write` (`arg_json`:
    /// the edits, `[{"keyPath","value","mergeStrategy"}]`), `review_start` (`thread_id`;
    /// `arg_json`: the target, `{"type":"uncommittedChanges"}`), `mcp_server_status_list`,
    /// `mcp_server_oauth_login` (`arg_json`: the server's name as a JSON string),
    /// `feedback_upload` (`arg_json`: the classification, `"bug"`), `thread_compact`
    /// (`thread_id`), `model_list`, `skills_list`, ... (every name of the core's
    /// `Helper::from_name`; an unknown one is CODEX_STATUS_INVALID_ARGUMENT). `thread_id`:
    /// for the helpers that act on a thread (NULL otherwise). `arg_json`: the helper's
    /// argument as JSON (NULL: none). `params_json`: a JSON object of more params (NULL:
    /// none). `timeout_ms`: 0 = the client's default. On success `*result_json` (may be
    /// NULL) receives the result as JSON; free it with `codex_string_free`. Blocking; thread:
    /// any, including inside callbacks. ABI 1.6.
    unsafe fn codex_client_helper(
        client: *mut codex_client_t,
        name: *const c_char,
        thread_id: *const c_char,
        arg_json: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        result_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(result_json);
        let s = shared(client)?;
        let name = req_str(name, "name")?;
        let helper = Helper::from_name(name).ok_or_else(|| invalid_arg(format!("no helper {name}")))?;
        let thread = opt_str(thread_id, "thread_id")?;
        let arg = params_value(opt_str(arg_json, "arg_json")?, "arg_json", Value::Null)?;
        let extra = params_value(opt_str(params_json, "params_json")?, "params_json", Value::Null)?;
        let params = helper.params(thread, arg, extra)?;
        let r = s.core().request_blocking_with(helper.method(), params, request_options(timeout_ms))?;
        put_string(result_json, &r.to_string());
        Ok(())
    }
}
