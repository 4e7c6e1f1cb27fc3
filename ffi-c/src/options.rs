//! `codex_options_t`: an opaque options object with one setter per option.
//!
//! The options of a client used to be a public C struct; every new field changed its size, and
//! a program built against an older header passed a shorter struct that the library read past.
//! Now the struct is opaque: the program creates it with `codex_options_new`, sets what it
//! needs through setters (new options are new setters, never a layout change) and passes it to
//! `codex_client_new`. Like clients, options objects live in a registry keyed by the handle's
//! address: a pointer that is not a live options object (freed, never created, or the old
//! struct of a program built against an older header) is reported as INVALID_ARGUMENT and
//! never dereferenced.

use std::collections::HashMap;
use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use codex_client::mcp::Root;
use codex_client::{
    ClientOptions, Delivery, Heartbeat, McpCommand, McpHttp, ReconnectPolicy, TransportKind,
};

use crate::client::lock;
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{opt_str, params_value, req_str, req_strs};

/// How a client delivers events: chosen once, with `codex_options_set_delivery`.
pub type codex_delivery_t = u32;

/// Callbacks (the default): events, server requests, connection events and request
/// completions run registered callbacks on one library-owned thread per client (a thread of a
/// small pool shared by all clients, unless `codex_options_set_dedicated_dispatch_thread`).
pub const CODEX_DELIVERY_CALLBACKS: codex_delivery_t = 0;

/// Poll mode: the program pulls events with `codex_client_next_event`, optionally waiting
/// for `codex_client_event_fd` to become readable. No library thread runs program code.
pub const CODEX_DELIVERY_POLL: codex_delivery_t = 1;

/// The longest timeout a setter accepts, in milliseconds (one year).
pub const CODEX_OPTIONS_MAX_TIMEOUT_MS: u64 = 31_536_000_000;

/// Options of a client. Opaque handle: its layout is not part of the ABI.
///
/// Create with `codex_options_new` (every option has its default), change options with the
/// `codex_options_set_*` / `codex_options_add_*` setters, pass it to `codex_client_new`, free
/// it with `codex_options_free`. Ownership: the program's, from `codex_options_new` until
/// `codex_options_free`; `codex_client_new` copies what it needs, so the object may be freed
/// right after it (or reused for more clients). Every string passed to a setter is copied
/// before the setter returns. Handles are checked against a registry of live options objects
/// (they are never reused): a freed handle, or any other pointer (such as the old public
/// struct of a program built against an older header), gives CODEX_STATUS_INVALID_ARGUMENT,
/// never a crash. A handle is never dereferenced, by the library or by the program.
/// Thread: any. An options object may be used from several threads at once (each call locks
/// it); a client created while another thread changes the object gets the options as they
/// were either before or after that change.
pub struct codex_options_t {
    /// Never instantiated: a handle is a token (see `OPTIONS`), never dereferenced.
    _opaque: [u8; 0],
}

/// What an options object holds: core options plus the delivery the program chose, and the
/// custom HTTP headers (kept apart so that they may be added before or after the transport is
/// chosen; `convert` puts them into an HTTP transport).
#[derive(Clone, Default)]
pub(crate) struct Converted {
    pub options: ClientOptions,
    pub poll: bool,
    pub headers: Vec<(String, String)>,
}

