//! The seam under the two clients (`core/src/rules/mod.rs`): the engine below them
//! (`session/`, `connection/`, `delivery/`) asks a connection's protocol rules wherever the
//! protocols differ, and names no protocol itself. This test counts, per file of those three
//! folders (code only, test modules left out), what names a protocol:
//! * a path into a protocol's own modules (`protocol::mcp`, `crate::mcp`, `crate::codex`,
//!   `rules::mcp`, `rules::app_server`) or a protocol by the options' enum (`Protocol::Mcp`,
//!   `Protocol::AppServer`), or an MCP option (`.mcp.`);
//! * a method name in a string literal (`"notifications/cancelled"`, `"thread/resume"`: a
//!   literal of two or more `/`-separated words).
//!
//! * a protocol's field in a string literal (`"userAgent"`, `"protocolVersion"`: a camelCase
//!   word).
//!
//! Every file of the three folders names none (issue 42): where the protocols differ, the
//! engine asks the connection's `Rules`.

use std::collections::BTreeMap;
use std::path::Path;

#[path = "support/source.rs"]
mod source;
use source::{code_only, rust_files, without_test_modules};

/// Paths and names that name a protocol in code.
const PROTOCOL_PATHS: &[&str] = &[
    "protocol::mcp",
    "crate::mcp",
    "crate::codex",
    "protocol::app_server",
    "rules::mcp",
    "rules::app_server",
    "Protocol::Mcp",
    "Protocol::AppServer",
    ".mcp.",
];

/// How often `code` (comments, literals and test modules out) names a protocol by a path.
fn paths_named(code: &str) -> usize {
    PROTOCOL_PATHS.iter().map(|p| code.matches(p).count()).sum()
}

/// The string literals of `text` (comment lines out) that look like a method name (two or more
/// words joined by `/`: `"roots/list"`, `"notifications/tools/list_changed"`) or a field.
fn method_literals(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find('"') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('"') else { break };
            let lit = &after[..end];
            let words: Vec<&str> = lit.split('/').collect();
            if (words.len() >= 2
                && words.iter().all(|w| {
                    !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                }))
                || is_field(lit)
            {
                found.push(lit.to_owned());
            }
            rest = &after[end + 1..];
        }
    }
    found
}

/// Whether a literal looks like a protocol's field: one camelCase word (`"threadId"`).
fn is_field(lit: &str) -> bool {
    let mut chars = lit.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && lit.chars().all(|c| c.is_ascii_alphanumeric())
        && lit.chars().any(|c| c.is_ascii_uppercase())
}

/// Per file of the engine's folders: how often it names a protocol, with what it names.
fn named_per_file() -> BTreeMap<String, (usize, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for folder in ["session", "connection", "delivery"] {
        let mut files = Vec::new();
        rust_files(&src.join(folder), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let without_tests = without_test_modules(&text);
            let code = without_test_modules(&code_only(&text));
            let literals = method_literals(&without_tests);
            let n = paths_named(&code) + literals.len();
            let rel = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, (n, literals));
        }
    }
    out
}

#[test]
fn the_engine_names_no_protocol() {
    let named = named_per_file();
    assert!(
        named.len() >= 20,
        "the engine's files were not found: {:?}",
        named.keys()
    );
    for file in [
        "session/incoming.rs",
        "session/reconnect.rs",
        "connection/mod.rs",
        "connection/requests.rs",
        "delivery/queue.rs",
        "delivery/router.rs",
    ] {
        assert!(named.contains_key(file), "{file} not read");
    }
    let wrong: Vec<String> = named
        .iter()
        .filter(|(_, (n, _))| *n > 0)
        .map(|(file, (n, literals))| format!("{file}: {n} times; literals {literals:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "the engine names a protocol (ask the connection's Rules instead):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_counter_sees_what_it_counts() {
    assert_eq!(
        paths_named("use crate::protocol::mcp::Root; if p == Protocol::Mcp {}"),
        2
    );
    assert_eq!(paths_named("use crate::rules::Rules;"), 0);
    assert_eq!(
        method_literals("let m = \"notifications/cancelled\"; let p = \"a b\"; let q = \"/tmp/x\";\n// \"roots/list\""),
        vec!["notifications/cancelled".to_owned()]
    );
    assert_eq!(
        method_literals("v.get(\"userAgent\"); v.get(\"id\"); v.get(\"Done\"); x(\"a1B\")"),
        vec!["userAgent".to_owned(), "a1B".to_owned()]
    );
}
