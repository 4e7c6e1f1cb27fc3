//! The table of client options by name: each option's row holds its storage (the private
//! field it writes, its blank value, its typed getter), its name, type, doc, default and what
//! 0 means, with how it is set, reset, appended to and read. The option structs
//! ([`ClientOptions`], [`McpOptions`], [`OptionsBuilder`]) are declared from the rows
//! (`options_table!`). Every binding sets options through this table; adding a row makes the
//! option reachable from Rust (by name), C (`codex_options_set`) and Python (a keyword
//! argument) with the same meaning.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use super::builder::DEPRECATED_TRANSPORTS;
use super::value::*;
use super::{
    Delivery, ExecOptions, Heartbeat, ReconnectPolicy, RetryPolicy, SkillEmulation, TlsOptions,
    TransportKind, WsAuth, WsAuthOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_EVENT_QUEUE_CAPACITY,
    DEFAULT_MAX_LINE_BYTES, DEFAULT_PARKED_REQUEST_TIMEOUT, DEFAULT_READ_AHEAD_BYTES,
    DEFAULT_REPLY_SPIN, DEFAULT_TIMEOUT,
};
use crate::error::{Error, Result};
use crate::protocol::mcp::era::{EraMode, Prior};
use crate::protocol::mcp::Root;
use crate::secret::Secret;

/// What an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueKind {
    /// `true` or `false`.
    Bool,
    /// A string.
    String,
    /// A file system path (a string).
    Path,
    /// One of a few words (listed in the doc).
    Word,
    /// A number of seconds (integer or fraction), at most one year; 0: the default unless
    /// the doc says otherwise.
    Seconds,
    /// A whole number; 0: the default.
    Count,
    /// A list of strings.
    Strings,
    /// `NAME=value` entries: a list of `"NAME=value"` strings or `[NAME, value]` pairs, or an
    /// object.
    Pairs,
    /// A JSON object.
    Object,
    /// `true`, `false` or an object of the policy's entries.
    Policy,
    /// A list of MCP roots: URIs or local paths, or `[uri or path, name]` pairs.
    Roots,
}

impl ValueKind {
    /// The kind's name in [`keys_json`] (`"seconds"`, `"count"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Bool => "bool",
            ValueKind::String => "string",
            ValueKind::Path => "path",
            ValueKind::Word => "word",
            ValueKind::Seconds => "seconds",
            ValueKind::Count => "count",
            ValueKind::Strings => "strings",
            ValueKind::Pairs => "pairs",
            ValueKind::Object => "object",
            ValueKind::Policy => "policy",
            ValueKind::Roots => "roots",
        }
    }
}

/// The clients an option applies to: a set of the four kinds of client (the transport
/// decides which one a client is). An option set to something else than its default on a
/// client it does not apply to is refused at [`OptionsBuilder::build`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Clients(u8);

impl Clients {
    /// A Codex app-server (transports stdio, `ws://`, `wss://`, unix socket).
    pub const APP_SERVER: Clients = Clients(1);
    /// `codex exec --json` (transport `exec`).
    pub const EXEC: Clients = Clients(2);
    /// The `codex mcp-server` shim (transport `codex-mcp-server`, deprecated alias `mcp`).
    pub const CODEX_MCP_SERVER: Clients = Clients(4);
    /// Any MCP server (transports `mcp+stdio`, `http://`, `https://`).
    pub const MCP: Clients = Clients(8);
    /// The three Codex clients.
    pub const CODEX: Clients = Clients(1 | 2 | 4);
    /// Every client.
    pub const ALL: Clients = Clients(15);

    /// Both sets together.
    pub const fn and(self, other: Clients) -> Clients {
        Clients(self.0 | other.0)
    }

    /// Whether every client of `other` is in this set.
    pub const fn contains(self, other: Clients) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of the clients in the set (`"app-server"`, `"exec"`, `"codex-mcp-server"`,
    /// `"mcp"`), as in [`keys_json`].
    pub fn names(self) -> Vec<&'static str> {
        [
            (Self::APP_SERVER, "app-server"),
            (Self::EXEC, "exec"),
            (Self::CODEX_MCP_SERVER, "codex-mcp-server"),
            (Self::MCP, "mcp"),
        ]
        .into_iter()
        .filter(|(c, _)| self.contains(*c))
        .map(|(_, n)| n)
        .collect()
    }

    /// The client a transport makes.
    pub fn of(transport: &super::TransportKind) -> Clients {
        use super::TransportKind as T;
        match transport {
            T::Exec(_) => Self::EXEC,
            T::CodexMcpServer => Self::CODEX_MCP_SERVER,
            T::McpStdio(_) | T::McpHttp(_) => Self::MCP,
            _ => Self::APP_SERVER,
        }
    }
}

impl std::fmt::Debug for Clients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// One client option: its name, what it takes, its range and unit, what 0 means, the clients
/// it applies to and its doc. Its default is what [`OptionsBuilder::get`] reads on a new
/// builder (`"default"` in [`keys_json`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct OptionKey {
    /// The name bindings use (`default_timeout`, Python's keyword, C's `codex_options_set` key).
    pub name: &'static str,
    /// What it takes.
    pub kind: ValueKind,
    /// Whether entries can be appended one by one ([`OptionsBuilder::add`]).
    pub list: bool,
    /// Whether its value is a secret (never shown in messages; read back as `"<redacted>"`).
    pub secret: bool,
    /// The clients it applies to.
    pub clients: Clients,
    /// The smallest and largest value taken besides 0 (numbers: seconds or a count).
    pub range: Option<(f64, f64)>,
    /// The unit of a number (`"seconds"`, `"bytes"`, `"events"`, ...).
    pub unit: Option<&'static str>,
    /// What 0 means for a number (`"the default"`, `"off"`); `null` always means the default.
    pub zero: Option<&'static str>,
    /// What it means (its range, default and 0 are in the fields above).
    pub doc: &'static str,
}

impl OptionKey {
    /// This key with the range `min..=max` (besides 0) and the unit `unit`.
    const fn range(mut self, min: f64, max: f64, unit: &'static str) -> Self {
        self.range = Some((min, max));
        self.unit = Some(unit);
        self.zero = Some("the default");
        self
    }

    /// This key with 0 meaning `zero` (instead of the default).
    const fn zero(mut self, zero: &'static str) -> Self {
        self.zero = Some(zero);
        self
    }

    /// Whether `value` (a number as [`OptionsBuilder::get`] reads it) is in this key's range
    /// (0 only when 0 means "off": a 0 that means the default never stays, its setter puts the
    /// default).
    fn in_range(&self, value: &Value) -> bool {
        let (Some((min, max)), Some(v)) = (self.range, value.as_f64()) else {
            return true;
        };
        (v == 0.0 && self.zero == Some("off")) || (min..=max).contains(&v)
    }
}

type Setter = fn(&mut OptionsBuilder, &Value) -> Result<()>;

/// One row of the table.
pub(super) struct Entry {
    pub key: OptionKey,
    pub set: Setter,
    pub reset: fn(&mut OptionsBuilder),
    pub get: fn(&OptionsBuilder) -> Value,
    pub add: Option<Setter>,
}

/// The longest duration an option takes.
const MAX: Duration = Duration::from_secs(MAX_SECONDS);
/// The largest count or size an option takes (2^40: a terabyte, a trillion events).
const MAX_COUNT: u64 = 1 << 40;
/// `retry_max_attempts`: sends in all.
const RETRY_ATTEMPTS: (u64, u64) = (1, 100);
/// `reconnect_max_attempts`.
const RECONNECT_ATTEMPTS: (u64, u64) = (1, 1000);
/// `reply_spin`: the longest spin.
const MAX_SPIN: Duration = Duration::from_millis(10);

const fn key(
    clients: Clients,
    name: &'static str,
    kind: ValueKind,
    doc: &'static str,
) -> OptionKey {
    OptionKey {
        name,
        kind,
        list: false,
        secret: false,
        clients,
        range: None,
        unit: None,
        zero: None,
        doc,
    }
}

const fn list_key(
    clients: Clients,
    name: &'static str,
    kind: ValueKind,
    doc: &'static str,
) -> OptionKey {
    OptionKey {
        list: true,
        ..key(clients, name, kind, doc)
    }
}

/// A `true`/`false` option stored in a field.
macro_rules! bool_entry {
    ($clients:expr, $name:literal, $doc:literal, $($f:ident).+, $default:expr) => {
        Entry {
            key: key($clients, $name, ValueKind::Bool, $doc),
            set: |b, v| {
                b.$($f).+ = bool_of($name, v)?;
                Ok(())
            },
            reset: |b| b.$($f).+ = $default,
            get: |b| Value::from(b.$($f).+),
            add: None,
        }
    };
}

/// A duration option (seconds; 0: the default) stored in a field.
macro_rules! seconds_entry {
    ($clients:expr, $name:literal, $doc:literal, $($f:ident).+, $default:expr) => {
        Entry {
            key: key($clients, $name, ValueKind::Seconds, $doc).range(0.0, MAX_SECONDS as f64, "seconds"),
            set: |b, v| {
                b.$($f).+ = or_default(seconds_of($name, v, MAX)?, $default);
                Ok(())
            },
            reset: |b| b.$($f).+ = $default,
            get: |b| secs(b.$($f).+),
            add: None,
        }
    };
}

/// A size or count option (`min..=MAX_COUNT`; 0: the default) stored in a `usize` field.
macro_rules! count_entry {
    ($clients:expr, $name:literal, $doc:literal, $($f:ident).+, $min:expr, $unit:literal, $default:expr) => {
        Entry {
            key: key($clients, $name, ValueKind::Count, $doc).range($min as f64, MAX_COUNT as f64, $unit),
            set: |b, v| {
                let n = count_of($name, v, $min, MAX_COUNT)?;
                b.$($f).+ = n.map_or($default, |n| n as usize);
                Ok(())
            },
            reset: |b| b.$($f).+ = $default,
            get: |b| Value::from(b.$($f).+ as u64),
            add: None,
        }
    };
}