/// Live options objects by handle. A handle is a token, not an allocation: `usize::MAX - 15 -
/// 16 * n` for the n-th object. Tokens are never reused, so a freed handle is always recognised
/// (no later object can take its address), and they lie in the top of the address space, which
/// belongs to the kernel on Linux: no pointer to a program's memory (such as the old public
/// struct) can ever equal one. They are 16-byte aligned like any allocation.
static OPTIONS: LazyLock<Mutex<HashMap<usize, Converted>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Number of options objects created so far (the next token's index).
static CREATED: AtomicUsize = AtomicUsize::new(0);

const NOT_OPTIONS: &str = "is not a codex_options_t from codex_options_new: built against an \
     older header? (codex_options_t is opaque since ABI version 1: create it with \
     codex_options_new and the codex_options_set_* setters) - or it was already freed with \
     codex_options_free";

/// Run `f` on the options behind a handle (under the registry lock).
fn with_options<T>(
    opts: *mut codex_options_t,
    f: impl FnOnce(&mut Converted) -> Result<T, Fail>,
) -> Result<T, Fail> {
    if opts.is_null() {
        return Err(invalid_arg("options is NULL"));
    }
    let mut reg = lock(&OPTIONS);
    match reg.get_mut(&(opts as usize)) {
        Some(c) => f(c),
        None => Err(invalid_arg(format!("options {NOT_OPTIONS}"))),
    }
}

/// The options a client is created with (NULL: all defaults); `poll` chooses the core's
/// delivery. Never dereferences `opts`.
pub(crate) fn convert(opts: *const codex_options_t) -> Result<Converted, Fail> {
    let mut c = if opts.is_null() {
        Converted::default()
    } else {
        lock(&OPTIONS)
            .get(&(opts as usize))
            .cloned()
            .ok_or_else(|| invalid_arg(format!("opts {NOT_OPTIONS}")))?
    };
    c.options.delivery = if c.poll {
        Delivery::Poll
    } else {
        Delivery::Callbacks
    };
    if !c.headers.is_empty() {
        match &mut c.options.transport {
            TransportKind::McpHttp(h) => h.headers.extend(std::mem::take(&mut c.headers)),
            _ => {
                return Err(invalid_arg(
                    "HTTP headers (codex_options_add_header) need an MCP HTTP transport: \
                     codex_options_set_transport(o, \"http://...\" or \"https://...\", token)",
                ))
            }
        }
    }
    Ok(c)
}

/// The string argument `arg` (`name` in messages), `key=value`, split at its first `=`
/// (`what` and `form` name the entry and its form in the message).
unsafe fn pair(
    arg: *const c_char,
    name: &str,
    what: &str,
    form: &str,
) -> Result<(String, String), Fail> {
    let s = req_str(arg, name)?;
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(invalid_arg(format!(
            "{what} `{s}` is not of the form {form} (with a non-empty {})",
            form.split('=').next().unwrap_or(form)
        ))),
    }
}

/// `n`, or `default` for 0 (the C convention: 0 restores the default).
fn nonzero_or(n: usize, default: usize) -> usize {
    if n == 0 {
        default
    } else {
        n
    }
}

/// The default options (for the setters' "0 restores the default").
static DEFAULTS: LazyLock<ClientOptions> = LazyLock::new(ClientOptions::default);

/// `ms` as a duration (`default` for 0), refused past `CODEX_OPTIONS_MAX_TIMEOUT_MS`.
fn timeout(ms: u64, what: &str, default: Duration) -> Result<Duration, Fail> {
    match ms {
        0 => Ok(default),
        ms if ms > CODEX_OPTIONS_MAX_TIMEOUT_MS => Err(invalid_arg(format!(
            "{what} {ms} is too large (at most {CODEX_OPTIONS_MAX_TIMEOUT_MS} ms, one year)"
        ))),
        ms => Ok(Duration::from_millis(ms)),
    }
}

/// A reply spin of `us` microseconds (0: off), at most 10 ms.
fn reply_spin(us: u32) -> Result<Duration, Fail> {
    match us {
        us if us > 10_000 => Err(invalid_arg(format!(
            "reply_spin_us {us} is too large (at most 10000)"
        ))),
        us => Ok(Duration::from_micros(us.into())),
    }
}

/// A string argument that must be given and not empty.
unsafe fn non_empty(s: *const c_char, what: &str) -> Result<String, Fail> {
    match req_str(s, what)? {
        "" => Err(invalid_arg(format!("{what} is empty"))),
        s => Ok(s.to_owned()),
    }
}

