//! Status codes, the thread-local last error and the mapping from core errors.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CString};

use codex_client::{Error, ErrorKindMap};

use crate::util::to_cstring;

/// Result of every function that does something. The numbers are stable; new codes are only
/// ever appended (a minor ABI version): a program must treat a code it does not know as a
/// failure.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum codex_status_t {
    /// Success.
    CODEX_STATUS_OK = 0,
    /// A NULL or malformed argument (bad JSON, bad UTF-8, unknown handle, wrong client).
    CODEX_STATUS_INVALID_ARGUMENT = 1,
    /// The client is not connected (never connected, or disconnected).
    CODEX_STATUS_NOT_CONNECTED = 2,
    /// `codex_client_connect` on a connected client.
    CODEX_STATUS_ALREADY_CONNECTED = 3,
    /// A request got no answer in time, or `codex_client_next_event` saw no event in time.
    CODEX_STATUS_TIMEOUT = 4,
    /// The connection ended (server exited or was disconnected) before the operation finished.
    CODEX_STATUS_DISCONNECTED = 5,
    /// The server answered with a JSON-RPC error (see `codex_last_error_rpc_code`).
    CODEX_STATUS_RPC_ERROR = 6,
    /// The server kept answering "overloaded" (-32001) after every retry.
    CODEX_STATUS_OVERLOADED = 7,
    /// The server could not be started, or reading/writing its pipes failed.
    CODEX_STATUS_TRANSPORT = 8,
    /// The server broke the protocol (for example a malformed `initialize` result).
    CODEX_STATUS_PROTOCOL = 9,
    /// Not valid in the client's mode or state (poll vs callbacks, request already taken, ...).
    CODEX_STATUS_INVALID_STATE = 10,
    /// The server request was already answered (or resolved by the server).
    CODEX_STATUS_ALREADY_RESPONDED = 11,
    /// The transport in use cannot do this.
    CODEX_STATUS_UNSUPPORTED = 12,
    /// A bug: Rust code panicked. The panic was caught at the library boundary.
    CODEX_STATUS_PANIC = 13,
    /// An error this version of the C binding does not classify (see the message). Since ABI
    /// 1.5 every kind of core error has its own status, so no call returns it; it is kept
    /// (numbers are never reused).
    CODEX_STATUS_INTERNAL = 14,
    /// The request was cancelled by `codex_client_cancel_request` before its answer came (an
    /// MCP server is told with `notifications/cancelled`). ABI 1.1.
    CODEX_STATUS_CANCELLED = 15,
    /// The connection dropped while the request was in flight and the client is reconnecting
    /// (`codex_options_set_reconnect`): whether the server acted on it is unknown. Retryable
    /// once `CODEX_EVENT_RECONNECTED` came. Also what answering a server request of the lost
    /// connection returns (the server asks again after the rejoin). ABI 1.2.
    CODEX_STATUS_CONNECTION_LOST = 16,
    /// An MCP server answered -32042: the request needs URL-mode elicitations completed first.
    /// `codex_last_error_rpc_data` gives `{"elicitations":[{"mode":"url","message","url",
    /// "elicitationId"}…]}`; show each URL to the user, wait for the server's
    /// `notifications/elicitation/complete` of each, then send the request again. ABI 1.7.
    CODEX_STATUS_URL_ELICITATION_REQUIRED = 17,
    /// An MCP tool's `structuredContent` does not match its `outputSchema` (option
    /// `mcp_validate_output`); the message names the tool and the failing JSON path. ABI 1.7.
    CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH = 18,
    /// The connected Codex (a version of the supported window) does not have this method, by
    /// the window's method table: refused before anything was sent. The message names the
    /// method, the server's version and the versions that have it; `codex_client_supports`
    /// asks first. ABI 1.10.
    CODEX_STATUS_UNSUPPORTED_BY_VERSION = 19,
    /// No endpoint of a pool can take the call (none healthy and accepting, at once; or each
    /// at its limit of running turns until the placement bound passed); the message names
    /// every endpoint and its state. ABI 1.11.
    CODEX_STATUS_UNAVAILABLE = 20,
}

use codex_status_t::*;

/// Why an export failed: a core error or a binding-level status with a message.
#[derive(Debug)]
pub enum Fail {
    /// An error of the core library.
    Core(Error),
    /// A status decided by the binding, with its message.
    Status(codex_status_t, String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Core(e)
    }
}

