//! Unit tests of `ffi-c/src/mcp/request.rs` (a child module of it, kept out of `src`).

use super::*;
use crate::error::codex_status_t::*;
use crate::error::tests::last_message;
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
