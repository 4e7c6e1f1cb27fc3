//! URL-mode elicitation: waiting for the server's `notifications/elicitation/complete` after
//! a request failed with [`Error::UrlElicitationRequired`](crate::Error::UrlElicitationRequired).

use std::time::Duration;

use crate::error::{Error, Result};
use crate::mcp::McpClient;
use crate::rules::mcp::McpRules;

impl McpClient {
    /// Wait until the server sent `notifications/elicitation/complete` for every id in
    /// `ids` (completions that came earlier on this connection count), at most `timeout`;
    /// then send the request that failed with
    /// [`Error::UrlElicitationRequired`](crate::Error::UrlElicitationRequired) again. The
    /// notifications are delivered as events as well.
    ///
    /// ```no_run
    /// # async fn f(client: &codex_client::McpClient) -> codex_client::Result<()> {
    /// use codex_client::Error;
    /// use std::time::Duration;
    /// let result = match client.call_tool("connect", serde_json::json!({})).await {
    ///     Err(Error::UrlElicitationRequired(u)) => {
    ///         for url in u.urls() {
    ///             println!("open {url} to go on"); // after asking the user
    ///         }
    ///         client.wait_elicitations_complete(&u.ids(), Duration::from_secs(300)).await?;
    ///         client.call_tool("connect", serde_json::json!({})).await?
    ///     }
    ///     other => other?,
    /// };
    /// # let _ = result; Ok(()) }
    /// ```
    ///
    /// Errors: `Timeout` naming the ids still missing, `NotConnected`.
    pub async fn wait_elicitations_complete(
        &self,
        ids: &[String],
        timeout: Duration,
    ) -> Result<()> {
        self.spawn_elicitation_wait(ids, timeout)?
            .await
            .unwrap_or_else(|e| Err(ended(e)))
    }

    /// The wait on the library's runtime (its timer), whatever executor awaits it.
    fn spawn_elicitation_wait(
        &self,
        ids: &[String],
        timeout: Duration,
    ) -> Result<tokio::task::JoinHandle<Result<()>>> {
        let session = self.connection().live_session()?;
        let ids = ids.to_vec();
        crate::rt::spawn_anywhere(async move {
            match session.rules_of::<McpRules>() {
                Some(mcp) => mcp.elicitations.wait(&ids, timeout).await,
                None => Err(Error::InvalidArgument(
                    "URL elicitations are MCP's: this connection speaks another protocol".into(),
                )),
            }
        })
    }

    /// Blocking form of [`wait_elicitations_complete`](Self::wait_elicitations_complete).
    pub fn wait_elicitations_complete_blocking(
        &self,
        ids: &[String],
        timeout: Duration,
    ) -> Result<()> {
        // A wait for the server's notifications, not a reply: no spin.
        crate::delivery::block_on(self.wait_elicitations_complete(ids, timeout), None)
    }
}

fn ended(e: tokio::task::JoinError) -> crate::error::Error {
    crate::error::Error::InvalidState(format!("the wait for elicitations ended: {e}"))
}
