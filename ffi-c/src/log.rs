//! `codex_set_log_callback`: the library's log records for C programs (the core's log
//! forwarding, `codex_client::log`).

use std::ffi::{c_char, c_void, CString};

use crate::error::{codex_status_t, invalid_arg, invalid_state};

/// Severity of a log record (`codex_set_log_callback`).
pub type codex_log_level_t = u32;
/// Errors.
pub const CODEX_LOG_ERROR: codex_log_level_t = 1;
/// Warnings (for example a malformed line from the server, a callback that panicked).
pub const CODEX_LOG_WARN: codex_log_level_t = 2;
/// Information.
pub const CODEX_LOG_INFO: codex_log_level_t = 3;
/// Debugging detail, including every line the server writes to its stderr.
pub const CODEX_LOG_DEBUG: codex_log_level_t = 4;
/// Everything.
pub const CODEX_LOG_TRACE: codex_log_level_t = 5;

/// A log callback: the record's `level`, its `target` (a module path, or
/// `"codex_client::server_stderr"` for a line the server wrote to its stderr) and its
/// `message`; both strings are NUL-terminated UTF-8, borrowed for the call only.
pub type codex_log_callback_t = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        level: codex_log_level_t,
        target: *const c_char,
        message: *const c_char,
    ),
>;

fn level_of(level: codex_log_level_t) -> Option<tracing::Level> {
    Some(match level {
        CODEX_LOG_ERROR => tracing::Level::ERROR,
        CODEX_LOG_WARN => tracing::Level::WARN,
        CODEX_LOG_INFO => tracing::Level::INFO,
        CODEX_LOG_DEBUG => tracing::Level::DEBUG,
        CODEX_LOG_TRACE => tracing::Level::TRACE,
        _ => return None,
    })
}

fn code_of(level: tracing::Level) -> codex_log_level_t {
    match level {
        tracing::Level::ERROR => CODEX_LOG_ERROR,
        tracing::Level::WARN => CODEX_LOG_WARN,
        tracing::Level::INFO => CODEX_LOG_INFO,
        tracing::Level::DEBUG => CODEX_LOG_DEBUG,
        _ => CODEX_LOG_TRACE,
    }
}

/// A string for C: interior NUL bytes become spaces.
fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn on_log_thread() -> bool {
    std::thread::current().name() == Some("codex-log")
}

ffi_fn! {
    /// Send the library's log records at `level` and above (`CODEX_LOG_ERROR` ...
    /// `CODEX_LOG_TRACE`) to `callback`, with `userdata` passed back unchanged; a NULL
    /// `callback` stops the forwarding. Records come from every client of the process: the
    /// library's own diagnostics, connection errors, and (at `CODEX_LOG_DEBUG`) each line the
    /// servers write to their stderr.
    ///
    /// Thread: the callback runs on one library-owned thread (`codex-log`), one record
    /// at a time, in order, never while the library holds a lock the callback could need (it
    /// may call any function of this library except this one). Records are queued without
    /// blocking the connections; when 8192 wait, new ones are dropped. Setting another
    /// callback, or NULL, returns once a call in progress has returned: after
    /// `codex_set_log_callback(CODEX_LOG_ERROR, NULL, NULL)` the old `userdata` may be freed.
    /// Call it from any thread but the log callback itself (INVALID_STATE there).
    /// Errors: INVALID_ARGUMENT (unknown level), INVALID_STATE (from the log callback, or the
    /// process already has another `tracing` subscriber, such as the Python module's).
    fn codex_set_log_callback(
        level: codex_log_level_t,
        callback: codex_log_callback_t,
        userdata: *mut c_void,
    ) -> codex_status_t {
        let level = level_of(level).ok_or_else(|| invalid_arg(format!("unknown log level {level}")))?;
        if on_log_thread() {
            return Err(invalid_state("codex_set_log_callback called from the log callback"));
        }
        let Some(f) = callback else {
            codex_client::log::stop_logs();
            return Ok(());
        };
        let userdata = userdata as usize;
        codex_client::log::forward_logs(level, move |rec| {
            let target = c_text(rec.target);
            let message = c_text(&rec.message);
            // SAFETY: the program registered `f` with this `userdata`; the strings live for
            // the call.
            unsafe { f(userdata as *mut c_void, code_of(rec.level), target.as_ptr(), message.as_ptr()) };
        })?;
        Ok(())
    }
}
