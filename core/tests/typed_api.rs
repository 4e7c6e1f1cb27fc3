//! The typed API against the real `codex app-server` (the default Codex; the `smoke_` test on
//! every `CODEX_SMOKE` version too) with the project's local model:
//! typed calls of the common methods, experimental gating, typed approval handlers with every
//! command decision, deferred answers, typed turn events; and, on the fake server, an unknown
//! notification arriving raw through the typed view.

mod support;

use codex_client::protocol::{
    self, methods, server_requests, CommandExecutionApprovalDecision as Decision,
    FileChangeApprovalDecision, ServerNotification, ServerRequestKind,
};
use codex_client::{CodexClient, Delivery, Error, Event};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

#[test]
fn typed_calls_of_the_common_methods() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();

    // thread family
    let started = c
        .call::<methods::ThreadStart>(protocol::ThreadStartParams::default())
        .unwrap();
    let id = started.thread.id.clone();
    assert!(!id.is_empty());
    assert_eq!(started.model, "mock-model");
    c.call::<methods::ThreadNameSet>(protocol::ThreadSetNameParams {
        name: "typed name".into(),
        thread_id: id.clone(),
        extra: Default::default(),
    })
    .unwrap();
    let read = c
        .call::<methods::ThreadRead>(protocol::ThreadReadParams {
            thread_id: id.clone(),
            include_turns: Some(false),
            extra: Default::default(),
        })
        .unwrap();
    assert_eq!(read.thread.id, id);
    assert_eq!(read.thread.name.as_deref(), Some("typed name"));

    // A turn, so the thread is persisted and listed.
    let r = c.thread(&id).run("MOCK_TEXT: persisted").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("persisted"));
    let listed = c
        .call::<methods::ThreadList>(protocol::ThreadListParams::default())
        .unwrap();
    assert!(
        listed.data.iter().any(|t| t.id == id),
        "thread/list: {:?}",
        listed.data.iter().map(|t| &t.id).collect::<Vec<_>>()
    );
    c.call::<methods::ThreadArchive>(protocol::ThreadArchiveParams {
        thread_id: id.clone(),
        extra: Default::default(),
    })
    .unwrap();
    let archived = c
        .call::<methods::ThreadList>(protocol::ThreadListParams {
            archived: Some(true),
            ..Default::default()
        })
        .unwrap();
    assert!(archived.data.iter().any(|t| t.id == id), "archived list");
    c.call::<methods::ThreadUnarchive>(protocol::ThreadUnarchiveParams {
        thread_id: id.clone(),
        extra: Default::default(),
    })
    .unwrap();

    // config, models, skills, account
    let cfg = c
        .call::<methods::ConfigRead>(protocol::ConfigReadParams::default())
        .unwrap();
    assert_eq!(cfg.config.model.as_deref(), Some("mock-model"));
    assert_eq!(cfg.config.model_provider.as_deref(), Some("mock"));
    c.call::<methods::ConfigValueWrite>(protocol::ConfigValueWriteParams {
        key_path: "model_verbosity".into(),
        value: json!("low"),
        merge_strategy: protocol::MergeStrategy::Replace,
        expected_version: None,
        file_path: None,
        extra: Default::default(),
    })
    .unwrap();
    let cfg = c
        .call::<methods::ConfigRead>(protocol::ConfigReadParams::default())
        .unwrap();
    assert_eq!(cfg.config.model_verbosity, Some(protocol::Verbosity::Low));
    let toml = std::fs::read_to_string(env.home.path().join("config.toml")).unwrap();
    assert!(toml.contains("model_verbosity"), "{toml}");

    c.call::<methods::ModelList>(protocol::ModelListParams::default())
        .unwrap();
    c.call::<methods::SkillsList>(protocol::SkillsListParams::default())
        .unwrap();
    let account = c
        .call::<methods::AccountRead>(protocol::GetAccountParams::default())
        .unwrap();
    assert!(account.account.is_none(), "no credentials exist here");

    // command/exec runs a real command on the server.
    // (Structs with required fields have no `Default`; serde fills the optional ones.)
    let params: protocol::CommandExecParams = serde_json::from_value(json!({
        "command": ["echo", "typed-exec"],
        "cwd": env.work.path(),
        "sandboxPolicy": {"type": "dangerFullAccess"},
    }))
    .unwrap();
    let out = c.call::<methods::CommandExec>(params).unwrap();
    assert_eq!(out.exit_code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout.trim(), "typed-exec");
}

