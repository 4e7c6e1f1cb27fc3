//! The log level in MCP 2026-07-28: no `logging/setLevel` request; the client puts the level
//! into the `_meta` envelope of each request (`io.modelcontextprotocol/logLevel`) and a server
//! sends `notifications/message` records, at or above it, only for requests that carry one.

use serde_json::value::RawValue;

use super::McpRules;
use crate::error::{Error, Result};
use crate::protocol::mcp::era::META_LOG_LEVEL;

/// The levels of MCP logging, lowest first (RFC 5424 severities).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// [`Error::InvalidArgument`] naming the known levels unless `level` is one of [`LOG_LEVELS`].
pub(crate) fn check_level(level: &str) -> Result<()> {
    if LOG_LEVELS.contains(&level) {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "unknown log level `{level}` (known: {})",
        LOG_LEVELS.join(", ")
    )))
}

/// The method of the handshake era's level request.
const SET_LEVEL: &str = "logging/setLevel";

impl McpRules {
    /// In the stateless era, put `level` into the envelope of every later request and return
    /// true; in the handshake era return false (the caller sends `logging/setLevel`). An
    /// unknown level is refused in both eras.
    pub(crate) fn set_log_level(&self, level: &str) -> Result<bool> {
        check_level(level)?;
        let Some(envelope) = self.envelope() else {
            return Ok(false);
        };
        let mut envelope = (*envelope).clone();
        envelope.meta.insert(META_LOG_LEVEL.into(), level.into());
        self.set_envelope(Some(envelope));
        Ok(true)
    }

    /// A raw `logging/setLevel` (`{level}`) in the stateless era: the level goes into the
    /// envelope and the answer is the empty result, as the typed helper does (`None`: any
    /// other request, or the handshake era — sent as it is).
    pub(crate) fn set_level_locally(
        &self,
        method: &str,
        params: &RawValue,
    ) -> Option<Result<Box<RawValue>>> {
        if method != SET_LEVEL || self.envelope().is_none() {
            return None;
        }
        let level = serde_json::from_str::<serde_json::Value>(params.get())
            .ok()
            .and_then(|v| v.get("level")?.as_str().map(str::to_owned));
        let Some(level) = level else {
            return Some(Err(Error::InvalidArgument(
                "logging/setLevel needs params {\"level\": ...}".into(),
            )));
        };
        Some(
            self.set_log_level(&level)
                .map(|_| RawValue::from_string("{}".into()).expect("valid JSON")),
        )
    }
}
