//! Options for a client and for single requests: the option types, and the table of every
//! client option by name ([`keys`], [`OptionsBuilder`]) that the bindings set them through.

use std::path::PathBuf;
use std::time::Duration;

#[macro_use]
mod storage;
mod builder;
mod cases;
mod keys;
mod value;
mod ws_auth;

/// How long MCP authorization waits for the browser step (option `oauth_authorize_timeout`):
/// the `auth` module's default (a build without `mcp-http` has no `auth`, and only shows it).
#[cfg(feature = "mcp-http")]
pub(crate) const DEFAULT_AUTHORIZE_TIMEOUT: std::time::Duration =
    crate::auth::DEFAULT_AUTHORIZE_TIMEOUT;
#[cfg(not(feature = "mcp-http"))]
pub(crate) const DEFAULT_AUTHORIZE_TIMEOUT: std::time::Duration =
    std::time::Duration::from_secs(300);

pub use cases::{cases, cases_json, OptionCase};
use keys::OAuthOptions;
pub use keys::{
    keys, keys_json, keys_markdown, ClientOptions, Clients, McpOptions, OptionKey, OptionsBuilder,
    ValueKind,
};
pub use value::MAX_SECONDS;
use ws_auth::WsAuthOptions;
pub use ws_auth::{SignedBearerToken, WsAuth, DEFAULT_WS_TOKEN_LIFETIME};

/// Default timeout of every request: 300 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// Default cap on one incoming line: 64 MiB (the real server accepts a 64 MiB line).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
/// Default number of undelivered events held before the reader stops reading.
pub const DEFAULT_EVENT_QUEUE_CAPACITY: usize = 4096;
/// Default bound of a whole connect (spawn or dial, WebSocket upgrade, `initialize`): 30 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default read-ahead budget: 64 MiB of queued events (see [`ClientOptions::read_ahead_bytes`]).
pub const DEFAULT_READ_AHEAD_BYTES: usize = 64 * 1024 * 1024;
/// Default [`ClientOptions::reply_spin`]: about three round trips to a local server.
pub const DEFAULT_REPLY_SPIN: Duration = Duration::from_micros(50);
/// Default [`ClientOptions::stderr_tail_bytes`]: 16 KiB.
pub const DEFAULT_STDERR_TAIL_BYTES: usize = 16 * 1024;
/// How long a parked server request waits for its answer by reference before it is answered
/// fail-closed (option `parked_request_timeout`): 10 minutes.
pub const DEFAULT_PARKED_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// How events reach the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Delivery {
    /// Registered callbacks run on one library-owned dispatch thread, in arrival order. The
    /// thread is shared with other clients (a small fixed pool) unless
    /// [`ClientOptions::dedicated_dispatch_thread`] is set: a callback that blocks holds up
    /// the other clients on its thread. Server requests with no handler are answered
    /// fail-closed (approvals declined).
    #[default]
    Callbacks,
    /// The user pulls events with `next_event` / `events()`, or has the registered handlers
    /// run on its own thread with `Client::dispatch_events` (when its event fd is readable,
    /// say). A server request event dropped without an answer is answered fail-closed.
    Poll,
}

/// Overload (`-32001`) retry policy: exponential backoff with full jitter.
///
/// Attempt `n` (0-based) sleeps a random duration in `[0, min(cap, base * 2^n)]` before the
/// next send. Defaults: 5 attempts in all, base 50 ms, cap 2 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Total number of sends, including the first (1 disables retry).
    pub max_attempts: u32,
    /// Backoff base.
    pub base: Duration,
    /// Upper bound of one backoff.
    pub cap: Duration,
}

impl RetryPolicy {
    /// A policy of `max_attempts` sends in all (1: no retry), backoff `base` and `cap`.
    pub const fn new(max_attempts: u32, base: Duration, cap: Duration) -> Self {
        RetryPolicy {
            max_attempts,
            base,
            cap,
        }
    }
    /// Default [`max_attempts`](Self::max_attempts): 5.
    pub const DEFAULT_ATTEMPTS: u32 = 5;
    /// Default [`base`](Self::base): 50 ms.
    pub const DEFAULT_BASE: Duration = Duration::from_millis(50);
    /// Default [`cap`](Self::cap): 2 s.
    pub const DEFAULT_CAP: Duration = Duration::from_secs(2);
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: Self::DEFAULT_ATTEMPTS,
            base: Self::DEFAULT_BASE,
            cap: Self::DEFAULT_CAP,
        }
    }
}

/// TLS settings for `wss://` and MCP over `https://`: the system's root certificates are always trusted; add a CA
/// (PEM file, one or more certificates) for a private one, and a client certificate when the
/// server asks for one. Server names are always checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsOptions {
    /// Extra trusted CA certificates (PEM).
    pub ca_file: Option<PathBuf>,
    /// Client certificate chain and its private key (PEM files).
    pub client_cert: Option<(PathBuf, PathBuf)>,
}

/// WebSocket heartbeat (TCP and unix socket transports): a ping every `interval`; when
/// nothing at all (no pong, no message) comes from the server for `interval + timeout`, the
/// peer is taken for dead and the connection drops (and reconnects, with a
/// [`ReconnectPolicy`]). Default: on, interval 15 s, timeout 10 s, so a silently dead peer is
/// noticed within 25 s instead of at the 300 s request timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Heartbeat {
    /// Time between pings.
    pub interval: Duration,
    /// How long past `interval` the server may stay silent.
    pub timeout: Duration,
}

