//! [`McpClient`]: the MCP view of one connection.

use ref_cast::RefCast;

use crate::connection::Client;
use crate::options::ClientOptions;

/// A client of any MCP server: tools, resources, prompts, completion, logging, tasks,
/// listen, elicitation, sampling and skills over MCP, on one connection ([`Client`]).
///
/// A cheap wrapper: it holds the connection and nothing else, so clones share it and a
/// binding can keep one [`Client`] and look at it as an `McpClient`
/// ([`McpClient::from_connection`]) or as a [`CodexClient`](crate::CodexClient). The
/// connection's own methods (connect, raw requests, handlers, events) are reached through
/// `Deref`.
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

impl McpClient {
    /// An MCP client on a new connection. Nothing is started until
    /// [`connect`](Client::connect).
    pub fn new(options: ClientOptions) -> McpClient {
        McpClient {
            conn: Client::new(options),
        }
    }

    /// The MCP view of `conn`, borrowed (no clone).
    pub fn from_connection(conn: &Client) -> &McpClient {
        McpClient::ref_cast(conn)
    }

    /// The connection this client speaks on.
    pub fn connection(&self) -> &Client {
        &self.conn
    }

    /// The connection, owned.
    pub fn into_connection(self) -> Client {
        self.conn
    }
}

impl From<Client> for McpClient {
    fn from(conn: Client) -> McpClient {
        McpClient { conn }
    }
}

impl From<McpClient> for Client {
    fn from(c: McpClient) -> Client {
        c.conn
    }
}

impl std::ops::Deref for McpClient {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.conn
    }
}
