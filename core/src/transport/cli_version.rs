//! The installed Codex CLI's version (`codex --version` of the binary the options name),
//! learned when a client connects through the local control socket, to compare with the
//! version of the app-server behind it (the daemon runs its own copy of Codex). Cached per
//! binary (its path, size and modification time: a reinstalled CLI is asked again), each
//! run bounded.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::options::ClientOptions;

/// The longest a `codex --version` may take (the native binary answers in milliseconds).
const CLI_VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// What identifies one installed binary: its size and modification time.
type Stamp = (u64, Option<SystemTime>);

/// The versions learned, by binary path: what the binary was when asked, what it said.
type Learned = HashMap<PathBuf, (Stamp, Option<String>)>;

/// The versions learned so far.
static CACHE: Mutex<Option<Learned>> = Mutex::new(None);

/// The installed CLI's version, `None` when there is no binary to ask or it did not say in
/// time (logged at debug: a control socket needs no local CLI). At most half the connect
/// timeout, so the comparison never fails a connect.
pub(crate) async fn installed(opts: &ClientOptions) -> Option<String> {
    let bin = match super::binary::resolve_codex_bin(opts.codex_bin.as_deref()) {
        Ok(b) => b,
        Err(e) => {
            tracing::debug!(error = %e, "no installed Codex CLI to compare the server's version with");
            return None;
        }
    };
    let stamp: Stamp = match std::fs::metadata(&bin) {
        Ok(m) => (m.len(), m.modified().ok()),
        Err(e) => {
            tracing::debug!(bin = %bin.display(), error = %e, "cannot read the Codex CLI");
            return None;
        }
    };
    if let Some((s, v)) = CACHE.lock().unwrap().as_ref().and_then(|c| c.get(&bin)) {
        if *s == stamp {
            return v.clone();
        }
    }
    let bound = CLI_VERSION_TIMEOUT.min(opts.connect_timeout / 2);
    let run = tokio::process::Command::new(&bin)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let version = match tokio::time::timeout(bound, run).await {
        Err(_) => {
            tracing::debug!(bin = %bin.display(), ?bound, "`codex --version` did not answer in time");
            return None; // not cached: asked again next time
        }
        Ok(Err(e)) => {
            tracing::debug!(bin = %bin.display(), error = %e, "cannot run `codex --version`");
            None
        }
        Ok(Ok(out)) => parse(&String::from_utf8_lossy(&out.stdout)),
    };
    CACHE
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .insert(bin, (stamp, version.clone()));
    version
}

/// `codex-cli 0.171.0` → `0.171.0` (the last word of the first line, when it looks like a
/// version).
fn parse(out: &str) -> Option<String> {
    let word = out.lines().next()?.split_whitespace().last()?;
    crate::version::parse(word).map(|_| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_last_word_of_the_first_line() {
        assert_eq!(parse("codex-cli 0.171.0\n").as_deref(), Some("0.171.0"));
        assert_eq!(
            parse("codex-cli 0.172.0-alpha.1").as_deref(),
            Some("0.172.0-alpha.1")
        );
        assert_eq!(parse("usage: nope\n"), None);
        assert_eq!(parse(""), None);
    }
}
