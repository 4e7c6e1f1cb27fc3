//! [`CodexClient`]: the Codex view of one connection.

use ref_cast::RefCast;

use crate::connection::Client;

/// A client of a Codex app-server: threads, turns, approvals, account and login, the
/// app-server helpers and typed app-server calls, on one connection ([`Client`]).
///
/// A cheap wrapper: it holds the connection and nothing else, so clones share it and a
/// binding can keep one [`Client`] and look at it as a `CodexClient`
/// ([`CodexClient::from_connection`]) or as an [`McpClient`](crate::McpClient). The
/// connection's own methods (connect, raw requests, handlers, events) are forwarded one by
/// one; MCP's are not here (`codex.list_tools()` does not compile):
///
/// ```compile_fail
/// # use codex_client::{ClientOptions, CodexClient};
/// let codex = CodexClient::new(ClientOptions::default());
/// let _ = codex.list_tools();
/// ```
///
/// Nor are the Codex methods on the connection, [`Client`] (its deprecated forwards were
/// removed before 0.2.0 shipped; `core/tests/clients_split.rs` checks every name): take the
/// Codex view of it, [`CodexClient::from_connection`].
///
/// ```compile_fail
/// # use codex_client::{Client, ClientOptions};
/// let client = Client::new(ClientOptions::default());
/// let _ = client.thread_start(serde_json::json!({}));
/// ```
///
/// ```no_run
/// # use codex_client::{Client, ClientOptions, CodexClient};
/// let client = Client::new(ClientOptions::default());
/// let _thread_start = CodexClient::from_connection(&client).thread_start(serde_json::json!({}));
/// ```
///
/// ```no_run
/// use codex_client::{ClientOptions, CodexClient};
/// let codex = CodexClient::new(ClientOptions::default().codex_home("/tmp/codex-home"));
/// codex.connect().unwrap();
/// let thread = codex.thread_start(serde_json::json!({})).unwrap();
/// println!("{}", thread.id());
/// codex.disconnect();
/// ```
#[derive(Clone, RefCast)]
#[repr(transparent)]
pub struct CodexClient {
    conn: Client,
}

crate::connection::protocol_view!(CodexClient, "a Codex client");

impl CodexClient {
    crate::connection::forward! {
        fn turn_streams_keep_requests(&self, on: bool);
    }
}