/// A string option (`Option<String>` field; `null` unsets it).
macro_rules! opt_string_entry {
    ($clients:expr, $name:literal, $kind:ident, $doc:literal, $($f:ident).+, |$v:ident| $conv:expr) => {
        Entry {
            key: key($clients, $name, ValueKind::$kind, $doc),
            set: |b, $v| {
                b.$($f).+ = Some($conv?.into());
                Ok(())
            },
            reset: |b| b.$($f).+ = None,
            get: |b| b.$($f).+.as_ref().map_or(Value::Null, |s| Value::from(s.to_string_lossy_compat())),
            add: None,
        }
    };
}

/// A secret string option (`Option<Secret>` field; `null` unsets it; read back as
/// `"<redacted>"`, never shown in a message).
macro_rules! secret_entry {
    ($clients:expr, $name:literal, $doc:literal, $($f:ident).+) => {
        Entry {
            key: OptionKey {
                secret: true,
                ..key($clients, $name, ValueKind::String, $doc)
            },
            set: |b, v| {
                b.$($f).+ = Some(crate::secret::Secret::new(string_of($name, v, true)?));
                Ok(())
            },
            reset: |b| b.$($f).+ = None,
            get: |b| b.$($f).+.as_ref().map_or(Value::Null, |_| Value::from("<redacted>")),
            add: None,
        }
    };
}

/// An optional setting of the exec transport (`Option` field of `ExecOptions`; `null` unsets
/// it; setting one marks the exec options as used, which needs the exec transport).
macro_rules! exec_entry {
    ($clients:expr, $name:literal, $kind:ident, $doc:literal, $field:ident, |$v:ident| $conv:expr) => {
        Entry {
            key: key($clients, $name, ValueKind::$kind, $doc),
            set: |b, $v| {
                b.exec.$field = Some($conv?);
                b.exec_set = true;
                Ok(())
            },
            reset: |b| b.exec.$field = None,
            get: |b| b.exec.$field.clone().map_or(Value::Null, Value::from),
            add: None,
        }
    };
}

/// A list option: `set` replaces the list, `add` appends one entry.
macro_rules! list_entry {
    ($clients:expr, $name:literal, $kind:ident, $doc:literal, $($f:ident).+, all: |$v:ident| $all:expr,
     one: |$w:ident| $one:expr, get: |$g:ident| $get:expr) => {
        Entry {
            key: list_key($clients, $name, ValueKind::$kind, $doc),
            set: |b, $v| {
                b.$($f).+ = $all?;
                Ok(())
            },
            reset: |b| b.$($f).+ = Default::default(),
            get: |b| {
                let $g = &b.$($f).+;
                $get
            },
            add: Some(|b, $w| {
                let one = $one?;
                b.$($f).+.push(one);
                Ok(())
            }),
        }
    };
}

/// Paths and strings read back the same way.
trait LossyText {
    fn to_string_lossy_compat(&self) -> String;
}
impl LossyText for String {
    fn to_string_lossy_compat(&self) -> String {
        self.clone()
    }
}
impl LossyText for std::path::PathBuf {
    fn to_string_lossy_compat(&self) -> String {
        self.to_string_lossy().into_owned()
    }
}

fn pairs_json(p: &[(String, String)]) -> Value {
    Value::from(p.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>())
}

/// An MCP root: a URI (anything with `scheme:`), or a local path made an absolute `file://`
/// URI; alone or as `[uri or path, name]` / `{"uri", "name"}`.
fn root_of(key: &str, v: &Value) -> Result<Root> {
    let bad = || {
        refuse(
            key,
            "a URI or path, or a [URI or path, name] pair",
            v,
            false,
        )
    };
    let (target, name) = match v {
        Value::String(s) => (s.as_str(), None),
        Value::Array(a) if a.len() == 2 => (
            a[0].as_str().ok_or_else(bad)?,
            match &a[1] {
                Value::Null => None,
                Value::String(n) => Some(n.clone()),
                _ => return Err(bad()),
            },
        ),
        Value::Object(m) => (
            m.get("uri").and_then(Value::as_str).ok_or_else(bad)?,
            m.get("name").and_then(Value::as_str).map(str::to_owned),
        ),
        _ => return Err(bad()),
    };
    if target.is_empty() {
        return Err(bad());
    }
    Ok(Root::new(uri_of(target)?, name))
}

