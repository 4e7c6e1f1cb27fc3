//! Fault injection against a fake app-server (what the real server cannot be made to do):
//! silence, death mid-request, overload, garbage, huge lines, unknown methods, floods.

mod support;

use codex_client::{
    Client, ClientOptions, CodexClient, ConnectionEvent, Delivery, Error, Event, RequestOptions,
    RetryPolicy,
};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

fn last_answers(c: &Client) -> Vec<serde_json::Value> {
    let v = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    v["answers"].as_array().unwrap().clone()
}

#[test]
fn handshake_state_errors_and_request_ids() {
    init_tracing();
    let c = CodexClient::new(fake_options(&[]));
    assert!(!c.is_connected());
    assert!(matches!(
        c.request_blocking("thread/start", json!({})),
        Err(Error::NotConnected)
    ));
    assert!(matches!(c.notify("x", json!({})), Err(Error::NotConnected)));
    let init = c.connect().unwrap();
    let ua = init.user_agent.as_deref().unwrap_or_default();
    let version = ua.strip_prefix("fake/").unwrap_or_default();
    assert!(
        codex_client::protocol::CODEX_WINDOW.contains(&version),
        "the fake claims a version of the window: {ua}"
    );
    assert_eq!(init.platform_os.as_deref(), Some("linux"));
    assert!(c.is_connected());
    assert!(matches!(c.connect(), Err(Error::AlreadyConnected)));
    // The handshake happened (a second initialize is rejected by the server, not the client).
    let err = c
        .request_blocking(
            "initialize",
            json!({"clientInfo":{"name":"x","version":"1"}}),
        )
        .unwrap_err();
    assert_eq!(err.rpc().unwrap().code, -32600, "{err}");
    // Echo shows the params arrived; null params are sent as {}.
    let v = c
        .request_blocking("some/method", json!({"a": [1, 2]}))
        .unwrap();
    assert_eq!(v, json!({"method": "some/method", "params": {"a": [1, 2]}}));
    let v = c
        .request_blocking("some/method", serde_json::Value::Null)
        .unwrap();
    assert_eq!(v["params"], json!({}));
    c.disconnect();
    assert!(!c.is_connected());
    c.disconnect(); // idempotent
    assert!(matches!(
        c.request_blocking("some/method", json!({})),
        Err(Error::NotConnected)
    ));
    // Reconnect works.
    c.connect().unwrap();
    assert!(c.is_connected());
}

#[test]
fn timeout_is_its_own_error_and_per_request_override_wins() {
    let c = fake_client(
        &["hang"],
        fake_options(&["hang"]).default_timeout(Duration::from_millis(300)),
    );
    let t0 = Instant::now();
    let err = c.request_blocking("test/hang", json!({})).unwrap_err();
    let took = t0.elapsed();
    match err {
        Error::Timeout { method, after } => {
            assert_eq!(method, "test/hang");
            assert_eq!(after, Duration::from_millis(300));
        }
        other => panic!("expected timeout, got {other:?}"),
    }
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    let err = c
        .request_blocking_with(
            "test/hang",
            json!({}),
            RequestOptions::timeout(Duration::from_millis(50)),
        )
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { after, .. } if after == Duration::from_millis(50)));
    // The connection is unaffected.
    assert!(c.is_connected());
    assert_eq!(
        c.request_blocking("x/y", json!({})).unwrap()["method"],
        "x/y"
    );
}

/// Connection events of a client, collected by its connection handler.
fn collect_connection_events(c: &Client) -> Arc<Mutex<Vec<ConnectionEvent>>> {
    let events = Arc::new(Mutex::new(Vec::new()));
    let ev2 = events.clone();
    c.on_connection_event(move |e| ev2.lock().unwrap().push(e.clone()))
        .unwrap();
    events
}

