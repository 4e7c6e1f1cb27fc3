//! The mcp transport against the real `codex mcp-server` of Codex 0.92.0 (with the project's
//! mock model), plus fake MCP servers (small python3 scripts) for protocol edge cases.

mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use codex_client::protocol::CommandExecutionApprovalDecision as Decision;
use codex_client::{ClientOptions, CodexClient, Error, Event, TransportKind};
use serde_json::json;
use support::{codex_connected, mcp_options, RealEnv, TempDir};

/// The text of every `input` message of one mock-model request.
fn request_text(req: &serde_json::Value) -> String {
    req["input"].to_string()
}

#[test]
fn run_returns_final_text_items_and_usage() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    assert!(c
        .initialize_result()
        .and_then(|i| i.user_agent)
        .unwrap_or_default()
        .contains("0.92.0"));
    let t = c.thread_start(json!({})).unwrap();
    let r = t.run("MOCK_TEXT: hello over mcp").unwrap();
    assert_eq!(r.status, "completed", "{r:?}");
    assert_eq!(r.final_response.as_deref(), Some("hello over mcp"));
    assert!(r
        .items
        .iter()
        .any(|i| i["type"] == "userMessage" && i.to_string().contains("hello over mcp")));
    assert!(r.items.iter().any(|i| i["type"] == "agentMessage"));
    let usage = r.usage.expect("token usage");
    assert!(
        usage["total"]["totalTokens"].as_i64().unwrap() > 0,
        "{usage}"
    );
    assert_eq!(r.thread_id, t.id());
    // The Codex thread id is known after the first turn.
    let info = c
        .request_blocking("thread/read", json!({"threadId": t.id()}))
        .unwrap();
    assert!(info["thread"]["mcpThreadId"].as_str().unwrap().len() > 10);
}

#[test]
fn run_streamed_yields_deltas_in_order_for_that_turn_only() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c.thread_start(json!({})).unwrap();
    let mut s = t.run_streamed("MOCK_SLOW: 5 20").unwrap();
    let turn_id = s.turn_id().to_owned();
    let mut deltas = String::new();
    let mut methods = Vec::new();
    for ev in s.iter() {
        if let Event::Notification(n) = ev {
            if let Some(tid) = n.turn_id() {
                assert_eq!(tid, turn_id, "event of another turn: {}", n.method);
            }
            if n.method == "item/agentMessage/delta" {
                deltas.push_str(&n.delta().unwrap());
            }
            if n.method != "thread/status/changed" {
                methods.push(n.method.clone());
            }
        }
    }
    assert_eq!(deltas, "tick 0 tick 1 tick 2 tick 3 tick 4 ");
    // Event types with no app-server equivalent arrive raw, scoped to the turn.
    assert!(methods
        .iter()
        .any(|m| m == "codex/event/session_configured"));
    assert!(methods.iter().any(|m| m == "codex/event/task_complete"));
    assert_eq!(methods.first().map(String::as_str), Some("turn/started"));
    assert_eq!(methods.last().map(String::as_str), Some("turn/completed"));
    let r = s.finish().unwrap();
    assert_eq!(r.final_response.as_deref(), Some(deltas.as_str()));
    // A second turn's stream has only its own deltas.
    let mut s2 = t.run_streamed("MOCK_TEXT: second").unwrap();
    let mut d2 = String::new();
    for ev in s2.iter() {
        if let Event::Notification(n) = ev {
            if n.method == "item/agentMessage/delta" {
                d2.push_str(&n.delta().unwrap());
            }
        }
    }
    assert_eq!(d2, "second");
}