/// `target` as a URI: kept when it has a scheme (`file:`, `https:`, ...), else a path made
/// absolute and percent-encoded into a `file://` URI.
fn uri_of(target: &str) -> Result<String> {
    let scheme = target.split_once(':').is_some_and(|(s, _)| {
        s.len() > 1
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if scheme {
        return Ok(target.to_owned());
    }
    let abs = std::path::absolute(target)
        .map_err(|e| Error::InvalidArgument(format!("root path `{target}`: {e}")))?;
    let mut uri = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(uri)
}

fn roots_json(r: &Option<Vec<Root>>) -> Value {
    r.as_ref().map_or(Value::Null, |r| {
        Value::from(r.iter().map(|r| json!([r.uri, r.name])).collect::<Vec<_>>())
    })
}

/// A reconnect policy object (`{max_attempts, base, cap}`), each entry as its own key.
fn reconnect_object(b: &mut OptionsBuilder, v: &Value) -> Result<()> {
    if let Some(on) = v.as_bool() {
        b.reconnect_on = on;
        return Ok(());
    }
    let m = object_of("reconnect", v, &["max_attempts", "base", "cap"])?;
    let mut t = b.clone();
    for (k, x) in m {
        entry(&format!("reconnect_{k}"))
            .and_then(|e| (e.set)(&mut t, x))
            .map_err(|e| Error::InvalidArgument(format!("option `reconnect`: {}", msg(e))))?;
    }
    t.reconnect_on = true;
    *b = t;
    Ok(())
}

/// A heartbeat object (`{interval, timeout}`), each entry as its own key.
fn heartbeat_object(b: &mut OptionsBuilder, v: &Value) -> Result<()> {
    if let Some(on) = v.as_bool() {
        b.heartbeat_on = on;
        return Ok(());
    }
    let m = object_of("heartbeat", v, &["interval", "timeout"])?;
    let mut t = b.clone();
    t.heartbeat_on = true;
    for (k, x) in m {
        entry(&format!("heartbeat_{k}"))
            .and_then(|e| (e.set)(&mut t, x))
            .map_err(|e| Error::InvalidArgument(format!("option `heartbeat`: {}", msg(e))))?;
    }
    *b = t;
    Ok(())
}

fn msg(e: Error) -> String {
    match e {
        Error::InvalidArgument(m) => m,
        other => other.to_string(),
    }
}

const SANDBOX: &[&str] = &["read-only", "workspace-write", "danger-full-access"];
const APPROVAL: &[&str] = &["never", "on-request", "on-failure", "untrusted"];
const DELIVERY: &[&str] = &["callbacks", "poll"];
const MCP_PROTOCOL: &[&str] = &["auto", "legacy", "2026-07-28"];
const SKILL_EMULATION: &[&str] = &["never", "when_needed", "always"];
const WS_AUTH: &[&str] = &["capability-token", "signed-bearer-token"];

options_table! {
    client {
        /// Options of a [`Client`](crate::Client): `ClientOptions::default()` and the chainable
        /// setters, or [`OptionsBuilder`] by name. Each option is a row of the option table
        /// ([`keys`]: its name, meaning, default, range and what 0 means, the same for every binding);
        /// the fields are private, read with the `get_…` methods.
        ///
        /// The setters treat a value as the option table does when it is set by name ([`keys`],
        /// `codex-client options`; Python's keywords, C's `codex_options_set`): 0 means what the
        /// option's row says (the default for sizes and timeouts), and a value outside the row's range
        /// is not clamped but kept as the error [`Client::connect`](crate::Client::connect) fails with
        /// ([`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the option;
        /// [`validate`](Self::validate) tells earlier).
        ///
        /// ```
        /// use codex_client::ClientOptions;
        /// use std::time::Duration;
        ///
        /// let o = ClientOptions::default().default_timeout(Duration::from_secs(12));
        /// assert_eq!(o.get_default_timeout(), Duration::from_secs(12));
        /// // 0 means the row's default; out of range is refused at connect (and by `validate`).
        /// assert_eq!(o.default_timeout(Duration::ZERO).get_default_timeout(), Duration::from_secs(300));
        /// assert!(ClientOptions::default().event_queue_capacity(1 << 41).validate().is_err());
        /// # Ok::<(), codex_client::Error>(())
        /// ```
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        pub struct ClientOptions {
            mcp: McpOptions = McpOptions::blank() => get_mcp -> &McpOptions = |o| &o.mcp, "mcp_…";
        }
        // The first value a setter refused (out of its option's range): `connect` fails with it.
        private {
            refused: Option<crate::error::Error> = None;
        }
    }
    mcp {
        /// What the client says and answers by itself on an MCP connection (set with
        /// [`ClientOptions`]' `mcp_…` setters; each option's meaning and default are its row's in
        /// [`keys`]).
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct McpOptions;
    }
    builder {
        /// Client options set by name (see [`keys`](super::keys()) for every name, its type, its
        /// default and what `0` means). Values are JSON, as each binding hands them over; `null`
        /// restores an option's default. Cross-option rules (custom headers need an MCP HTTP
        /// transport, `command` goes with `mcp+stdio`, `exec_*` options with the exec transport,
        /// `ws_auth` `"signed-bearer-token"` with a `ws://`/`wss://` transport, no `token` and a
        /// readable `ws_shared_secret_file`, the other `ws_*` options with it) are checked by
        /// [`build`](Self::build).
        ///
        /// ```
        /// use codex_client::OptionsBuilder;
        /// use serde_json::json;
        ///
        /// let mut b = OptionsBuilder::new();
        /// b.set("default_timeout", json!(12.5))?;
        /// b.set("transport", json!("exec"))?;
        /// b.set("exec_model", json!("gpt-5.1-codex"))?;
        /// let options = b.build()?;
        /// assert_eq!(options.get_default_timeout().as_millis(), 12_500);
        /// assert!(b.set("max_line_bytes", json!(-1)).is_err());
        /// # Ok::<(), codex_client::Error>(())
        /// ```
        #[derive(Clone)]
        pub struct OptionsBuilder {
            /// Everything that maps one to one onto [`ClientOptions`] (the transport is built last).
            o: ClientOptions = ClientOptions::blank();
            /// Whether an `exec_*` option was set (they need the exec transport).
            exec_set: bool = false;
            /// Deprecated spellings given to [`set`](Self::set), each as its warning text.
            deprecations: Vec<String> = Vec::new();
        }
    }
    oauth {
        /// The `oauth*` options as set; [`OptionsBuilder::build`] turns them into an
        /// [`OAuthConfig`](crate::auth::OAuthConfig) on the MCP HTTP transport.
        #[derive(Clone)]
        pub(super) struct OAuthOptions {
            #[cfg(feature = "mcp-http")]
            authorizer: Option<std::sync::Arc<dyn crate::auth::Authorize>> = None;
            #[cfg(feature = "mcp-http")]
            store: Option<std::sync::Arc<dyn crate::auth::TokenStore>> = None;
        }
    }
    /// Every client option: one row each, its storage clauses first.
    pub(super) static KEYS: &[Entry] = &[
        // -- transport ---------------------------------------------------------------------------
        client transport: TransportKind = TransportKind::Stdio => get_transport -> &TransportKind = |o| &o.transport;
        builder transport: String = String::new();
        row Entry {
            key: key(Clients::ALL, "transport",
                ValueKind::String,
                "Where the server is: \"stdio\" (the default: spawn `codex app-server`), \"exec\" (one `codex exec --json` per turn), \"codex-mcp-server\" (drive `codex mcp-server`; the old alias \"mcp\" is deprecated), \"ws://…\"/\"wss://…\", \"unix\" or \"unix://PATH\" (the app-server control socket); any MCP server: \"mcp+stdio:PROGRAM ARG…\" (or \"mcp+stdio\" with `command`), \"http://…\"/\"https://…\" (Streamable HTTP, legacy SSE fallback).",
            ),
            set: |b, v| {
                let spec = string_of("transport", v, false)?;
                // Refuse an unknown spec now (the token and command are checked at build).
                if spec != "mcp+stdio" {
                    super::TransportKind::parse(&spec, None)?;
                }
                if let Some((_, new)) = DEPRECATED_TRANSPORTS.iter().find(|(old, _)| *old == spec) {
                    let note = format!(
                        "transport \"{spec}\" is deprecated (it means `codex mcp-server`, not any MCP server): write \"{new}\"; \"{spec}\" will be refused in 0.3.0"
                    );
                    tracing::warn!(target: "codex_client::deprecated", "{note}");
                    b.deprecations.push(note);
                }
                b.transport = spec;
                Ok(())
            },
            reset: |b| b.transport.clear(),
            get: |b| Value::from(if b.transport.is_empty() { "stdio" } else { b.transport.as_str() }),
            add: None,
        },
        builder token: Option<String> = None;
        row Entry {
            key: OptionKey {
                secret: true,
                ..key(Clients::ALL, "token",
                    ValueKind::String,
                    "Bearer token of a ws://, wss://, http:// or https:// transport (sent only over TLS or to a loopback address; never logged). Default: none.",
                )
            },
            set: |b, v| {
                b.token = Some(string_of("token", v, true)?);
                Ok(())
            },
            reset: |b| b.token = None,
            get: |b| b.token.as_ref().map_or(Value::Null, |_| Value::from("<redacted>")),
            add: None,
        },
        client ws_auth: WsAuth = WsAuth::CapabilityToken => get_ws_auth -> &WsAuth = |o| &o.ws_auth;
        builder ws: WsAuthOptions = WsAuthOptions::default();
        row Entry {
            key: key(Clients::APP_SERVER, "ws_auth",
                ValueKind::Word,
                "How a ws:// or wss:// upgrade authenticates, as `codex app-server --ws-auth` says: \"capability-token\" (the default: option `token` is sent as it is) or \"signed-bearer-token\" (a fresh HS256 JWT for every connect and reconnect, signed with the secret in ws_shared_secret_file; no `token` then). Codex checks no token on the unix control socket.",
            ),
            set: |b, v| {
                b.ws.signed = word_of("ws_auth", v, WS_AUTH)? == "signed-bearer-token";
                Ok(())
            },
            reset: |b| b.ws.signed = false,
            get: |b| Value::from(WS_AUTH[usize::from(b.ws.signed)]),
            add: None,
        },
        row Entry {
            key: key(Clients::APP_SERVER, "ws_shared_secret_file",
                ValueKind::Path,
                "ws_auth \"signed-bearer-token\": the shared secret, the file the server reads with --ws-shared-secret-file: read as UTF-8 text and trimmed as Codex reads it, at least 32 bytes, read again for each token; refused if others can read it (chmod 600). Default: none.",
            ),
            set: |b, v| {
                b.ws.secret_file = Some(path_of("ws_shared_secret_file", v)?);
                Ok(())
            },
            reset: |b| b.ws.secret_file = None,
            get: |b| b.ws.secret_file.as_deref().map_or(Value::Null, path_json),
            add: None,
        },
        row opt_string_entry!(Clients::APP_SERVER,
            "ws_issuer", String, "ws_auth \"signed-bearer-token\": the tokens' `iss` claim (what the server's --ws-issuer expects). Default: none (no `iss`; Codex then checks none).", ws.issuer, |v| string_of("ws_issuer", v, false)),
        row opt_string_entry!(Clients::APP_SERVER,
            "ws_audience", String, "ws_auth \"signed-bearer-token\": the tokens' `aud` claim (what the server's --ws-audience expects). Default: none (no `aud`; Codex then checks none).", ws.audience, |v| string_of("ws_audience", v, false)),
        row Entry {
            key: key(Clients::APP_SERVER, "ws_token_lifetime",
                ValueKind::Seconds,
                "ws_auth \"signed-bearer-token\": how long each minted token is valid (its `exp` after its `iat`, whole seconds); a token only has to live until its upgrade, the next connect mints another. Default: 300.",
            ).range(1.0, super::ws_auth::MAX_WS_TOKEN_LIFETIME.as_secs() as f64, "seconds"),
            set: |b, v| {
                let max = super::ws_auth::MAX_WS_TOKEN_LIFETIME;
                let d = seconds_of("ws_token_lifetime", v, max)?;
                if d.is_some_and(|d| d < Duration::from_secs(1)) {
                    return Err(refuse(
                        "ws_token_lifetime",
                        &format!("a number of seconds from 1 to {} (0: the default)", max.as_secs()),
                        v,
                        false,
                    ));
                }
                b.ws.lifetime = d;
                Ok(())
            },
            reset: |b| b.ws.lifetime = None,
            get: |b| secs(b.ws.lifetime.unwrap_or(super::DEFAULT_WS_TOKEN_LIFETIME)),
            add: None,
        },
        builder command: Option<Vec<String>> = None;
        row Entry {
            key: key(Clients::MCP, "command",
                ValueKind::Strings,
                "The MCP server to spawn, [PROGRAM, ARG…] (with transport \"mcp+stdio\" or none). Default: none.",
            ),
            set: |b, v| {
                let argv = strings_of("command", v)?;
                if argv.first().is_none_or(|p| p.is_empty()) {
                    return Err(refuse("command", "a non-empty list [PROGRAM, ARG, ...]", v, false));
                }
                b.command = Some(argv);
                Ok(())
            },
            reset: |b| b.command = None,
            get: |b| b.command.as_ref().map_or(Value::Null, |c| json!(c)),
            add: None,
        },
        builder headers: Vec<(String, String)> = Vec::new();
        row Entry {
            key: OptionKey {
                secret: true,
                ..list_key(Clients::MCP, "headers",
                    ValueKind::Pairs,
                    "Extra HTTP headers of an MCP HTTP transport: [[NAME, value]…], [\"Name: value\"…] or {NAME: value}; add: one header. Values are never logged. Default: none.",
                )
            },
            set: |b, v| {
                let h = pairs_of("headers", v, ':', true)?;
                for (k, val) in &h {
                    super::McpHttp::check_header(k, val)?;
                }
                b.headers = h;
                Ok(())
            },
            reset: |b| b.headers.clear(),
            get: |b| {
                Value::from(
                    b.headers
                        .iter()
                        .map(|(k, _)| json!([k, "<redacted>"]))
                        .collect::<Vec<_>>(),
                )
            },
            add: Some(|b, v| {
                let (k, val) = pair_of("headers", v, ':', true)?;
                super::McpHttp::check_header(&k, &val)?;
                b.headers.push((k, val));
                Ok(())
            }),
        },
        client delivery: Delivery = Delivery::Callbacks => get_delivery -> Delivery = |o| o.delivery;
        row Entry {
            key: key(Clients::ALL, "delivery",
                ValueKind::Word,
                "How events reach the program: \"callbacks\" (the default: handlers run on a library-owned dispatch thread) or \"poll\" (the program pulls them).",
            ),
            set: |b, v| {
                b.o.delivery = match word_of("delivery", v, DELIVERY)?.as_str() {
                    "poll" => Delivery::Poll,
                    _ => Delivery::Callbacks,
                };
                Ok(())
            },
            reset: |b| b.o.delivery = Delivery::Callbacks,
            get: |b| Value::from(match b.o.delivery {
                Delivery::Poll => "poll",
                Delivery::Callbacks => "callbacks",
            }),
            add: None,
        },
        client dedicated_dispatch_thread: bool = false => get_dedicated_dispatch_thread -> bool = |o| o.dedicated_dispatch_thread;
        set
            /// Run this client's callbacks on a thread of its own (see
            /// [`dedicated_dispatch_thread`](Self::dedicated_dispatch_thread)).
            dedicated_dispatch_thread(yes: bool) = yes.into();
        row bool_entry!(
            Clients::ALL,
            "dedicated_dispatch_thread",
            "Callbacks: run this client's callbacks on a thread of its own instead of a thread of the shared pool (for callbacks that block). Default false.",
            o.dedicated_dispatch_thread,
            false
        ),
        // -- the server process --------------------------------------------------------------------
        client codex_bin: Option<PathBuf> = None => get_codex_bin -> Option<&std::path::Path> = |o| o.codex_bin.as_deref();
        row opt_string_entry!(
            Clients::CODEX,
            "codex_bin",
            Path,
            "Path of the `codex` binary. Default: $CODEX_BIN, then the native binary of an npm install next to a `codex` on PATH, then `codex` on PATH.",
            o.codex_bin,
            |v| path_of("codex_bin", v)
        ),
        client args: Vec<String> = Vec::new() => get_args -> &[String] = |o| &o.args;
        row list_entry!(
            Clients::CODEX,
            "args",
            Strings,
            "Extra arguments after `app-server` (exec: after every `codex exec` command line). Default: none.",
            o.args,
            all: |v| strings_of("args", v),
            one: |v| string_of("args", v, false),
            get: |a| json!(a)
        ),
        client config_overrides: Vec<(String, String)> = Vec::new() => get_config_overrides -> &[(String, String)] = |o| &o.config_overrides;
        row list_entry!(
            Clients::CODEX,
            "config_overrides",
            Pairs,
            "`-c key=value` overrides of the server's config (the value is TOML; a non-string JSON value is written as JSON, which TOML reads for numbers, booleans and arrays). Default: none.",
            o.config_overrides,
            all: |v| pairs_of("config_overrides", v, '=', false),
            one: |v| pair_of("config_overrides", v, '=', false),
            get: |p| pairs_json(p)
        ),
        client env: Vec<(String, String)> = Vec::new() => get_env -> &[(String, String)] = |o| &o.env;
        row list_entry!(
            Clients::ALL,
            "env",
            Pairs,
            "Environment variables of the server, merged into the inherited environment (or an empty one, see clear_env). Default: none.",
            o.env,
            all: |v| pairs_of("env", v, '=', false),
            one: |v| pair_of("env", v, '=', false),
            get: |p| pairs_json(p)
        ),
        client clear_env: bool = false => get_clear_env -> bool = |o| o.clear_env;
        set
            /// Start the server with an empty environment plus [`env`](Self::env) (option `clear_env`).
            clear_env(on: bool) = on.into();
        row bool_entry!(
            Clients::ALL,
            "clear_env",
            "Start the server with an empty environment plus `env` instead of the inherited one. Default false.",
            o.clear_env,
            false
        ),
        client cwd: Option<PathBuf> = None => get_cwd -> Option<&std::path::Path> = |o| o.cwd.as_deref();
        row opt_string_entry!(
            Clients::ALL,
            "cwd",
            Path,
            "Working directory of the server. Default: the current directory.",
            o.cwd,
            |v| path_of("cwd", v)
        ),
        client codex_home: Option<PathBuf> = None => get_codex_home -> Option<&std::path::Path> = |o| o.codex_home.as_deref();
        row opt_string_entry!(
            Clients::CODEX,
            "codex_home",
            Path,
            "CODEX_HOME of the server. Default: inherited.",
            o.codex_home,
            |v| path_of("codex_home", v)
        ),
        // -- the handshake -------------------------------------------------------------------------
        client client_name: String = String::new() => get_client_name -> &str = |o| &o.client_name;
        row Entry {
            key: key(Clients::ALL, "client_name", ValueKind::String, "clientInfo.name sent in initialize. Default \"codex-client\"."),
            set: |b, v| {
                b.o.client_name = string_of("client_name", v, false)?;
                Ok(())
            },
            reset: |b| b.o.client_name = "codex-client".into(),
            get: |b| Value::from(b.o.client_name.clone()),
            add: None,
        },
        client client_title: Option<String> = None => get_client_title -> Option<&str> = |o| o.client_title.as_deref();
        set
            /// Set `clientInfo.title` (option `client_title`).
            client_title(title: impl Into<String>) = serde_json::Value::from(title.into());
        row opt_string_entry!(
            Clients::ALL,
            "client_title",
            String,
            "clientInfo.title sent in initialize. Default: none.",
            o.client_title,
            |v| string_of("client_title", v, false)
        ),
        client client_version: String = String::new() => get_client_version -> &str = |o| &o.client_version;
        row Entry {
            key: key(Clients::ALL, "client_version", ValueKind::String, "clientInfo.version sent in initialize. Default: this library's version."),
            set: |b, v| {
                b.o.client_version = string_of("client_version", v, false)?;
                Ok(())
            },
            reset: |b| b.o.client_version = env!("CARGO_PKG_VERSION").into(),
            get: |b| Value::from(b.o.client_version.clone()),
            add: None,
        },
        client experimental_api: bool = false => get_experimental_api -> bool = |o| o.experimental_api;
        set
            /// Enable or disable `capabilities.experimentalApi`.
            experimental_api(on: bool) = on.into();
        row bool_entry!(
            Clients::CODEX,
            "experimental_api",
            "Ask for experimental methods and fields (capabilities.experimentalApi). Default false.",
            o.experimental_api,
            false
        ),
        client opt_out_notification_methods: Vec<String> = Vec::new() => get_opt_out_notification_methods -> &[String] = |o| &o.opt_out_notification_methods;
        row list_entry!(
            Clients::CODEX,
            "opt_out_notification_methods",
            Strings,
            "Notification methods the server should not send (capabilities.optOutNotificationMethods). Default: none.",
            o.opt_out_notification_methods,
            all: |v| strings_of("opt_out_notification_methods", v),
            one: |v| string_of("opt_out_notification_methods", v, false),
            get: |a| json!(a)
        ),
        // -- time ----------------------------------------------------------------------------------
        client default_timeout: Duration = Duration::ZERO => get_default_timeout -> Duration = |o| o.default_timeout;
        set_seconds
            /// Set the default request timeout (option `default_timeout`; checked as by name: see [`ClientOptions`]).
            default_timeout;
        row seconds_entry!(
            Clients::ALL,
            "default_timeout",
            "Timeout of every request unless overridden per request.",
            o.default_timeout,
            DEFAULT_TIMEOUT
        ),
        client connect_timeout: Duration = Duration::ZERO => get_connect_timeout -> Duration = |o| o.connect_timeout;
        set_seconds
            /// Set the bound of a whole `connect()` (see [`ClientOptions::connect_timeout`]; option
            /// `connect_timeout`, checked as by name: see [`ClientOptions`]).
            connect_timeout;
        row seconds_entry!(
            Clients::ALL,
            "connect_timeout",
            "Bound of a whole connect (spawn or dial, upgrade, initialize).",
            o.connect_timeout,
            DEFAULT_CONNECT_TIMEOUT
        ),
        client retry: RetryPolicy = RetryPolicy::new(0, Duration::ZERO, Duration::ZERO) => get_retry -> RetryPolicy = |o| o.retry, "retry_…";
        row Entry {
            key: key(Clients::ALL, "retry_max_attempts",
                ValueKind::Count,
                "Overload (-32001) retry: sends in all, including the first (1: no retry).",
            ).range(RETRY_ATTEMPTS.0 as f64, RETRY_ATTEMPTS.1 as f64, "sends"),
            set: |b, v| {
                let n = count_of("retry_max_attempts", v, RETRY_ATTEMPTS.0, RETRY_ATTEMPTS.1)?;
                b.o.retry.max_attempts = n.map_or(RetryPolicy::DEFAULT_ATTEMPTS, |n| n as u32);
                Ok(())
            },
            reset: |b| b.o.retry.max_attempts = RetryPolicy::DEFAULT_ATTEMPTS,
            get: |b| Value::from(b.o.retry.max_attempts),
            add: None,
        },
        row seconds_entry!(
            Clients::ALL,
            "retry_base",
            "Overload retry: backoff base (full jitter).",
            o.retry.base,
            RetryPolicy::DEFAULT_BASE
        ),
        row seconds_entry!(
            Clients::ALL,
            "retry_cap",
            "Overload retry: the longest backoff.",
            o.retry.cap,
            RetryPolicy::DEFAULT_CAP
        ),
        client reconnect: Option<ReconnectPolicy> = None => get_reconnect -> Option<ReconnectPolicy> = |o| o.reconnect;
        builder reconnect_on: bool = false;
        builder reconnect: ReconnectPolicy = ReconnectPolicy::default();
        row Entry {
            key: key(Clients::ALL, "reconnect",
                ValueKind::Policy,
                "Reconnect and rejoin after an unexpected disconnect: true (the default policy), false (the default: off), or {max_attempts, base, cap} (turns it on).",
            ),
            set: reconnect_object,
            reset: |b| {
                b.reconnect_on = false;
                b.reconnect = ReconnectPolicy::default();
            },
            get: |b| Value::from(b.reconnect_on),
            add: None,
        },
        row Entry {
            key: key(Clients::ALL, "reconnect_max_attempts",
                ValueKind::Count,
                "Reconnect: attempts before giving up. Setting it turns reconnect on.",
            ).range(RECONNECT_ATTEMPTS.0 as f64, RECONNECT_ATTEMPTS.1 as f64, "attempts"),
            set: |b, v| {
                let n = count_of("reconnect_max_attempts", v, RECONNECT_ATTEMPTS.0, RECONNECT_ATTEMPTS.1)?;
                b.reconnect.max_attempts = n.map_or(ReconnectPolicy::DEFAULT_ATTEMPTS, |n| n as u32);
                b.reconnect_on = true;
                Ok(())
            },
            reset: |b| b.reconnect.max_attempts = ReconnectPolicy::DEFAULT_ATTEMPTS,
            get: |b| Value::from(b.reconnect.max_attempts),
            add: None,
        },
        row Entry {
            key: key(Clients::ALL, "reconnect_base",
                ValueKind::Seconds,
                "Reconnect: backoff base. Setting it turns reconnect on.",
            ).range(0.0, MAX_SECONDS as f64, "seconds"),
            set: |b, v| {
                b.reconnect.base = or_default(seconds_of("reconnect_base", v, MAX)?, ReconnectPolicy::DEFAULT_BASE);
                b.reconnect_on = true;
                Ok(())
            },
            reset: |b| b.reconnect.base = ReconnectPolicy::DEFAULT_BASE,
            get: |b| secs(b.reconnect.base),
            add: None,
        },
        row Entry {
            key: key(Clients::ALL, "reconnect_cap",
                ValueKind::Seconds,
                "Reconnect: the longest wait. Setting it turns reconnect on.",
            ).range(0.0, MAX_SECONDS as f64, "seconds"),
            set: |b, v| {
                b.reconnect.cap = or_default(seconds_of("reconnect_cap", v, MAX)?, ReconnectPolicy::DEFAULT_CAP);
                b.reconnect_on = true;
                Ok(())
            },
            reset: |b| b.reconnect.cap = ReconnectPolicy::DEFAULT_CAP,
            get: |b| secs(b.reconnect.cap),
            add: None,
        },
        client heartbeat: Option<Heartbeat> = None => get_heartbeat -> Option<Heartbeat> = |o| o.heartbeat;
        builder heartbeat_on: bool = false;
        builder heartbeat: Heartbeat = Heartbeat::default();
        row Entry {
            key: key(Clients::APP_SERVER, "heartbeat",
                ValueKind::Policy,
                "WebSocket heartbeat (TCP and unix socket transports): true (on, with heartbeat_interval and heartbeat_timeout), false (off), or {interval, timeout} in seconds (an interval of 0 turns it off).",
            ),
            set: heartbeat_object,
            reset: |b| {
                b.heartbeat_on = true;
                b.heartbeat = Heartbeat::default();
            },
            get: |b| Value::from(b.heartbeat_on),
            add: None,
        },
        row Entry {
            key: key(Clients::APP_SERVER, "heartbeat_interval",
                ValueKind::Seconds,
                "Heartbeat: time between pings.",
            ).range(0.0, MAX_SECONDS as f64, "seconds").zero("off"),
            set: |b, v| {
                match seconds_of("heartbeat_interval", v, MAX)? {
                    Some(d) => {
                        b.heartbeat.interval = d;
                        b.heartbeat_on = true;
                    }
                    None => b.heartbeat_on = false,
                }
                Ok(())
            },
            reset: |b| b.heartbeat.interval = Heartbeat::DEFAULT_INTERVAL,
            get: |b| secs(b.heartbeat.interval),
            add: None,
        },
        row Entry {
            key: key(Clients::APP_SERVER, "heartbeat_timeout",
                ValueKind::Seconds,
                "Heartbeat: how long past the interval the server may stay silent.",
            ).range(0.0, MAX_SECONDS as f64, "seconds"),
            set: |b, v| {
                b.heartbeat.timeout = or_default(seconds_of("heartbeat_timeout", v, MAX)?, Heartbeat::DEFAULT_TIMEOUT);
                Ok(())
            },
            reset: |b| b.heartbeat.timeout = Heartbeat::DEFAULT_TIMEOUT,
            get: |b| secs(b.heartbeat.timeout),
            add: None,
        },
        client reply_spin: Duration = Duration::ZERO => get_reply_spin -> Duration = |o| o.reply_spin;
        set_seconds
            /// Set how long blocking requests may spin for their reply (see
            /// [`reply_spin`](ClientOptions::reply_spin); zero turns spinning off; option
            /// `reply_spin`, checked as by name: see [`ClientOptions`]).
            reply_spin;
        row Entry {
            key: key(Clients::ALL, "reply_spin",
                ValueKind::Seconds,
                "How long a blocking request may spin for its reply before the thread sleeps (adaptive).",
            ).range(0.0, MAX_SPIN.as_secs_f64(), "seconds").zero("off"),
            set: |b, v| {
                b.o.reply_spin =
                    seconds_of("reply_spin", v, MAX_SPIN)?.unwrap_or(Duration::ZERO);
                Ok(())
            },
            reset: |b| b.o.reply_spin = DEFAULT_REPLY_SPIN,
            get: |b| secs(b.o.reply_spin),
            add: None,
        },
        client trace_wire: bool = false => get_trace_wire -> bool = |o| o.trace_wire;
        set
            /// Log every line to and from the server at TRACE level, secrets redacted (option
            /// `trace_wire`).
            trace_wire(on: bool) = on.into();
        row Entry {
            key: key(Clients::ALL, "trace_wire",
                ValueKind::Bool,
                "Log every line to and from the server at TRACE level (target codex_client::wire), secrets redacted. Default: true when CODEXCLIENT_LOG=trace, else false.",
            ),
            set: |b, v| {
                b.o.trace_wire = bool_of("trace_wire", v)?;
                Ok(())
            },
            reset: |b| b.o.trace_wire = super::trace_wire_from_env(),
            get: |b| Value::from(b.o.trace_wire),
            add: None,
        },
        // -- identity and answers by reference (issue 40) -------------------------------------------
        client label: Option<String> = None => get_label -> Option<&str> = |o| o.label.as_deref();
        set
            /// Name this client (option `label`, see [`ClientOptions::label`]; an empty name is none).
            label(label: impl Into<String>) = serde_json::Value::from(label.into());
        row Entry {
            key: key(Clients::ALL, "label",
                ValueKind::String,
                "A name for this client, carried by its events (endpoint), its server-request and thread references and the log lines about its connection and server requests. Default: none (\"\" is none too).",
            ),
            set: |b, v| {
                let s = string_of("label", v, false)?;
                b.o.label = (!s.is_empty()).then_some(s);
                Ok(())
            },
            reset: |b| b.o.label = None,
            get: |b| b.o.label.clone().map_or(Value::Null, Value::from),
            add: None,
        },
        client parked_request_timeout: Duration = Duration::ZERO => get_parked_request_timeout -> Duration = |o| o.parked_request_timeout;
        set_seconds
            /// Set how long a parked server request waits for its answer by reference (see
            /// [`ClientOptions::parked_request_timeout`]; zero: off; option
            /// `parked_request_timeout`, checked as by name: see [`ClientOptions`]).
            parked_request_timeout;
        row Entry {
            key: key(Clients::ALL, "parked_request_timeout",
                ValueKind::Seconds,
                "How long a parked server request (one serialised as a reference, or parked) waits for its answer by reference before the client answers it fail-closed (approvals declined), with a WARNING log line. 0 (off): nothing is parked; the last local handle dropped unanswered answers fail-closed at once.",
            ).range(0.0, MAX_SECONDS as f64, "seconds").zero("off"),
            set: |b, v| {
                b.o.parked_request_timeout =
                    seconds_of("parked_request_timeout", v, MAX)?.unwrap_or(Duration::ZERO);
                Ok(())
            },
            reset: |b| b.o.parked_request_timeout = DEFAULT_PARKED_REQUEST_TIMEOUT,
            get: |b| secs(b.o.parked_request_timeout),
            add: None,
        },
        // -- skills (issue 27) ---------------------------------------------------------------------
        client skill_emulation: SkillEmulation = SkillEmulation::Never => get_skill_emulation -> SkillEmulation = |o| o.skill_emulation;
        row Entry {
            key: key(Clients::CODEX, "skill_emulation",
                ValueKind::Word,
                "When a turn's skills are emulated (injected as a labelled <skill emulated=\"true\"> text block) instead of sent as Codex's native skill item: \"never\" (the default: native only; a skill the server cannot take natively refuses the turn before anything is sent), \"when_needed\" (native where the server can, emulated on the exec and codex-mcp-server transports, older app-servers and paths Codex does not list) or \"always\".",
            ),
            set: |b, v| {
                b.o.skill_emulation = match word_of("skill_emulation", v, SKILL_EMULATION)?.as_str() {
                    "always" => SkillEmulation::Always,
                    "when_needed" => SkillEmulation::WhenNeeded,
                    _ => SkillEmulation::Never,
                };
                Ok(())
            },
            reset: |b| b.o.skill_emulation = SkillEmulation::Never,
            get: |b| Value::from(b.o.skill_emulation.name()),
            add: None,
        },
        // -- TLS -----------------------------------------------------------------------------------
        client tls: TlsOptions = TlsOptions::default() => get_tls -> &TlsOptions = |o| &o.tls, "tls_…";
        row opt_string_entry!(
            Clients::APP_SERVER.and(Clients::MCP),
            "tls_ca_file",
            Path,
            "Extra trusted CA certificates (a PEM file) for wss:// and MCP over https://, besides the system's. Default: none.",
            o.tls.ca_file,
            |v| path_of("tls_ca_file", v)
        ),
        row Entry {
            key: key(Clients::APP_SERVER.and(Clients::MCP), "tls_client_cert",
                ValueKind::Strings,
                "Client certificate chain and private key for wss:// and MCP over https://, [CERT_PEM_PATH, KEY_PEM_PATH]. Default: none.",
            ),
            set: |b, v| {
                let p = strings_of("tls_client_cert", v)
                    .ok()
                    .filter(|p| p.len() == 2 && p.iter().all(|s| !s.is_empty()))
                    .ok_or_else(|| refuse("tls_client_cert", "[cert_path, key_path]", v, false))?;
                b.o.tls.client_cert = Some((p[0].clone().into(), p[1].clone().into()));
                Ok(())
            },
            reset: |b| b.o.tls.client_cert = None,
            get: |b| {
                b.o.tls.client_cert.as_ref().map_or(Value::Null, |(c, k)| {
                    json!([path_json(c), path_json(k)])
                })
            },
            add: None,
        },
        // -- queues and buffers --------------------------------------------------------------------
        client event_queue_capacity: usize = 0 => get_event_queue_capacity -> usize = |o| o.event_queue_capacity;
        set
            /// Set the event queue capacity (option `event_queue_capacity`; checked as by name: see [`ClientOptions`]).
            event_queue_capacity(capacity: usize) = (capacity as u64).into();
        row count_entry!(
            Clients::ALL,
            "event_queue_capacity",
            "Undelivered events held before the reader applies backpressure.",
            o.event_queue_capacity,
            1,
            "events",
            DEFAULT_EVENT_QUEUE_CAPACITY
        ),
        client read_ahead_bytes: usize = 0 => get_read_ahead_bytes -> usize = |o| o.read_ahead_bytes;
        set
            /// Set the read-ahead budget (see [`ClientOptions::read_ahead_bytes`]; option
            /// `read_ahead_bytes`, checked as by name: see [`ClientOptions`]).
            read_ahead_bytes(bytes: usize) = (bytes as u64).into();
        row count_entry!(
            Clients::ALL,
            "read_ahead_bytes",
            "Read-ahead budget while a request waits on a thread that delivers this client's events.",
            o.read_ahead_bytes,
            1,
            "bytes",
            DEFAULT_READ_AHEAD_BYTES
        ),
        client max_line_bytes: usize = 0 => get_max_line_bytes -> usize = |o| o.max_line_bytes;
        set
            /// Set the longest accepted incoming line (option `max_line_bytes`; its default and range
            /// are the option table's).
            max_line_bytes(bytes: usize) = (bytes as u64).into();
        row count_entry!(
            Clients::ALL,
            "max_line_bytes",
            "Longest accepted incoming line (longer lines are skipped and reported).",
            o.max_line_bytes,
            1024,
            "bytes",
            DEFAULT_MAX_LINE_BYTES
        ),
        client stderr_tail_bytes: usize = 0 => get_stderr_tail_bytes -> usize = |o| o.stderr_tail_bytes;
        set
            /// Set how many bytes of the server's stderr are kept for error reports (option
            /// `stderr_tail_bytes`; checked as by name).
            stderr_tail_bytes(bytes: usize) = (bytes as u64).into();
        row count_entry!(
            Clients::ALL,
            "stderr_tail_bytes",
            "How much of the server's stderr is kept for error reports.",
            o.stderr_tail_bytes,
            1,
            "bytes",
            super::DEFAULT_STDERR_TAIL_BYTES
        ),
        // -- MCP -----------------------------------------------------------------------------------
        mcp capabilities: Option<serde_json::Value> = None => capabilities -> Option<&serde_json::Value> = |o| o.capabilities.as_ref();
        row Entry {
            key: key(Clients::MCP, "mcp_capabilities",
                ValueKind::Object,
                "MCP: the client capabilities sent in initialize (a JSON object). Default: roots (listChanged), sampling and elicitation (form and url), refused fail-closed when no handler is registered.",
            ),
            set: |b, v| match v {
                Value::Object(_) => {
                    b.o.mcp.capabilities = Some(v.clone());
                    Ok(())
                }
                _ => Err(refuse("mcp_capabilities", "a JSON object", v, false)),
            },
            reset: |b| b.o.mcp.capabilities = None,
            get: |b| b.o.mcp.capabilities.clone().unwrap_or(Value::Null),
            add: None,
        },
        mcp roots: Option<Vec<crate::protocol::mcp::Root>> = None => roots -> Option<&[crate::protocol::mcp::Root]> = |o| o.roots.as_deref();
        row Entry {
            key: list_key(Clients::MCP, "mcp_roots",
                ValueKind::Roots,
                "MCP: roots answered to roots/list when no handler takes it: URIs or local paths (made absolute file:// URIs), alone or as [uri or path, name]. Default: none (roots/list refused).",
            ),
            set: |b, v| {
                let bad = || refuse("mcp_roots", "a list of roots", v, false);
                let roots = v
                    .as_array()
                    .ok_or_else(bad)?
                    .iter()
                    .map(|r| root_of("mcp_roots", r))
                    .collect::<Result<Vec<_>>>()?;
                b.o.mcp.roots = Some(roots);
                Ok(())
            },
            reset: |b| b.o.mcp.roots = None,
            get: |b| roots_json(&b.o.mcp.roots),
            add: Some(|b, v| {
                let r = root_of("mcp_roots", v)?;
                b.o.mcp.roots.get_or_insert_with(Vec::new).push(r);
                Ok(())
            }),
        },
        // -- MCP authorization (OAuth 2.1; auth) -----------------------------------------------------
        builder oauth: OAuthOptions = OAuthOptions::blank();
        oauth on: bool = false;
        row bool_entry!(
            Clients::MCP,
            "oauth",
            "MCP HTTP: authorize with OAuth 2.1 when the server answers 401 (discovery, registration, authorization code with PKCE; the browser step is the program's callback). Any other oauth_* option turns it on too. Default: false.",
            oauth.on,
            false
        ),
        oauth client_id: Option<String> = None;
        row opt_string_entry!(
            Clients::MCP,
            "oauth_client_id", String, "MCP authorization: a pre-registered client id (else a client ID metadata document or dynamic registration). Default: none.", oauth.client_id, |v| string_of("oauth_client_id", v, false)),
        oauth client_secret: Option<String> = None;
        row Entry {
            key: OptionKey {
                secret: true,
                ..key(Clients::MCP, "oauth_client_secret",
                    ValueKind::String,
                    "MCP authorization: the pre-registered client's secret (sent only to the token endpoint, never in a URL; never logged). Default: none.",
                )
            },
            set: |b, v| {
                b.oauth.client_secret = Some(string_of("oauth_client_secret", v, true)?);
                Ok(())
            },
            reset: |b| b.oauth.client_secret = None,
            get: |b| b.oauth.client_secret.as_ref().map_or(Value::Null, |_| Value::from("<redacted>")),
            add: None,
        },
        oauth redirect_uri: Option<String> = None;
        row opt_string_entry!(
            Clients::MCP,
            "oauth_redirect_uri", String, "MCP authorization: the redirect URI of the authorization code flow (else the authorize callback's). Default: none.", oauth.redirect_uri, |v| string_of("oauth_redirect_uri", v, false)),
        oauth scopes: Option<Vec<String>> = None;
        row Entry {
            key: list_key(Clients::MCP, "oauth_scopes", ValueKind::Strings, "MCP authorization: the scopes to ask for (else the server's: the 401's scope, else the resource's scopes_supported, else none). Default: the server's."),
            set: |b, v| {
                b.oauth.scopes = Some(strings_of("oauth_scopes", v)?);
                Ok(())
            },
            reset: |b| b.oauth.scopes = None,
            get: |b| b.oauth.scopes.as_ref().map_or(Value::Null, |s| json!(s)),
            add: Some(|b, v| {
                let s = string_of("oauth_scopes", v, false)?;
                b.oauth.scopes.get_or_insert_with(Vec::new).push(s);
                Ok(())
            }),
        },
        oauth client_metadata_url: Option<String> = None;
        row opt_string_entry!(
            Clients::MCP,
            "oauth_client_metadata_url", String, "MCP authorization: the https URL of this client's ID metadata document, used as its client_id where the authorization server supports them. Default: none.", oauth.client_metadata_url, |v| string_of("oauth_client_metadata_url", v, false)),
        oauth token_file: Option<PathBuf> = None;
        row Entry {
            key: key(Clients::MCP, "oauth_token_file", ValueKind::Path, "MCP authorization: keep tokens in this JSON file (created mode 0600; one refused if others can read it) across runs. Default: in memory."),
            set: |b, v| {
                b.oauth.token_file = Some(path_of("oauth_token_file", v)?);
                Ok(())
            },
            reset: |b| b.oauth.token_file = None,
            get: |b| b.oauth.token_file.as_deref().map_or(Value::Null, path_json),
            add: None,
        },
        oauth grant: Option<String> = None;
        row Entry {
            key: key(Clients::MCP, "oauth_grant",
                ValueKind::Word,
                "MCP authorization: how to get a token: \"authorization_code\" (the browser step, with PKCE), \"client_credentials\" (the client as itself: oauth_client_id with oauth_client_secret or oauth_private_key), \"jwt_bearer\" (RFC 7523 with a JWT the workload was given: oauth_assertion or oauth_assertion_file) or \"enterprise_managed\" (the user's ID token from the enterprise IdP in oauth_assertion, exchanged at oauth_idp_token_endpoint for an ID-JAG, then the JWT bearer grant). Default: \"authorization_code\".",
            ),
            set: |b, v| {
                b.oauth.grant = Some(word_of("oauth_grant", v, super::builder::OAUTH_GRANTS)?);
                Ok(())
            },
            reset: |b| b.oauth.grant = None,
            get: |b| Value::from(b.oauth.grant.as_deref().unwrap_or("authorization_code")),
            add: None,
        },
        oauth private_key: Option<Secret> = None;
        row secret_entry!(
            Clients::MCP,
            "oauth_private_key", "MCP authorization: the client's private key as PEM text (PKCS#8 EC P-256 or RSA, or PKCS#1 RSA): the client authenticates with private_key_jwt (ES256 or RS256 assertions) instead of a secret; needs oauth_client_id. Never logged. Default: none.", oauth.private_key),
        oauth private_key_file: Option<PathBuf> = None;
        row Entry {
            key: key(Clients::MCP, "oauth_private_key_file", ValueKind::Path, "MCP authorization: oauth_private_key read from this PEM file (when the client is created). Default: none."),
            set: |b, v| {
                b.oauth.private_key_file = Some(path_of("oauth_private_key_file", v)?);
                Ok(())
            },
            reset: |b| b.oauth.private_key_file = None,
            get: |b| b.oauth.private_key_file.as_deref().map_or(Value::Null, path_json),
            add: None,
        },
        oauth assertion: Option<Secret> = None;
        row secret_entry!(
            Clients::MCP,
            "oauth_assertion", "MCP authorization: the JWT of oauth_grant \"jwt_bearer\" (a workload identity token whose audience is the authorization server) or the ID token of \"enterprise_managed\". Never logged. Default: none.", oauth.assertion),
        oauth assertion_file: Option<PathBuf> = None;
        row Entry {
            key: key(Clients::MCP, "oauth_assertion_file", ValueKind::Path, "MCP authorization: oauth_assertion read from this file for each token request (so a rotated token, such as a Kubernetes projected service account token, is used). Default: none."),
            set: |b, v| {
                b.oauth.assertion_file = Some(path_of("oauth_assertion_file", v)?);
                Ok(())
            },
            reset: |b| b.oauth.assertion_file = None,
            get: |b| b.oauth.assertion_file.as_deref().map_or(Value::Null, path_json),
            add: None,
        },
        oauth idp_token_endpoint: Option<String> = None;
        row opt_string_entry!(
            Clients::MCP,
            "oauth_idp_token_endpoint", String, "MCP authorization, oauth_grant \"enterprise_managed\": the enterprise IdP's token endpoint (the token exchange for an ID-JAG). Default: none.", oauth.idp_token_endpoint, |v| string_of("oauth_idp_token_endpoint", v, false)),
        oauth idp_client_id: Option<String> = None;
        row opt_string_entry!(
            Clients::MCP,
            "oauth_idp_client_id", String, "MCP authorization, oauth_grant \"enterprise_managed\": this client's id at the enterprise IdP. Default: none.", oauth.idp_client_id, |v| string_of("oauth_idp_client_id", v, false)),
        oauth idp_client_secret: Option<Secret> = None;
        row secret_entry!(
            Clients::MCP,
            "oauth_idp_client_secret", "MCP authorization, oauth_grant \"enterprise_managed\": this client's secret at the enterprise IdP (client_secret_post), if it is confidential. Never logged. Default: none.", oauth.idp_client_secret),
        oauth dpop: bool = false;
        row bool_entry!(
            Clients::MCP,
            "oauth_dpop",
            "MCP authorization: bind tokens to a key of this client with DPoP (RFC 9449): a fresh ES256 key per client, a signed proof with each token request and MCP request, the server's DPoP-Nonce honoured. Default: false.",
            oauth.dpop,
            false
        ),
        oauth authorize_timeout: Option<Duration> = None;
        row Entry {
            key: key(Clients::MCP, "oauth_authorize_timeout", ValueKind::Seconds, "MCP authorization: how long the browser step (the authorize callback) may take before the authorization fails.").range(0.0, MAX_SECONDS as f64, "seconds"),
            set: |b, v| {
                b.oauth.authorize_timeout = seconds_of("oauth_authorize_timeout", v, MAX)?;
                Ok(())
            },
            reset: |b| b.oauth.authorize_timeout = None,
            get: |b| secs(b.oauth.authorize_timeout.unwrap_or(super::DEFAULT_AUTHORIZE_TIMEOUT)),
            add: None,
        },
        // -- MCP 2026-07-28 (era) ------------------------------------------------------------------
        mcp protocol: crate::protocol::mcp::era::EraMode = Default::default() => protocol -> &crate::protocol::mcp::era::EraMode = |o| &o.protocol;
        row Entry {
            key: key(Clients::MCP, "mcp_protocol",
                ValueKind::Word,
                "MCP: which era to speak: \"auto\" (the default, as the official SDKs: probe server/discover, fall back to the initialize handshake), \"legacy\" (the initialize handshake only) or a pinned stateless version (\"2026-07-28\", no fallback).",
            ),
            set: |b, v| {
                let w = word_of("mcp_protocol", v, MCP_PROTOCOL)?;
                b.o.mcp.protocol = EraMode::parse(&w).expect("a listed word");
                Ok(())
            },
            reset: |b| b.o.mcp.protocol = EraMode::Auto,
            get: |b| Value::from(b.o.mcp.protocol.word()),
            add: None,
        },
        mcp prior: Option<crate::protocol::mcp::era::Prior> = None => prior -> Option<&crate::protocol::mcp::era::Prior> = |o| o.prior.as_ref();
        row Entry {
            key: key(Clients::MCP, "mcp_prior",
                ValueKind::Object,
                "MCP: the era a previous connection to this server negotiated (the initialize result's mcp_prior), so that connect skips the server/discover probe: {\"kind\": \"legacy\"} sends initialize at once, {\"kind\": \"modern\", \"discover\": {...}} adopts that server/discover result and sends nothing (as the TypeScript SDK's prior). It must agree with mcp_protocol (legacy takes only a legacy verdict, a pinned version a modern one listing it). Default: none (negotiate).",
            ),
            set: |b, v| {
                let prior = Prior::from_json(v)
                    .map_err(|why| Error::InvalidArgument(format!("option `mcp_prior`: {why}")))?;
                b.o.mcp.prior = Some(prior);
                Ok(())
            },
            reset: |b| b.o.mcp.prior = None,
            get: |b| b.o.mcp.prior.as_ref().map_or(Value::Null, Prior::to_json),
            add: None,
        },
        mcp input_rounds: usize = 0 => input_rounds -> usize = |o| o.input_rounds;
        set
            /// MCP: the most rounds of an input-required exchange (option `mcp_input_rounds`; 0:
            /// the default; checked as by name).
            mcp_input_rounds(rounds: usize) = (rounds as u64).into();
        row count_entry!(
            Clients::MCP,
            "mcp_input_rounds",
            "MCP 2026-07-28: most rounds of an input-required exchange (InputRequiredResult answered and retried) before the request fails.",
            o.mcp.input_rounds,
            1,
            "rounds",
            super::DEFAULT_INPUT_ROUNDS
        ),
        mcp cache: bool = false => cache -> bool = |o| o.cache;
        set
            /// MCP 2026-07-28: whether list and read results are served again while fresh (option
            /// `mcp_cache`).
            mcp_cache(on: bool) = on.into();
        row bool_entry!(
            Clients::MCP,
            "mcp_cache",
            "MCP 2026-07-28: keep tools/list, prompts/list, resources/list, resources/templates/list and resources/read results while their ttlMs cache hint says they are fresh, and answer the same request from them (a change notification makes them stale). Default: true.",
            o.mcp.cache,
            true
        ),
        // -- MCP client surface (2025-11-25) --------------------------------------------------------
        mcp sampling_tools: bool = false => sampling_tools -> bool = |o| o.sampling_tools;
        set
            /// MCP: offer `sampling.tools` (see [`McpOptions::sampling_tools`]).
            mcp_sampling_tools(on: bool) = on.into();
        row bool_entry!(
            Clients::MCP,
            "mcp_sampling_tools",
            "MCP: offer sampling.tools in the client capabilities (the server may then send tools and toolChoice in sampling/createMessage; the sampling handler answers tool_use blocks). Set it when your sampling handler can. Default false.",
            o.mcp.sampling_tools,
            false
        ),
        mcp validate_output: bool = false => validate_output -> bool = |o| o.validate_output;
        set
            /// MCP: check tool results against their `outputSchema` (see
            /// [`McpOptions::validate_output`]; on by default).
            mcp_validate_output(on: bool) = on.into();
        row bool_entry!(
            Clients::MCP,
            "mcp_validate_output",
            "MCP: check each tools/call result's structuredContent against the tool's outputSchema from this connection's tools/list (a mismatch fails the call with an output-schema error naming the JSON path; remote $refs are never fetched). Default true.",
            o.mcp.validate_output,
            true
        ),
        mcp progress_resets_timeout: bool = false => progress_resets_timeout -> bool = |o| o.progress_resets_timeout;
        set
            /// MCP: whether progress restarts a call's timeout (see
            /// [`McpOptions::progress_resets_timeout`]; on by default).
            mcp_progress_resets_timeout(on: bool) = on.into();
        row bool_entry!(
            Clients::MCP,
            "mcp_progress_resets_timeout",
            "MCP: each progress update of a call made with progress restarts the call's timeout. Default true.",
            o.mcp.progress_resets_timeout,
            true
        ),
        mcp proxy: Option<String> = None => proxy -> Option<&str> = |o| o.proxy.as_deref();
        set
            /// MCP HTTP: the proxy, an `http://`/`https://` URL or `"none"` (see
            /// [`McpOptions::proxy`]).
            mcp_proxy(proxy: impl Into<String>) = serde_json::Value::from(proxy.into());
        row Entry {
            key: key(Clients::MCP, "mcp_proxy",
                ValueKind::String,
                "MCP HTTP: the proxy: an http:// or https:// proxy URL (every request through it), or \"none\" (never a proxy). Default: the environment's HTTPS_PROXY/HTTP_PROXY/ALL_PROXY/NO_PROXY, never for a loopback endpoint.",
            ),
            set: |b, v| {
                let p = string_of("mcp_proxy", v, false)?;
                if p != "none" {
                    let ok = url::Url::parse(&p)
                        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
                    if !ok {
                        return Err(refuse("mcp_proxy", "an http:// or https:// URL, or \"none\"", v, false));
                    }
                }
                b.o.mcp.proxy = Some(p);
                Ok(())
            },
            reset: |b| b.o.mcp.proxy = None,
            get: |b| b.o.mcp.proxy.clone().map_or(Value::Null, Value::from),
            add: None,
        },
        // -- exec ----------------------------------------------------------------------------------
        builder exec: ExecOptions = ExecOptions::default();
        row exec_entry!(
            Clients::EXEC,
            "exec_model", String, "exec: `--model`. Default: Codex's config.", model, |v| string_of("exec_model", v, false)),
        row exec_entry!(
            Clients::EXEC,
            "exec_sandbox_mode", Word, "exec: `--sandbox`: read-only, workspace-write or danger-full-access. Default: Codex's config.", sandbox_mode, |v| word_of("exec_sandbox_mode", v, SANDBOX)),
        row Entry {
            key: key(Clients::EXEC, "exec_working_directory", ValueKind::Path, "exec: `--cd`. Default: none."),
            set: |b, v| {
                b.exec.working_directory = Some(path_of("exec_working_directory", v)?);
                b.exec_set = true;
                Ok(())
            },
            reset: |b| b.exec.working_directory = None,
            get: |b| b.exec.working_directory.as_deref().map_or(Value::Null, path_json),
            add: None,
        },
        row Entry {
            key: list_key(Clients::EXEC, "exec_additional_directories", ValueKind::Strings, "exec: `--add-dir`, one per entry. Default: none."),
            set: |b, v| {
                b.exec.additional_directories = strings_of("exec_additional_directories", v)?
                    .into_iter()
                    .map(Into::into)
                    .collect();
                b.exec_set = true;
                Ok(())
            },
            reset: |b| b.exec.additional_directories.clear(),
            get: |b| {
                Value::from(
                    b.exec
                        .additional_directories
                        .iter()
                        .map(|p| path_json(p))
                        .collect::<Vec<_>>(),
                )
            },
            add: Some(|b, v| {
                b.exec
                    .additional_directories
                    .push(path_of("exec_additional_directories", v)?);
                b.exec_set = true;
                Ok(())
            }),
        },
        row Entry {
            key: key(Clients::EXEC, "exec_skip_git_repo_check", ValueKind::Bool, "exec: `--skip-git-repo-check` (needed outside a Git repository). Default false."),
            set: |b, v| {
                b.exec.skip_git_repo_check = bool_of("exec_skip_git_repo_check", v)?;
                b.exec_set = true;
                Ok(())
            },
            reset: |b| b.exec.skip_git_repo_check = false,
            get: |b| Value::from(b.exec.skip_git_repo_check),
            add: None,
        },
        row exec_entry!(
            Clients::EXEC,
            "exec_reasoning_effort", String, "exec: `-c model_reasoning_effort=…` (minimal, low, medium, high, …). Default: Codex's config.", reasoning_effort, |v| string_of("exec_reasoning_effort", v, false)),
        row exec_entry!(
            Clients::EXEC,
            "exec_network_access", Bool, "exec: `-c sandbox_workspace_write.network_access=…`. Default: Codex's config.", network_access, |v| bool_of("exec_network_access", v)),
        row exec_entry!(
            Clients::EXEC,
            "exec_web_search", Bool, "exec: `-c web_search=\"live\"` (true) or \"disabled\" (false). Default: Codex's config.", web_search, |v| bool_of("exec_web_search", v)),
        row exec_entry!(
            Clients::EXEC,
            "exec_approval_policy", Word, "exec: `-c approval_policy=…`: never, on-request, on-failure or untrusted (exec cannot ask anyone: anything but never makes escalations fail). Default: Codex's config.", approval_policy, |v| word_of("exec_approval_policy", v, APPROVAL)),
    ];
}

/// The row of option `name`, or the error that lists the known names.
pub(super) fn entry(name: &str) -> Result<&'static Entry> {
    KEYS.iter().find(|e| e.key.name == name).ok_or_else(|| {
        let names: Vec<_> = KEYS.iter().map(|e| e.key.name).collect();
        Error::InvalidArgument(format!(
            "unknown option `{name}` (known: {})",
            names.join(", ")
        ))
    })
}

/// Every client option, in a stable order.
pub fn keys() -> impl Iterator<Item = &'static OptionKey> {
    KEYS.iter().map(|e| &e.key)
}

