//! The connected server's Codex version and what it supports (see [`crate::version`]): the
//! app-server's rules learn it from each handshake.

use super::CodexClient;
use crate::error::{Error, Result};
use crate::rules::app_server::AppServerRules;
use crate::version::ServerVersion;

impl CodexClient {
    /// The connected app-server's Codex version, placed in the supported window (from its
    /// `initialize` result; after a reconnect, the new server's). `None` when not connected,
    /// or when the server is not a Codex app-server (an MCP server; the exec and
    /// codex-mcp-server transports, which answer for themselves).
    pub fn server_version(&self) -> Option<ServerVersion> {
        self.connection()
            .live_session()
            .ok()?
            .rules_of::<AppServerRules>()?
            .server_version()
    }

    /// Whether the connected app-server has client method `method`, by the window's method
    /// table ([`ServerVersion::supports`]): for a window version, exactly; for a server outside
    /// the window (or of an unknown version), whether some window version has it. A method of
    /// no window version: `false` (a request for it is still sent as-is).
    ///
    /// # Errors
    /// [`Error::NotConnected`]; [`Error::InvalidState`] when the server is not a Codex
    /// app-server (see [`server_version`](Self::server_version)).
    pub fn supports(&self, method: &str) -> Result<bool> {
        let session = self.connection().live_session()?;
        let version = session
            .rules_of::<AppServerRules>()
            .and_then(AppServerRules::server_version)
            .ok_or_else(|| {
                Error::InvalidState(
                    "supports() answers for a Codex app-server (stdio, websocket or unix \
                     transport); this connection is not one"
                        .into(),
                )
            })?;
        Ok(version.supports(method))
    }
}
