//! Leaf helpers every module of the binding uses (no import of any other module of it).

use std::ffi::CString;
use std::sync::{Mutex, MutexGuard};

/// Lock a mutex, ignoring poisoning (a panic elsewhere must not take the library down).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `CString` from text that may contain NUL bytes (each becomes U+FFFD). JSON text never
/// contains a raw NUL, so this only ever changes decoded strings such as messages.
pub(crate) fn to_cstring(s: &str) -> CString {
    match CString::new(s) {
        Ok(c) => c,
        Err(_) => CString::new(s.replace('\0', "\u{FFFD}")).expect("NULs replaced"),
    }
}
