//! The exec transport (`codex exec --json`, one process per turn) against the real Codex
//! (the default, CODEX_DEFAULT) and the local mock model.

mod support;

use codex_client::{
    Client, ClientOptions, CodexClient, Error, Event, ExecOptions, Input, TransportKind,
};
use serde_json::{json, Value};
use std::time::Duration;
use support::*;

/// A unique tag put into the environment of every exec process of one client, so tests can
/// find those processes in /proc.
fn tag() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "exec-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `HOME` is the throwaway work directory: the commands Codex runs go through `bash -lc`,
/// which would otherwise source this machine's shell profile (its `pyenv rehash` printed a
/// line into the commands' output when the shims were not writable).
fn exec_options(env: &RealEnv, exec: ExecOptions) -> ClientOptions {
    env.options()
        .env("HOME", env.work.path().to_string_lossy().into_owned())
        .transport(TransportKind::Exec(exec.skip_git_repo_check(true)))
}

fn exec_client(env: &RealEnv) -> CodexClient {
    codex_connected(exec_options(env, ExecOptions::new()))
}

/// Pids of live processes whose environment carries `CODEX_CLIENT_TEST_TAG=<tag>`.
fn tagged_pids(tag: &str) -> Vec<u32> {
    let needle = format!("CODEX_CLIENT_TEST_TAG={tag}");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(env) = std::fs::read(e.path().join("environ")) {
            if env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) && pid_alive(pid) {
                out.push(pid);
            }
        }
    }
    out
}

/// The text of every `input` message of a recorded model request, flattened.
fn request_texts(req: &Value) -> String {
    let mut out = String::new();
    for item in req["input"].as_array().into_iter().flatten() {
        for part in item["content"].as_array().into_iter().flatten() {
            if let Some(t) = part["text"].as_str() {
                out.push_str(t);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn run_returns_final_text_items_and_usage() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let init = c.initialize_result().expect("initialized");
    assert!(format!("{init:?}").contains("codex"), "{init:?}");
    let thread = c.thread_start(json!({})).unwrap();
    assert!(!thread.id().is_empty());
    let r = thread.run("MOCK_TEXT: four score and seven years").unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert_eq!(r.thread_id, thread.id());
    assert_eq!(
        r.final_response.as_deref(),
        Some("four score and seven years")
    );
    let kinds: Vec<_> = r
        .items
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(kinds, ["userMessage", "agentMessage"], "{:?}", r.items);
    assert_eq!(
        r.items[0]["content"][0]["text"],
        "MOCK_TEXT: four score and seven years"
    );
    let usage = r.usage.expect("token usage reported");
    assert!(
        usage["total"]["totalTokens"].as_i64().unwrap_or(0) > 0,
        "{usage}"
    );
    assert_eq!(usage["total"], usage["last"]);
    // The turn object of turn/completed carries the final message, like the app-server's.
    assert_eq!(r.turn["items"][0]["text"], "four score and seven years");
    assert_eq!(thread.status(), codex_client::ThreadStatus::Idle);
    // The typed view of the items works too.
    let typed: codex_client::protocol::ThreadItem =
        serde_json::from_value(r.items[1].clone()).unwrap();
    assert!(matches!(
        typed,
        codex_client::protocol::ThreadItem::AgentMessage(_)
    ));
}

#[test]
fn run_streamed_yields_one_turn_in_order() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let mut s = thread.run_streamed("MOCK_TEXT: streamed words").unwrap();
    let turn = s.turn_id().to_owned();
    let methods: Vec<String> = s
        .iter()
        .map(|e| match e {
            Event::Notification(n) => {
                if let Some(t) = n.thread_id() {
                    assert_eq!(t, thread.id(), "{}", n.method);
                }
                if let Some(t) = n.turn_id() {
                    assert_eq!(t, turn, "{}", n.method);
                }
                n.method.clone()
            }
            other => panic!("unexpected event {other:?}"),
        })
        .collect();
    let pos = |m: &str| {
        methods
            .iter()
            .position(|x| x == m)
            .unwrap_or_else(|| panic!("{m} missing from {methods:?}"))
    };
    assert!(pos("turn/started") < pos("item/started"));
    assert!(pos("item/agentMessage/delta") < pos("thread/tokenUsage/updated"));
    assert_eq!(methods.last().map(String::as_str), Some("turn/completed"));
    // exec's non-fatal `error` item ("Model metadata ... not found") is a `warning`, as on
    // the app-server.
    assert!(methods.iter().any(|m| m == "warning"), "{methods:?}");
    assert_eq!(methods.iter().filter(|m| *m == "turn/completed").count(), 1);
    // exec prints whole messages: one delta with the full text.
    let r = s.into_result().unwrap();
    assert_eq!(r.final_response.as_deref(), Some("streamed words"));
    // A second stream on the same thread sees only its own turn.
    let mut s2 = thread.run_streamed("MOCK_TEXT: second").unwrap();
    assert_ne!(s2.turn_id(), turn);
    let texts: String = s2
        .iter()
        .filter_map(|e| match e {
            Event::Notification(n) if n.method == "item/agentMessage/delta" => n.delta(),
            _ => None,
        })
        .collect();
    assert_eq!(texts, "second");
}

#[test]
fn second_turn_resumes_the_exec_session() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let r1 = thread.run("MOCK_TEXT: alpha bravo").unwrap();
    assert!(r1.is_completed(), "{r1:?}");
    let session = thread.read(false).unwrap()["thread"]["sessionId"]
        .as_str()
        .expect("session id known after the first turn")
        .to_owned();
    assert_ne!(session, thread.id());
    let r2 = thread.run("MOCK_TEXT: charlie").unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("charlie"));
    assert_ne!(r2.turn_id, r1.turn_id);
    let reqs = env.model.requests();
    let last = reqs.last().unwrap();
    let texts = request_texts(last);
    assert!(
        texts.contains("MOCK_TEXT: alpha bravo") && texts.contains("alpha bravo\n"),
        "turn 2's request lacks turn 1's messages:\n{texts}"
    );
    // Usage accumulates over the thread's turns.
    let (u1, u2) = (r1.usage.unwrap(), r2.usage.unwrap());
    assert_eq!(
        u2["total"]["totalTokens"].as_i64().unwrap(),
        u1["total"]["totalTokens"].as_i64().unwrap() + u2["last"]["totalTokens"].as_i64().unwrap()
    );
    // The same session stays the thread's session.
    assert_eq!(
        thread.read(false).unwrap()["thread"]["sessionId"],
        json!(session)
    );
}

