//! A turn bounded as a whole and by silence: past either bound it is interrupted and the wait
//! fails with a timeout that names the bound and the last event (real Codex, mock model).

mod support;

use std::time::{Duration, Instant};

use codex_client::{Client, ErrorKind};
use serde_json::json;
use support::*;

fn client(env: &RealEnv) -> Client {
    let c = Client::new(env.options());
    c.connect().expect("connect");
    c
}

#[test]
fn an_idle_turn_is_interrupted_and_named() {
    let env = RealEnv::new();
    let c = client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    // One delta, then 20 s of silence before each next one.
    let mut s = thread.run_streamed("MOCK_SLOW: 3 20000").unwrap();
    let t0 = Instant::now();
    let e = s
        .finish_within(Some(Duration::from_secs(120)), Some(Duration::from_secs(2)))
        .unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    assert_eq!(e.kind(), ErrorKind::Timeout);
    let m = e.to_string();
    assert!(
        m.contains("no event for 2s") && m.contains("last event: "),
        "{m}"
    );
    assert!(m.contains("interrupted"), "{m}");
    // The interrupt ended the turn on the server.
    assert_eq!(s.result().status, "interrupted", "{:?}", s.result());
    c.disconnect();
}

#[test]
fn a_turn_over_its_overall_bound_is_interrupted_and_a_quick_one_is_not() {
    let env = RealEnv::new();
    let c = client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let mut s = thread.run_streamed("MOCK_SLOW: 100 500").unwrap();
    let e = s
        .finish_within(Some(Duration::from_secs(3)), Some(Duration::from_secs(30)))
        .unwrap_err();
    assert!(e.to_string().contains("took longer than 3s"), "{e}");
    assert_eq!(s.result().status, "interrupted");

    let mut s = thread.run_streamed("hello").unwrap();
    let r = s
        .finish_within(Some(Duration::from_secs(60)), Some(Duration::from_secs(30)))
        .unwrap();
    assert_eq!(r.status, "completed");
    assert_eq!(
        r.final_response.as_deref(),
        Some("Hello from the mock model.")
    );
    c.disconnect();
}
