//! Skills on every transport: selecting a skill by name or by path, and either sending the
//! app-server's native `skill` input item or, where the server has none (the exec and mcp
//! shims, app-servers older than [`NATIVE_SKILL_INPUT_SINCE`]), emulating it by injecting
//! the `SKILL.md` into the prompt as a labelled text block. A skill may also come from an
//! MCP server (the skills extension, SEP-2640): see [`Skill::Mcp`] and
//! [`CodexClient::add_skill_source`](crate::CodexClient::add_skill_source).

mod file;
pub(crate) mod mcp;
mod plan;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use crate::options::TransportKind;

pub use plan::{PreparedInput, SkillPlan};

/// The first Codex version whose app-server takes the `skill` input item (the oldest one
/// this library knows to have it).
pub const NATIVE_SKILL_INPUT_SINCE: (u64, u64, u64) = (0, 169, 0);

/// A skill selected for a turn: by name (resolved in the folders Codex searches, or through
/// `skills/list`), by path (a `SKILL.md` file or the folder holding it), or from an MCP
/// server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skill {
    /// A skill name as `skills/list` reports it (`release-notes`).
    Name(String),
    /// The path of a `SKILL.md` or of its folder.
    Path(PathBuf),
    /// A skill served by the MCP server registered on the Codex client under `server` (see
    /// [`CodexClient::add_skill_source`](crate::CodexClient::add_skill_source)): `skill` is its name
    /// in that server's `skills/list`, or the URI of its `SKILL.md`. Loaded (and verified)
    /// when the turn starts, and always given to Codex as a text block naming the server, so
    /// it needs the option `skill_emulation` at `"when_needed"` or `"always"`.
    Mcp {
        /// The label the server was registered under.
        server: String,
        /// The skill's name, or the URI of its `SKILL.md`.
        skill: String,
    },
}

impl Skill {
    /// A selector from text as bindings take it: `name@server` or `uri@server` (`@` followed
    /// by a label holding no `/`) is a skill of an MCP server; else text holding a path
    /// separator, or ending in `SKILL.md`, is a path; anything else a name.
    pub fn parse(text: &str) -> Skill {
        if let Some((skill, server)) = text.rsplit_once('@') {
            let label_ok = !server.is_empty()
                && !server.contains('/')
                && !server.contains(std::path::MAIN_SEPARATOR);
            if label_ok && !skill.is_empty() && (!skill.contains('/') || skill.contains("://")) {
                return Skill::Mcp {
                    server: server.to_owned(),
                    skill: skill.to_owned(),
                };
            }
        }
        if text.contains('/') || text.contains(std::path::MAIN_SEPARATOR) || text == "SKILL.md" {
            Skill::Path(PathBuf::from(text))
        } else {
            Skill::Name(text.to_owned())
        }
    }

    /// The input item standing for this selection until the turn starts (a `skill` item with
    /// only `name` or only `path`; [`SkillPlan`] completes or replaces it).
    pub(crate) fn to_item(&self) -> Value {
        match self {
            Skill::Name(n) => json!({"type": "skill", "name": n}),
            Skill::Path(p) => json!({"type": "skill", "path": p.to_string_lossy()}),
            Skill::Mcp { server, skill } => {
                json!({"type": "skill", "name": skill, MCP_SERVER_KEY: server})
            }
        }
    }
}

impl From<&str> for Skill {
    /// [`Skill::parse`].
    fn from(s: &str) -> Skill {
        Skill::parse(s)
    }
}

impl From<String> for Skill {
    /// [`Skill::parse`].
    fn from(s: String) -> Skill {
        Skill::parse(&s)
    }
}

impl From<&Path> for Skill {
    fn from(p: &Path) -> Skill {
        Skill::Path(p.to_path_buf())
    }
}

impl From<PathBuf> for Skill {
    fn from(p: PathBuf) -> Skill {
        Skill::Path(p)
    }
}

/// The member of a `skill` input item (this library's, never sent) naming the MCP skill
/// source the skill comes from.
pub(crate) const MCP_SERVER_KEY: &str = "mcpServer";

/// A skill a turn used: its name, description and `SKILL.md` path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SkillInfo {
    /// The skill's name.
    pub name: String,
    /// Its description (front matter `description`).
    pub description: String,
    /// The `SKILL.md` path (for a skill from an MCP server: the URI of its `SKILL.md`).
    pub path: PathBuf,
    /// The label of the MCP server the skill came from (`None`: a local skill).
    pub server: Option<String>,
}

impl SkillInfo {
    /// As JSON: `{"name", "description", "path"}`, plus `"server"` for a skill from an MCP
    /// server.
    pub fn to_value(&self) -> Value {
        let mut v = json!({"name": self.name, "description": self.description, "path": self.path.to_string_lossy()});
        if let Some(s) = &self.server {
            v["server"] = json!(s);
        }
        v
    }
}

/// Whether a server takes the native `skill` input item: a real app-server (not the exec or
/// mcp shims) whose Codex version (from `initialize`) is [`NATIVE_SKILL_INPUT_SINCE`] or
/// newer. Unknown version: no (emulation works everywhere).
pub fn native_skill_input(transport: &TransportKind, codex_version: Option<&str>) -> bool {
    let app_server = matches!(
        transport,
        TransportKind::Stdio | TransportKind::WebSocket { .. } | TransportKind::Unix { .. }
    );
    app_server && codex_version.and_then(crate::version::parse) >= Some(NATIVE_SKILL_INPUT_SINCE)
}

/// Text as an XML attribute value (`&`, `"`, `<`, `>` escaped), for the emulation's blocks.
pub(super) fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::ExecOptions;

    #[test]
    fn selectors_and_the_native_decision() {
        assert_eq!(Skill::parse("haiku"), Skill::Name("haiku".into()));
        assert_eq!(Skill::parse("./s"), Skill::Path("./s".into()));
        assert_eq!(Skill::parse("SKILL.md"), Skill::Path("SKILL.md".into()));
        let mcp = |skill: &str, server: &str| Skill::Mcp {
            server: server.into(),
            skill: skill.into(),
        };
        assert_eq!(Skill::parse("pdf@docs"), mcp("pdf", "docs"));
        assert_eq!(
            Skill::parse("skill://a/pdf/SKILL.md@docs"),
            mcp("skill://a/pdf/SKILL.md", "docs")
        );
        assert_eq!(
            Skill::parse("dir@v2/SKILL.md"),
            Skill::Path("dir@v2/SKILL.md".into())
        );
        assert_eq!(Skill::parse("a@b/c@"), Skill::Path("a@b/c@".into()));
        assert_eq!(
            mcp("pdf", "docs").to_item(),
            json!({"type": "skill", "name": "pdf", "mcpServer": "docs"})
        );
        let stdio = TransportKind::Stdio;
        assert!(native_skill_input(&stdio, Some("0.169.0")));
        assert!(native_skill_input(&stdio, Some("0.170.1-alpha.1")));
        assert!(native_skill_input(&stdio, Some("1.0.0")));
        assert!(!native_skill_input(&stdio, Some("0.168.9")));
        assert!(!native_skill_input(&stdio, Some("0.92.0")));
        assert!(!native_skill_input(&stdio, Some("unknown")));
        assert!(!native_skill_input(&stdio, None));
        let unix = TransportKind::Unix { path: None };
        assert!(native_skill_input(&unix, Some("0.169.0")));
        let exec = TransportKind::Exec(ExecOptions::new());
        assert!(!native_skill_input(&exec, Some("0.169.0")));
        assert!(!native_skill_input(
            &TransportKind::CodexMcpServer,
            Some("0.169.0")
        ));
    }
}