impl Heartbeat {
    /// A ping every `interval`; the peer is dead after `interval + timeout` of silence.
    pub const fn new(interval: Duration, timeout: Duration) -> Self {
        Heartbeat { interval, timeout }
    }
    /// Default [`interval`](Self::interval): 15 s.
    pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(15);
    /// Default [`timeout`](Self::timeout): 10 s.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
}

impl Default for Heartbeat {
    fn default() -> Self {
        Heartbeat {
            interval: Self::DEFAULT_INTERVAL,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }
}

/// Automatic reconnect (opt-in, [`ClientOptions::reconnect`]): when the connection ends
/// without [`Client::disconnect`](crate::Client::disconnect) (the server exited, the socket
/// closed or reset, a missed heartbeat), the client opens the same transport again, redoes
/// the handshake and resumes every thread loaded on the connection. Attempt `n` (0-based)
/// first waits a random duration in `[0, min(cap, base * 2^n)]` (full jitter). Defaults:
/// 10 attempts, base 250 ms, cap 5 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReconnectPolicy {
    /// Attempts before giving up (then the connection ends with `Disconnected`); at least 1.
    pub max_attempts: u32,
    /// Backoff base.
    pub base: Duration,
    /// Upper bound of one wait.
    pub cap: Duration,
}

impl ReconnectPolicy {
    /// A policy of `max_attempts` attempts, backoff `base` and `cap`.
    pub const fn new(max_attempts: u32, base: Duration, cap: Duration) -> Self {
        ReconnectPolicy {
            max_attempts,
            base,
            cap,
        }
    }
    /// Default [`max_attempts`](Self::max_attempts): 10.
    pub const DEFAULT_ATTEMPTS: u32 = 10;
    /// Default [`base`](Self::base): 250 ms.
    pub const DEFAULT_BASE: Duration = Duration::from_millis(250);
    /// Default [`cap`](Self::cap): 5 s.
    pub const DEFAULT_CAP: Duration = Duration::from_secs(5);
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            max_attempts: Self::DEFAULT_ATTEMPTS,
            base: Self::DEFAULT_BASE,
            cap: Self::DEFAULT_CAP,
        }
    }
}

impl ReconnectPolicy {
    /// The jittered wait before attempt `attempt` (0 = the first).
    pub fn backoff(&self, attempt: u32) -> Duration {
        full_jitter(self.base, self.cap, attempt)
    }
}

/// A random duration in `[0, min(cap, base * 2^n)]`.
fn full_jitter(base: Duration, cap: Duration, n: u32) -> Duration {
    let exp = base.saturating_mul(1u32.checked_shl(n.min(31)).unwrap_or(u32::MAX));
    let ceiling = exp.min(cap);
    let nanos = ceiling.as_nanos().min(u64::MAX as u128) as u64;
    Duration::from_nanos(if nanos == 0 {
        0
    } else {
        fastrand::u64(0..=nanos)
    })
}

impl RetryPolicy {
    /// No retry: the first overload error is returned as `Error::Overloaded`.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..Default::default()
        }
    }

    /// The jittered delay before retry number `retry` (0 = the first retry).
    pub fn backoff(&self, retry: u32) -> Duration {
        full_jitter(self.base, self.cap, retry)
    }
}

/// Which transport a client uses.
#[derive(Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TransportKind {
    /// Spawn `codex app-server` and talk JSON-RPC over its stdin/stdout.
    #[default]
    Stdio,
    /// Connect to a running `codex app-server --listen ws://...`. The token, when given, is
    /// sent as `Authorization: Bearer <token>` on the upgrade, only over `wss://` or to a
    /// loopback `ws://` address; it is never logged.
    WebSocket {
        /// `ws://host:port/` (or `wss://`).
        url: String,
        /// Bearer token (capability token or signed JWT).
        token: Option<String>,
    },
    /// Connect to the app-server control socket (WebSocket over a unix socket). `None` means
    /// `$CODEX_HOME/app-server-control/app-server-control.sock`.
    Unix {
        /// Socket path.
        path: Option<PathBuf>,
    },
    /// One `codex exec --json` process per turn (`codex exec resume <id>` for later turns),
    /// driven through an in-process shim. No approvals, steer, fork or list.
    Exec(ExecOptions),
    /// `codex mcp-server` (Codex 0.92.0 and older), driven through an in-process shim that
    /// serves the app-server protocol: the `codex` tool starts a thread, `codex-reply`
    /// continues it. (Formerly `Mcp`; the MCP transports are `McpStdio` and `McpHttp`.)
    CodexMcpServer,
    /// Any MCP server, spawned as a process and spoken to in MCP over its stdin/stdout
    /// (newline-delimited JSON-RPC). The client's `env`, `clear_env` and `cwd` apply to it.
    McpStdio(McpCommand),
    /// Any MCP server over Streamable HTTP (falls back to the legacy HTTP+SSE transport of
    /// 2024-11-05 when the server only offers that).
    McpHttp(McpHttp),
}

/// The command line of an MCP server spawned by [`TransportKind::McpStdio`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpCommand {
    /// The program (looked up on `PATH` when it has no slash).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl McpCommand {
    /// `program` with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        McpCommand {
            program: program.into(),
            args: Vec::new(),
        }
    }
    /// Append an argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }
    /// Append arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
}

/// Where and how an MCP server is reached over HTTP ([`TransportKind::McpHttp`]).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpHttp {
    /// The MCP endpoint, `http://host:port/mcp` or `https://…` (for a legacy HTTP+SSE server,
    /// its SSE endpoint, e.g. `http://host:port/sse`).
    pub url: String,
    /// Extra headers sent with every HTTP request (values are never logged).
    pub headers: Vec<(String, String)>,
    /// Bearer token, sent as `Authorization: Bearer …` only over `https://` or to a loopback
    /// address; never logged.
    pub token: Option<String>,
    /// MCP authorization (OAuth 2.1): when set, a 401 or 403 from the server runs the
    /// authorization flow and the request is sent again with the token obtained.
    #[cfg(feature = "mcp-http")]
    pub oauth: Option<crate::auth::OAuthConfig>,
}