#[test]
fn thread_resume_by_session_id_from_another_client() {
    let env = RealEnv::new();
    let session = {
        let c = exec_client(&env);
        let t = c.thread_start(json!({})).unwrap();
        assert!(t
            .run("MOCK_TEXT: remember delta echo")
            .unwrap()
            .is_completed());
        let s = t.read(false).unwrap()["thread"]["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        c.disconnect();
        s
    };
    let c = exec_client(&env);
    let t = c.thread_resume(&session, json!({})).unwrap();
    assert_eq!(t.id(), session);
    let r = t.run("MOCK_TEXT: foxtrot").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("foxtrot"));
    let texts = request_texts(env.model.requests().last().unwrap());
    assert!(texts.contains("remember delta echo"), "{texts}");
    // Not a session id: refused (exec would silently start a new session for an unknown name).
    match c.thread_resume("not-a-session", json!({})) {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32602, "{e:?}"),
        other => panic!("expected an invalid-params error, got {other:?}"),
    }
    // A well-formed id Codex does not know: the turn fails with exec's own words.
    let ghost = c
        .thread_resume("01a207ae-0000-7000-8000-000000000000", json!({}))
        .unwrap();
    let r = ghost.run("MOCK_TEXT: lost").unwrap();
    assert_eq!(r.status, "failed", "{r:?}");
    let msg = r.error.unwrap()["message"].as_str().unwrap().to_owned();
    assert!(msg.contains("no rollout found"), "{msg}");
}

