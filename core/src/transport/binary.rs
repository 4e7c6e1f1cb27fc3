//! Finding the `codex` binary, preferring the native executable over the npm launcher.
//!
//! Order: explicit path > `CODEX_BIN` > the Codex CLI bundled by the `openai-codex-cli-bin`
//! Python package installed beside this library (`pip install codexclient[cli]`) > `codex` on
//! `PATH`. Whichever is found, when it is the npm JavaScript launcher
//! (`@openai/codex/bin/codex.js`) the native binary shipped next to it is used instead:
//! spawn-to-`initialize` is ~49 ms native against ~135 ms through node.
//!
//! The bundled CLI is looked up from the file this code was loaded from (`dladdr`), not from an
//! interpreter's `sys.path`: the Python extension lives at `site-packages/codexclient/_native*.so`,
//! and pip installs the extra's `openai-codex-cli-bin` into the same `site-packages`, as the
//! package `codex_cli_bin` (`codex-package.json` naming its entry point, `bin/codex`). So the
//! CLI found is the one installed with this very copy of the library, whatever the current
//! directory, `PATH` or active virtual environment; a Rust program or a C library in some other
//! directory finds none there and goes on to `PATH`.

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

/// The Python package directory of `openai-codex-cli-bin`.
const BUNDLED_PACKAGE: &str = "codex_cli_bin";

/// The entry point of a `codex_cli_bin` package directory: `codex-package.json`'s
/// `entrypoint` (default `bin/codex`), if that file exists. `None` when `pkg` is no such package.
fn bundled_entrypoint(pkg: &Path) -> Option<PathBuf> {
    let meta = std::fs::read(pkg.join("codex-package.json")).ok()?;
    let default = if cfg!(windows) {
        "bin/codex.exe"
    } else {
        "bin/codex"
    };
    let entry = serde_json::from_slice::<serde_json::Value>(&meta)
        .ok()
        .and_then(|v| v.get("entrypoint")?.as_str().map(str::to_owned))
        .filter(|e| !e.is_empty() && !Path::new(e).is_absolute() && !e.contains(".."))
        .unwrap_or_else(|| default.to_owned());
    let exe = pkg.join(entry);
    exe.is_file().then_some(exe)
}

/// The bundled CLI for a library loaded from `lib`: `<lib's dir>/../codex_cli_bin` (the Python
/// layout, `site-packages/codexclient/_native.abi3.so`), then `<lib's dir>/codex_cli_bin`.
fn bundled_beside(lib: &Path) -> Option<PathBuf> {
    let dir = lib.parent()?;
    [
        dir.parent().map(|p| p.join(BUNDLED_PACKAGE)),
        Some(dir.join(BUNDLED_PACKAGE)),
    ]
    .into_iter()
    .flatten()
    .find_map(|pkg| bundled_entrypoint(&pkg))
}

/// The file (shared object or executable) this code was loaded from.
#[cfg(unix)]
fn this_module_path() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let addr = this_module_path as *const () as *const libc::c_void;
    // SAFETY: dladdr only reads the loader's tables and fills `info`; `addr` is a function of
    // this module, so it lies in a loaded object.
    if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader, valid while the object
    // stays loaded (this code is running from it).
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()));
    std::fs::canonicalize(path).ok()
}

#[cfg(not(unix))]
fn this_module_path() -> Option<PathBuf> {
    None
}

/// The Codex CLI of the `openai-codex-cli-bin` Python package installed beside this library
/// (`pip install codexclient[cli]`), if any.
pub(crate) fn bundled_codex_bin() -> Option<PathBuf> {
    let found = bundled_beside(&this_module_path()?);
    if let Some(p) = &found {
        tracing::debug!(codex = %p.display(), "using the Codex CLI bundled by openai-codex-cli-bin");
    }
    found
}

fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Resolve the `codex` executable: `explicit` > `CODEX_BIN` > the CLI bundled by the
/// `openai-codex-cli-bin` Python package installed beside this library > `codex` on `PATH`,
/// each mapped from the npm launcher to the native binary when possible.
pub fn resolve_codex_bin(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(prefer_native(p));
    }
    if let Some(p) = std::env::var_os("CODEX_BIN").filter(|v| !v.is_empty()) {
        return Ok(prefer_native(Path::new(&p)));
    }
    if let Some(p) = bundled_codex_bin() {
        return Ok(p);
    }
    if let Some(p) = search_path("codex") {
        return Ok(prefer_native(&p));
    }
    Err(Error::Transport(format!(
        "codex binary not found: set ClientOptions::codex_bin or CODEX_BIN, or put `codex` on PATH \
         (any Codex {}..{}, for example `npm install @openai/codex@{}`; from Python \
         `pip install 'codexclient[cli]'` brings a pinned Codex CLI; or run scripts/setup.sh in \
         this repository)",
        crate::version::oldest(),
        crate::version::newest(),
        crate::version::newest()
    )))
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

    #[test]
    fn bundled_cli_is_found_beside_the_python_extension() {
        let tmp = std::env::temp_dir().join(format!("codex-bundled-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let site = tmp.join("site-packages");
        let ext = site.join("codexclient/_native.abi3.so");
        std::fs::create_dir_all(ext.parent().unwrap()).unwrap();
        std::fs::write(&ext, "ELF").unwrap();
        // No package beside it: nothing found.
        assert_eq!(bundled_beside(&ext), None);
        // A package directory without its metadata is not taken.
        let pkg = site.join(BUNDLED_PACKAGE);
        std::fs::create_dir_all(pkg.join("bin")).unwrap();
        std::fs::write(pkg.join("bin/codex"), "ELF").unwrap();
        assert_eq!(bundled_beside(&ext), None);
        // With codex-package.json: the default entry point, then the one it names.
        std::fs::write(pkg.join("codex-package.json"), r#"{"layoutVersion": 1}"#).unwrap();
        assert_eq!(bundled_beside(&ext), Some(pkg.join("bin/codex")));
        std::fs::create_dir_all(pkg.join("other")).unwrap();
        std::fs::write(pkg.join("other/codex"), "ELF").unwrap();
        std::fs::write(
            pkg.join("codex-package.json"),
            r#"{"layoutVersion": 1, "entrypoint": "other/codex"}"#,
        )
        .unwrap();
        assert_eq!(bundled_beside(&ext), Some(pkg.join("other/codex")));
        // An entry point that escapes the package is ignored (falls back to bin/codex).
        std::fs::write(
            pkg.join("codex-package.json"),
            r#"{"entrypoint": "../../x"}"#,
        )
        .unwrap();
        assert_eq!(bundled_beside(&ext), Some(pkg.join("bin/codex")));
        // A missing entry point file: nothing found.
        std::fs::remove_file(pkg.join("bin/codex")).unwrap();
        assert_eq!(bundled_beside(&ext), None);
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn this_module_is_the_running_test_binary() {
        let me = this_module_path().expect("dladdr names this module");
        assert_eq!(
            me,
            std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap()
        );
    }
}