impl McpHttp {
    /// The endpoint `url`, no headers, no token.
    pub fn new(url: impl Into<String>) -> Self {
        McpHttp {
            url: url.into(),
            headers: Vec::new(),
            token: None,
            #[cfg(feature = "mcp-http")]
            oauth: None,
        }
    }
    /// Add a header sent with every HTTP request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// Set the bearer token.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }
    /// Authorize with OAuth 2.1 as the server asks ([`crate::auth`]).
    #[cfg(feature = "mcp-http")]
    pub fn oauth(mut self, config: crate::auth::OAuthConfig) -> Self {
        self.oauth = Some(config);
        self
    }

    /// Check a custom header as a binding receives it, before it is stored: the name must be
    /// an HTTP token (RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``), the value may hold
    /// no control character but tab (no CR, LF, NUL). The error names the header, never its
    /// value.
    pub fn check_header(name: &str, value: &str) -> crate::error::Result<()> {
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(tchar) {
            return Err(crate::error::Error::InvalidArgument(format!(
                "{name:?} is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only; no spaces, colons, CR or LF)"
            )));
        }
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(crate::error::Error::InvalidArgument(format!(
                "the value of HTTP header `{name}` contains a control character (CR, LF, ...)"
            )));
        }
        Ok(())
    }
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("McpHttp");
        d.field("url", &self.url)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("token", &self.token.as_ref().map(|_| "<redacted>"));
        #[cfg(feature = "mcp-http")]
        d.field("oauth", &self.oauth);
        d.finish()
    }
}

/// Default of [`McpOptions::input_rounds`].
pub const DEFAULT_INPUT_ROUNDS: usize = 16;

impl Default for McpOptions {
    /// Every MCP option at its row's default.
    fn default() -> Self {
        ClientOptions::default().mcp
    }
}

/// Which protocol a transport speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// The Codex app-server protocol (JSON-RPC v2), also served by the exec and mcp shims.
    AppServer,
    /// The Model Context Protocol (2025-11-25, negotiating down to 2025-03-26).
    Mcp,
}

/// Options of the exec transport (the parity set of OpenAI's TypeScript SDK). Per-thread and
/// per-turn params (`thread/start` model/cwd/sandbox/approvalPolicy, `turn/start`
/// outputSchema/effort/input images) override these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExecOptions {
    /// `--model`.
    pub model: Option<String>,
    /// `--sandbox` (`read-only`, `workspace-write`, `danger-full-access`).
    pub sandbox_mode: Option<String>,
    /// `--cd`.
    pub working_directory: Option<PathBuf>,
    /// `--add-dir`, repeated.
    pub additional_directories: Vec<PathBuf>,
    /// `--skip-git-repo-check`.
    pub skip_git_repo_check: bool,
    /// `-c model_reasoning_effort=...`.
    pub reasoning_effort: Option<String>,
    /// `-c sandbox_workspace_write.network_access=...`.
    pub network_access: Option<bool>,
    /// `-c web_search="live"` (true) or `"disabled"` (false).
    pub web_search: Option<bool>,
    /// `-c approval_policy=...`.
    pub approval_policy: Option<String>,
}

impl ExecOptions {
    /// Default options (nothing passed; Codex's config decides).
    pub fn new() -> Self {
        Self::default()
    }
    /// `--model`.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
    /// `--sandbox` (`read-only`, `workspace-write`, `danger-full-access`).
    pub fn sandbox_mode(mut self, mode: impl Into<String>) -> Self {
        self.sandbox_mode = Some(mode.into());
        self
    }
    /// `--cd`.
    pub fn working_directory(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_directory = Some(dir.into());
        self
    }
    /// Add one `--add-dir`.
    pub fn additional_directory(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_directories.push(dir.into());
        self
    }
    /// `--skip-git-repo-check` (needed outside a Git repository).
    pub fn skip_git_repo_check(mut self, on: bool) -> Self {
        self.skip_git_repo_check = on;
        self
    }
    /// `-c model_reasoning_effort=...` (`minimal`, `low`, `medium`, `high`, ...).
    pub fn reasoning_effort(mut self, effort: impl Into<String>) -> Self {
        self.reasoning_effort = Some(effort.into());
        self
    }
    /// `-c sandbox_workspace_write.network_access=...`.
    pub fn network_access(mut self, on: bool) -> Self {
        self.network_access = Some(on);
        self
    }
    /// `-c web_search="live"` (true) or `"disabled"` (false).
    pub fn web_search(mut self, on: bool) -> Self {
        self.web_search = Some(on);
        self
    }
    /// `-c approval_policy=...` (`never`, `on-request`, `on-failure`, `untrusted`). exec
    /// cannot ask anyone, so anything but `never` makes escalations fail rather than prompt.
    pub fn approval_policy(mut self, policy: impl Into<String>) -> Self {
        self.approval_policy = Some(policy.into());
        self
    }
}