#[test]
fn two_threads_run_side_by_side_without_mixing() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let a = c.thread_start(json!({})).unwrap();
    let b = c.thread_start(json!({})).unwrap();
    assert_ne!(a.id(), b.id());
    let mut sa = a.run_streamed("MOCK_SLOW: 5 100").unwrap();
    let mut sb = b.run_streamed("MOCK_TEXT: only for b").unwrap();
    let (ta, tb) = (sa.turn_id().to_owned(), sb.turn_id().to_owned());
    let ha = std::thread::spawn(move || {
        let evs: Vec<Event> = sa.iter().collect();
        (evs, sa.into_result().unwrap())
    });
    let hb = std::thread::spawn(move || {
        let evs: Vec<Event> = sb.iter().collect();
        (evs, sb.into_result().unwrap())
    });
    for (h, thread, turn, text) in [
        (
            ha,
            a.id().to_owned(),
            ta,
            "tick 0 tick 1 tick 2 tick 3 tick 4 ",
        ),
        (hb, b.id().to_owned(), tb, "only for b"),
    ] {
        let (events, result) = h.join().unwrap();
        for ev in &events {
            if let Event::Notification(n) = ev {
                if let Some(t) = n.thread_id() {
                    assert_eq!(t, thread, "{} leaked", n.method);
                }
                if let Some(t) = n.turn_id() {
                    assert_eq!(t, turn);
                }
            }
        }
        assert_eq!(result.final_response.as_deref(), Some(text));
    }
    // Each thread has its own exec session.
    let sa = a.read(false).unwrap()["thread"]["sessionId"].clone();
    let sb = b.read(false).unwrap()["thread"]["sessionId"].clone();
    assert!(sa.is_string() && sb.is_string() && sa != sb, "{sa} {sb}");
}

