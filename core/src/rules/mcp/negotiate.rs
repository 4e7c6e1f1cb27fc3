//! MCP era negotiation at connect (option `mcp_protocol`): probe `server/discover` with the
//! `_meta` envelope of the newest stateless version; on a version the server refuses, retry
//! with one it lists; when the server does not know the probe (`auto`), the `initialize`
//! handshake as before — over stdio, a server that ends during the probe (exits, or closes
//! its stdout) is started again, once, for that handshake. A remembered verdict (option
//! `mcp_prior`) skips the probe. A stateless connection's requests all carry the envelope
//! (see [`McpRules::set_envelope`]); its initialize result view is the discover result with
//! the chosen `protocolVersion` and `era: "stateless"`. The connect (`connection/`) runs these
//! steps through [`Rules`](crate::rules::Rules) and knows none of them.

use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::McpRules;
use crate::error::{DisconnectInfo, Error, Result};
use crate::protocol::mcp::era::{self, Envelope, EraMode, Prior};
use crate::rules::{First, Handshake, Negotiated, Opening, Outcome};

/// Most `server/discover` retries after an unsupported-version answer.
const VERSION_RETRIES: usize = 2;

/// The handshake request of the handshake era.
const INITIALIZE: &str = "initialize";

impl McpRules {
    /// The envelope of `version`: the client's info and capabilities.
    fn envelope_of(&self, version: &str) -> Envelope {
        let init: Value = serde_json::from_str(self.init_params().get()).unwrap_or_default();
        let caps = init
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let info = init.get("clientInfo").cloned().unwrap_or_else(|| json!({}));
        Envelope::new(version, &info, &caps)
    }

    /// The params of `server/discover` offering `version` (`None`: the mode's first
    /// choice), or `None` when the connection does not probe (legacy mode).
    fn discover_params(&self, version: Option<&str>) -> Option<Box<RawValue>> {
        let v = version.or_else(|| self.era_mode().first_probe())?;
        let mut params = json!({});
        self.envelope_of(v).apply(&mut params);
        Some(serde_json::value::to_raw_value(&params).expect("discover params serialize"))
    }

    /// What this connect starts with; `restarted`: the server was started again after it
    /// ended during the probe (the handshake only, no second probe).
    pub(crate) fn opening_of(&self, restarted: bool) -> Opening {
        let initialize = || Opening::Send(INITIALIZE, self.init_params().to_owned());
        if restarted {
            return initialize();
        }
        match self.prior() {
            Some(Prior::Legacy) => initialize(),
            Some(Prior::Modern(_)) => Opening::Adopt,
            None => match self.discover_params(None) {
                Some(p) => Opening::Send(era::DISCOVER, p),
                None => initialize(),
            },
        }
    }

    /// Whether a server that ended during the probe is started again for `initialize`: mode
    /// `auto` over stdio, and the server had been started (a spawn failure is not retried).
    fn restarts_after_probe(&self, h: &dyn Handshake) -> bool {
        self.restarts_over_stdio() && matches!(self.era_mode(), EraMode::Auto) && h.link_opened()
    }

