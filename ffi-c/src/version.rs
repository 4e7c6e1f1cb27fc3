//! The library's own versions: the release (`codex_version`) and the ABI of the library
//! actually loaded (`codex_abi_version`; the numbers are in `abi.rs`). The connected server's
//! version is the Codex client's (`codex/server_version.rs`).

use std::ffi::{c_char, CStr};

static VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };

ffi_fn! {
    /// The library version, for example "0.1.0". Static string: never free it. Thread: any.
    fn codex_version() -> *const c_char {
        VERSION.as_ptr()
    } ?= c"unknown".as_ptr()
}

ffi_fn! {
    /// The ABI version of the library actually loaded: `major * 1000 + minor`, the same
    /// encoding as `CODEX_ABI_VERSION` (the version of the header a program was compiled
    /// with). The library can run a program when `codex_abi_version() / 1000 ==
    /// CODEX_ABI_VERSION / 1000` (the soname guarantees it) and
    /// `codex_abi_version() >= CODEX_ABI_VERSION` (every function of the program's header
    /// exists). Thread: any.
    fn codex_abi_version() -> u32 {
        crate::abi::CODEX_ABI_VERSION
    } ?= crate::abi::CODEX_ABI_VERSION
}
