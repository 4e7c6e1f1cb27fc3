//! Reading the crates' Rust sources as the source tests do (`module_graph.rs`,
//! `public_api.rs`): the files of a tree, the module a file defines, and the code without
//! comments, literals and test modules.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A module path (`["transport", "io"]`).
pub type Module = Vec<String>;

/// Every `.rs` file below `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines (`transport/io.rs` → `transport::io`, `session/mod.rs` →
/// `session`).
pub fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with comments, string literals and character literals blanked out (newlines
/// kept), so that only code is left to search.
pub fn code_only(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (!prev_ident || (s[i - 1] == 'b' && (i < 2 || !is_ident(s[i - 2]))))
            && matches!(next, Some('"' | '#'))
        {
            let mut j = i + 1;
            while s.get(j) == Some(&'#') {
                j += 1;
            }
            if s.get(j) != Some(&'"') {
                out.push(c); // a raw identifier (`r#type`)
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            j += 1;
            while j < s.len() {
                if s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                out.push(blank(s[j]));
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    i += 1;
                }
                if let Some(&ch) = s.get(i) {
                    out.push(blank(ch));
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < s.len() && s[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && s.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code without its inline `#[cfg(test)] mod … { … }` blocks.
pub fn without_test_modules(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|p| p + from) {
        let rest = &out[at + "#[cfg(test)]".len()..];
        let body = rest.trim_start();
        let is_mod = body.starts_with("mod ") || body.starts_with("pub(crate) mod ");
        let open = body.find(['{', ';']);
        if let (true, Some(open)) = (is_mod, open) {
            if body.as_bytes()[open] == b'{' {
                let start = out.len() - body.len() + open;
                let mut depth = 0;
                let mut end = start;
                for (k, ch) in out[start..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        end = start + k + 1;
                        break;
                    }
                }
                out.replace_range(at..end, "");
                continue;
            }
        }
        from = at + 1;
    }
    out
}
