//! `libcodexclient`: the C ABI of `codex-client`.
//!
//! A thin layer over the Rust core. The C header `include/codexclient.h` is generated from
//! this crate by cbindgen (see `cbindgen.toml`, which also carries the header's overview of
//! ownership, threads and shutdown order). Conventions:
//!
//! - Every function that does something returns a `codex_status_t`; accessors return values.
//! - NULL arguments are reported as `CODEX_STATUS_INVALID_ARGUMENT`, never dereferenced.
//! - `char **` out-parameters receive strings the program frees with `codex_string_free`;
//!   `const char *` return values are borrowed (their lifetime is documented per function).
//! - Every export runs inside a panic boundary (`macros.rs`): a Rust panic becomes
//!   `CODEX_STATUS_PANIC` and never unwinds into C.
#![allow(non_camel_case_types)]
// The pointer contracts of every export are documented in the generated header, per function.
#![allow(clippy::missing_safety_doc)]
#![warn(missing_docs)]

#[macro_use]
mod macros;

pub mod client;
pub mod error;
pub mod event;
pub mod helpers;
pub mod options;
pub mod request;
pub mod strings;
mod wake;