#[test]
fn command_runs_and_appears_as_command_execution() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread.run("MOCK_EXEC_PLAIN: echo hi").unwrap();
    assert!(r.is_completed(), "{r:?}");
    let cmd = r
        .items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .unwrap_or_else(|| panic!("no commandExecution in {:?}", r.items));
    assert!(
        cmd["command"].as_str().unwrap().contains("echo hi"),
        "{cmd}"
    );
    assert_eq!(cmd["aggregatedOutput"], "hi\n");
    assert_eq!(cmd["exitCode"], 0);
    assert_eq!(cmd["status"], "completed");
    assert_eq!(r.final_response.as_deref(), Some("command output: hi"));
    let typed: codex_client::protocol::ThreadItem = serde_json::from_value(cmd.clone()).unwrap();
    assert!(matches!(
        typed,
        codex_client::protocol::ThreadItem::CommandExecution(_)
    ));
    // exec cannot ask for approval: an escalated command is refused by Codex itself (policy
    // `never`), no server request is sent and the turn does not hang.
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = requests.clone();
    c.on_server_request(move |_r| {
        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    let r = thread.run("MOCK_EXEC: echo escalated").unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert!(
        r.final_response
            .as_deref()
            .unwrap_or("")
            .contains("approval policy is Never"),
        "{r:?}"
    );
    assert_eq!(requests.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[test]
fn output_schema_reaches_the_model_and_the_file_is_removed() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let marker = tag();
    let schema = json!({
        "type": "object",
        "description": marker,
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": false,
    });
    let r = thread
        .run_with(
            r#"MOCK_TEXT: {"answer":"42"}"#,
            json!({"outputSchema": schema}),
        )
        .unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert_eq!(r.final_response.as_deref(), Some(r#"{"answer":"42"}"#));
    let req = env.model.requests().last().unwrap().clone();
    assert_eq!(
        req["text"]["format"]["type"], "json_schema",
        "{}",
        req["text"]
    );
    assert_eq!(req["text"]["format"]["schema"], schema);
    // No schema file with our marker is left behind.
    for e in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        if e.file_name()
            .to_string_lossy()
            .starts_with("codex-exec-schema-")
        {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            assert!(
                !text.contains(&marker),
                "{} left behind",
                e.path().display()
            );
        }
    }
    // The next turn has no schema.
    thread.run("MOCK_TEXT: free text").unwrap();
    let req = env.model.requests().last().unwrap().clone();
    assert_ne!(req["text"]["format"]["type"], "json_schema");
}

#[test]
fn local_image_is_attached() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let png = env.work.path().join("dot.png");
    std::fs::write(
        &png,
        [
            137u8, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1,
            8, 2, 0, 0, 0, 144, 119, 83, 222, 0, 0, 0, 12, 73, 68, 65, 84, 120, 156, 99, 248, 207,
            192, 0, 0, 3, 1, 1, 0, 201, 254, 146, 239, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96,
            130,
        ],
    )
    .unwrap();
    let r = thread
        .run(Input::text("MOCK_TEXT: seen").and_local_image(&png))
        .unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert_eq!(r.items[0]["content"][1]["type"], "localImage");
    let req = env.model.requests().last().unwrap().clone();
    let has_image = req["input"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["content"].as_array().cloned().unwrap_or_default())
        .any(|p| p["type"] == "input_image");
    assert!(has_image, "no input_image in {}", req["input"]);
    // An image URL cannot be passed to exec: a clear error, not a silent drop.
    let err = thread
        .run(Input::text("x").and_image_url("https://example.invalid/a.png"))
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err:?}");
}

#[test]
fn interrupt_kills_the_process_and_ends_the_turn_interrupted() {
    let env = RealEnv::new();
    let t = tag();
    let c =
        CodexClient::new(exec_options(&env, ExecOptions::new()).env("CODEX_CLIENT_TEST_TAG", &t));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let s = thread.run_streamed("MOCK_SLOW: 50 200").unwrap();
    // The environment reaches the process: it can be found by its tag.
    assert!(
        wait_until(Duration::from_secs(20), || !tagged_pids(&t).is_empty()),
        "no exec process carries the tag"
    );
    assert!(
        wait_until(Duration::from_secs(20), || !env.model.requests().is_empty()),
        "the model never got a request"
    );
    assert_eq!(
        thread.status(),
        codex_client::ThreadStatus::Active,
        "{:?}",
        thread.status()
    );
    let started = std::time::Instant::now();
    s.interrupt().unwrap();
    let r = s.finish().unwrap();
    assert_eq!(r.status, "interrupted", "{r:?}");
    assert!(r.error.is_none(), "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        wait_until(Duration::from_secs(5), || tagged_pids(&t).is_empty()),
        "exec processes still alive: {:?}",
        tagged_pids(&t)
    );
    // Interrupting again: no running turn.
    let err = c
        .request_blocking(
            "turn/interrupt",
            json!({"threadId": thread.id(), "turnId": r.turn_id}),
        )
        .unwrap_err();
    assert!(matches!(err, Error::Rpc(_)), "{err:?}");
    // The thread still works after an interrupt.
    let r2 = thread.run("MOCK_TEXT: after").unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("after"));
}

#[test]
fn disconnect_kills_a_running_turn() {
    let env = RealEnv::new();
    let t = tag();
    let c =
        CodexClient::new(exec_options(&env, ExecOptions::new()).env("CODEX_CLIENT_TEST_TAG", &t));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let _s = thread.run_streamed("MOCK_SLOW: 50 200").unwrap();
    assert!(wait_until(Duration::from_secs(20), || !tagged_pids(&t).is_empty()));
    c.disconnect();
    assert!(
        wait_until(Duration::from_secs(5), || tagged_pids(&t).is_empty()),
        "exec processes outlived the client: {:?}",
        tagged_pids(&t)
    );
}

#[test]
fn model_failure_fails_the_turn_with_the_error_text() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let mut s = thread.run_streamed("MOCK_FAIL").unwrap();
    let errors: Vec<_> = s
        .iter()
        .filter_map(|e| match e {
            Event::Notification(n) if n.method == "error" => Some(n.params_value()),
            _ => None,
        })
        .collect();
    let r = s.into_result().unwrap();
    assert_eq!(r.status, "failed", "{r:?}");
    let msg = r.error.as_ref().unwrap()["message"].as_str().unwrap();
    assert!(msg.contains("high demand"), "{msg}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["willRetry"], false);
    // The thread stays usable.
    let r2 = thread.run("MOCK_TEXT: recovered").unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("recovered"));
}

