//! The Codex client's functions (the core's `codex_client::CodexClient` on a connection):
//! threads (`thread.rs`), turns (`turn.rs`), approvals (`approval.rs`), logging in
//! (`account.rs`), the app-server helpers by name (`helper.rs`), skills of MCP servers for
//! its turns (`skill_source.rs`) and the server's version (`server_version.rs`). They take a
//! `codex_client_t` connected to a Codex server; nothing here imports `crate::mcp`.

// One group per line (rustfmt keeps the order, which the header follows).
// `thread/start`.
pub mod thread;
// `turn/start`, `turn/interrupt`, `turn/steer`, a turn run to its end.
pub mod turn;
// Approvals answered by their generic words.
pub mod approval;
// Logging in: `codex_login_t`.
pub mod account;
// The core's helpers by name.
pub mod helper;
// Skills of an MCP client for the turns.
pub mod skill_source;
// The server's version and what it supports.
pub mod server_version;