#[test]
fn second_turn_continues_the_thread() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c.thread_start(json!({})).unwrap();
    let r1 = t.run("MOCK_TEXT: first-answer-777").unwrap();
    assert_eq!(r1.final_response.as_deref(), Some("first-answer-777"));
    let r2 = t.run("MOCK_TEXT: second answer").unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("second answer"));
    let reqs = env.model.requests();
    let last = reqs.last().expect("a model request");
    let text = request_text(last);
    assert!(
        text.contains("first-answer-777"),
        "turn 2 lacks turn 1's history"
    );
    // Resuming by the real Codex thread id continues it (codex-reply).
    let real = c
        .request_blocking("thread/read", json!({"threadId": t.id()}))
        .unwrap()["thread"]["mcpThreadId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(real, t.id());
    let t2 = c.thread_resume(&real, json!({})).unwrap();
    assert_eq!(
        t2.id(),
        t.id(),
        "resume by real id maps to the local thread"
    );
    let r3 = t2.run("MOCK_TEXT: third").unwrap();
    assert_eq!(r3.final_response.as_deref(), Some("third"));
    let text = request_text(env.model.requests().last().unwrap());
    assert!(text.contains("first-answer-777") && text.contains("second answer"));
    // Another connection (another mcp-server process) cannot continue it: 0.92.0 only
    // replies to live sessions. That is an explicit error, not a silent new thread.
    c.disconnect();
    let c2 = codex_connected(mcp_options(&env));
    match c2.thread_resume(&real, json!({})) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("thread/resume"), "{msg}"),
        other => panic!(
            "expected Unsupported, got {:?}",
            other.map(|t| t.id().to_owned())
        ),
    }
}

/// Run `MOCK_EXEC: touch <marker> && echo marker-123` (touch is not a known-safe command, so
/// 0.92.0 asks); returns (command ran, result, times asked).
fn exec_with(
    handler: Option<fn(&codex_client::protocol::CommandExecutionRequestApprovalParams) -> Decision>,
) -> (bool, codex_client::TurnResult, usize) {
    let env = RealEnv::new();
    let c = CodexClient::new(mcp_options(&env));
    let asked = Arc::new(AtomicUsize::new(0));
    if let Some(h) = handler {
        let a = asked.clone();
        c.on_command_approval(move |p| {
            a.fetch_add(1, Ordering::SeqCst);
            assert!(p.command.as_deref().unwrap_or("").contains("marker-123"));
            assert!(!p.turn_id.is_empty());
            h(p)
        })
        .unwrap();
    }
    c.connect().unwrap();
    let t = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("ran.txt");
    let r = t
        .run(format!(
            "MOCK_EXEC: touch {} && echo marker-123",
            marker.display()
        ))
        .unwrap();
    (marker.exists(), r, asked.load(Ordering::SeqCst))
}

#[test]
fn approval_accepted_runs_the_command() {
    let (ran, r, asked) = exec_with(Some(|_| Decision::Accept));
    assert_eq!(asked, 1);
    assert!(ran, "accepted command must run");
    assert_eq!(
        r.final_response.as_deref(),
        Some("command output: marker-123")
    );
    let cmd = r
        .items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .expect("commandExecution item");
    assert_eq!(cmd["status"], "completed");
    assert!(cmd["aggregatedOutput"]
        .as_str()
        .unwrap()
        .contains("marker-123"));
}

#[test]
fn approval_accepted_for_session_runs_the_command() {
    let (ran, r, asked) = exec_with(Some(|_| Decision::AcceptForSession));
    assert_eq!(asked, 1);
    assert!(ran);
    assert_eq!(r.status, "completed");
}

#[test]
fn approval_cancel_interrupts_the_turn() {
    let (ran, r, asked) = exec_with(Some(|_| Decision::Cancel));
    assert_eq!(asked, 1);
    assert!(!ran, "cancelled command ran");
    assert_eq!(r.status, "interrupted");
}

#[test]
fn file_change_approval_accepted_writes_the_file() {
    let env = RealEnv::new();
    let c = CodexClient::new(mcp_options(&env));
    let asked = Arc::new(AtomicUsize::new(0));
    let a = asked.clone();
    c.on_file_change_approval(move |p| {
        a.fetch_add(1, Ordering::SeqCst);
        assert!(!p.item_id.is_empty());
        codex_client::protocol::FileChangeApprovalDecision::Accept
    })
    .unwrap();
    c.connect().unwrap();
    let t = c
        .thread_start(json!({"approvalPolicy": "untrusted"}))
        .unwrap();
    let r = t.run("MOCK_PATCH: hello.txt patched-by-mcp").unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1, "{r:?}");
    let written = std::fs::read_to_string(env.work.path().join("hello.txt")).unwrap();
    assert!(written.contains("patched-by-mcp"));
}

