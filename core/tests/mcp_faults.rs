//! MCP over the fake server (modes `mcp`, `mcp-future`): version negotiation, cancellation
//! both ways, the server's `ping`, and fail-closed answers to unhandled server requests.

mod support;

use codex_client::{
    Client, ClientOptions, Delivery, Error, Event, McpClient, McpCommand, RequestOptions,
    ServerRequest, TransportKind,
};
use futures_util::FutureExt;
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::Duration;
use support::*;

const WAIT: Duration = Duration::from_secs(10);

fn mcp_options(modes: &[&str]) -> ClientOptions {
    let mut cmd = McpCommand::new(fake_bin());
    for m in modes {
        cmd = cmd.arg("--mode").arg(*m);
    }
    ClientOptions::default().transport(TransportKind::McpStdio(cmd))
}

/// A connected client whose notifications go to the returned channel.
fn with_notes(modes: &[&str]) -> (McpClient, mpsc::Receiver<(String, Value)>) {
    init_tracing();
    let c = McpClient::new(mcp_options(modes));
    let (tx, rx) = mpsc::channel();
    c.on_notification(move |n| {
        let _ = tx.send((n.method.clone(), n.params_value()));
    })
    .unwrap();
    c.connect().unwrap();
    (c, rx)
}

fn next_note(rx: &mpsc::Receiver<(String, Value)>, method: &str) -> Value {
    loop {
        match rx.recv_timeout(WAIT) {
            Ok((m, p)) if m == method => return p,
            Ok(_) => continue,
            Err(e) => panic!("no {method} notification: {e}"),
        }
    }
}

fn answers(c: &Client) -> Vec<Value> {
    let v = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    v["answers"].as_array().unwrap().clone()
}