/// A number as the docs show it (`300`, `0.05`, `1099511627776`).
fn number(v: f64) -> String {
    Value::from(v).to_string().trim_end_matches(".0").to_owned()
}

/// Every client option as a Markdown table (name, kind, default, range, what 0 means, the
/// clients it applies to, meaning), for the docs (`docs/options.md` is generated from it).
pub fn keys_markdown() -> String {
    let defaults = OptionsBuilder::new();
    let mut out = String::from(
        "| option | takes | default | range | 0 means | clients | meaning |\n|---|---|---|---|---|---|---|\n",
    );
    for e in KEYS {
        let k = &e.key;
        let default = match (e.get)(&defaults) {
            Value::Null => "none".to_owned(),
            v => format!("`{v}`"),
        };
        let list = if k.list { " (list; add one)" } else { "" };
        let unit = k.unit.map_or(String::new(), |u| format!(" {u}"));
        let range = k.range.map_or(String::new(), |(min, max)| {
            format!("{}..={}{unit}", number(min), number(max))
        });
        let clients = if k.clients == Clients::ALL {
            "all".to_owned()
        } else {
            k.clients.names().join(", ")
        };
        out.push_str(&format!(
            "| `{}` | {}{list} | {default} | {range} | {} | {clients} | {} |\n",
            k.name,
            k.kind.name(),
            k.zero.unwrap_or(""),
            k.doc.replace('|', "\\|")
        ));
    }
    out
}

