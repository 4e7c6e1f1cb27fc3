//! An old MCP server that exits on a method it does not know (`testkit/sdk-servers/old_server.py`:
//! the official Python SDK's low-level server, handshake era only, patched to exit) in the
//! default mode `auto`: the server ends on the `server/discover` probe, is started again
//! once for the `initialize` handshake (logged at INFO, naming the server and why), and a tool
//! call works; the same with a server that closes its stdout instead of exiting, and through
//! `connect_async`; the era the connect negotiated (`InitializeResult::mcp_prior`) given back
//! as option `mcp_prior` skips the probe (the server sees no `server/discover`); a server that
//! also dies on `initialize` fails the connect with an error that says both, after exactly
//! one restart. Its own test binary: it installs the process's log sink.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codex_client::log::{forward_logs, LogRecord};
use codex_client::protocol::mcp::era::{EraMode, Prior};
use codex_client::{ClientOptions, Error, McpClient, McpCommand, OptionsBuilder, TransportKind};
use futures_executor::block_on;
use serde_json::json;
use support::*;

/// The process's one log sink (the tests of this binary share it; each looks for records
/// naming its own server program).
fn capture() -> Arc<Mutex<Vec<LogRecord>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<LogRecord>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let l2 = logs.clone();
        forward_logs(tracing::Level::INFO, move |r| l2.lock().unwrap().push(r)).unwrap();
        logs
    })
    .clone()
}

/// One old server: its program (a wrapper script of its own, so that log records name it
/// alone), its method log, and the directory holding both.
struct Old {
    dir: TempDir,
    program: PathBuf,
}

