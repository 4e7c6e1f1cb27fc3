//! The public API can grow: every public enum, and every public struct whose fields are all
//! public, is `#[non_exhaustive]` (so a new variant or field is not a breaking change), except
//! the few listed in [`EXCEPTIONS`] with the reason each may stay exhaustive.
//!
//! Reads `core/src/**/*.rs` (not the generated protocol types, which the generator owns, nor
//! test code). An item is public when its module is reachable through `pub mod` from the crate
//! root (a `#[doc(hidden)]` module is not) or when its name is re-exported by a `pub use`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "support/source.rs"]
mod source;
use source::{code_only, module_of, rust_files, without_test_modules, Module};

/// Public types that stay exhaustive, each with why.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "ErrorKindMap",
        "bindings write it as one literal naming every kind, so a new kind fails their build until mapped",
    ),
    (
        "JsonTokenStore",
        "a newtype around the program's store: it wraps exactly one value",
    ),
    (
        "SamplingContent",
        "MCP's two forms of sampling content, one block or a list: there is no third",
    ),
];

/// The attributes written right before byte `at` of `code` (`#[…]` groups, in any order).
fn attributes_before(code: &str, at: usize) -> String {
    let b = code.as_bytes();
    let mut end = at;
    let mut out = String::new();
    loop {
        let mut i = end;
        while i > 0 && b[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        if i == 0 || b[i - 1] != b']' {
            return out;
        }
        let mut depth = 0;
        let mut j = i;
        while j > 0 {
            j -= 1;
            match b[j] {
                b']' => depth += 1,
                b'[' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if j == 0 || b[j - 1] != b'#' {
            return out;
        }
        out.push_str(&code[j - 1..i]);
        end = j - 1;
    }
}

/// The text between the bracket `open` at byte `at` and its match.
fn group(code: &str, at: usize, open: u8, close: u8) -> &str {
    let b = code.as_bytes();
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(at) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return &code[at + 1..k];
            }
        }
    }
    &code[at + 1..]
}

