//! The modules of the core and of both bindings (`ffi-c/src`, `python/src`) import each other
//! without a loop: arrows point down only.
//!
//! Reads `<crate>/src/**/*.rs` (not `lib.rs`, not test code), collects every path that names a
//! module of the crate (`crate::x::…`, `super::…`, `self::…` and paths through a child
//! module, in `use` items and in code), and fails on a cycle at two levels:
//! * between top-level modules (`session`, `event`, `transport`, …), each with its files;
//! * between module files, where a child may use what its parent defines (`super::X`), but a
//!   parent's children may not loop among themselves or back through another module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "support/source.rs"]
mod source;
use source::{code_only, is_ident, module_of, rust_files, without_test_modules};

use source::Module;

fn name(m: &[String]) -> String {
    m.join("::")
}

/// Read one path tree at `*i` (after its first segment was taken as `prefix`): `a::b`,
/// `a::{b, c::d}`, `a::*`. Every full path goes to `out`.
fn read_tree(s: &[char], i: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && s[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(i);
        if s.get(*i) == Some(&'{') {
            *i += 1;
            loop {
                skip_ws(i);
                match s.get(*i) {
                    None => return,
                    Some('}') => {
                        *i += 1;
                        return;
                    }
                    Some(',') => *i += 1,
                    Some(_) => {
                        let before = *i;
                        read_tree(s, i, prefix.clone(), out);
                        if *i == before {
                            *i += 1;
                        }
                    }
                }
            }
        }
        let start = *i;
        while *i < s.len() && is_ident(s[*i]) {
            *i += 1;
        }
        if *i == start {
            out.push(prefix); // `*` or the end of the path
            return;
        }
        prefix.push(s[start..*i].iter().collect());
        skip_ws(i);
        if s.get(*i) == Some(&':') && s.get(*i + 1) == Some(&':') {
            *i += 2;
        } else {
            out.push(prefix);
            return;
        }
    }
}

/// Every module path written in `code` of module `me`: those starting at `crate`, `super` or
/// `self`, and those starting at one of `children`. Paths as written, not resolved.
fn paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let s: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let at_start = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == ':' || s[i - 1] == '$');
        if at_start && is_ident(s[i]) {
            let start = i;
            let mut j = i;
            while j < s.len() && is_ident(s[j]) {
                j += 1;
            }
            let word: String = s[start..j].iter().collect();
            let follows = s.get(j) == Some(&':') && s.get(j + 1) == Some(&':');
            if follows
                && (matches!(word.as_str(), "crate" | "super" | "self") || children.contains(&word))
            {
                let mut k = j + 2;
                read_tree(&s, &mut k, vec![word], &mut out);
                i = k;
                continue;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The module of the crate a path written in module `me` leads to: the longest known module
/// it names, or the module an item re-exported by `lib.rs` comes from.
fn resolve(
    me: &[String],
    path: &[String],
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<String, Module>,
) -> Option<Module> {
    let mut full: Module = match path[0].as_str() {
        "crate" => Vec::new(),
        "self" => me.to_vec(),
        "super" => me[..me.len().saturating_sub(1)].to_vec(),
        _ => me.to_vec(),
    };
    let rest = if path[0] == "crate" || path[0] == "self" || path[0] == "super" {
        &path[1..]
    } else {
        path
    };
    for seg in rest {
        match seg.as_str() {
            "self" => {}
            "super" => {
                full.pop();
            }
            _ => full.push(seg.clone()),
        }
    }
    (1..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| modules.contains(m))
        .or_else(|| {
            (path[0] == "crate")
                .then(|| full.first().and_then(|f| reexports.get(f)).cloned())
                .flatten()
        })
}

/// `pub use module::{A, B}` items of `lib.rs`: item name → module.
fn lib_reexports(lib: &str, modules: &BTreeSet<Module>) -> BTreeMap<String, Module> {
    let code = code_only(lib);
    let mut map = BTreeMap::new();
    for stmt in code.split(';') {
        let Some(body) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let mut trees = Vec::new();
        let s: Vec<char> = body.chars().collect();
        let first: String = s.iter().take_while(|c| is_ident(**c)).collect();
        let mut i = first.len() + 2;
        read_tree(&s, &mut i, vec![first], &mut trees);
        for p in trees {
            if let (Some(item), Some(m)) = (p.last(), resolve(&[], &p, modules, &BTreeMap::new())) {
                map.insert(item.clone(), m);
            }
        }
    }
    map
}

/// Groups of modules that reach each other (strongly connected, more than one module).
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<BTreeSet<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default();
    }
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for &m in &next[n] {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&n| (n, reach(n))).collect();
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for (&n, r) in &reaches {
        if !r.contains(n) || groups.iter().any(|g| g.contains(n)) {
            continue;
        }
        let group: BTreeSet<String> = r
            .iter()
            .filter(|m| reaches[**m].contains(n))
            .map(|m| m.to_string())
            .collect();
        groups.push(group);
    }
    groups
}

