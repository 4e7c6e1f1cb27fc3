//! Unit tests of `ffi-c/src/error.rs` (a child module of it, kept out of `src`).

use super::*;
use std::ffi::CStr;

/// The calling thread's last error message (tests).
pub(crate) fn last_message() -> String {
    // SAFETY: the pointer is valid until the next library call on this thread.
    unsafe { std::ffi::CStr::from_ptr(codex_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn success_clears_and_rpc_errors_expose_their_parts() {
    let s = conclude(Ok(Err(Fail::Core(Error::Rpc(
        codex_client::RpcError::new(-32600, "Not initialized", Some(serde_json::json!({"k": 1}))),
    )))));
    assert_eq!(s, CODEX_STATUS_RPC_ERROR);
    assert_eq!(codex_last_error_rpc_code(), -32600);
    // SAFETY: valid until the next call on this thread.
    let m = unsafe { CStr::from_ptr(codex_last_error_rpc_message()) };
    assert_eq!(m.to_str().unwrap(), "Not initialized");
    let d = unsafe { CStr::from_ptr(codex_last_error_rpc_data()) };
    assert_eq!(d.to_str().unwrap(), r#"{"k":1}"#);
    assert_eq!(conclude(Ok(Ok(()))), CODEX_STATUS_OK);
    assert_eq!(last_message(), "");
    assert_eq!(codex_last_error_rpc_code(), 0);
    assert!(codex_last_error_rpc_message().is_null());
}

#[test]
fn status_names_are_stable() {
    // SAFETY: static strings.
    let n = |s| {
        unsafe { CStr::from_ptr(codex_status_name(s)) }
            .to_str()
            .unwrap()
    };
    assert_eq!(n(0), "CODEX_STATUS_OK");
    assert_eq!(n(CODEX_STATUS_PANIC as c_int), "CODEX_STATUS_PANIC");
    assert_eq!(n(CODEX_STATUS_CANCELLED as c_int), "CODEX_STATUS_CANCELLED");
    assert_eq!(
        status_of(&Error::Cancelled("by the client".into())),
        CODEX_STATUS_CANCELLED
    );
    assert_eq!(
        n(CODEX_STATUS_URL_ELICITATION_REQUIRED as c_int),
        "CODEX_STATUS_URL_ELICITATION_REQUIRED"
    );
    assert_eq!(
        n(CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH as c_int),
        "CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH"
    );
    assert_eq!(n(99), "CODEX_STATUS_UNKNOWN");
}

#[test]
fn every_error_kind_has_its_own_status() {
    let statuses: std::collections::HashSet<_> = codex_client::ErrorKind::ALL
        .iter()
        .map(|k| *STATUS.get(*k) as c_int)
        .collect();
    assert_eq!(statuses.len(), codex_client::ErrorKind::ALL.len());
    assert!(!statuses.contains(&(CODEX_STATUS_INTERNAL as c_int)));
    assert!(!statuses.contains(&(CODEX_STATUS_PANIC as c_int)));
    assert!(!statuses.contains(&(CODEX_STATUS_OK as c_int)));
}
