//! Error types returned by the client.

use std::fmt;
use std::time::Duration;

/// JSON-RPC error code the app-server uses when its ingress queue is full.
pub const OVERLOADED_CODE: i64 = -32001;

/// MCP's JSON-RPC error code for "complete these URL elicitations first, then retry"
/// (`URLElicitationRequiredError`, 2025-11-25): its `data.elicitations` lists them.
pub const URL_ELICITATION_REQUIRED_CODE: i64 = -32042;

/// A client method the connected Codex version does not have
/// ([`Error::UnsupportedByVersion`](Error::UnsupportedByVersion)): refused before
/// anything was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnsupportedByVersion {
    /// The method called.
    pub method: String,
    /// The server's Codex version.
    pub server_version: String,
    /// The window versions that have the method, ascending.
    pub versions: Vec<String>,
}

impl fmt::Display for UnsupportedByVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a method of Codex {} (the connected server); Codex versions that have it: {}",
            self.method,
            self.server_version,
            self.versions.join(", ")
        )
    }
}

/// A JSON-RPC error object returned by the server (`{code, message, data}`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RpcError {
    /// Numeric JSON-RPC error code (for example `-32600`).
    pub code: i64,
    /// Human-readable message from the server.
    pub message: String,
    /// Optional structured data attached by the server.
    pub data: Option<serde_json::Value>,
}

/// The `error.data` member by which an error answer says "this transport cannot do that"
/// (the in-process shims answer so for what `codex exec` or `codex mcp-server` cannot do).
const UNSUPPORTED_MARKER: &str = "unsupportedByTransport";

impl RpcError {
    /// A JSON-RPC error object (to answer a server request with, say).
    pub fn new(code: i64, message: impl Into<String>, data: Option<serde_json::Value>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data,
        }
    }

    /// The error answer for a method that `transport` cannot serve.
    pub(crate) fn unsupported(transport: &str, method: &str) -> RpcError {
        RpcError {
            code: -32601,
            message: format!("`{method}` is not supported by the {transport} transport"),
            data: Some(serde_json::json!({ UNSUPPORTED_MARKER: transport, "method": method })),
        }
    }

    /// The error a request answered with this error fails with: [`Error::Unsupported`] for
    /// an answer made by [`RpcError::unsupported`], [`Error::Rpc`] for any other.
    pub(crate) fn into_error(self) -> Error {
        let unsupported = self
            .data
            .as_ref()
            .is_some_and(|d| d.get(UNSUPPORTED_MARKER).is_some());
        if unsupported {
            return Error::Unsupported(self.message);
        }
        if self.code == URL_ELICITATION_REQUIRED_CODE {
            if let Some(elicitations) = UrlElicitationRequired::elicitations_of(&self) {
                return Error::UrlElicitationRequired(UrlElicitationRequired {
                    elicitations,
                    rpc: self,
                });
            }
        }
        Error::Rpc(self)
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

/// An MCP server's `-32042` error ([`Error::UrlElicitationRequired`]): the request needs
/// the user to complete URL-mode elicitations first. Show each URL to the user (with its
/// message, asking consent), wait for the server's `notifications/elicitation/complete` of
/// each ([`McpClient::wait_elicitations_complete`](crate::McpClient::wait_elicitations_complete)),
/// then send the request again.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UrlElicitationRequired {
    /// The elicitations (`ElicitRequestURLParams`: `mode` `"url"`, `message`, `url`,
    /// `elicitationId`), as the server sent them.
    pub elicitations: Vec<serde_json::Value>,
    /// The JSON-RPC error as it came.
    pub rpc: RpcError,
}

impl UrlElicitationRequired {
    fn elicitations_of(e: &RpcError) -> Option<Vec<serde_json::Value>> {
        e.data.as_ref()?.get("elicitations")?.as_array().cloned()
    }

    /// The `elicitationId` of each elicitation (those that have one).
    pub fn ids(&self) -> Vec<String> {
        self.elicitations
            .iter()
            .filter_map(|e| e.get("elicitationId").and_then(|v| v.as_str()))
            .map(str::to_owned)
            .collect()
    }

    /// The `url` of each elicitation (those that have one).
    pub fn urls(&self) -> Vec<String> {
        self.elicitations
            .iter()
            .filter_map(|e| e.get("url").and_then(|v| v.as_str()))
            .map(str::to_owned)
            .collect()
    }
}

