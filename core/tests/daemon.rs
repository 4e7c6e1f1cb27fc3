//! `codex app-server daemon`: the real daemon (`daemon start` in a throwaway `CODEX_HOME`)
//! reached through its control socket (the unix transport). The client reports the daemon's
//! app-server version (`server_version()`, from `initialize`) next to the installed CLI's
//! (`codex --version` of the binary the options name) and warns when they differ: a daemon
//! started by Codex 0.169.0 and a CLI of 0.171.0. Its own test binary: it installs the
//! process's log sink. Every test ends its daemon's processes by pid (`daemon stop` leaves
//! its `pid-update-loop` running).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codex_client::log::{forward_logs, LogRecord};
use codex_client::{CodexClient, ConnectionEvent, Delivery, Event, VersionSource};
use serde_json::json;
use support::*;

const STALE: &str = "0.169.0";
const CURRENT: &str = "0.171.0";

/// The process's one log sink (the tests of this binary share it, each looking for its own
/// records). Installed before any `RealEnv` (whose test subscriber then stays out).
fn capture() -> Arc<Mutex<Vec<LogRecord>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<LogRecord>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let l2 = logs.clone();
        forward_logs(tracing::Level::WARN, move |r| l2.lock().unwrap().push(r)).unwrap();
        logs
    })
    .clone()
}

/// Run `cmd` to its end within `bound` (killed past it), its output to files (the daemon it
/// starts must not hold a pipe of ours); whether it succeeded, with its output.
fn run_bounded(mut cmd: Command, bound: Duration, scratch: &Path) -> (bool, String) {
    let (out, err) = (scratch.join("cmd.out"), scratch.join("cmd.err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("run codex");
    let end = Instant::now() + bound;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap_or_default(),
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    (status.is_some_and(|s| s.success()), text)
}

/// The processes whose command line names `home` (the daemon's managed copy lives under it:
/// its app-server and its `pid-update-loop`).
fn processes_of(home: &Path) -> Vec<u32> {
    let needle = home.to_string_lossy().into_owned();
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle) && pid_alive(pid) {
            pids.push(pid);
        }
    }
    pids
}

/// A daemon started in a `CODEX_HOME` of its own; dropping it stops it and ends, by pid,
/// every process it left.
struct Daemon {
    home: PathBuf,
    bin: PathBuf,
    scratch: TempDir,
}

impl Daemon {
    /// `bin app-server daemon start` with `CODEX_HOME` = `env`'s home.
    fn start(env: &RealEnv, bin: PathBuf) -> Daemon {
        let d = Daemon {
            home: env.home.path().to_owned(),
            bin,
            scratch: TempDir::new("daemon-cmd"),
        };
        let (ok, out) = run_bounded(
            d.command("start"),
            Duration::from_secs(120),
            d.scratch.path(),
        );
        assert!(ok, "daemon start failed:\n{out}");
        let sock = d.home.join("app-server-control/app-server-control.sock");
        assert!(
            wait_until(Duration::from_secs(30), || sock.exists()),
            "no control socket after daemon start:\n{out}"
        );
        d
    }

    fn command(&self, sub: &str) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(["app-server", "daemon", sub])
            .env("CODEX_HOME", &self.home)
            .current_dir(self.scratch.path());
        c
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = run_bounded(
            self.command("stop"),
            Duration::from_secs(30),
            self.scratch.path(),
        );
        // `daemon stop` leaves `codex app-server daemon pid-update-loop` running (and a failed
        // stop its server): end them by pid, then make sure nothing is left.
        for sig in [libc::SIGTERM, libc::SIGKILL] {
            for pid in processes_of(&self.home) {
                unsafe { libc::kill(pid as i32, sig) };
            }
            if wait_until(Duration::from_secs(5), || {
                processes_of(&self.home).is_empty()
            }) {
                return;
            }
        }
        let left = processes_of(&self.home);
        if !std::thread::panicking() {
            assert!(left.is_empty(), "daemon processes left: {left:?}");
        }
    }
}