#[test]
fn model_failure_fails_the_turn() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c.thread_start(json!({})).unwrap();
    let r = t.run("MOCK_FAIL: 400").unwrap();
    assert_eq!(r.status, "failed", "{r:?}");
    assert!(r.error.is_some());
}

#[test]
fn approval_declined_does_not_run() {
    let (ran, r, asked) = exec_with(Some(|_| Decision::Decline));
    assert_eq!(asked, 1);
    assert!(!ran, "declined command ran");
    let text = r.final_response.unwrap_or_default();
    assert!(text.contains("rejected"), "{text}");
    assert!(!text.contains("command output: marker-123"));
}

/// Like [`exec_with`] with a raw server-request handler answering `answer`.
fn exec_with_raw(answer: fn(codex_client::ServerRequest)) -> (bool, codex_client::TurnResult) {
    let env = RealEnv::new();
    let c = CodexClient::new(mcp_options(&env));
    c.on_server_request(answer).unwrap();
    c.connect().unwrap();
    let t = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("ran.txt");
    let r = t
        .run(format!(
            "MOCK_EXEC: touch {} && echo marker-123",
            marker.display()
        ))
        .unwrap();
    (marker.exists(), r)
}

#[test]
fn error_or_unexpected_answer_declines() {
    let (ran, r) = exec_with_raw(|req| {
        assert_eq!(req.method, "item/commandExecution/requestApproval");
        req.respond_error(&codex_client::RpcError::new(-32000, "no", None))
            .unwrap();
    });
    assert!(!ran, "an error answer approved the command");
    assert!(r.final_response.unwrap_or_default().contains("rejected"));
    let (ran, _) = exec_with_raw(|req| req.respond(&json!({"decision": "sure"})).unwrap());
    assert!(!ran, "an unknown decision approved the command");
    let (ran, _) = exec_with_raw(|req| req.respond(&json!({"approved": true})).unwrap());
    assert!(!ran, "a result without decision approved the command");
}

#[test]
fn no_handler_declines() {
    let (ran, r, asked) = exec_with(None);
    assert_eq!(asked, 0);
    assert!(!ran, "command ran without a handler");
    assert!(r.final_response.unwrap_or_default().contains("rejected"));
}

#[test]
fn handler_panic_declines() {
    let (ran, _r, asked) = exec_with(Some(|_| panic!("handler bug")));
    assert_eq!(asked, 1);
    assert!(!ran, "a panicking handler must not approve");
}

#[test]
fn interrupt_ends_the_turn_as_interrupted() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c.thread_start(json!({})).unwrap();
    let mut s = t.run_streamed("MOCK_SLOW: 50 100").unwrap();
    let mut deltas = 0;
    let mut interrupted = false;
    while let Some(ev) = s.next_event(Some(Duration::from_secs(30))).unwrap() {
        if let Event::Notification(n) = &ev {
            if n.method == "item/agentMessage/delta" {
                deltas += 1;
                if deltas == 3 && !interrupted {
                    s.interrupt().unwrap();
                    interrupted = true;
                }
            }
        }
        if s.is_done() {
            break;
        }
    }
    let r = s.finish().unwrap();
    assert_eq!(r.status, "interrupted");
    assert!(deltas < 50, "turn was not cut short");
    // The thread is usable afterwards.
    let mut s2 = t.run_streamed("MOCK_TEXT: after").unwrap();
    loop {
        match s2.next_event(Some(Duration::from_secs(20))).unwrap() {
            None => panic!("turn after the interrupt stalled"),
            Some(Event::Notification(n)) if n.method == "turn/completed" => break,
            _ => {}
        }
    }
    let r2 = s2.finish().unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("after"));
    // 0.92.0 keeps the interrupted call's event forwarder alive; later turns still get all
    // their events.
    let r3 = t.run("MOCK_TEXT: again").unwrap();
    assert_eq!(r3.final_response.as_deref(), Some("again"));
    assert!(r3.usage.is_some());
}