impl TransportKind {
    /// Parse a transport spec, the one-string form the C and Python bindings take:
    /// `stdio` (or empty), `exec`, `codex-mcp-server` (the deprecated alias `mcp` too), `ws://…` / `wss://…` (with `token` as the bearer
    /// token), `unix` (the default control socket) or `unix://PATH`; and for any MCP server
    /// `mcp+stdio:PROGRAM ARG…` (split at whitespace; single or double quotes group) or
    /// `http://…` / `https://…` / `mcp+http://…` / `mcp+https://…` (Streamable HTTP, with
    /// `token` as the bearer token). A token with anything but a WebSocket or HTTP URL is
    /// refused, as is an unknown spec.
    pub fn parse(spec: &str, token: Option<String>) -> crate::error::Result<TransportKind> {
        let bad = |msg: String| Err(crate::error::Error::InvalidArgument(msg));
        let kind = match spec {
            "" | "stdio" => TransportKind::Stdio,
            "exec" => TransportKind::Exec(ExecOptions::default()),
            "codex-mcp-server" | "mcp" => TransportKind::CodexMcpServer,
            "unix" => TransportKind::Unix { path: None },
            s if s.starts_with("unix://") => TransportKind::Unix {
                path: Some(PathBuf::from(&s["unix://".len()..])),
            },
            s if s.starts_with("ws://") || s.starts_with("wss://") => {
                return Ok(TransportKind::WebSocket {
                    url: s.to_owned(),
                    token,
                })
            }
            s if s.starts_with("mcp+stdio:") => {
                let words = split_command(&s["mcp+stdio:".len()..])?;
                let Some((program, args)) = words.split_first() else {
                    return bad("`mcp+stdio:` needs a command (mcp+stdio:PROGRAM ARG…)".into());
                };
                TransportKind::McpStdio(McpCommand::new(program).args(args.iter().cloned()))
            }
            s if ["http://", "https://", "mcp+http://", "mcp+https://"]
                .iter()
                .any(|p| s.starts_with(p)) =>
            {
                let url = s.strip_prefix("mcp+").unwrap_or(s).to_owned();
                return Ok(TransportKind::McpHttp(McpHttp {
                    url,
                    headers: Vec::new(),
                    token,
                    #[cfg(feature = "mcp-http")]
                    oauth: None,
                }));
            }
            other => {
                return bad(format!(
                    "unknown transport `{other}` (expected stdio, exec, codex-mcp-server (or mcp), ws://…, wss://…, unix, unix://PATH, mcp+stdio:COMMAND, http://… or https://…)"
                ))
            }
        };
        if token.is_some() {
            return bad(
                "a token is only used with a ws://, wss://, http:// or https:// transport".into(),
            );
        }
        Ok(kind)
    }

    /// The protocol spoken over this transport.
    pub fn protocol(&self) -> Protocol {
        match self {
            TransportKind::McpStdio(_) | TransportKind::McpHttp(_) => Protocol::Mcp,
            _ => Protocol::AppServer,
        }
    }

    /// Whether the server reached is a real Codex app-server, whose `initialize` result names
    /// its version (the exec and `codex mcp-server` shims answer for themselves; MCP servers
    /// are no app-server).
    pub(crate) fn reaches_app_server(&self) -> bool {
        self.protocol() == Protocol::AppServer
            && !matches!(self, TransportKind::Exec(_) | TransportKind::CodexMcpServer)
    }
}

/// Split a command line at whitespace; single or double quotes group words (no escapes).
fn split_command(line: &str) -> crate::error::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(crate::error::Error::InvalidArgument(format!(
            "unbalanced quote in command `{line}`"
        )));
    }
    words.extend(word);
    Ok(words)
}

impl TransportKind {
    /// The cargo feature of `codex-client` this transport needs and this build left out
    /// (`None`: it has what it needs): `ws` for WebSocket and the unix control socket,
    /// `mcp-http` for MCP over HTTP, `tls` for `wss://` and `https://`.
    ///
    /// ```
    /// use codex_client::TransportKind;
    /// let ws = TransportKind::parse("wss://127.0.0.1:4500", None).unwrap();
    /// // A default build has every transport.
    /// assert_eq!(ws.missing_feature(), None);
    /// assert_eq!(TransportKind::Stdio.missing_feature(), None);
    /// ```
    pub fn missing_feature(&self) -> Option<&'static str> {
        let secure = match self {
            TransportKind::WebSocket { url, .. } => {
                if !cfg!(feature = "ws") {
                    return Some("ws");
                }
                url.starts_with("wss://")
            }
            TransportKind::Unix { .. } => return (!cfg!(feature = "ws")).then_some("ws"),
            TransportKind::McpHttp(h) => {
                if !cfg!(feature = "mcp-http") {
                    return Some("mcp-http");
                }
                h.url.starts_with("https://")
            }
            _ => false,
        };
        (secure && !cfg!(feature = "tls")).then_some("tls")
    }

    /// What the transport connects to, in words (for messages; never shows a token).
    pub fn describe(&self) -> String {
        match self {
            TransportKind::Stdio => "codex app-server over stdio".into(),
            TransportKind::WebSocket { url, .. } => url.clone(),
            TransportKind::Unix { path: Some(p) } => format!("unix socket {}", p.display()),
            TransportKind::Unix { path: None } => "the default control socket".into(),
            TransportKind::Exec(_) => "codex exec".into(),
            TransportKind::CodexMcpServer => "codex mcp-server".into(),
            TransportKind::McpStdio(c) => format!("MCP server `{}`", c.program.display()),
            TransportKind::McpHttp(h) => h.url.clone(),
        }
    }
}

