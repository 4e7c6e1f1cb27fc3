//! `codex_options_t`: an opaque options object, a handle (see `handles.rs`) of the core's
//! `OptionsBuilder`.
//!
//! Every option, its type, range, default and the meaning of 0 is the core's
//! (`codex_client::options::keys()`): the generic `codex_options_set` / `_add` / `_get` take
//! an option by name with its value as JSON, and each typed setter (kept for the ABI,
//! `setters.rs`) is one call into the same table. `codex_client_new` builds the options (the
//! core's checks that involve several options). The options struct of ABI 0 was public and grew with every
//! option; the opaque object with setters replaced it (a pointer to the old struct is no
//! handle: refused, never read).

use std::ffi::{c_char, CString};
use std::sync::{Arc, LazyLock, Mutex};

use codex_client::{ClientOptions, OptionsBuilder};

use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::handles::{self, Handle, Kind, Table};
use crate::strings::{opt_str, req_str};
use crate::util::{lock, to_cstring};

/// How a client delivers events: chosen once, with `codex_options_set_delivery`.
pub type codex_delivery_t = u32;

/// Callbacks (the default): events, server requests, connection events and request
/// completions run registered callbacks on one library-owned thread per client (a thread of a
/// small pool shared by all clients, unless `codex_options_set_dedicated_dispatch_thread`).
pub const CODEX_DELIVERY_CALLBACKS: codex_delivery_t = 0;

/// Poll mode: the program pulls events with `codex_client_next_event`, optionally waiting
/// for `codex_client_event_fd` to become readable. No library thread runs program code.
pub const CODEX_DELIVERY_POLL: codex_delivery_t = 1;

/// The longest timeout a setter accepts, in milliseconds (one year; the core's
/// `MAX_SECONDS`).
pub const CODEX_OPTIONS_MAX_TIMEOUT_MS: u64 = 31_536_000_000;

/// Options of a client. Opaque handle: its layout is not part of the ABI.
///
/// Create with `codex_options_new` (every option has its default), change options with
/// `codex_options_set` / `codex_options_add` (any option by name, the value as JSON) or the
/// typed `codex_options_set_*` / `codex_options_add_*` setters, pass it to
/// `codex_client_new`, free it with `codex_options_free`. Ownership: the program's, from
/// `codex_options_new` until `codex_options_free`; `codex_client_new` copies what it needs,
/// so the object may be freed right after it (or reused for more clients). Every string
/// passed to a setter is copied before the setter returns; a refused value changes nothing.
/// Handles are checked against the library's registry of live objects (they are never
/// reused): a freed handle, or any other pointer (such as the old public struct of a program
/// built against an older header), gives CODEX_STATUS_INVALID_ARGUMENT, never a crash. A
/// handle is never dereferenced, by the library or by the program.
/// Thread: any. An options object may be used from several threads at once (each call locks
/// it); a client created while another thread changes the object gets the options as they
/// were either before or after that change.
pub struct codex_options_t {
    _opaque: [u8; 0],
}

static OPTIONS: Table<Mutex<OptionsBuilder>> = Table::new();

impl Handle for codex_options_t {
    type Target = Mutex<OptionsBuilder>;
    const KIND: Kind = Kind::Options;
    const NOT_LIVE: &'static str = "is not a codex_options_t from codex_options_new: built \
         against an older header? (codex_options_t is opaque since ABI version 1: create it \
         with codex_options_new and the codex_options_set_* setters) - or it was already freed \
         with codex_options_free";
    fn table() -> &'static Table<Mutex<OptionsBuilder>> {
        &OPTIONS
    }
}

/// Change the options behind a handle with `f`: on a copy, kept only when `f` succeeds (a
/// refused value changes nothing).
pub(crate) fn with_options(
    opts: *mut codex_options_t,
    f: impl FnOnce(&mut OptionsBuilder) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let o = handles::get(opts, "options")?;
    let mut b = lock(&o);
    let mut changed = b.clone();
    f(&mut changed)?;
    *b = changed;
    Ok(())
}

/// The options a client is created with (NULL: all defaults), after the core's checks that
/// involve several options. Never dereferences `opts`.
pub(crate) fn build(opts: *const codex_options_t) -> Result<ClientOptions, Fail> {
    if opts.is_null() {
        return Ok(OptionsBuilder::new().build()?);
    }
    let o = handles::get(opts, "opts")?;
    let b = lock(&o).clone();
    Ok(b.build()?)
}

ffi_fn! {
    /// Create an options object with every option at its default.
    ///
    /// Ownership: the returned object is the program's; free it with `codex_options_free`
    /// (it may be freed right after `codex_client_new`). Returns NULL only when the library
    /// failed internally (the last error says why). Thread: any.
    fn codex_options_new() -> *mut codex_options_t {
        handles::insert::<codex_options_t>(Arc::new(Mutex::new(OptionsBuilder::new())))
    } ?= std::ptr::null_mut()
}