struct Graph {
    /// Between module files, child → ancestor edges left out.
    files: BTreeSet<(String, String)>,
    /// Between top-level modules.
    top: BTreeSet<(String, String)>,
}

fn graph() -> Graph {
    graph_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The import graph of the crate whose sources are in `src`.
fn graph_of(src: &Path) -> Graph {
    let src = src.to_path_buf();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // Test modules (`tests.rs` and the files of a `tests/` module) may use anything.
    files.retain(|f| {
        let rel = f.strip_prefix(&src).unwrap();
        f.file_name().unwrap() != "tests.rs"
            && !rel.components().any(|c| c.as_os_str() == "tests")
            && rel != Path::new("lib.rs")
    });
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexports = lib_reexports(&lib, &modules);
    let mut g = Graph {
        files: BTreeSet::new(),
        top: BTreeSet::new(),
    };
    for file in &files {
        let me = module_of(&src, file);
        let children: BTreeSet<String> = modules
            .iter()
            .filter(|m| m.len() == me.len() + 1 && m.starts_with(&me))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let text = std::fs::read_to_string(file).unwrap();
        let code = without_test_modules(&code_only(&text));
        for p in paths(&code, &children) {
            let Some(to) = resolve(&me, &p, &modules, &reexports) else {
                continue;
            };
            if to == me {
                continue;
            }
            if to[0] != me[0] {
                g.top.insert((me[0].clone(), to[0].clone()));
            }
            if !me.starts_with(&to) {
                g.files.insert((name(&me), name(&to)));
            }
        }
    }
    g
}

fn check(level: &str, edges: &BTreeSet<(String, String)>) {
    let bad = cycles(edges);
    let list: Vec<String> = edges.iter().map(|(a, b)| format!("  {a} -> {b}")).collect();
    assert!(
        bad.is_empty(),
        "import cycles between {level}: {bad:?}\nedges:\n{}",
        list.join("\n")
    );
}

#[test]
fn no_import_cycles_between_modules() {
    let g = graph();
    // The reader sees the imports (a broken reader would find no cycle either).
    for (a, b) in [
        ("session", "correlation"),
        ("session", "transport"),
        ("event", "responder"),
        ("connection", "error"),
    ] {
        assert!(g.top.contains(&(a.into(), b.into())), "{a} -> {b} not seen");
    }
    for (a, b) in [
        ("transport", "transport::shim"),
        ("transport::shim::exec::process", "transport::lines"),
        (
            "transport::shim::exec::process",
            "transport::shim::exec::events",
        ),
        ("transport::shim::mcp::link", "transport::process"),
        ("connection::pull", "delivery"),
        ("session::runtime", "transport"),
        ("correlation", "correlation::table"),
    ] {
        assert!(
            g.files.contains(&(a.into(), b.into())),
            "{a} -> {b} not seen"
        );
    }
    check("top-level modules", &g.top);
    check("module files", &g.files);
}

/// The two clients stand on the connection and apart from each other: no module of `codex`
/// imports `mcp` or the other way round, and the connection imports neither (nor `skills`,
/// which sits between them: it loads a turn's skills through the MCP client).
#[test]
fn the_two_clients_stand_apart_on_the_connection() {
    let g = graph();
    assert!(g.top.contains(&("codex".into(), "connection".into())));
    assert!(g.top.contains(&("mcp".into(), "connection".into())));
    for (a, b) in [
        ("codex", "mcp"),
        ("mcp", "codex"),
        ("mcp", "skills"),
        ("connection", "codex"),
        ("connection", "mcp"),
        ("connection", "skills"),
    ] {
        assert!(!g.top.contains(&(a.into(), b.into())), "{a} imports {b}");
    }
}

/// One module style across the crate: a module with children is `foo/mod.rs`, never `foo.rs`
/// beside a `foo/` folder (`src/bin/` holds binaries, not a module).
#[test]
fn modules_with_children_are_folders_with_mod_rs() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|n| n == "bin") && dir.ends_with("src") {
                continue;
            }
            if path.with_extension("rs").is_file() || !path.join("mod.rs").is_file() {
                out.push(path.display().to_string());
            }
            walk(&path, out);
        }
    }
    let mut mixed = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut mixed,
    );
    assert!(
        mixed.is_empty(),
        "folders not in the `mod.rs` style: {mixed:#?}"
    );
}

