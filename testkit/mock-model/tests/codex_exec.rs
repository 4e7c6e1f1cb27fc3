//! End-to-end tests: the real Codex CLI (`codex exec --json`) using the mock
//! as its model. Codex is `CODEX_BIN` or the copy `scripts/setup.sh` installs;
//! these tests fail (never skip) when it is missing.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codex_mock_model::MockModel;
use serde_json::Value;

/// The real Codex: `CODEX_BIN`, else the default one (`CODEX_DEFAULT` of
/// `scripts/codex-versions.sh`) that `scripts/setup.sh` installed.
fn codex_bin() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let versions = std::fs::read_to_string(root.join("scripts/codex-versions.sh"))
        .expect("read scripts/codex-versions.sh");
    let version = versions
        .lines()
        .find_map(|l| l.strip_prefix("CODEX_DEFAULT="))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .expect("CODEX_DEFAULT in scripts/codex-versions.sh");
    let bin = std::env::var_os("CODEX_BIN")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(format!(".cache/codex-{version}")));
    assert!(
        bin.exists(),
        "the real Codex {version} is not at {}: run scripts/setup.sh (installs it from the npm \
         registry) or set CODEX_BIN to the native codex binary",
        bin.display()
    );
    bin
}

/// A fresh directory under Cargo's target tmp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("mock-model-e2e")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `codex exec --json` with `prompt` against `mock`; returns the JSONL events.
fn codex_exec(mock: &MockModel, name: &str, prompt: &str) -> Vec<Value> {
    let dir = scratch(name);
    let home = dir.join("home");
    let cwd = dir.join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    mock.write_codex_home(&home).unwrap();

    let mut child = Command::new(codex_bin())
        .args(["exec", "--json", "--skip-git-repo-check", prompt])
        .current_dir(&cwd)
        .env("CODEX_HOME", &home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("CODEX_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn codex");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("codex exec did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out_thread.join().unwrap();
    let err = err_thread.join().unwrap();
    assert!(
        status.success(),
        "codex exec failed ({status}):\nstdout:\n{out}\nstderr:\n{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSONL line {l:?}: {e}")))
        .collect()
}

fn final_message(events: &[Value]) -> String {
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(Value::from("turn.completed")),
        "events: {events:#?}"
    );
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "agent_message")
        .and_then(|e| e["item"]["text"].as_str())
        .unwrap_or_else(|| panic!("no agent_message in {events:#?}"))
        .to_string()
}

#[test]
fn codex_exec_mock_text() {
    let mock = MockModel::start().unwrap();
    let events = codex_exec(&mock, "text", "MOCK_TEXT: hi there");
    assert_eq!(final_message(&events), "hi there");
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0]["stream"], true);
    assert_eq!(reqs[0]["model"], "mock-model");
    let tools: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tools.contains(&"exec_command"), "tools: {tools:?}");
}

#[test]
fn codex_exec_default_reply() {
    let mock = MockModel::start().unwrap();
    let events = codex_exec(&mock, "default", "say something");
    assert_eq!(final_message(&events), "Hello from the mock model.");
}

#[test]
fn codex_exec_mock_exec_plain_runs_the_command() {
    let mock = MockModel::start().unwrap();
    let events = codex_exec(
        &mock,
        "exec-plain",
        "MOCK_EXEC_PLAIN: echo hello-from-codex",
    );
    assert_eq!(final_message(&events), "command output: hello-from-codex");
    let cmd = events
        .iter()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "command_execution")
        .unwrap_or_else(|| panic!("no command_execution item in {events:#?}"));
    assert_eq!(cmd["item"]["exit_code"], 0);
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    let last_input = reqs[1]["input"].as_array().unwrap();
    assert!(last_input
        .iter()
        .any(|i| i["type"] == "function_call_output"));
}
