//! The log level in MCP 2026-07-28: no `logging/setLevel` request; the client puts the level
//! into the `_meta` envelope of each request (`io.modelcontextprotocol/logLevel`) and a server
//! sends `notifications/message` records, at or above it, only for requests that carry one.

use crate::connection::Client;
use crate::error::{Error, Result};
use crate::protocol::mcp::era::META_LOG_LEVEL;
use crate::protocol::mcp::rules::McpRules;

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

/// In the stateless era, put `level` into the envelope of every later request and return
/// true; in the handshake era return false (the caller sends `logging/setLevel`). An unknown
/// level is refused in both eras.
pub(crate) fn set_in_envelope(client: &Client, level: &str) -> Result<bool> {
    if !LOG_LEVELS.contains(&level) {
        return Err(Error::InvalidArgument(format!(
            "unknown log level `{level}` (known: {})",
            LOG_LEVELS.join(", ")
        )));
    }
    let session = client.live_session()?;
    let Some(mcp) = session.rules_of::<McpRules>() else {
        return Ok(false);
    };
    let Some(envelope) = mcp.envelope() else {
        return Ok(false);
    };
    let mut envelope = (*envelope).clone();
    envelope.meta.insert(META_LOG_LEVEL.into(), level.into());
    mcp.set_envelope(Some(envelope));
    Ok(true)
}

/// A raw `logging/setLevel` (`{level}`) in the stateless era: the level goes into the
/// envelope and the answer is the empty result, as the typed helper does (`None`: any other
/// request, or the handshake era — sent as it is).
pub(crate) fn answer_locally(
    client: &Client,
    method: &str,
    params: &serde_json::value::RawValue,
) -> Option<Result<Box<serde_json::value::RawValue>>> {
    if method != "logging/setLevel" || !client.live_session().ok()?.rules.stateless() {
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
        set_in_envelope(client, &level)
            .map(|_| serde_json::value::RawValue::from_string("{}".into()).expect("valid JSON")),
    )
}