/// An MCP tool's `structuredContent` that does not match the tool's `outputSchema`
/// ([`Error::OutputSchemaMismatch`]; option `mcp_validate_output`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OutputSchemaMismatch {
    /// The tool called.
    pub tool: String,
    /// JSON pointer of the failing value in `structuredContent` (`""`: the whole value).
    pub path: String,
    /// What is wrong there.
    pub message: String,
    /// The result as the server sent it (for a caller who wants it anyway).
    pub result: serde_json::Value,
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DisconnectInfo {
    /// Short description of the cause (EOF, process exit status, user disconnect...).
    pub reason: String,
    /// The last lines the server wrote to stderr before it went away (may be empty).
    pub stderr_tail: String,
}

impl DisconnectInfo {
    /// Why a connection ended, with the server's last stderr lines (may be empty).
    pub fn new(reason: impl Into<String>, stderr_tail: impl Into<String>) -> Self {
        DisconnectInfo {
            reason: reason.into(),
            stderr_tail: stderr_tail.into(),
        }
    }
}

impl fmt::Display for DisconnectInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)?;
        if !self.stderr_tail.is_empty() {
            write!(f, "; server stderr tail:\n{}", self.stderr_tail)?;
        }
        Ok(())
    }
}

/// The one list of error kinds: each variant of [`Error`] with its payload, and the snake-case
/// name of its [`ErrorKind`] (the [`ErrorKindMap`] field and [`ErrorKind::name`]). Adding a
/// kind is one line here (plus its `Display` text, which the compiler asks for); the
/// `ErrorKind` enum, `ErrorKindMap`, `ErrorKind::ALL`, `ErrorKind::name` and `Error::kind`
/// are derived from it, and each binding's `ErrorKindMap` literal stops compiling until the
/// new kind is mapped.
macro_rules! error_kinds {
    ($(
        $(#[$doc:meta])*
        $variant:ident $( ( $($tuple:ty),+ ) )? $( { $( $(#[$fdoc:meta])* $field:ident : $fty:ty ),+ $(,)? } )? => $name:ident;
    )+) => {
        /// Every error the library returns.
        ///
        /// Timeouts, JSON-RPC errors, overload and disconnects are distinct variants so callers
        /// can react to each without parsing messages. New variants may be added (match with a
        /// wildcard arm, or on [`Error::kind`]).
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        pub enum Error {
            $(
                $(#[$doc])*
                $variant $( ( $($tuple),+ ) )? $( { $( $(#[$fdoc])* $field: $fty ),+ } )?,
            )+
        }

        /// What kind of error an [`Error`] is, without its details: what bindings map to their
        /// own status codes and exception classes (with an [`ErrorKindMap`]). New kinds may be
        /// added.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $(
                #[doc = concat!("[`Error::", stringify!($variant), "`].")]
                $variant,
            )+
        }

        /// One value per [`ErrorKind`]: how a binding maps kinds to its own statuses or
        /// exception classes. It is a plain struct on purpose: a binding writes it as one
        /// literal naming every field, so a kind added to the core fails to compile in each
        /// binding until it is mapped (a `match` with a wildcard arm would silently map it to
        /// a catch-all instead). Programs that only read errors use [`Error::kind`] and need
        /// not build one.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct ErrorKindMap<T> {
            $(
                #[doc = concat!("For [`ErrorKind::", stringify!($variant), "`].")]
                pub $name: T,
            )+
        }

        impl<T> ErrorKindMap<T> {
            /// The value for `kind`.
            pub fn get(&self, kind: ErrorKind) -> &T {
                match kind {
                    $( ErrorKind::$variant => &self.$name, )+
                }
            }
        }

        impl ErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: [ErrorKind; [$(stringify!($variant)),+].len()] =
                [$(ErrorKind::$variant),+];

            /// The kind's name in snake case (`"invalid_argument"`), as [`ErrorKindMap`]'s
            /// fields.
            pub fn name(self) -> &'static str {
                match self {
                    $( ErrorKind::$variant => stringify!($name), )+
                }
            }
        }

        impl Error {
            /// What kind of error this is.
            pub fn kind(&self) -> ErrorKind {
                match self {
                    $( Error::$variant { .. } => ErrorKind::$variant, )+
                }
            }
        }
    };
}

error_kinds! {
    /// A method was called before `connect()` succeeded or after `disconnect()`.
    NotConnected => not_connected;
    /// `connect()` was called on a client that is already connected.
    AlreadyConnected => already_connected;
    /// The request got no response within its timeout. A late response is dropped.
    Timeout {
        /// Method of the request that timed out.
        method: String,
        /// The timeout that elapsed.
        after: Duration,
    } => timeout;
    /// The server answered with a JSON-RPC error.
    Rpc(RpcError) => rpc;
    /// The server kept answering `-32001` (overloaded) after every retry.
    Overloaded {
        /// How many times the request was sent.
        attempts: u32,
        /// The last overload error the server returned.
        last: RpcError,
    } => overloaded;
    /// The connection ended while the request was pending (or before it was sent).
    Disconnected(DisconnectInfo) => disconnected;
    /// The connection dropped while the request was in flight and the client is reconnecting
    /// ([`ClientOptions::reconnect`](crate::ClientOptions::reconnect)): whether the server
    /// acted on the request is unknown. Retryable once the client has reconnected (after the
    /// [`Reconnected`](crate::ConnectionEvent::Reconnected) event). Also what answering a
    /// server request of the lost connection returns: the server asks again after the rejoin.
    ConnectionLost(DisconnectInfo) => connection_lost;
    /// Reading from or writing to the transport failed, or the server could not be started.
    Transport(String) => transport;
    /// The server sent something that breaks the protocol (for example a bad `initialize` result).
    Protocol(String) => protocol;
    /// The caller passed an invalid argument (bad JSON, empty method name, ...).
    InvalidArgument(String) => invalid_argument;
    /// The operation is not valid in the client's current mode or state.
    InvalidState(String) => invalid_state;
    /// The server request was already answered or resolved by the server.
    AlreadyResponded => already_responded;
    /// The transport in use cannot do this.
    Unsupported(String) => unsupported;
    /// The client cancelled the request before its answer came (the server was told, where
    /// the protocol can: MCP's `notifications/cancelled`).
    Cancelled(String) => cancelled;
    /// An MCP server answered `-32042`: the request needs URL-mode elicitations completed
    /// first (see [`UrlElicitationRequired`]). [`Error::rpc`] gives the JSON-RPC error.
    UrlElicitationRequired(UrlElicitationRequired) => url_elicitation_required;
    /// An MCP tool's `structuredContent` does not match its `outputSchema` (or is missing
    /// although the tool declares one); see [`OutputSchemaMismatch`].
    OutputSchemaMismatch(Box<OutputSchemaMismatch>) => output_schema_mismatch;
    /// The connected Codex (a version of the supported window) does not have this client
    /// method, by the window's method table: refused before anything was sent (see
    /// [`UnsupportedByVersion`]).
    UnsupportedByVersion(Box<UnsupportedByVersion>) => unsupported_by_version;
    /// No endpoint of a [`Pool`](crate::Pool) can take the call: none is healthy and
    /// accepting (all lost, draining or removed, or the pool has none) — at once, never after
    /// a wait — or each was at its limit of running turns until the placement bound passed.
    /// The message names every endpoint and its state.
    Unavailable(String) => unavailable;
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotConnected => f.write_str("client is not connected"),
            Error::AlreadyConnected => f.write_str("client is already connected"),
            Error::Timeout { method, after } => {
                write!(f, "request `{method}` timed out after {after:?}")
            }
            Error::Rpc(e) => e.fmt(f),
            Error::Overloaded { attempts, last } => write!(
                f,
                "server overloaded after {attempts} attempts (last error {}: {})",
                last.code, last.message
            ),
            Error::Disconnected(info) => write!(f, "disconnected: {info}"),
            Error::ConnectionLost(info) => {
                write!(
                    f,
                    "connection lost (reconnecting; retry the request): {info}"
                )
            }
            Error::Transport(m) => write!(f, "transport error: {m}"),
            Error::Protocol(m) => write!(f, "protocol error: {m}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::InvalidState(m) => write!(f, "invalid state: {m}"),
            Error::AlreadyResponded => {
                f.write_str("server request was already answered or resolved")
            }
            Error::Unsupported(m) => write!(f, "unsupported by this transport: {m}"),
            Error::Cancelled(m) => write!(f, "request cancelled: {m}"),
            Error::UrlElicitationRequired(u) => {
                write!(f, "{} (complete first: {})", u.rpc, u.urls().join(", "))
            }
            Error::OutputSchemaMismatch(m) => write!(
                f,
                "tool `{}` returned structuredContent that does not match its outputSchema at `{}`: {}",
                m.tool,
                if m.path.is_empty() { "/" } else { &m.path },
                m.message
            ),
            Error::UnsupportedByVersion(u) => u.fmt(f),
            Error::Unavailable(m) => write!(f, "no endpoint available: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Whether sending the same request again may succeed: [`Error::ConnectionLost`] (after
    /// the reconnect), [`Error::Overloaded`] and [`Error::Timeout`].
    pub fn is_retryable(&self) -> bool {
        self.kind().is_retryable()
    }

    /// The JSON-RPC error, when this error carries one (`Rpc` or `Overloaded`).
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            Error::Rpc(e) => Some(e),
            Error::Overloaded { last, .. } => Some(last),
            Error::UrlElicitationRequired(u) => Some(&u.rpc),
            _ => None,
        }
    }
}

impl ErrorKind {
    /// Whether an error of this kind may go away when the same request is sent again (see
    /// [`Error::is_retryable`]).
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ErrorKind::ConnectionLost | ErrorKind::Overloaded | ErrorKind::Timeout
        )
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_name_and_field() {
        let names: std::collections::HashSet<_> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        let info = DisconnectInfo {
            reason: "r".into(),
            stderr_tail: String::new(),
        };
        let rpc = RpcError {
            code: 1,
            message: "m".into(),
            data: None,
        };
        let rpc_for_url = RpcError {
            code: URL_ELICITATION_REQUIRED_CODE,
            ..rpc.clone()
        };
        let errors = [
            Error::NotConnected,
            Error::AlreadyConnected,
            Error::Timeout {
                method: "m".into(),
                after: Duration::ZERO,
            },
            Error::Rpc(rpc.clone()),
            Error::Overloaded {
                attempts: 1,
                last: rpc,
            },
            Error::Disconnected(info.clone()),
            Error::ConnectionLost(info),
            Error::Transport("t".into()),
            Error::Protocol("p".into()),
            Error::InvalidArgument("a".into()),
            Error::InvalidState("s".into()),
            Error::AlreadyResponded,
            Error::Unsupported("u".into()),
            Error::Cancelled("c".into()),
            Error::UrlElicitationRequired(UrlElicitationRequired {
                elicitations: vec![],
                rpc: rpc_for_url.clone(),
            }),
            Error::OutputSchemaMismatch(Box::new(OutputSchemaMismatch {
                tool: "t".into(),
                path: "/x".into(),
                message: "m".into(),
                result: serde_json::Value::Null,
            })),
            Error::UnsupportedByVersion(Box::new(UnsupportedByVersion {
                method: "m".into(),
                server_version: "0.163.0".into(),
                versions: vec!["0.171.0".into()],
            })),
            Error::Unavailable("no endpoint".into()),
        ];
        let kinds: Vec<_> = errors.iter().map(Error::kind).collect();
        assert_eq!(kinds, ErrorKind::ALL);
        for e in &errors {
            assert_eq!(
                e.is_retryable(),
                matches!(
                    e,
                    Error::ConnectionLost(_) | Error::Overloaded { .. } | Error::Timeout { .. }
                )
            );
        }
    }

    #[test]
    fn only_marked_answers_are_unsupported() {
        let e = RpcError::unsupported("exec", "thread/fork").into_error();
        assert!(
            matches!(&e, Error::Unsupported(m) if m == "`thread/fork` is not supported by the exec transport"),
            "{e:?}"
        );
        let plain = RpcError {
            code: -32601,
            message: "nope".into(),
            data: Some(serde_json::json!({"method": "x"})),
        };
        assert!(matches!(plain.clone().into_error(), Error::Rpc(r) if r == plain));
    }

    #[test]
    fn url_elicitation_required_carries_the_elicitations() {
        let el = serde_json::json!({"mode": "url", "message": "Log in", "url": "https://127.0.0.1/x",
                                    "elicitationId": "e1"});
        let e = RpcError {
            code: URL_ELICITATION_REQUIRED_CODE,
            message: "URL elicitation required".into(),
            data: Some(serde_json::json!({ "elicitations": [el.clone()] })),
        }
        .into_error();
        let Error::UrlElicitationRequired(u) = &e else {
            panic!("not typed: {e:?}")
        };
        assert_eq!(u.elicitations, vec![el]);
        assert_eq!(u.ids(), vec!["e1".to_owned()]);
        assert_eq!(e.rpc().map(|r| r.code), Some(URL_ELICITATION_REQUIRED_CODE));
        assert!(e.to_string().contains("https://127.0.0.1/x"), "{e}");
        // Without the elicitations it stays a plain JSON-RPC error.
        let bare = RpcError {
            code: URL_ELICITATION_REQUIRED_CODE,
            message: "m".into(),
            data: None,
        };
        assert!(matches!(bare.into_error(), Error::Rpc(_)));
    }
}
