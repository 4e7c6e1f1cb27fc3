//! Integration tests against the real `codex app-server` (`CODEX_DEFAULT` of
//! `scripts/codex-versions.sh`, or `CODEX_VERSION`/`CODEX_BIN`), driven by the project's local
//! mock model (no network, no credentials). The `smoke_` tests also run on every version of
//! `CODEX_SMOKE` (the test scripts loop them with `CODEX_VERSION`).

mod support;

use codex_client::{Client, CodexClient, Delivery, Event};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

#[test]
fn smoke_handshake_reports_the_real_server() {
    let env = RealEnv::new();
    let c = Client::new(env.options());
    let init = c.connect().unwrap();
    let ua = init.user_agent.clone().unwrap();
    assert!(ua.contains(codex_version()), "user agent {ua}");
    // The version the connect-time check compares with the vendored schema's (no warning).
    assert_eq!(init.codex_version(), Some(codex_version()));
    // Inside the window, known as such (no warning, no outside_window event).
    let version = CodexClient::from_connection(&c)
        .server_version()
        .expect("an app-server has a version");
    assert_eq!(version.version.as_deref(), Some(codex_version()));
    assert!(version.in_window(), "{version:?}");
    assert_eq!(version.matches, Some(codex_version()));
    assert!(CodexClient::from_connection(&c)
        .supports("thread/start")
        .unwrap());
    assert!(
        ua.starts_with("codex-client-tests/"),
        "clientInfo.name is used: {ua}"
    );
    assert_eq!(
        std::fs::canonicalize(init.codex_home.unwrap()).unwrap(),
        std::fs::canonicalize(env.home.path()).unwrap()
    );
    assert_eq!(init.platform_family.as_deref(), Some("unix"));
    // Requests after the handshake work; unknown methods get the server's error.
    let models = c.request_blocking("model/list", json!({})).unwrap();
    assert!(models["data"].is_array());
    // A method in no window table is sent as-is: the server's own error.
    let err = c.request_blocking("no/such/method", json!({})).unwrap_err();
    assert_eq!(err.rpc().map(|e| e.code), Some(-32600), "{err}");
    let pid = c.server_pid().unwrap();
    c.disconnect();
    assert!(!pid_alive(pid));
}