/// Globals that hold code (a function, a closure, a constructor) in `code`: a module below
/// that calls code set there by a module above has an import loop the graph does not show.
fn code_globals(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter(|l| {
            let decl = l
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            decl.starts_with("static ")
                && ["fn(", "Fn(", "FnMut(", "FnOnce(", "Factory"]
                    .iter()
                    .any(|t| decl.contains(t))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_code_is_handed_down_through_a_global() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for g in code_globals(&without_test_modules(&code_only(&text))) {
            found.push(format!(
                "{}: {g}",
                file.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(found.is_empty(), "globals that hold code: {found:#?}");
    // The check sees such a global (the shape the mcp shim's constructor once had).
    assert_eq!(
        code_globals("static MCP_SHIM: std::sync::OnceLock<ShimFactory> = OnceLock::new();").len(),
        1
    );
    assert!(code_globals("static LIVE: AtomicUsize = AtomicUsize::new(0);").is_empty());
}

#[test]
fn no_import_cycles_in_the_bindings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (krate, seen) in [
        ("ffi-c", ("connection", "error")),
        ("python", ("client", "errors")),
    ] {
        let g = graph_of(&root.join(krate).join("src"));
        assert!(
            g.top.contains(&(seen.0.into(), seen.1.into())),
            "{krate}: {} -> {} not seen",
            seen.0,
            seen.1
        );
        check(&format!("{krate} modules"), &g.top);
        check(&format!("{krate} module files"), &g.files);
    }
}

#[test]
fn the_extension_does_not_import_the_python_layer() {
    // The Python layer imports the extension (`codexclient._native`); the extension importing
    // `codexclient.*` back at run time would close a loop that no import graph shows.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            if let Some(i) = line.find("import(") {
                assert!(
                    !line[i..].contains("\"codexclient"),
                    "{} imports the Python layer: {}",
                    f.display(),
                    line.trim()
                );
            }
        }
    }
}

#[test]
fn the_reader_finds_paths_in_code_only() {
    let code = code_only(
        r##"use crate::{a::X, b::{self, c::Y}};
        // crate::commented::out
        let s = "crate::in_a_string"; let r = r#"crate::raw"#; let c = '{';
        fn f<'a>(x: &'a str) { super::d::g(); kid::h(); other::kid::i(); }"##,
    );
    let kids: BTreeSet<String> = ["kid".to_string()].into();
    let found: Vec<String> = paths(&code, &kids).iter().map(|p| name(p)).collect();
    assert_eq!(
        found,
        [
            "crate::a::X",
            "crate::b::self",
            "crate::b::c::Y",
            "super::d::g",
            "kid::h"
        ]
    );
    let stripped =
        without_test_modules("fn a() {}\n#[cfg(test)]\nmod tests { fn b() { {} } }\nfn c() {}");
    assert_eq!(stripped, "fn a() {}\n\nfn c() {}");
    let edges: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .iter()
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect();
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3);
}
