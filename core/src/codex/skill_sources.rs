//! The MCP servers a Codex client's turns take skills from, by label (see the skills
//! module's `mcp` file for how a turn loads one).

use crate::codex::CodexClient;
use crate::connection::Client;
use crate::error::{Error, Result};
use crate::skills::mcp::{is_mcp, valid_label};

impl CodexClient {
    /// Let this Codex client's turns use the skills of the MCP server `server` is connected
    /// to, under `label` (the name the program gives that server, as SEP-2640 asks: never the
    /// server's own `serverInfo.name`). A turn then selects one with
    /// [`Skill::Mcp`](crate::Skill::Mcp) (text `name@label`); it is loaded when the turn
    /// starts. The same label again replaces the server. Errors
    /// ([`Error::InvalidArgument`]): a label that is not 1–64 of `A-Z a-z 0-9 - _ .`, this
    /// client being an MCP client, or `server` not being one.
    pub fn add_skill_source(&self, label: &str, server: impl AsRef<Client>) -> Result<()> {
        let server = server.as_ref();
        if !valid_label(label) {
            return Err(Error::InvalidArgument(format!(
                "skill source label {label:?} must be 1-64 of A-Z a-z 0-9 - _ ."
            )));
        }
        if is_mcp(&self.options().transport) {
            return Err(Error::InvalidArgument(
                "skill sources belong to a Codex client (its turns use them); this client is an MCP client".into(),
            ));
        }
        if !is_mcp(&server.options().transport) {
            return Err(Error::InvalidArgument(format!(
                "skill source {label:?} must be an MCP client (transport McpStdio or McpHttp), not {}",
                server.options().transport.describe()
            )));
        }
        self.connection().skill_sources().with(|v| {
            v.retain(|(l, _)| l != label);
            v.push((label.to_owned(), server.clone()));
        });
        Ok(())
    }

    /// Forget the skill source `label`; whether there was one.
    pub fn remove_skill_source(&self, label: &str) -> bool {
        self.connection().skill_sources().with(|v| {
            let before = v.len();
            v.retain(|(l, _)| l != label);
            v.len() != before
        })
    }

    /// The labels of this client's skill sources, in the order they were added.
    pub fn skill_source_labels(&self) -> Vec<String> {
        self.connection()
            .skill_sources()
            .with(|v| v.iter().map(|(l, _)| l.clone()).collect())
    }
}
