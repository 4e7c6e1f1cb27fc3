//! MCP authorization (OAuth 2.1) from C: the browser step and the token store as the
//! program's callbacks, handed to the core's entry points (`OptionsBuilder::oauth_authorizer`
//! with the core's `BlockingAuthorizer`, `OptionsBuilder::oauth_token_store` with its
//! `JsonTokenStore`), and the core's `LoopbackBrowser`. The grants, DPoP and every other
//! setting are options by name (`oauth_*`, `codex_options_set`). ABI 1.8.

use std::ffi::{c_char, c_void, CString};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Longer than any bound an option takes (a year).
const MAX_SECONDS: u64 = 366 * 24 * 3600;

use codex_client::auth::{BlockingAuthorizer, JsonStore, JsonTokenStore, LoopbackBrowser};
use codex_client::Error;

use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};
use crate::handles::{self, Handle, Kind, Table};
use crate::options::{codex_options_t, with_options};
use crate::strings::{clear_out, put_string, req_str};
use crate::util::{lock, to_cstring};

/// Where a callback puts its answer (opaque handle): the text it hands back
/// (`codex_oauth_answer_set`) or why it failed (`codex_oauth_answer_error`).
///
/// Ownership: the library's. It is live only during the one callback call that received it;
/// the library copies the answer before the call returns. Using it after the callback
/// returned, or with another callback, gives CODEX_STATUS_INVALID_ARGUMENT (never a crash:
/// it is a handle, never dereferenced).
pub struct codex_oauth_answer_t {
    _opaque: [u8; 0],
}

/// What a callback answered.
pub(crate) enum Answer {
    Text(String),
    Error(String),
}

static ANSWERS: Table<Mutex<Option<Answer>>> = Table::new();

impl Handle for codex_oauth_answer_t {
    type Target = Mutex<Option<Answer>>;
    const KIND: Kind = Kind::OAuthAnswer;
    const NOT_LIVE: &'static str = "is not a live codex_oauth_answer_t: it is valid only during \
         the callback call that received it";
    fn table() -> &'static Table<Mutex<Option<Answer>>> {
        &ANSWERS
    }
}

/// Call `f` with a fresh answer handle; what it answered once it returned (the handle is
/// dead from then on).
fn with_answer(f: impl FnOnce(*mut codex_oauth_answer_t)) -> Option<Answer> {
    let slot = Arc::new(Mutex::new(None));
    let h = handles::insert::<codex_oauth_answer_t>(slot.clone());
    f(h);
    let _ = handles::remove(h, "answer");
    let answer = lock(&slot).take();
    answer
}

/// Put `a` into the answer behind `answer`.
fn answer(answer: *mut codex_oauth_answer_t, a: Answer) -> Result<(), Fail> {
    let slot = handles::get(answer, "answer")?;
    let mut s = lock(&slot);
    if s.is_some() {
        return Err(invalid_state("this callback already answered"));
    }
    *s = Some(a);
    Ok(())
}

/// Frees a callback's `userdata` (`codex_options_set_oauth_authorizer`,
/// `codex_options_set_oauth_token_store`, `codex_options_set_oauth_loopback`): called once,
/// when no options object and no client holds the callbacks any more, on the thread that
/// dropped the last of them (any thread: the one of `codex_options_free` or
/// `codex_client_free`, or a library thread as a connection ends). It must not call the
/// library.
pub type codex_release_callback_t = Option<unsafe extern "C" fn(userdata: *mut c_void)>;

/// The browser step of MCP authorization: take the user to `authorization_url` (NUL-terminated
/// UTF-8, borrowed for the call) and answer the URL the authorization server redirected to
/// (with `code`, `state` and maybe `iss`) with `codex_oauth_answer_set(answer, url)`, or fail
/// with `codex_oauth_answer_error(answer, message)` (answering nothing fails too).
pub type codex_oauth_authorize_callback_t = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        authorization_url: *const c_char,
        answer: *mut codex_oauth_answer_t,
    ),
>;