fn error_events(events: &Mutex<Vec<ConnectionEvent>>) -> Vec<String> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            ConnectionEvent::Error(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn late_response_after_timeout_is_reported_and_dropped() {
    let c = CodexClient::new(fake_options(&["slow"]));
    let events = collect_connection_events(c.connection());
    c.connect().unwrap();
    let err = c
        .request_blocking_with(
            "test/slow",
            json!({"ms": 200}),
            RequestOptions::timeout(Duration::from_millis(20)),
        )
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }));
    // The late answer is named in an error event, and nothing else is reported.
    assert!(
        wait_until(Duration::from_secs(5), || !error_events(&events).is_empty()),
        "no event for the late answer"
    );
    let errors = error_events(&events);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("late response to request") && errors[0].contains("test/slow"),
        "{errors:?}"
    );
    let v = c.request_blocking("after/late", json!({})).unwrap();
    assert_eq!(v["method"], "after/late");
}

#[test]
fn stray_and_duplicate_responses_are_reported_and_the_connection_goes_on() {
    let c = CodexClient::new(fake_options(&["stray"]));
    let events = collect_connection_events(c.connection());
    c.connect().unwrap();
    let v = c.request_blocking("test/stray", json!({})).unwrap();
    assert_eq!(v, json!({"first": true}), "the first answer wins");
    assert!(
        wait_until(Duration::from_secs(5), || error_events(&events).len() >= 3),
        "{:?}",
        error_events(&events)
    );
    let errors = error_events(&events);
    assert!(errors[0].contains("no longer pending"), "{errors:?}");
    assert!(errors[1].contains("987654321"), "{errors:?}");
    assert!(errors[2].contains("\"nobody\""), "{errors:?}");
    assert!(errors.iter().all(|e| e.starts_with("protocol error")));
    assert!(c.is_connected());
    assert_eq!(
        c.request_blocking("x/y", json!({})).unwrap()["method"],
        "x/y"
    );
}

#[test]
fn concurrent_requests_are_correlated() {
    let c = fake_client(&["slow"], fake_options(&["slow"]));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let c = c.clone();
            std::thread::spawn(move || {
                for j in 0..50 {
                    let v = c
                        .request_blocking("echo/me", json!({"i": i, "j": j}))
                        .unwrap();
                    assert_eq!(v["params"], json!({"i": i, "j": j}));
                }
            })
        })
        .collect();
    // A slow request does not hold back fast ones.
    let slow = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("test/slow", json!({"ms": 300})).unwrap())
    };
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(slow.join().unwrap(), json!({"sleptMs": 300}));
}

/// Requests written on the callers' threads (the writer idle) and through the writer (a
/// line too big for the pipe, or others queued) interleave without a byte lost or reordered:
/// every echo comes back whole and to the thread that sent it.
#[test]
fn lines_written_by_callers_and_by_the_writer_keep_order_and_bytes() {
    for spin in [Duration::ZERO, Duration::from_micros(50)] {
        let c = fake_client(&[], fake_options(&[]).reply_spin(spin));
        let threads: Vec<_> = (0..6)
            .map(|i| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for j in 0..60 {
                        // Every 7th request is larger than a pipe's buffer (partial writes).
                        let pad = "x".repeat(if j % 7 == 0 { 200_000 } else { j });
                        let p = json!({"i": i, "j": j, "pad": pad});
                        let v = c.request_blocking("echo/me", p.clone()).unwrap();
                        assert_eq!(v["params"], p);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        c.disconnect();
    }
}

#[test]
fn server_death_fails_pending_at_once_with_stderr_tail() {
    let c = CodexClient::new(fake_options(&["die", "hang"]));
    let events = Arc::new(Mutex::new(Vec::new()));
    let ev2 = events.clone();
    c.on_connection_event(move |e| ev2.lock().unwrap().push(e.clone()))
        .unwrap();
    c.connect().unwrap();
    let pid = c.server_pid().unwrap();
    // A request that would hang forever is pending when the server dies.
    let hanging = pending_hang(c.connection());
    let t0 = Instant::now();
    let err = c.request_blocking("test/die", json!({})).unwrap_err();
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "took {:?}",
        t0.elapsed()
    );
    match &err {
        Error::Disconnected(info) => {
            assert!(
                info.stderr_tail
                    .contains("fatal: fake server dying on purpose"),
                "{info:?}"
            );
            assert!(info.reason.contains("status 3"), "{info:?}");
        }
        other => panic!("expected disconnect, got {other:?}"),
    }
    let hung = hanging.join().unwrap().unwrap_err();
    assert!(matches!(hung, Error::Disconnected(_)), "{hung:?}");
    assert!(!c.is_connected());
    assert!(matches!(
        c.request_blocking("x", json!({})),
        Err(Error::Disconnected(_))
    ));
    assert!(c.stderr_tail().contains("dying on purpose"));
    assert!(wait_until(Duration::from_secs(2), || events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, ConnectionEvent::Disconnected(_)))));
    assert!(!pid_alive(pid), "server process must be reaped");
}

