//! Views of the core's results that every binding shows as they are: the JSON of connection
//! events, reconnect reports, turn results and the initialize result, and their English text.
//! A binding converts these; it builds no protocol-shaped JSON and writes no message of its
//! own.

use std::fmt;

use serde_json::{json, Value};

use crate::codex::account::{Login, LoginOutcome};
use crate::codex::turn::TurnResult;
use crate::connection::InitializeResult;
use crate::event::{ConnectionEvent, ReconnectAttempt, Rejoined};

impl ReconnectAttempt {
    /// `{"attempt", "maxAttempts", "delayMs", "cause"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay.as_millis() as u64,
            "cause": self.cause,
        })
    }
}

impl Rejoined {
    /// `{"attempts", "threads": [id…], "failedThreads": [{"threadId", "error"}…],
    /// "requestsFailed", "serverRequestsDropped", "turnsEnded": [{"threadId", "turnId",
    /// "status"}…]}`.
    pub fn to_json(&self) -> Value {
        json!({
            "attempts": self.attempts,
            "threads": self.threads,
            "failedThreads": self.failed_threads.iter()
                .map(|(t, e)| json!({"threadId": t, "error": e}))
                .collect::<Vec<_>>(),
            "requestsFailed": self.requests_failed,
            "serverRequestsDropped": self.server_requests_dropped,
            "turnsEnded": self.turns_ended.iter()
                .map(|(t, u, s)| json!({"threadId": t, "turnId": u, "status": s}))
                .collect::<Vec<_>>(),
        })
    }
}

impl ConnectionEvent {
    /// `"error"`, `"overflow"`, `"disconnected"`, `"reconnecting"`, `"reconnected"`,
    /// `"outside_window"`, `"version_mismatch"` or `"auth"`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ConnectionEvent::Error(_) => "error",
            ConnectionEvent::Overflow { .. } => "overflow",
            ConnectionEvent::Disconnected(_) => "disconnected",
            ConnectionEvent::Reconnecting(_) => "reconnecting",
            ConnectionEvent::Reconnected(_) => "reconnected",
            ConnectionEvent::OutsideWindow(_) => "outside_window",
            ConnectionEvent::VersionMismatch(_) => "version_mismatch",
            #[cfg(feature = "mcp-http")]
            ConnectionEvent::Auth(_) => "auth",
        }
    }

    /// The report of a `reconnecting`, `reconnected`, `outside_window`, `version_mismatch` or
    /// `auth` event as JSON text (see [`ReconnectAttempt::to_json`], [`Rejoined::to_json`],
    /// [`ServerVersion::to_json`](crate::ServerVersion::to_json)); `None` for other kinds.
    pub fn report_json(&self) -> Option<String> {
        match self {
            ConnectionEvent::Reconnecting(a) => Some(a.to_json().to_string()),
            ConnectionEvent::Reconnected(r) => Some(r.to_json().to_string()),
            ConnectionEvent::OutsideWindow(v) | ConnectionEvent::VersionMismatch(v) => {
                Some(v.to_json().to_string())
            }
            #[cfg(feature = "mcp-http")]
            ConnectionEvent::Auth(a) => Some(a.to_json().to_string()),
            _ => None,
        }
    }

    /// The whole event: `{"kind", "message"}` plus, by kind, `dropped`; `reason` and
    /// `stderrTail`; the reconnect report's members; the server version's members.
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            ConnectionEvent::Error(_) => json!({}),
            ConnectionEvent::Overflow { dropped } => json!({ "dropped": dropped }),
            ConnectionEvent::Disconnected(info) => {
                json!({"reason": info.reason, "stderrTail": info.stderr_tail})
            }
            ConnectionEvent::Reconnecting(a) => a.to_json(),
            ConnectionEvent::Reconnected(r) => r.to_json(),
            ConnectionEvent::OutsideWindow(v) | ConnectionEvent::VersionMismatch(v) => v.to_json(),
            #[cfg(feature = "mcp-http")]
            ConnectionEvent::Auth(a) => a.to_json(),
        };
        v["kind"] = Value::from(self.kind_name());
        v["message"] = Value::from(self.to_string());
        v
    }
}