#[test]
fn unsupported_methods_are_errors() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c.thread_start(json!({})).unwrap();
    for (m, p) in [
        ("thread/fork", json!({"threadId": t.id()})),
        ("thread/list", json!({})),
        ("turn/steer", json!({"threadId": t.id(), "input": []})),
        ("model/list", json!({})),
    ] {
        match c.request_blocking(m, p) {
            Err(Error::Unsupported(msg)) => assert!(msg.contains(m), "{msg}"),
            other => panic!("{m}: expected Unsupported, got {other:?}"),
        }
    }
    match t.run(codex_client::Input::text("x").and_image_url("http://127.0.0.1/x.png")) {
        Err(Error::Unsupported(_)) => {}
        other => panic!("image input: expected Unsupported, got {other:?}"),
    }
    match t.run_with("x", json!({"outputSchema": {"type": "object"}})) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("outputSchema"), "{msg}"),
        other => panic!("outputSchema: expected Unsupported, got {other:?}"),
    }
    match c.thread_start(json!({"ephemeral": true})) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("ephemeral"), "{msg}"),
        other => panic!(
            "ephemeral: expected Unsupported, got {:?}",
            other.map(|t| t.id().to_owned())
        ),
    }
    // After the first turn, per-turn overrides cannot reach codex-reply: an error.
    t.run("MOCK_TEXT: one").unwrap();
    match t.run_with("two", json!({"model": "other-model"})) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("model"), "{msg}"),
        other => panic!("model override: expected Unsupported, got {other:?}"),
    }
}

/// A fake MCP server: a python3 script that logs every line it reads to `log` and answers
/// `initialize` with `version` (and `tools/list` unless `answer_tools` is false).
fn fake_server(dir: &Path, version: &str, answer_tools: bool) -> (PathBuf, PathBuf) {
    let log = dir.join("received.log");
    let script = dir.join("fake-mcp.py");
    let body = format!(
        r#"#!/usr/bin/env python3
import sys, json
log = open({log:?}, "a")
for line in sys.stdin:
    log.write(line); log.flush()
    m = json.loads(line)
    if m.get("method") == "initialize":
        print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "result": {{"protocolVersion": {version:?}, "capabilities": {{}}, "serverInfo": {{"name": "fake", "version": "0"}}}}}}), flush=True)
    elif m.get("method") == "tools/list" and {answer_tools}:
        print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "result": {{"tools": [{{"name": "codex"}}]}}}}), flush=True)
        print(json.dumps({{"jsonrpc": "2.0", "id": "srv-ping-1", "method": "ping"}}), flush=True)
"#,
        log = log.display().to_string(),
        answer_tools = if answer_tools { "True" } else { "False" },
    );
    std::fs::write(&script, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, log)
}

fn fake_options(script: &Path) -> ClientOptions {
    ClientOptions::default()
        .transport(TransportKind::CodexMcpServer)
        .codex_bin(script)
}

#[test]
fn unsupported_protocol_version_fails_connect() {
    let dir = TempDir::new("mcp-fake-version");
    let (script, log) = fake_server(dir.path(), "1999-01-01", true);
    let c = CodexClient::new(fake_options(&script));
    let e = c.connect().expect_err("connect must fail");
    let msg = e.to_string();
    assert!(msg.contains("1999-01-01"), "{msg}");
    assert!(msg.contains("does not support"), "{msg}");
    let received = std::fs::read_to_string(log).unwrap();
    assert!(received.contains("\"protocolVersion\":\"2025-11-25\""));
    assert!(
        !received.contains("notifications/initialized"),
        "must disconnect, not continue"
    );
}

#[test]
fn older_supported_protocol_version_is_accepted() {
    let dir = TempDir::new("mcp-fake-old");
    let (script, log) = fake_server(dir.path(), "2025-03-26", true);
    let c = codex_connected(fake_options(&script));
    assert_eq!(
        c.initialize_result().unwrap().raw["mcp"]["protocolVersion"],
        "2025-03-26"
    );
    let received = std::fs::read_to_string(&log).unwrap();
    assert!(received.contains("notifications/initialized"));
    assert!(received.contains("tools/list"));
    // The server's ping is answered.
    assert!(
        support::wait_until(Duration::from_secs(5), || {
            std::fs::read_to_string(&log).unwrap().lines().any(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["id"] == "srv-ping-1" && v["result"].is_object()
            })
        }),
        "server ping not answered"
    );
}

