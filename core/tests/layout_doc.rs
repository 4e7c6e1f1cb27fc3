//! `docs/layout.md` names every source file of the core (`core/src`), the C ABI crate
//! (`ffi-c/src`) and the Python binding (`python/src`, `python/codexclient`), and no file
//! that is gone.
//!
//! A file is named by a backticked path in the bullet of its crate (`core/`, `ffi-c/`,
//! `python/`) or in one of its nested bullets: its path from the crate's source folder
//! (`` `client/mod.rs` ``), its path from the repository (`` `ffi-c/src/macros.rs` ``), or its
//! file name in a bullet that names its folder (`` `compat/` — … `run.rs` … ``; a crate's
//! own bullet names its source folders).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's section: the token its top-level bullet starts with, and its source folders
/// (repository paths) with the extensions of the files in each.
struct Section {
    token: &'static str,
    roots: &'static [(&'static str, &'static [&'static str])],
}

const SECTIONS: &[Section] = &[
    Section {
        token: "core/",
        roots: &[("core/src", &["rs"])],
    },
    Section {
        token: "ffi-c/",
        roots: &[("ffi-c/src", &["rs"])],
    },
    Section {
        token: "python/",
        roots: &[
            ("python/src", &["rs"]),
            ("python/codexclient", &["py", "pyi"]),
        ],
    },
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Every file below `dir` with one of `exts`, as repository paths.
fn files(repo: &Path, dir: &str, exts: &[&str], out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(repo.join(dir)) else {
        return;
    };
    for e in entries {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if e.file_type().unwrap().is_dir() {
            if name != "__pycache__" {
                files(repo, &path, exts, out);
            }
        } else if exts.iter().any(|x| name.ends_with(&format!(".{x}"))) {
            out.insert(path);
        }
    }
}

/// The bullets of the page (a bullet with its continuation lines), each with the section it
/// belongs to (by the last top-level bullet).
fn bullets(page: &str) -> Vec<(Option<usize>, String)> {
    let mut out: Vec<(Option<usize>, String)> = Vec::new();
    let mut section = None;
    for line in page.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("- ") {
            if !line.starts_with(' ') {
                section = SECTIONS
                    .iter()
                    .position(|s| trimmed[2..].starts_with(&format!("`{}`", s.token)));
            }
            out.push((section, trimmed.to_owned()));
        } else if trimmed.is_empty() || trimmed.starts_with('#') {
            section = if trimmed.is_empty() { section } else { None };
        } else if let Some(last) = out.last_mut() {
            last.1.push(' ');
            last.1.push_str(trimmed);
        }
    }
    out
}

fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// What a bullet's file token may name: repository paths.
fn candidates(s: &Section, dirs: &[&str], token: &str) -> Vec<String> {
    let mut out = vec![token.to_owned()];
    for (root, _) in s.roots {
        out.push(format!("{root}/{token}"));
        for d in dirs {
            let d = d.trim_end_matches('/');
            out.push(format!("{d}/{token}"));
            // A folder named from the crate's source folder (`compat/`) or from the repo.
            let under = d
                .strip_prefix(root)
                .or_else(|| d.strip_prefix(s.token.trim_end_matches('/')))
                .map(|r| r.trim_start_matches('/'))
                .unwrap_or(d);
            out.push(if under.is_empty() {
                format!("{root}/{token}")
            } else {
                format!("{root}/{under}/{token}")
            });
        }
    }
    out
}

/// `(files not named, tokens that name no file)` of the page.
fn check(page: &str, repo: &Path) -> (Vec<String>, Vec<String>) {
    let mut all: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for (i, s) in SECTIONS.iter().enumerate() {
        let set = all.entry(i).or_default();
        for (root, exts) in s.roots {
            files(repo, root, exts, set);
        }
    }
    let mut named = BTreeSet::new();
    let mut gone = Vec::new();
    for (section, text) in bullets(page) {
        let Some(si) = section else { continue };
        let s = &SECTIONS[si];
        let tokens = backticked(&text);
        let dirs: Vec<&str> = tokens
            .iter()
            .copied()
            .filter(|t| t.ends_with('/'))
            .collect();
        for t in &tokens {
            let is_file = [".rs", ".py", ".pyi"].iter().any(|x| t.ends_with(x));
            if !is_file || t.contains(' ') {
                continue;
            }
            let hits: Vec<String> = candidates(s, &dirs, t)
                .into_iter()
                .filter(|c| repo.join(c).is_file())
                .collect();
            if hits.is_empty() {
                gone.push(format!("`{t}` (in: {})", &text[..text.len().min(60)]));
            }
            named.extend(hits);
        }
    }
    let missing = all
        .values()
        .flatten()
        .filter(|f| !named.contains(*f))
        .cloned()
        .collect();
    (missing, gone)
}

#[test]
fn layout_names_every_source_file_and_no_gone_one() {
    let repo = repo();
    let page = std::fs::read_to_string(repo.join("docs/layout.md")).unwrap();
    let (missing, gone) = check(&page, &repo);
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/layout.md is out of date.\nFiles it does not name:\n  {}\nFiles it names that are gone:\n  {}",
        missing.join("\n  "),
        gone.join("\n  ")
    );
}

#[test]
fn the_check_reads_folders_and_notices_gone_files() {
    let repo = repo();
    let page = "- `core/` — the crate:\n  - `compat/` — `run.rs` asks, `nothere.rs`\n  \
                - `error.rs` — errors\n- `ffi-c/` — `ffi-c/src/macros.rs`\n";
    let (missing, gone) = check(page, &repo);
    assert!(!missing.contains(&"core/src/compat/run.rs".to_owned()));
    assert!(!missing.contains(&"core/src/error.rs".to_owned()));
    assert!(!missing.contains(&"ffi-c/src/macros.rs".to_owned()));
    assert!(missing.contains(&"core/src/lib.rs".to_owned()));
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(gone[0].contains("nothere.rs"));
}