#[test]
fn crashing_binary_fails_the_turn_with_a_stderr_tail() {
    let env = RealEnv::new();
    let dir = TempDir::new("fake-codex");
    let script = dir.path().join("codex");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho '{\"type\":\"thread.started\",\"thread_id\":\"abc\"}'\n\
         echo '{\"type\":\"turn.started\"}'\n\
         i=0; while [ $i -lt 300 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done\n\
         echo 'fatal: the engine exploded' >&2\nexit 3\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let c = CodexClient::new(exec_options(&env, ExecOptions::new()).codex_bin(&script));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread.run("MOCK_TEXT: never").unwrap();
    assert_eq!(r.status, "failed", "{r:?}");
    let msg = r.error.as_ref().unwrap()["message"].as_str().unwrap();
    assert!(msg.contains("status 3"), "{msg}");
    assert!(msg.contains("fatal: the engine exploded"), "{msg}");
    assert!(!msg.contains("noise line 0\n"), "tail not bounded: {msg}");
    assert!(msg.len() < 4096 + 200, "{}", msg.len());
    // A binary that cannot be started: turn/start itself fails.
    let c2 = CodexClient::new(
        exec_options(&env, ExecOptions::new()).codex_bin(dir.path().join("missing-codex")),
    );
    c2.connect().unwrap();
    let t2 = c2.thread_start(json!({})).unwrap();
    let err = t2.run("MOCK_TEXT: x").unwrap_err();
    assert!(err.to_string().contains("missing-codex"), "{err}");
}

#[test]
fn unsupported_methods_answer_a_clear_error() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    for (method, params) in [
        ("thread/list", json!({})),
        ("thread/fork", json!({"threadId": thread.id()})),
        ("model/list", json!({})),
        ("config/read", json!({})),
        ("command/exec", json!({"command": ["true"]})),
        ("review/start", json!({"threadId": thread.id()})),
        (
            "thread/read",
            json!({"threadId": thread.id(), "includeTurns": true}),
        ),
    ] {
        match c.request_blocking(method, params) {
            Err(Error::Unsupported(m)) => {
                assert!(m.contains(method.split('/').next().unwrap()), "{m}")
            }
            other => panic!("{method}: expected Unsupported, got {other:?}"),
        }
    }
    let err = thread.fork(json!({})).unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err:?}");
    assert!(err.to_string().contains("thread/fork"), "{err}");
    // Steer on a running turn.
    let s = thread.run_streamed("MOCK_SLOW: 20 100").unwrap();
    let err = s
        .steer(json!([{"type": "text", "text": "more", "text_elements": []}]))
        .unwrap_err();
    assert!(
        matches!(err, Error::Unsupported(ref m) if m.contains("turn/steer")),
        "{err:?}"
    );
    s.interrupt().unwrap();
    assert_eq!(s.finish().unwrap().status, "interrupted");
    // A thread/start parameter exec cannot honour is refused, not ignored.
    let err = c
        .thread_start(json!({"dynamicTools": [{"name": "x"}]}))
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err:?}");
}

