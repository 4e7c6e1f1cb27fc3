//! Transports: how messages reach a Codex server: `codex app-server` over stdio, over
//! WebSocket (TCP) and over its unix control socket.

pub(crate) mod binary;
pub(crate) mod io;
pub(crate) mod lines;
pub(crate) mod process;
pub(crate) mod stderr;
pub(crate) mod ws;

pub use binary::resolve_codex_bin;
