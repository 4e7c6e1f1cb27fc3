//! The Codex client's functions (the core's `codex_client::CodexClient` on a connection):
//! threads (`thread.rs`), turns (`turn.rs`), approvals (`approval.rs`), logging in
//! (`account.rs`), the app-server helpers by name (`helper.rs`), skills of MCP servers for
//! its turns (`skill_source.rs`) and the server's version (`server_version.rs`). They take a
//! `codex_client_t` connected to a Codex server.

pub mod account;
pub mod approval;
pub mod helper;
pub mod server_version;
pub mod skill_source;
pub mod thread;
pub mod turn;
