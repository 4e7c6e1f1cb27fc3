//! What authorization tells the program, as [`ConnectionEvent::Auth`](crate::ConnectionEvent::Auth)
//! events on the client's queue (and to its connection handler).

/// One step of MCP authorization. Never carries a token, code or secret.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthEvent {
    /// The server asked for authorization (or more scope) and the client started a flow.
    Started {
        /// Why: `unauthorized` (401), `insufficient_scope` (403), `expired`.
        reason: String,
        /// The grant used (`authorization_code`, `client_credentials`, ...).
        grant: String,
    },
    /// A token was obtained.
    Succeeded {
        /// The authorization server (issuer) that issued it.
        issuer: String,
        /// The scopes granted (or asked for, when the server did not say).
        scope: Option<String>,
    },
    /// The token was refreshed.
    Refreshed {
        /// The authorization server (issuer) that refreshed it.
        issuer: String,
    },
    /// Authorization failed; the request that needed it fails with the server's 401 or 403.
    Failed {
        /// Why, in words.
        reason: String,
    },
}

impl AuthEvent {
    /// `"started"`, `"succeeded"`, `"refreshed"` or `"failed"`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            AuthEvent::Started { .. } => "started",
            AuthEvent::Succeeded { .. } => "succeeded",
            AuthEvent::Refreshed { .. } => "refreshed",
            AuthEvent::Failed { .. } => "failed",
        }
    }

    /// `{"auth": kind, ...members}`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            AuthEvent::Started { reason, grant } => {
                json!({"auth": self.kind_name(), "reason": reason, "grant": grant})
            }
            AuthEvent::Succeeded { issuer, scope } => {
                json!({"auth": self.kind_name(), "issuer": issuer, "scope": scope})
            }
            AuthEvent::Refreshed { issuer } => json!({"auth": self.kind_name(), "issuer": issuer}),
            AuthEvent::Failed { reason } => json!({"auth": self.kind_name(), "reason": reason}),
        }
    }
}

impl std::fmt::Display for AuthEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthEvent::Started { reason, grant } => {
                write!(f, "authorization started ({reason}; {grant})")
            }
            AuthEvent::Succeeded { issuer, scope } => match scope {
                Some(s) => write!(f, "authorized by {issuer} (scope `{s}`)"),
                None => write!(f, "authorized by {issuer}"),
            },
            AuthEvent::Refreshed { issuer } => write!(f, "token refreshed by {issuer}"),
            AuthEvent::Failed { reason } => write!(f, "authorization failed: {reason}"),
        }
    }
}
