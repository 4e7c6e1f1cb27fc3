//! MCP authorization (OAuth 2.1 for HTTP servers).

pub mod dpop;
pub mod grants;