/// The connection events waiting on `c` now (poll mode): after a turn, all the handshake
/// queued.
fn connection_events(c: &codex_client::Client) -> Vec<ConnectionEvent> {
    let mut out = Vec::new();
    while let Ok(Some(ev)) = c.next_event(Some(Duration::from_millis(0))) {
        if let Event::Connection(e) = ev {
            out.push(e);
        }
    }
    out
}

#[test]
fn a_daemon_of_another_version_than_the_cli_warns_and_server_version_is_the_daemons() {
    let logs = capture();
    let env = RealEnv::new();
    let _daemon = Daemon::start(&env, codex_bin_of(STALE));
    // The installed CLI the options name is the newer one.
    let c = CodexClient::new(
        env.options()
            .codex_bin(codex_bin_of(CURRENT))
            .unix_socket(None)
            .delivery(Delivery::Poll),
    );
    let init = c.connect().unwrap();
    assert!(
        init.user_agent
            .as_deref()
            .unwrap()
            .contains(&format!("/{STALE} ")),
        "{init:?}"
    );
    let v = c.server_version().unwrap();
    assert_eq!(
        v.version.as_deref(),
        Some(STALE),
        "the daemon's, not the CLI's"
    );
    assert_eq!(v.source, Some(VersionSource::ControlSocket));
    assert_eq!(v.cli_version.as_deref(), Some(CURRENT));
    assert!(v.differs_from_cli() && v.in_window());
    assert_eq!(v.to_json()["cli_version"], CURRENT);
    assert_eq!(v.to_json()["source"], "control_socket");
    // The event, queued by the handshake before connect() returned.
    let events = connection_events(c.connection());
    let mismatch: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            ConnectionEvent::VersionMismatch(v) => Some((v, e.to_string(), e.to_json())),
            _ => None,
        })
        .collect();
    assert_eq!(mismatch.len(), 1, "{events:?}");
    let (ev, text, json) = &mismatch[0];
    assert_eq!(ev.cli_version.as_deref(), Some(CURRENT));
    assert!(
        text.contains(STALE) && text.contains(CURRENT) && text.contains("daemon"),
        "{text}"
    );
    assert_eq!(
        (json["kind"].as_str(), json["version"].as_str()),
        (Some("version_mismatch"), Some(STALE))
    );
    // One WARNING line naming both.
    let warned = |l: &LogRecord| {
        l.level == tracing::Level::WARN
            && l.message.contains(&format!(
                "is Codex {STALE} but the installed CLI is Codex {CURRENT}"
            ))
    };
    assert!(wait_until(Duration::from_secs(5), || logs
        .lock()
        .unwrap()
        .iter()
        .any(warned)));
    // The daemon runs turns all the same.
    let r = c
        .thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: through the stale daemon")
        .unwrap();
    assert_eq!(
        r.final_response.as_deref(),
        Some("through the stale daemon")
    );
    c.disconnect();
}

#[test]
fn a_daemon_of_the_cli_version_does_not_warn() {
    let logs = capture();
    let env = RealEnv::new();
    let _daemon = Daemon::start(&env, codex_bin_of(CURRENT));
    let c = CodexClient::new(
        env.options()
            .codex_bin(codex_bin_of(CURRENT))
            .unix_socket(None)
            .delivery(Delivery::Poll),
    );
    c.connect().unwrap();
    let v = c.server_version().unwrap();
    assert_eq!(v.version.as_deref(), Some(CURRENT));
    assert_eq!(v.cli_version.as_deref(), Some(CURRENT));
    assert_eq!(v.source, Some(VersionSource::ControlSocket));
    assert!(!v.differs_from_cli());
    let r = c
        .thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: through the daemon")
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("through the daemon"));
    // Whatever the handshake queued came before the turn's events: no mismatch among it.
    let events = connection_events(c.connection());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, ConnectionEvent::VersionMismatch(_))),
        "{events:?}"
    );
    // The sink delivers in order: once this marker is there, the connect's records are too.
    tracing::warn!("daemon test marker: same version");
    assert!(wait_until(Duration::from_secs(5), || logs
        .lock()
        .unwrap()
        .iter()
        .any(|l| l
            .message
            .contains("daemon test marker: same version"))));
    let needle = format!("control socket is Codex {CURRENT} but");
    assert!(!logs
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.message.contains(&needle)));
    c.disconnect();
}
