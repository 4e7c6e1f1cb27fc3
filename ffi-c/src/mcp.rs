//! MCP request names for programs that do not want to spell the protocol: the method of a
//! request named in snake_case, and its params from the request's subject and arguments. Both
//! come from the core (`codex_client::mcp::McpRequest`); the requests themselves go through
//! the generic `codex_client_call` / `codex_client_request`.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::LazyLock;

use codex_client::mcp::McpRequest;

use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{clear_out, opt_str, params_value, put_string, req_str};

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
        match found {
            Ok(p) => p,
            Err(f) => {
                crate::error::record(&f);
                std::ptr::null()
            }
        }
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
        clear_out(params_json);
        if params_json.is_null() {
            return Err(invalid_arg("params_json (out) is NULL"));
        }
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
mod tests {
    use super::*;
    use crate::error::codex_status_t::*;
    use crate::error::last_message;
    use std::ffi::CStr;

    fn method(name: &CStr) -> Option<String> {
        // SAFETY: a NUL-terminated literal; the result is a static string or NULL.
        let p = unsafe { codex_mcp_method_name(name.as_ptr()) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
    }

    fn params(
        req: &CStr,
        subject: Option<&CStr>,
        args: Option<&CStr>,
    ) -> Result<String, codex_status_t> {
        let mut out: *mut c_char = std::ptr::null_mut();
        let ptr = |s: Option<&CStr>| s.map_or(std::ptr::null(), CStr::as_ptr);
        // SAFETY: literals or NULL; `out` is a live out-parameter.
        let s = unsafe { codex_mcp_params(req.as_ptr(), ptr(subject), ptr(args), &mut out) };
        if s != CODEX_STATUS_OK {
            assert!(out.is_null());
            return Err(s);
        }
        // SAFETY: the library returned a string for `codex_string_free`.
        let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_owned();
        unsafe { crate::strings::codex_string_free(out) };
        Ok(text)
    }

    #[test]
    fn names_give_methods_and_unknown_names_say_which_exist() {
        assert_eq!(method(c"call_tool").as_deref(), Some("tools/call"));
        assert_eq!(method(c"list_tools").as_deref(), Some("tools/list"));
        assert_eq!(method(c"ping").as_deref(), Some("ping"));
        for name in McpRequest::names() {
            let c = CString::new(name).unwrap();
            assert!(method(&c).is_some(), "{name}");
        }
        assert_eq!(method(c"tools/call"), None);
        assert!(
            last_message().contains("known: list_tools"),
            "{}",
            last_message()
        );
        // SAFETY: NULL is refused, never read.
        assert!(unsafe { codex_mcp_method_name(std::ptr::null()) }.is_null());
        assert_eq!(last_message(), "request is NULL");
    }

    #[test]
    fn params_are_built_by_the_core() {
        assert_eq!(
            params(
                c"call_tool",
                Some(c"echo"),
                Some(cr#"{"message":"a \"q\""}"#)
            )
            .unwrap(),
            r#"{"arguments":{"message":"a \"q\""},"name":"echo"}"#
        );
        assert_eq!(params(c"list_tools", None, None).unwrap(), "{}");
        assert_eq!(
            params(c"read_resource", Some(c"demo://x"), None).unwrap(),
            r#"{"uri":"demo://x"}"#
        );
        assert_eq!(
            params(c"call_tool", None, None),
            Err(CODEX_STATUS_INVALID_ARGUMENT)
        );
        assert!(
            last_message().contains("needs its name"),
            "{}",
            last_message()
        );
        assert_eq!(
            params(c"call_tool", Some(c"echo"), Some(c"[1")),
            Err(CODEX_STATUS_INVALID_ARGUMENT)
        );
        assert!(
            last_message().contains("not valid JSON"),
            "{}",
            last_message()
        );
        assert_eq!(
            params(c"nope", None, None),
            Err(CODEX_STATUS_INVALID_ARGUMENT)
        );
        // SAFETY: a NULL out-parameter is refused, never written.
        let s = unsafe {
            codex_mcp_params(
                c"ping".as_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
    }
}
