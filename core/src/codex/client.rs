//! [`CodexClient`]: the Codex view of one connection.

use ref_cast::RefCast;

use crate::connection::Client;
use crate::options::ClientOptions;

/// A client of a Codex app-server: threads, turns, approvals, account and login, the
/// app-server helpers and typed app-server calls, on one connection ([`Client`]).
///
/// A cheap wrapper: it holds the connection and nothing else, so clones share it and a
/// binding can keep one [`Client`] and look at it as a `CodexClient`
/// ([`CodexClient::from_connection`]) or as an [`McpClient`](crate::McpClient). The
/// connection's own methods (connect, raw requests, handlers, events) are reached through
/// `Deref`.
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

impl CodexClient {
    /// A Codex client on a new connection. Nothing is started until
    /// [`connect`](Client::connect).
    pub fn new(options: ClientOptions) -> CodexClient {
        CodexClient {
            conn: Client::new(options),
        }
    }

    /// The Codex view of `conn`, borrowed (no clone).
    pub fn from_connection(conn: &Client) -> &CodexClient {
        CodexClient::ref_cast(conn)
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

impl From<Client> for CodexClient {
    fn from(conn: Client) -> CodexClient {
        CodexClient { conn }
    }
}

impl From<CodexClient> for Client {
    fn from(c: CodexClient) -> Client {
        c.conn
    }
}

impl std::ops::Deref for CodexClient {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.conn
    }
}
