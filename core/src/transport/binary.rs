//! Finding the `codex` binary, preferring the native executable over the npm launcher.
//!
//! Order: explicit path > `CODEX_BIN` > `codex` on `PATH`. Whichever is found, when it is the
//! npm JavaScript launcher (`@openai/codex/bin/codex.js`) the native binary shipped next to it
//! is used instead: spawn-to-`initialize` is ~49 ms native against ~135 ms through node.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

fn target_triple() -> Option<(&'static str, &'static str)> {
    // (rust target triple used in vendor dirs, npm platform package suffix)
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some(("x86_64-unknown-linux-musl", "linux-x64")),
        ("linux", "aarch64") => Some(("aarch64-unknown-linux-musl", "linux-arm64")),
        ("macos", "x86_64") => Some(("x86_64-apple-darwin", "darwin-x64")),
        ("macos", "aarch64") => Some(("aarch64-apple-darwin", "darwin-arm64")),
        _ => None,
    }
}

fn is_js_launcher(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "js" || e == "mjs") {
        return true;
    }
    let mut head = [0u8; 64];
    match std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)) {
        Ok(n) => {
            let head = &head[..n];
            head.starts_with(b"#!") && head.windows(4).any(|w| w == b"node")
        }
        Err(_) => false,
    }
}

/// Where an npm install keeps the native binary, relative to the `@openai/codex` package dir.
fn native_candidates(pkg_dir: &Path) -> Vec<PathBuf> {
    let Some((triple, platform)) = target_triple() else {
        return Vec::new();
    };
    let exe = if cfg!(windows) { "codex.exe" } else { "codex" };
    let mut out = Vec::new();
    let platform_pkg = format!("codex-{platform}");
    // 0.1xx: a separate platform package, either hoisted beside @openai/codex or nested in it.
    if let Some(scope_dir) = pkg_dir.parent() {
        out.push(
            scope_dir
                .join(&platform_pkg)
                .join("vendor")
                .join(triple)
                .join("bin")
                .join(exe),
        );
    }
    out.push(
        pkg_dir
            .join("node_modules/@openai")
            .join(&platform_pkg)
            .join("vendor")
            .join(triple)
            .join("bin")
            .join(exe),
    );
    // 0.9x: vendored inside the main package.
    out.push(pkg_dir.join("vendor").join(triple).join("codex").join(exe));
    out
}

/// If `path` is the npm launcher, return the native binary beside it; else `path` itself.
pub(crate) fn prefer_native(path: &Path) -> PathBuf {
    if !is_js_launcher(path) {
        return path.to_path_buf();
    }
    let Ok(real) = std::fs::canonicalize(path) else {
        return path.to_path_buf();
    };
    // real = .../node_modules/@openai/codex/bin/codex.js
    if let Some(pkg_dir) = real.parent().and_then(Path::parent) {
        for c in native_candidates(pkg_dir) {
            if c.is_file() {
                tracing::debug!(launcher = %path.display(), native = %c.display(), "using native codex binary");
                return c;
            }
        }
    }
    tracing::debug!(launcher = %path.display(), "no native binary next to the npm launcher; using the launcher");
    path.to_path_buf()
}

fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Resolve the `codex` executable: `explicit` > `CODEX_BIN` > `codex` on `PATH`, each mapped
/// from the npm launcher to the native binary when possible.
pub fn resolve_codex_bin(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(prefer_native(p));
    }
    if let Some(p) = std::env::var_os("CODEX_BIN").filter(|v| !v.is_empty()) {
        return Ok(prefer_native(Path::new(&p)));
    }
    if let Some(p) = search_path("codex") {
        return Ok(prefer_native(&p));
    }
    Err(Error::Transport(
        "codex binary not found: set ClientOptions::codex_bin or CODEX_BIN, or put `codex` on PATH \
         (for example `npm install @openai/codex@0.169.0`, or run scripts/setup.sh in this repository)"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_launcher_maps_to_native_binary_in_both_layouts() {
        let Some((triple, platform)) = target_triple() else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("codex-bin-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        // New layout: platform package beside the launcher package.
        let nm = tmp.join("new/node_modules/@openai");
        std::fs::create_dir_all(nm.join("codex/bin")).unwrap();
        std::fs::write(nm.join("codex/bin/codex.js"), "#!/usr/bin/env node\n").unwrap();
        let native = nm.join(format!("codex-{platform}/vendor/{triple}/bin/codex"));
        std::fs::create_dir_all(native.parent().unwrap()).unwrap();
        std::fs::write(&native, "ELF").unwrap();
        assert_eq!(
            prefer_native(&nm.join("codex/bin/codex.js")),
            std::fs::canonicalize(&native).unwrap()
        );
        // Old layout: vendored inside the package.
        let old = tmp.join("old/node_modules/@openai/codex");
        std::fs::create_dir_all(old.join("bin")).unwrap();
        std::fs::write(old.join("bin/codex.js"), "#!/usr/bin/env node\n").unwrap();
        let native_old = old.join(format!("vendor/{triple}/codex/codex"));
        std::fs::create_dir_all(native_old.parent().unwrap()).unwrap();
        std::fs::write(&native_old, "ELF").unwrap();
        assert_eq!(
            prefer_native(&old.join("bin/codex.js")),
            std::fs::canonicalize(&native_old).unwrap()
        );
        // A native binary is returned as is.
        assert_eq!(prefer_native(&native), native);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
