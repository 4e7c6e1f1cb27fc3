//! The transport against a server that misbehaves on purpose.

use serde_json::json;
use std::time::{Duration, Instant};

use super::fault_server::{accepted, init_answer, json, reply, sse, FaultServer, Reply, Req, Seen};
use super::{Got, Wire, CAP};
use crate::options::McpHttp;

/// `initialize` (id 1) and its answer (session `s1`).
async fn initialize(w: &mut Wire) {
    w.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    )
    .await;
    assert_eq!(w.answer(1).await["result"]["protocolVersion"], "2025-11-25");
}

/// A request with no params.
fn request(id: i64, method: &str) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
}

/// A result answer to `req` whose text is `text` (letters and digits only), as one line of
/// JSON spelled out rather than serialized, so the big ones stay quick in debug builds.
fn result_for(req: &Req, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#,
        req.body["id"]
    )
}

/// The error message of an answer, after checking it is one for `id`.
fn error_of(answer: &serde_json::Value, id: i64) -> String {
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    answer["error"]["message"].as_str().unwrap().to_owned()
}

/// Answer `initialize`, take notifications (with a 200 and a JSON body that is no message, as
/// some servers do), refuse the standalone GET; `other` for the rest.
fn server(
    other: impl Fn(&Req) -> Reply + Send + Sync + 'static,
) -> impl Fn(&Req) -> Reply + Send + Sync + 'static {
    move |req: &Req| match (req.method.as_str(), req.rpc()) {
        ("POST", "initialize") => init_answer(req),
        // The client's answers to server requests.
        ("POST", "") => accepted(),
        ("POST", m) if m.starts_with("notifications/") => {
            json("200 OK", &[], r#"{"jsonrpc":"2.0","result":{}}"#)
        }
        ("GET", _) if req.header("last-event-id").is_none() => {
            reply("405 Method Not Allowed", &[], b"")
        }
        _ => other(req),
    }
}

#[tokio::test]
async fn html_page_fails_the_request_at_once() {
    let srv = FaultServer::start(|_| {
        reply(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            b"<html>\n<body>Please sign in</body></html>",
        )
    })
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    let t = Instant::now();
    w.send(request(1, "initialize")).await;
    let msg = error_of(&w.answer(1).await, 1);
    assert!(t.elapsed() < Duration::from_secs(1));
    assert!(
        msg.starts_with("HTTP 200: unexpected content type `text/html`")
            && msg.contains("Please sign in"),
        "{msg}"
    );
    w.close().await;
}

#[tokio::test]
async fn server_error_fails_the_request_and_headers_are_sent() {
    let mut srv = FaultServer::start(server(|_| {
        reply(
            "500 Internal Server Error",
            &[("Content-Type", "text/plain")],
            b"database on fire",
        )
    }))
    .await;
    let cfg = McpHttp::new(&srv.url).header("X-Team", "blue").token("tok");
    let mut w = Wire::open(cfg, CAP).await;
    initialize(&mut w).await;
    let init = srv.request("POST", "initialize").await;
    assert_eq!(init.header("mcp-session-id"), None);
    assert_eq!(init.header("mcp-protocol-version"), None);
    w.send(request(2, "tools/list")).await;
    let answer = w.answer(2).await;
    assert_eq!(error_of(&answer, 2), "HTTP 500: database on fire");
    assert_eq!(answer["error"]["data"]["httpStatus"], 500);
    let req = srv.request("POST", "tools/list").await;
    assert_eq!(req.header("mcp-session-id"), Some("s1"));
    assert_eq!(req.header("mcp-protocol-version"), Some("2025-11-25"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(
        req.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(req.header("authorization"), Some("Bearer tok"));
    assert_eq!(req.header("x-team"), Some("blue"));
    w.close().await;
    let delete = srv.request("DELETE", "").await;
    assert_eq!(delete.header("mcp-session-id"), Some("s1"));
}

#[tokio::test]
async fn cut_stream_is_resumed_with_last_event_id_after_retry() {
    let mut srv = FaultServer::start(server(|req| {
        if req.method == "POST" {
            // Priming event, a notification, then the answer cut off mid-event.
            return sse(
                "id: ev-1\nretry: 300\ndata: \n\n\
                 id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n\
                 id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"res",
                false,
            );
        }
        let answer = json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "resumed"}]}});
        sse(&format!("id: ev-3\ndata: {answer}\n\n"), false)
    }))
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    initialize(&mut w).await;
    w.send(super::call(2, "slow", json!({}))).await;
    let progress = w
        .message_where(|m| m["method"] == "notifications/progress")
        .await;
    assert_eq!(progress["params"]["progress"], 1);
    let answer = w.answer(2).await;
    assert_eq!(super::text_of(&answer), "resumed");
    let cut_at = srv.closed("POST", "tools/call").await;
    let get = srv.request("GET", "").await;
    assert_eq!(get.header("last-event-id"), Some("ev-2"));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("s1"));
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    let waited = get.at.duration_since(cut_at);
    assert!(
        waited >= Duration::from_millis(300),
        "resumed after {waited:?}"
    );
    w.close().await;
}

#[tokio::test]
async fn endless_stream_after_the_answer_does_not_hold_up_close() {
    let mut srv = FaultServer::start(server(|req| {
        sse(
            &format!(
                "id: a1\ndata: {}\n\n: still here\n",
                result_for(req, "done")
            ),
            true,
        )
    }))
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    initialize(&mut w).await;
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    // The standalone stream is asked for and refused (405): fine.
    srv.request("GET", "").await;
    w.send(super::call(2, "forever", json!({}))).await;
    // The body of the notification's 200 is not handed on: the answer comes first.
    match w.next().await {
        Got::Msg(m) => assert_eq!(super::text_of(&m), "done", "{m}"),
        other => panic!("expected the answer, got {other:?}"),
    }
    let took = w.close().await;
    assert!(took < Duration::from_millis(1500), "close took {took:?}");
    let delete = srv.request("DELETE", "").await;
    assert_eq!(delete.header("mcp-session-id"), Some("s1"));
}