ffi_fn! {
    /// Free an options object. NULL is ignored; a pointer that is not a live options object
    /// (freed twice, or never from `codex_options_new`) is ignored too, and the last error
    /// says so. Clients created from it are not affected. Thread: any.
    unsafe fn codex_options_free(opts: *mut codex_options_t) {
        if opts.is_null() {
            return;
        }
        if handles::remove(opts, "options").is_err() {
            crate::error::record(&invalid_arg(format!(
                "codex_options_free: the pointer {}; ignored",
                codex_options_t::NOT_LIVE
            )));
        }
    }
}

ffi_fn! {
    /// Set the option named `key` to `value_json`, its value as JSON text: any option of
    /// `codex_options_keys_json()` (the core's table: names, types, defaults, ranges and what
    /// 0 means), with the same meaning as in Rust and Python. Durations are in seconds (an
    /// integer or a fraction: `"0.25"`), sizes in bytes; for most sizes and durations 0 means
    /// the default. `value_json` NULL or `"null"` restores the option's default. For example
    /// `codex_options_set(o, "default_timeout", "12.5")`,
    /// `codex_options_set(o, "transport", "\"exec\"")`,
    /// `codex_options_set(o, "exec_model", "\"gpt-5.1-codex\"")`,
    /// `codex_options_set(o, "retry_max_attempts", "1")`. Every option reachable from Rust is
    /// reachable here, also those without a typed setter (the exec transport's `exec_*`
    /// options, `retry_*`, `stderr_tail_bytes`, `mcp_roots`, `command`, ...): a new option of
    /// the library needs no new function. Options that need others (`headers` an MCP HTTP
    /// transport, the `exec_*` options the exec transport) are checked by `codex_client_new`.
    /// Ownership: both strings are read during the call only. Errors (nothing is changed):
    /// INVALID_ARGUMENT (not a live options object, `key` NULL or unknown - the message lists
    /// the known keys -, `value_json` not valid JSON, a wrong type or a value out of range -
    /// the message names the key and what it takes, never the value of a secret such as
    /// `token` or `headers`). Thread: any. ABI 1.5.
    unsafe fn codex_options_set(
        opts: *mut codex_options_t,
        key: *const c_char,
        value_json: *const c_char,
    ) -> codex_status_t {
        let key = req_str(key, "key")?;
        let text = opt_str(value_json, "value_json")?.unwrap_or("null");
        with_options(opts, |b| Ok(b.set_json(key, text)?))
    }
}

ffi_fn! {
    /// Append one entry, `value_json` (JSON text), to the list option named `key` (`args`,
    /// `env`, `config_overrides`, `headers`, `opt_out_notification_methods`, `mcp_roots`,
    /// `exec_additional_directories`: `"list":true` in `codex_options_keys_json()`). For
    /// example `codex_options_add(o, "env", "\"RUST_LOG=debug\"")` or
    /// `codex_options_add(o, "headers", "[\"X-Api-Key\",\"k\"]")`.
    /// Ownership: both strings are read during the call only. Errors (nothing is changed):
    /// INVALID_ARGUMENT (not a live options object, `key` NULL, unknown or not a list,
    /// `value_json` NULL or not valid JSON, a wrong entry). Thread: any. ABI 1.5.
    unsafe fn codex_options_add(
        opts: *mut codex_options_t,
        key: *const c_char,
        value_json: *const c_char,
    ) -> codex_status_t {
        let key = req_str(key, "key")?;
        let text = req_str(value_json, "value_json")?;
        with_options(opts, |b| Ok(b.add_json(key, text)?))
    }
}

ffi_fn! {
    /// The value the option named `key` has now in `opts`, as JSON text (durations in seconds;
    /// a secret such as `token` reads `"<redacted>"`), or NULL on failure (the last error
    /// says why: INVALID_ARGUMENT for a dead options object, or a NULL or unknown `key`).
    /// Ownership: the returned string is the caller's: free it with `codex_string_free`.
    /// Thread: any. ABI 1.5.
    unsafe fn codex_options_get(opts: *const codex_options_t, key: *const c_char) -> *mut c_char {
        let got = req_str(key, "key").and_then(|key| {
            let o = handles::get(opts, "options")?;
            let v = lock(&o).get(key)?;
            Ok(to_cstring(&v.to_string()).into_raw())
        });
        crate::error::value_or(got, std::ptr::null_mut())
    } ?= std::ptr::null_mut()
}

/// The text of `codex_options_keys_json`.
static KEYS_JSON: LazyLock<CString> =
    LazyLock::new(|| to_cstring(&codex_client::options::keys_json()));

ffi_fn! {
    /// Every option `codex_options_set` takes, as a JSON array of
    /// `{"name","kind","list","secret","doc","default"}` (`kind`: "bool", "string", "path",
    /// "word", "seconds", "count", "strings", "pairs", "object", "policy" or "roots"; `doc`
    /// says what it means, its range and what 0 means; `default` is its value in a new options
    /// object, as `codex_options_get` reads it). Ownership: a static string of the library;
    /// never free it. Thread: any. ABI 1.5.
    fn codex_options_keys_json() -> *const c_char {
        KEYS_JSON.as_ptr()
    } ?= std::ptr::null()
}

// The typed setters (kept for the ABI): each one call into the same table.
pub mod setters;

#[cfg(test)]
#[path = "../../tests/unit/options.rs"]
mod tests;
