//! Unit tests of `ffi-c/src/macros.rs` (a child module of it, kept out of `src`).

use std::ffi::{c_char, CStr};

use crate::error::codex_status_t::{self, *};
use crate::error::tests::last_message;
use crate::error::{codex_last_error_status, invalid_arg};

ffi_fn! {
    /// A status export that panics, fails or succeeds.
    fn codex_test_status(what: u32) -> codex_status_t {
        match what {
            0 => Ok(()),
            1 => Err(invalid_arg("failed on purpose")),
            _ => panic!("boom in the body"),
        }
    }
}

ffi_fn! {
    /// A value export that panics.
    fn codex_test_value(panics: bool) -> *const c_char {
        if panics {
            panic!("value panic");
        }
        c"fine".as_ptr()
    } ?= std::ptr::null()
}

ffi_fn! {
    /// A unit export of an unsafe fn that panics after writing through its argument.
    unsafe fn codex_test_unit(out: *mut u32) {
        *out = 7;
        panic!("unit panic");
    }
}

#[test]
fn a_panic_becomes_the_panic_status_and_never_unwinds() {
    assert_eq!(codex_test_status(2), CODEX_STATUS_PANIC);
    assert_eq!(codex_last_error_status(), CODEX_STATUS_PANIC);
    assert!(
        last_message().contains("boom in the body"),
        "{}",
        last_message()
    );
    let v: *const c_char = codex_test_value(true);
    assert!(v.is_null());
    assert!(last_message().contains("value panic"));
    let mut x = 0;
    // SAFETY: `x` is a live u32.
    unsafe { codex_test_unit(&mut x) };
    assert_eq!(x, 7);
    assert!(last_message().contains("unit panic"), "{}", last_message());
}

#[test]
fn status_exports_set_and_clear_the_last_error_value_exports_leave_it() {
    assert_eq!(codex_test_status(1), CODEX_STATUS_INVALID_ARGUMENT);
    assert_eq!(last_message(), "failed on purpose");
    // A value export that does not panic leaves the last error alone.
    // SAFETY: a static string.
    assert_eq!(unsafe { CStr::from_ptr(codex_test_value(false)) }, c"fine");
    assert_eq!(last_message(), "failed on purpose");
    let ok: codex_status_t = codex_test_status(0);
    assert_eq!(ok, CODEX_STATUS_OK);
    assert_eq!(last_message(), "");
    assert_eq!(codex_last_error_status(), CODEX_STATUS_OK);
}
