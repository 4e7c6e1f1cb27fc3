//! The handshake of either protocol: the result the server answers ([`InitializeResult`],
//! with the accessors of both protocols' fields) and the client's info it is sent. Each
//! protocol's rules build their own `initialize` params (`app_server`, `mcp`).

use serde_json::{Map, Value};

use crate::options::ClientOptions;
use crate::protocol::mcp::era::Prior;
use crate::version::{user_agent_version, ServerVersion};

/// What the server said in answer to `initialize` (for an MCP server: `raw` holds its
/// `protocolVersion`, `capabilities`, `serverInfo` and `instructions`; see the accessors).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InitializeResult {
    /// The server's user agent string (includes the Codex version).
    pub user_agent: Option<String>,
    /// The `CODEX_HOME` the server uses.
    pub codex_home: Option<String>,
    /// Platform family, for example `unix`.
    pub platform_family: Option<String>,
    /// Operating system, for example `linux`.
    pub platform_os: Option<String>,
    /// The whole result object, including fields this version does not know.
    pub raw: Value,
}

impl InitializeResult {
    /// The Codex version the app-server reports in its user agent (`0.171.0`), if any.
    pub fn codex_version(&self) -> Option<&str> {
        self.user_agent.as_deref().and_then(user_agent_version)
    }
    /// [`codex_version`](Self::codex_version) placed in the supported window.
    pub fn server_version(&self) -> ServerVersion {
        ServerVersion::of(self.codex_version())
    }
    /// MCP: the protocol version the server chose.
    pub fn protocol_version(&self) -> Option<&str> {
        self.raw.get("protocolVersion").and_then(Value::as_str)
    }
    /// MCP: the era the connection speaks: `"stateless"` (2026-07-28, found with
    /// `server/discover`; every request carries the `_meta` envelope) or `"handshake"` (the
    /// `initialize` handshake of 2025-11-25 and earlier). See [`protocol_version`](Self::protocol_version)
    /// for the version within it.
    pub fn mcp_era(&self) -> &'static str {
        crate::protocol::mcp::era::era_of(&self.raw)
    }
    /// MCP: the era this connection negotiated, to keep and give back to a later connect to
    /// the same server (option `mcp_prior`, [`ClientOptions::mcp_prior`](crate::ClientOptions::mcp_prior))
    /// so that it skips the `server/discover` probe: [`Prior::Legacy`] after the `initialize`
    /// handshake, [`Prior::Modern`] with the `server/discover` result in the stateless era.
    /// `None` for a Codex server.
    pub fn mcp_prior(&self) -> Option<Prior> {
        self.protocol_version()?;
        Some(Prior::of_view(&self.raw))
    }
    /// MCP: the server's capabilities (`tools`, `resources`, `prompts`, `logging`, …).
    pub fn capabilities(&self) -> Option<&Value> {
        self.raw.get("capabilities")
    }
    /// MCP: the server's capabilities, typed (`None` when absent or malformed).
    pub fn mcp_capabilities(&self) -> Option<crate::protocol::mcp::ServerCapabilities> {
        serde_json::from_value(self.capabilities()?.clone()).ok()
    }
    /// MCP: the server's `serverInfo` (`name`, `version`, …).
    pub fn server_info(&self) -> Option<&Value> {
        self.raw.get("serverInfo")
    }
    /// MCP: the server's `serverInfo`, typed (with its `icons`, `websiteUrl`; `None` when
    /// absent or malformed).
    pub fn mcp_server_info(&self) -> Option<crate::protocol::mcp::Implementation> {
        serde_json::from_value(self.server_info()?.clone()).ok()
    }
    /// MCP: the server's usage instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.raw.get("instructions").and_then(Value::as_str)
    }

    pub(crate) fn from_value(raw: Value) -> Self {
        let s = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_owned);
        InitializeResult {
            user_agent: s("userAgent"),
            codex_home: s("codexHome"),
            platform_family: s("platformFamily"),
            platform_os: s("platformOs"),
            raw,
        }
    }
}

/// The client's `clientInfo` in the handshake (`name`, `title`, `version`), from `opts`.
pub(crate) fn client_info(opts: &ClientOptions) -> Map<String, Value> {
    let mut info = Map::new();
    info.insert("name".into(), opts.client_name.clone().into());
    if let Some(t) = &opts.client_title {
        info.insert("title".into(), t.clone().into());
    }
    info.insert("version".into(), opts.client_version.clone().into());
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::check_server_version;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tracing_subscriber::layer::SubscriberExt;

    struct CountWarnings(Arc<AtomicUsize>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for CountWarnings {
        fn on_event(&self, e: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
            if *e.metadata().level() == tracing::Level::WARN {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn warnings(user_agent: Option<&str>) -> usize {
        warnings_with_cli(user_agent, None)
    }

    fn warnings_with_cli(user_agent: Option<&str>, cli: Option<&str>) -> usize {
        let n = Arc::new(AtomicUsize::new(0));
        let subscriber = tracing_subscriber::registry().with(CountWarnings(n.clone()));
        tracing::subscriber::with_default(subscriber, || {
            let source = cli.map(|_| crate::version::VersionSource::ControlSocket);
            check_server_version(user_agent, source, cli.map(str::to_owned));
        });
        n.load(Ordering::Relaxed)
    }

    #[test]
    fn one_warning_when_the_daemon_is_another_version_than_the_cli() {
        let (old, new) = (crate::version::oldest(), crate::version::newest());
        let ua = format!("codex-client/{old} (Debian 12.0.0; x86_64) xterm (tests; 0)");
        assert_eq!(warnings_with_cli(Some(&ua), Some(old)), 0);
        assert_eq!(warnings_with_cli(Some(&ua), Some(new)), 1);
        // An unknown CLI version compares with nothing.
        assert_eq!(warnings_with_cli(Some(&ua), None), 0);
        let v = check_server_version(Some(&ua), None, Some(new.into()));
        assert!(v.differs_from_cli());
        let m = v.cli_mismatch().unwrap();
        assert!(
            m.contains(old) && m.contains(new) && m.contains("daemon update"),
            "{m}"
        );
        assert_eq!(v.to_json()["cli_version"], new);
    }

    #[test]
    fn one_warning_when_the_server_is_outside_the_window() {
        for v in crate::protocol::CODEX_WINDOW {
            let ua = format!("codex_cli_rs/{v} (Debian 12.0.0; x86_64) xterm (tests; 0)");
            assert_eq!(user_agent_version(&ua), Some(*v));
            assert_eq!(warnings(Some(&ua)), 0, "{v}");
            assert_eq!(
                check_server_version(Some(&ua), None, None).matches,
                Some(*v)
            );
        }
        assert_eq!(warnings(Some("codex_cli_rs/0.92.0 (Linux)")), 1);
        assert_eq!(warnings(Some("codex_cli_rs/9.0.0 (Linux)")), 1);
        assert_eq!(warnings(Some("fake/0.0.0")), 1);
        assert_eq!(warnings(None), 1);
        assert_eq!(user_agent_version("noslash"), None);
    }
}