/// Every client option as JSON: `[{"name", "kind", "list", "secret", "doc", "default",
/// "range" ([min, max] or null), "unit", "zero" (what 0 means, or null), "clients"}…]`.
pub fn keys_json() -> String {
    let defaults = OptionsBuilder::new();
    Value::from(
        KEYS.iter()
            .map(|e| {
                let k = &e.key;
                json!({
                    "name": k.name,
                    "kind": k.kind.name(),
                    "list": k.list,
                    "secret": k.secret,
                    "doc": k.doc,
                    "default": (e.get)(&defaults),
                    "range": k.range.map(|(min, max)| json!([min, max])),
                    "unit": k.unit,
                    "zero": k.zero,
                    "clients": k.clients.names(),
                })
            })
            .collect::<Vec<_>>(),
    )
    .to_string()
}

/// The options of `b` that are set to something else than their default and do not apply
/// to the client `transport` makes: the first as the error that names it and the client.
fn check_clients(b: &OptionsBuilder, transport: &super::TransportKind) -> Result<()> {
    let client = Clients::of(transport);
    let defaults = OptionsBuilder::new();
    for e in KEYS {
        if e.key.clients.contains(client) || (e.get)(b) == (e.get)(&defaults) {
            continue;
        }
        return Err(Error::InvalidArgument(format!(
            "option `{}` does not apply to this client ({}: {}): it is for the {} clients",
            e.key.name,
            client.names().join(""),
            transport.describe(),
            e.key.clients.names().join(", ")
        )));
    }
    Ok(())
}