/// Token store: what is stored for the MCP server `server` (its URL). Answer the JSON text
/// that `codex_oauth_store_save_callback_t` was given for it with `codex_oauth_answer_set`,
/// answer nothing when nothing is stored, or fail with `codex_oauth_answer_error`.
pub type codex_oauth_store_load_callback_t = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        server: *const c_char,
        answer: *mut codex_oauth_answer_t,
    ),
>;

/// Token store: replace what is stored for `server` with `credentials_json` (JSON text
/// holding the tokens and the client registration: secrets, keep it private; both strings
/// borrowed for the call). Fail with `codex_oauth_answer_error`.
pub type codex_oauth_store_save_callback_t = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        server: *const c_char,
        credentials_json: *const c_char,
        answer: *mut codex_oauth_answer_t,
    ),
>;

/// Token store: forget what is stored for `server`. Fail with `codex_oauth_answer_error`.
pub type codex_oauth_store_clear_callback_t = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        server: *const c_char,
        answer: *mut codex_oauth_answer_t,
    ),
>;

/// Opens an authorization URL for the user (`codex_options_set_oauth_loopback`): start the
/// browser and return (it runs on a library-owned blocking thread).
pub type codex_oauth_open_callback_t =
    Option<unsafe extern "C" fn(userdata: *mut c_void, authorization_url: *const c_char)>;

/// A program's `userdata` with its release callback, run when the last holder lets go.
struct Userdata {
    ptr: usize,
    release: codex_release_callback_t,
}

impl Userdata {
    fn ptr(&self) -> *mut c_void {
        self.ptr as *mut c_void
    }
}

impl Drop for Userdata {
    fn drop(&mut self) {
        if let Some(f) = self.release {
            // SAFETY: the program gave `release` with this `userdata` to be called once, here.
            unsafe { f(self.ptr()) };
        }
    }
}

fn userdata(ptr: *mut c_void, release: codex_release_callback_t) -> Arc<Userdata> {
    Arc::new(Userdata {
        ptr: ptr as usize,
        release,
    })
}

/// The text a callback answered, or why it did not (its message, or `missing`).
fn text_or(a: Option<Answer>, missing: &str) -> codex_client::Result<String> {
    match a {
        Some(Answer::Text(t)) => Ok(t),
        Some(Answer::Error(m)) => Err(Error::Cancelled(m)),
        None => Err(Error::Cancelled(missing.to_owned())),
    }
}

/// The program's store callbacks as the core's `JsonStore`.
struct CStore {
    load: unsafe extern "C" fn(*mut c_void, *const c_char, *mut codex_oauth_answer_t),
    save:
        unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, *mut codex_oauth_answer_t),
    clear: unsafe extern "C" fn(*mut c_void, *const c_char, *mut codex_oauth_answer_t),
    data: Arc<Userdata>,
}

/// A store callback's failure.
fn store_error(a: Option<Answer>, what: &str) -> codex_client::Result<()> {
    match a {
        Some(Answer::Error(m)) => Err(Error::InvalidArgument(format!(
            "the token store's {what} callback failed: {m}"
        ))),
        _ => Ok(()),
    }
}

impl JsonStore for CStore {
    fn load(&self, server: &str) -> codex_client::Result<Option<String>> {
        let s = to_cstring(server);
        // SAFETY (each callback call below): the program registered the callback with this
        // `userdata`; the strings live for the call.
        match with_answer(|a| unsafe { (self.load)(self.data.ptr(), s.as_ptr(), a) }) {
            None => Ok(None),
            Some(Answer::Text(t)) => Ok(Some(t)),
            a => store_error(a, "load").map(|()| None),
        }
    }
    fn save(&self, server: &str, json: &str) -> codex_client::Result<()> {
        let (s, j) = (to_cstring(server), to_cstring(json));
        let a = with_answer(|a| unsafe { (self.save)(self.data.ptr(), s.as_ptr(), j.as_ptr(), a) });
        store_error(a, "save")
    }
    fn clear(&self, server: &str) -> codex_client::Result<()> {
        let s = to_cstring(server);
        let a = with_answer(|a| unsafe { (self.clear)(self.data.ptr(), s.as_ptr(), a) });
        store_error(a, "clear")
    }
}