impl std::fmt::Debug for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportKind::Stdio => f.write_str("Stdio"),
            TransportKind::WebSocket { url, token } => f
                .debug_struct("WebSocket")
                .field("url", url)
                .field("token", &token.as_ref().map(|_| "<redacted>"))
                .finish(),
            TransportKind::Unix { path } => f.debug_struct("Unix").field("path", path).finish(),
            TransportKind::Exec(o) => f.debug_tuple("Exec").field(o).finish(),
            TransportKind::CodexMcpServer => f.write_str("CodexMcpServer"),
            TransportKind::McpStdio(c) => f.debug_tuple("McpStdio").field(c).finish(),
            TransportKind::McpHttp(h) => f.debug_tuple("McpHttp").field(h).finish(),
        }
    }
}

impl Default for ClientOptions {
    /// Every option at its row's default (the defaults exist once, in the table's rows).
    fn default() -> Self {
        OptionsBuilder::new().into_options()
    }
}

/// When the skills selected for a turn are emulated — injected before the user's text as a
/// labelled `<skill … emulated="true">` block, reported in `TurnResult::emulated_skills` —
/// rather than sent as Codex's native `skill` input item (option `skill_emulation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SkillEmulation {
    /// `"never"` (the default): native only. A skill the server cannot take natively (the
    /// exec and codex-mcp-server transports, app-servers older than 0.169.0, a path Codex
    /// does not list) fails the turn with `Error::InvalidArgument` before anything is sent.
    #[default]
    Never,
    /// `"when_needed"`: native where the server can, emulated elsewhere.
    WhenNeeded,
    /// `"always"`: always emulated, even where the server has the native item.
    Always,
}

impl SkillEmulation {
    /// The option's word: `never`, `when_needed`, `always`.
    pub fn name(self) -> &'static str {
        match self {
            SkillEmulation::Never => "never",
            SkillEmulation::WhenNeeded => "when_needed",
            SkillEmulation::Always => "always",
        }
    }
}

/// Whether `CODEXCLIENT_LOG=trace` asks for the raw lines (see [`ClientOptions::trace_wire`]).
pub fn trace_wire_from_env() -> bool {
    std::env::var("CODEXCLIENT_LOG").is_ok_and(|v| v.trim().eq_ignore_ascii_case("trace"))
}

impl ClientOptions {
    /// Set the MCP client capabilities sent in `initialize` (see [`McpOptions::capabilities`]).
    pub fn mcp_capabilities(mut self, capabilities: serde_json::Value) -> Self {
        self.mcp.capabilities = Some(capabilities);
        self
    }
    /// MCP: which era to speak (see [`EraMode`](crate::protocol::mcp::era::EraMode); option
    /// `mcp_protocol`).
    pub fn mcp_protocol(mut self, mode: crate::protocol::mcp::era::EraMode) -> Self {
        self.mcp.protocol = mode;
        self
    }

    /// MCP: connect with the era a previous connection to this server negotiated, without
    /// the `server/discover` probe (see [`Prior`](crate::protocol::mcp::era::Prior); option
    /// `mcp_prior`).
    pub fn mcp_prior(mut self, prior: crate::protocol::mcp::era::Prior) -> Self {
        self.mcp.prior = Some(prior);
        self
    }