#[test]
fn overload_is_retried_with_backoff_then_succeeds_or_surfaces() {
    let c = fake_client(&["overload"], fake_options(&["overload"]));
    let v = c
        .request_blocking("test/overload", json!({"failures": 2}))
        .unwrap();
    assert_eq!(v["attempts"], 3);
    // More failures than attempts: an overload error carrying the attempt count.
    let opts = RequestOptions::default().with_retry(RetryPolicy::new(
        3,
        Duration::from_millis(1),
        Duration::from_millis(5),
    ));
    let c2 = fake_client(&["overload"], fake_options(&["overload"]));
    match c2.request_blocking_with("test/overload", json!({"failures": 10}), opts) {
        Err(Error::Overloaded { attempts, last }) => {
            assert_eq!(attempts, 3);
            assert_eq!(last.code, -32001);
        }
        other => panic!("expected overloaded, got {other:?}"),
    }
    // Retry disabled: first -32001 surfaces.
    let c3 = fake_client(
        &["overload"],
        fake_options(&["overload"]).retry(RetryPolicy::none()),
    );
    assert!(matches!(
        c3.request_blocking("test/overload", json!({"failures": 1})),
        Err(Error::Overloaded { attempts: 1, .. })
    ));
}

#[test]
fn garbage_lines_are_reported_and_the_connection_survives() {
    let c = CodexClient::new(fake_options(&["garbage"]));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let e2 = errors.clone();
    c.on_connection_event(move |e| {
        if let ConnectionEvent::Error(m) = e {
            e2.lock().unwrap().push(m.clone());
        }
    })
    .unwrap();
    c.connect().unwrap();
    assert_eq!(
        c.request_blocking("test/garbage", json!({})).unwrap(),
        json!({"ok": true})
    );
    assert!(wait_until(Duration::from_secs(2), || errors
        .lock()
        .unwrap()
        .len()
        >= 2));
    let errs = errors.lock().unwrap().clone();
    assert!(errs[0].contains("this is not json"), "{errs:?}");
    assert!(errs[1].contains("[1,2,3]"), "{errs:?}");
    assert!(c.is_connected());
}

