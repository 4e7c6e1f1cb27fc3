//! The typed setters of `codex_options_t` (kept for the ABI; the generic
//! `codex_options_set` is in `mod.rs`): each is one call into the core's option table through
//! `with_options`, so names, ranges and the meaning of 0 are the core's.

use std::ffi::c_char;

use codex_client::TransportKind;
use serde_json::{json, Value};

use super::{
    codex_delivery_t, codex_options_t, with_options, CODEX_DELIVERY_CALLBACKS, CODEX_DELIVERY_POLL,
};
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{opt_str, params_value, req_str, req_strs};

/// A string argument as a JSON string.
unsafe fn text(p: *const c_char, what: &str) -> Result<Value, Fail> {
    Ok(Value::from(req_str(p, what)?))
}

/// An optional string argument as a JSON string, NULL as `null` (the option's default).
unsafe fn opt_text(p: *const c_char, what: &str) -> Result<Value, Fail> {
    Ok(opt_str(p, what)?.map_or(Value::Null, Value::from))
}

/// Milliseconds as the core's seconds.
fn ms(ms: u64) -> Value {
    json!(ms as f64 / 1000.0)
}

/// Generate typed setter exports (each through `ffi_fn!`, taking `opts` first):
/// `fn NAME(ARGS) => |b| BODY;` runs BODY, a call into the core's `OptionsBuilder` `b`
/// (usually one line), on a copy of the options that is kept only when it succeeds.
macro_rules! setters {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),+) => |$b:ident| $body:expr;)*) => {$(
        ffi_fn! {
            $(#[$doc])*
            unsafe fn $name(opts: *mut codex_options_t, $($arg: $ty),+) -> codex_status_t {
                with_options(opts, |$b| {
                    $body;
                    Ok(())
                })
            }
        }
    )*};
}