    /// Set the roots answered to an MCP server's `roots/list` (see [`McpOptions::roots`]).
    pub fn mcp_roots(mut self, roots: Vec<crate::protocol::mcp::Root>) -> Self {
        self.mcp.roots = Some(roots);
        self
    }
    /// Choose the transport.
    pub fn transport(mut self, transport: TransportKind) -> Self {
        self.transport = transport;
        self
    }
    /// Connect to a running server over WebSocket (see [`TransportKind::WebSocket`]).
    pub fn websocket(self, url: impl Into<String>, token: Option<String>) -> Self {
        self.transport(TransportKind::WebSocket {
            url: url.into(),
            token,
        })
    }
    /// Authenticate the WebSocket upgrade with a signed bearer token: an HS256 JWT minted
    /// from `signed`'s shared secret for every connect and reconnect (option `ws_auth`
    /// `"signed-bearer-token"`; with a `ws://`/`wss://` transport that has no `token`).
    pub fn signed_bearer_token(mut self, signed: SignedBearerToken) -> Self {
        let lifetime = signed.lifetime;
        self.ws_auth = WsAuth::SignedBearerToken(signed);
        self.seconds_by_table("ws_token_lifetime", lifetime, |o, d| {
            if let WsAuth::SignedBearerToken(s) = &mut o.ws_auth {
                s.lifetime = d;
            }
        })
    }
    /// Connect to a running server's unix control socket (`None`: the default path).
    pub fn unix_socket(self, path: Option<PathBuf>) -> Self {
        self.transport(TransportKind::Unix { path })
    }
    /// Set the `codex` binary.
    pub fn codex_bin(mut self, path: impl Into<PathBuf>) -> Self {
        self.codex_bin = Some(path.into());
        self
    }
    /// Set `CODEX_HOME` for the server.
    pub fn codex_home(mut self, path: impl Into<PathBuf>) -> Self {
        self.codex_home = Some(path.into());
        self
    }
    /// Set the server's working directory.
    pub fn cwd(mut self, path: impl Into<PathBuf>) -> Self {
        self.cwd = Some(path.into());
        self
    }
    /// Append an extra server argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }
    /// Add a `-c key=value` override.
    pub fn config(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.config_overrides.push((key.into(), value.into()));
        self
    }
    /// Set an environment variable for the server.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
    /// Set `clientInfo` name and version.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_name = name.into();
        self.client_version = version.into();
        self
    }
    /// Opt out of a notification method.
    pub fn opt_out(mut self, method: impl Into<String>) -> Self {
        self.opt_out_notification_methods.push(method.into());
        self
    }
    /// Set the overload retry policy (options `retry_max_attempts`, `retry_base`,
    /// `retry_cap`; checked as by name: see [`ClientOptions`]).
    pub fn retry(self, retry: RetryPolicy) -> Self {
        self.by_table("retry_max_attempts", retry.max_attempts.into())
            .seconds_by_table("retry_base", retry.base, |o, d| o.retry.base = d)
            .seconds_by_table("retry_cap", retry.cap, |o, d| o.retry.cap = d)
    }
    /// Turn automatic reconnect and rejoin on (see [`ReconnectPolicy`]); `None` turns it off
    /// (options `reconnect`, `reconnect_max_attempts`, `reconnect_base`, `reconnect_cap`;
    /// checked as by name: see [`ClientOptions`]).
    pub fn reconnect(self, policy: Option<ReconnectPolicy>) -> Self {
        let Some(p) = policy else {
            return self.by_table("reconnect", false.into());
        };
        self.by_table("reconnect", true.into())
            .by_table("reconnect_max_attempts", p.max_attempts.into())
            .seconds_by_table("reconnect_base", p.base, |o, d| {
                if let Some(r) = &mut o.reconnect {
                    r.base = d;
                }
            })
            .seconds_by_table("reconnect_cap", p.cap, |o, d| {
                if let Some(r) = &mut o.reconnect {
                    r.cap = d;
                }
            })
    }
    /// Trust the CA certificates in this PEM file for `wss://` and MCP over `https://`
    /// (besides the system's).
    pub fn tls_ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.tls.ca_file = Some(path.into());
        self
    }
    /// Present this client certificate chain and key (PEM files) on `wss://` and MCP over
    /// `https://`.
    pub fn tls_client_cert(mut self, cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        self.tls.client_cert = Some((cert.into(), key.into()));
        self
    }
    /// Set the WebSocket heartbeat (see [`Heartbeat`]); `None`, or an interval of 0, turns it
    /// off (options `heartbeat`, `heartbeat_interval`, `heartbeat_timeout`; checked as by
    /// name: see [`ClientOptions`]).
    pub fn heartbeat(self, heartbeat: Option<Heartbeat>) -> Self {
        let Some(h) = heartbeat else {
            return self.by_table("heartbeat", false.into());
        };
        self.by_table("heartbeat", true.into())
            .seconds_by_table("heartbeat_timeout", h.timeout, |o, d| {
                if let Some(h) = &mut o.heartbeat {
                    h.timeout = d;
                }
            })
            .seconds_by_table("heartbeat_interval", h.interval, |o, d| {
                if let Some(h) = &mut o.heartbeat {
                    h.interval = d;
                }
            })
    }
    /// Choose callbacks or poll delivery.
    pub fn delivery(mut self, delivery: Delivery) -> Self {
        self.delivery = delivery;
        self
    }
    /// When a turn's skills may be emulated (see [`SkillEmulation`]).
    pub fn skill_emulation(mut self, mode: SkillEmulation) -> Self {
        self.skill_emulation = mode;
        self
    }

    /// Set option `key` to `value` through the option table, as a binding would: 0 means
    /// what the table says; a value out of range is kept as the error `connect` fails with.
    fn by_table(self, key: &str, value: serde_json::Value) -> Self {
        let mut b = OptionsBuilder::wrapping(self);
        let result = b.set(key, value);
        let mut o = b.into_options();
        if let Err(e) = result {
            o.refused.get_or_insert(e);
        }
        o
    }

    /// [`by_table`](Self::by_table) for a duration: 0 as the table says, any other value
    /// checked by the table and then kept exactly (no round trip through seconds).
    fn seconds_by_table(
        self,
        key: &str,
        d: Duration,
        put: fn(&mut ClientOptions, Duration),
    ) -> Self {
        if d.is_zero() {
            return self.by_table(key, 0.into());
        }
        let refused = self.refused.is_some();
        let mut o = self.by_table(key, value::secs(d));
        if refused || o.refused.is_none() {
            put(&mut o, d);
        }
        o
    }

    /// Check these options as the option table would: a value a setter refused, the MCP
    /// prior against the MCP protocol, every number against its option's range (a setter
    /// already replaced each 0 by what its row says), the WebSocket authentication against
    /// the transport. [`Client::connect`](crate::Client::connect) calls it, so an
    /// out-of-range value fails there with
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the option.
    pub fn validate(&self) -> crate::error::Result<()> {
        if let Some(e) = &self.refused {
            return Err(e.clone());
        }
        crate::protocol::mcp::era::check_prior(&self.mcp.protocol, self.mcp.prior.as_ref())
            .map_err(crate::error::Error::InvalidArgument)?;
        keys::check_ranges(&OptionsBuilder::wrapping(self.clone()))?;
        ws_auth::check(&self.ws_auth, &self.transport)
    }
}

/// Per-request overrides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Timeout of this request (default: the client's `default_timeout`). It covers retries.
    pub timeout: Option<Duration>,
    /// Overload retry policy of this request (default: the client's).
    pub retry: Option<RetryPolicy>,
    /// Whether the reader reads ahead past a full event queue while this request waits
    /// (see [`ClientOptions::read_ahead_bytes`]). `None` (the default): only when the request
    /// is made on a thread that delivers or pulls this client's events. Set `Some(true)` for
    /// an async consumer that awaits requests inside its event loop on a multi-threaded
    /// executor, where the request may start on another worker thread than the one that
    /// polls the events.
    pub read_ahead: Option<bool>,
}

impl RequestOptions {
    /// Options with a timeout override.
    pub fn timeout(timeout: Duration) -> Self {
        RequestOptions {
            timeout: Some(timeout),
            ..Default::default()
        }
    }
    /// These options with the timeout `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    /// These options with the overload retry policy `retry`.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }
    /// These options with read-ahead forced on or off (see [`RequestOptions::read_ahead`]).
    pub fn with_read_ahead(mut self, read_ahead: bool) -> Self {
        self.read_ahead = Some(read_ahead);
        self
    }
}