    /// Why the connection ended, in one line (its reason and the last line the server wrote
    /// to stderr).
    fn ended_because(h: &dyn Handshake) -> String {
        let info = match h.disconnect_error() {
            Error::Disconnected(i) | Error::ConnectionLost(i) => i,
            e => DisconnectInfo::new(e.to_string(), h.stderr_tail()),
        };
        let last = info
            .stderr_tail
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(200).collect::<String>());
        match last {
            Some(l) => format!("{} (its stderr: {l})", info.reason),
            None => info.reason,
        }
    }

    /// The INFO record of a server started again after it ended during the probe.
    pub(crate) fn log_restart(&self, why: &str) {
        tracing::info!(
            server = %self.server_program(),
            "MCP: the server ended during the server/discover probe ({why}); starting it again for the initialize handshake (option mcp_protocol \"legacy\" or mcp_prior {{\"kind\": \"legacy\"}} skips the probe)"
        );
    }

    /// The outcome of the `initialize` sent to a server started again after it ended during
    /// the probe: a failure says so (the server is not started a third time).
    pub(crate) fn outcome_after_restart(h: &dyn Handshake, outcome: Outcome, why: &str) -> Outcome {
        let e = match outcome {
            Ok(Ok(raw)) => return Ok(Ok(raw)),
            Ok(Err(e)) => e,
            Err(_) => h.disconnect_error(),
        };
        let note = |reason: &str| {
            format!(
                "{reason} (during the initialize handshake, after a restart: the server had ended during the server/discover probe: {why}; not started again)"
            )
        };
        Ok(Err(match e {
            Error::Disconnected(i) => Error::Disconnected(DisconnectInfo {
                reason: note(&i.reason),
                stderr_tail: i.stderr_tail,
            }),
            Error::ConnectionLost(i) => Error::ConnectionLost(DisconnectInfo {
                reason: note(&i.reason),
                stderr_tail: i.stderr_tail,
            }),
            other => other,
        }))
    }

    /// Turn the connect's first step into the handshake's outcome: for a probe, the discover
    /// view (the connection now carries the envelope), or — the server not speaking the
    /// stateless era and the mode `auto` — the answer to the `initialize` sent in its place.
    pub(crate) async fn negotiate_era(&self, h: &dyn Handshake, first: First) -> Negotiated {
        let rx = match first {
            First::Sent(era::DISCOVER, rx) => rx,
            First::Sent(_, rx) => return Negotiated::Done(rx.await),
            First::Adopted => return Negotiated::Done(self.adopt(h).await),
        };
        let mode = self.era_mode().clone();
        let Some(first) = mode.first_probe().map(str::to_owned) else {
            return Negotiated::Done(rx.await);
        };
        match self.probe(h, rx, mode, first).await {
            Err(why) if self.restarts_after_probe(h) => Negotiated::Restart(why),
            Err(_) => Negotiated::Done(Ok(Err(h.disconnect_error()))),
            Ok(outcome) => Negotiated::Done(outcome),
        }
    }

    /// A remembered stateless verdict: once the transport is open, the connection carries
    /// the envelope and the view is the remembered discover result's; nothing is sent.
    async fn adopt(&self, h: &dyn Handshake) -> Outcome {
        if let Err(e) = h.opened().await {
            return Ok(Err(e));
        }
        let Some(Prior::Modern(discover)) = self.prior() else {
            return Ok(Err(Error::InvalidArgument(
                "option `mcp_prior`: no stateless verdict to adopt".into(),
            )));
        };
        let version = match self.era_mode() {
            EraMode::Pinned(p) => Some(p.as_str()),
            _ => era::pick_version(&discover["supportedVersions"]),
        };
        let Some(version) = version else {
            // Refused at `validate`; kept for a prior set on the fields directly.
            return Ok(Err(Error::InvalidArgument(
                "option `mcp_prior`: its discover result lists no version this client speaks"
                    .into(),
            )));
        };
        tracing::debug!(
            version,
            "MCP: the stateless era from option mcp_prior; no server/discover probe"
        );
        self.set_envelope(Some(self.envelope_of(version)));
        let view = era::discover_view(discover, version);
        Ok(Ok(
            serde_json::value::to_raw_value(&view).expect("view serializes")
        ))
    }

    /// The probe and what follows it: `Err(why)` when the connection ended during it (the
    /// caller decides whether the server is started again).
    async fn probe(
        &self,
        h: &dyn Handshake,
        rx: tokio::sync::oneshot::Receiver<Result<Box<RawValue>>>,
        mode: EraMode,
        first: String,
    ) -> std::result::Result<Outcome, String> {
        let mut offered = first;
        let mut outcome = rx.await;
        let mut retries = 0;
        let why = loop {
            match outcome {
                Err(_) => return Err(Self::ended_because(h)),
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
                            self.set_envelope(Some(self.envelope_of(version)));
                            let view = era::discover_view(&v, version);
                            return Ok(Ok(Ok(
                                serde_json::value::to_raw_value(&view).expect("view serializes")
                            )));
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
                    let params = self.discover_params(Some(next)).expect("a probing mode");
                    outcome = match h.request(era::DISCOVER, &params) {
                        Ok(rx) => rx.await,
                        Err(_) if h.is_closed() => return Err(Self::ended_because(h)),
                        Err(e) => return Ok(Ok(Err(e))),
                    };
                }
                // Authorization failed (or was refused): `initialize` would meet the same
                // answer, and ask the user's browser step a second time.
                Ok(Err(Error::Rpc(e))) if refused_access(&e) => return Ok(Ok(Err(Error::Rpc(e)))),
                Ok(Err(_)) if h.is_closed() => return Err(Self::ended_because(h)),
                Ok(Err(e)) => break format!("server/discover failed: {e}"),
            }
        };
        if let EraMode::Pinned(p) = &mode {
            return Ok(Ok(Err(Error::Protocol(format!(
                "MCP protocol {p} is pinned (option mcp_protocol) but {why}"
            )))));
        }
        tracing::debug!("MCP: {why}; falling back to the initialize handshake");
        Ok(match h.request(INITIALIZE, self.init_params()) {
            Ok(rx) => rx.await,
            Err(e) => Ok(Err(e)),
        })
    }
}

/// Whether an error is the HTTP transport's answer of 401 or 403 (no fallback helps).
fn refused_access(e: &crate::error::RpcError) -> bool {
    let status = e.data.as_ref().and_then(|d| d.get("httpStatus"));
    matches!(status.and_then(Value::as_u64), Some(401 | 403))
}