#[test]
fn ten_mib_line_arrives_and_oversized_lines_are_skipped() {
    let c = CodexClient::new(fake_options(&["bigline"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    let n = 10 * 1024 * 1024;
    assert_eq!(
        c.request_blocking("test/bigline", json!({"bytes": n}))
            .unwrap()["len"],
        n
    );
    let ev = loop {
        match c
            .next_event(Some(Duration::from_secs(5)))
            .unwrap()
            .expect("event")
        {
            Event::Notification(n) if n.method == "test/big" => break n,
            _ => continue,
        }
    };
    let v = ev.params_value();
    assert_eq!(v["data"].as_str().unwrap().len(), n);

    // With a 1 MiB cap the line is skipped and reported; the connection keeps going.
    let c = CodexClient::new(
        fake_options(&["bigline"])
            .delivery(Delivery::Poll)
            .max_line_bytes(1 << 20),
    );
    c.connect().unwrap();
    assert_eq!(
        c.request_blocking("test/bigline", json!({"bytes": 2 << 20}))
            .unwrap()["len"],
        2 << 20
    );
    let mut saw_skip = false;
    while let Some(ev) = c.next_event(Some(Duration::from_millis(200))).unwrap() {
        match ev {
            Event::Connection(ConnectionEvent::Error(m)) => saw_skip |= m.contains("skipped"),
            Event::Notification(n) => assert_ne!(n.method, "test/big"),
            _ => {}
        }
    }
    assert!(saw_skip);
}

#[test]
fn unknown_methods_arrive_raw_and_unhandled_requests_get_an_error() {
    let c = CodexClient::new(fake_options(&["unknown"]));
    let notes = Arc::new(Mutex::new(Vec::new()));
    let n2 = notes.clone();
    c.on_notification(move |n| {
        n2.lock()
            .unwrap()
            .push((n.method.clone(), n.params_value()))
    })
    .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/unknown", json!({})).unwrap();
    assert!(wait_until(Duration::from_secs(2), || notes
        .lock()
        .unwrap()
        .iter()
        .any(|(m, _)| m == "brand/newThing")));
    let (_, params) = notes
        .lock()
        .unwrap()
        .iter()
        .find(|(m, _)| m == "brand/newThing")
        .unwrap()
        .clone();
    assert_eq!(
        params,
        json!({"threadId":"thr_fake_1","futureField":{"a":[1,2]}})
    );
    assert!(wait_until(Duration::from_secs(2), || !last_answers(
        c.connection()
    )
    .is_empty()));
    let answers = last_answers(c.connection());
    assert_eq!(answers[0]["error"]["code"], -32601, "{answers:?}");
    assert!(answers[0].get("result").is_none());
}

#[test]
fn approvals_without_handler_are_declined() {
    let c = fake_client(&["approval"], fake_options(&["approval"]));
    for m in [
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
    ] {
        c.request_blocking("test/approval", json!({"method": m}))
            .unwrap();
    }
    assert!(wait_until(Duration::from_secs(2), || last_answers(
        c.connection()
    )
    .len()
        == 2));
    for a in last_answers(c.connection()) {
        assert_eq!(a["result"], json!({"decision": "decline"}), "{a}");
    }
}

#[test]
fn panicking_handler_declines_and_reports_and_connection_survives() {
    let c = CodexClient::new(fake_options(&["approval"]));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let e2 = errors.clone();
    c.on_connection_event(move |e| e2.lock().unwrap().push(e.clone()))
        .unwrap();
    c.on_server_request(|_req| panic!("handler bug")).unwrap();
    c.connect().unwrap();
    c.request_blocking("test/approval", json!({})).unwrap();
    assert!(wait_until(Duration::from_secs(2), || last_answers(
        c.connection()
    )
    .len()
        == 1));
    assert_eq!(
        last_answers(c.connection())[0]["result"],
        json!({"decision": "decline"})
    );
    assert!(wait_until(Duration::from_secs(2), || errors
        .lock()
        .unwrap()
        .iter()
        .any(
            |e| matches!(e, ConnectionEvent::Error(m) if m.contains("handler bug"))
        )));
    assert!(c.is_connected());
}

#[test]
fn deferred_answer_from_another_thread_and_double_answer_is_an_error() {
    let c = CodexClient::new(fake_options(&["approval"]));
    let (tx, rx) = std::sync::mpsc::channel();
    c.on_server_request(move |req| tx.send(req).unwrap())
        .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/approval", json!({})).unwrap();
    let req = rx.recv_timeout(Duration::from_secs(2)).unwrap();
    assert_eq!(req.method, "item/commandExecution/requestApproval");
    assert_eq!(req.thread_id().as_deref(), Some("thr_fake_1"));
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        req.respond(&json!({"decision": "accept"})).unwrap();
        assert!(matches!(
            req.respond(&json!({"decision": "decline"})),
            Err(Error::AlreadyResponded)
        ));
        req
    });
    let req = t.join().unwrap();
    assert!(!req.is_open());
    drop(req); // already answered: no second (fail-closed) answer
    assert!(wait_until(Duration::from_secs(2), || last_answers(
        c.connection()
    )
    .len()
        == 1));
    std::thread::sleep(Duration::from_millis(100));
    let answers = last_answers(c.connection());
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["result"], json!({"decision": "accept"}));
}

