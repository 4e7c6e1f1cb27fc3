//! The MCP client's functions (the core's `codex_client::McpClient` on a connection): request
//! names and params (`request.rs`), subscription streams (`listen.rs`), skills over MCP
//! (`skills.rs`) and authorization's callbacks (`oauth.rs`). They take a `codex_client_t`
//! connected to an MCP server (or, for OAuth, an options object).

pub mod listen;
pub mod oauth;
pub mod request;
pub mod skills;
