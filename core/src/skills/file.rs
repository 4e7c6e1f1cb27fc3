//! `SKILL.md` files: reading one (front matter `name`/`description` and body) and finding
//! them in the folders Codex searches (`$CODEX_HOME/skills/**`, `<cwd>/.codex/skills/**`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The file name of a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// How deep below a skills folder a `SKILL.md` is looked for.
const MAX_DEPTH: usize = 6;

/// A skill read from its `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SkillFile {
    /// Front matter `name`, else the folder's name.
    pub name: String,
    /// Front matter `description` (empty when absent).
    pub description: String,
    /// The `SKILL.md` path.
    pub path: PathBuf,
    /// The text after the front matter.
    pub body: String,
}

fn bad(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// Read the skill at `path`: a `SKILL.md` file or a folder holding one. Missing, unreadable
/// or not UTF-8 is [`Error::InvalidArgument`] naming the path.
pub(crate) fn read(path: &Path) -> Result<SkillFile> {
    let file = if path.is_dir() {
        let f = path.join(SKILL_FILE);
        if !f.is_file() {
            return Err(bad(format!(
                "skill folder {} has no {SKILL_FILE}",
                path.display()
            )));
        }
        f
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| bad(format!("cannot read skill {}: {e}", file.display())))?;
    let file = std::fs::canonicalize(&file).unwrap_or(file);
    let (front, body) = split_front_matter(&text);
    let folder_name = || {
        file.parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    Ok(SkillFile {
        name: front_field(front, "name").unwrap_or_else(folder_name),
        description: front_field(front, "description").unwrap_or_default(),
        path: file,
        body: body.trim().to_owned(),
    })
}

/// The YAML front matter (between a first line `---` and the next `---` line) and the rest.
fn split_front_matter(text: &str) -> (&str, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return ("", text);
    };
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (&rest[..at], &rest[at + line.len()..]);
        }
        at += line.len();
    }
    ("", text)
}

/// A top-level scalar of the front matter: `key: value` (quotes removed), or a block scalar
/// (`key: >` / `key: |` and indented lines, joined by spaces or newlines).
fn front_field(front: &str, key: &str) -> Option<String> {
    let mut lines = front.lines();
    while let Some(line) = lines.next() {
        let Some(v) = line.strip_prefix(key).and_then(|r| r.strip_prefix(':')) else {
            continue;
        };
        let v = v.trim();
        if let Some(style) = v.chars().next().filter(|c| *c == '>' || *c == '|') {
            let sep = if style == '>' { " " } else { "\n" };
            let block: Vec<&str> = lines
                .by_ref()
                .take_while(|l| l.starts_with(' ') || l.starts_with('\t') || l.is_empty())
                .map(str::trim)
                .collect();
            return Some(block.join(sep).trim().to_owned());
        }
        let unquoted = [('"', '"'), ('\'', '\'')]
            .iter()
            .find_map(|(a, b)| v.strip_prefix(*a).and_then(|s| s.strip_suffix(*b)))
            .unwrap_or(v);
        return Some(unquoted.to_owned());
    }
    None
}

/// The folders Codex searches for skills, nearest first: the project's `.codex/skills` under
/// `cwd`, then `$CODEX_HOME/skills`.
pub(crate) fn search_roots(codex_home: Option<&Path>, cwd: &Path) -> Vec<PathBuf> {
    let mut roots = vec![cwd.join(".codex").join("skills")];
    roots.extend(codex_home.map(|h| h.join("skills")));
    roots
}

/// Every `SKILL.md` below `roots` (each root's files in path order), read; files that cannot
/// be read are left out.
pub(crate) fn discover(roots: &[PathBuf]) -> Vec<SkillFile> {
    let mut out = Vec::new();
    for root in roots {
        let mut files = Vec::new();
        walk(root, 0, &mut files);
        files.sort();
        out.extend(files.iter().filter_map(|f| read(f).ok()));
    }
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth < MAX_DEPTH {
                walk(&path, depth + 1, out);
            }
        } else if entry.file_name() == SKILL_FILE {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_fields_and_body() {
        let text =
            "---\nname: haiku\ndescription: \"Answer: in haiku\"\nextra: x\n---\n\nBody line\n";
        let (front, body) = split_front_matter(text);
        assert_eq!(front_field(front, "name").as_deref(), Some("haiku"));
        assert_eq!(
            front_field(front, "description").as_deref(),
            Some("Answer: in haiku")
        );
        assert_eq!(body.trim(), "Body line");
        let folded = "---\ndescription: >\n  one\n  two\nname: n\n---\nb";
        let (front, _) = split_front_matter(folded);
        assert_eq!(
            front_field(front, "description").as_deref(),
            Some("one two")
        );
        assert_eq!(
            split_front_matter("no front matter"),
            ("", "no front matter")
        );
        assert_eq!(split_front_matter("---\nunclosed"), ("", "---\nunclosed"));
    }
}