#[test]
fn the_handshake_negotiates_the_version_and_refuses_one_it_does_not_speak() {
    let c = McpClient::new(mcp_options(&["mcp"]));
    let init = c.connect().unwrap();
    assert_eq!(init.protocol_version(), Some("2025-11-25"));
    assert_eq!(init.server_info().unwrap()["name"], "fake-mcp");
    c.disconnect();

    let c = McpClient::new(mcp_options(&["mcp-future"]));
    match c.connect() {
        Err(Error::Protocol(m)) => assert!(m.contains("2099-01-01"), "{m}"),
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert!(!c.is_connected());
}

#[test]
fn a_timed_out_request_is_cancelled_at_the_server_and_the_connection_goes_on() {
    let (c, notes) = with_notes(&["mcp", "hang"]);
    let r = c.request_blocking_with(
        "test/hang",
        json!({}),
        RequestOptions::timeout(Duration::from_millis(200)),
    );
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    let saw = next_note(&notes, "test/sawCancelled");
    assert_eq!(saw["reason"], "timed out");
    assert!(saw["requestId"].is_i64(), "{saw}");
    assert!(c.is_connected());
    futures_executor::block_on(c.ping()).unwrap();
}

#[test]
fn a_dropped_request_future_is_cancelled_at_the_server() {
    let (c, notes) = with_notes(&["mcp", "hang"]);
    // Polled once (the request goes out), then dropped.
    assert!(c.request("test/hang", json!({})).now_or_never().is_none());
    let saw = next_note(&notes, "test/sawCancelled");
    assert_eq!(saw["reason"], "the client stopped waiting for the request");
    futures_executor::block_on(c.ping()).unwrap();
}

#[test]
fn cancel_request_ends_an_event_request_with_cancelled_and_tells_the_server() {
    init_tracing();
    let c = McpClient::new(mcp_options(&["mcp", "hang"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    let params = serde_json::value::to_raw_value(&json!({})).unwrap();
    c.send_request("test/hang", &params, RequestOptions::default(), 42)
        .unwrap();
    assert!(wait_until(WAIT, || c
        .stderr_tail()
        .contains("received test/hang")));
    assert!(c.cancel_request(42));
    assert!(!c.cancel_request(42), "a second cancel finds nothing");
    let (mut response, mut saw) = (None, None);
    while response.is_none() || saw.is_none() {
        match c.next_event(Some(WAIT)).unwrap() {
            Some(Event::Response(r)) => response = Some(r),
            Some(Event::Notification(n)) if n.method == "test/sawCancelled" => {
                saw = Some(n.params_value())
            }
            Some(_) => {}
            None => panic!("no cancel response/notification"),
        }
    }
    let r = response.unwrap();
    assert_eq!(r.token, 42);
    assert!(
        matches!(r.result, Err(Error::Cancelled(_))),
        "{:?}",
        r.result
    );
    assert_eq!(saw.unwrap()["reason"], "the client cancelled the request");
}

#[test]
fn the_library_answers_the_servers_ping() {
    let (c, _notes) = with_notes(&["mcp"]);
    c.request_blocking("test/ping", json!({})).unwrap();
    let a = answers(c.connection());
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["result"], json!({}));
    assert_eq!(a[0]["jsonrpc"], "2.0");
}

#[test]
fn a_server_request_the_server_cancelled_is_not_answered() {
    init_tracing();
    let c = McpClient::new(mcp_options(&["mcp"]));
    let (req_tx, req_rx) = mpsc::channel::<ServerRequest>();
    let (note_tx, note_rx) = mpsc::channel();
    c.on_server_request(move |r| {
        let _ = req_tx.send(r);
    })
    .unwrap();
    c.on_notification(move |n| {
        let _ = note_tx.send((n.method.clone(), n.params_value()));
    })
    .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/elicitThenCancel", json!({}))
        .unwrap();
    let req = req_rx.recv_timeout(WAIT).unwrap();
    assert_eq!(req.method, "elicitation/create");
    next_note(&note_rx, "notifications/cancelled");
    assert!(!req.is_open());
    assert!(matches!(
        req.respond(&json!({"action": "accept", "content": {}})),
        Err(Error::AlreadyResponded)
    ));
    drop(req);
    assert!(
        answers(c.connection()).is_empty(),
        "a cancelled request got an answer"
    );
}

#[test]
fn unhandled_server_requests_are_refused_fail_closed() {
    let (c, _notes) = with_notes(&["mcp", "approval"]);
    for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
        c.request_blocking("test/approval", json!({ "method": method }))
            .unwrap();
    }
    // Unhandled requests are answered on the dispatch thread: wait for the three answers.
    let mut a = Vec::new();
    assert!(
        wait_until(WAIT, || {
            a = answers(c.connection());
            a.len() == 3
        }),
        "{a:?}"
    );
    assert_eq!(a[0]["error"]["code"], -32601, "sampling refused: {}", a[0]);
    assert_eq!(a[1]["result"], json!({"action": "decline"}));
    assert_eq!(a[2]["error"]["code"], -32601, "roots refused: {}", a[2]);
}

#[test]
fn configured_roots_are_answered_by_the_library() {
    init_tracing();
    let root = codex_client::mcp::Root::new("file:///srv/repo", Some("repo".into()));
    let c = McpClient::new(mcp_options(&["mcp", "approval"]).mcp_roots(vec![root]));
    c.connect().unwrap();
    c.request_blocking("test/approval", json!({ "method": "roots/list" }))
        .unwrap();
    let a = answers(c.connection());
    assert_eq!(
        a[0]["result"],
        json!({"roots": [{"uri": "file:///srv/repo", "name": "repo"}]})
    );
}

/// The fake MCP server refuses every request until it has seen `notifications/initialized`,
/// so a client that stopped sending it after the handshake fails here.
#[test]
fn notifications_initialized_is_sent_before_any_other_request() {
    let c = McpClient::new(mcp_options(&["mcp"]));
    c.connect().unwrap();
    let v = c.request_blocking("some/method", json!({})).unwrap();
    assert_eq!(v["method"], "some/method", "{v}");
}