setters! {
    /// Path of the `codex` binary (copied). NULL (the default): `$CODEX_BIN`, then `codex` on
    /// `PATH` (an npm launcher is replaced by the native binary beside it).
    /// Errors: INVALID_ARGUMENT (not a live options object, `path` not UTF-8). Thread: any.
    fn codex_options_set_codex_bin(path: *const c_char)
        => |b| b.set("codex_bin", opt_text(path, "path")?)?;

    /// Append one argument (copied) to the server's command line, after `app-server` (with the
    /// exec transport: after every `codex exec` command line, for example
    /// `"--skip-git-repo-check"` outside a Git repository). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `arg` NULL or not UTF-8).
    /// Thread: any.
    fn codex_options_add_arg(arg: *const c_char)
        => |b| b.add("args", text(arg, "arg")?)?;

    /// Add one `-c` config override of the server, `"key=value"` (copied; the value is TOML,
    /// as on Codex's command line). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `key_value` NULL, not UTF-8, or
    /// not of the form `key=value` with a non-empty key). Thread: any.
    fn codex_options_add_config_override(key_value: *const c_char)
        => |b| b.add("config_overrides", text(key_value, "key_value")?)?;

    /// Add one environment variable of the server, `"NAME=value"` (copied), merged into the
    /// inherited environment (or into an empty one, see `codex_options_set_clear_env`).
    /// Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `name_value` NULL, not UTF-8, or
    /// not of the form `NAME=value` with a non-empty name). Thread: any.
    fn codex_options_add_env(name_value: *const c_char)
        => |b| b.add("env", text(name_value, "name_value")?)?;

    /// Start the server with an empty environment plus the `codex_options_add_env` entries
    /// (true) instead of the inherited one (false). Option `clear_env`.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_clear_env(clear_env: bool)
        => |b| b.set("clear_env", clear_env.into())?;

    /// Working directory of the server (copied). NULL (the default): the current directory.
    /// Errors: INVALID_ARGUMENT (not a live options object, `cwd` not UTF-8). Thread: any.
    fn codex_options_set_cwd(cwd: *const c_char)
        => |b| b.set("cwd", opt_text(cwd, "cwd")?)?;

    /// `CODEX_HOME` of the server (copied). NULL (the default): inherited.
    /// Errors: INVALID_ARGUMENT (not a live options object, `codex_home` not UTF-8).
    /// Thread: any.
    fn codex_options_set_codex_home(codex_home: *const c_char)
        => |b| b.set("codex_home", opt_text(codex_home, "codex_home")?)?;

    /// `clientInfo` sent in `initialize` (each string copied; each NULL restores its default):
    /// options `client_name`, `client_title` and `client_version` (their defaults:
    /// `codex_options_keys_json()`). Nothing is changed when it fails.
    /// Errors: INVALID_ARGUMENT (not a live options object, a string not UTF-8). Thread: any.
    fn codex_options_set_client_info(name: *const c_char, title: *const c_char, version: *const c_char)
        => |b| {
            b.set("client_name", opt_text(name, "name")?)?;
            b.set("client_title", opt_text(title, "title")?)?;
            b.set("client_version", opt_text(version, "version")?)?
        };

    /// Ask for experimental methods and fields (`capabilities.experimentalApi`). Default:
    /// false. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_experimental_api(experimental_api: bool)
        => |b| b.set("experimental_api", experimental_api.into())?;

    /// Add a notification method the server must not send (`optOutNotificationMethods`;
    /// copied). Default: none.
    /// Errors: INVALID_ARGUMENT (not a live options object, `method` NULL or not
    /// UTF-8). Thread: any.
    fn codex_options_add_opt_out_notification_method(method: *const c_char)
        => |b| b.add("opt_out_notification_methods", text(method, "method")?)?;

    /// Timeout of every request that does not pass its own, in milliseconds (option
    /// `default_timeout`: its default, range and what 0 means are in
    /// `codex_options_keys_json()`).
    /// Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
    /// Thread: any.
    fn codex_options_set_default_timeout_ms(timeout_ms: u64)
        => |b| b.set("default_timeout", ms(timeout_ms))?;

    /// Bound of a whole `codex_client_connect`, in milliseconds: spawning or dialing, the
    /// TCP/unix connect, the WebSocket upgrade and the `initialize` round trip together. Past
    /// it the connect fails with `CODEX_STATUS_TIMEOUT` and everything it started is stopped.
    /// Option `connect_timeout` (its default, range and what 0 means: `codex_options_keys_json()`).
    /// Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
    /// Thread: any.
    fn codex_options_set_connect_timeout_ms(timeout_ms: u64)
        => |b| b.set("connect_timeout", ms(timeout_ms))?;

    /// How long a blocking call (`codex_client_call`) may spin for its reply before the thread
    /// sleeps, in microseconds: a fast server's reply then arrives without a sleep and a
    /// wake-up. Adaptive: while replies take longer than this, only every 2nd … 64th call
    /// spins. Option `reply_spin` (its default, range and what 0 means:
    /// `codex_options_keys_json()`). ABI 1.4.
    /// Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
    /// Thread: any.
    fn codex_options_set_reply_spin_us(spin_us: u32)
        => |b| b.set("reply_spin", json!(f64::from(spin_us) / 1e6))?;

    /// How the client delivers events: `CODEX_DELIVERY_CALLBACKS` (the default) or
    /// `CODEX_DELIVERY_POLL`.
    /// Errors: INVALID_ARGUMENT (not a live options object, another value). Thread: any.
    fn codex_options_set_delivery(delivery: codex_delivery_t)
        => |b| b.set("delivery", delivery_name(delivery)?.into())?;

    /// Callback mode: run this client's callbacks on a thread of its own (started by
    /// `codex_client_connect`, ended by `codex_client_disconnect`) instead of a thread of the
    /// library's shared dispatch pool, whose threads serve several clients each (there a
    /// callback that blocks holds up the other clients on its thread). Default 0 (shared).
    /// No effect in poll mode. ABI 1.4.
    /// Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
    fn codex_options_set_dedicated_dispatch_thread(dedicated: bool)
        => |b| b.set("dedicated_dispatch_thread", dedicated.into())?;

    /// Undelivered events held before the server is made to wait (option
    /// `event_queue_capacity`: its default, range and what 0 means are in
    /// `codex_options_keys_json()`). Errors: INVALID_ARGUMENT (not a live options object, out
    /// of the option's range). Thread: any.
    fn codex_options_set_event_queue_capacity(capacity: usize)
        => |b| b.set("event_queue_capacity", capacity.into())?;

    /// Read-ahead budget in bytes. A request made on a thread that delivers this client's
    /// events (inside a callback, or on the thread that calls `codex_client_next_event`)
    /// would otherwise wait behind a full event queue for itself, so while one is pending the
    /// library keeps reading past the event queue capacity until the queued events add up to
    /// this many bytes; past that, notifications are dropped and counted in a
    /// `CODEX_EVENT_OVERFLOW` event, delivered as soon as there is room. Requests made on any
    /// other thread never cause read-ahead and nothing is dropped. Option `read_ahead_bytes`
    /// (its default, range and what 0 means: `codex_options_keys_json()`). Errors:
    /// INVALID_ARGUMENT (not a live options object, out of the option's range). Thread: any.
    fn codex_options_set_read_ahead_bytes(bytes: usize)
        => |b| b.set("read_ahead_bytes", bytes.into())?;

    /// Longest accepted line from the server, in bytes (longer lines are skipped and
    /// reported). Option `max_line_bytes` (its default, range and what 0 means:
    /// `codex_options_keys_json()`).
    /// Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
    /// Thread: any.
    fn codex_options_set_max_line_bytes(bytes: usize)
        => |b| b.set("max_line_bytes", bytes.into())?;

    /// The transport, and for a WebSocket or MCP HTTP server its bearer token (both copied).
    /// `spec` NULL or `""`: `"stdio"` (the default: spawn `codex app-server`, JSON-RPC over its
    /// stdin/stdout).
    ///
    /// The transport belongs to the client, not to a thread: a client is one connection to one
    /// Codex process, and every thread it starts or resumes lives in that process (a thread
    /// cannot move to another process; use another client and `thread/resume` there). The
    /// default is the app-server over stdio, not `codex exec` as in the official TypeScript
    /// SDK: one long-lived process for every thread and turn, deltas streamed as produced,
    /// approvals sent to the server-request callback (exec never asks), steer, fork and the
    /// other methods. The WebSocket and unix-socket listener (`ws://`, `wss://`, `unix`) is
    /// experimental upstream (`codex app-server --listen`; Codex may change or drop it between
    /// releases): prefer stdio for production use. Accepted values:
    ///
    ///   - `"stdio"`: the default;
    ///   - `"exec"`: one `codex exec --json` process per turn (`codex exec resume` for later
    ///     turns). No approvals (Codex runs with approval policy `never`), steer, fork, thread
    ///     list, review, config or models. Arguments of `codex_options_add_arg` are appended to
    ///     every `codex exec` command line (for example `"--skip-git-repo-check"` outside a Git
    ///     repository);
    ///   - `"codex-mcp-server"`: `codex mcp-server` (Codex 0.92.0 and older; newer Codex has
    ///     no `mcp-server`): one thread per `codex` tool call, continued with `codex-reply`.
    ///     The old alias `"mcp"` is deprecated: accepted, and logged as a warning with target
    ///     `codex_client::deprecated`;
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
        => |b| {
            let (spec, token) = (opt_text(spec, "spec")?, opt_text(token, "token")?);
            // Refused now rather than at codex_client_new (the core's parser).
            TransportKind::parse(spec.as_str().unwrap_or(""), token.as_str().map(str::to_owned))?;
            b.set("transport", spec)?;
            b.set("token", token)?;
            b.set("command", Value::Null)?
        };

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
        => |b| {
            if argv.is_null() {
                return Err(invalid_arg("argv is NULL"));
            }
            b.set("command", json!(req_strs(argv, argc, "argv")?))?;
            b.set("transport", Value::Null)?;
            b.set("token", Value::Null)?
        };

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
        => |b| b.add("headers", json!([req_str(name, "name")?, req_str(value, "value")?]))?;

    /// Add a root (both strings copied) that the library answers an MCP server's `roots/list`
    /// with by itself, before any server-request callback sees it. `uri` is the root, a
    /// `file://` URI per the MCP specification; `name` (NULL: none) its display name. Default:
    /// no roots, and then `roots/list` is an ordinary server request (your
    /// `CODEX_CALLBACK_SERVER_REQUEST` callback, or a JSON-RPC error fail-closed).
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `uri` NULL,
    /// empty or not UTF-8, `name` not UTF-8). Thread: any.
    fn codex_options_add_mcp_root(uri: *const c_char, name: *const c_char)
        => |b| b.add("mcp_roots", json!([req_str(uri, "uri")?, opt_str(name, "name")?]))?;

    /// The client capabilities sent in MCP `initialize`, as a JSON object (copied). NULL (the
    /// default) restores the library's: `roots` (with `listChanged`), `sampling` and
    /// `elicitation` (form and url modes), so that servers offer the tools that need them;
    /// their requests are answered fail-closed when no callback answers them. Offer less (for
    /// example `{}`) to make a server hide such tools.
    /// Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, not UTF-8,
    /// not valid JSON, not an object; the JSON text `null` restores the default). Thread: any.
    fn codex_options_set_mcp_capabilities_json(capabilities_json: *const c_char)
        => |b| {
            let text = opt_str(capabilities_json, "capabilities_json")?;
            b.set("mcp_capabilities", params_value(text, "capabilities_json", Value::Null)?)?
        };

    /// Reconnect automatically when the connection drops without `codex_client_disconnect`
    /// (the server exited, the socket closed or reset, a missed heartbeat): the same transport
    /// is opened again, the handshake redone and every thread loaded on the connection
    /// resumed (see "Reconnect" in the header). Attempt n (0-based) first waits a random time
    /// in [0, min(cap_ms, base_ms * 2^n)]. `max_attempts` 0 turns it off; 0 for `base_ms` /
    /// `cap_ms` means the default of options `reconnect_base` / `reconnect_cap` (the defaults
    /// and ranges of the `reconnect_*` options: `codex_options_keys_json()`). Errors:
    /// INVALID_ARGUMENT (not a live options object, out of the options' range). Thread: any.
    /// ABI 1.2.
    fn codex_options_set_reconnect(max_attempts: u32, base_ms: u64, cap_ms: u64)
        => |b| b.set("reconnect", match max_attempts {
            0 => json!(false),
            n => json!({"max_attempts": n, "base": ms(base_ms), "cap": ms(cap_ms)}),
        })?;

    /// WebSocket heartbeat (ws://, wss://, unix sockets): a ping every `interval_ms`; when
    /// nothing comes from the server for `interval_ms + timeout_ms` the connection drops (and
    /// reconnects, with `codex_options_set_reconnect`). `interval_ms` 0 turns it off;
    /// `timeout_ms` 0 means the default of option `heartbeat_timeout` (the defaults and ranges:
    /// `codex_options_keys_json()`). Errors: INVALID_ARGUMENT (not a live options object, out
    /// of the options' range). Thread: any. ABI 1.2.
    fn codex_options_set_heartbeat(interval_ms: u64, timeout_ms: u64)
        => |b| b.set("heartbeat", match interval_ms {
            0 => json!(false),
            i => json!({"interval": ms(i), "timeout": ms(timeout_ms)}),
        })?;

    /// Trust the CA certificates in this PEM file (path copied) for `wss://`, besides the
    /// system's roots. NULL removes it. Server names are always checked. The file is read at
    /// connect (an unreadable one fails the connect with INVALID_ARGUMENT naming it).
    /// Errors: INVALID_ARGUMENT (not a live options object, not UTF-8). Thread: any. ABI 1.2.
    fn codex_options_set_tls_ca_file(path: *const c_char)
        => |b| b.set("tls_ca_file", opt_text(path, "path")?)?;

    /// Present this client certificate chain and private key (PEM files, paths copied) on
    /// `wss://` when the server asks for one. NULL for both removes it.
    /// Errors: INVALID_ARGUMENT (not a live options object, only one of the two given, not
    /// UTF-8). Thread: any. ABI 1.2.
    fn codex_options_set_tls_client_cert(cert_path: *const c_char, key_path: *const c_char)
        => |b| {
            let (cert, key) = (opt_str(cert_path, "cert_path")?, opt_str(key_path, "key_path")?);
            // Both or neither: one alone is refused by the core.
            let pair = if cert.is_none() && key.is_none() { Value::Null } else { json!([cert, key]) };
            b.set("tls_client_cert", pair)?
        };

    /// Overload (-32001) retry of every request: `max_attempts` sends in all, including the
    /// first (1: no retry); attempt n waits a random time in [0, min(cap_ms, base_ms * 2^n)]
    /// first. The same as the options `retry_max_attempts`, `retry_base` and `retry_cap` of
    /// `codex_options_set` (0 for any argument: the option's default; the defaults and ranges:
    /// `codex_options_keys_json()`). Errors (nothing is changed): INVALID_ARGUMENT (not a live
    /// options object, out of the options' range). Thread: any. ABI 1.5.
    fn codex_options_set_retry(max_attempts: u32, base_ms: u64, cap_ms: u64)
        => |b| {
            b.set("retry_max_attempts", max_attempts.into())?;
            b.set("retry_base", ms(base_ms))?;
            b.set("retry_cap", ms(cap_ms))?
        };
}

/// The core's name of a C delivery value.
fn delivery_name(delivery: codex_delivery_t) -> Result<&'static str, Fail> {
    match delivery {
        CODEX_DELIVERY_CALLBACKS => Ok("callbacks"),
        CODEX_DELIVERY_POLL => Ok("poll"),
        d => Err(invalid_arg(format!(
            "unknown delivery {d} (expected CODEX_DELIVERY_CALLBACKS or CODEX_DELIVERY_POLL)"
        ))),
    }
}