#[test]
fn request_timeout_sends_cancelled() {
    let dir = TempDir::new("mcp-fake-timeout");
    let (script, log) = fake_server(dir.path(), "2025-11-25", false);
    let c = CodexClient::new(fake_options(&script).default_timeout(Duration::from_secs(2)));
    let e = c.connect().expect_err("tools/list never answered");
    assert!(e.to_string().contains("tools/list"), "{e}");
    assert!(
        support::wait_until(Duration::from_secs(5), || {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .any(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["method"] == "notifications/cancelled" && v["params"]["requestId"].is_i64()
                })
        }),
        "no notifications/cancelled; the fake server received:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // The cancelled id is the tools/list request's.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let list_id = lines.iter().find(|v| v["method"] == "tools/list").unwrap()["id"].clone();
    let cancelled = lines
        .iter()
        .find(|v| v["method"] == "notifications/cancelled")
        .unwrap();
    assert_eq!(cancelled["params"]["requestId"], list_id);
}

#[test]
fn typed_thread_start_and_turn_start_parse() {
    use codex_client::protocol::{self, methods};
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let started = c
        .call::<methods::ThreadStart>(protocol::ThreadStartParams::default())
        .unwrap();
    assert!(started.thread.id.starts_with("mcp-thread-"));
    let t = c.thread(&started.thread.id);
    let r = t.run("MOCK_TEXT: typed").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("typed"));
    let read = c
        .call::<methods::ThreadRead>(protocol::ThreadReadParams {
            thread_id: started.thread.id.clone(),
            include_turns: None,
            extra: Default::default(),
        })
        .unwrap();
    assert_eq!(read.thread.id, started.thread.id);
}

#[test]
fn server_exit_fails_the_turn_and_later_requests() {
    let dir = TempDir::new("mcp-fake-exit");
    let script = dir.path().join("dying-mcp.py");
    std::fs::write(
        &script,
        r#"#!/usr/bin/env python3
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "fake", "version": "0"}}}), flush=True)
    elif m.get("method") == "tools/list":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [{"name": "codex"}, {"name": "codex-reply"}]}}), flush=True)
    elif m.get("method") == "tools/call":
        print(json.dumps({"jsonrpc": "2.0", "method": "codex/event", "params": {"_meta": {"requestId": m["id"], "threadId": "t-1"}, "id": "1", "msg": {"type": "brand_new_event", "x": 1}}}), flush=True)
        sys.stderr.write("fatal: simulated crash\n"); sys.stderr.flush()
        sys.exit(3)
"#,
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let c = codex_connected(fake_options(&script));
    let t = c.thread_start(json!({})).unwrap();
    let mut s = t.run_streamed("hi").unwrap();
    let mut raw_seen = false;
    for ev in s.iter() {
        if let Event::Notification(n) = ev {
            // An event type this client does not know arrives raw.
            if n.method == "codex/event/brand_new_event" {
                raw_seen = true;
                assert_eq!(n.params_value()["msg"]["x"], 1);
            }
        }
    }
    let r = s.finish().unwrap();
    assert!(raw_seen, "unknown event type was dropped");
    assert_eq!(r.status, "failed");
    let msg = r.error.unwrap().to_string();
    assert!(msg.contains("simulated crash"), "{msg}");
    let e = c.thread_start(json!({})).expect_err("server is gone");
    assert!(e.to_string().contains("simulated crash"), "{e}");
}

#[test]
fn thread_settings_reach_the_codex_tool() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c
        .thread_start(json!({"model": "gpt-5.2-codex", "developerInstructions": "DEV-INSTR-42"}))
        .unwrap();
    let r = t
        .run_with("MOCK_TEXT: ok", json!({"effort": "low"}))
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("ok"));
    let req = env.model.requests().last().unwrap().clone();
    assert_eq!(req["model"], "gpt-5.2-codex");
    assert!(req.to_string().contains("DEV-INSTR-42"));
    assert_eq!(req["reasoning"]["effort"], "low", "{}", req["reasoning"]);
}

/// A profile of `config.toml` whose model the mock model sees.
fn add_profile(env: &RealEnv, name: &str, model: &str) {
    let path = env.home.path().join("config.toml");
    let mut toml = std::fs::read_to_string(&path).unwrap();
    toml.push_str(&format!("\n[profiles.{name}]\nmodel = \"{model}\"\n"));
    std::fs::write(&path, toml).unwrap();
}

