//! The seam between the engine below the two clients (`session/`, `connection/`, `delivery/`)
//! and the protocol a connection speaks. The engine asks a connection's [`Rules`] wherever the
//! two protocols differ, so that it names neither: [`AppServerRules`](super::app_server::AppServerRules)
//! (the Codex app-server's JSON-RPC v2, and the exec and `codex mcp-server` shims, which
//! present its semantics) and [`McpRules`](super::mcp::rules::McpRules) implement it, each
//! with its per-connection state. `options::Protocol::rules` makes a connection's rules from
//! its options.
//!
//! What a protocol brings here: the line format (`"jsonrpc"` member), whether an overload error
//! is retried, how the server hears of a cancelled request, the handshake's result check and
//! its `initialized` notification (first connect and every reconnect), whether a reconnect
//! rejoins threads, the reader's bookkeeping of notifications, the server requests it answers
//! itself, the progress tokens that restart a request's timeout, and the checks of a result.
//! It also brings what a request carries and what comes back: params as sent (MCP 2026-07-28:
//! the `_meta` envelope), whether the handshake was its own (a stateless era), results kept
//! and served again (the MCP cache) and results that ask for input first.
//! What it does not bring yet (still in the engine, listed in `core/tests/protocol_seam.rs`):
//! the MCP era negotiation, input-required rounds, the MCP log level, the Codex version window
//! and rejoin.

use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;

use crate::error::Result;
use crate::message::RequestId;

/// What a connection lets its protocol's rules do while its reader handles a line.
pub(crate) trait Link {
    /// The server withdrew or resolved its own request `id`: no answer goes out for it.
    fn request_withdrawn(&self, id: &RequestId);
    /// A progress update for the client's request that carries `token`: it restarts that
    /// request's timeout (and reaches a call waiting for its progress).
    fn request_progressed(&self, token: &str);
}

/// Where a notification goes after the rules' bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// To its turn stream, or to every subscription and the client's delivery.
    Deliver,
    /// Only to the call it belongs to (already handed over by the rules): subscriptions get
    /// it, the client's own delivery does not.
    CallOnly,
}

/// One protocol's rules on one connection (its state included).
pub(crate) trait Rules: Send + Sync + 'static {
    /// Whether every line carries `"jsonrpc":"2.0"`.
    fn jsonrpc_member(&self) -> bool;
    /// Whether an overload error (-32001) is retried (option `retry_*`).
    fn retries_overload(&self) -> bool;
    /// The notification (method and params) that tells the server the client gave up on its
    /// request `id` for `reason`; `None`: the protocol has none.
    fn cancelled(&self, id: i64, reason: &str) -> Option<(&'static str, Box<RawValue>)>;
    /// Check the handshake's result (first connect and every reconnect).
    fn check_handshake(&self, result: &Value) -> Result<()>;
    /// The notification that ends the handshake.
    fn initialized_method(&self) -> &'static str;
    /// Whether a reconnect rejoins the loaded threads and running turns.
    fn rejoins_threads(&self) -> bool;
    /// The library's bookkeeping of a notification from the server, before it is delivered.
    fn notified(&self, method: &str, params: &RawValue, link: &dyn Link) -> Route;
    /// The result of a server request the library answers itself, or `None`: it is
    /// delivered. `handled`: whether a handler of the client takes it (the reader passes
    /// false: what the protocol answers on the wire, it answers before any handler).
    fn answers_itself(&self, method: &str, handled: bool) -> Option<Value>;
    /// A token in a request's params whose progress updates restart its timeout.
    fn progress_token(&self, params: &RawValue) -> Option<String>;
    /// Check (and take note of) a result of a request sent raw.
    fn check_result(&self, method: &str, params: &RawValue, result: &RawValue) -> Result<()>;
    /// The params of a request as sent, when the protocol adds to them (MCP 2026-07-28: the
    /// `_meta` envelope); `None`: as given.
    fn params_to_send(&self, _params: &RawValue) -> Result<Option<Box<RawValue>>> {
        Ok(None)
    }
    /// Whether the connection's handshake was the protocol's own instead of `initialize` (a
    /// stateless era): its result is not checked as an `initialize` result, and no
    /// `initialized` follows.
    fn stateless(&self) -> bool {
        false
    }
    /// A fresh result kept for this request (served without sending it), if any.
    fn cached(&self, _method: &str, _params: &RawValue) -> Option<Box<RawValue>> {
        None
    }
    /// Keep a result for later requests, as its hints allow.
    fn keep(&self, _method: &str, _params: &RawValue, _result: &RawValue) {}
    /// A result that asks for input before the final one (parsed), or `None`: it is final.
    fn input_required(&self, _raw: &RawValue) -> Option<Value> {
        None
    }
    /// These rules as `Any`: a client reaches its own protocol's state through
    /// `SessionShared::rules_of`.
    fn as_any(&self) -> &dyn Any;
}
