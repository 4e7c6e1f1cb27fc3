//! The panic boundary every export goes through.
//!
//! Each `extern "C"` function's body runs inside one of these macros, so a Rust panic never
//! unwinds into C: a function returning `codex_status_t` returns `CODEX_STATUS_PANIC` (and the
//! panic message becomes the thread's last error), any other function returns a neutral value
//! (`NULL`, `0`, `false`). The signatures stay ordinary `extern "C"` items so cbindgen sees them.

/// Body returns `Result<(), Fail>`; the export returns a `codex_status_t` and sets (or
/// clears) the calling thread's last error.
macro_rules! ffi_status {
    ($($body:tt)*) => {{
        let outcome = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(
            || -> ::std::result::Result<(), $crate::error::Fail> { $($body)* },
        ));
        $crate::error::conclude(outcome)
    }};
}

/// Body returns a plain value; a panic returns `$default` (and records the panic as the
/// thread's last error). Never touches the last error otherwise.
macro_rules! ffi_value {
    ($default:expr; $($body:tt)*) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| { $($body)* })) {
            Ok(v) => v,
            Err(payload) => {
                $crate::error::record_panic(&*payload);
                $default
            }
        }
    }};
}
