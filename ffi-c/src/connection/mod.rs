//! The connection, for either kind of server: a client's handle and lifecycle
//! (`client.rs`), requests by method name (`call.rs`), delivery by callbacks
//! (`callback.rs`) or polling (`poll.rs`), events (`event.rs`), the server's requests
//! (`server_request.rs`) and their answers (`respond.rs`). Protocol-neutral, like the core's
//! `codex_client::Client` it adapts; it imports neither `crate::codex` nor `crate::mcp`.

pub mod call;
pub mod callback;
pub mod client;
pub mod event;
pub mod poll;
pub mod respond;
pub mod server_request;
