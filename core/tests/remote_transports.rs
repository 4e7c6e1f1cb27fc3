//! app-server over WebSocket (bearer token) and over its unix control socket, against the
//! real `codex app-server --listen ...` 0.169.0.

mod support;

use codex_client::{Client, CodexClient, Delivery, Error, Event};
use serde_json::json;
use std::time::{Duration, Instant};
use support::*;

fn token_file(env: &RealEnv, token: &str) -> std::path::PathBuf {
    let f = env.home.path().join("ws-token");
    std::fs::write(&f, token).unwrap();
    f
}

#[test]
fn websocket_with_the_right_token_runs_a_turn_and_wrong_or_missing_are_refused() {
    let env = RealEnv::new();
    let tf = token_file(&env, "capability-token-for-tests");
    let server = ListeningServer::start(
        &env,
        "ws://127.0.0.1:0",
        &[
            "--ws-auth",
            "capability-token",
            "--ws-token-file",
            tf.to_str().unwrap(),
        ],
        None,
    );
    let url = server.url.clone().unwrap();
    let good = CodexClient::new(
        env.options()
            .websocket(&url, Some("capability-token-for-tests".into())),
    );
    let init = good.connect().unwrap();
    assert!(init.user_agent.unwrap().contains(codex_version()));
    assert_eq!(good.server_pid(), None);
    let thread = good.thread_start(json!({})).unwrap();
    let r = thread.run("MOCK_TEXT: over the socket").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("over the socket"));

    for token in [Some("wrong-token".to_owned()), None] {
        let c = CodexClient::new(env.options().websocket(&url, token.clone()));
        match c.connect() {
            Err(Error::Transport(m)) => assert!(m.contains("401"), "{token:?}: {m}"),
            other => panic!("{token:?}: expected a 401 transport error, got {other:?}"),
        }
        assert!(!c.is_connected());
    }
    // The token is never printed in debug output.
    let dbg = format!(
        "{:?}",
        env.options()
            .websocket(&url, Some("capability-token-for-tests".into()))
    );
    assert!(!dbg.contains("capability-token-for-tests"), "{dbg}");
}

#[test]
fn token_is_not_sent_in_clear_text_off_loopback() {
    let c = CodexClient::new(
        codex_client::ClientOptions::default().websocket("ws://192.0.2.1:9/", Some("t".into())),
    );
    match c.connect() {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("clear text"), "{m}"),
        other => panic!("expected refusal before any connection, got {other:?}"),
    }
    let c = CodexClient::new(
        codex_client::ClientOptions::default().websocket("wss://127.0.0.1:9/", Some("t".into())),
    );
    assert!(matches!(
        c.connect(),
        Err(Error::Unsupported(_) | Error::Transport(_))
    ));
}

#[test]
fn websocket_server_gone_fails_pending_requests_at_once() {
    let env = RealEnv::new();
    let mut server = ListeningServer::start(&env, "ws://127.0.0.1:0", &[], None);
    let url = server.url.clone().unwrap();
    let c = CodexClient::new(env.options().websocket(&url, None).delivery(Delivery::Poll));
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let s = thread.run_streamed("MOCK_SLOW: 1000 50").unwrap();
    let t0 = Instant::now();
    server.kill();
    let err = s.finish().unwrap_err();
    assert!(matches!(err, Error::Disconnected(_)), "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(!c.is_connected());
    assert!(matches!(
        c.request_blocking("model/list", json!({})),
        Err(Error::Disconnected(_))
    ));
}

#[test]
fn unix_control_socket_default_path_and_explicit_path() {
    let env = RealEnv::new();
    let default_sock = env
        .home
        .path()
        .join("app-server-control/app-server-control.sock");
    let _server = ListeningServer::start(&env, "unix://", &[], Some(&default_sock));
    // Default path: derived from codex_home.
    let c = CodexClient::new(env.options().unix_socket(None));
    c.connect().unwrap();
    let r = c
        .thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: via unix socket")
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("via unix socket"));
    // Explicit path.
    let c2 = Client::new(env.options().unix_socket(Some(default_sock.clone())));
    c2.connect().unwrap();
    assert!(c2.request_blocking("model/list", json!({})).unwrap()["data"].is_array());
    // Missing socket: a clear transport error.
    let c3 = Client::new(
        env.options()
            .unix_socket(Some(env.work.path().join("nope.sock"))),
    );
    assert!(matches!(c3.connect(), Err(Error::Transport(m)) if m.contains("nope.sock")));
}

#[test]
fn second_client_resuming_a_thread_receives_the_pending_approval() {
    let env = RealEnv::new();
    let server = ListeningServer::start(&env, "ws://127.0.0.1:0", &[], None);
    let url = server.url.clone().unwrap();
    let a = CodexClient::new(env.options().websocket(&url, None).delivery(Delivery::Poll));
    a.connect().unwrap();
    let thread = a.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("second-client.txt");
    a.request_blocking(
        "turn/start",
        json!({"threadId": thread.id(), "input": [{"type":"text","text": format!("MOCK_EXEC: touch {}", marker.display())}]}),
    )
    .unwrap();
    // Client A sees the approval but keeps it unanswered.
    let held = loop {
        match a
            .next_event(Some(Duration::from_secs(30)))
            .unwrap()
            .expect("event")
        {
            Event::ServerRequest(r) => break r,
            _ => continue,
        }
    };
    // Client B resumes the thread and receives the same request.
    let b = CodexClient::new(env.options().websocket(&url, None).delivery(Delivery::Poll));
    b.connect().unwrap();
    b.thread_resume(thread.id(), json!({})).unwrap();
    let req = loop {
        match b
            .next_event(Some(Duration::from_secs(30)))
            .unwrap()
            .expect("event")
        {
            Event::ServerRequest(r) => break r,
            _ => continue,
        }
    };
    assert_eq!(req.method, "item/commandExecution/requestApproval");
    assert_eq!(req.id, held.id);
    req.respond(&json!({"decision": "accept"})).unwrap();
    // Both clients see serverRequest/resolved; A's copy is now closed.
    for c in [&a, &b] {
        let mut resolved = false;
        let end = Instant::now() + Duration::from_secs(30);
        while !resolved && Instant::now() < end {
            if let Some(Event::Notification(n)) =
                c.next_event(Some(Duration::from_secs(1))).unwrap()
            {
                resolved = n.method == "serverRequest/resolved";
            }
        }
        assert!(resolved);
    }
    assert!(!held.is_open());
    assert!(matches!(
        held.respond(&json!({"decision": "decline"})),
        Err(Error::AlreadyResponded)
    ));
    assert!(
        wait_until(Duration::from_secs(20), || marker.exists()),
        "accepted by B, the command ran"
    );
}