/// Every option of `b` at its row's default (each row's `reset`): the only place defaults are
/// written.
pub(super) fn reset_all(b: &mut OptionsBuilder) {
    for e in KEYS {
        (e.reset)(b);
    }
}

/// Check the numbers of `b` against each option's range (a typed setter's value is held to the
/// same range as a value set by name).
pub(super) fn check_ranges(b: &OptionsBuilder) -> Result<()> {
    for e in KEYS {
        let v = (e.get)(b);
        if !e.key.in_range(&v) {
            let (min, max) = e.key.range.unwrap_or_default();
            return Err(Error::InvalidArgument(format!(
                "option `{}`: {v} is out of range: it takes {}..={}{}{}",
                e.key.name,
                number(min),
                number(max),
                e.key.unit.map_or(String::new(), |u| format!(" {u}")),
                match e.key.zero {
                    Some("off") => ", or 0 (off)",
                    _ => "",
                }
            )));
        }
    }
    Ok(())
}

impl std::fmt::Debug for OptionsBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for k in KEYS {
            m.entry(&k.key.name, &(k.get)(self));
        }
        m.finish()
    }
}

/// Setting, appending to and reading options by name (the table above).
impl Default for OptionsBuilder {
    fn default() -> Self {
        OptionsBuilder::new()
    }
}

