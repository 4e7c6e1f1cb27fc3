//! The Thread/Turn API against the real `codex app-server` (the default Codex; the `smoke_` test
//! on every `CODEX_SMOKE` version too) and the local model.

mod support;

use codex_client::{CodexClient, Delivery, Event, Input, ThreadStatus};
use serde_json::json;
use std::time::Duration;
use support::*;

#[test]
fn run_returns_final_text_items_usage_and_status() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
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
    assert!(
        kinds.contains(&"userMessage".to_owned()) && kinds.contains(&"agentMessage".to_owned()),
        "{kinds:?}"
    );
    let usage = r.usage.expect("token usage reported");
    assert!(
        usage["total"]["totalTokens"].as_i64().unwrap_or(0) > 0,
        "{usage}"
    );
    assert_eq!(thread.status(), ThreadStatus::Idle);
    // A second turn on the same thread.
    let r2 = thread.run(Input::text("MOCK_TEXT: again")).unwrap();
    assert_eq!(r2.final_response.as_deref(), Some("again"));
    assert_ne!(r2.turn_id, r.turn_id);
}

#[test]
fn streams_of_two_threads_never_mix() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let a = c.thread_start(json!({})).unwrap();
    let b = c.thread_start(json!({})).unwrap();
    let mut sa = a.run_streamed("MOCK_SLOW: 8 20").unwrap();
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
    for (handle, thread, turn, text) in [
        (
            ha,
            a.id().to_owned(),
            ta,
            "tick 0 tick 1 tick 2 tick 3 tick 4 tick 5 tick 6 tick 7 ",
        ),
        (hb, b.id().to_owned(), tb, "only for b"),
    ] {
        let (events, result) = handle.join().unwrap();
        assert!(
            matches!(events.last(), Some(Event::Notification(n)) if n.method == "turn/completed")
        );
        for ev in &events {
            if let Event::Notification(n) = ev {
                if let Some(t) = n.thread_id() {
                    assert_eq!(
                        t, thread,
                        "{} leaked into another thread's stream",
                        n.method
                    );
                }
                if let Some(t) = n.turn_id() {
                    assert_eq!(t, turn);
                }
            }
        }
        let streamed: String = events
            .iter()
            .filter_map(|e| match e {
                Event::Notification(n) if n.method == "item/agentMessage/delta" => n.delta(),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, text);
        assert_eq!(result.final_response.as_deref(), Some(text));
    }
}

#[test]
fn interrupt_and_steer_reach_the_running_turn() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    // Interrupt.
    let mut s = thread.run_streamed("MOCK_SLOW: 200 50").unwrap();
    let first = s
        .iter()
        .find(|e| matches!(e, Event::Notification(n) if n.method == "item/agentMessage/delta"));
    assert!(first.is_some());
    assert!(
        matches!(thread.status(), ThreadStatus::Active),
        "{:?}",
        thread.status()
    );
    s.interrupt().unwrap();
    let r = s.finish().unwrap();
    assert_eq!(r.status, "interrupted");
    // Steer: the new input reaches the model within the same turn.
    let mut s = thread.run_streamed("MOCK_SLOW: 200 50").unwrap();
    assert!(s
        .iter()
        .any(|e| matches!(e, Event::Notification(n) if n.method == "item/agentMessage/delta")));
    s.steer(Input::text("MOCK_TEXT: steered").to_value())
        .unwrap();
    let r = s.finish().unwrap();
    assert_eq!(r.status, "completed");
    assert_eq!(r.final_response.as_deref(), Some("steered"));
    assert!(env
        .model
        .requests()
        .iter()
        .any(|r| r.to_string().contains("MOCK_TEXT: steered")));
}

#[test]
fn file_change_approval_accept_writes_and_decline_does_not() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    for (decision, file) in [("accept", "yes.txt"), ("decline", "no.txt")] {
        let thread = c
            .thread_start(json!({"approvalPolicy": "untrusted", "cwd": env.work.path()}))
            .unwrap();
        let mut s = thread
            .run_streamed(format!("MOCK_PATCH: {file} hello patch"))
            .unwrap();
        let mut asked = 0;
        while let Some(ev) = s.next_event(Some(Duration::from_secs(60))).unwrap() {
            if let Event::ServerRequest(r) = ev {
                assert_eq!(r.method, "item/fileChange/requestApproval");
                assert_eq!(r.thread_id().as_deref(), Some(thread.id()));
                asked += 1;
                r.respond(&json!({ "decision": decision })).unwrap();
            }
        }
        assert_eq!(asked, 1);
        let r = s.into_result().unwrap();
        assert_eq!(r.status, "completed");
        let path = env.work.path().join(file);
        if decision == "accept" {
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello patch\n");
            assert!(
                r.diff.as_deref().unwrap_or("").contains(file),
                "unified diff: {:?}",
                r.diff
            );
        } else {
            assert!(!path.exists());
        }
    }
}

#[test]
fn run_without_handler_declines_the_approval() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("must-not-exist");
    let r = thread
        .run(format!("MOCK_EXEC: touch {}", marker.display()))
        .unwrap();
    assert!(!marker.exists());
    let cmd = r
        .items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .unwrap();
    assert_eq!(cmd["status"], "declined");
}

#[test]
fn smoke_resume_after_server_restart_sees_earlier_turns() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    thread
        .run("MOCK_TEXT: remember the word pineapple")
        .unwrap();
    let id = thread.id().to_owned();
    c.disconnect();
    c.connect().unwrap(); // a new server process
    let resumed = c.thread_resume(&id, json!({})).unwrap();
    assert_eq!(resumed.id(), id);
    let read = resumed.read(true).unwrap();
    assert!(
        read.to_string().contains("remember the word pineapple"),
        "{read}"
    );
    let r = resumed.run("MOCK_TEXT: still here").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("still here"));
    // The model saw the earlier turn in the resumed history.
    let last = env.model.requests().last().unwrap().to_string();
    assert!(last.contains("pineapple"));
}

#[test]
fn output_schema_and_overrides_are_passed_through() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let schema = json!({"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false});
    let r = thread
        .run_with(
            "MOCK_TEXT: {\"answer\":\"42\"}",
            json!({"outputSchema": schema, "effort": "low"}),
        )
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("{\"answer\":\"42\"}"));
    let req = env.model.requests().last().unwrap().clone();
    assert_eq!(
        req["text"]["format"]["schema"], schema,
        "schema reaches the model request: {}",
        req["text"]
    );
}

#[test]
fn dropping_a_stream_hands_the_rest_of_the_turn_back() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    while c.next_event(Some(Duration::ZERO)).unwrap().is_some() {}
    let s = thread.run_streamed("MOCK_SLOW: 5 30").unwrap();
    drop(s);
    // The turn goes on; its completion reaches the client's normal delivery.
    let mut completed = false;
    while let Some(ev) = c.next_event(Some(Duration::from_secs(30))).unwrap() {
        if let Event::Notification(n) = ev {
            if n.method == "turn/completed" {
                completed = true;
                break;
            }
        }
    }
    assert!(completed);
    // A new stream on the same thread works.
    assert_eq!(
        thread
            .run("MOCK_TEXT: next")
            .unwrap()
            .final_response
            .as_deref(),
        Some("next")
    );
}
