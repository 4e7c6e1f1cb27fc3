//! Fault-injection mode tests for `fake-app-server`.

mod common;

use std::time::{Duration, Instant};

use common::Fake;
use serde_json::json;

#[test]
fn hang_never_answers() {
    let mut f = Fake::initialized(&["--mode", "hang"]);
    f.request(1, "test/hang", json!({}));
    f.request(2, "ping", json!({}));
    assert_eq!(f.recv_json()["id"], 2);
    f.expect_silence(Duration::from_millis(200));
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn slow_answers_later_without_blocking() {
    let mut f = Fake::initialized(&["--mode", "slow"]);
    let start = Instant::now();
    f.request(1, "test/slow", json!({"ms":400}));
    f.request(2, "ping", json!({}));
    assert_eq!(f.recv_json()["id"], 2);
    assert_eq!(f.recv_json()["id"], 1);
    assert!(start.elapsed() >= Duration::from_millis(400));
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn die_exits_3_with_stderr() {
    let mut f = Fake::spawn_env(&[], &[("FAKE_MODE", "hang,die")]);
    f.initialize(json!({}));
    f.request(1, "test/die", json!({}));
    assert_eq!(f.recv_line(), None, "no answer, just EOF");
    let (status, stderr) = f.finish();
    assert_eq!(status.code(), Some(3));
    assert!(
        stderr.contains("fatal: fake server dying on purpose"),
        "{stderr}"
    );
}

#[test]
fn overload_fails_k_times() {
    let mut f = Fake::initialized(&["--mode", "overload"]);
    for id in 1..=2 {
        f.request(id, "test/overload", json!({"failures":2}));
        assert_eq!(
            f.recv_json(),
            json!({"id":id,"error":{"code":-32001,"message":"Server overloaded; retry later."}})
        );
    }
    f.request(3, "test/overload", json!({"failures":2}));
    assert_eq!(f.recv_json(), json!({"id":3,"result":{"attempts":3}}));
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn garbage_lines_then_answer() {
    let mut f = Fake::initialized(&["--mode", "garbage"]);
    f.request(1, "test/garbage", json!({}));
    assert_eq!(f.recv_line().unwrap(), "this is not json {{{");
    assert_eq!(f.recv_line().unwrap(), "[1,2,3]");
    assert_eq!(f.recv_json(), json!({"id":1,"result":{"ok":true}}));
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn bigline_sends_huge_notification() {
    let n = 4 * 1024 * 1024;
    let mut f = Fake::initialized(&["--mode", "bigline"]);
    f.request(1, "test/bigline", json!({"bytes":n}));
    let note = f.recv_json();
    assert_eq!(note["method"], "test/big");
    let data = note["params"]["data"].as_str().unwrap();
    assert_eq!(data.len(), n);
    assert!(data.bytes().all(|b| b == b'x'));
    assert_eq!(f.recv_json(), json!({"id":1,"result":{"len":n}}));
    assert_eq!(f.finish().0.code(), Some(0));
}

#[test]
fn unknown_and_approval_record_answers() {
    let mut f = Fake::initialized(&["--mode", "unknown", "--mode", "approval"]);
    f.request(1, "test/unknown", json!({}));
    let note = f.recv_json();
    assert_eq!(note["method"], "brand/newThing");
    assert_eq!(note["params"]["futureField"], json!({"a":[1,2]}));
    let req = f.recv_json();
    assert_eq!(
        req,
        json!({"id":0,"method":"brand/newRequest","params":{"x":1}})
    );
    assert_eq!(f.recv_json(), json!({"id":1,"result":{}}));
    f.send(&json!({"id":0,"error":{"code":-32601,"message":"unsupported"}}));

    f.request(
        2,
        "test/approval",
        json!({"method":"item/fileChange/requestApproval"}),
    );
    let req = f.recv_json();
    assert_eq!(req["id"], 1);
    assert_eq!(req["method"], "item/fileChange/requestApproval");
    assert_eq!(req["params"]["command"], "echo hi");
    assert_eq!(f.recv_json(), json!({"id":2,"result":{}}));
    f.send(&json!({"id":1,"result":{"decision":"accept"}}));

    f.request(3, "test/lastAnswers", json!({}));
    assert_eq!(
        f.recv_json(),
        json!({"id":3,"result":{"answers":[
            {"id":0,"error":{"code":-32601,"message":"unsupported"}},
            {"id":1,"result":{"decision":"accept"}},
        ]}})
    );
    let (status, stderr) = f.finish();
    assert_eq!(status.code(), Some(0));
    assert!(
        stderr.contains("client answered brand/newRequest: {"),
        "{stderr}"
    );
}

#[test]
fn flood_sends_n_notifications_with_backpressure() {
    let n: u64 = 200_000;
    let mut f = Fake::initialized(&["--mode", "flood"]);
    f.request(
        1,
        "test/flood",
        json!({"count":n,"method":"item/agentMessage/delta"}),
    );
    // Don't read for a while: the server must block, not die.
    std::thread::sleep(Duration::from_millis(300));
    assert!(f.child.try_wait().unwrap().is_none());
    let first = f.recv_json();
    assert_eq!(first["method"], "item/agentMessage/delta");
    assert_eq!(first["params"]["delta"], "x");
    let first = first.to_string();
    for _ in 1..n {
        assert_eq!(f.recv_line().unwrap(), first);
    }
    assert_eq!(f.recv_json(), json!({"id":1,"result":{"sent":n}}));
    assert_eq!(f.finish().0.code(), Some(0));
}