#[test]
fn all_callbacks_run_on_one_library_thread_in_order() {
    let c = CodexClient::new(fake_options(&["flood", "approval"]));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (s1, s2, s3) = (seen.clone(), seen.clone(), seen.clone());
    c.on_notification(move |n| {
        s1.lock()
            .unwrap()
            .push((std::thread::current().id(), n.method.clone()))
    })
    .unwrap();
    c.on_server_request(move |r| {
        s2.lock()
            .unwrap()
            .push((std::thread::current().id(), r.method.clone()));
        r.respond(&json!({"decision": "decline"})).unwrap();
    })
    .unwrap();
    c.on_connection_event(move |_| {
        s3.lock()
            .unwrap()
            .push((std::thread::current().id(), "conn".into()))
    })
    .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/flood", json!({"count": 1000}))
        .unwrap();
    c.request_blocking("test/approval", json!({})).unwrap();
    assert!(wait_until(Duration::from_secs(5), || seen
        .lock()
        .unwrap()
        .len()
        >= 1001));
    let seen = seen.lock().unwrap().clone();
    let first = seen[0].0;
    assert_ne!(first, std::thread::current().id());
    assert!(
        seen.iter().all(|(t, _)| *t == first),
        "callbacks ran on several threads"
    );
    assert_eq!(
        seen[1000].1, "item/commandExecution/requestApproval",
        "arrival order kept"
    );
}

#[test]
fn blocking_request_from_a_callback_with_a_full_queue_completes() {
    let c = CodexClient::new(fake_options(&["flood"]).event_queue_capacity(8));
    let results = Arc::new(Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let (r2, n2, c2) = (results.clone(), count.clone(), c.clone());
    c.on_notification(move |_| {
        let k = n2.fetch_add(1, Ordering::SeqCst);
        if k == 0 {
            // Queue is full of deltas behind us; the response must still arrive.
            let r = c2.request_blocking_with(
                "from/callback",
                json!({}),
                RequestOptions::timeout(Duration::from_secs(10)),
            );
            r2.lock().unwrap().push(r.map(|v| v["method"].clone()));
        }
    })
    .unwrap();
    c.connect().unwrap();
    let t0 = Instant::now();
    let sent = c
        .request_blocking("test/flood", json!({"count": 20000}))
        .unwrap();
    assert_eq!(sent["sent"], 20000);
    assert!(wait_until(Duration::from_secs(10), || !results
        .lock()
        .unwrap()
        .is_empty()));
    let r = results.lock().unwrap().remove(0);
    assert_eq!(r.unwrap(), json!("from/callback"));
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

#[test]
fn slow_consumer_applies_backpressure_and_nothing_is_lost_silently() {
    let cap = 64;
    let hard = (cap * 16).max(cap + 1024) + 1; // spill bound plus one overflow report
    let c = CodexClient::new(
        fake_options(&["flood"])
            .delivery(Delivery::Poll)
            .event_queue_capacity(cap),
    );
    c.connect().unwrap();
    let n = 50_000usize;
    // Fire the flood; the request times out quickly so no request is pending afterwards,
    // which makes the reader stop at the queue capacity.
    let c2 = c.clone();
    let flood = std::thread::spawn(move || {
        c2.request_blocking_with(
            "test/flood",
            json!({"count": n}),
            RequestOptions::timeout(Duration::from_millis(20)),
        )
    });
    assert!(matches!(flood.join().unwrap(), Err(Error::Timeout { .. })));
    std::thread::sleep(Duration::from_millis(300));
    let mut received = 0usize;
    let mut dropped = 0u64;
    let mut batch = Vec::new();
    // Right after the stall the queue holds at most the spill bound.
    c.next_events(&mut batch, usize::MAX, Some(Duration::from_secs(1)))
        .unwrap();
    assert!(batch.len() <= hard, "queue grew to {}", batch.len());
    loop {
        for ev in batch.drain(..) {
            match ev {
                Event::Notification(n) if n.method == "item/agentMessage/delta" => received += 1,
                Event::Connection(ConnectionEvent::Overflow { dropped: d }) => dropped += d,
                _ => {}
            }
        }
        if received as u64 + dropped >= n as u64 {
            break;
        }
        // Stalled with nothing pending: the queue never grows past the capacity.
        std::thread::sleep(Duration::from_millis(1));
        assert!(c
            .next_events(&mut batch, usize::MAX, Some(Duration::from_secs(5)))
            .unwrap());
        assert!(batch.len() <= hard, "queue grew to {}", batch.len());
        assert!(
            !batch.is_empty(),
            "events stopped after {received} + {dropped}"
        );
    }
    assert_eq!(
        received as u64 + dropped,
        n as u64,
        "every notification is delivered or counted as shed"
    );
}

#[test]
fn disconnect_fails_pending_stops_callbacks_and_kills_the_server() {
    let c = CodexClient::new(fake_options(&["hang", "flood"]));
    let calls = Arc::new(AtomicUsize::new(0));
    let k = calls.clone();
    c.on_notification(move |_| {
        k.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_micros(50));
    })
    .unwrap();
    c.connect().unwrap();
    let pid = c.server_pid().unwrap();
    let hanging = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("test/hang", json!({})))
    };
    let c3 = c.clone();
    std::thread::spawn(move || c3.request_blocking("test/flood", json!({"count": 100000})));
    std::thread::sleep(Duration::from_millis(100));
    c.disconnect();
    let after = calls.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        calls.load(Ordering::SeqCst),
        after,
        "a callback ran after disconnect returned"
    );
    assert!(matches!(
        hanging.join().unwrap(),
        Err(Error::Disconnected(_))
    ));
    assert!(!pid_alive(pid));
    c.disconnect();
}