impl OptionsBuilder {
    /// Every option at its default: each row of the table resets its own.
    pub fn new() -> Self {
        let mut b = OptionsBuilder::blank();
        reset_all(&mut b);
        b
    }

    /// Set option `key` to `value` (`null`: its default). Refused with
    /// [`Error::InvalidArgument`] (naming the option and what it takes, never a secret's
    /// value) for an unknown key, a wrong type or a value out of range; a refused value
    /// changes nothing.
    pub fn set(&mut self, key: &str, value: Value) -> Result<()> {
        let e = entry(key)?;
        if value.is_null() {
            (e.reset)(self);
            return Ok(());
        }
        (e.set)(self, &value)
    }

    /// Append one entry to list option `key` (`args`, `env`, `config_overrides`, `headers`,
    /// `opt_out_notification_methods`, `mcp_roots`, `exec_additional_directories`).
    pub fn add(&mut self, key: &str, value: Value) -> Result<()> {
        let e = entry(key)?;
        match e.add {
            Some(add) => add(self, &value),
            None => Err(Error::InvalidArgument(format!(
                "option `{key}` is not a list: set it instead of adding to it"
            ))),
        }
    }

    /// [`set`](Self::set) with the value as JSON text.
    pub fn set_json(&mut self, key: &str, json: &str) -> Result<()> {
        self.set(key, parse(key, json)?)
    }

    /// [`add`](Self::add) with the value as JSON text.
    pub fn add_json(&mut self, key: &str, json: &str) -> Result<()> {
        self.add(key, parse(key, json)?)
    }

    /// The value option `key` has now, as JSON (durations in seconds; a secret is shown as
    /// `"<redacted>"`).
    pub fn get(&self, key: &str) -> Result<Value> {
        Ok((entry(key)?.get)(self))
    }

    /// The client options, after the checks that involve several options (the transport
    /// with `command`, `headers`, `token`, the `exec_*` and `oauth*` options) and the check
    /// that each option set applies to the client the transport makes (see [`Clients`]).
    pub fn build(&self) -> Result<ClientOptions> {
        let o = self.build_transport()?;
        check_clients(self, &o.transport)?;
        crate::protocol::mcp::era::check_prior(&o.mcp.protocol, o.mcp.prior.as_ref())
            .map_err(Error::InvalidArgument)?;
        Ok(o)
    }
}

fn parse(key: &str, json: &str) -> Result<Value> {
    serde_json::from_str(json).map_err(|e| {
        Error::InvalidArgument(format!("option `{key}`: the value is not valid JSON: {e}"))
    })
}
