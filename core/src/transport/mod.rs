//! Transports: how bytes reach a Codex server. Today: `codex app-server` over stdio.

pub(crate) mod binary;
pub(crate) mod lines;
pub(crate) mod process;
pub(crate) mod stderr;

pub use binary::resolve_codex_bin;
