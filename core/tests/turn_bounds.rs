//! A turn bounded as a whole and by silence: past either bound it is interrupted and the wait
//! fails with a timeout that names the bound and the last event (real Codex, mock model).

mod support;

use std::time::{Duration, Instant};

use codex_client::{CodexClient, ErrorKind};
use serde_json::json;
use support::*;

fn client(env: &RealEnv) -> CodexClient {
    env.codex()
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

/// A consumer that waits its own way (an event loop) with the core's `TurnBounds`, the bounded
/// await `delivery::within` and `give_up_async`, all on a plain executor (no tokio runtime):
/// the idle bound gives the turn up, interrupted, without a blocking call.
#[test]
fn an_async_consumer_gives_a_silent_turn_up_with_the_cores_bounds() {
    use codex_client::delivery::within;
    use codex_client::TurnBounds;
    use futures_util::StreamExt;

    let env = RealEnv::new();
    let c = client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let mut s = thread.run_streamed("MOCK_SLOW: 3 20000").unwrap();
    let bounds = TurnBounds::new(Some(Duration::from_secs(120)), Some(Duration::from_secs(2)));
    let t0 = Instant::now();
    let e = futures_executor::block_on(async {
        let mut seen = 0;
        loop {
            match within(bounds.next_wait(), s.next()).await {
                Some(Some(_)) => seen += 1,
                Some(None) => panic!("the turn ended by itself after {seen} events"),
                None => {
                    assert!(
                        !bounds.overall_expired(),
                        "the idle bound ran out, not the turn's"
                    );
                    assert!(seen > 0);
                    break s
                        .give_up_async(false, bounds.timeout(), bounds.idle())
                        .await;
                }
            }
        }
    });
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    assert_eq!(e.kind(), ErrorKind::Timeout);
    let m = e.to_string();
    assert!(
        m.contains("no event for 2s") && m.contains("interrupted"),
        "{m}"
    );
    assert!(!m.contains("last event: none"), "{m}");
    assert_eq!(s.result().status, "interrupted", "{:?}", s.result());
    // Bounds without limits wait for ever; a passed deadline is the overall bound's.
    assert_eq!(TurnBounds::new(None, None).next_wait(), None);
    let b = TurnBounds::new(Some(Duration::ZERO), Some(Duration::from_secs(5)));
    assert_eq!(b.next_wait(), Some(Duration::ZERO));
    assert!(b.overall_expired());
    c.disconnect();
}
