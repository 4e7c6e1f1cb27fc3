//! A new session when the server forgot ours: the handshake again, the message once more.

use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::fault_server::{accepted, json, reply, FaultServer, Reply, Req, Seen};
use super::{Got, Wire, CAP};
use crate::options::McpHttp;

const GONE: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}"#;

/// Sessions `s1`, `s2`, … one per `initialize`; the server knows only the session numbered
/// by the returned counter (0: none, as after a restart); any other is answered 404 (with
/// `forget_all`, every session is).
fn server(
    forget_all: bool,
) -> (
    impl Fn(&Req) -> Reply + Send + Sync + 'static,
    Arc<AtomicUsize>,
) {
    let known = Arc::new(AtomicUsize::new(0));
    let n = known.clone();
    let made = AtomicUsize::new(0);
    let handler = move |req: &Req| {
        let newest = format!("s{}", n.load(Ordering::SeqCst));
        match (req.method.as_str(), req.rpc()) {
            ("POST", "initialize") => {
                assert_eq!(
                    req.header("mcp-session-id"),
                    None,
                    "a new session has no id yet"
                );
                let number = made.fetch_add(1, Ordering::SeqCst) + 1;
                n.store(number, Ordering::SeqCst);
                let sid = format!("s{number}");
                let body = json!({"jsonrpc": "2.0", "id": req.body["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "serverInfo": {"name": "renew", "version": "0"}}});
                json("200 OK", &[("Mcp-Session-Id", &sid)], &body.to_string())
            }
            ("GET", _) => reply("405 Method Not Allowed", &[], b""),
            _ if forget_all || req.header("mcp-session-id") != Some(newest.as_str()) => {
                json("404 Not Found", &[], GONE)
            }
            ("POST", "notifications/initialized") => accepted(),
            ("POST", _) => {
                let body = json!({"jsonrpc": "2.0", "id": req.body["id"], "result": {"tools": []}});
                json("200 OK", &[], &body.to_string())
            }
            _ => reply("405 Method Not Allowed", &[], b""),
        }
    };
    (handler, known)
}

fn list(id: i64) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

#[tokio::test]
async fn a_forgotten_session_is_renewed_and_the_request_sent_again() {
    let (handler, known) = server(false);
    let mut srv = FaultServer::start(handler).await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    w.handshake(json!({})).await;
    w.send(list(2)).await;
    assert_eq!(w.answer(2).await["result"]["tools"], json!([]));
    // The server forgets `s1` (as after a restart): the next request renews.
    known.store(0, Ordering::SeqCst);
    let _ = srv.drain();
    w.send(list(3)).await;
    assert_eq!(w.answer(3).await["result"]["tools"], json!([]));
    assert_eq!(known.load(Ordering::SeqCst), 2, "one new session");
    let seen: Vec<String> = srv
        .drain()
        .into_iter()
        .filter_map(|s| match s {
            Seen::Request(r) if r.method == "POST" => Some(format!(
                "{} {} {}",
                r.method,
                r.rpc(),
                r.header("mcp-session-id").unwrap_or("-")
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        seen,
        [
            "POST tools/list s1",
            "POST initialize -",
            "POST notifications/initialized s2",
            "POST tools/list s2",
        ],
        "{seen:?}"
    );
    w.close().await;
}

#[tokio::test]
async fn a_session_refused_again_ends_the_connection() {
    let (handler, _) = server(true);
    let srv = FaultServer::start(handler).await;
    let mut w = Wire::open(McpHttp::new(&srv.url), CAP).await;
    // `initialize` passes (it carries no session id); everything after it is refused.
    w.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    )
    .await;
    w.answer(1).await;
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    w.send(list(2)).await;
    loop {
        match w.next().await {
            Got::Err(e) => {
                assert!(e.starts_with("MCP session expired (HTTP 404)"), "{e}");
                break;
            }
            Got::Msg(m) => assert!(m["id"] != 2 || m.get("error").is_some(), "{m}"),
            other => panic!("expected the session-expired error, got {other:?}"),
        }
    }
    drop(srv);
    w.close().await;
}