#[tokio::test]
async fn expired_session_ends_the_connection_with_the_reason() {
    let mut srv = FaultServer::start(server(|_| {
        json(
            "404 Not Found",
            &[],
            r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}"#,
        )
    }))
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    initialize(&mut w).await;
    w.send(request(2, "tools/list")).await;
    match w.next().await {
        Got::Err(e) => assert!(e.starts_with("MCP session expired (HTTP 404)"), "{e}"),
        other => panic!("expected the session-expired error, got {other:?}"),
    }
    w.close().await;
    srv.request("POST", "tools/list").await;
    let after: Vec<Seen> = srv.drain();
    assert!(
        !after
            .iter()
            .any(|s| matches!(s, Seen::Request(r) if r.method == "DELETE")),
        "an expired session is not deleted"
    );
}

#[tokio::test]
async fn twenty_mib_answers_arrive_whole() {
    let big = "x".repeat(20 << 20);
    let srv = FaultServer::start(server(move |req| {
        let answer = result_for(req, &big);
        if req.body["id"] == 2 {
            json("200 OK", &[], &answer)
        } else {
            sse(&format!("id: b1\ndata: {answer}\n\n"), false)
        }
    }))
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    initialize(&mut w).await;
    w.send(super::call(2, "big", json!({}))).await;
    w.send(super::call(3, "big", json!({}))).await;
    for id in [2, 3] {
        let answer = w.answer(id).await;
        assert_eq!(super::text_of(&answer).len(), 20 << 20, "answer {id}");
    }
    w.close().await;
}

#[tokio::test]
async fn answers_over_the_cap_are_too_long() {
    let cap = 1 << 20;
    let big = "y".repeat(2 << 20);
    let srv = FaultServer::start(server(move |req| {
        let answer = result_for(req, &big);
        if req.body["id"] == 2 {
            json("200 OK", &[], &answer)
        } else {
            sse(&format!("data: {answer}\n\n"), false)
        }
    }))
    .await;
    let mut w = Wire::open(McpHttp::new(&srv.url), cap).await;
    initialize(&mut w).await;
    for id in [2, 3] {
        w.send(super::call(id, "big", json!({}))).await;
        match w.next().await {
            Got::TooLong(n) => assert!(n > 2 << 20, "{n}"),
            other => panic!("expected TooLong, got {other:?}"),
        }
        // The request fails at once rather than at its timeout.
        let msg = error_of(&w.answer(id).await, id);
        assert!(
            msg.contains("larger than the message size limit") || msg.contains("before the answer"),
            "{msg}"
        );
    }
    w.close().await;
}

#[tokio::test]
async fn unreachable_server_fails_the_initialize() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut w = Wire::open(McpHttp::new(format!("http://127.0.0.1:{port}/mcp")), CAP).await;
    w.send(request(1, "initialize")).await;
    let msg = error_of(&w.answer(1).await, 1);
    assert!(msg.starts_with("could not reach the MCP server"), "{msg}");
    w.close().await;
}

/// Through a whole `Client`: every bad answer fails its own call with a clear error, the
/// connection stays up (`is_connected()`, a ping after each) and big answers arrive whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_stays_connected_through_bad_answers() {
    let big = "x".repeat(20 * 1024 * 1024);
    let big_len = big.len();
    let srv = FaultServer::start(server(move |req| {
        let tool = req.body["params"]["name"].as_str().unwrap_or("");
        match (req.rpc(), tool) {
            ("ping", _) => json(
                "200 OK",
                &[],
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#,
                    req.body["id"]
                ),
            ),
            ("tools/call", "html") => reply(
                "200 OK",
                &[("Content-Type", "text/html")],
                b"<html>nope</html>",
            ),
            ("tools/call", "boom") => reply("500 Internal Server Error", &[], b"it broke"),
            // An event cut in the middle, with no id to resume from.
            ("tools/call", "cut") => sse("data: {\"jsonrpc\":\"2.0\",", false),
            // The answer, then a stream that never ends.
            ("tools/call", "endless") => {
                sse(&format!("data: {}\n\n", result_for(req, "endless")), true)
            }
            ("tools/call", "big") => json("200 OK", &[], &result_for(req, &big)),
            _ => reply("400 Bad Request", &[], b"?"),
        }
    }))
    .await;
    let client = crate::mcp::McpClient::new(
        crate::options::ClientOptions::default()
            .transport(crate::options::TransportKind::McpHttp(McpHttp::new(
                &srv.url,
            )))
            .default_timeout(Duration::from_secs(10)),
    );
    client.connect_async().await.unwrap();
    for (tool, want) in [
        ("html", "HTTP 200: unexpected content type `text/html`"),
        ("boom", "HTTP 500"),
        ("cut", ""),
    ] {
        let t = Instant::now();
        let err = client.call_tool(tool, json!({})).await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{tool} took {:?}",
            t.elapsed()
        );
        assert!(err.to_string().contains(want), "{tool}: {err}");
        assert!(client.is_connected(), "{tool} ended the connection");
        client.ping().await.unwrap();
    }
    assert_eq!(
        client.call_tool("endless", json!({})).await.unwrap().text(),
        "endless"
    );
    let r = client.call_tool("big", json!({})).await.unwrap();
    assert_eq!(r.text().len(), big_len);
    assert!(client.is_connected());
    let t = Instant::now();
    client.disconnect_async().await;
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "disconnect took {:?}",
        t.elapsed()
    );
}