/// The error for a transport or option this build of `codex-client` left out with its cargo
/// `feature` ([`TransportKind::missing_feature`]).
pub(crate) fn feature_error(kind: &TransportKind, feature: &str) -> crate::error::Error {
    crate::error::Error::Unsupported(format!(
        "{} needs the `{feature}` cargo feature of codex-client, which this build leaves out",
        kind.describe()
    ))
}

#[cfg(test)]
mod tests {
    /// Every build: the transports a build has pass `missing_feature`; a build without the
    /// network features (`--no-default-features`, run by scripts/test.sh) refuses them at
    /// `build` with an error naming the feature, and keeps stdio.
    #[test]
    fn cargo_features_of_the_network_transports() {
        use crate::options::OptionsBuilder;
        let build = |transport: &str| {
            let mut b = OptionsBuilder::new();
            b.set("transport", serde_json::json!(transport)).unwrap();
            b.build()
        };
        assert!(build("stdio").is_ok());
        let cases = [
            ("ws://127.0.0.1:1", cfg!(feature = "ws"), "ws"),
            ("unix", cfg!(feature = "ws"), "ws"),
            (
                "wss://127.0.0.1:1",
                cfg!(all(feature = "ws", feature = "tls")),
                "`",
            ),
            (
                "http://127.0.0.1:1/mcp",
                cfg!(feature = "mcp-http"),
                "mcp-http",
            ),
            (
                "https://127.0.0.1:1/mcp",
                cfg!(all(feature = "mcp-http", feature = "tls")),
                "`",
            ),
        ];
        for (transport, present, feature) in cases {
            match build(transport) {
                Ok(o) => {
                    assert!(present, "{transport} built without its feature");
                    assert_eq!(o.transport.missing_feature(), None);
                }
                Err(e) => {
                    assert!(!present, "{transport}: {e}");
                    let m = e.to_string();
                    assert!(m.contains("cargo feature of codex-client"), "{m}");
                    assert!(m.contains(feature), "{m}");
                    assert!(matches!(e, crate::error::Error::Unsupported(_)), "{e:?}");
                }
            }
        }
        let mut b = OptionsBuilder::new();
        b.set("tls_ca_file", serde_json::json!("/tmp/ca.pem"))
            .unwrap();
        assert_eq!(b.build().is_ok(), cfg!(feature = "tls"));
    }

    use super::*;

    /// Every getter a row declares names a row of the table (or a family of rows, `retry_…`),
    /// so a getter's doc leads to the option's meaning and default.
    #[test]
    fn every_getter_names_a_row() {
        let names: Vec<&str> = keys().map(|k| k.name).collect();
        for row in ClientOptions::ROWS.iter().chain(McpOptions::ROWS) {
            let found = match row.strip_suffix('…') {
                Some(family) => names.iter().any(|n| n.starts_with(family)),
                None => names.contains(row),
            };
            assert!(
                found,
                "a getter names `{row}`, which is no row of the table"
            );
        }
        for row in ClientOptions::SETTERS {
            assert!(
                names.contains(row),
                "a typed setter sets `{row}`, which is no row of the table"
            );
        }
        assert_eq!(ClientOptions::SETTERS.len(), 20);
        assert_eq!(ClientOptions::ROWS.len(), 32);
        assert_eq!(McpOptions::ROWS.len(), 10);
    }

    #[test]
    fn the_default_retry_is_5_attempts_from_50ms_capped_at_2s() {
        let p = RetryPolicy::default();
        assert_eq!(p.max_attempts, 5);
        assert_eq!(p.base, Duration::from_millis(50));
        assert_eq!(p.cap, Duration::from_secs(2));
    }

    #[test]
    fn backoff_stays_under_the_exponential_ceiling_and_cap() {
        let p = RetryPolicy {
            max_attempts: 9,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(100),
        };
        for retry in 0..40 {
            let ceiling = Duration::from_millis(10 * (1u64 << retry.min(20))).min(p.cap);
            for _ in 0..50 {
                assert!(p.backoff(retry) <= ceiling, "retry {retry}");
            }
        }
        // Full jitter: values spread over the range rather than sitting at the ceiling.
        let distinct: std::collections::HashSet<_> = (0..50).map(|_| p.backoff(5)).collect();
        assert!(distinct.len() > 10);
    }

    #[test]
    fn the_mcp_transport_alias_is_kept_but_deprecated() {
        let mut b = super::OptionsBuilder::new();
        b.set("transport", serde_json::json!("codex-mcp-server"))
            .unwrap();
        assert!(b.deprecations().is_empty());
        b.set("transport", serde_json::json!("mcp")).unwrap();
        assert_eq!(b.deprecations().len(), 1, "{:?}", b.deprecations());
        let note = &b.deprecations()[0];
        assert!(note.contains("\"mcp\" is deprecated") && note.contains("\"codex-mcp-server\""));
        assert_eq!(
            b.build().unwrap().transport,
            super::TransportKind::CodexMcpServer
        );
        // A refused spec records nothing.
        let mut b = super::OptionsBuilder::new();
        assert!(b.set("transport", serde_json::json!("mcpx")).is_err());
        assert!(b.deprecations().is_empty());
    }