#[test]
fn streamed_turn_text_matches_the_scripted_reply() {
    let env = RealEnv::new();
    let c = Client::new(env.options().delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let text = "The quick brown fox jumps over the lazy dog, streamed in pieces.";
    let log = run_turn(&c, &thread, &format!("MOCK_TEXT: {text}"), |r| {
        panic!("unexpected request {}", r.method)
    });
    assert_eq!(log.status(), "completed");
    let deltas = log
        .notifications
        .iter()
        .filter(|n| n.method == "item/agentMessage/delta")
        .count();
    assert!(deltas > 3, "expected several deltas, got {deltas}");
    assert_eq!(log.streamed_text(), text);
    assert_eq!(log.final_message(), text);
    // Every turn notification names our thread and turn.
    for n in &log.notifications {
        if n.method.starts_with("item/") {
            assert_eq!(n.thread_id().as_deref(), Some(thread.as_str()));
            assert_eq!(n.turn_id().as_deref(), Some(log.turn_id.as_str()));
        }
    }
    // The model saw the prompt.
    let reqs = env.model.requests();
    assert!(reqs
        .iter()
        .any(|r| r.to_string().contains("quick brown fox")));
}

fn approval_turn(decision: Option<&str>) -> (TurnLog, bool, RealEnv) {
    let env = RealEnv::new();
    let c = Client::new(env.options().delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let marker = env.work.path().join("ran.txt");
    let prompt = format!("MOCK_EXEC: touch {} && echo ran-ok", marker.display());
    let mut seen = 0;
    let log = run_turn(&c, &thread, &prompt, |r| {
        assert_eq!(r.method, "item/commandExecution/requestApproval");
        let p: serde_json::Value = r.params_as().unwrap();
        assert!(
            p["command"].as_str().unwrap().contains("echo ran-ok"),
            "{p}"
        );
        seen += 1;
        match decision {
            Some(d) => r.respond(&json!({ "decision": d })).unwrap(),
            None => drop(r), // dropped unanswered: fail-closed
        }
    });
    assert_eq!(seen, 1, "exactly one approval request");
    assert!(log
        .notifications
        .iter()
        .any(|n| n.method == "serverRequest/resolved"));
    let ran = marker.exists();
    (log, ran, env)
}

#[test]
fn smoke_command_approval_accepted_runs_the_command() {
    let (log, ran, _env) = approval_turn(Some("accept"));
    log.assert_every_event_typed();
    assert!(ran, "the accepted command must run");
    let cmd = &log.completed_items("commandExecution")[0];
    assert_eq!(cmd["status"], "completed", "{cmd}");
    assert!(cmd["aggregatedOutput"].as_str().unwrap().contains("ran-ok"));
    assert_eq!(log.final_message(), "command output: ran-ok");
}

#[test]
fn command_approval_declined_does_not_run() {
    let (log, ran, _env) = approval_turn(Some("decline"));
    assert!(!ran, "a declined command must not run");
    assert_eq!(
        log.completed_items("commandExecution")[0]["status"],
        "declined"
    );
}

#[test]
fn dropped_approval_is_declined() {
    let (log, ran, _env) = approval_turn(None);
    assert!(!ran);
    assert_eq!(
        log.completed_items("commandExecution")[0]["status"],
        "declined"
    );
}

#[test]
fn approval_with_no_handler_registered_is_declined() {
    // Callback mode with only a notification handler: the approval has no handler.
    let env = RealEnv::new();
    let c = Client::new(env.options());
    let (tx, rx) = std::sync::mpsc::channel();
    let items = Arc::new(Mutex::new(Vec::new()));
    let items2 = items.clone();
    c.on_notification(move |n| {
        if n.method == "item/completed" {
            items2
                .lock()
                .unwrap()
                .push(n.params_value()["item"].clone());
        }
        if n.method == "turn/completed" {
            let _ = tx.send(n.params_value());
        }
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.request_blocking("thread/start", json!({})).unwrap()["thread"]["id"].clone();
    let marker = env.work.path().join("never.txt");
    c.request_blocking(
        "turn/start",
        json!({"threadId": thread, "input": [{"type": "text", "text": format!("MOCK_EXEC: touch {}", marker.display())}]}),
    )
    .unwrap();
    let done = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("turn completes");
    assert_eq!(done["turn"]["status"], "completed");
    assert!(!marker.exists(), "no handler must mean declined");
    let items = items.lock().unwrap();
    let cmd = items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .expect("command item");
    assert_eq!(cmd["status"], "declined");
}

#[test]
fn opted_out_notifications_are_not_received() {
    let env = RealEnv::new();
    let c = Client::new(
        env.options()
            .delivery(Delivery::Poll)
            .opt_out("item/agentMessage/delta")
            .opt_out("thread/started"),
    );
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let log = run_turn(&c, &thread, "MOCK_TEXT: no deltas for me please", |_| {});
    assert_eq!(log.final_message(), "no deltas for me please");
    assert!(log
        .notifications
        .iter()
        .all(|n| n.method != "item/agentMessage/delta" && n.method != "thread/started"));
    // Control: without the opt-out the same turn streams deltas.
    let c2 = Client::new(env.options().delivery(Delivery::Poll));
    c2.connect().unwrap();
    let t2 = start_thread(&c2, json!({}));
    let log2 = run_turn(&c2, &t2, "MOCK_TEXT: no deltas for me please", |_| {});
    assert!(log2
        .notifications
        .iter()
        .any(|n| n.method == "item/agentMessage/delta"));
}

#[test]
fn turn_interrupt_ends_the_turn_as_interrupted() {
    let env = RealEnv::new();
    let c = Client::new(env.options().delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let v = c
        .request_blocking(
            "turn/start",
            json!({"threadId": thread, "input": [{"type":"text","text":"MOCK_SLOW: 100 100"}]}),
        )
        .unwrap();
    let turn = v["turn"]["id"].as_str().unwrap().to_owned();
    // Wait for streaming to begin, then interrupt.
    loop {
        match c
            .next_event(Some(Duration::from_secs(30)))
            .unwrap()
            .expect("event")
        {
            Event::Notification(n) if n.method == "item/agentMessage/delta" => break,
            _ => {}
        }
    }
    assert_eq!(
        c.request_blocking(
            "turn/interrupt",
            json!({"threadId": thread, "turnId": turn})
        )
        .unwrap(),
        json!({})
    );
    loop {
        if let Event::Notification(n) = c
            .next_event(Some(Duration::from_secs(30)))
            .unwrap()
            .expect("event")
        {
            if n.method == "turn/completed" {
                assert_eq!(n.params_value()["turn"]["status"], "interrupted");
                break;
            }
        }
    }
}

/// `supports` and the unsupported-method error, by the window's method table against the real
/// server: on a version that lacks `thread/search/stream` (0.163.0 of `CODEX_SMOKE`) the call
/// fails at once, naming the method, the version and the versions that have it, and nothing
/// is sent (the connection goes on); on one that has it the same call reaches the server.
#[test]
fn smoke_supports_and_the_unsupported_method_error() {
    use codex_client::{protocol, Error, ErrorKind};
    let env = RealEnv::new();
    let c = Client::new(env.options().experimental_api(true));
    c.connect().unwrap();
    let method = "thread/search/stream";
    let have = protocol::client_method_versions(method).expect("in the window table");
    let has = have.contains(&codex_version());
    assert_eq!(
        CodexClient::from_connection(&c).supports(method).unwrap(),
        has
    );
    let r = c.request_blocking(method, json!({"query": "x"}));
    if has {
        // The server got it: any answer but the library's refusal.
        if let Err(e) = &r {
            assert_ne!(e.kind(), ErrorKind::UnsupportedByVersion, "{e}");
        }
    } else {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedByVersion, "{e}");
        let Error::UnsupportedByVersion(u) = &e else {
            unreachable!()
        };
        assert_eq!(u.method, method);
        assert_eq!(u.server_version, codex_version());
        assert_eq!(u.versions, have.to_vec());
        let text = e.to_string();
        assert!(
            text.contains(method) && text.contains(codex_version()),
            "{text}"
        );
        // The same refusal from the async path, and the connection is untouched.
        let e2 = futures_executor::block_on(c.request(method, json!({}))).unwrap_err();
        assert_eq!(e2.kind(), ErrorKind::UnsupportedByVersion);
        assert!(c.is_connected());
        assert!(c.request_blocking("model/list", json!({})).is_ok());
        // Proof nothing went out: the real server, asked anyway (the method in no table
        // under another spelling is sent as-is), does not know it.
        let raw = c.request_blocking("thread/search/streamX", json!({}));
        assert!(raw.unwrap_err().rpc().is_some());
    }
    c.disconnect();
}