/// Whether `delivery` is poll mode.
fn poll_of(delivery: codex_delivery_t) -> Result<bool, Fail> {
    match delivery {
        CODEX_DELIVERY_CALLBACKS => Ok(false),
        CODEX_DELIVERY_POLL => Ok(true),
        d => Err(invalid_arg(format!(
            "unknown delivery {d} (expected CODEX_DELIVERY_CALLBACKS or CODEX_DELIVERY_POLL)"
        ))),
    }
}

/// The transport of `codex_options_set_transport`.
unsafe fn transport(spec: *const c_char, token: *const c_char) -> Result<TransportKind, Fail> {
    let spec = opt_str(spec, "spec")?.unwrap_or("");
    Ok(TransportKind::parse(
        spec,
        opt_str(token, "token")?.map(str::to_owned),
    )?)
}

/// The transport of `codex_options_set_mcp_command`.
unsafe fn mcp_command(argv: *const *const c_char, argc: usize) -> Result<TransportKind, Fail> {
    if argv.is_null() {
        return Err(invalid_arg("argv is NULL"));
    }
    if argc == 0 {
        return Err(invalid_arg(
            "argc is 0: the command needs at least the program (argv[0])",
        ));
    }
    let words = req_strs(argv, argc, "argv")?;
    if words[0].is_empty() {
        return Err(invalid_arg("argv[0] (the program) is empty"));
    }
    Ok(TransportKind::McpStdio(
        McpCommand::new(words[0]).args(words[1..].iter().copied()),
    ))
}

/// A checked HTTP header of `codex_options_add_header`.
unsafe fn header(name: *const c_char, value: *const c_char) -> Result<(String, String), Fail> {
    let (name, value) = (req_str(name, "name")?, req_str(value, "value")?);
    McpHttp::check_header(name, value)?;
    Ok((name.to_owned(), value.to_owned()))
}

/// The MCP client capabilities of `codex_options_set_mcp_capabilities_json` (NULL: none).
unsafe fn capabilities(json: *const c_char) -> Result<Option<serde_json::Value>, Fail> {
    let Some(text) = opt_str(json, "capabilities_json")? else {
        return Ok(None);
    };
    match params_value(Some(text), "capabilities_json", serde_json::Value::Null)? {
        v @ serde_json::Value::Object(_) => Ok(Some(v)),
        _ => Err(invalid_arg("capabilities_json must be a JSON object")),
    }
}

/// The reconnect policy of `codex_options_set_reconnect` (`None`: off).
fn reconnect(
    max_attempts: u32,
    base_ms: u64,
    cap_ms: u64,
) -> Result<Option<ReconnectPolicy>, Fail> {
    if max_attempts == 0 {
        return Ok(None);
    }
    let d = ReconnectPolicy::default();
    Ok(Some(ReconnectPolicy {
        max_attempts,
        base: timeout(base_ms, "base_ms", d.base)?,
        cap: timeout(cap_ms, "cap_ms", d.cap)?,
    }))
}

/// The heartbeat of `codex_options_set_heartbeat` (`None`: off).
fn heartbeat(interval_ms: u64, timeout_ms: u64) -> Result<Option<Heartbeat>, Fail> {
    if interval_ms == 0 {
        return Ok(None);
    }
    let d = Heartbeat::default();
    Ok(Some(Heartbeat {
        interval: timeout(interval_ms, "interval_ms", d.interval)?,
        timeout: timeout(timeout_ms, "timeout_ms", d.timeout)?,
    }))
}

/// The client certificate and key paths of `codex_options_set_tls_client_cert` (both or none).
unsafe fn client_cert(
    cert: *const c_char,
    key: *const c_char,
) -> Result<Option<(PathBuf, PathBuf)>, Fail> {
    match (opt_str(cert, "cert_path")?, opt_str(key, "key_path")?) {
        (Some(c), Some(k)) => Ok(Some((c.into(), k.into()))),
        (None, None) => Ok(None),
        _ => Err(invalid_arg("give both cert_path and key_path, or neither")),
    }
}