#[test]
fn experimental_methods_and_fields_need_the_capability() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.connect().unwrap();
    let with_exp_field = protocol::ThreadStartParams {
        dynamic_tools: Some(Vec::new()),
        ..Default::default()
    };
    match c.call::<methods::ThreadStart>(with_exp_field.clone()) {
        Err(Error::InvalidState(m)) => {
            assert!(m.contains("thread/start.dynamicTools"), "{m}");
            assert!(m.contains("experimentalApi"), "{m}");
        }
        other => panic!("expected InvalidState, got {other:?}"),
    }
    c.disconnect();

    // With the capability negotiated the same call goes through.
    let c = CodexClient::new(env.options().experimental_api(true));
    c.connect().unwrap();
    let t = c.call::<methods::ThreadStart>(with_exp_field).unwrap();
    assert!(!t.thread.id.is_empty());
}

/// Runs `MOCK_EXEC: touch <marker> && echo ran-ok` with a typed command-approval handler
/// answering `decision`; returns (command ran, turn result).
fn run_with_decision(
    decision: impl Fn(&protocol::CommandExecutionRequestApprovalParams) -> Decision
        + Send
        + Sync
        + 'static,
) -> (bool, codex_client::TurnResult, usize) {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    let asked = Arc::new(AtomicUsize::new(0));
    let a = asked.clone();
    c.on_command_approval(move |p| {
        a.fetch_add(1, Ordering::SeqCst);
        assert!(p.command.as_deref().unwrap_or("").contains("ran-ok"));
        decision(p)
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("ran.txt");
    let r = thread
        .run(format!(
            "MOCK_EXEC: touch {} && echo ran-ok",
            marker.display()
        ))
        .unwrap();
    (marker.exists(), r, asked.load(Ordering::SeqCst))
}

fn command_status(r: &codex_client::TurnResult) -> String {
    r.items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .map(|i| i["status"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default()
}

#[test]
fn accept_for_session_runs_the_command() {
    let (ran, r, asked) = run_with_decision(|_| Decision::AcceptForSession);
    assert_eq!(asked, 1);
    assert!(ran, "acceptForSession must run the command");
    assert_eq!(command_status(&r), "completed");
    assert_eq!(r.final_response.as_deref(), Some("command output: ran-ok"));
}

#[test]
fn execpolicy_amendment_runs_the_command() {
    let (ran, r, asked) = run_with_decision(|p| {
        let argv = p
            .proposed_execpolicy_amendment
            .clone()
            .unwrap_or_else(|| vec!["touch".into()]);
        Decision::accept_with_execpolicy_amendment(argv)
    });
    assert_eq!(asked, 1);
    assert!(
        ran,
        "the amendment (snake_case inner key) must be accepted: {:?}",
        r.items
    );
    assert_eq!(command_status(&r), "completed");
}

#[test]
fn decline_does_not_run_and_the_turn_goes_on() {
    let (ran, r, asked) = run_with_decision(|_| Decision::Decline);
    assert_eq!(asked, 1);
    assert!(!ran);
    assert_eq!(command_status(&r), "declined");
    assert_eq!(r.status, "completed");
}

#[test]
fn cancel_does_not_run_and_interrupts_the_turn() {
    let (ran, r, asked) = run_with_decision(|_| Decision::Cancel);
    assert_eq!(asked, 1);
    assert!(!ran);
    assert_eq!(r.status, "interrupted", "turn: {}", r.turn);
}

#[test]
fn panicking_typed_handler_declines_and_the_connection_goes_on() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.on_command_approval(|_| panic!("handler bug")).unwrap();
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let e = errors.clone();
    c.on_connection_event(move |ev| {
        if let codex_client::ConnectionEvent::Error(m) = ev {
            e.lock().unwrap().push(m.clone());
        }
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("never.txt");
    let r = thread
        .run(format!("MOCK_EXEC: touch {}", marker.display()))
        .unwrap();
    assert!(!marker.exists());
    assert_eq!(command_status(&r), "declined");
    assert!(
        errors
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.contains("handler bug")),
        "the panic is reported as an event: {:?}",
        errors.lock().unwrap()
    );
    // Still usable.
    let r = thread.run("MOCK_TEXT: still here").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("still here"));
}

#[test]
fn deferred_typed_answer_from_another_thread() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    let answered_on = Arc::new(Mutex::new(None));
    let slot = answered_on.clone();
    c.on_request::<server_requests::ItemCommandExecutionRequestApproval>(move |req| {
        assert!(req.is_open());
        let slot = slot.clone();
        // Keep the request and answer later, from a thread of our own.
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            req.respond(protocol::CommandExecutionRequestApprovalResponse {
                decision: Decision::Accept,
                extra: Default::default(),
            })
            .unwrap();
            // A second answer is refused.
            assert!(matches!(
                req.respond(protocol::CommandExecutionRequestApprovalResponse {
                    decision: Decision::Decline,
                    extra: Default::default(),
                }),
                Err(Error::AlreadyResponded)
            ));
            *slot.lock().unwrap() = Some(std::thread::current().id());
        });
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("later.txt");
    let r = thread
        .run(format!(
            "MOCK_EXEC: touch {} && echo later",
            marker.display()
        ))
        .unwrap();
    assert!(marker.exists(), "the deferred accept ran the command");
    assert_eq!(command_status(&r), "completed");
    assert!(answered_on.lock().unwrap().is_some());
}

#[test]
fn typed_file_change_approval_accept_writes_the_file() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.on_file_change_approval(|p| {
        assert!(!p.item_id.is_empty());
        FileChangeApprovalDecision::Accept
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c
        .thread_start(json!({"approvalPolicy": "untrusted", "cwd": env.work.path()}))
        .unwrap();
    let r = thread.run("MOCK_PATCH: typed.txt typed patch").unwrap();
    assert_eq!(r.status, "completed");
    assert_eq!(
        std::fs::read_to_string(env.work.path().join("typed.txt")).unwrap(),
        "typed patch\n"
    );
    assert!(r
        .thread_items()
        .iter()
        .any(|i| matches!(i, protocol::ThreadItem::FileChange(_))));
}

#[test]
fn smoke_streamed_turn_events_are_typed_and_reassemble() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let mut s = thread
        .run_streamed("MOCK_TEXT: typed events reassemble")
        .unwrap();
    let mut text = String::new();
    let mut completed = false;
    for ev in s.iter() {
        // Every event decodes with no part of it falling back to Unknown.
        let (typed, fallbacks) = protocol::drift::watch(|| ev.typed_notification());
        let unknown: Vec<_> = fallbacks
            .iter()
            .filter(|f| matches!(f.kind, protocol::drift::FallbackKind::Unknown { .. }))
            .collect();
        assert!(unknown.is_empty(), "Codex {}: {unknown:?}", codex_version());
        match typed {
            Some(ServerNotification::ItemAgentMessageDelta(d)) => {
                assert_eq!(d.thread_id, thread.id());
                text.push_str(&d.delta);
            }
            Some(ServerNotification::TurnCompleted(t)) => {
                assert_eq!(t.thread_id, thread.id());
                completed = true;
            }
            Some(ServerNotification::Unknown { method, .. }) => {
                panic!(
                    "a Codex {} notification did not parse: {method}",
                    codex_version()
                )
            }
            _ => {}
        }
    }
    assert!(completed);
    let r = s.into_result().unwrap();
    assert_eq!(text, "typed events reassemble");
    assert_eq!(r.final_response.as_deref(), Some(text.as_str()));
    let items = r.thread_items();
    assert!(items.iter().any(
        |i| matches!(i, protocol::ThreadItem::AgentMessage(m) if m.text == "typed events reassemble")
    ));
    assert!(items
        .iter()
        .all(|i| !matches!(i, protocol::ThreadItem::Unknown(_))));
    let usage = r.token_usage().expect("token usage reported");
    assert!(usage.total.total_tokens > 0, "{usage:?}");
    assert_eq!(
        r.typed_turn().map(|t| t.status),
        Some(protocol::TurnStatus::Completed)
    );
}

#[test]
fn unknown_notification_from_a_newer_server_arrives_raw() {
    let c = CodexClient::new(fake_options(&["unknown"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    c.request_blocking("test/unknown", json!({})).unwrap();
    let mut saw_note = false;
    let mut saw_req = false;
    while let Some(ev) = c.next_event(Some(Duration::from_secs(5))).unwrap() {
        match ev {
            Event::Notification(n) if n.method == "brand/newThing" => {
                match n.typed() {
                    ServerNotification::Unknown { method, params } => {
                        assert_eq!(method, "brand/newThing");
                        assert_eq!(params, n.params_value());
                    }
                    other => panic!("expected Unknown, got {other:?}"),
                }
                saw_note = true;
            }
            Event::ServerRequest(r) => {
                match r.typed() {
                    ServerRequestKind::Unknown { method, params } => {
                        assert_eq!(method, "brand/newRequest");
                        assert_eq!(params["x"], 1);
                    }
                    other => panic!("expected Unknown, got {other:?}"),
                }
                saw_req = true;
            }
            _ => {}
        }
        if saw_note && saw_req {
            break;
        }
    }
    assert!(saw_note && saw_req);
}

#[test]
fn typed_user_input_handler_answers_the_question() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().experimental_api(true));
    let questions = Arc::new(Mutex::new(Vec::<String>::new()));
    let q = questions.clone();
    c.on_request::<server_requests::ItemToolRequestUserInput>(move |req| {
        let mut answers = std::collections::BTreeMap::new();
        for question in &req.params.questions {
            q.lock().unwrap().push(question.question.clone());
            answers.insert(
                question.id.clone(),
                protocol::ToolRequestUserInputAnswer {
                    answers: vec!["Yes".into()],
                    extra: Default::default(),
                },
            );
        }
        req.respond(protocol::ToolRequestUserInputResponse {
            answers,
            extra: Default::default(),
        })
        .unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread
        .run_with(
            "MOCK_ASK: Shall we proceed?",
            json!({"collaborationMode": {"mode": "plan", "settings": {"model": "mock-model"}}}),
        )
        .unwrap();
    assert_eq!(*questions.lock().unwrap(), vec!["Shall we proceed?"]);
    let reply = r.final_response.unwrap_or_default();
    assert!(reply.starts_with("you answered:"), "{reply}");
    assert!(reply.contains("Yes"), "{reply}");
}

#[test]
fn per_thread_handler_wins_over_the_client_handler_on_its_thread_only() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options());
    c.on_command_approval(|_| Decision::Decline).unwrap();
    c.connect().unwrap();
    let trusted = c.thread_start(json!({})).unwrap();
    let other = c.thread_start(json!({})).unwrap();
    trusted.on_command_approval(|_| Decision::Accept).unwrap();
    let a = env.work.path().join("trusted.txt");
    let b = env.work.path().join("other.txt");
    let ra = trusted
        .run(format!("MOCK_EXEC: touch {}", a.display()))
        .unwrap();
    let rb = other
        .run(format!("MOCK_EXEC: touch {}", b.display()))
        .unwrap();
    assert!(a.exists(), "the thread's own handler accepted");
    assert_eq!(command_status(&ra), "completed");
    assert!(
        !b.exists(),
        "the client handler declined on the other thread"
    );
    assert_eq!(command_status(&rb), "declined");
    // Cleared: the client handler applies again.
    trusted.clear_handlers();
    let c2 = env.work.path().join("after-clear.txt");
    let rc = trusted
        .run(format!("MOCK_EXEC: touch {}", c2.display()))
        .unwrap();
    assert!(!c2.exists());
    assert_eq!(command_status(&rc), "declined");
}

/// `item/tool/call`: a thread started with a dynamic tool, the mock model calls it, a typed
/// handler answers, and the handler's output reaches the model's next request (and so the
/// turn's final message).
#[test]
fn a_dynamic_tool_call_is_answered_by_a_handler_and_its_output_reaches_the_model() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().experimental_api(true));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let slot = seen.clone();
    c.on_request::<server_requests::ItemToolCall>(move |req| {
        let city = req.params.arguments["city"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        slot.lock()
            .unwrap()
            .push((req.params.tool.clone(), city.clone()));
        let answer: protocol::DynamicToolCallResponse = serde_json::from_value(json!({
            "contentItems": [{"type": "inputText", "text": format!("sunny in {city}")}],
            "success": true,
        }))
        .unwrap();
        req.respond(answer).unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c
        .thread_start(json!({"dynamicTools": [{
            "type": "function",
            "name": "lookup_weather",
            "description": "The weather in a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }]}))
        .unwrap();
    let r = thread
        .run(r#"MOCK_TOOL: lookup_weather {"city": "Oslo"}"#)
        .unwrap();
    assert_eq!(r.status, "completed", "{r:?}");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        &[("lookup_weather".to_string(), "Oslo".to_string())]
    );
    assert_eq!(
        r.final_response.as_deref(),
        Some("tool output: sunny in Oslo"),
        "{r:?}"
    );
    // The model saw the tool offered and its output sent back.
    let reqs = env.model.requests();
    assert!(
        reqs[0].to_string().contains("lookup_weather"),
        "the tool was offered to the model"
    );
    assert!(
        reqs.last().unwrap().to_string().contains("sunny in Oslo"),
        "the handler's output reached the model"
    );
    c.disconnect();
}

/// `mcpServer/elicitation/request`: Codex configured with the real MCP server-everything, the
/// mock model calls its `trigger-elicitation-request` tool, the server asks Codex for input,
/// Codex forwards it to the client, a handler accepts with a name, and the MCP server's tool
/// result (which echoes what it was given) reaches the model.
#[test]
fn an_mcp_elicitation_forwarded_by_codex_is_answered_by_a_handler_and_reaches_the_server() {
    let env = RealEnv::new();
    let (node, everything) = mcp_everything();
    let toml_str = |p: &std::path::Path| format!("{:?}", p.display().to_string());
    let c = CodexClient::new(
        env.options()
            .config("mcp_servers.everything.command", toml_str(&node))
            .config(
                "mcp_servers.everything.args",
                format!("[{}, \"stdio\"]", toml_str(&everything)),
            ),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let slot = seen.clone();
    c.on_method_request("mcpServer/elicitation/request", move |req| {
        slot.lock().unwrap().push(req.params_value());
        req.respond(
            &json!({"action": "accept", "content": {"name": "Ada Lovelace", "check": true}}),
        )
        .unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread
        .run("MOCK_TOOL: mcp__everything/trigger_elicitation_request {}")
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "one elicitation forwarded: {seen:?}; {r:?}");
    assert!(
        seen[0].to_string().contains("Please provide inputs"),
        "{}",
        seen[0]
    );
    let reply = r.final_response.clone().unwrap_or_default();
    assert!(
        reply.contains("Name: Ada Lovelace") && reply.contains("Agreed to terms: true"),
        "the handler's answer reached the MCP server: {r:?}"
    );
    c.disconnect();
}