#[test]
fn dropping_the_client_reaps_the_server() {
    let c = fake_client(&[], fake_options(&[]));
    let pid = c.server_pid().unwrap();
    assert!(pid_alive(pid));
    drop(c);
    assert!(!pid_alive(pid));
}

#[test]
fn poll_and_callback_modes_do_not_mix_and_async_api_works() {
    let poll = Client::new(fake_options(&["flood", "hang"]).delivery(Delivery::Poll));
    // Handlers may be registered in poll mode (they run in `dispatch_events`, on the caller's
    // thread), but the callback-mode client pulls nothing and dispatches nothing itself.
    poll.on_notification(|_| {}).unwrap();
    poll.clear_handler(codex_client::HandlerSlot::Notification)
        .unwrap();
    let cb = Client::new(fake_options(&[]));
    cb.connect().unwrap();
    assert!(matches!(
        cb.next_event(Some(Duration::ZERO)),
        Err(Error::InvalidState(_))
    ));
    assert!(matches!(cb.dispatch_events(), Err(Error::InvalidState(_))));

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use futures_util::StreamExt;
        poll.connect_async().await.unwrap();
        let mut events = poll.events().unwrap();
        let sent = poll
            .request("test/flood", json!({"count": 500}))
            .await
            .unwrap();
        assert_eq!(sent["sent"], 500);
        let mut n = 0;
        while n < 500 {
            match tokio::time::timeout(Duration::from_secs(5), events.next())
                .await
                .unwrap()
            {
                Some(Event::Notification(note)) if note.method == "item/agentMessage/delta" => {
                    assert_eq!(note.delta().as_deref(), Some("x"));
                    n += 1;
                }
                Some(_) => {}
                None => panic!("stream ended early"),
            }
        }
        let err = poll
            .request_with(
                "test/hang",
                json!({}),
                RequestOptions::timeout(Duration::from_millis(30)),
            )
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
        poll.disconnect();
        // The stream ends after the disconnect.
        let rest: Vec<_> = events.collect().await;
        assert!(rest.len() <= 1);
    });
}

#[test]
fn opted_out_notifications_are_not_requested_from_the_fake() {
    // The fake honours optOutNotificationMethods like the real server: the flood is suppressed.
    let c = fake_client(
        &["flood"],
        fake_options(&["flood"]).opt_out("item/agentMessage/delta"),
    );
    assert_eq!(
        c.request_blocking("test/flood", json!({"count": 10}))
            .unwrap()["sent"],
        0
    );
}

#[test]
fn spawn_failure_is_a_transport_error() {
    let c = CodexClient::new(ClientOptions::default().codex_bin("/nonexistent/codex"));
    match c.connect() {
        Err(Error::Transport(m)) => assert!(m.contains("/nonexistent/codex"), "{m}"),
        other => panic!("expected transport error, got {other:?}"),
    }
    assert!(!c.is_connected());
}

