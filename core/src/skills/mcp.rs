//! Skills from MCP servers in a Codex turn: the MCP clients a Codex client may take skills
//! from, each under a label the program chooses ([`CodexClient::add_skill_source`](crate::CodexClient::add_skill_source)); a turn's
//! selector `name@label` (or `skill://…/SKILL.md@label`) loads that skill from that server
//! when the turn starts — never earlier — through [`McpClient::load_skill`](crate::McpClient::load_skill) (digest, size and
//! frontmatter checked), and hands it to Codex as a labelled text block naming its server.
//!
//! Why a text block and not Codex's native `skill` item: the app-server (0.169.0) injects
//! only skills found in its skill folders, and SEP-2640 forbids putting MCP-served content
//! where a filesystem skill search finds it (and requires its origin to be visible to the
//! model). So an MCP skill always goes the emulation's way, and needs the option
//! `skill_emulation` at `"when_needed"` or `"always"`.

use crate::connection::Client;
use crate::error::{Error, Result};
use crate::mcp::LoadedSkill;
use crate::mcp::McpClient;
use crate::options::TransportKind;

pub(crate) fn is_mcp(t: &TransportKind) -> bool {
    matches!(t, TransportKind::McpStdio(_) | TransportKind::McpHttp(_))
}

/// A label is 1–64 of ASCII letters, digits, `-`, `_` and `.`.
pub(crate) fn valid_label(label: &str) -> bool {
    (1..=64).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
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
            let labels: Vec<String> = codex
                .skill_sources()
                .with(|v| v.iter().map(|(l, _)| l.clone()).collect());
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
        let server = McpClient::from_connection(&server);
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
        super::attr(skill.entry.name()),
        super::attr(label),
        super::attr(&skill.entry.uri),
        super::attr(skill.entry.description()),
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