impl Old {
    fn new(tag: &str) -> Old {
        let py = setup_mcp_path(
            "MCP_SDK_PYTHON",
            "mcp-sdk-python",
            "the Python MCP SDK 2.3.0",
        );
        let dir = TempDir::new(tag);
        let program = dir.path().join(format!("{tag}-server"));
        std::fs::write(
            &program,
            format!("#!/bin/sh\nexec '{}' \"$@\"\n", py.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        Old { dir, program }
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("methods.log")
    }

    /// The command line: the server script with `--log` and `flags`.
    fn command(&self, flags: &[&str]) -> McpCommand {
        let script = repo_root().join("testkit/sdk-servers/old_server.py");
        McpCommand::new(&self.program)
            .arg(script.to_string_lossy())
            .args(["--log", &self.log_path().to_string_lossy()])
            .args(flags.iter().copied())
    }

    fn options(&self, flags: &[&str]) -> ClientOptions {
        ClientOptions::default()
            .transport(TransportKind::McpStdio(self.command(flags)))
            .connect_timeout(Duration::from_secs(20))
            .default_timeout(Duration::from_secs(20))
    }

    /// Each process the server ran, in order of start: the methods it received.
    fn runs(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let mut order: Vec<String> = Vec::new();
        let mut by_pid: std::collections::HashMap<String, Vec<String>> = Default::default();
        for line in text.lines() {
            let (pid, what) = line.split_once(' ').unwrap();
            if what == "start" {
                order.push(pid.to_owned());
            }
            by_pid
                .entry(pid.to_owned())
                .or_default()
                .push(what.to_owned());
        }
        order
            .iter()
            .map(|p| {
                by_pid[p]
                    .iter()
                    .filter(|m| *m != "start")
                    .cloned()
                    .collect()
            })
            .collect()
    }

    /// The INFO record of the restart of this server, waited for (the sink runs on its own
    /// thread).
    fn restart_record(&self, logs: &Mutex<Vec<LogRecord>>) -> Option<LogRecord> {
        let program = self.program.display().to_string();
        let find = || {
            logs.lock()
                .unwrap()
                .iter()
                .find(|r| {
                    r.message.contains(&program)
                        && r.message.contains("ended during the server/discover probe")
                })
                .cloned()
        };
        wait_until(Duration::from_secs(5), || find().is_some());
        find()
    }
}

fn call_echo(c: &McpClient) -> String {
    block_on(c.call_tool("echo", json!({"message": "hi"})))
        .expect("tools/call")
        .text()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn auto_starts_a_server_that_exits_on_the_probe_again_and_calls_a_tool() {
    let logs = capture();
    let old = Old::new("exits");
    let c = McpClient::new(old.options(&[]));
    assert_eq!(
        *c.options().get_mcp().protocol(),
        EraMode::Auto,
        "the default mode"
    );
    let init = c
        .connect()
        .expect("auto connects to a server that exits on the probe");
    assert_eq!(init.mcp_era(), "handshake");
    assert_eq!(init.protocol_version(), Some("2025-11-25"));
    assert_eq!(init.server_info().unwrap()["name"], "old-server");
    assert_eq!(init.mcp_prior(), Some(Prior::Legacy));
    assert_eq!(init.to_json()["mcp_prior"], json!({"kind": "legacy"}));
    assert_eq!(call_echo(&c), "echo: hi");
    assert_eq!(
        old.runs(),
        vec![
            strs(&["server/discover"]),
            strs(&["initialize", "notifications/initialized", "tools/call"]),
        ],
        "one probe that ended the first process, then the handshake on a second"
    );
    let r = old
        .restart_record(&logs)
        .expect("the restart is logged, naming the server");
    assert_eq!(r.level, tracing::Level::INFO, "{r:?}");
    assert!(r.message.contains("exited with status 1"), "{}", r.message);
    assert!(
        r.message
            .contains("unknown method server/discover: exiting"),
        "the log says why (the server's last stderr line): {}",
        r.message
    );
    c.disconnect();
}

#[test]
fn connect_async_restarts_too() {
    let old = Old::new("exits-async");
    let c = McpClient::new(old.options(&[]));
    let init = block_on(c.connect_async()).expect("connect_async");
    assert_eq!(init.mcp_era(), "handshake");
    assert_eq!(call_echo(&c), "echo: hi");
    assert_eq!(old.runs().len(), 2, "{:?}", old.runs());
    block_on(c.disconnect_async());
}

#[test]
fn a_server_that_closes_stdout_on_the_probe_is_started_again() {
    let logs = capture();
    let old = Old::new("closes");
    let c = McpClient::new(old.options(&["--close-stdout"]));
    let init = c
        .connect()
        .expect("connect after the server closed its stdout");
    assert_eq!(init.mcp_era(), "handshake");
    assert_eq!(call_echo(&c), "echo: hi");
    let runs = old.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0], strs(&["server/discover"]));
    let r = old.restart_record(&logs).expect("logged");
    assert!(r.message.contains(&old.program.display().to_string()));
    c.disconnect();
}

#[test]
fn the_remembered_era_skips_the_probe() {
    let old = Old::new("prior");
    let first = McpClient::new(old.options(&[]));
    let prior = first.connect().unwrap().mcp_prior().unwrap();
    first.disconnect();
    let before = old.runs().len();
    assert_eq!(before, 2);

    // Typed (Rust) and by name (the way C and Python set it), each a new client.
    let typed = old.options(&[]).mcp_prior(prior.clone());
    let mut b = OptionsBuilder::new();
    let mut argv = vec![old.program.display().to_string()];
    argv.extend(old.command(&[]).args);
    b.set("command", json!(argv)).unwrap();
    b.set("mcp_prior", prior.to_json()).unwrap();
    assert_eq!(b.get("mcp_prior").unwrap(), json!({"kind": "legacy"}));
    let by_name = b.build().unwrap();
    for opts in [typed, by_name] {
        let c = McpClient::new(opts);
        let init = c.connect().expect("connect with the remembered era");
        assert_eq!(init.mcp_era(), "handshake");
        assert_eq!(call_echo(&c), "echo: hi");
        c.disconnect();
    }
    let runs = old.runs();
    assert_eq!(runs.len(), before + 2, "one process per connect: {runs:?}");
    for run in &runs[before..] {
        assert_eq!(
            run,
            &strs(&["initialize", "notifications/initialized", "tools/call"]),
            "no server/discover"
        );
    }
}

#[test]
fn a_server_that_dies_on_initialize_too_fails_clearly_after_one_restart() {
    let old = Old::new("dies");
    // A hang would end in the connect timeout (a Timeout error, not Disconnected).
    let bound = Duration::from_secs(90);
    let c = McpClient::new(old.options(&["--die-on-initialize"]).connect_timeout(bound));
    let t0 = Instant::now();
    let err = c.connect().expect_err("the server serves nothing");
    let took = t0.elapsed();
    let Error::Disconnected(info) = &err else {
        panic!("expected Disconnected, got {err:?}");
    };
    let msg = err.to_string();
    assert!(
        info.reason.contains("exited with status 1")
            && info
                .reason
                .contains("during the initialize handshake, after a restart")
            && info
                .reason
                .contains("unknown method server/discover: exiting")
            && info.reason.contains("not started again"),
        "{msg}"
    );
    assert!(
        info.stderr_tail
            .contains("unknown method initialize: exiting"),
        "{msg}"
    );
    assert_eq!(
        old.runs(),
        vec![strs(&["server/discover"]), strs(&["initialize"])],
        "exactly one restart"
    );
    assert!(took < bound, "no hang: {took:?}");
    assert!(!c.is_connected());
    // The client is usable again: a second connect starts over (probe, one restart).
    assert!(c.connect().is_err());
    assert_eq!(old.runs().len(), 4);
}

#[test]
fn legacy_mode_and_pinned_mode_do_not_restart() {
    let old = Old::new("modes");
    // legacy: no probe at all.
    let c = McpClient::new(old.options(&[]).mcp_protocol(EraMode::Legacy));
    c.connect().unwrap();
    c.disconnect();
    assert_eq!(
        old.runs(),
        vec![strs(&["initialize", "notifications/initialized"])]
    );
    // pinned: the stateless era only, so the server that died is not started again.
    let c = McpClient::new(
        old.options(&[])
            .mcp_protocol(EraMode::parse("2026-07-28").unwrap()),
    );
    let err = c.connect().expect_err("pinned, no fallback");
    assert!(matches!(err, Error::Disconnected(_)), "{err:?}");
    assert_eq!(
        old.runs().len(),
        2,
        "no restart when pinned: {:?}",
        old.runs()
    );
}

#[test]
fn a_program_that_cannot_start_is_not_started_again() {
    let dir = TempDir::new("missing");
    let missing: &Path = &dir.path().join("no-such-server");
    let c = McpClient::new(
        ClientOptions::default().transport(TransportKind::McpStdio(McpCommand::new(missing))),
    );
    let err = c.connect().expect_err("no such program");
    assert!(!err.to_string().contains("after a restart"), "{err}");
}