impl ConnectionEvent {
    /// The event [`to_json`](Self::to_json) wrote (its `kind` and that kind's members; the
    /// `message` is made again from them). [`Error::InvalidArgument`](crate::Error) for a
    /// value that is not one (an unknown kind, a member missing or of the wrong type).
    pub fn from_json(v: &Value) -> crate::error::Result<ConnectionEvent> {
        use crate::error::{DisconnectInfo, Error};
        let kind = v["kind"].as_str().unwrap_or_default();
        let bad = |what: &str| {
            Error::InvalidArgument(format!("not a `{kind}` connection event: {what} (in {v})"))
        };
        let text = |key: &str| -> crate::error::Result<String> {
            v[key]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad(&format!("`{key}` is not a string")))
        };
        let count = |key: &str| -> crate::error::Result<u64> {
            v[key]
                .as_u64()
                .ok_or_else(|| bad(&format!("`{key}` is not a whole number")))
        };
        let strings = |key: &str, members: &[&str]| -> crate::error::Result<Vec<Vec<String>>> {
            let list = v[key]
                .as_array()
                .ok_or_else(|| bad(&format!("`{key}` is not a list")))?;
            list.iter()
                .map(|item| {
                    members
                        .iter()
                        .map(|m| {
                            item[*m].as_str().map(str::to_owned).ok_or_else(|| {
                                bad(&format!("`{key}` has an entry without a string `{m}`"))
                            })
                        })
                        .collect()
                })
                .collect()
        };
        Ok(match kind {
            "error" => ConnectionEvent::Error(text("message")?),
            "overflow" => ConnectionEvent::Overflow {
                dropped: count("dropped")?,
            },
            "disconnected" => ConnectionEvent::Disconnected(DisconnectInfo::new(
                text("reason")?,
                text("stderrTail")?,
            )),
            "reconnecting" => ConnectionEvent::Reconnecting(ReconnectAttempt {
                attempt: count("attempt")? as u32,
                max_attempts: count("maxAttempts")? as u32,
                delay: std::time::Duration::from_millis(count("delayMs")?),
                cause: text("cause")?,
            }),
            "reconnected" => ConnectionEvent::Reconnected(Rejoined {
                attempts: count("attempts")? as u32,
                threads: v["threads"]
                    .as_array()
                    .ok_or_else(|| bad("`threads` is not a list"))?
                    .iter()
                    .map(|t| {
                        t.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| bad("`threads` holds a non-string"))
                    })
                    .collect::<crate::error::Result<Vec<_>>>()?,
                failed_threads: strings("failedThreads", &["threadId", "error"])?
                    .into_iter()
                    .map(|mut p| (p.remove(0), p.remove(0)))
                    .collect(),
                requests_failed: count("requestsFailed")?,
                server_requests_dropped: count("serverRequestsDropped")?,
                turns_ended: strings("turnsEnded", &["threadId", "turnId", "status"])?
                    .into_iter()
                    .map(|mut t| (t.remove(0), t.remove(0), t.remove(0)))
                    .collect(),
            }),
            "outside_window" => ConnectionEvent::OutsideWindow(crate::version::ServerVersion::of(
                v["version"].as_str(),
            )),
            #[cfg(feature = "mcp-http")]
            "auth" => {
                use crate::auth::AuthEvent;
                ConnectionEvent::Auth(match v["auth"].as_str().unwrap_or_default() {
                    "started" => AuthEvent::Started {
                        reason: text("reason")?,
                        grant: text("grant")?,
                    },
                    "succeeded" => AuthEvent::Succeeded {
                        issuer: text("issuer")?,
                        scope: v["scope"].as_str().map(str::to_owned),
                    },
                    "refreshed" => AuthEvent::Refreshed {
                        issuer: text("issuer")?,
                    },
                    "failed" => AuthEvent::Failed {
                        reason: text("reason")?,
                    },
                    other => return Err(bad(&format!("unknown auth step `{other}`"))),
                })
            }
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "not a connection event: unknown kind `{kind}` (in {v})"
                )))
            }
        })
    }
}

impl fmt::Display for ConnectionEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionEvent::Error(m) => f.write_str(m),
            ConnectionEvent::Overflow { dropped } => {
                write!(f, "{dropped} notifications dropped (consumer too slow)")
            }
            ConnectionEvent::Disconnected(info) => info.fmt(f),
            ConnectionEvent::Reconnecting(a) => write!(
                f,
                "connection lost ({}); reconnect attempt {} of {} in {:?}",
                a.cause, a.attempt, a.max_attempts, a.delay
            ),
            #[cfg(feature = "mcp-http")]
            ConnectionEvent::Auth(a) => a.fmt(f),
            ConnectionEvent::OutsideWindow(v) => v.fmt(f),
            ConnectionEvent::VersionMismatch(v) => match v.cli_mismatch() {
                Some(m) => f.write_str(&m),
                None => v.fmt(f),
            },
            ConnectionEvent::Reconnected(r) => write!(
                f,
                "reconnected after {} attempt(s); {} thread(s) resumed, {} could not be",
                r.attempts,
                r.threads.len(),
                r.failed_threads.len()
            ),
        }
    }
}

