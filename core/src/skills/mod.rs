//! Skills on every transport: selecting a skill by name or by path, and either sending the
//! app-server's native `skill` input item or, where the server has none (the exec and mcp
//! shims, app-servers older than [`NATIVE_SKILL_INPUT_SINCE`]), emulating it by injecting
//! the `SKILL.md` into the prompt as a labelled text block.

mod file;
mod plan;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use crate::options::TransportKind;

pub use plan::{PreparedInput, SkillPlan};

/// The first Codex version whose app-server takes the `skill` input item (the oldest one
/// this library knows to have it).
pub const NATIVE_SKILL_INPUT_SINCE: (u64, u64, u64) = (0, 169, 0);

/// A skill selected for a turn: by name (resolved in the folders Codex searches, or through
/// `skills/list`) or by path (a `SKILL.md` file or the folder holding it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skill {
    /// A skill name as `skills/list` reports it (`release-notes`).
    Name(String),
    /// The path of a `SKILL.md` or of its folder.
    Path(PathBuf),
}

impl Skill {
    /// A selector from text as bindings take it: text holding a path separator, or ending in
    /// `SKILL.md`, is a path; anything else a name.
    pub fn parse(text: &str) -> Skill {
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

/// A skill a turn used: its name, description and `SKILL.md` path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SkillInfo {
    /// The skill's name.
    pub name: String,
    /// Its description (front matter `description`).
    pub description: String,
    /// The `SKILL.md` path.
    pub path: PathBuf,
}

impl SkillInfo {
    /// As JSON: `{"name", "description", "path"}`.
    pub fn to_value(&self) -> Value {
        json!({"name": self.name, "description": self.description, "path": self.path.to_string_lossy()})
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
    app_server && codex_version.and_then(parse_version) >= Some(NATIVE_SKILL_INPUT_SINCE)
}

/// `0.169.0` (or `0.169.0-alpha.2`) as numbers.
fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next().unwrap_or(Some(0))?))
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
