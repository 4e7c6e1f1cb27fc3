//! The Codex client: the app-server protocol (threads, turns, approvals, account and login,
//! the app-server helpers, typed app-server calls, skills in turns) on a protocol-neutral
//! connection ([`Client`](crate::Client)).

pub mod account;
mod client;
mod server_version;
mod skill_sources;
pub(crate) mod thread;
pub(crate) mod thread_ref;
pub(crate) mod turn;
pub(crate) mod typed;

pub use client::CodexClient;