impl TurnResult {
    /// `{"thread_id", "turn_id", "status", "final_response", "items", "usage", "diff",
    /// "error", "turn", "completed", "emulated_skills"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "thread_id": self.thread_id,
            "turn_id": self.turn_id,
            "status": self.status,
            "final_response": self.final_response,
            "items": self.items,
            "usage": self.usage,
            "diff": self.diff,
            "error": self.error,
            "turn": self.turn,
            "completed": self.is_completed(),
            "emulated_skills": self.emulated_skills.iter().map(|s| s.to_value()).collect::<Vec<_>>(),
        })
    }
}

impl InitializeResult {
    /// `{"raw", "user_agent", "codex_home", "platform_family", "platform_os",
    /// "codex_version", "protocol_version", "capabilities", "server_info", "instructions",
    /// "mcp_era", "mcp_prior"}` (absent members are `null`; the last six are an MCP server's;
    /// `mcp_era` is `"stateless"` or `"handshake"`, see [`mcp_era`](Self::mcp_era); `mcp_prior`
    /// the value for option `mcp_prior`, see [`mcp_prior`](Self::mcp_prior)).
    pub fn to_json(&self) -> Value {
        json!({
            "raw": self.raw,
            "user_agent": self.user_agent,
            "codex_home": self.codex_home,
            "platform_family": self.platform_family,
            "platform_os": self.platform_os,
            "codex_version": self.codex_version(),
            "protocol_version": self.protocol_version(),
            "capabilities": self.capabilities(),
            "server_info": self.server_info(),
            "instructions": self.instructions(),
            "mcp_era": self.protocol_version().map(|_| self.mcp_era()),
            "mcp_prior": self.mcp_prior().map(|p| p.to_json()),
        })
    }
}

impl Login {
    /// `{"login_id", "auth_url", "user_code", "verification_url"}` (each `null` when the flow
    /// has none: the browser flow gives `auth_url`, the device-code flow `user_code` and
    /// `verification_url`).
    pub fn to_json(&self) -> Value {
        json!({
            "login_id": self.login_id(),
            "auth_url": self.auth_url(),
            "user_code": self.user_code(),
            "verification_url": self.verification_url(),
        })
    }
}

impl LoginOutcome {
    /// `{"success", "error"}`.
    pub fn to_json(&self) -> Value {
        json!({"success": self.success, "error": self.error})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DisconnectInfo;
    use std::time::Duration;

    #[test]
    fn connection_event_views() {
        let ev = ConnectionEvent::Reconnecting(ReconnectAttempt {
            attempt: 2,
            max_attempts: 5,
            delay: Duration::from_millis(1500),
            cause: "EOF".into(),
        });
        assert_eq!(ev.kind_name(), "reconnecting");
        assert_eq!(
            ev.report_json().unwrap(),
            r#"{"attempt":2,"cause":"EOF","delayMs":1500,"maxAttempts":5}"#
        );
        assert_eq!(
            ev.to_string(),
            "connection lost (EOF); reconnect attempt 2 of 5 in 1.5s"
        );
        assert_eq!(ev.to_json()["message"], ev.to_string());
        let r = ConnectionEvent::Reconnected(Rejoined {
            attempts: 1,
            threads: vec!["t1".into()],
            failed_threads: vec![("t2".into(), "gone".into())],
            turns_ended: vec![("t1".into(), "u1".into(), "interrupted".into())],
            ..Default::default()
        });
        let v = r.to_json();
        assert_eq!(v["failedThreads"][0]["threadId"], "t2");
        assert_eq!(v["turnsEnded"][0]["status"], "interrupted");
        assert_eq!(v["kind"], "reconnected");
        let d = ConnectionEvent::Disconnected(DisconnectInfo {
            reason: "EOF".into(),
            stderr_tail: "boom".into(),
        });
        assert_eq!(d.to_json()["stderrTail"], "boom");
        assert!(d.report_json().is_none());
        assert_eq!(
            ConnectionEvent::Overflow { dropped: 3 }.to_string(),
            "3 notifications dropped (consumer too slow)"
        );
    }
}
