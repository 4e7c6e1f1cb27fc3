//! The MCP client against servers written with the official SDKs (`testkit/sdk-servers`:
//! Python `mcp` 2.3.0 and TypeScript `@modelcontextprotocol/server` 2.4.0) over stdio and
//! Streamable HTTP, in the handshake era (2025-11-25): tools with structured output, progress,
//! elicitation and sampling (server requests), resources and templates, prompts, completion,
//! logging, a task, and a session that expires mid-use.

mod support;

use codex_client::mcp::{prompt_ref, resource_ref, TaskCall, RELATED_TASK_META};
use codex_client::protocol::mcp::era::EraMode;
use codex_client::{Client, ClientOptions, RequestOptions};
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::Duration;
use support::sdk::{Sdk, SdkHttp};
use support::*;

use futures_executor::block_on as b;

const WAIT: Duration = Duration::from_secs(30);

/// A client with handlers: sampling answers with a fixed model and text, elicitation accepts
/// with `name: Ada`; every notification is forwarded to the returned channel.
fn connected(sdk: Sdk, opts: ClientOptions) -> (Client, mpsc::Receiver<(String, Value)>) {
    init_tracing();
    // The handshake era, asked for (the default `auto` finds 2026-07-28 on these servers).
    let c = Client::new(opts.default_timeout(WAIT).mcp_protocol(EraMode::Legacy));
    let (tx, rx) = mpsc::channel();
    c.on_notification(move |n| {
        let _ = tx.send((n.method.clone(), n.params_value()));
    })
    .unwrap();
    c.on_server_request(|req| match req.method.as_str() {
        "sampling/createMessage" => {
            let asked = req.params_value()["messages"][0]["content"]["text"].clone();
            req.respond(&json!({
                "role": "assistant",
                "content": {"type": "text", "text": format!("short ({})", asked.as_str().unwrap_or(""))},
                "model": "test-model",
                "stopReason": "endTurn"
            }))
            .unwrap();
        }
        "elicitation/create" => req
            .respond(&json!({"action": "accept", "content": {"name": "Ada"}}))
            .unwrap(),
        _ => drop(req),
    })
    .unwrap();
    let init = c.connect().unwrap();
    assert_eq!(init.protocol_version(), Some("2025-11-25"));
    assert_eq!(init.server_info().unwrap()["name"], sdk.server_name());
    let caps = init.mcp_capabilities().unwrap();
    assert!(caps.tools.is_some() && caps.prompts.is_some() && caps.resources.is_some());
    assert!(caps.completions.is_some(), "{caps:?}");
    (c, rx)
}

/// Wait for a notification of `method` whose params satisfy `pred`.
fn wait_note(
    rx: &mpsc::Receiver<(String, Value)>,
    method: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    support::wait_note(rx, method, WAIT, pred)
}

