//! The connection, for either kind of server: a client's handle and lifecycle
//! (`client.rs`), delivery by callbacks (`callback.rs`) or polling (`poll.rs`), requests by
//! method name (`call.rs`), events (`event.rs`), the server's requests
//! (`server_request.rs`) and their answers (`respond.rs`; by reference, from another process:
//! `by_ref.rs`). Protocol-neutral, like the core's
//! `codex_client::Client` it adapts; it imports neither `crate::codex` nor `crate::mcp`.

// One group per line (rustfmt keeps the order, which the header follows).
// A client's handle: new, free, connect, disconnect, state.
pub mod client;
// Callbacks mode.
pub mod callback;
// Poll mode.
pub mod poll;
// Requests by method name.
pub mod call;
// Events and their accessors.
pub mod event;
// Server requests.
pub mod server_request;
// Their answers.
pub mod respond;
// Answers by reference, from another process (issue 40).
pub mod by_ref;