/// Split at the commas of the top level (not inside `()`, `[]`, `{}` or `<>`).
fn top_level_parts(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    let b = s.as_bytes();
    for (k, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'>' if k > 0 && b[k - 1] != b'-' && b[k - 1] != b'=' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&s[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[from..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Whether a struct's field list (`{…}` or `(…)` contents) has fields and all are public.
fn all_fields_public(fields: &str) -> bool {
    let parts = top_level_parts(fields);
    !parts.is_empty()
        && parts.iter().all(|f| {
            let mut f = f.trim().trim_start_matches("$(").trim_start();
            while f.starts_with("#[") {
                // `#`, `[`, the attribute, `]`.
                let len = group(f, 1, b'[', b']').len() + 3;
                f = f[len.min(f.len())..].trim_start();
            }
            f.starts_with("pub ")
        })
}

/// One public type: `(file, line, "struct"|"enum", name, exhaustive)`.
type Item = (String, usize, &'static str, String, bool);

/// Every public enum, and every public struct with only public fields, of `core/src`.
fn public_types(src: &Path) -> Vec<Item> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let code: BTreeMap<_, _> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            (f.clone(), without_test_modules(&code_only(&text)))
        })
        .collect();
    // Which modules are public (`pub mod`, not hidden), and the names `pub use` re-exports.
    let mut public_decl: BTreeMap<Module, bool> = BTreeMap::new();
    let mut reexported = BTreeSet::new();
    for (f, c) in &code {
        let me = module_of(src, f);
        let me: Module = if me == ["lib"] { vec![] } else { me };
        for (at, _) in c.match_indices("mod ") {
            let before = c[..at].trim_end_matches([' ', '\t']);
            let line_start = before.rfind('\n').map_or(0, |n| n + 1);
            let prefix = before[line_start..].trim();
            let rest = &c[at + 4..];
            let name: String = rest
                .chars()
                .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                .collect();
            if name.is_empty() || !rest[name.len()..].trim_start().starts_with(';') {
                continue;
            }
            let is_pub = prefix == "pub";
            let hidden = attributes_before(
                c,
                line_start + before[line_start..].find(prefix).unwrap_or(0),
            )
            .contains("doc(hidden)");
            let mut m = me.clone();
            m.push(name);
            public_decl.insert(m, is_pub && !hidden);
        }
        let mut from = 0;
        while let Some(at) = c[from..].find("pub use ").map(|p| p + from) {
            let end = c[at..].find(';').map_or(c.len(), |e| at + e);
            for word in c[at + 8..end].split(|ch: char| !(ch.is_alphanumeric() || ch == '_')) {
                if word.starts_with(|ch: char| ch.is_ascii_uppercase()) {
                    reexported.insert(word.to_owned());
                }
            }
            from = end;
        }
    }
    let module_public =
        |m: &Module| (1..=m.len()).all(|n| public_decl.get(&m[..n]).copied().unwrap_or(false));
    let mut out = Vec::new();
    for (f, c) in &code {
        let rel = f.strip_prefix(src).unwrap().to_string_lossy().into_owned();
        if rel == "protocol/generated.rs" {
            continue;
        }
        let mut me = module_of(src, f);
        if me == ["lib"] {
            me.clear();
        }
        for kind in ["struct", "enum"] {
            let needle = format!("pub {kind} ");
            for (at, _) in c.match_indices(&needle) {
                if at > 0 && !c.as_bytes()[at - 1].is_ascii_whitespace() {
                    continue;
                }
                let rest = &c[at + needle.len()..];
                let name: String = rest
                    .chars()
                    .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                    .collect();
                if !module_public(&me) && !reexported.contains(&name) {
                    continue;
                }
                if kind == "struct" {
                    let body = at + needle.len() + name.len();
                    let (open, close) = match c[body..].find(['{', '(', ';']) {
                        Some(k) if c.as_bytes()[body + k] == b'{' => (body + k, b'}'),
                        Some(k) if c.as_bytes()[body + k] == b'(' => (body + k, b')'),
                        _ => continue, // a unit struct
                    };
                    let fields = group(c, open, c.as_bytes()[open], close);
                    if !all_fields_public(fields) {
                        continue; // a private field: it can grow already
                    }
                }
                let exhaustive = !attributes_before(c, at).contains("non_exhaustive");
                let line = c[..at].matches('\n').count() + 1;
                out.push((rel.clone(), line, kind, name, exhaustive));
            }
        }
    }
    out
}

fn core_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn public_types_that_may_grow_are_non_exhaustive() {
    let items = public_types(&core_src());
    let excepted: BTreeSet<&str> = EXCEPTIONS.iter().map(|(n, _)| *n).collect();
    let bad: Vec<String> = items
        .iter()
        .filter(|(_, _, _, name, exhaustive)| *exhaustive && !excepted.contains(name.as_str()))
        .map(|(f, l, k, n, _)| format!("core/src/{f}:{l}: pub {k} {n}"))
        .collect();
    assert!(
        bad.is_empty(),
        "public types without #[non_exhaustive] (add it, with a constructor for structs users \
         build, or list the type in EXCEPTIONS with a reason):\n{}",
        bad.join("\n")
    );
    // Every exception is still an exhaustive public type (no stale entries).
    for (name, reason) in EXCEPTIONS {
        assert!(!reason.is_empty());
        assert!(
            items.iter().any(|(_, _, _, n, ex)| n == name && *ex),
            "EXCEPTIONS lists {name}, which is no longer an exhaustive public type"
        );
    }
}

#[test]
fn the_scan_finds_what_it_should() {
    let items = public_types(&core_src());
    let find = |n: &str| items.iter().find(|i| i.3 == n).map(|i| i.4);
    // Enums and all-public structs are seen, with their attribute.
    assert_eq!(
        find("Error"),
        Some(false),
        "the error enum (made by a macro)"
    );
    assert_eq!(find("ErrorKindMap"), Some(true));
    assert_eq!(find("RetryPolicy"), Some(false));
    // A struct with a private field is not listed: it can grow already.
    assert_eq!(find("Client"), None);
    // Items of private, unexported modules are not listed.
    assert!(
        items.iter().all(|i| !i.0.starts_with("transport/")),
        "transport is internal"
    );
    assert!(
        all_fields_public("pub a: u8, pub b: Vec<(u8, u8)>")
            && !all_fields_public("pub a: u8, b: u8")
            && all_fields_public("$( #[doc = concat!(\"x\", \"y\")] pub $name: T, )+")
    );
}