#[test]
fn env_config_overrides_and_exec_options_reach_the_process() {
    let env = RealEnv::new();
    let opts = exec_options(
        &env,
        ExecOptions::new()
            .model("mock-from-options")
            .reasoning_effort("high")
            .sandbox_mode("workspace-write"),
    )
    .config("model_reasoning_summary", "\"detailed\"")
    .env("CODEX_CLIENT_PROBE", "probe-value-1234");
    let c = CodexClient::new(opts);
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    assert_eq!(thread.info()["model"], "mock-from-options");
    let r = thread
        .run("MOCK_EXEC_PLAIN: echo \"probe=$CODEX_CLIENT_PROBE\"")
        .unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert_eq!(
        r.final_response.as_deref(),
        Some("command output: probe=probe-value-1234")
    );
    let req = env.model.requests().last().unwrap().clone();
    assert_eq!(req["model"], "mock-from-options");
    assert_eq!(req["reasoning"]["effort"], "high");
    assert_eq!(req["reasoning"]["summary"], "detailed");
    // thread/start params win over the options, and `config` becomes -c overrides.
    let t2 = c
        .thread_start(json!({
            "model": "mock-from-thread",
            "config": {"model_reasoning_effort": "low"},
            "developerInstructions": "DEVMARK-7 be brief",
            "baseInstructions": "BASEMARK-9 you are a test",
        }))
        .unwrap();
    t2.run("MOCK_TEXT: ok").unwrap();
    let req = env.model.requests().last().unwrap().clone();
    let body = req.to_string();
    assert!(body.contains("DEVMARK-7") && body.contains("BASEMARK-9"));
    assert_eq!(req["model"], "mock-from-thread");
    assert_eq!(
        req["reasoning"]["effort"], "low",
        "thread config wins over the options"
    );
    // Per-turn overrides.
    t2.run_with(
        "MOCK_TEXT: ok",
        json!({"model": "mock-from-turn", "effort": "minimal"}),
    )
    .unwrap();
    let req = env.model.requests().last().unwrap().clone();
    assert_eq!(req["model"], "mock-from-turn");
    assert_eq!(req["reasoning"]["effort"], "minimal");
}