/// Shorthand for an invalid-argument failure.
pub(crate) fn invalid_arg(msg: impl Into<String>) -> Fail {
    Fail::Status(CODEX_STATUS_INVALID_ARGUMENT, msg.into())
}

/// Shorthand for an invalid-state failure.
pub(crate) fn invalid_state(msg: impl Into<String>) -> Fail {
    Fail::Status(CODEX_STATUS_INVALID_STATE, msg.into())
}

/// The status code of each kind of core error: one literal naming every kind, so a kind
/// added to the core breaks this build until it is mapped here.
const STATUS: ErrorKindMap<codex_status_t> = ErrorKindMap {
    not_connected: CODEX_STATUS_NOT_CONNECTED,
    already_connected: CODEX_STATUS_ALREADY_CONNECTED,
    timeout: CODEX_STATUS_TIMEOUT,
    rpc: CODEX_STATUS_RPC_ERROR,
    overloaded: CODEX_STATUS_OVERLOADED,
    disconnected: CODEX_STATUS_DISCONNECTED,
    connection_lost: CODEX_STATUS_CONNECTION_LOST,
    transport: CODEX_STATUS_TRANSPORT,
    protocol: CODEX_STATUS_PROTOCOL,
    invalid_argument: CODEX_STATUS_INVALID_ARGUMENT,
    invalid_state: CODEX_STATUS_INVALID_STATE,
    already_responded: CODEX_STATUS_ALREADY_RESPONDED,
    unsupported: CODEX_STATUS_UNSUPPORTED,
    cancelled: CODEX_STATUS_CANCELLED,
    url_elicitation_required: CODEX_STATUS_URL_ELICITATION_REQUIRED,
    output_schema_mismatch: CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH,
    unsupported_by_version: CODEX_STATUS_UNSUPPORTED_BY_VERSION,
    unavailable: CODEX_STATUS_UNAVAILABLE,
};

/// The status code of a core error.
pub(crate) fn status_of(e: &Error) -> codex_status_t {
    *STATUS.get(e.kind())
}

/// The JSON-RPC details of an error, as C strings.
pub(crate) struct RpcParts {
    pub code: i64,
    pub message: CString,
    pub data: Option<CString>,
}

impl RpcParts {
    pub(crate) fn of(e: &Error) -> Option<RpcParts> {
        e.rpc().map(|r| RpcParts {
            code: r.code,
            message: to_cstring(&r.message),
            data: r.data.as_ref().map(|d| to_cstring(&d.to_string())),
        })
    }
}

struct LastError {
    status: codex_status_t,
    message: CString,
    rpc: Option<RpcParts>,
}

