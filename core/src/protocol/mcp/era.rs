//! The two eras of MCP: the `initialize` handshake (2025-11-25 and earlier) and the stateless
//! revision 2026-07-28, found with `server/discover`, where every request carries the client's
//! version, info and capabilities in its `_meta` envelope.

use serde_json::{json, Map, Value};

/// The stateless protocol versions this client speaks (newest first).
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// `_meta` key: the request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's `Implementation` (name, version, …).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the client's capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the log level the client asks the server to send records at.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key (results): the server's `Implementation`.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The JSON-RPC error of a request whose protocol version the server does not speak.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The discovery request of the stateless era.
pub const DISCOVER: &str = "server/discover";

/// How a connection picks its era (option `mcp_protocol`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EraMode {
    /// Probe `server/discover`; when the server does not know it, the `initialize` handshake
    /// (as the official SDKs do).
    #[default]
    Auto,
    /// The `initialize` handshake only.
    Legacy,
    /// This stateless version only (no fallback).
    Pinned(String),
}

impl EraMode {
    /// The option's words: `auto`, `legacy`, or one of [`MODERN_VERSIONS`].
    pub fn parse(s: &str) -> Option<EraMode> {
        match s {
            "auto" => Some(EraMode::Auto),
            "legacy" => Some(EraMode::Legacy),
            v if MODERN_VERSIONS.contains(&v) => Some(EraMode::Pinned(v.to_owned())),
            _ => None,
        }
    }

    /// The option's word for this mode.
    pub fn word(&self) -> &str {
        match self {
            EraMode::Auto => "auto",
            EraMode::Legacy => "legacy",
            EraMode::Pinned(v) => v,
        }
    }

    /// The version the first `server/discover` offers (`None`: no probe, handshake only).
    pub fn first_probe(&self) -> Option<&str> {
        match self {
            EraMode::Auto => Some(MODERN_VERSIONS[0]),
            EraMode::Legacy => None,
            EraMode::Pinned(v) => Some(v),
        }
    }
}

/// A remembered era verdict: what a connection negotiated
/// ([`InitializeResult::mcp_prior`](crate::InitializeResult::mcp_prior)), given back to a
/// later connect to the same command or URL (option `mcp_prior`) so that it skips the
/// `server/discover` probe — the TypeScript SDK's `connect({ prior })` (`PriorDiscovery`),
/// the Python SDK's `prior_discover`. As JSON: `{"kind": "legacy"}` or
/// `{"kind": "modern", "discover": <the server/discover result>}`.
///
/// Keeping it fresh is the program's job: a stale `Modern` fails at the first request (the
/// server no longer speaks the stateless era), a stale `Legacy` goes on working in the
/// handshake era even after the server learned the stateless one.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Prior {
    /// The server speaks the handshake era: connect sends `initialize` without a probe.
    Legacy,
    /// The server speaks the stateless era: connect adopts this `server/discover` result
    /// (its `supportedVersions`, `capabilities`, `serverInfo`, `instructions`) and sends
    /// nothing.
    Modern(Value),
}

impl Prior {
    /// Read the JSON form (see [`Prior`]); the message says what is wrong.
    pub fn from_json(v: &Value) -> Result<Prior, String> {
        let obj = v.as_object().ok_or(
            "a JSON object {\"kind\": \"legacy\"} or {\"kind\": \"modern\", \"discover\": {...}}",
        )?;
        match obj.get("kind").and_then(Value::as_str) {
            Some("legacy") => Ok(Prior::Legacy),
            Some("modern") => {
                let d = obj.get("discover").filter(|d| d.is_object()).ok_or(
                    "kind \"modern\" needs \"discover\": the server/discover result (an object)",
                )?;
                if pick_version(&d["supportedVersions"]).is_none() {
                    return Err(format!(
                        "its discover result's supportedVersions {} has none this client speaks ({})",
                        d["supportedVersions"],
                        MODERN_VERSIONS.join(", ")
                    ));
                }
                if d.get("capabilities").is_some_and(|c| !c.is_object()) {
                    return Err("its discover result's capabilities is not an object".into());
                }
                Ok(Prior::Modern(d.clone()))
            }
            _ => Err("\"kind\" must be \"legacy\" or \"modern\"".into()),
        }
    }

    /// The JSON form: `{"kind": "legacy"}` or `{"kind": "modern", "discover": {...}}`.
    pub fn to_json(&self) -> Value {
        match self {
            Prior::Legacy => json!({"kind": "legacy"}),
            Prior::Modern(d) => json!({"kind": "modern", "discover": d}),
        }
    }