/// The real 0.92.0's `codex` tool takes `profile` and `compact-prompt` (its `tools/list`), the
/// arguments the shim fills from the params `profile`/`compactPrompt` or the `config` keys
/// `profile`/`compact_prompt`.
#[test]
fn codex_tool_of_0_92_0_takes_profile_and_compact_prompt() {
    let env = RealEnv::new();
    let opts = ClientOptions::default()
        .transport(TransportKind::McpStdio(
            codex_client::McpCommand::new(support::codex_092_bin()).arg("mcp-server"),
        ))
        .codex_home(env.home.path())
        .env("OPENAI_BASE_URL", env.model.base_url())
        .default_timeout(Duration::from_secs(60));
    let c = codex_connected(opts);
    let tools = futures_executor::block_on(
        codex_client::McpClient::from_connection(c.connection()).list_all_tools(),
    )
    .unwrap();
    let codex = tools
        .iter()
        .find(|t| t.name == "codex")
        .expect("the codex tool");
    let props = &codex.input_schema["properties"];
    assert_eq!(props["profile"]["type"], "string", "{props}");
    assert_eq!(props["compact-prompt"]["type"], "string", "{props}");
}

#[test]
fn profile_reaches_the_codex_tool() {
    let env = RealEnv::new();
    add_profile(&env, "kwprof", "profile-model-77");
    add_profile(&env, "other", "profile-model-88");
    let c = codex_connected(mcp_options(&env));
    // By the param of that name, by the `config` key, and the param winning over the key.
    for (params, want) in [
        (json!({"profile": "kwprof"}), "profile-model-77"),
        (json!({"config": {"profile": "other"}}), "profile-model-88"),
        (
            json!({"profile": "kwprof", "config": {"profile": "other"}}),
            "profile-model-77",
        ),
    ] {
        env.model.reset();
        let t = c.thread_start(params.clone()).unwrap();
        let r = t.run("MOCK_TEXT: profiled").unwrap();
        assert_eq!(r.final_response.as_deref(), Some("profiled"), "{params}");
        let req = env.model.requests().last().unwrap().clone();
        assert_eq!(req["model"], want, "{params}");
    }
    // Set on the first turn instead of the thread.
    env.model.reset();
    let t = c.thread_start(json!({})).unwrap();
    let r = t
        .run_with("MOCK_TEXT: first", json!({"profile": "other"}))
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("first"));
    assert_eq!(
        env.model.requests().last().unwrap()["model"],
        "profile-model-88"
    );
    // Not a string: refused before anything is sent.
    let e = c.thread_start(json!({"profile": 7})).expect_err("a number");
    assert!(e.to_string().contains("`profile` must be a string"), "{e}");
    // After the first turn it cannot change (`codex-reply` takes a prompt only).
    let e = t
        .run_with("MOCK_TEXT: x", json!({"compactPrompt": "late"}))
        .expect_err("after the first turn");
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
}

/// `compact-prompt` replaces Codex's compaction prompt: with an auto-compaction limit of one
/// token, the second turn compacts first, and the request that does it carries our prompt.
#[test]
fn compact_prompt_reaches_the_codex_tool() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let t = c
        .thread_start(json!({
            "compactPrompt": "COMPACT-PROMPT-4242 summarise please",
            "config": {"model_auto_compact_token_limit": 1},
        }))
        .unwrap();
    t.run("MOCK_TEXT: one").unwrap();
    t.run("MOCK_TEXT: two").unwrap();
    let reqs = env.model.requests();
    assert!(
        reqs.iter()
            .any(|r| request_text(r).contains("COMPACT-PROMPT-4242")),
        "no request carried the compact prompt: {:#?}",
        reqs.iter().map(request_text).collect::<Vec<_>>()
    );
}

