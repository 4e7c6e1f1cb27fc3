//! MCP era negotiation at connect (option `mcp_protocol`): probe `server/discover` with the
//! `_meta` envelope of the newest stateless version; on a version the server refuses, retry
//! with one it lists; when the server does not know the probe (`auto`), the `initialize`
//! handshake as before — over stdio, a server that ends during the probe (exits, or closes
//! its stdout) is started again, once, for that handshake. A remembered verdict (option
//! `mcp_prior`) skips the probe. A stateless connection's requests all carry the envelope
//! (see `SessionShared::set_envelope`); its initialize result view is the discover result with
//! the chosen `protocolVersion` and `era: "stateless"`.

use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::oneshot;

use super::Client;
use crate::error::DisconnectInfo;
use crate::error::{Error, Result};
use crate::options::{Protocol, RequestOptions, TransportKind};
use crate::protocol::mcp::era::{self, Envelope, EraMode, Prior};
use crate::protocol::mcp::rules::McpRules;
use crate::session::Session;

type Outcome = std::result::Result<Result<Box<RawValue>>, oneshot::error::RecvError>;

/// What a connect starts with.
#[derive(Debug, Clone)]
pub(super) enum Opening {
    /// `initialize` (the app-server protocol; MCP in mode `legacy`, with a legacy verdict, or
    /// after a restart).
    Initialize,
    /// The `server/discover` probe.
    Probe,
    /// A remembered stateless verdict (option `mcp_prior`): nothing is sent.
    Adopt(Value),
}

