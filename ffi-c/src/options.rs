//! `codex_options_t`: how a client spawns and talks to the server.

use std::ffi::c_char;
use std::time::Duration;

use codex_client::{ClientOptions, Delivery, TransportKind};

use crate::error::{invalid_arg, Fail};
use crate::strings::{opt_str, str_array};

/// How a client delivers events: chosen once, in `codex_options_t.delivery`.
pub type codex_delivery_t = u32;

/// Callbacks (the default): events, server requests, connection events and request
/// completions run registered callbacks on one library-owned thread.
pub const CODEX_DELIVERY_CALLBACKS: codex_delivery_t = 0;

/// Poll mode: the program pulls events with `codex_client_next_event`, optionally waiting
/// for `codex_client_event_fd` to become readable. No library thread runs program code.
pub const CODEX_DELIVERY_POLL: codex_delivery_t = 1;

/// Options of a client. Zero-initialise it (`codex_options_t o = {0};` in C, `{}` in C++):
/// every zero or NULL field means "the default". The library copies everything it needs
/// during `codex_client_new`; the struct and its strings may be freed right after.
#[repr(C)]
pub struct codex_options_t {
    /// Path of the `codex` binary. NULL: `$CODEX_BIN`, then `codex` on `PATH` (an npm
    /// launcher is replaced by the native binary beside it).
    pub codex_bin: *const c_char,
    /// Extra arguments appended after `app-server` (`args_len` strings).
    pub args: *const *const c_char,
    /// Number of strings in `args`.
    pub args_len: usize,
    /// `-c` config overrides, each `"key=value"` (`config_overrides_len` strings).
    pub config_overrides: *const *const c_char,
    /// Number of strings in `config_overrides`.
    pub config_overrides_len: usize,
    /// Environment variables for the server, each `"NAME=value"` (`env_len` strings), merged
    /// into the inherited environment (or into an empty one with `clear_env`).
    pub env: *const *const c_char,
    /// Number of strings in `env`.
    pub env_len: usize,
    /// Start the server with an empty environment plus `env`.
    pub clear_env: bool,
    /// Working directory of the server. NULL: the current directory.
    pub cwd: *const c_char,
    /// `CODEX_HOME` of the server. NULL: inherited.
    pub codex_home: *const c_char,
    /// `clientInfo.name` sent in `initialize`. NULL: "codex-client".
    pub client_name: *const c_char,
    /// `clientInfo.title` sent in `initialize`. NULL: none.
    pub client_title: *const c_char,
    /// `clientInfo.version` sent in `initialize`. NULL: the library version.
    pub client_version: *const c_char,
    /// Ask for experimental methods and fields (`capabilities.experimentalApi`).
    pub experimental_api: bool,
    /// Notification methods the server must not send (`optOutNotificationMethods`).
    pub opt_out_notification_methods: *const *const c_char,
    /// Number of strings in `opt_out_notification_methods`.
    pub opt_out_notification_methods_len: usize,
    /// Timeout of every request that does not pass its own, in milliseconds. 0: 300000.
    pub default_timeout_ms: u64,
    /// `CODEX_DELIVERY_CALLBACKS` (0, default) or `CODEX_DELIVERY_POLL`.
    pub delivery: codex_delivery_t,
    /// Undelivered events held before the server is made to wait. 0: 4096.
    pub event_queue_capacity: usize,
    /// Longest accepted line from the server, in bytes. 0: 64 MiB.
    pub max_line_bytes: usize,
    /// Transport spec. NULL or `""`: `"stdio"` (spawn `codex app-server`, JSON-RPC over its
    /// stdin/stdout). Accepted values:
    ///
    ///   - `"stdio"`: the default;
    ///   - `"exec"`: one `codex exec --json` process per turn (`codex exec resume` for later
    ///     turns). No approvals (Codex runs with approval policy `never`), steer, fork, thread
    ///     list, review, config or models. `args` are appended to every `codex exec` command
    ///     line (for example `"--skip-git-repo-check"` outside a Git repository);
    ///   - `"mcp"`: `codex mcp-server` (Codex 0.92.0 and older; newer Codex has no
    ///     `mcp-server`): one thread per `codex` tool call, continued with `codex-reply`;
    ///   - `"ws://HOST:PORT/"` or `"wss://HOST:PORT/"`: connect to a running
    ///     `codex app-server --listen ws://...` (see `token`). This build has no TLS:
    ///     `codex_client_connect` over `wss://` fails with `CODEX_STATUS_UNSUPPORTED`;
    ///   - `"unix"`: the app-server control socket `$CODEX_HOME/app-server-control/
    ///     app-server-control.sock`; `"unix://PATH"`: the control socket at PATH.
    ///
    /// Anything else makes `codex_client_new` fail with `CODEX_STATUS_INVALID_ARGUMENT` (and a
    /// message naming the accepted values). A request (or a request parameter) the chosen
    /// transport cannot handle fails with `CODEX_STATUS_UNSUPPORTED`, and the last error message
    /// names the method and the transport (for example "`turn/steer` is not supported by the
    /// exec transport"). Ownership: borrowed, read (copied) during `codex_client_new` only.
    pub transport: *const c_char,
    /// Bearer token for a `ws://` / `wss://` transport, sent as `Authorization: Bearer <token>`
    /// on the WebSocket upgrade. NULL: no token. It is only sent over `wss://` or to a loopback
    /// `ws://` address: `codex_client_connect` to any other `ws://` host with a token fails with
    /// `CODEX_STATUS_INVALID_ARGUMENT`. A token with a transport that is not `ws://` / `wss://`
    /// makes `codex_client_new` fail with `CODEX_STATUS_INVALID_ARGUMENT`. The token is never logged nor put into an error message.
    /// Ownership: borrowed, read (copied) during `codex_client_new` only.
    pub token: *const c_char,
    /// Bound of a whole `codex_client_connect`, in milliseconds: spawning or dialing, the
    /// TCP/unix connect, the WebSocket upgrade and the `initialize` round trip together. Past
    /// it the connect fails with `CODEX_STATUS_TIMEOUT` and everything it started is stopped.
    /// 0: 30000.
    pub connect_timeout_ms: u64,
    /// Read-ahead budget in bytes. A request made on a thread that delivers this client's
    /// events (inside a callback, or on the thread that calls `codex_client_next_event`)
    /// would otherwise wait behind a full event queue for itself, so while one is pending the
    /// library keeps reading past `event_queue_capacity` until the queued events add up to
    /// this many bytes; past that, notifications are dropped and counted in a
    /// `CODEX_EVENT_OVERFLOW` event, delivered as soon as there is room. Requests made on any
    /// other thread never cause read-ahead and nothing is dropped. 0: 64 MiB.
    pub read_ahead_bytes: usize,
}