#[test]
fn two_threads_run_concurrently_without_mixing_events() {
    let env = RealEnv::new();
    let c = codex_connected(mcp_options(&env));
    let a = c.thread_start(json!({})).unwrap();
    let b = c.thread_start(json!({})).unwrap();
    assert_ne!(a.id(), b.id());
    let collect = |t: codex_client::Thread, prompt: &'static str| {
        std::thread::spawn(move || {
            let mut s = t.run_streamed(prompt).unwrap();
            let mut text = String::new();
            for ev in s.iter() {
                if let Event::Notification(n) = ev {
                    assert_eq!(n.thread_id().as_deref(), Some(t.id()), "{}", n.method);
                    if n.method == "item/agentMessage/delta" {
                        text.push_str(&n.delta().unwrap());
                    }
                }
            }
            (text, s.finish().unwrap())
        })
    };
    let ha = collect(a, "MOCK_TEXT: alpha alpha alpha alpha");
    let hb = collect(b, "MOCK_TEXT: beta beta beta beta");
    let (ta, ra) = ha.join().unwrap();
    let (tb, rb) = hb.join().unwrap();
    assert_eq!(ta, "alpha alpha alpha alpha");
    assert_eq!(tb, "beta beta beta beta");
    assert_eq!(
        ra.final_response.as_deref(),
        Some("alpha alpha alpha alpha")
    );
    assert_eq!(rb.final_response.as_deref(), Some("beta beta beta beta"));
}

/// Codex 0.92.0 sends neither log records nor progress (it has no `logging` capability,
/// never answers `logging/setLevel` and ignores a `tools/call` progress token), so a fake
/// server sends them: the shim forwards them as `mcp/message` and `mcp/progress`, the
/// progress of a turn's call scoped to that turn.
#[test]
fn server_log_and_progress_notifications_are_forwarded() {
    let dir = TempDir::new("mcp-fake-notes");
    let script = dir.path().join("noisy-mcp.py");
    std::fs::write(
        &script,
        r#"#!/usr/bin/env python3
import sys, json
def send(m):
    print(json.dumps(m), flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}}, "serverInfo": {"name": "fake", "version": "0"}}})
    elif m.get("method") == "tools/list":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [{"name": "codex"}, {"name": "codex-reply"}]}})
    elif m.get("method") == "tools/call":
        token = m["params"]["_meta"]["progressToken"]
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fake", "data": "hello log"}})
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1, "total": 2, "message": "half way"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": "fake answer"}], "structuredContent": {"threadId": "fake-thread-1"}}})
"#,
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let c = CodexClient::new(fake_options(&script));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    c.on_notification(move |n| {
        if n.method.starts_with("mcp/") {
            s2.lock()
                .unwrap()
                .push((n.method.clone(), n.params_value()));
        }
    })
    .unwrap();
    c.connect().unwrap();
    let t = c.thread_start(json!({})).unwrap();
    let mut s = t.run_streamed("hi").unwrap();
    let turn_id = s.turn_id().to_owned();
    let mut methods = Vec::new();
    let mut progress = None;
    for ev in s.iter() {
        if let Event::Notification(n) = ev {
            if n.method == "mcp/progress" {
                progress = Some(n.params_value());
            }
            methods.push(n.method.clone());
        }
    }
    let r = s.finish().unwrap();
    assert_eq!(r.final_response.as_deref(), Some("fake answer"), "{r:?}");
    let p = progress.unwrap_or_else(|| panic!("no mcp/progress in the turn stream: {methods:?}"));
    assert_eq!(p["progressToken"], turn_id.as_str());
    assert_eq!(p["turnId"], turn_id.as_str());
    assert_eq!(p["threadId"], t.id());
    assert_eq!(
        (p["progress"].as_i64(), p["total"].as_i64()),
        (Some(1), Some(2))
    );
    assert_eq!(p["message"], "half way");
    let at = |m: &str| methods.iter().position(|x| x == m);
    assert!(at("mcp/progress") < at("turn/completed"), "{methods:?}");
    // Notifications of no turn reach the client's handler.
    assert!(
        support::wait_until(Duration::from_secs(5), || {
            let seen = seen.lock().unwrap();
            let log = seen.iter().find(|(m, _)| m == "mcp/message");
            log.is_some_and(|(_, p)| p["data"] == "hello log" && p["level"] == "info")
                && seen.iter().any(|(m, _)| m == "mcp/tools/list_changed")
        }),
        "log record or list change not forwarded: {:?}",
        seen.lock().unwrap()
    );
}