/// What a connect's first step came to.
pub(super) enum Negotiated {
    /// The handshake's outcome.
    Done(Outcome),
    /// `auto` over stdio: the server ended during the probe (the reason); start it again
    /// and send `initialize`.
    Restart(String),
}

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

    /// What this client's connect starts with; `restarted`: the server was started again
    /// after it ended during the probe (the handshake only, no second probe).
    pub(super) fn opening(&self, restarted: bool) -> Opening {
        let Some(mode) = self.era_mode() else {
            return Opening::Initialize;
        };
        if restarted {
            return Opening::Initialize;
        }
        match &self.inner.options.mcp.prior {
            Some(Prior::Legacy) => Opening::Initialize,
            Some(Prior::Modern(d)) => Opening::Adopt(d.clone()),
            None if mode.first_probe().is_some() => Opening::Probe,
            None => Opening::Initialize,
        }
    }

    /// Whether a server that ended during the probe is started again for `initialize`: mode
    /// `auto` over stdio, and the server had been started (a spawn failure is not retried).
    fn restarts_after_probe(&self, session: &Session) -> bool {
        matches!(self.era_mode(), Some(EraMode::Auto))
            && matches!(self.inner.options.transport, TransportKind::McpStdio(_))
            && session.shared.link_opened()
    }

    /// Why the connection of `session` ended, in one line (its reason and the last line
    /// the server wrote to stderr).
    fn ended_because(session: &Session) -> String {
        let info = match session.shared.disconnect_error() {
            Error::Disconnected(i) | Error::ConnectionLost(i) => i,
            e => DisconnectInfo::new(e.to_string(), session.shared.stderr_tail()),
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

    /// The program of an MCP stdio server, for the log (never its arguments: they may hold
    /// secrets).
    pub(super) fn server_program(&self) -> String {
        match &self.inner.options.transport {
            TransportKind::McpStdio(c) => c.program.display().to_string(),
            other => other.describe(),
        }
    }

    /// The outcome of the `initialize` sent to a server started again after it ended during
    /// the probe: a failure says so (the server is not started a third time).
    pub(super) fn after_restart(session: &Session, outcome: Outcome, why: &str) -> Outcome {
        let e = match outcome {
            Ok(Ok(raw)) => return Ok(Ok(raw)),
            Ok(Err(e)) => e,
            Err(_) => session.shared.disconnect_error(),
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

    /// Turn the answer to the first request of the connect into the handshake's outcome:
    /// for a probe, the discover view (the session now carries the envelope), or — the
    /// server not speaking the stateless era and the mode `auto` — the answer to the
    /// `initialize` sent in its place.
    pub(super) async fn negotiate_era(
        &self,
        session: &Arc<Session>,
        first: super::First,
    ) -> Negotiated {
        let rx = match first {
            super::First::Sent(Opening::Probe, rx) => rx,
            super::First::Sent(_, rx) => return Negotiated::Done(rx.await),
            super::First::Adopt(discover) => {
                return Negotiated::Done(self.adopt(session, &discover).await)
            }
        };
        let Some((mode, first)) = self
            .era_mode()
            .cloned()
            .and_then(|m| Some((m.clone(), m.first_probe()?.to_owned())))
        else {
            return Negotiated::Done(rx.await);
        };
        match self.probe(session, rx, mode, first).await {
            Err(why) if self.restarts_after_probe(session) => Negotiated::Restart(why),
            Err(_) => Negotiated::Done(Ok(Err(session.shared.disconnect_error()))),
            Ok(outcome) => Negotiated::Done(outcome),
        }
    }

    /// A remembered stateless verdict: once the transport is open, the session carries the
    /// envelope and the view is the remembered discover result's; nothing is sent.
    async fn adopt(&self, session: &Arc<Session>, discover: &Value) -> Outcome {
        if let Err(e) = session.shared.wait_link_opened().await {
            return Ok(Err(e));
        }
        let version = match self.era_mode() {
            Some(EraMode::Pinned(p)) => Some(p.as_str()),
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
        set_envelope(session, self.envelope(version));
        let view = era::discover_view(discover, version);
        Ok(Ok(
            serde_json::value::to_raw_value(&view).expect("view serializes")
        ))
    }

    /// The probe and what follows it: `Err(why)` when the connection ended during it (the
    /// caller decides whether the server is started again).
    async fn probe(
        &self,
        session: &Arc<Session>,
        rx: oneshot::Receiver<Result<Box<RawValue>>>,
        mode: EraMode,
        first: String,
    ) -> std::result::Result<Outcome, String> {
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
                Err(_) => return Err(Self::ended_because(session)),
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
                            set_envelope(session, self.envelope(version));
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
                    let params = self.discover_params(Some(next)).expect("an MCP connection");
                    outcome = match session
                        .shared
                        .start_request(era::DISCOVER, &params, opts, true)
                    {
                        Ok(rx) => rx.await,
                        Err(_) if session.shared.is_closed() => {
                            return Err(Self::ended_because(session))
                        }
                        Err(e) => return Ok(Ok(Err(e))),
                    };
                }
                // Authorization failed (or was refused): `initialize` would meet the same
                // answer, and ask the user's browser step a second time.
                Ok(Err(Error::Rpc(e))) if refused_access(&e) => return Ok(Ok(Err(Error::Rpc(e)))),
                Ok(Err(_)) if session.shared.is_closed() => {
                    return Err(Self::ended_because(session))
                }
                Ok(Err(e)) => break format!("server/discover failed: {e}"),
            }
        };
        if let EraMode::Pinned(p) = &mode {
            return Ok(Ok(Err(Error::Protocol(format!(
                "MCP protocol {p} is pinned (option mcp_protocol) but {why}"
            )))));
        }
        tracing::debug!("MCP: {why}; falling back to the initialize handshake");
        let params = self.initialize_params();
        Ok(
            match session
                .shared
                .start_request("initialize", &params, opts, true)
            {
                Ok(rx) => rx.await,
                Err(e) => Ok(Err(e)),
            },
        )
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

/// From now on every request of `session` carries `envelope` (an MCP connection's rules keep
/// it; era negotiation runs on MCP connections only).
fn set_envelope(session: &Session, envelope: Envelope) {
    if let Some(mcp) = session.shared.rules_of::<McpRules>() {
        mcp.set_envelope(Some(envelope));
    }
}