ffi_fn! {
    /// Answer a callback with `text` (copied before this returns): the redirect URL of the
    /// browser step, or the stored JSON of a token store's load. Only during the callback call
    /// that received `answer`, once.
    /// Errors: INVALID_ARGUMENT (`answer` not live - after its callback returned, or not an
    /// answer -, `text` NULL or not UTF-8), INVALID_STATE (already answered). Thread: the
    /// callback's (or any other, while the callback has not returned). ABI 1.8.
    unsafe fn codex_oauth_answer_set(
        answer: *mut codex_oauth_answer_t,
        text: *const c_char,
    ) -> codex_status_t {
        let t = req_str(text, "text")?;
        self::answer(answer, Answer::Text(t.to_owned()))
    }
}

ffi_fn! {
    /// Fail a callback with `message` (copied; NULL: a generic one): the authorization (or the
    /// token store operation) fails, and the error, the CODEX_EVENT_AUTH event and the log say
    /// `message` - so never put a secret in it. Only during the callback call that received
    /// `answer`, once.
    /// Errors: INVALID_ARGUMENT (`answer` not live, `message` not UTF-8), INVALID_STATE
    /// (already answered). Thread: as `codex_oauth_answer_set`. ABI 1.8.
    unsafe fn codex_oauth_answer_error(
        answer: *mut codex_oauth_answer_t,
        message: *const c_char,
    ) -> codex_status_t {
        let m = crate::strings::opt_str(message, "message")?.unwrap_or("the callback failed");
        self::answer(answer, Answer::Error(m.to_owned()))
    }
}

ffi_fn! {
    /// The browser step of MCP authorization (option `oauth`: an MCP server over HTTP that
    /// answers 401): `callback` gets each authorization URL and answers the redirect URL
    /// through its `answer` (see `codex_oauth_authorize_callback_t`). Turns authorization on.
    /// The redirect URI is option `oauth_redirect_uri` (`codex_options_set`). Replaces an
    /// earlier authorizer (also one of `codex_options_set_oauth_loopback`).
    ///
    /// Thread: the callback runs on a library-owned blocking thread (named `codex-client-rt`),
    /// never on a thread that serves connections, one authorization at a time per client; it
    /// may block - open a browser, wait for the user - up to option `oauth_authorize_timeout`
    /// (default 300 s; the request that needed the authorization - `codex_client_connect` with
    /// its connect timeout, a call with its own timeout - may fail sooner with TIMEOUT). After
    /// the bound its late answer is ignored. It may call the library, but must not wait for a
    /// request of the client being authorized (that request waits for this callback).
    ///
    /// Ownership: `userdata` stays the program's; the library passes it back unchanged and
    /// calls `release(userdata)` (if not NULL) once no options object and no client created
    /// from one holds the callback any more (see `codex_release_callback_t`); without
    /// `release`, keep `userdata` valid until every client created from `opts` is freed.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `callback`
    /// NULL; `release` is then not called). Thread: any. ABI 1.8.
    unsafe fn codex_options_set_oauth_authorizer(
        opts: *mut codex_options_t,
        callback: codex_oauth_authorize_callback_t,
        userdata: *mut c_void,
        release: codex_release_callback_t,
    ) -> codex_status_t {
        let Some(f) = callback else {
            return Err(invalid_arg("callback is NULL"));
        };
        handles::get(opts, "opts")?;
        let data = self::userdata(userdata, release);
        let step = BlockingAuthorizer::new(move |url: &str| {
            let u = to_cstring(url);
            // SAFETY: the program registered `f` with this `userdata`; the URL lives for the
            // call.
            let a = with_answer(|a| unsafe { f(data.ptr(), u.as_ptr(), a) });
            text_or(a, "it answered no redirect URL")
        });
        let step = Arc::new(step);
        with_options(opts, |b| {
            b.oauth_authorizer(step.clone());
            Ok(())
        })
    }
}