/// The `codex` tool's `base-instructions`, `sandbox` and `cwd` (from the thread's
/// `baseInstructions`, `sandbox`, `cwd`) take effect in the real 0.92.0: the base instructions
/// are the model request's `instructions`, the command runs in `cwd`, and Codex's own
/// `session_configured` event carries the sandbox and the cwd.
#[test]
fn base_instructions_sandbox_and_cwd_reach_the_codex_tool() {
    let env = RealEnv::new();
    let dir = env.work.path().join("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let c = codex_connected(mcp_options(&env));
    let t = c
        .thread_start(json!({
            "baseInstructions": "BASE-INSTR-3141 you are a test",
            "sandbox": "workspace-write",
            "cwd": dir.to_str().unwrap(),
        }))
        .unwrap();
    let mut s = t.run_streamed("MOCK_EXEC_PLAIN: pwd").unwrap();
    let mut configured = Vec::new();
    for ev in s.iter() {
        if let Event::Notification(n) = ev {
            if n.method == "codex/event/session_configured" {
                configured.push(n.params_value()["msg"].clone());
            }
        }
    }
    let r = s.into_result().unwrap();
    assert_eq!(
        r.final_response.as_deref(),
        Some(format!("command output: {}", dir.display()).as_str()),
        "{r:?}"
    );
    let first = env.model.requests()[0].clone();
    assert!(
        first["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("BASE-INSTR-3141")),
        "{}",
        first["instructions"]
    );
    assert_eq!(configured.len(), 1, "{configured:?}");
    let msg = &configured[0];
    assert_eq!(msg["sandbox_policy"]["type"], "workspace-write", "{msg}");
    assert_eq!(msg["cwd"], dir.to_str().unwrap(), "{msg}");
    c.disconnect();
}

/// Whether process `pid` is still running (a zombie counts as gone).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// Disconnecting in the middle of a turn stops `codex mcp-server` and what it started (its
/// process group): no process outlives the client, and the turn's `tools/call` was cancelled
/// first.
#[test]
fn disconnect_mid_turn_stops_the_server_and_its_process_group() {
    let dir = TempDir::new("mcp-fake-stop");
    let script = dir.path().join("stuck-mcp.py");
    let pids = dir.path().join("pids");
    let log = dir.path().join("received.log");
    std::fs::write(
        &script,
        format!(
            r#"#!/usr/bin/env python3
import sys, json, os, subprocess
helper = subprocess.Popen(["sleep", "600"])
log = open({log:?}, "a")
for line in sys.stdin:
    log.write(line); log.flush()
    m = json.loads(line)
    if m.get("method") == "initialize":
        print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "result": {{"protocolVersion": "2025-11-25", "capabilities": {{}}, "serverInfo": {{"name": "fake", "version": "0"}}}}}}), flush=True)
    elif m.get("method") == "tools/list":
        print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "result": {{"tools": [{{"name": "codex"}}]}}}}), flush=True)
    elif m.get("method") == "tools/call":
        open({pids:?}, "w").write(f"{{os.getpid()}} {{helper.pid}}\n")
"#,
            log = log.display().to_string(),
            pids = pids.display().to_string(),
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let c = codex_connected(fake_options(&script));
    let t = c.thread_start(json!({})).unwrap();
    let stream = t.run_streamed("never answered").unwrap();
    assert!(
        support::wait_until(Duration::from_secs(10), || std::fs::read_to_string(&pids)
            .is_ok_and(|p| p.ends_with('\n'))),
        "the fake server never saw tools/call"
    );
    let text = std::fs::read_to_string(&pids).unwrap();
    let found: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(found.iter().all(|p| running(*p)), "{found:?} not running");
    c.disconnect();
    for pid in &found {
        assert!(
            support::wait_until(Duration::from_secs(5), || !running(*pid)),
            "process {pid} outlived the client"
        );
    }
    let received = std::fs::read_to_string(&log).unwrap();
    let call = received
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["method"] == "tools/call")
        .unwrap();
    assert!(
        received.lines().any(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["method"] == "notifications/cancelled" && v["params"]["requestId"] == call["id"]
        }),
        "the running call was not cancelled before the stop:\n{received}"
    );
    drop(stream);
}