fn pair(s: &str, what: &str) -> Result<(String, String), Fail> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(invalid_arg(format!(
            "{what} entry `{s}` is not of the form NAME=value"
        ))),
    }
}

/// Core options plus the delivery the program chose.
pub(crate) struct Converted {
    pub options: ClientOptions,
    pub poll: bool,
}

/// Convert C options (NULL: all defaults). The core always runs in poll delivery: the binding
/// owns the thread that runs C callbacks.
///
/// # Safety
/// `opts` is NULL or points to a valid `codex_options_t` whose pointers are valid.
pub(crate) unsafe fn convert(opts: *const codex_options_t) -> Result<Converted, Fail> {
    let mut o = ClientOptions::default();
    let mut poll = false;
    if let Some(c) = opts.as_ref() {
        if let Some(p) = opt_str(c.codex_bin, "codex_bin")? {
            o.codex_bin = Some(p.into());
        }
        o.args = str_array(c.args, c.args_len, "args")?;
        o.config_overrides = str_array(
            c.config_overrides,
            c.config_overrides_len,
            "config_overrides",
        )?
        .iter()
        .map(|s| pair(s, "config_overrides"))
        .collect::<Result<_, _>>()?;
        o.env = str_array(c.env, c.env_len, "env")?
            .iter()
            .map(|s| pair(s, "env"))
            .collect::<Result<_, _>>()?;
        o.clear_env = c.clear_env;
        if let Some(p) = opt_str(c.cwd, "cwd")? {
            o.cwd = Some(p.into());
        }
        if let Some(p) = opt_str(c.codex_home, "codex_home")? {
            o.codex_home = Some(p.into());
        }
        if let Some(p) = opt_str(c.client_name, "client_name")? {
            o.client_name = p.to_owned();
        }
        o.client_title = opt_str(c.client_title, "client_title")?.map(str::to_owned);
        if let Some(p) = opt_str(c.client_version, "client_version")? {
            o.client_version = p.to_owned();
        }
        o.experimental_api = c.experimental_api;
        o.opt_out_notification_methods = str_array(
            c.opt_out_notification_methods,
            c.opt_out_notification_methods_len,
            "opt_out_notification_methods",
        )?;
        if c.default_timeout_ms > 0 {
            o.default_timeout = Duration::from_millis(c.default_timeout_ms);
        }
        poll = match c.delivery {
            CODEX_DELIVERY_CALLBACKS => false,
            CODEX_DELIVERY_POLL => true,
            d => return Err(invalid_arg(format!("unknown delivery {d}"))),
        };
        if c.event_queue_capacity > 0 {
            o.event_queue_capacity = c.event_queue_capacity;
        }
        if c.max_line_bytes > 0 {
            o.max_line_bytes = c.max_line_bytes;
        }
        if c.connect_timeout_ms > 0 {
            o.connect_timeout = Duration::from_millis(c.connect_timeout_ms);
        }
        if c.read_ahead_bytes > 0 {
            o.read_ahead_bytes = c.read_ahead_bytes;
        }
        let spec = opt_str(c.transport, "transport")?.unwrap_or("");
        let token = opt_str(c.token, "token")?.map(str::to_owned);
        o.transport = TransportKind::parse(spec, token)?;
    }
    o.delivery = Delivery::Poll;
    Ok(Converted { options: o, poll })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::codex_status_t::{self, *};
    use crate::error::status_of;

    fn zeroed() -> codex_options_t {
        // SAFETY: every field is an integer, bool or raw pointer: all-zero is valid (and is
        // what C callers get from `codex_options_t o = {0};`).
        unsafe { std::mem::zeroed() }
    }

    fn status(f: &Fail) -> codex_status_t {
        match f {
            Fail::Core(e) => status_of(e),
            Fail::Status(s, _) => *s,
        }
    }

    #[test]
    fn transport_and_token_are_parsed() {
        let mut c = zeroed();
        // SAFETY: all pointers are NULL or point to live NUL-terminated strings.
        let conv = unsafe { convert(&c) }.ok().unwrap();
        assert_eq!(conv.options.transport, TransportKind::Stdio);
        c.transport = c"exec".as_ptr();
        let conv = unsafe { convert(&c) }.ok().unwrap();
        assert!(matches!(conv.options.transport, TransportKind::Exec(_)));
        c.transport = c"wss://example.com/".as_ptr();
        c.token = c"sekret".as_ptr();
        let conv = unsafe { convert(&c) }.ok().unwrap();
        assert_eq!(
            conv.options.transport,
            TransportKind::WebSocket {
                url: "wss://example.com/".into(),
                token: Some("sekret".into())
            }
        );
        assert!(!format!("{:?}", conv.options).contains("sekret"));
        c.transport = c"exec".as_ptr();
        let Err(e) = (unsafe { convert(&c) }) else {
            panic!("a token with exec was accepted")
        };
        assert_eq!(status(&e), CODEX_STATUS_INVALID_ARGUMENT);
        assert!(!format!("{e:?}").contains("sekret"));
        c.token = std::ptr::null();
        c.transport = c"http://x".as_ptr();
        let Err(e) = (unsafe { convert(&c) }) else {
            panic!("http://x was accepted")
        };
        assert_eq!(status(&e), CODEX_STATUS_INVALID_ARGUMENT);
        assert!(format!("{e:?}").contains("http://x"));
    }
}