/// Generate setter exports (each through `ffi_fn!`, taking `opts` first) from one-line specs:
/// `fn NAME(ARGS) -> FIELD = CONVERSION;` stores the conversion's value in the field of the
/// options (`Converted`), `fn NAME(ARGS) -> FIELD += CONVERSION;` appends it. The conversion
/// runs (and fails with `?`) before the options object is looked up: a refused argument
/// changes nothing.
macro_rules! setters {
    ($(#[$doc:meta])* fn $name:ident $args:tt -> $($field:ident).+ = $conv:expr; $($rest:tt)*) => {
        setters!(@export [$(#[$doc])*] $name $args, |c, value| c.$($field).+ = value, $conv);
        setters!($($rest)*);
    };
    ($(#[$doc:meta])* fn $name:ident $args:tt -> $($field:ident).+ += $conv:expr; $($rest:tt)*) => {
        setters!(@export [$(#[$doc])*] $name $args, |c, value| c.$($field).+.push(value), $conv);
        setters!($($rest)*);
    };
    () => {};
    (@export [$($doc:tt)*] $name:ident($($arg:ident: $ty:ty),+), |$c:ident, $v:ident| $store:expr,
        $conv:expr) => {
        ffi_fn! {
            $($doc)*
            unsafe fn $name(opts: *mut codex_options_t, $($arg: $ty),+) -> codex_status_t {
                let $v = $conv;
                with_options(opts, |$c| {
                    $store;
                    Ok(())
                })
            }
        }
    };
}

ffi_fn! {
    /// Create an options object with every option at its default.
    ///
    /// Ownership: the returned object is the program's; free it with `codex_options_free`
    /// (it may be freed right after `codex_client_new`). Returns NULL only when the library
    /// failed internally (the last error says why). Thread: any.
    fn codex_options_new() -> *mut codex_options_t {
        let n = CREATED.fetch_add(1, Ordering::Relaxed);
        // Wrapping after 2^60 objects (2^28 on 32-bit targets) is out of reach in practice.
        let token = usize::MAX - 15 - (n << 4);
        lock(&OPTIONS).insert(token, Converted::default());
        token as *mut codex_options_t
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
        if lock(&OPTIONS).remove(&(opts as usize)).is_none() {
            crate::error::record(&invalid_arg(format!(
                "codex_options_free: the pointer {NOT_OPTIONS}; ignored"
            )));
        }
    }
}

setters! {
    /// Path of the `codex` binary (copied). NULL (the default): `$CODEX_BIN`, then `codex` on
    /// `PATH` (an npm launcher is replaced by the native binary beside it).
    /// Errors: INVALID_ARGUMENT (not a live options object, `path` not UTF-8). Thread: any.
    fn codex_options_set_codex_bin(path: *const c_char)
        -> options.codex_bin = opt_str(path, "path")?.map(Into::into);

    /// Append one argument (copied) to the server's command line, after `app-server` (with the
    /// exec transport: after every `codex exec` command line, for example
    /// `"--skip-git-repo-check"` outside a Git repository). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `arg` NULL or not UTF-8).
    /// Thread: any.
    fn codex_options_add_arg(arg: *const c_char) -> options.args += req_str(arg, "arg")?.to_owned();

    /// Add one `-c` config override of the server, `"key=value"` (copied; the value is TOML,
    /// as on Codex's command line). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `key_value` NULL, not UTF-8, or
    /// not of the form `key=value` with a non-empty key). Thread: any.
    fn codex_options_add_config_override(key_value: *const c_char)
        -> options.config_overrides +=
            pair(key_value, "key_value", "config override", "key=value")?;

    /// Add one environment variable of the server, `"NAME=value"` (copied), merged into the
    /// inherited environment (or into an empty one, see `codex_options_set_clear_env`).
    /// Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `name_value` NULL, not UTF-8, or
    /// not of the form `NAME=value` with a non-empty name). Thread: any.
    fn codex_options_add_env(name_value: *const c_char)
        -> options.env += pair(name_value, "name_value", "environment entry", "NAME=value")?;

    /// Start the server with an empty environment plus the `codex_options_add_env` entries
    /// (true) instead of the inherited one (false, the default).
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_clear_env(clear_env: bool) -> options.clear_env = clear_env;

    /// Working directory of the server (copied). NULL (the default): the current directory.
    /// Errors: INVALID_ARGUMENT (not a live options object, `cwd` not UTF-8). Thread: any.
    fn codex_options_set_cwd(cwd: *const c_char)
        -> options.cwd = opt_str(cwd, "cwd")?.map(Into::into);

    /// `CODEX_HOME` of the server (copied). NULL (the default): inherited.
    /// Errors: INVALID_ARGUMENT (not a live options object, `codex_home` not UTF-8).
    /// Thread: any.
    fn codex_options_set_codex_home(codex_home: *const c_char)
        -> options.codex_home = opt_str(codex_home, "codex_home")?.map(Into::into);
}

ffi_fn! {
    /// `clientInfo` sent in `initialize` (each string copied; each NULL restores its default):
    /// `name` (default "codex-client"), `title` (default: none), `version` (default: the
    /// library version). Nothing is changed when it fails.
    /// Errors: INVALID_ARGUMENT (not a live options object, a string not UTF-8). Thread: any.
    unsafe fn codex_options_set_client_info(
        opts: *mut codex_options_t,
        name: *const c_char,
        title: *const c_char,
        version: *const c_char,
    ) -> codex_status_t {
        let name = opt_str(name, "name")?;
        let title = opt_str(title, "title")?;
        let version = opt_str(version, "version")?;
        with_options(opts, |c| {
            let d = ClientOptions::default();
            c.options.client_name = name.map_or(d.client_name, str::to_owned);
            c.options.client_title = title.map(str::to_owned);
            c.options.client_version = version.map_or(d.client_version, str::to_owned);
            Ok(())
        })
    }
}

setters! {
    /// Ask for experimental methods and fields (`capabilities.experimentalApi`). Default:
    /// false. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_experimental_api(experimental_api: bool)
        -> options.experimental_api = experimental_api;

    /// Add a notification method the server must not send (`optOutNotificationMethods`;
    /// copied). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `method` NULL, empty or not
    /// UTF-8). Thread: any.
    fn codex_options_add_opt_out_notification_method(method: *const c_char)
        -> options.opt_out_notification_methods += non_empty(method, "method")?;

    /// Timeout of every request that does not pass its own, in milliseconds. 0 restores the
    /// default, 300000 (5 minutes).
    /// Errors: INVALID_ARGUMENT (not a live options object, more than
    /// `CODEX_OPTIONS_MAX_TIMEOUT_MS`). Thread: any.
    fn codex_options_set_default_timeout_ms(timeout_ms: u64)
        -> options.default_timeout =
            timeout(timeout_ms, "default_timeout_ms", DEFAULTS.default_timeout)?;

    /// Bound of a whole `codex_client_connect`, in milliseconds: spawning or dialing, the
    /// TCP/unix connect, the WebSocket upgrade and the `initialize` round trip together. Past
    /// it the connect fails with `CODEX_STATUS_TIMEOUT` and everything it started is stopped.
    /// 0 restores the default, 30000.
    /// Errors: INVALID_ARGUMENT (not a live options object, more than
    /// `CODEX_OPTIONS_MAX_TIMEOUT_MS`). Thread: any.
    fn codex_options_set_connect_timeout_ms(timeout_ms: u64)
        -> options.connect_timeout =
            timeout(timeout_ms, "connect_timeout_ms", DEFAULTS.connect_timeout)?;

    /// How long a blocking call (`codex_client_call`) may spin for its reply before the thread
    /// sleeps, in microseconds: a fast server's reply then arrives without a sleep and a
    /// wake-up. Adaptive: while replies take longer than this, only every 2nd … 64th call
    /// spins. Default 50; 0 turns spinning off. ABI 1.4.
    /// Errors: INVALID_ARGUMENT (not a live options object, more than 10000). Thread: any.
    fn codex_options_set_reply_spin_us(spin_us: u32) -> options.reply_spin = reply_spin(spin_us)?;

    /// How the client delivers events: `CODEX_DELIVERY_CALLBACKS` (the default) or
    /// `CODEX_DELIVERY_POLL`.
    /// Errors: INVALID_ARGUMENT (not a live options object, another value). Thread: any.
    fn codex_options_set_delivery(delivery: codex_delivery_t) -> poll = poll_of(delivery)?;

    /// Callback mode: run this client's callbacks on a thread of its own (started by
    /// `codex_client_connect`, ended by `codex_client_disconnect`) instead of a thread of the
    /// library's shared dispatch pool, whose threads serve several clients each (there a
    /// callback that blocks holds up the other clients on its thread). Default 0 (shared).
    /// No effect in poll mode. ABI 1.4.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_dedicated_dispatch_thread(dedicated: bool)
        -> options.dedicated_dispatch_thread = dedicated;

    /// Undelivered events held before the server is made to wait. 0 restores the default,
    /// 4096. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_event_queue_capacity(capacity: usize)
        -> options.event_queue_capacity = nonzero_or(capacity, DEFAULTS.event_queue_capacity);

    /// Read-ahead budget in bytes. A request made on a thread that delivers this client's
    /// events (inside a callback, or on the thread that calls `codex_client_next_event`)
    /// would otherwise wait behind a full event queue for itself, so while one is pending the
    /// library keeps reading past the event queue capacity until the queued events add up to
    /// this many bytes; past that, notifications are dropped and counted in a
    /// `CODEX_EVENT_OVERFLOW` event, delivered as soon as there is room. Requests made on any
    /// other thread never cause read-ahead and nothing is dropped. 0 restores the default,
    /// 64 MiB. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_read_ahead_bytes(bytes: usize)
        -> options.read_ahead_bytes = nonzero_or(bytes, DEFAULTS.read_ahead_bytes);

    /// Longest accepted line from the server, in bytes (longer lines are skipped and
    /// reported). 0 restores the default, 64 MiB.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_max_line_bytes(bytes: usize)
        -> options.max_line_bytes = nonzero_or(bytes, DEFAULTS.max_line_bytes);

    /// The transport, and for a WebSocket or MCP HTTP server its bearer token (both copied).
    /// `spec` NULL or `""`: `"stdio"` (the default: spawn `codex app-server`, JSON-RPC over its
    /// stdin/stdout). Accepted values:
    ///
    ///   - `"stdio"`: the default;
    ///   - `"exec"`: one `codex exec --json` process per turn (`codex exec resume` for later
    ///     turns). No approvals (Codex runs with approval policy `never`), steer, fork, thread
    ///     list, review, config or models. Arguments of `codex_options_add_arg` are appended to
    ///     every `codex exec` command line (for example `"--skip-git-repo-check"` outside a Git
    ///     repository);
    ///   - `"mcp"`: `codex mcp-server` (Codex 0.92.0 and older; newer Codex has no
    ///     `mcp-server`): one thread per `codex` tool call, continued with `codex-reply`;
    ///   - `"ws://HOST:PORT/"` or `"wss://HOST:PORT/"`: connect to a running
    ///     `codex app-server --listen ws://...`; `wss://` is TLS (rustls: the system's roots
    ///     plus `codex_options_set_tls_ca_file`, server names always checked);
    ///   - `"unix"`: the app-server control socket `$CODEX_HOME/app-server-control/
    ///     app-server-control.sock`; `"unix://PATH"`: the control socket at PATH;
    ///   - any MCP server (see MCP in the overview): `"mcp+stdio:PROGRAM ARG..."` spawns
    ///     PROGRAM (split at whitespace; single or double quotes group words, no escapes;
    ///     `codex_options_set_mcp_command` takes an argv instead), `"http://..."`,
    ///     `"https://..."`, `"mcp+http://..."` or `"mcp+https://..."` connects over MCP
    ///     Streamable HTTP (falling back to the legacy HTTP+SSE transport; give a legacy
    ///     server's SSE endpoint, e.g. `http://127.0.0.1:3001/sse`).
    ///
    /// `token` (NULL: none) is the bearer token of a `ws://` / `wss://` / `http(s)://`
    /// transport, sent as `Authorization: Bearer <token>`. It is only sent over `wss://` /
    /// `https://` or to a loopback address: `codex_client_connect` to any other host with a
    /// token fails with `CODEX_STATUS_INVALID_ARGUMENT`. The token is never logged nor put
    /// into an error message.
    ///
    /// Errors (nothing is changed): INVALID_ARGUMENT for an unknown spec (the message names
    /// the accepted values), a token with a transport that is not `ws://` / `wss://` /
    /// `http(s)://`, an `mcp+stdio:` without a command or with an unbalanced quote, a string
    /// that is not UTF-8, or a pointer that is not a live options object. A request (or a
    /// request parameter) the chosen transport cannot handle later fails with
    /// `CODEX_STATUS_UNSUPPORTED`, and the last error message names the method and the
    /// transport (for example "`turn/steer` is not supported by the exec transport").
    /// Thread: any.
    fn codex_options_set_transport(spec: *const c_char, token: *const c_char)
        -> options.transport = transport(spec, token)?;

    /// Talk MCP to the server started as `argv[0]` with the arguments `argv[1..argc]` (each
    /// copied; no shell, no splitting, no quoting: every element is one argument). The program
    /// is looked up on `PATH` when it has no slash. This sets the transport (it replaces the
    /// one of `codex_options_set_transport`, and a later `codex_options_set_transport`
    /// replaces it). The environment (`codex_options_add_env`, `codex_options_set_clear_env`)
    /// and `codex_options_set_cwd` apply to the server; the Codex options (`codex_bin`,
    /// `codex_home`, `args`, config overrides) do not.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `argv`
    /// NULL, `argc` 0, an element NULL or not UTF-8, `argv[0]` empty). Thread: any.
    fn codex_options_set_mcp_command(argv: *const *const c_char, argc: usize)
        -> options.transport = mcp_command(argv, argc)?;

    /// Add an HTTP header (both strings copied) sent with every request of an MCP HTTP
    /// transport (`codex_options_set_transport` with `http://` / `https://`; set before or
    /// after it). For a bearer token use the `token` of `codex_options_set_transport`; the
    /// transport's own headers (session id, protocol version) win over a custom header of the
    /// same name. Values are never logged nor put into an error message. Default: none.
    /// `codex_client_new` fails with INVALID_ARGUMENT when headers are set and the transport
    /// is not MCP over HTTP.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, a string
    /// NULL or not UTF-8, `name` empty or not an HTTP token - letters, digits and
    /// ``!#$%&'*+-.^_`|~``, so no space, colon, CR or LF - or a `value` with a control
    /// character other than tab, such as CR or LF). Thread: any.
    fn codex_options_add_header(name: *const c_char, value: *const c_char)
        -> headers += header(name, value)?;
}

ffi_fn! {
    /// Add a root (both strings copied) that the library answers an MCP server's `roots/list`
    /// with by itself, before any server-request callback sees it. `uri` is the root, a
    /// `file://` URI per the MCP specification; `name` (NULL: none) its display name. Default:
    /// no roots, and then `roots/list` is an ordinary server request (your
    /// `CODEX_CALLBACK_SERVER_REQUEST` callback, or a JSON-RPC error fail-closed).
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `uri` NULL,
    /// empty or not UTF-8, `name` not UTF-8). Thread: any.
    unsafe fn codex_options_add_mcp_root(
        opts: *mut codex_options_t,
        uri: *const c_char,
        name: *const c_char,
    ) -> codex_status_t {
        let uri = non_empty(uri, "uri")?;
        let root = Root::new(uri, opt_str(name, "name")?.map(str::to_owned));
        with_options(opts, |c| {
            c.options.mcp.roots.get_or_insert_with(Vec::new).push(root);
            Ok(())
        })
    }
}

setters! {
    /// The client capabilities sent in MCP `initialize`, as a JSON object (copied). NULL (the
    /// default) restores the library's: `roots` (with `listChanged`), `sampling` and
    /// `elicitation` (form and url modes), so that servers offer the tools that need them;
    /// their requests are answered fail-closed when no callback answers them. Offer less (for
    /// example `{}`) to make a server hide such tools.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, not UTF-8,
    /// not valid JSON, not an object). Thread: any.
    fn codex_options_set_mcp_capabilities_json(capabilities_json: *const c_char)
        -> options.mcp.capabilities = capabilities(capabilities_json)?;

    /// Reconnect automatically when the connection drops without `codex_client_disconnect`
    /// (the server exited, the socket closed or reset, a missed heartbeat): the same transport
    /// is opened again, the handshake redone and every thread loaded on the connection
    /// resumed (see "Reconnect" in the header). Attempt n (0-based) first waits a random time
    /// in [0, min(cap_ms, base_ms * 2^n)]. `max_attempts` 0 turns it off (the default); 0 for
    /// `base_ms` / `cap_ms` means 250 / 5000. Errors: INVALID_ARGUMENT (not a live options
    /// object). Thread: any. ABI 1.2.
    fn codex_options_set_reconnect(max_attempts: u32, base_ms: u64, cap_ms: u64)
        -> options.reconnect = reconnect(max_attempts, base_ms, cap_ms)?;

    /// WebSocket heartbeat (ws://, wss://, unix sockets): a ping every `interval_ms`; when
    /// nothing comes from the server for `interval_ms + timeout_ms` the connection drops (and
    /// reconnects, with `codex_options_set_reconnect`). Default: on, 15000 / 10000.
    /// `interval_ms` 0 turns it off; `timeout_ms` 0 means 10000. Errors: INVALID_ARGUMENT (not
    /// a live options object, too large). Thread: any. ABI 1.2.
    fn codex_options_set_heartbeat(interval_ms: u64, timeout_ms: u64)
        -> options.heartbeat = heartbeat(interval_ms, timeout_ms)?;

    /// Trust the CA certificates in this PEM file (path copied) for `wss://`, besides the
    /// system's roots. NULL removes it. Server names are always checked. The file is read at
    /// connect (an unreadable one fails the connect with INVALID_ARGUMENT naming it).
    /// Errors: INVALID_ARGUMENT (not a live options object, not UTF-8). Thread: any. ABI 1.2.
    fn codex_options_set_tls_ca_file(path: *const c_char)
        -> options.tls.ca_file = opt_str(path, "path")?.map(Into::into);

    /// Present this client certificate chain and private key (PEM files, paths copied) on
    /// `wss://` when the server asks for one. NULL for both removes it.
    /// Errors: INVALID_ARGUMENT (not a live options object, only one of the two given, not
    /// UTF-8). Thread: any. ABI 1.2.
    fn codex_options_set_tls_client_cert(cert_path: *const c_char, key_path: *const c_char)
        -> options.tls.client_cert = client_cert(cert_path, key_path)?;
}

#[cfg(test)]
#[path = "../tests/unit/options.rs"]
mod tests;