#[test]
fn event_fd_is_readable_exactly_while_events_wait() {
    let readable = |fd| poll_readable(fd, 0);
    let c = CodexClient::new(fake_options(&["flood"]).delivery(Delivery::Poll));
    let fd = c.event_fd().unwrap();
    assert_eq!(c.event_fd().unwrap(), fd, "stable descriptor");
    c.connect().unwrap();
    while c.next_event(Some(Duration::ZERO)).unwrap().is_some() {}
    assert!(!readable(fd));
    c.request_blocking("test/flood", json!({"count": 3}))
        .unwrap();
    assert!(
        poll_readable(fd, 5000),
        "fd becomes readable when events arrive"
    );
    let mut n = 0;
    while let Some(ev) = c.next_event(Some(Duration::ZERO)).unwrap() {
        if matches!(ev, Event::Notification(_)) {
            n += 1;
        }
    }
    assert_eq!(n, 3);
    assert!(!readable(fd), "drained queue clears the fd");
    c.disconnect();
    assert!(readable(fd), "a closed connection leaves the fd readable");
    // Callback clients have no event fd.
    assert!(matches!(
        Client::new(fake_options(&[])).event_fd(),
        Err(Error::InvalidState(_))
    ));
}

fn poll_readable(fd: i32, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, timeout_ms) == 1 }
}

/// The fake server refuses every request until it has seen the client's `initialized`
/// notification, so a client that stopped sending it fails here (and everywhere else).
#[test]
fn initialized_is_sent_before_any_other_request() {
    let c = fake_client(&[], fake_options(&[]));
    let v = c.request_blocking("thread/start", json!({})).unwrap();
    assert_eq!(v["thread"]["id"], "thr_fake_1", "{v}");
    c.disconnect();
}

#[test]
fn rate_limits_success_path() {
    let c = fake_client(&[], fake_options(&[]));
    let r = c.rate_limits_blocking().expect("rate limits");
    assert_eq!(r["rateLimits"]["primary"]["usedPercent"], 42, "{r}");
    assert_eq!(r["accountId"], "acc_fake_1", "{r}");
    assert_eq!(r["rateLimitsByLimitId"]["codex"]["planType"], "plus", "{r}");
}

/// `feedback_upload` sends params the schema's `FeedbackUploadParams` accepts (the fake server
/// refuses anything else with -32602, as a wrong member name shows).
#[test]
fn feedback_upload_params_match_the_schema() {
    let c = fake_client(&[], fake_options(&[]));
    let r = c
        .feedback_upload(
            "bug",
            json!({"reason": "test", "includeLogs": false, "threadId": "thr_9", "tags": {"a": "b"}}),
        )
        .expect("params accepted");
    assert_eq!(r["threadId"], "thr_9", "{r}");
    let e = c
        .feedback_upload("bug", json!({"include_logs": false}))
        .unwrap_err();
    assert_eq!(e.rpc().map(|r| r.code), Some(-32602), "{e}");
    assert!(
        e.to_string().contains("unknown field `include_logs`"),
        "{e}"
    );
}

/// `account/chatgptAuthTokens/refresh` answered by a typed handler: the server uses the
/// tokens it was given (its answer to the waiting request names the account from the
/// handler's answer); with no handler the refresh is refused, never answered empty.
#[test]
fn chatgpt_token_refresh_is_answered_by_a_handler() {
    use codex_client::protocol::{server_requests, ChatgptAuthTokensRefreshResponse};
    let c = CodexClient::new(fake_options(&[]));
    let seen = Arc::new(Mutex::new(None));
    let slot = seen.clone();
    c.on_request::<server_requests::AccountChatgptAuthTokensRefresh>(move |req| {
        *slot.lock().unwrap() = req.params.previous_account_id.clone();
        req.respond(ChatgptAuthTokensRefreshResponse {
            access_token: "tok-0123456789".into(),
            chatgpt_account_id: "acc_new_2".into(),
            chatgpt_plan_type: Some("pro".into()),
            extra: Default::default(),
        })
        .unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let r = c.request_blocking("test/refreshTokens", json!({})).unwrap();
    assert_eq!(r["usingAccountId"], "acc_new_2", "{r}");
    assert_eq!(r["accessTokenLen"], 14, "{r}");
    assert_eq!(r["planType"], "pro", "{r}");
    assert_eq!(seen.lock().unwrap().as_deref(), Some("acc_fake_1"));
    c.disconnect();

    let c = fake_client(&[], fake_options(&[]));
    let e = c
        .request_blocking("test/refreshTokens", json!({}))
        .unwrap_err();
    assert!(e.to_string().contains("token refresh refused"), "{e}");
}