#[test]
fn typed_calls_and_notifications_match_the_schema() {
    use codex_client::protocol::{self, methods, ServerNotification};
    let env = RealEnv::new();
    let c = exec_client(&env);
    let started = c
        .call::<methods::ThreadStart>(protocol::ThreadStartParams::default())
        .unwrap();
    let id = started.thread.id.clone();
    assert_eq!(
        started.thread.session_id, "",
        "no exec session before the first turn"
    );
    let thread = c.thread(&id);
    for prompt in ["MOCK_EXEC_PLAIN: echo typed", "MOCK_FAIL"] {
        let mut s = thread.run_streamed(prompt).unwrap();
        let mut methods_seen = Vec::new();
        for ev in s.iter() {
            let Event::Notification(n) = ev else { continue };
            methods_seen.push(n.method.clone());
            if let ServerNotification::Unknown { method, params } = n.typed() {
                panic!("{method} does not match the schema: {params}");
            }
        }
        assert!(methods_seen.len() >= 5, "{methods_seen:?}");
    }
    let read = c
        .call::<methods::ThreadRead>(protocol::ThreadReadParams {
            thread_id: id.clone(),
            include_turns: Some(false),
            extra: Default::default(),
        })
        .unwrap();
    assert!(!read.thread.session_id.is_empty());
    assert_ne!(read.thread.session_id, id);
    let resumed = c
        .call::<methods::ThreadResume>(
            serde_json::from_value::<protocol::ThreadResumeParams>(
                json!({"threadId": read.thread.session_id}),
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(resumed.thread.id, read.thread.session_id);
    match c.call::<methods::ThreadList>(protocol::ThreadListParams::default()) {
        Err(Error::Unsupported(m)) => assert!(m.contains("thread/list"), "{m}"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn sandbox_mode_decides_whether_a_patch_applies() {
    let env = RealEnv::new();
    let c = exec_client(&env);
    // read-only (a thread/start param): the patch is refused, nothing is written.
    let ro = c.thread_start(json!({"sandbox": "read-only"})).unwrap();
    let r = ro.run("MOCK_PATCH: ro.txt nope").unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert!(
        r.final_response
            .as_deref()
            .unwrap_or("")
            .contains("read-only"),
        "{r:?}"
    );
    assert!(!env.work.path().join("ro.txt").exists());
    // workspace-write: a fileChange item and the file on disk.
    let rw = c
        .thread_start(json!({"sandbox": "workspace-write"}))
        .unwrap();
    let r = rw.run("MOCK_PATCH: rw.txt written by exec").unwrap();
    assert!(r.is_completed(), "{r:?}");
    let fc = r
        .items
        .iter()
        .find(|i| i["type"] == "fileChange")
        .unwrap_or_else(|| panic!("no fileChange in {:?}", r.items));
    assert_eq!(fc["status"], "completed");
    assert_eq!(fc["changes"][0]["kind"]["type"], "add");
    assert!(fc["changes"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with("rw.txt"));
    let typed: codex_client::protocol::ThreadItem = serde_json::from_value(fc.clone()).unwrap();
    assert!(matches!(
        typed,
        codex_client::protocol::ThreadItem::FileChange(_)
    ));
    assert_eq!(
        std::fs::read_to_string(env.work.path().join("rw.txt")).unwrap(),
        "written by exec\n"
    );
}

#[test]
fn web_search_and_network_access_options_reach_codex() {
    let env = RealEnv::new();
    let tools = |req: &Value| -> Vec<String> {
        req["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["type"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let off = CodexClient::new(exec_options(
        &env,
        ExecOptions::new()
            .web_search(false)
            .sandbox_mode("workspace-write"),
    ));
    off.connect().unwrap();
    off.thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: a")
        .unwrap();
    let req = env.model.requests().last().unwrap().clone();
    assert!(
        !tools(&req).contains(&"web_search".to_owned()),
        "{:?}",
        tools(&req)
    );
    assert!(!req["input"]
        .to_string()
        .contains("Network access is enabled"));

    let on = CodexClient::new(exec_options(
        &env,
        ExecOptions::new()
            .web_search(true)
            .sandbox_mode("workspace-write")
            .network_access(true),
    ));
    on.connect().unwrap();
    on.thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: b")
        .unwrap();
    let req = env.model.requests().last().unwrap().clone();
    assert!(
        tools(&req).contains(&"web_search".to_owned()),
        "{:?}",
        tools(&req)
    );
    assert!(req["input"]
        .to_string()
        .contains("Network access is enabled"));
}

#[test]
fn working_directory_and_additional_directories_reach_codex() {
    let env = RealEnv::new();
    let root = TempDir::new("exec-root");
    let extra = TempDir::new("exec-extra");
    // workspace-write also allows /tmp and $TMPDIR by default, where a clone (and so these
    // temp dirs) may live: exclude them so only the workspace and --add-dir are writable.
    let opts = exec_options(
        &env,
        ExecOptions::new()
            .working_directory(root.path())
            .sandbox_mode("workspace-write"),
    )
    .config("sandbox_workspace_write.exclude_slash_tmp", "true")
    .config("sandbox_workspace_write.exclude_tmpdir_env_var", "true");
    let c = CodexClient::new(opts);
    c.connect().unwrap();
    let t = c.thread_start(json!({})).unwrap();
    let r = t.run("MOCK_EXEC_PLAIN: pwd").unwrap();
    assert_eq!(
        r.final_response.unwrap(),
        format!("command output: {}", root.path().display())
    );
    // Outside the workspace without --add-dir: refused.
    let target = extra.path().join("no.txt");
    let r = t
        .run(format!("MOCK_PATCH: {} x", target.display()))
        .unwrap();
    assert!(
        r.final_response
            .as_deref()
            .unwrap_or("")
            .contains("rejected"),
        "{r:?}"
    );
    assert!(!target.exists());
    // With --add-dir: written.
    let c2 = CodexClient::new(exec_options(
        &env,
        ExecOptions::new()
            .working_directory(root.path())
            .sandbox_mode("workspace-write")
            .additional_directory(extra.path()),
    ));
    c2.connect().unwrap();
    let target = extra.path().join("yes.txt");
    let r = c2
        .thread_start(json!({}))
        .unwrap()
        .run(format!("MOCK_PATCH: {} y", target.display()))
        .unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert!(target.exists(), "{r:?}");
}

#[test]
fn poll_mode_and_async_api_work_over_exec() {
    let env = RealEnv::new();
    // Poll mode, raw requests, events from the client's own queue.
    let c =
        Client::new(exec_options(&env, ExecOptions::new()).delivery(codex_client::Delivery::Poll));
    c.connect().unwrap();
    let id = start_thread(&c, json!({}));
    let log = run_turn(&c, &id, "MOCK_TEXT: polled", |r| {
        panic!("no server request expected, got {}", r.method)
    });
    assert_eq!(log.status(), "completed");
    assert_eq!(log.final_message(), "polled");
    assert_eq!(log.streamed_text(), "polled");
    assert_eq!(log.completed_items("userMessage").len(), 1);
    // Async.
    let c2 = exec_client(&env);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let r = rt.block_on(async {
        let t = c2.thread_start_async(json!({})).await.unwrap();
        t.run_async("MOCK_TEXT: awaited", Value::Null)
            .await
            .unwrap()
    });
    assert_eq!(r.final_response.as_deref(), Some("awaited"));
}

/// A stand-in for `codex` that prints the given JSONL lines and exits with `code`.
fn scripted_codex(dir: &TempDir, lines: &[Value], code: i32) -> std::path::PathBuf {
    let script = dir.path().join("codex");
    let mut body = String::from("#!/bin/sh\ncat >/dev/null\n");
    for l in lines {
        body.push_str(&format!("echo '{}'\n", l));
    }
    body.push_str(&format!("exit {code}\n"));
    std::fs::write(&script, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    script
}

#[test]
fn unknown_items_and_events_pass_through_raw_and_todo_lists_become_plans() {
    let env = RealEnv::new();
    let dir = TempDir::new("scripted-codex");
    let todo = |done: bool| {
        json!({"id": "item_2", "type": "todo_list",
               "items": [{"text": "write code", "completed": done}, {"text": "test it", "completed": false}]})
    };
    let script = scripted_codex(
        &dir,
        &[
            json!({"type": "thread.started", "thread_id": "01a207ae-1111-7000-8000-000000000001"}),
            json!({"type": "turn.started"}),
            json!({"type": "item.completed", "item": {"id": "item_1", "type": "hologram", "payload": {"k": 1}}}),
            json!({"type": "future.event", "detail": 7}),
            json!({"type": "item.started", "item": todo(false)}),
            json!({"type": "item.updated", "item": todo(true)}),
            json!({"type": "item.completed", "item": todo(true)}),
            json!({"type": "item.completed", "item": {"id": "item_3", "type": "agent_message", "text": "done"}}),
            json!({"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 5, "reasoning_output_tokens": 1}}),
        ],
        0,
    );
    let c = CodexClient::new(exec_options(&env, ExecOptions::new()).codex_bin(&script));
    c.connect().unwrap();
    let t = c.thread_start(json!({})).unwrap();
    let mut s = t.run_streamed("anything").unwrap();
    let notes: Vec<_> = s
        .iter()
        .filter_map(|e| match e {
            Event::Notification(n) => Some(n),
            _ => None,
        })
        .collect();
    let r = s.into_result().unwrap();
    assert!(r.is_completed(), "{r:?}");
    assert_eq!(r.final_response.as_deref(), Some("done"));
    let raw = r
        .items
        .iter()
        .find(|i| i["type"] == "hologram")
        .expect("raw item kept");
    assert_eq!(raw["payload"]["k"], 1);
    assert!(raw["id"].as_str().unwrap().ends_with("item_1"));
    let ev = notes
        .iter()
        .find(|n| n.method == "exec/event")
        .expect("unknown event passed on");
    assert_eq!(ev.params_value()["event"]["detail"], 7);
    let plans: Vec<_> = notes
        .iter()
        .filter(|n| n.method == "turn/plan/updated")
        .map(|n| n.params_value())
        .collect();
    assert_eq!(plans.len(), 3, "{plans:?}");
    assert_eq!(plans[0]["plan"][0]["status"], "pending");
    assert_eq!(plans[2]["plan"][0]["status"], "completed");
    assert!(!matches!(
        notes
            .iter()
            .find(|n| n.method == "turn/plan/updated")
            .unwrap()
            .typed(),
        codex_client::protocol::ServerNotification::Unknown { .. }
    ));
    let usage = r.usage.unwrap();
    assert_eq!(usage["last"]["totalTokens"], 15);
    assert_eq!(usage["last"]["cachedInputTokens"], 4);
    assert_eq!(
        t.read(false).unwrap()["thread"]["sessionId"],
        "01a207ae-1111-7000-8000-000000000001"
    );
}
