//! C string helpers: reading arguments, returning owned strings, `codex_string_free`.

use std::ffi::{c_char, CStr, CString};

use serde_json::value::RawValue;

use crate::error::{invalid_arg, Fail};
use crate::util::to_cstring;

/// A required string argument.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn req_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Err(invalid_arg(format!("{what} is NULL")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| invalid_arg(format!("{what} is not valid UTF-8")))
}

/// An optional string argument (NULL means absent).
///
/// # Safety
/// As [`req_str`].
pub(crate) unsafe fn opt_str<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Fail> {
    if p.is_null() {
        Ok(None)
    } else {
        req_str(p, what).map(Some)
    }
}

/// The `len` strings at `p`, each as `req_str` reads it (`what[i]` in messages).
pub(crate) unsafe fn req_strs<'a>(
    p: *const *const c_char,
    len: usize,
    what: &str,
) -> Result<Vec<&'a str>, Fail> {
    (0..len)
        .map(|i| req_str(*p.add(i), &format!("{what}[{i}]")))
        .collect()
}

/// Parse optional JSON params: NULL becomes `{}`.
pub(crate) fn params_raw(json: Option<&str>, what: &str) -> Result<Box<RawValue>, Fail> {
    let text = json.unwrap_or("{}");
    RawValue::from_string(text.to_owned())
        .map_err(|e| invalid_arg(format!("{what} is not valid JSON: {e}")))
}

/// Parse optional JSON text into a value: NULL becomes `default`.
pub(crate) fn params_value(
    json: Option<&str>,
    what: &str,
    default: serde_json::Value,
) -> Result<serde_json::Value, Fail> {
    match json {
        None => Ok(default),
        Some(t) => serde_json::from_str(t)
            .map_err(|e| invalid_arg(format!("{what} is not valid JSON: {e}"))),
    }
}

/// Parse optional JSON text that must be an object: NULL becomes `{}`.
///
/// # Safety
/// As [`req_str`].
pub(crate) unsafe fn params_object(
    json: *const c_char,
    what: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, Fail> {
    match params_value(opt_str(json, what)?, what, serde_json::json!({}))? {
        serde_json::Value::Object(m) => Ok(m),
        _ => Err(invalid_arg(format!("{what} must be a JSON object"))),
    }
}

/// Set `*out` to NULL when `out` is not NULL (so failed calls never leave garbage).
///
/// # Safety
/// `out` is NULL or valid for writes.
pub(crate) unsafe fn clear_out<T>(out: *mut *mut T) {
    if !out.is_null() {
        *out = std::ptr::null_mut();
    }
}

/// Clear a required out-parameter: INVALID_ARGUMENT (`"<what> is NULL"`) when it is NULL.
///
/// # Safety
/// `out` is NULL or valid for writes.
pub(crate) unsafe fn req_out<T>(out: *mut *mut T, what: &str) -> Result<(), Fail> {
    clear_out(out);
    if out.is_null() {
        return Err(invalid_arg(format!("{what} is NULL")));
    }
    Ok(())
}

/// Store a newly allocated copy of `s` in `*out` (when `out` is not NULL); the caller frees
/// it with `codex_string_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
pub(crate) unsafe fn put_string(out: *mut *mut c_char, s: &str) {
    if !out.is_null() {
        *out = to_cstring(s).into_raw();
    }
}

ffi_fn! {
    /// Free a string the library returned through a `char **` out-parameter. NULL is ignored.
    ///
    /// Ownership: takes back ownership of `s`. Only strings from this library; never `free()`
    /// them, and never pass the `const char *` strings that accessors return.
    /// Thread: any.
    unsafe fn codex_string_free(s: *mut c_char) {
        if !s.is_null() {
            drop(CString::from_raw(s));
        }
    }
}
