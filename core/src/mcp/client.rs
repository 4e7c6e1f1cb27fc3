//! [`McpClient`]: the MCP view of one connection.

use ref_cast::RefCast;

use crate::connection::Client;

/// A client of any MCP server: tools, resources, prompts, completion, logging, tasks,
/// listen, elicitation, sampling and skills over MCP, on one connection ([`Client`]).
///
/// A cheap wrapper: it holds the connection and nothing else, so clones share it and a
/// binding can keep one [`Client`] and look at it as an `McpClient`
/// ([`McpClient::from_connection`]) or as a [`CodexClient`](crate::CodexClient). The
/// connection's own methods (connect, raw requests, handlers, events) are forwarded one by
/// one; Codex's are not here (`mcp.thread_start(..)` does not compile):
///
/// ```compile_fail
/// # use codex_client::{ClientOptions, McpClient};
/// let mcp = McpClient::new(ClientOptions::default());
/// let _ = mcp.thread_start(serde_json::json!({}));
/// ```
///
/// Nor are the MCP methods on the connection, [`Client`] (its deprecated forwards were
/// removed before 0.2.0 shipped; `core/tests/clients_split.rs` checks every name): take the
/// MCP view of it, [`McpClient::from_connection`].
///
/// ```compile_fail
/// # use codex_client::{Client, ClientOptions};
/// let client = Client::new(ClientOptions::default());
/// let _ = client.list_tools(None);
/// ```
///
/// ```no_run
/// # use codex_client::{Client, ClientOptions, McpClient};
/// let client = Client::new(ClientOptions::default());
/// let _list_tools = McpClient::from_connection(&client).list_tools(None);
/// ```
///
/// ```no_run
/// # async fn f() -> codex_client::Result<()> {
/// use codex_client::{ClientOptions, McpClient, McpCommand, TransportKind};
/// let opts = ClientOptions::default()
///     .transport(TransportKind::McpStdio(McpCommand::new("my-mcp-server")));
/// let mcp = McpClient::new(opts);
/// mcp.connect_async().await?;
/// for tool in mcp.list_all_tools().await? {
///     println!("{}", tool.name);
/// }
/// mcp.disconnect_async().await;
/// # Ok(()) }
/// ```
#[derive(Clone, RefCast)]
#[repr(transparent)]
pub struct McpClient {
    conn: Client,
}

crate::connection::protocol_view!(McpClient, "an MCP client");