    #[test]
    fn transport_specs_parse() {
        use super::TransportKind as T;
        assert_eq!(T::parse("", None).unwrap(), T::Stdio);
        assert_eq!(T::parse("stdio", None).unwrap(), T::Stdio);
        assert_eq!(T::parse("mcp", None).unwrap(), T::CodexMcpServer);
        assert_eq!(
            T::parse("codex-mcp-server", None).unwrap(),
            T::CodexMcpServer
        );
        assert!(matches!(T::parse("exec", None).unwrap(), T::Exec(_)));
        assert_eq!(T::parse("unix", None).unwrap(), T::Unix { path: None });
        assert_eq!(
            T::parse("unix:///tmp/s.sock", None).unwrap(),
            T::Unix {
                path: Some("/tmp/s.sock".into())
            }
        );
        assert_eq!(
            T::parse("ws://127.0.0.1:9/", Some("t".into())).unwrap(),
            T::WebSocket {
                url: "ws://127.0.0.1:9/".into(),
                token: Some("t".into())
            }
        );
        assert!(T::parse("ftp://x", None).is_err());
        assert!(T::parse("exec", Some("t".into())).is_err());
        assert_eq!(
            T::parse("mcp+https://h/mcp", Some("t".into())).unwrap(),
            T::McpHttp(McpHttp::new("https://h/mcp").token("t"))
        );
        assert_eq!(
            T::parse("http://h/mcp", None).unwrap(),
            T::McpHttp(McpHttp::new("http://h/mcp"))
        );
        assert_eq!(
            T::parse("mcp+stdio: node 'a b' \"c\"d  e", None).unwrap(),
            T::McpStdio(McpCommand::new("node").args(["a b", "cd", "e"]))
        );
        assert!(T::parse("mcp+stdio:  ", None).is_err());
        assert!(T::parse("mcp+stdio:x 'y", None).is_err());
        assert!(T::parse("mcp+stdio:x", Some("t".into())).is_err());
        assert_eq!(
            T::parse("http://h", None).unwrap().protocol(),
            Protocol::Mcp
        );
        assert_eq!(
            T::parse("mcp", None).unwrap().protocol(),
            Protocol::AppServer
        );
    }

    /// The client kind of `transport` and `command` is the core's (bindings ask it to pick
    /// their client class): MCP for `command` and the MCP transports, a Codex kind else; an
    /// unknown transport is the error `set` gives.
    #[test]
    fn the_client_kind_of_transport_and_command() {
        use crate::options::{Clients, OptionsBuilder};
        let kind = |transport: Option<&str>, command: Option<&[&str]>| {
            let mut b = OptionsBuilder::new();
            if let Some(t) = transport {
                b.transport = t.to_owned();
            }
            if let Some(c) = command {
                b.set("command", serde_json::json!(c)).unwrap();
            }
            b.client_kind()
        };
        type Case<'a> = (Option<&'a str>, Option<&'a [&'a str]>, Clients);
        let cases: &[Case] = &[
            (None, None, Clients::APP_SERVER),
            (Some("stdio"), None, Clients::APP_SERVER),
            (Some("ws://127.0.0.1:1/"), None, Clients::APP_SERVER),
            (Some("wss://h/"), None, Clients::APP_SERVER),
            (Some("unix"), None, Clients::APP_SERVER),
            (Some("unix:///tmp/s"), None, Clients::APP_SERVER),
            (Some("exec"), None, Clients::EXEC),
            (Some("mcp"), None, Clients::CODEX_MCP_SERVER),
            (Some("codex-mcp-server"), None, Clients::CODEX_MCP_SERVER),
            (None, Some(&["node", "s.js"]), Clients::MCP),
            (Some("mcp+stdio"), Some(&["node"]), Clients::MCP),
            (Some("mcp+stdio"), None, Clients::MCP),
            (Some("stdio"), Some(&["node"]), Clients::MCP),
            (Some("mcp+stdio:node s.js"), None, Clients::MCP),
            (Some("http://127.0.0.1:1/mcp"), None, Clients::MCP),
            (Some("https://h/mcp"), None, Clients::MCP),
            (Some("mcp+http://h/mcp"), None, Clients::MCP),
            (Some("mcp+https://h/mcp"), None, Clients::MCP),
        ];
        for (t, c, want) in cases {
            assert_eq!(kind(*t, *c).unwrap(), *want, "{t:?} {c:?}");
        }
        // The kind agrees with the client `build` makes, wherever it builds.
        for (t, c, want) in cases {
            let mut b = OptionsBuilder::new();
            if let Some(t) = t {
                b.transport = (*t).to_owned();
            }
            if let Some(c) = c {
                b.set("command", serde_json::json!(c)).unwrap();
            }
            if let Ok(o) = b.build() {
                assert_eq!(Clients::of(&o.transport), *want, "{t:?} {c:?}");
            }
        }
        for bad in ["bogus", "EXEC", "mcp+stdioX", "ftp://h/"] {
            let e = kind(Some(bad), None).unwrap_err().to_string();
            assert!(e.contains("unknown transport"), "{bad}: {e}");
        }
    }

    #[test]
    fn custom_headers_are_checked_without_showing_their_value() {
        assert!(McpHttp::check_header("X-Api-Key", "v 1\tü").is_ok());
        for name in ["", "X Key", "X-Key:", "X-Key\r\nEvil: 1", "Ünï"] {
            let e = McpHttp::check_header(name, "v").unwrap_err().to_string();
            assert!(e.contains("not a valid HTTP header name"), "{e}");
        }
        for value in ["secret\r\nEvil: 1", "secret\n", "secret\0"] {
            let e = McpHttp::check_header("X-Key", value)
                .unwrap_err()
                .to_string();
            assert!(e.contains("X-Key") && !e.contains("secret"), "{e}");
        }
    }
}