thread_local! {
    static LAST: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

fn set_last(err: Option<LastError>) {
    // `try_with`: during thread teardown the slot may be gone; then there is nobody to tell.
    let _ = LAST.try_with(|l| {
        if let Ok(mut slot) = l.try_borrow_mut() {
            *slot = err;
        }
    });
}

/// Record a failure as the thread's last error and return its status.
pub(crate) fn record(fail: &Fail) -> codex_status_t {
    let (status, message, rpc) = match fail {
        Fail::Core(e) => (status_of(e), e.to_string(), RpcParts::of(e)),
        Fail::Status(s, m) => (*s, m.clone(), None),
    };
    set_last(Some(LastError {
        status,
        message: to_cstring(&message),
        rpc,
    }));
    status
}

/// The value of a value export: `r`'s, or on failure `default` with the failure recorded as
/// the thread's last error.
pub(crate) fn value_or<T>(r: Result<T, Fail>, default: T) -> T {
    r.unwrap_or_else(|f| {
        record(&f);
        default
    })
}

/// Record a caught panic as the thread's last error.
pub(crate) fn record_panic(payload: &(dyn std::any::Any + Send)) -> codex_status_t {
    record(&Fail::Status(
        CODEX_STATUS_PANIC,
        format!(
            "internal error: Rust panic caught at the C boundary: {}",
            codex_client::rt::panic_message(payload)
        ),
    ))
}

/// Turn the outcome of a status export's body into its return value.
pub(crate) fn conclude(outcome: std::thread::Result<Result<(), Fail>>) -> codex_status_t {
    match outcome {
        Ok(Ok(())) => {
            set_last(None);
            CODEX_STATUS_OK
        }
        Ok(Err(fail)) => record(&fail),
        Err(payload) => record_panic(&*payload),
    }
}

fn with_last<T>(f: impl FnOnce(Option<&LastError>) -> T) -> T {
    let mut f = Some(f);
    let out = LAST.try_with(|l| match l.try_borrow() {
        Ok(slot) => (f.take().expect("called once"))(slot.as_ref()),
        Err(_) => (f.take().expect("called once"))(None),
    });
    match out {
        Ok(v) => v,
        Err(_) => (f.take().expect("not called yet"))(None),
    }
}

const EMPTY: &std::ffi::CStr = c"";

ffi_fn! {
    /// The message of the last failed call on the calling thread ("" when the last call
    /// succeeded).
    ///
    /// Ownership: the library's; valid until the next call into the library on this thread.
    /// Do not free. Thread: any (each thread has its own last error).
    fn codex_last_error_message() -> *const c_char {
        with_last(|l| l.map_or(EMPTY.as_ptr(), |l| l.message.as_ptr()))
    } ?= EMPTY.as_ptr()
}

ffi_fn! {
    /// The status of the last failed call on the calling thread (`CODEX_STATUS_OK` when the last
    /// call succeeded).
    fn codex_last_error_status() -> codex_status_t {
        with_last(|l| l.map_or(CODEX_STATUS_OK, |l| l.status))
    } ?= CODEX_STATUS_PANIC
}

ffi_fn! {
    /// The JSON-RPC error code of the last failed call on the calling thread, when it failed with
    /// `CODEX_STATUS_RPC_ERROR` or `CODEX_STATUS_OVERLOADED`; 0 otherwise.
    fn codex_last_error_rpc_code() -> i64 {
        with_last(|l| l.and_then(|l| l.rpc.as_ref()).map_or(0, |r| r.code))
    } ?= 0
}

ffi_fn! {
    /// The JSON-RPC error message (the server's text, without decoration) of the last failed call
    /// on the calling thread; NULL when it was not a JSON-RPC error.
    ///
    /// Ownership: the library's; valid until the next call into the library on this thread.
    fn codex_last_error_rpc_message() -> *const c_char {
        with_last(|l| {
            l.and_then(|l| l.rpc.as_ref())
                .map_or(std::ptr::null(), |r| r.message.as_ptr())
        })
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The JSON-RPC error `data` member, as JSON text, of the last failed call on the calling
    /// thread; NULL when absent or when it was not a JSON-RPC error.
    ///
    /// Ownership: the library's; valid until the next call into the library on this thread.
    fn codex_last_error_rpc_data() -> *const c_char {
        with_last(|l| {
            l.and_then(|l| l.rpc.as_ref())
                .and_then(|r| r.data.as_ref())
                .map_or(std::ptr::null(), |d| d.as_ptr())
        })
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The name of a status code, for example "CODEX_STATUS_TIMEOUT" ("CODEX_STATUS_UNKNOWN" for
    /// a number that is not a status). Static string: never free it. Thread: any.
    fn codex_status_name(status: c_int) -> *const c_char {
        let s: &'static std::ffi::CStr = match status {
            0 => c"CODEX_STATUS_OK",
            1 => c"CODEX_STATUS_INVALID_ARGUMENT",
            2 => c"CODEX_STATUS_NOT_CONNECTED",
            3 => c"CODEX_STATUS_ALREADY_CONNECTED",
            4 => c"CODEX_STATUS_TIMEOUT",
            5 => c"CODEX_STATUS_DISCONNECTED",
            6 => c"CODEX_STATUS_RPC_ERROR",
            7 => c"CODEX_STATUS_OVERLOADED",
            8 => c"CODEX_STATUS_TRANSPORT",
            9 => c"CODEX_STATUS_PROTOCOL",
            10 => c"CODEX_STATUS_INVALID_STATE",
            11 => c"CODEX_STATUS_ALREADY_RESPONDED",
            12 => c"CODEX_STATUS_UNSUPPORTED",
            13 => c"CODEX_STATUS_PANIC",
            14 => c"CODEX_STATUS_INTERNAL",
            15 => c"CODEX_STATUS_CANCELLED",
            16 => c"CODEX_STATUS_CONNECTION_LOST",
            17 => c"CODEX_STATUS_URL_ELICITATION_REQUIRED",
            18 => c"CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH",
            19 => c"CODEX_STATUS_UNSUPPORTED_BY_VERSION",
            20 => c"CODEX_STATUS_UNAVAILABLE",
            _ => c"CODEX_STATUS_UNKNOWN",
        };
        s.as_ptr()
    } ?= c"CODEX_STATUS_UNKNOWN".as_ptr()
}

#[cfg(test)]
#[path = "../tests/unit/error.rs"]
pub(crate) mod tests;
