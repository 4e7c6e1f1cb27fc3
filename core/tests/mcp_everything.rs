//! The MCP client against the real everything server (`@modelcontextprotocol/server-everything`)
//! over stdio, Streamable HTTP and legacy HTTP+SSE: every feature the server offers.

mod support;

use codex_client::mcp::Root;
use codex_client::{ClientOptions, McpClient, RequestOptions};
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::Duration;
use support::*;

use futures_executor::block_on as b;

const WAIT: Duration = Duration::from_secs(20);

/// A client with handlers: sampling answers with a fixed message, elicitation accepts with
/// only `name` filled in; every notification is forwarded to the returned channel.
fn connected(opts: ClientOptions) -> (McpClient, mpsc::Receiver<(String, Value)>) {
    init_tracing();
    let c = McpClient::new(opts.default_timeout(WAIT).mcp_roots(vec![Root::new(
        "file:///work/project",
        Some("project".into()),
    )]));
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
                "content": {"type": "text", "text": format!("sampled for {asked}")},
                "model": "test-model",
                "stopReason": "endTurn"
            }))
            .unwrap();
        }
        // URL mode: the user opened the link (nothing to fill in).
        "elicitation/create" if req.params_value()["mode"] == "url" => {
            req.respond(&json!({"action": "accept"})).unwrap()
        }
        "elicitation/create" => req
            .respond(&json!({"action": "accept", "content": {"name": "Ada", "check": true}}))
            .unwrap(),
        _ => drop(req),
    })
    .unwrap();
    let init = c.connect().unwrap();
    assert_eq!(init.protocol_version(), Some("2025-11-25"));
    assert_eq!(
        init.server_info().unwrap()["name"],
        "mcp-servers/everything"
    );
    assert!(init.capabilities().unwrap()["tools"].is_object());
    let caps = init.mcp_capabilities().unwrap();
    assert!(
        caps.resource_subscribe() && caps.tools_list_changed(),
        "{caps:?}"
    );
    assert!(caps.logging.is_some() && caps.completions.is_some() && caps.prompts.is_some());
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

fn exercise(opts: ClientOptions) {
    let (c, notes) = connected(opts);

    // Tools: list (the capability-dependent ones included), call, structured content.
    let tools = b(c.list_all_tools()).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for want in [
        "echo",
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let echo = b(c.call_tool("echo", json!({"message": "hi"}))).unwrap();
    assert_eq!(echo.text(), "Echo: hi");
    assert!(!echo.is_error);
    let sc = b(c.call_tool("get-structured-content", json!({"location": "Chicago"}))).unwrap();
    assert!(sc.structured_content.is_some(), "{sc:?}");
    let bad = b(c.call_tool("get-sum", json!({"a": "x"})));
    assert!(
        matches!(&bad, Ok(r) if r.is_error) || bad.is_err(),
        "{bad:?}"
    );

    // Progress: every step arrives, in order, before the result.
    let mut seen = Vec::new();
    let done = b(c.call_tool_with_progress(
        "trigger-long-running-operation",
        json!({"duration": 0.3, "steps": 3}),
        RequestOptions::default(),
        |p| seen.push((p.progress, p.total)),
    ))
    .unwrap();
    assert!(done.text().contains("completed"), "{done:?}");
    assert_eq!(
        seen,
        vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );

    // Server-to-client requests reach the handlers.
    let s = b(c.call_tool("trigger-sampling-request", json!({"prompt": "colours"}))).unwrap();
    assert!(s.text().contains("sampled for"), "{}", s.text());
    let e = b(c.call_tool("trigger-elicitation-request", json!({}))).unwrap();
    let text = e.text();
    assert!(text.contains("Ada"), "{text}");
    // SEP-1034: the schema's defaults fill what the handler left out.
    assert!(text.contains("It was a dark and stormy night."), "{text}");
    let url = b(c.call_tool(
        "trigger-url-elicitation",
        json!({"url": "https://example.com/authorize", "elicitationId": "e-1"}),
    ))
    .unwrap();
    let text = url.text();
    assert!(
        text.contains("completed the URL elicitation") && text.contains("e-1"),
        "{text}"
    );
    let roots = b(c.call_tool("get-roots-list", json!({}))).unwrap();
    assert!(
        roots.text().contains("file:///work/project"),
        "{}",
        roots.text()
    );

    // Resources: list, templates, read, subscribe → updated.
    let res = b(c.list_all_resources()).unwrap();
    assert!(!res.is_empty());
    let templates = b(c.list_resource_templates(None)).unwrap();
    assert!(templates
        .items
        .iter()
        .any(|t| t.uri_template.contains("{resourceId}")));
    assert_eq!(b(c.list_all_resource_templates()).unwrap(), templates.items);
    let uri = res[0].uri.clone();
    let contents = b(c.read_resource(&uri)).unwrap();
    assert_eq!(contents[0].uri, uri);
    assert!(contents[0].text.is_some() || contents[0].blob.is_some());
    b(c.subscribe_resource(&uri)).unwrap();
    b(c.call_tool("toggle-subscriber-updates", json!({}))).unwrap();
    wait_note(&notes, "notifications/resources/updated", |p| {
        p["uri"] == uri.as_str()
    });
    b(c.unsubscribe_resource(&uri)).unwrap();

    // Prompts and completion.
    let prompts = b(c.list_prompts(None)).unwrap();
    assert!(prompts.items.iter().any(|p| p.name == "args-prompt"));
    assert_eq!(b(c.list_all_prompts()).unwrap(), prompts.items);
    let got = b(c.get_prompt("args-prompt", json!({"city": "Paris"}))).unwrap();
    assert!(got.messages[0].to_string().contains("Paris"), "{got:?}");
    let comp = b(c.complete(
        codex_client::mcp::prompt_ref("completable-prompt"),
        "department",
        "E",
    ))
    .unwrap();
    assert!(comp.values.iter().any(|v| v.starts_with('E')), "{comp:?}");

    // Logging: the server's log records arrive as notifications.
    b(c.set_logging_level("debug")).unwrap();
    b(c.call_tool("toggle-simulated-logging", json!({}))).unwrap();
    wait_note(&notes, "notifications/message", |p| p["level"].is_string());

    // Per-request options: a call past its timeout fails (and is cancelled on the server);
    // the connection goes on.
    let slow = b(c
        .mcp_with(RequestOptions::timeout(Duration::from_millis(100)))
        .call_tool(
            "trigger-long-running-operation",
            json!({"duration": 0.4, "steps": 1}),
        ));
    assert!(
        matches!(slow, Err(codex_client::Error::Timeout { .. })),
        "{slow:?}"
    );
    let fast = c.mcp_with(RequestOptions::timeout(WAIT));
    assert_eq!(
        b(fast.call_tool("echo", json!({"message": "again"})))
            .unwrap()
            .text(),
        "Echo: again"
    );

    b(c.ping()).unwrap();
    c.disconnect();
}

#[test]
fn everything_server_over_stdio() {
    exercise(everything_stdio());
}

#[test]
fn everything_server_over_streamable_http() {
    let server = EverythingHttp::start("streamableHttp");
    exercise(server.options("/mcp"));
}

#[test]
fn everything_server_over_legacy_sse() {
    let server = EverythingHttp::start("sse");
    exercise(server.options("/sse"));
}
