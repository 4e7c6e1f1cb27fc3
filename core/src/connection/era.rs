//! MCP era negotiation at connect (option `mcp_protocol`): probe `server/discover` with the
//! `_meta` envelope of the newest stateless version; on a version the server refuses, retry
//! with one it lists; when the server does not know the probe (`auto`), the `initialize`
//! handshake as before. A stateless connection's requests all carry the envelope (see
//! `SessionShared::set_envelope`); its initialize result view is the discover result with the
//! chosen `protocolVersion` and `era: "stateless"`.

use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::oneshot;

use super::Client;
use crate::error::{Error, Result};
use crate::options::{Protocol, RequestOptions};
use crate::protocol::mcp::era::{self, Envelope, EraMode};
use crate::session::Session;

type Outcome = std::result::Result<Result<Box<RawValue>>, oneshot::error::RecvError>;

/// Most `server/discover` retries after an unsupported-version answer.
const VERSION_RETRIES: usize = 2;

impl Client {
    /// The era mode of an MCP connection (`None` for the app-server protocol).
    fn era_mode(&self) -> Option<&EraMode> {
        (self.inner.options.transport.protocol() == Protocol::Mcp)
            .then_some(&self.inner.options.mcp.protocol)
    }

    /// The envelope of `version`: the client's info and capabilities.
    fn envelope(&self, version: &str) -> Envelope {
        let init: Value = serde_json::from_str(self.initialize_params().get()).unwrap_or_default();
        let caps = init
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let info = init.get("clientInfo").cloned().unwrap_or_else(|| json!({}));
        Envelope::new(version, &info, &caps)
    }

    /// The params of `server/discover` offering `version` (`None`: the mode's first
    /// choice), or `None` when the connection does not probe (legacy mode, app-server).
    pub(super) fn discover_params(&self, version: Option<&str>) -> Option<Box<RawValue>> {
        let v = version.or_else(|| self.era_mode()?.first_probe())?;
        let mut params = json!({});
        self.envelope(v).apply(&mut params);
        Some(serde_json::value::to_raw_value(&params).expect("discover params serialize"))
    }

    /// Turn the answer to the first request of the connect into the handshake's outcome:
    /// for a probe, the discover view (the session now carries the envelope), or — the
    /// server not speaking the stateless era and the mode `auto` — the answer to the
    /// `initialize` sent in its place.
    pub(super) async fn negotiate_era(
        &self,
        session: &Arc<Session>,
        rx: oneshot::Receiver<Result<Box<RawValue>>>,
    ) -> Outcome {
        let Some(mode) = self.era_mode().cloned() else {
            return rx.await;
        };
        let Some(first) = mode.first_probe().map(str::to_owned) else {
            return rx.await;
        };
        let opts = RequestOptions {
            timeout: Some(self.inner.options.connect_timeout),
            retry: Some(crate::options::RetryPolicy::none()),
            read_ahead: Some(false),
        };
        let mut offered = first;
        let mut outcome = rx.await;
        let mut retries = 0;
        let why = loop {
            match outcome {
                Err(e) => return Err(e),
                Ok(Ok(raw)) => {
                    let v: Value = serde_json::from_str(raw.get()).unwrap_or_default();
                    let chosen = match &mode {
                        EraMode::Pinned(p) => era::pick_version(&v["supportedVersions"])
                            .filter(|c| c == p)
                            .map(|_| p.as_str()),
                        _ => era::pick_version(&v["supportedVersions"]),
                    };
                    match chosen {
                        Some(version) => {
                            tracing::debug!(version, "MCP: the server speaks the stateless era");
                            session.shared.set_envelope(Some(self.envelope(version)));
                            let view = era::discover_view(&v, version);
                            return Ok(Ok(
                                serde_json::value::to_raw_value(&view).expect("view serializes")
                            ));
                        }
                        None => {
                            break format!(
                            "the server's supportedVersions {} has none this client speaks ({})",
                            v["supportedVersions"],
                            era::MODERN_VERSIONS.join(", ")
                        )
                        }
                    }
                }
                Ok(Err(Error::Rpc(e)))
                    if e.code == era::UNSUPPORTED_PROTOCOL_VERSION && retries < VERSION_RETRIES =>
                {
                    let supported = e.data.as_ref().and_then(|d| d.get("supported"));
                    let next = supported
                        .and_then(era::pick_version)
                        .filter(|v| match &mode {
                            EraMode::Pinned(p) => v == p,
                            _ => true,
                        });
                    let Some(next) = next else {
                        break format!("the server refused version {offered}: {e}");
                    };
                    retries += 1;
                    tracing::debug!(
                        offered,
                        next,
                        "MCP: version refused, retrying server/discover"
                    );
                    offered = next.to_owned();
                    let params = self.discover_params(Some(next)).expect("an MCP connection");
                    outcome = match session
                        .shared
                        .start_request(era::DISCOVER, &params, opts, true)
                    {
                        Ok(rx) => rx.await,
                        Err(e) => return Ok(Err(e)),
                    };
                }
                // Authorization failed (or was refused): `initialize` would meet the same
                // answer, and ask the user's browser step a second time.
                Ok(Err(Error::Rpc(e))) if refused_access(&e) => return Ok(Err(Error::Rpc(e))),
                Ok(Err(e)) => {
                    if session.shared.is_closed() {
                        return Ok(Err(e));
                    }
                    break format!("server/discover failed: {e}");
                }
            }
        };
        if let EraMode::Pinned(p) = &mode {
            return Ok(Err(Error::Protocol(format!(
                "MCP protocol {p} is pinned (option mcp_protocol) but {why}"
            ))));
        }
        tracing::debug!("MCP: {why}; falling back to the initialize handshake");
        let params = self.initialize_params();
        match session
            .shared
            .start_request("initialize", &params, opts, true)
        {
            Ok(rx) => rx.await,
            Err(e) => Ok(Err(e)),
        }
    }
}

/// Whether an error is the HTTP transport's answer of 401 or 403 (no fallback helps).
fn refused_access(e: &crate::error::RpcError) -> bool {
    let status = e.data.as_ref().and_then(|d| d.get("httpStatus"));
    matches!(status.and_then(Value::as_u64), Some(401 | 403))
}

/// Which era and version an MCP connection speaks, from its initialize result view.
pub(super) fn era_of(raw: &Value) -> &'static str {
    match raw.get("era").and_then(Value::as_str) {
        Some("stateless") => "stateless",
        _ => "handshake",
    }
}
