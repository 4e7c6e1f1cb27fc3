//! Skills from MCP servers in a Codex turn: the MCP clients a Codex client may take skills
//! from, each under a label the program chooses ([`Client::add_skill_source`]); a turn's
//! selector `name@label` (or `skill://…/SKILL.md@label`) loads that skill from that server
//! when the turn starts — never earlier — through [`Client::load_skill`] (digest, size and
//! frontmatter checked), and hands it to Codex as a labelled text block naming its server.
//!
//! Why a text block and not Codex's native `skill` item: the app-server (0.169.0) injects
//! only skills found in its skill folders, and SEP-2640 forbids putting MCP-served content
//! where a filesystem skill search finds it (and requires its origin to be visible to the
//! model). So an MCP skill always goes the emulation's way, and needs the option
//! `skill_emulation` at `"when_needed"` or `"always"`.

use crate::client::Client;
use crate::error::{Error, Result};
use crate::mcp::LoadedSkill;
use crate::options::TransportKind;

fn is_mcp(t: &TransportKind) -> bool {
    matches!(t, TransportKind::McpStdio(_) | TransportKind::McpHttp(_))
}

/// A label is 1–64 of ASCII letters, digits, `-`, `_` and `.`.
fn valid_label(label: &str) -> bool {
    (1..=64).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

impl Client {
    /// Let this Codex client's turns use the skills of the MCP server `server` is connected
    /// to, under `label` (the name the program gives that server, as SEP-2640 asks: never the
    /// server's own `serverInfo.name`). A turn then selects one with
    /// [`Skill::Mcp`](super::Skill::Mcp) (text `name@label`); it is loaded when the turn
    /// starts. The same label again replaces the server. Errors
    /// ([`Error::InvalidArgument`]): a label that is not 1–64 of `A-Z a-z 0-9 - _ .`, this
    /// client being an MCP client, or `server` not being one.
    pub fn add_skill_source(&self, label: &str, server: &Client) -> Result<()> {
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
        self.skill_sources().with(|v| {
            v.retain(|(l, _)| l != label);
            v.push((label.to_owned(), server.clone()));
        });
        Ok(())
    }

    /// Forget the skill source `label`; whether there was one.
    pub fn remove_skill_source(&self, label: &str) -> bool {
        self.skill_sources().with(|v| {
            let before = v.len();
            v.retain(|(l, _)| l != label);
            v.len() != before
        })
    }

    /// The labels of this client's skill sources, in the order they were added.
    pub fn skill_source_labels(&self) -> Vec<String> {
        self.skill_sources()
            .with(|v| v.iter().map(|(l, _)| l.clone()).collect())
    }
}

/// A turn's skill from an MCP server: selected, then loaded when the turn starts.
#[derive(Debug)]
pub(super) struct McpSelected {
    /// The source's label.
    pub label: String,
    /// A skill name, or the URI of its `SKILL.md`.
    pub skill: String,
    /// Once loaded.
    pub loaded: Option<LoadedSkill>,
}

impl McpSelected {
    /// Load the skill from the source `label` of `codex`: its entry (by URI through
    /// `skills/get`, by name from the listing), then its `SKILL.md`, verified.
    pub async fn load(&mut self, codex: &Client) -> Result<()> {
        let server = codex.skill_sources().get(&self.label).ok_or_else(|| {
            let labels = codex.skill_source_labels();
            Error::InvalidArgument(format!(
                "no MCP skill source {:?} on this client (sources: {}); add one with add_skill_source",
                self.label,
                if labels.is_empty() { "none".into() } else { labels.join(", ") }
            ))
        })?;
        let context = |e: Error| match e {
            Error::InvalidArgument(m) => {
                Error::InvalidArgument(format!("skill {}@{}: {m}", self.skill, self.label))
            }
            Error::Protocol(m) => {
                Error::Protocol(format!("skill {}@{}: {m}", self.skill, self.label))
            }
            other => other,
        };
        let entry = server.find_skill(&self.skill).await.map_err(context)?;
        self.loaded = Some(server.load_skill(&entry).await.map_err(context)?);
        Ok(())
    }
}

/// The text block of a skill loaded from the MCP server labelled `label`:
/// `<skill name=".." server=".." uri=".." description=".." emulated="true">`, the
/// `SKILL.md` body, `</skill>`.
pub(super) fn block(label: &str, skill: &LoadedSkill) -> String {
    format!(
        "<skill name=\"{}\" server=\"{}\" uri=\"{}\" description=\"{}\" emulated=\"true\">\n{}\n</skill>",
        super::plan::attr(skill.entry.name()),
        super::plan::attr(label),
        super::plan::attr(&skill.entry.uri),
        super::plan::attr(skill.entry.description()),
        skill.body
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert!(valid_label("docs"));
        assert!(valid_label("docs-server_1.x"));
        for bad in ["", "a b", "a@b", "a/b", &"a".repeat(65)] {
            assert!(!valid_label(bad), "{bad}");
        }
    }
}
