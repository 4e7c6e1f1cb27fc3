//! Asking a `codex` binary for its schema: `codex --version` and
//! `codex app-server generate-json-schema [--experimental] --out DIR`, each bounded by a
//! timeout (the child is killed and reaped past it), in a temporary directory that is always
//! removed.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, Result};

/// The bundle file `generate-json-schema` writes.
const BUNDLE: &str = "codex_app_server_protocol.schemas.json";

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let base = std::env::temp_dir();
        for _ in 0..8 {
            let dir = base.join(format!(
                "codex-client-compat-{}-{:016x}",
                std::process::id(),
                fastrand::u64(..)
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(TempDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::Transport(format!(
                        "cannot create a temporary directory in {}: {e}",
                        base.display()
                    )))
                }
            }
        }
        Err(Error::Transport(
            "cannot create a temporary directory".into(),
        ))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a binary said about itself.
pub(crate) struct LiveSchema {
    /// `codex --version`, without the `codex-cli ` prefix.
    pub version: Option<String>,
    /// The stable bundle.
    pub stable: Value,
    /// The experimental bundle, when the binary knows `--experimental`.
    pub experimental: Option<Value>,
}

/// Runs `codex` (its own `CODEX_HOME` in a temporary directory, no stdin) and reads its
/// schema; the whole is bounded by `timeout`.
pub(crate) fn live_schema(codex: &Path, timeout: Duration) -> Result<LiveSchema> {
    let tmp = TempDir::new()?;
    let deadline = Instant::now() + timeout;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Transport(format!("cannot start a runtime: {e}")))?;
    rt.block_on(async {
        let version = run(codex, &tmp.0, &["--version"], deadline).await?;
        let version = version.trim().rsplit(' ').next().map(str::to_owned);
        let stable = generate(codex, &tmp.0, "stable", false, deadline).await?;
        // Older binaries (0.92.0) have no `--experimental`: then only the stable API is known.
        let experimental = match generate(codex, &tmp.0, "experimental", true, deadline).await {
            Ok(bundle) => Some(bundle),
            Err(e @ Error::Timeout { .. }) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, "no experimental schema; comparing the stable API only");
                None
            }
        };
        Ok(LiveSchema { version: version.filter(|v| !v.is_empty()), stable, experimental })
    })
}

/// `generate-json-schema` into `tmp/<sub>`, then the parsed bundle.
async fn generate(
    codex: &Path,
    tmp: &Path,
    sub: &str,
    experimental: bool,
    deadline: Instant,
) -> Result<Value> {
    let out_dir = tmp.join(sub);
    let out = out_dir.to_string_lossy().into_owned();
    let mut args = vec!["app-server", "generate-json-schema", "--out", &out];
    if experimental {
        args.push("--experimental");
    }
    run(codex, tmp, &args, deadline).await?;
    let path = out_dir.join(BUNDLE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Protocol(format!("{} wrote no {BUNDLE}: {e}", codex.display())))?;
    serde_json::from_str(&text).map_err(|e| Error::Protocol(format!("{}: {e}", path.display())))
}

/// Runs `codex args` to completion before `deadline` and returns its stdout; a non-zero exit
/// is an error with the tail of its stderr. Past the deadline the child is killed and reaped.
async fn run(codex: &Path, tmp: &Path, args: &[&str], deadline: Instant) -> Result<String> {
    let what = format!("{} {}", codex.display(), args.join(" "));
    let io_err = |e: std::io::Error| Error::Transport(format!("{what}: {e}"));
    let home = tmp.join("codex-home");
    std::fs::create_dir_all(&home).map_err(io_err)?;
    // Output goes to files: no pipe to drain, nothing to block the child.
    let (out_path, err_path) = (tmp.join("stdout"), tmp.join("stderr"));
    let mut child = tokio::process::Command::new(codex)
        .args(args)
        .env("CODEX_HOME", &home)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).map_err(io_err)?)
        .stderr(std::fs::File::create(&err_path).map_err(io_err)?)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::Transport(format!(
                "codex binary {} not found: {}",
                codex.display(),
                super::INSTALL_HINT
            )),
            _ => Error::Transport(format!("cannot run {}: {e}", codex.display())),
        })?;
    let left = deadline.saturating_duration_since(Instant::now());
    let status = match tokio::time::timeout(left, child.wait()).await {
        Ok(status) => status.map_err(io_err)?,
        Err(_) => {
            let _ = child.kill().await; // kills and waits: reaped
            return Err(Error::Timeout {
                method: what,
                after: left,
            });
        }
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    if !status.success() {
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(5)..].join("\n");
        return Err(Error::Transport(format!(
            "{what} failed ({status}): {tail}"
        )));
    }
    Ok(stdout)
}
