//! Logging in from C (the core's `codex_client::account`: API key, the ChatGPT browser and
//! device-code flows, each flow a `codex_login_t` handle). ABI 1.6.

use std::ffi::{c_char, CString};
use std::sync::Arc;
use std::time::Duration;

use codex_client::account::Login;

use crate::connection::client::{codex_client_t, shared};
use crate::error::codex_status_t;
use crate::handles::{self, Handle, Kind, Table};
use crate::strings::{clear_out, put_string, req_out, req_str};
use crate::util::to_cstring;

/// A ChatGPT login in progress (opaque handle): from `codex_client_login_chatgpt`, freed
/// with `codex_login_free`.
pub struct codex_login_t {
    _opaque: [u8; 0],
}

/// A live login: the core's handle and the strings its accessors return.
pub(crate) struct LoginEntry {
    login: Login,
    login_id: Option<CString>,
    auth_url: Option<CString>,
    user_code: Option<CString>,
    verification_url: Option<CString>,
    /// The client's default request timeout (`codex_login_wait` with 0).
    default_timeout: Duration,
}

static LOGINS: Table<LoginEntry> = Table::new();

impl Handle for codex_login_t {
    type Target = LoginEntry;
    const KIND: Kind = Kind::Login;
    const NOT_LIVE: &'static str =
        "is not a live login handle (already freed with codex_login_free?)";
    fn table() -> &'static Table<LoginEntry> {
        &LOGINS
    }
}

fn entry(login: Login, default_timeout: Duration) -> LoginEntry {
    let c = |s: Option<&str>| s.map(to_cstring);
    LoginEntry {
        login_id: c(login.login_id()),
        auth_url: c(login.auth_url()),
        user_code: c(login.user_code()),
        verification_url: c(login.verification_url()),
        default_timeout,
        login,
    }
}

fn field(
    login: *const codex_login_t,
    f: impl Fn(&LoginEntry) -> &Option<CString>,
) -> *const c_char {
    handles::find(login)
        .and_then(|e| f(&e).as_ref().map(|s| s.as_ptr()))
        .unwrap_or(std::ptr::null())
}

ffi_fn! {
    /// Log in with an OpenAI API key (`account/login/start`, type `apiKey`); the server stores
    /// it in its CODEX_HOME. The key is never logged by the library. An empty key fails with
    /// CODEX_STATUS_INVALID_ARGUMENT. Blocking (bounded by the client's default timeout);
    /// thread: any. ABI 1.6.
    unsafe fn codex_client_login_api_key(
        client: *mut codex_client_t,
        api_key: *const c_char,
    ) -> codex_status_t {
        let s = shared(client)?;
        let key = req_str(api_key, "api_key")?;
        codex_client::CodexClient::from_connection(s.core()).login_api_key_blocking(key)?;
        Ok(())
    }
}

ffi_fn! {
    /// Start a ChatGPT login: the browser flow (`device_code` false: show the user
    /// `codex_login_auth_url`) or the device-code flow (`device_code` true: show
    /// `codex_login_user_code` and `codex_login_verification_url`). On success `*login`
    /// receives the login's handle (free it with `codex_login_free`; on failure it is set to
    /// NULL); then `codex_login_wait` for the outcome, or `codex_login_cancel`. The outcome
    /// is followed from before the request is sent, so it cannot be missed. Blocking
    /// (bounded by the client's default timeout); thread: any. ABI 1.6.
    unsafe fn codex_client_login_chatgpt(
        client: *mut codex_client_t,
        device_code: bool,
        login: *mut *mut codex_login_t,
    ) -> codex_status_t {
        req_out(login, "login")?;
        let s = shared(client)?;
        let l = match device_code {
            true => codex_client::CodexClient::from_connection(s.core()).login_device_code_blocking()?,
            false => codex_client::CodexClient::from_connection(s.core()).login_chatgpt_blocking()?,
        };
        *login = handles::insert::<codex_login_t>(Arc::new(entry(l, s.core().options().get_default_timeout())));
        Ok(())
    }
}

ffi_fn! {
    /// Browser flow: the URL the user opens to log in (NULL for the device-code flow, or a
    /// NULL or freed handle). Ownership: the library's, valid until `codex_login_free`.
    /// Thread: any. ABI 1.6.
    unsafe fn codex_login_auth_url(login: *const codex_login_t) -> *const c_char {
        field(login, |e| &e.auth_url)
    } ?= std::ptr::null()
}

ffi_fn! {
    /// Device-code flow: the code the user enters (NULL otherwise). Ownership and thread as
    /// `codex_login_auth_url`. ABI 1.6.
    unsafe fn codex_login_user_code(login: *const codex_login_t) -> *const c_char {
        field(login, |e| &e.user_code)
    } ?= std::ptr::null()
}

ffi_fn! {
    /// Device-code flow: the page where the user enters the code (NULL otherwise). Ownership
    /// and thread as `codex_login_auth_url`. ABI 1.6.
    unsafe fn codex_login_verification_url(login: *const codex_login_t) -> *const c_char {
        field(login, |e| &e.verification_url)
    } ?= std::ptr::null()
}

ffi_fn! {
    /// The login's id (`loginId`). Ownership and thread as `codex_login_auth_url`. ABI 1.6.
    unsafe fn codex_login_id(login: *const codex_login_t) -> *const c_char {
        field(login, |e| &e.login_id)
    } ?= std::ptr::null()
}

ffi_fn! {
    /// Wait for the login's outcome, at most `timeout_ms` (0: the client's default request
    /// timeout); past it CODEX_STATUS_TIMEOUT (the login goes on: wait again or cancel).
    /// On success `*success` (may be NULL) is 1 when the login succeeded, else 0, and
    /// `*error` (may be NULL) receives the server's reason for a failure (NULL on success;
    /// free it with `codex_string_free`). Blocking; thread: any except inside this client's
    /// callbacks (the outcome arrives through them). ABI 1.6.
    unsafe fn codex_login_wait(
        login: *mut codex_login_t,
        timeout_ms: u64,
        success: *mut i32,
        error: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(error);
        if !success.is_null() {
            *success = 0;
        }
        let e = handles::get::<codex_login_t>(login, "login")?;
        let timeout = match timeout_ms {
            0 => e.default_timeout,
            ms => Duration::from_millis(ms),
        };
        let outcome = e.login.wait_blocking(timeout)?;
        if !success.is_null() {
            *success = i32::from(outcome.success);
        }
        if let Some(reason) = &outcome.error {
            put_string(error, reason);
        }
        Ok(())
    }
}

ffi_fn! {
    /// Cancel the login (`account/login/cancel`); its outcome then is a failure
    /// (`codex_login_wait` returns it). Blocking (bounded by the client's default timeout);
    /// thread: any. ABI 1.6.
    unsafe fn codex_login_cancel(login: *mut codex_login_t) -> codex_status_t {
        let e = handles::get::<codex_login_t>(login, "login")?;
        e.login.cancel_blocking()?;
        Ok(())
    }
}

ffi_fn! {
    /// Free a login handle: the library stops following its outcome (the server's login goes
    /// on until it completes, times out or is cancelled). NULL and freed handles are ignored.
    /// Thread: any. ABI 1.6.
    unsafe fn codex_login_free(login: *mut codex_login_t) {
        if !login.is_null() {
            let e = handles::remove::<codex_login_t>(login, "login");
            drop(e);
        }
    }
}
