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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use codex_client::mcp::Root;
use codex_client::{ClientOptions, Delivery, McpCommand, McpHttp, TransportKind};

use crate::client::lock;
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{opt_str, params_value, req_str};

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

/// Split `key=value` (`form` names the expected form in the message).
fn pair(s: &str, what: &str, form: &str) -> Result<(String, String), Fail> {
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

fn timeout(ms: u64, what: &str, default: Duration) -> Result<Duration, Fail> {
    match ms {
        0 => Ok(default),
        ms if ms > CODEX_OPTIONS_MAX_TIMEOUT_MS => Err(invalid_arg(format!(
            "{what} {ms} is too large (at most {CODEX_OPTIONS_MAX_TIMEOUT_MS} ms, one year)"
        ))),
        ms => Ok(Duration::from_millis(ms)),
    }
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

ffi_fn! {
    /// Path of the `codex` binary (copied). NULL (the default): `$CODEX_BIN`, then `codex` on
    /// `PATH` (an npm launcher is replaced by the native binary beside it).
    /// Errors: INVALID_ARGUMENT (not a live options object, `path` not UTF-8). Thread: any.
    unsafe fn codex_options_set_codex_bin(
        opts: *mut codex_options_t,
        path: *const c_char,
    ) -> codex_status_t {
        let path = opt_str(path, "path")?;
        with_options(opts, |c| {
            c.options.codex_bin = path.map(Into::into);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Append one argument (copied) to the server's command line, after `app-server` (with the
    /// exec transport: after every `codex exec` command line, for example
    /// `"--skip-git-repo-check"` outside a Git repository). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `arg` NULL or not UTF-8).
    /// Thread: any.
    unsafe fn codex_options_add_arg(
        opts: *mut codex_options_t,
        arg: *const c_char,
    ) -> codex_status_t {
        let arg = req_str(arg, "arg")?.to_owned();
        with_options(opts, |c| {
            c.options.args.push(arg);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Add one `-c` config override of the server, `"key=value"` (copied; the value is TOML,
    /// as on Codex's command line). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `key_value` NULL, not UTF-8, or
    /// not of the form `key=value` with a non-empty key). Thread: any.
    unsafe fn codex_options_add_config_override(
        opts: *mut codex_options_t,
        key_value: *const c_char,
    ) -> codex_status_t {
        let kv = pair(req_str(key_value, "key_value")?, "config override", "key=value")?;
        with_options(opts, |c| {
            c.options.config_overrides.push(kv);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Add one environment variable of the server, `"NAME=value"` (copied), merged into the
    /// inherited environment (or into an empty one, see `codex_options_set_clear_env`).
    /// Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `name_value` NULL, not UTF-8, or
    /// not of the form `NAME=value` with a non-empty name). Thread: any.
    unsafe fn codex_options_add_env(
        opts: *mut codex_options_t,
        name_value: *const c_char,
    ) -> codex_status_t {
        let kv = pair(req_str(name_value, "name_value")?, "environment entry", "NAME=value")?;
        with_options(opts, |c| {
            c.options.env.push(kv);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Start the server with an empty environment plus the `codex_options_add_env` entries
    /// (true) instead of the inherited one (false, the default).
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_clear_env(
        opts: *mut codex_options_t,
        clear_env: bool,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.clear_env = clear_env;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Working directory of the server (copied). NULL (the default): the current directory.
    /// Errors: INVALID_ARGUMENT (not a live options object, `cwd` not UTF-8). Thread: any.
    unsafe fn codex_options_set_cwd(
        opts: *mut codex_options_t,
        cwd: *const c_char,
    ) -> codex_status_t {
        let cwd = opt_str(cwd, "cwd")?;
        with_options(opts, |c| {
            c.options.cwd = cwd.map(Into::into);
            Ok(())
        })
    }
}

ffi_fn! {
    /// `CODEX_HOME` of the server (copied). NULL (the default): inherited.
    /// Errors: INVALID_ARGUMENT (not a live options object, `codex_home` not UTF-8).
    /// Thread: any.
    unsafe fn codex_options_set_codex_home(
        opts: *mut codex_options_t,
        codex_home: *const c_char,
    ) -> codex_status_t {
        let home = opt_str(codex_home, "codex_home")?;
        with_options(opts, |c| {
            c.options.codex_home = home.map(Into::into);
            Ok(())
        })
    }
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

ffi_fn! {
    /// Ask for experimental methods and fields (`capabilities.experimentalApi`). Default:
    /// false. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_experimental_api(
        opts: *mut codex_options_t,
        experimental_api: bool,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.experimental_api = experimental_api;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Add a notification method the server must not send (`optOutNotificationMethods`;
    /// copied). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `method` NULL, empty or not
    /// UTF-8). Thread: any.
    unsafe fn codex_options_add_opt_out_notification_method(
        opts: *mut codex_options_t,
        method: *const c_char,
    ) -> codex_status_t {
        let method = req_str(method, "method")?;
        if method.is_empty() {
            return Err(invalid_arg("method is empty"));
        }
        let method = method.to_owned();
        with_options(opts, |c| {
            c.options.opt_out_notification_methods.push(method);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Timeout of every request that does not pass its own, in milliseconds. 0 restores the
    /// default, 300000 (5 minutes).
    /// Errors: INVALID_ARGUMENT (not a live options object, more than
    /// `CODEX_OPTIONS_MAX_TIMEOUT_MS`). Thread: any.
    unsafe fn codex_options_set_default_timeout_ms(
        opts: *mut codex_options_t,
        timeout_ms: u64,
    ) -> codex_status_t {
        let t = timeout(
            timeout_ms,
            "default_timeout_ms",
            ClientOptions::default().default_timeout,
        )?;
        with_options(opts, |c| {
            c.options.default_timeout = t;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Bound of a whole `codex_client_connect`, in milliseconds: spawning or dialing, the
    /// TCP/unix connect, the WebSocket upgrade and the `initialize` round trip together. Past
    /// it the connect fails with `CODEX_STATUS_TIMEOUT` and everything it started is stopped.
    /// 0 restores the default, 30000.
    /// Errors: INVALID_ARGUMENT (not a live options object, more than
    /// `CODEX_OPTIONS_MAX_TIMEOUT_MS`). Thread: any.
    unsafe fn codex_options_set_connect_timeout_ms(
        opts: *mut codex_options_t,
        timeout_ms: u64,
    ) -> codex_status_t {
        let t = timeout(
            timeout_ms,
            "connect_timeout_ms",
            ClientOptions::default().connect_timeout,
        )?;
        with_options(opts, |c| {
            c.options.connect_timeout = t;
            Ok(())
        })
    }
}

ffi_fn! {
    /// How the client delivers events: `CODEX_DELIVERY_CALLBACKS` (the default) or
    /// `CODEX_DELIVERY_POLL`.
    /// Errors: INVALID_ARGUMENT (not a live options object, another value). Thread: any.
    unsafe fn codex_options_set_delivery(
        opts: *mut codex_options_t,
        delivery: codex_delivery_t,
    ) -> codex_status_t {
        let poll = match delivery {
            CODEX_DELIVERY_CALLBACKS => false,
            CODEX_DELIVERY_POLL => true,
            d => {
                return Err(invalid_arg(format!(
                    "unknown delivery {d} (expected CODEX_DELIVERY_CALLBACKS or CODEX_DELIVERY_POLL)"
                )))
            }
        };
        with_options(opts, |c| {
            c.poll = poll;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Callback mode: run this client's callbacks on a thread of its own (started by
    /// `codex_client_connect`, ended by `codex_client_disconnect`) instead of a thread of the
    /// library's shared dispatch pool, whose threads serve several clients each (there a
    /// callback that blocks holds up the other clients on its thread). Default 0 (shared).
    /// No effect in poll mode. Since ABI 1.4.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_dedicated_dispatch_thread(
        opts: *mut codex_options_t,
        dedicated: bool,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.dedicated_dispatch_thread = dedicated;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Undelivered events held before the server is made to wait. 0 restores the default,
    /// 4096. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_event_queue_capacity(
        opts: *mut codex_options_t,
        capacity: usize,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.event_queue_capacity = nonzero_or(capacity, ClientOptions::default().event_queue_capacity);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Read-ahead budget in bytes. A request made on a thread that delivers this client's
    /// events (inside a callback, or on the thread that calls `codex_client_next_event`)
    /// would otherwise wait behind a full event queue for itself, so while one is pending the
    /// library keeps reading past the event queue capacity until the queued events add up to
    /// this many bytes; past that, notifications are dropped and counted in a
    /// `CODEX_EVENT_OVERFLOW` event, delivered as soon as there is room. Requests made on any
    /// other thread never cause read-ahead and nothing is dropped. 0 restores the default,
    /// 64 MiB. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_read_ahead_bytes(
        opts: *mut codex_options_t,
        bytes: usize,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.read_ahead_bytes = nonzero_or(bytes, ClientOptions::default().read_ahead_bytes);
            Ok(())
        })
    }
}

ffi_fn! {
    /// Longest accepted line from the server, in bytes (longer lines are skipped and
    /// reported). 0 restores the default, 64 MiB.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    unsafe fn codex_options_set_max_line_bytes(
        opts: *mut codex_options_t,
        bytes: usize,
    ) -> codex_status_t {
        with_options(opts, |c| {
            c.options.max_line_bytes = nonzero_or(bytes, ClientOptions::default().max_line_bytes);
            Ok(())
        })
    }
}

ffi_fn! {
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
    unsafe fn codex_options_set_transport(
        opts: *mut codex_options_t,
        spec: *const c_char,
        token: *const c_char,
    ) -> codex_status_t {
        let spec = opt_str(spec, "spec")?.unwrap_or("");
        let token = opt_str(token, "token")?.map(str::to_owned);
        let kind = TransportKind::parse(spec, token)?;
        with_options(opts, |c| {
            c.options.transport = kind;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Talk MCP to the server started as `argv[0]` with the arguments `argv[1..argc]` (each
    /// copied; no shell, no splitting, no quoting: every element is one argument). The program
    /// is looked up on `PATH` when it has no slash. This sets the transport (it replaces the
    /// one of `codex_options_set_transport`, and a later `codex_options_set_transport`
    /// replaces it). The environment (`codex_options_add_env`, `codex_options_set_clear_env`)
    /// and `codex_options_set_cwd` apply to the server; the Codex options (`codex_bin`,
    /// `codex_home`, `args`, config overrides) do not.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `argv`
    /// NULL, `argc` 0, an element NULL or not UTF-8, `argv[0]` empty). Thread: any.
    unsafe fn codex_options_set_mcp_command(
        opts: *mut codex_options_t,
        argv: *const *const c_char,
        argc: usize,
    ) -> codex_status_t {
        if argv.is_null() {
            return Err(invalid_arg("argv is NULL"));
        }
        if argc == 0 {
            return Err(invalid_arg("argc is 0: the command needs at least the program (argv[0])"));
        }
        let mut words = Vec::with_capacity(argc);
        for i in 0..argc {
            words.push(req_str(*argv.add(i), &format!("argv[{i}]"))?.to_owned());
        }
        if words[0].is_empty() {
            return Err(invalid_arg("argv[0] (the program) is empty"));
        }
        let program = words.remove(0);
        let kind = TransportKind::McpStdio(McpCommand::new(program).args(words));
        with_options(opts, |c| {
            c.options.transport = kind;
            Ok(())
        })
    }
}

ffi_fn! {
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
    unsafe fn codex_options_add_header(
        opts: *mut codex_options_t,
        name: *const c_char,
        value: *const c_char,
    ) -> codex_status_t {
        let name = req_str(name, "name")?;
        let value = req_str(value, "value")?;
        McpHttp::check_header(name, value)?;
        let header = (name.to_owned(), value.to_owned());
        with_options(opts, |c| {
            c.headers.push(header);
            Ok(())
        })
    }
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
        let uri = req_str(uri, "uri")?;
        if uri.is_empty() {
            return Err(invalid_arg("uri is empty"));
        }
        let root = Root::new(uri, opt_str(name, "name")?.map(str::to_owned));
        with_options(opts, |c| {
            c.options.mcp.roots.get_or_insert_with(Vec::new).push(root);
            Ok(())
        })
    }
}

ffi_fn! {
    /// The client capabilities sent in MCP `initialize`, as a JSON object (copied). NULL (the
    /// default) restores the library's: `roots` (with `listChanged`), `sampling` and
    /// `elicitation` (form and url modes), so that servers offer the tools that need them;
    /// their requests are answered fail-closed when no callback answers them. Offer less (for
    /// example `{}`) to make a server hide such tools.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, not UTF-8,
    /// not valid JSON, not an object). Thread: any.
    unsafe fn codex_options_set_mcp_capabilities_json(
        opts: *mut codex_options_t,
        capabilities_json: *const c_char,
    ) -> codex_status_t {
        let text = opt_str(capabilities_json, "capabilities_json")?;
        let caps = match text {
            None => None,
            Some(t) => match params_value(Some(t), "capabilities_json", serde_json::Value::Null)? {
                v @ serde_json::Value::Object(_) => Some(v),
                _ => return Err(invalid_arg("capabilities_json must be a JSON object")),
            },
        };
        with_options(opts, |c| {
            c.options.mcp.capabilities = caps;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Reconnect automatically when the connection drops without `codex_client_disconnect`
    /// (the server exited, the socket closed or reset, a missed heartbeat): the same transport
    /// is opened again, the handshake redone and every thread loaded on the connection
    /// resumed (see "Reconnect" in the header). Attempt n (0-based) first waits a random time
    /// in [0, min(cap_ms, base_ms * 2^n)]. `max_attempts` 0 turns it off (the default); 0 for
    /// `base_ms` / `cap_ms` means 250 / 5000. Errors: INVALID_ARGUMENT (not a live options
    /// object). Thread: any. ABI 1.2.
    unsafe fn codex_options_set_reconnect(
        opts: *mut codex_options_t,
        max_attempts: u32,
        base_ms: u64,
        cap_ms: u64,
    ) -> codex_status_t {
        let d = codex_client::ReconnectPolicy::default();
        let policy = (max_attempts > 0).then(|| -> Result<_, Fail> {
            Ok(codex_client::ReconnectPolicy {
                max_attempts,
                base: timeout(base_ms, "base_ms", d.base)?,
                cap: timeout(cap_ms, "cap_ms", d.cap)?,
            })
        });
        let policy = policy.transpose()?;
        with_options(opts, |c| {
            c.options.reconnect = policy;
            Ok(())
        })
    }
}

ffi_fn! {
    /// WebSocket heartbeat (ws://, wss://, unix sockets): a ping every `interval_ms`; when
    /// nothing comes from the server for `interval_ms + timeout_ms` the connection drops (and
    /// reconnects, with `codex_options_set_reconnect`). Default: on, 15000 / 10000.
    /// `interval_ms` 0 turns it off; `timeout_ms` 0 means 10000. Errors: INVALID_ARGUMENT (not
    /// a live options object, too large). Thread: any. ABI 1.2.
    unsafe fn codex_options_set_heartbeat(
        opts: *mut codex_options_t,
        interval_ms: u64,
        timeout_ms: u64,
    ) -> codex_status_t {
        let d = codex_client::Heartbeat::default();
        let hb = if interval_ms == 0 {
            None
        } else {
            Some(codex_client::Heartbeat {
                interval: timeout(interval_ms, "interval_ms", d.interval)?,
                timeout: timeout(timeout_ms, "timeout_ms", d.timeout)?,
            })
        };
        with_options(opts, |c| {
            c.options.heartbeat = hb;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Trust the CA certificates in this PEM file (path copied) for `wss://`, besides the
    /// system's roots. NULL removes it. Server names are always checked. The file is read at
    /// connect (an unreadable one fails the connect with INVALID_ARGUMENT naming it).
    /// Errors: INVALID_ARGUMENT (not a live options object, not UTF-8). Thread: any. ABI 1.2.
    unsafe fn codex_options_set_tls_ca_file(
        opts: *mut codex_options_t,
        path: *const c_char,
    ) -> codex_status_t {
        let path = opt_str(path, "path")?.map(std::path::PathBuf::from);
        with_options(opts, |c| {
            c.options.tls.ca_file = path;
            Ok(())
        })
    }
}

ffi_fn! {
    /// Present this client certificate chain and private key (PEM files, paths copied) on
    /// `wss://` when the server asks for one. NULL for both removes it.
    /// Errors: INVALID_ARGUMENT (not a live options object, only one of the two given, not
    /// UTF-8). Thread: any. ABI 1.2.
    unsafe fn codex_options_set_tls_client_cert(
        opts: *mut codex_options_t,
        cert_path: *const c_char,
        key_path: *const c_char,
    ) -> codex_status_t {
        let pair = match (opt_str(cert_path, "cert_path")?, opt_str(key_path, "key_path")?) {
            (Some(c), Some(k)) => Some((c.into(), k.into())),
            (None, None) => None,
            _ => return Err(invalid_arg("give both cert_path and key_path, or neither")),
        };
        with_options(opts, |c| {
            c.options.tls.client_cert = pair;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::codex_status_t::*;
    use crate::error::last_message;

    fn options(o: *mut codex_options_t) -> Converted {
        convert(o).expect("a live options object")
    }

    #[test]
    fn setters_reach_the_core_options() {
        let o = codex_options_new();
        assert!(!o.is_null());
        // SAFETY: `o` is live; every string is a NUL-terminated literal.
        unsafe {
            assert_eq!(
                codex_options_set_codex_bin(o, c"/bin/codex".as_ptr()),
                CODEX_STATUS_OK
            );
            assert_eq!(codex_options_add_arg(o, c"--x".as_ptr()), CODEX_STATUS_OK);
            assert_eq!(
                codex_options_add_config_override(o, c"a.b=1=2".as_ptr()),
                CODEX_STATUS_OK
            );
            assert_eq!(codex_options_add_env(o, c"K=".as_ptr()), CODEX_STATUS_OK);
            assert_eq!(codex_options_set_clear_env(o, true), CODEX_STATUS_OK);
            assert_eq!(
                codex_options_set_client_info(o, c"n".as_ptr(), std::ptr::null(), std::ptr::null()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                codex_options_set_delivery(o, CODEX_DELIVERY_POLL),
                CODEX_STATUS_OK
            );
            assert_eq!(
                codex_options_set_default_timeout_ms(o, 1234),
                CODEX_STATUS_OK
            );
            assert_eq!(
                codex_options_set_event_queue_capacity(o, 7),
                CODEX_STATUS_OK
            );
        }
        let c = options(o);
        assert_eq!(
            c.options.codex_bin.as_deref(),
            Some(std::path::Path::new("/bin/codex"))
        );
        assert_eq!(c.options.args, vec!["--x".to_owned()]);
        assert_eq!(
            c.options.config_overrides,
            vec![("a.b".to_owned(), "1=2".to_owned())]
        );
        assert_eq!(c.options.env, vec![("K".to_owned(), String::new())]);
        assert!(c.options.clear_env);
        assert_eq!(c.options.client_name, "n");
        assert_eq!(
            c.options.client_version,
            ClientOptions::default().client_version
        );
        assert!(c.poll);
        assert_eq!(c.options.delivery, Delivery::Poll);
        assert_eq!(c.options.default_timeout, Duration::from_millis(1234));
        assert_eq!(c.options.event_queue_capacity, 7);
        // SAFETY: as above.
        unsafe {
            assert_eq!(codex_options_set_default_timeout_ms(o, 0), CODEX_STATUS_OK);
            assert_eq!(
                codex_options_set_event_queue_capacity(o, 0),
                CODEX_STATUS_OK
            );
        }
        let c = options(o);
        assert_eq!(
            c.options.default_timeout,
            ClientOptions::default().default_timeout
        );
        assert_eq!(
            c.options.event_queue_capacity,
            ClientOptions::default().event_queue_capacity
        );
        // SAFETY: `o` is live until here.
        unsafe { codex_options_free(o) };
        assert!(convert(o).is_err());
        assert!(last_message().is_empty() || !last_message().contains("ignored"));
        // SAFETY: a freed handle is looked up, never dereferenced.
        unsafe { codex_options_free(o) };
        assert!(last_message().contains("ignored"), "{}", last_message());
    }

    #[test]
    fn transport_and_token_are_validated_by_the_setter() {
        let o = codex_options_new();
        assert_eq!(options(o).options.transport, TransportKind::Stdio);
        // SAFETY: `o` is live; every string is a NUL-terminated literal.
        unsafe {
            assert_eq!(
                codex_options_set_transport(o, c"exec".as_ptr(), std::ptr::null()),
                CODEX_STATUS_OK
            );
            assert!(matches!(
                options(o).options.transport,
                TransportKind::Exec(_)
            ));
            assert_eq!(
                codex_options_set_transport(o, c"wss://example.com/".as_ptr(), c"sekret".as_ptr()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                options(o).options.transport,
                TransportKind::WebSocket {
                    url: "wss://example.com/".into(),
                    token: Some("sekret".into())
                }
            );
            assert!(!format!("{:?}", options(o).options).contains("sekret"));
            assert_eq!(
                codex_options_set_transport(o, c"exec".as_ptr(), c"sekret".as_ptr()),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(!last_message().contains("sekret"));
            assert!(last_message().contains("token"), "{}", last_message());
            assert_eq!(
                codex_options_set_transport(o, c"gopher://x".as_ptr(), std::ptr::null()),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(last_message().contains("gopher://x"), "{}", last_message());
            // A failed setter changes nothing.
            assert!(matches!(
                options(o).options.transport,
                TransportKind::WebSocket { .. }
            ));
            codex_options_free(o);
        }
    }

    #[test]
    fn mcp_setters_build_the_transport_and_refuse_bad_input() {
        let o = codex_options_new();
        let argv = [
            c"/usr/bin/node".as_ptr(),
            c"server.js".as_ptr(),
            c"a b".as_ptr(),
        ];
        // SAFETY: `o` is live; `argv` holds `argv.len()` NUL-terminated literals.
        unsafe {
            assert_eq!(
                codex_options_set_mcp_command(o, argv.as_ptr(), argv.len()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                options(o).options.transport,
                TransportKind::McpStdio(
                    McpCommand::new("/usr/bin/node").args(["server.js", "a b"])
                )
            );
            // Refused, nothing changed.
            assert_eq!(
                codex_options_set_mcp_command(o, argv.as_ptr(), 0),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(last_message().contains("argc is 0"), "{}", last_message());
            assert_eq!(
                codex_options_set_mcp_command(o, std::ptr::null(), 1),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            let holes = [c"node".as_ptr(), std::ptr::null()];
            assert_eq!(
                codex_options_set_mcp_command(o, holes.as_ptr(), 2),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert_eq!(last_message(), "argv[1] is NULL");
            let bad = [c"node".as_ptr(), c"\xff".as_ptr()];
            assert_eq!(
                codex_options_set_mcp_command(o, bad.as_ptr(), 2),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert_eq!(last_message(), "argv[1] is not valid UTF-8");
            let empty = [c"".as_ptr()];
            assert_eq!(
                codex_options_set_mcp_command(o, empty.as_ptr(), 1),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(matches!(
                options(o).options.transport,
                TransportKind::McpStdio(_)
            ));

            // Roots and capabilities.
            assert_eq!(
                codex_options_add_mcp_root(o, c"file:///a".as_ptr(), c"A".as_ptr()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                codex_options_add_mcp_root(o, c"file:///b".as_ptr(), std::ptr::null()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                codex_options_add_mcp_root(o, c"".as_ptr(), std::ptr::null()),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert_eq!(
                options(o).options.mcp.roots,
                Some(vec![
                    Root::new("file:///a", Some("A".into())),
                    Root::new("file:///b", None)
                ])
            );
            assert_eq!(
                codex_options_set_mcp_capabilities_json(o, c"{\"sampling\":{}}".as_ptr()),
                CODEX_STATUS_OK
            );
            assert_eq!(
                options(o).options.mcp.capabilities,
                Some(serde_json::json!({"sampling": {}}))
            );
            for bad in [c"[]", c"{", c"null"] {
                assert_eq!(
                    codex_options_set_mcp_capabilities_json(o, bad.as_ptr()),
                    CODEX_STATUS_INVALID_ARGUMENT
                );
            }
            assert!(options(o).options.mcp.capabilities.is_some());
            assert_eq!(
                codex_options_set_mcp_capabilities_json(o, std::ptr::null()),
                CODEX_STATUS_OK
            );
            assert_eq!(options(o).options.mcp.capabilities, None);
            codex_options_free(o);
        }
    }

    #[test]
    fn headers_go_into_an_http_transport_only() {
        let o = codex_options_new();
        // SAFETY: `o` is live; every string is a NUL-terminated literal.
        unsafe {
            // Before the transport is chosen, then a transport that is not HTTP: refused at
            // client creation.
            assert_eq!(
                codex_options_add_header(o, c"X-Api-Key".as_ptr(), c"sekret".as_ptr()),
                CODEX_STATUS_OK
            );
            let Err(Fail::Status(s, m)) = convert(o) else {
                panic!("headers with the stdio transport were accepted")
            };
            assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
            assert!(
                m.contains("MCP HTTP transport") && !m.contains("sekret"),
                "{m}"
            );
            assert_eq!(
                codex_options_set_transport(
                    o,
                    c"http://127.0.0.1:9/mcp".as_ptr(),
                    std::ptr::null()
                ),
                CODEX_STATUS_OK
            );
            let TransportKind::McpHttp(h) = convert(o).unwrap().options.transport else {
                panic!("not an HTTP transport")
            };
            assert_eq!(
                h.headers,
                vec![("X-Api-Key".to_owned(), "sekret".to_owned())]
            );
            assert!(!format!("{h:?}").contains("sekret"));
            for (name, value) in [
                (c"X-Key\r\nEvil".as_ptr(), c"v".as_ptr()),
                (c"X Key".as_ptr(), c"v".as_ptr()),
                (c"".as_ptr(), c"v".as_ptr()),
                (c"X-Key".as_ptr(), c"sekret\r\nEvil: 1".as_ptr()),
                (std::ptr::null(), c"v".as_ptr()),
                (c"X-Key".as_ptr(), std::ptr::null()),
            ] {
                assert_eq!(
                    codex_options_add_header(o, name, value),
                    CODEX_STATUS_INVALID_ARGUMENT
                );
                assert!(!last_message().contains("sekret"), "{}", last_message());
            }
            let TransportKind::McpHttp(h) = convert(o).unwrap().options.transport else {
                panic!("not an HTTP transport")
            };
            assert_eq!(h.headers.len(), 1);
            codex_options_free(o);
        }
    }

    #[test]
    fn a_pointer_that_is_not_an_options_object_is_refused_unread() {
        // An old-layout struct: all zero bytes, exactly what `codex_options_t o = {0};` was.
        let old = [0u64; 24];
        let p = old.as_ptr() as *mut codex_options_t;
        let Err(Fail::Status(s, m)) = convert(p) else {
            panic!("an old struct was accepted")
        };
        assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
        assert!(m.contains("built against an older header"), "{m}");
        // SAFETY: the pointer is looked up in the registry, never dereferenced.
        unsafe {
            assert_eq!(
                codex_options_set_clear_env(p, true),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(
                last_message().contains("older header"),
                "{}",
                last_message()
            );
            assert_eq!(
                codex_options_set_clear_env(std::ptr::null_mut(), true),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert_eq!(last_message(), "options is NULL");
        }
        assert!(old.iter().all(|&w| w == 0));
    }
}