    /// The stateless version a `Modern` verdict connects with (the newest of its
    /// `supportedVersions` this client speaks); `None` for `Legacy`.
    pub fn version(&self) -> Option<&'static str> {
        match self {
            Prior::Legacy => None,
            Prior::Modern(d) => pick_version(&d["supportedVersions"]),
        }
    }

    /// The verdict an initialize result view records (see [`discover_view`]): `Modern` with
    /// the discover result (the view without the members it added) for the stateless era,
    /// else `Legacy`.
    pub fn of_view(view: &Value) -> Prior {
        if view.get("era").and_then(Value::as_str) != Some("stateless") {
            return Prior::Legacy;
        }
        let mut d = view.as_object().cloned().unwrap_or_default();
        d.remove("era");
        d.remove("protocolVersion");
        Prior::Modern(Value::Object(d))
    }
}

/// Whether the options `mcp_protocol` (`mode`) and `mcp_prior` (`prior`) agree: a `legacy`
/// mode takes only a `Legacy` verdict, a pinned version only a `Modern` one that lists it.
pub fn check_prior(mode: &EraMode, prior: Option<&Prior>) -> Result<(), String> {
    match (mode, prior) {
        (_, None) | (EraMode::Auto, _) | (EraMode::Legacy, Some(Prior::Legacy)) => Ok(()),
        (EraMode::Legacy, Some(Prior::Modern(_))) => Err(
            "option `mcp_prior` is a stateless (2026-07-28) server's but option `mcp_protocol` is \"legacy\""
                .into(),
        ),
        (EraMode::Pinned(p), Some(Prior::Legacy)) => Err(format!(
            "option `mcp_prior` is a handshake-era server's but option `mcp_protocol` pins {p}"
        )),
        (EraMode::Pinned(p), Some(Prior::Modern(d))) => {
            let listed = d["supportedVersions"]
                .as_array()
                .is_some_and(|l| l.iter().any(|v| v.as_str() == Some(p)));
            if listed {
                Ok(())
            } else {
                Err(format!(
                    "option `mcp_prior`'s supportedVersions {} does not list {p}, which option `mcp_protocol` pins",
                    d["supportedVersions"]
                ))
            }
        }
    }
}

/// What every request of the stateless era carries in `params._meta`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Envelope {
    /// The `_meta` members, by key.
    pub meta: Map<String, Value>,
}

impl Envelope {
    /// The envelope of `version` with the client's info and capabilities.
    pub fn new(version: &str, client_info: &Value, capabilities: &Value) -> Envelope {
        let mut meta = Map::new();
        meta.insert(META_PROTOCOL_VERSION.into(), version.into());
        meta.insert(META_CLIENT_INFO.into(), client_info.clone());
        meta.insert(META_CLIENT_CAPABILITIES.into(), capabilities.clone());
        Envelope { meta }
    }

