//! Handshake and default-behaviour tests for `fake-app-server`.

mod common;

use std::time::Duration;

use common::Fake;
use serde_json::json;

#[test]
fn handshake_and_defaults() {
    let mut f = Fake::spawn(&["--stderr-lines", "3"]);
    f.request(7, "thread/start", json!({}));
    assert_eq!(
        f.recv_json(),
        json!({"id":7,"error":{"code":-32600,"message":"Not initialized"}})
    );
    f.initialize(json!({}));
    f.send(&json!({"id":"s1","method":"initialize","params":{}}));
    assert_eq!(
        f.recv_json(),
        json!({"id":"s1","error":{"code":-32600,"message":"Already initialized"}})
    );

    f.request(1, "thread/start", json!({}));
    let resp = f.recv_json();
    assert_eq!(resp["id"], 1);
    assert_eq!(resp["result"]["thread"]["id"], "thr_fake_1");
    let note = f.recv_json();
    assert_eq!(note["method"], "thread/started");
    assert!(note["emittedAtMs"].is_u64());
    assert!(note.get("id").is_none() && note.get("jsonrpc").is_none());

    f.send_raw("not json at all");
    f.send_raw("[1,2]");
    f.send(&json!({"id":"str-id","method":"some/method","params":{"a":[1]}}));
    assert_eq!(
        f.recv_json(),
        json!({"id":"str-id","result":{"method":"some/method","params":{"a":[1]}}})
    );

    // Modes are off by default: test/* methods just echo.
    f.request(2, "test/hang", json!({}));
    assert_eq!(f.recv_json()["result"]["method"], "test/hang");

    let (status, stderr) = f.finish();
    assert_eq!(status.code(), Some(0));
    for i in 0..3 {
        assert!(
            stderr.contains(&format!("fake stderr line {i}\n")),
            "{stderr}"
        );
    }
    assert!(stderr.contains("malformed"), "{stderr}");
}

#[test]
fn opt_out_suppresses_notifications() {
    let mut f = Fake::spawn(&[]);
    f.initialize(json!({"optOutNotificationMethods":["thread/started"]}));
    f.request(1, "thread/start", json!({}));
    assert_eq!(f.recv_json()["id"], 1);
    f.request(2, "ping", json!({}));
    assert_eq!(f.recv_json()["id"], 2, "thread/started must not be sent");
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn bad_mode_is_rejected() {
    let f = Fake::spawn(&["--mode", "nope"]);
    let (status, stderr) = f.finish();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("unknown mode"));
}

#[test]
fn close_stdout_keeps_running_until_eof() {
    let mut f = Fake::initialized(&["--mode", "close-stdout"]);
    f.request(1, "test/close", json!({}));
    assert_eq!(f.recv_line(), None, "stdout should hit EOF");
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        f.child.try_wait().unwrap().is_none(),
        "server should still run"
    );
    f.request(2, "ping", json!({}));
    let (status, _) = f.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn requests_before_the_initialized_notification_are_refused() {
    let mut f = Fake::spawn(&[]);
    f.send(&json!({"id": 0, "method": "initialize", "params": {}}));
    assert_eq!(
        f.recv_json()["result"]["userAgent"],
        common::fake_user_agent()
    );
    f.request(1, "thread/start", json!({}));
    assert_eq!(
        f.recv_json(),
        json!({"id":1,"error":{"code":-32600,"message":"Not initialized: no `initialized` notification before thread/start"}})
    );
    f.send(&json!({"method": "initialized"}));
    f.request(2, "thread/start", json!({}));
    assert_eq!(f.recv_json()["result"]["thread"]["id"], "thr_fake_1");
}

#[test]
fn feedback_params_are_checked_against_the_schema() {
    let mut f = Fake::initialized(&[]);
    f.request(
        1,
        "feedback/upload",
        json!({"classification": "bug", "includeLogs": false}),
    );
    assert_eq!(
        f.recv_json(),
        json!({"id":1,"result":{"threadId":"thr_feedback_1"}})
    );
    f.request(2, "feedback/upload", json!({"reason": "no classification"}));
    let e = f.recv_json();
    assert_eq!(e["error"]["code"], -32602, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("missing field `classification`"),
        "{e}"
    );
}
