//! The MCP client's functions (the core's `codex_client::McpClient` on a connection): request
//! names and params (`request.rs`), subscription streams (`listen.rs`), skills over MCP
//! (`skills.rs`), authorization's callbacks (`oauth.rs`, options setters) and the negotiated era
//! for option `mcp_prior` (`prior.rs`). They take a
//! `codex_client_t` connected to an MCP server (or, for OAuth, an options object); nothing
//! here imports `crate::codex`.

// One group per line (rustfmt keeps the order, which the header follows).
// Request names and params.
pub mod request;
// `subscriptions/listen`: `codex_mcp_listen_t`.
pub mod listen;
// Skills over MCP.
pub mod skills;
// Authorization (OAuth 2.1) callbacks.
pub mod oauth;
// The negotiated era, for option `mcp_prior`.
pub mod prior;