fn exercise(sdk: Sdk, opts: ClientOptions) {
    let (c, notes) = connected(sdk, opts);

    // Tools: list (with output schemas), call with structured output.
    let tools = b(c.list_all_tools()).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for want in ["add", "count", "ask_name", "summarize", "log", "slow_job"] {
        assert!(
            names.contains(&want),
            "{sdk:?}: {want} missing from {names:?}"
        );
    }
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    let schema = add
        .output_schema
        .as_ref()
        .expect("add has an output schema");
    assert_eq!(schema["properties"]["sum"]["type"], "number", "{schema}");
    let sum = b(c.call_tool("add", json!({"a": 2, "b": 3.5}))).unwrap();
    assert!(!sum.is_error, "{sum:?}");
    assert_eq!(sum.structured_content.as_ref().unwrap()["sum"], 5.5);
    assert!(sum.text().contains("5.5"), "{}", sum.text());
    // Bad arguments: a tool error or a JSON-RPC error, never a hang.
    let bad = b(c.call_tool("add", json!({"a": "x"})));
    assert!(
        matches!(&bad, Ok(r) if r.is_error) || bad.is_err(),
        "{bad:?}"
    );

    // Progress: every step, in order, before the result.
    let mut seen = Vec::new();
    let done = b(c.call_tool_with_progress(
        "count",
        json!({"n": 3}),
        RequestOptions::default(),
        |p| seen.push((p.progress, p.total, p.message.clone())),
    ))
    .unwrap();
    assert!(done.text().contains("counted to 3"), "{done:?}");
    assert_eq!(
        seen,
        (1..=3)
            .map(|i| (i as f64, Some(3.0), Some(format!("step {i}"))))
            .collect::<Vec<_>>()
    );

    // Each progress update restarts the timeout: a call that reports progress outlives its
    // timeout; the same call without progress times out.
    let short = RequestOptions::timeout(Duration::from_millis(600));
    let slow = json!({"n": 5, "delay_ms": 200});
    let mut steps = 0;
    let done = b(c.call_tool_with_progress("count", slow.clone(), short, |_| steps += 1));
    assert!(done.unwrap().text().contains("counted to 5"));
    assert_eq!(steps, 5);
    let plain = b(c.mcp_with(short).call_tool("count", slow));
    assert!(
        matches!(plain, Err(codex_client::Error::Timeout { .. })),
        "{plain:?}"
    );

    // Server requests reach the handlers: elicitation, sampling.
    let asked = b(c.call_tool("ask_name", json!({}))).unwrap();
    assert!(asked.text().contains("hello Ada"), "{sdk:?}: {asked:?}");
    let said = b(c.call_tool("summarize", json!({"text": "a long story"}))).unwrap();
    let text = said.text();
    assert!(
        text.contains("model test-model said: short (Summarize: a long story)"),
        "{sdk:?}: {text}"
    );

    // Resources and templates.
    let res = b(c.list_all_resources()).unwrap();
    assert!(res.iter().any(|r| r.uri == "demo://greeting"), "{res:?}");
    let contents = b(c.read_resource("demo://greeting")).unwrap();
    assert_eq!(contents[0].text.as_deref(), Some(sdk.greeting()));
    let templates = b(c.list_all_resource_templates()).unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://items/{id}"),
        "{templates:?}"
    );
    let item = b(c.read_resource("demo://items/42")).unwrap();
    assert_eq!(item[0].text.as_deref(), Some("item 42"));

    // Prompts and completion (of a prompt argument and of a template variable).
    let prompts = b(c.list_all_prompts()).unwrap();
    assert!(prompts.iter().any(|p| p.name == "greet"), "{prompts:?}");
    let got = b(c.get_prompt("greet", json!({"name": "Grace"}))).unwrap();
    assert!(
        got.messages[0].to_string().contains("Please greet Grace"),
        "{got:?}"
    );
    let names = b(c.complete(prompt_ref("greet"), "name", "A")).unwrap();
    assert_eq!(names.values, vec!["Ada", "Alan"]);
    let ids = b(c.complete(resource_ref("demo://items/{id}"), "id", "1")).unwrap();
    assert_eq!(ids.values, vec!["1", "10"]);

    // Logging: a record at or above the level arrives; one below it does not.
    b(c.set_logging_level("warning")).unwrap();
    b(c.call_tool("log", json!({"level": "info", "message": "quiet"}))).unwrap();
    b(c.call_tool("log", json!({"level": "error", "message": "loud"}))).unwrap();
    let rec = wait_note(&notes, "notifications/message", |_| true);
    assert_eq!(rec["level"], "error", "{rec}");
    assert_eq!(rec["data"], "loud", "{rec}");

    // A task: the call is answered at once, the task polled to its end, its result taken;
    // another is cancelled while it runs (and cannot be cancelled twice).
    let call = b(c.call_tool_as_task(
        "slow_job",
        json!({"ms": 200}),
        Some(Duration::from_secs(60)),
    ))
    .unwrap();
    let TaskCall::Task(task) = call else {
        panic!("{sdk:?}: not run as a task: {call:?}")
    };
    assert_eq!(task.status, "working");
    assert_eq!(task.ttl, Some(60_000));
    let listed = b(c.list_tasks(None)).unwrap();
    assert!(listed.items.iter().any(|t| t.task_id == task.task_id));
    let ended = b(c.wait_task(&task.task_id, WAIT)).unwrap();
    assert_eq!(ended.status, "completed", "{ended:?}");
    let r = b(c.task_tool_result(&task.task_id)).unwrap();
    assert_eq!(
        r.structured_content.as_ref().unwrap()["ms"].as_f64(),
        Some(200.0)
    );
    assert_eq!(
        r.extra["_meta"][RELATED_TASK_META]["taskId"],
        task.task_id.as_str()
    );
    let TaskCall::Task(long) =
        b(c.call_tool_as_task("slow_job", json!({"ms": 30_000}), None)).unwrap()
    else {
        panic!("not run as a task")
    };
    let cancelled = b(c.cancel_task(&long.task_id)).unwrap();
    assert_eq!(cancelled.status, "cancelled");
    assert!(b(c.get_task(&long.task_id)).unwrap().is_terminal());
    assert!(matches!(
        b(c.cancel_task(&long.task_id)),
        Err(codex_client::Error::Rpc(e)) if e.code == -32602
    ));

    b(c.ping()).unwrap();
    c.disconnect();
}

#[test]
fn python_sdk_server_over_stdio() {
    exercise(Sdk::Python, Sdk::Python.stdio());
}

#[test]
fn typescript_sdk_server_over_stdio() {
    exercise(Sdk::TypeScript, Sdk::TypeScript.stdio());
}

#[test]
fn python_sdk_server_over_streamable_http() {
    let server = SdkHttp::start(Sdk::Python);
    exercise(Sdk::Python, server.options());
}

#[test]
fn typescript_sdk_server_over_streamable_http() {
    let server = SdkHttp::start(Sdk::TypeScript);
    exercise(Sdk::TypeScript, server.options());
}

/// The server restarts (so it forgets the session) between two calls: the next call is
/// answered 404, the client starts a new session and sends it again, and the caller sees
/// only the answer; the server requests of the new session reach the handlers too.
fn session_expires_mid_use(sdk: Sdk) {
    let mut server = SdkHttp::start(sdk);
    let (c, _notes) = connected(sdk, server.options());
    let sum = b(c.call_tool("add", json!({"a": 1, "b": 2}))).unwrap();
    assert_eq!(sum.structured_content.unwrap()["sum"], 3.0);
    server.restart();
    let sum = b(c.call_tool("add", json!({"a": 2, "b": 2}))).unwrap();
    assert_eq!(sum.structured_content.unwrap()["sum"], 4.0, "{sdk:?}");
    let asked = b(c.call_tool("ask_name", json!({}))).unwrap();
    assert!(asked.text().contains("hello Ada"), "{sdk:?}: {asked:?}");
    // Again, with requests in flight at once: one renewal serves them all.
    server.restart();
    let calls: Vec<_> = (0..4)
        .map(|i| c.call_tool("add", json!({"a": i, "b": 1})))
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let r = b(call).unwrap();
        assert_eq!(r.structured_content.unwrap()["sum"], i as f64 + 1.0);
    }
    b(c.ping()).unwrap();
    c.disconnect();
}

#[test]
fn python_sdk_session_expires_mid_use() {
    session_expires_mid_use(Sdk::Python);
}

#[test]
fn typescript_sdk_session_expires_mid_use() {
    session_expires_mid_use(Sdk::TypeScript);
}
