//! MCP request names for programs that do not want to spell the protocol: the method of a
//! request named in snake_case, and its params from the request's subject and arguments. Both
//! come from the core (`codex_client::mcp::McpRequest`); the requests themselves go through
//! the generic `codex_client_call` / `codex_client_request`.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::LazyLock;

use codex_client::mcp::McpRequest;

use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{opt_str, params_value, put_string, req_out, req_str};

/// The method of every request name, as static C strings (returned borrowed).
static METHODS: LazyLock<HashMap<&'static str, CString>> = LazyLock::new(|| {
    McpRequest::names()
        .filter_map(|n| Some((n, CString::new(McpRequest::from_name(n)?.method()).ok()?)))
        .collect()
});

/// The request of a snake_case name, or INVALID_ARGUMENT naming the known ones.
fn request(name: &str) -> Result<McpRequest, Fail> {
    McpRequest::from_name(name).ok_or_else(|| {
        invalid_arg(format!(
            "unknown MCP request `{name}` (known: {})",
            McpRequest::names().collect::<Vec<_>>().join(", ")
        ))
    })
}

ffi_fn! {
    /// The JSON-RPC method of the MCP request named `request` in snake_case: `"list_tools"`,
    /// `"call_tool"`, `"list_resources"`, `"list_resource_templates"`, `"read_resource"`,
    /// `"subscribe_resource"`, `"unsubscribe_resource"`, `"list_prompts"`, `"get_prompt"`,
    /// `"complete"`, `"set_logging_level"`, `"ping"` (for example `"call_tool"` gives
    /// `"tools/call"`). Pass it to `codex_client_call` / `codex_client_request`.
    /// Ownership: a static string of the library; never free it. NULL for an unknown name or
    /// NULL (the last error then says why, listing the known names). Thread: any.
    unsafe fn codex_mcp_method_name(request: *const c_char) -> *const c_char {
        let found = req_str(request, "request").and_then(|name| {
            self::request(name)?;
            METHODS
                .get(name)
                .map(|m| m.as_ptr())
                .ok_or_else(|| invalid_arg(format!("no method for `{name}`")))
        });
        crate::error::value_or(found, std::ptr::null())
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The params (JSON text) of the MCP request named `request` (as for
    /// `codex_mcp_method_name`), built by the library from the request's one string and its
    /// arguments so that nothing is spelled or escaped by hand. `subject` is the `cursor` of a
    /// list request (NULL: the first page), the `name` of the tool (`call_tool`) or prompt
    /// (`get_prompt`), the `uri` of `read_resource` / `subscribe_resource` /
    /// `unsubscribe_resource`, the `level` of `set_logging_level` (`"debug"` ... `"emergency"`);
    /// NULL for `ping` and `complete`. `arguments_json` (NULL: none) is the JSON object of the
    /// tool's or prompt's arguments, and for `complete` the whole params
    /// (`{"ref":{"type":"ref/prompt","name":...},"argument":{"name":...,"value":...}}`); NULL
    /// for the other requests. For example `("call_tool", "echo", "{\"message\":\"hi\"}")`
    /// gives `{"name":"echo","arguments":{"message":"hi"}}`. To ask for progress, add
    /// `"_meta":{"progressToken":...}` to params of your own instead (see MCP in the overview).
    /// On success `*params_json` receives the text; free it with `codex_string_free`.
    /// Errors: INVALID_ARGUMENT (unknown request, NULL `params_json`, a string not UTF-8,
    /// `arguments_json` not a JSON object, a required subject missing, or a subject or
    /// arguments the request does not take). Thread: any.
    unsafe fn codex_mcp_params(
        request: *const c_char,
        subject: *const c_char,
        arguments_json: *const c_char,
        params_json: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(params_json, "params_json (out)")?;
        let r = self::request(req_str(request, "request")?)?;
        let subject = opt_str(subject, "subject")?;
        let arguments = params_value(
            opt_str(arguments_json, "arguments_json")?,
            "arguments_json",
            serde_json::Value::Null,
        )?;
        let params = r.params(subject, arguments)?;
        put_string(params_json, &params.to_string());
        Ok(())
    }
}

#[cfg(test)]
#[path = "../../tests/unit/mcp.rs"]
mod tests;