ffi_fn! {
    /// Keep MCP authorization's tokens and client registration where the program wants them
    /// (a keychain, a database, its own file) instead of in memory: `load`, `save` and `clear`
    /// (all three required) get the MCP server's URL and exchange the credentials as JSON text
    /// (the library owns the format: store the text as it is; it holds secrets). Turns
    /// authorization on. Not with option `oauth_token_file` (`codex_client_new` refuses both).
    ///
    /// Thread: the callbacks run on a library-owned blocking thread (`codex-client-rt`), never
    /// on one that serves connections, one at a time per client, while that client's requests
    /// wait for them: keep them short (a file, a keychain entry), and never wait in them for a
    /// request of the client being authorized. A failed `load` or `save` is logged (the
    /// message, never the credentials) and the authorization goes on without the store.
    ///
    /// Ownership: as `codex_options_set_oauth_authorizer` (`release(userdata)` once nothing
    /// holds the store any more). Errors (nothing is changed): INVALID_ARGUMENT (not a live
    /// options object, a callback NULL; `release` is then not called). Thread: any. ABI 1.8.
    unsafe fn codex_options_set_oauth_token_store(
        opts: *mut codex_options_t,
        load: codex_oauth_store_load_callback_t,
        save: codex_oauth_store_save_callback_t,
        clear: codex_oauth_store_clear_callback_t,
        userdata: *mut c_void,
        release: codex_release_callback_t,
    ) -> codex_status_t {
        let (Some(load), Some(save), Some(clear)) = (load, save, clear) else {
            return Err(invalid_arg("load, save and clear are all required"));
        };
        handles::get(opts, "opts")?;
        let store = CStore { load, save, clear, data: self::userdata(userdata, release) };
        let store: Arc<dyn codex_client::auth::TokenStore> = Arc::new(JsonTokenStore(store));
        with_options(opts, |b| {
            b.oauth_token_store(store.clone());
            Ok(())
        })
    }
}

ffi_fn! {
    /// A ready browser step for desktop programs (RFC 8252): listen on `127.0.0.1:port`
    /// (0: a free port, chosen now) for the redirect to `/callback`, and for each
    /// authorization open the URL - with `open(userdata, url)` if given, else the system
    /// browser (`xdg-open`, `open`, `start`) - then wait for the browser to come back to the
    /// redirect URI, at most option `oauth_authorize_timeout`. The redirect URI is used as
    /// the flow's unless option `oauth_redirect_uri` says otherwise; `*redirect_uri` (may be
    /// NULL) receives it (`http://127.0.0.1:PORT/callback`; free it with `codex_string_free`).
    /// Turns authorization on; replaces an earlier authorizer.
    ///
    /// Thread: `open` runs on a library-owned blocking thread (`codex-client-rt`): start the
    /// browser and return (the library waits for the redirect, not `open`).
    /// Ownership: as `codex_options_set_oauth_authorizer` (`userdata`, `release`; both unused
    /// without `open`, and `release` is then called at once when given).
    /// Errors (nothing is changed; `*redirect_uri` NULL): INVALID_ARGUMENT (not a live options
    /// object, the port cannot be listened on). Thread: any. ABI 1.8.
    unsafe fn codex_options_set_oauth_loopback(
        opts: *mut codex_options_t,
        port: u16,
        open: codex_oauth_open_callback_t,
        userdata: *mut c_void,
        release: codex_release_callback_t,
        redirect_uri: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(redirect_uri);
        handles::get(opts, "opts")?;
        // The flow's bound (option `oauth_authorize_timeout`) is the one that counts.
        let mut browser = LoopbackBrowser::bind(port)?.timeout(Duration::from_secs(MAX_SECONDS));
        let data = self::userdata(userdata, release);
        if let Some(f) = open {
            browser = browser.open_with(move |url: &str| {
                let u = CString::new(url).map_err(|_| Error::InvalidArgument("URL with NUL".into()))?;
                // SAFETY: the program registered `f` with this `userdata`; the URL lives for
                // the call.
                unsafe { f(data.ptr(), u.as_ptr()) };
                Ok(())
            });
        }
        let uri = browser.redirect_uri();
        let browser = Arc::new(browser);
        with_options(opts, |b| {
            b.oauth_authorizer(browser.clone());
            Ok(())
        })?;
        put_string(redirect_uri, &uri);
        Ok(())
    }
}