    /// The protocol version the envelope carries.
    pub fn version(&self) -> &str {
        self.meta
            .get(META_PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Put the envelope into `params._meta` (params `null` becomes an object); the caller's own
    /// `_meta` members stay, the envelope's keys win. A params that is not an object is left
    /// alone.
    pub fn apply(&self, params: &mut Value) {
        if params.is_null() {
            *params = json!({});
        }
        let Some(obj) = params.as_object_mut() else {
            return;
        };
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        if !meta.is_object() {
            *meta = json!({});
        }
        let meta = meta.as_object_mut().expect("an object");
        for (k, v) in &self.meta {
            meta.insert(k.clone(), v.clone());
        }
    }
}

/// The version to use from a server's `supportedVersions` (or the `supported` of an
/// unsupported-version error): the newest one this client speaks.
pub fn pick_version(supported: &Value) -> Option<&'static str> {
    let list = supported.as_array()?;
    MODERN_VERSIONS
        .iter()
        .find(|v| list.iter().any(|s| s.as_str() == Some(v)))
        .copied()
}

/// The view of a `server/discover` result as the initialize result every binding shows:
/// `protocolVersion` (the version chosen), `capabilities`, `serverInfo`, `instructions`,
/// `supportedVersions`, and `era` (`"stateless"`).
pub fn discover_view(result: &Value, version: &str) -> Value {
    let mut view = result.as_object().cloned().unwrap_or_default();
    view.insert("protocolVersion".into(), version.into());
    view.insert("era".into(), "stateless".into());
    if !view.contains_key("serverInfo") {
        if let Some(info) =
            result.pointer(&format!("/_meta/{}", META_SERVER_INFO.replace('/', "~1")))
        {
            view.insert("serverInfo".into(), info.clone());
        }
    }
    Value::Object(view)
}

/// `resultType` of a result: `complete` when absent (the spec's default).
pub fn result_type(result: &Value) -> &str {
    result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or("complete")
}

/// Which era an MCP connection speaks, from its initialize result view.
pub(crate) fn era_of(raw: &Value) -> &'static str {
    match raw.get("era").and_then(Value::as_str) {
        Some("stateless") => "stateless",
        _ => "handshake",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_name_themselves() {
        assert_eq!(EraMode::parse("auto"), Some(EraMode::Auto));
        assert_eq!(EraMode::parse("legacy"), Some(EraMode::Legacy));
        let p = EraMode::parse("2026-07-28").unwrap();
        assert_eq!(p.word(), "2026-07-28");
        assert_eq!(p.first_probe(), Some("2026-07-28"));
        assert_eq!(EraMode::Legacy.first_probe(), None);
        assert_eq!(EraMode::parse("2025-11-25"), None);
    }

    #[test]
    fn envelope_merges_into_meta_and_keeps_the_callers_keys() {
        let e = Envelope::new(
            "2026-07-28",
            &json!({"name": "c", "version": "1"}),
            &json!({}),
        );
        let mut p = json!({"name": "t", "_meta": {"progressToken": "x"}});
        e.apply(&mut p);
        assert_eq!(p["_meta"]["progressToken"], "x");
        assert_eq!(p["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(p["_meta"][META_CLIENT_INFO]["name"], "c");
        assert_eq!(p["_meta"][META_CLIENT_CAPABILITIES], json!({}));
        let mut n = Value::Null;
        e.apply(&mut n);
        assert_eq!(n["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
    }

    #[test]
    fn prior_round_trips_and_agrees_with_the_mode() {
        let d = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}});
        let modern = Prior::from_json(&json!({"kind": "modern", "discover": d})).unwrap();
        assert_eq!(modern.version(), Some("2026-07-28"));
        assert_eq!(Prior::from_json(&modern.to_json()).unwrap(), modern);
        let view = discover_view(&d, "2026-07-28");
        assert_eq!(
            Prior::of_view(&view),
            modern,
            "the view without era and protocolVersion"
        );
        assert_eq!(
            Prior::of_view(&json!({"protocolVersion": "2025-11-25"})),
            Prior::Legacy
        );
        assert_eq!(
            Prior::from_json(&json!({"kind": "legacy"})).unwrap(),
            Prior::Legacy
        );
        for bad in [
            json!("legacy"),
            json!({"kind": "modern"}),
            json!({"kind": "modern", "discover": {"supportedVersions": ["2099-01-01"]}}),
            json!({"kind": "modern", "discover": {"supportedVersions": ["2026-07-28"], "capabilities": 1}}),
            json!({"kind": "other"}),
        ] {
            assert!(Prior::from_json(&bad).is_err(), "{bad}");
        }
        let pin = EraMode::parse("2026-07-28").unwrap();
        assert!(check_prior(&EraMode::Auto, Some(&modern)).is_ok());
        assert!(check_prior(&EraMode::Auto, Some(&Prior::Legacy)).is_ok());
        assert!(check_prior(&EraMode::Legacy, Some(&Prior::Legacy)).is_ok());
        assert!(check_prior(&EraMode::Legacy, Some(&modern)).is_err());
        assert!(check_prior(&pin, Some(&modern)).is_ok());
        assert!(check_prior(&pin, Some(&Prior::Legacy)).is_err());
        assert!(check_prior(&pin, None).is_ok());
    }

    #[test]
    fn version_pick_and_result_type() {
        assert_eq!(
            pick_version(&json!(["2026-07-28", "2099-01-01"])),
            Some("2026-07-28")
        );
        assert_eq!(pick_version(&json!(["2099-01-01"])), None);
        assert_eq!(result_type(&json!({})), "complete");
        assert_eq!(
            result_type(&json!({"resultType": "input_required"})),
            "input_required"
        );
        let v = discover_view(
            &json!({"supportedVersions": ["2026-07-28"], "capabilities": {}, "_meta": {META_SERVER_INFO: {"name": "s"}}}),
            "2026-07-28",
        );
        assert_eq!(v["serverInfo"]["name"], "s");
        assert_eq!(v["protocolVersion"], "2026-07-28");
    }
}
