//! Delivery guarantees against the fake app-server: backpressure without loss, read-ahead
//! only where a deadlock threatens (bounded in bytes, every drop reported at once), streams
//! that lose nothing when dropped, one-line framing of caller JSON, handler cycles.

mod support;

use codex_client::{Client, ConnectionEvent, Delivery, Error, Event, RequestOptions};
use futures_util::StreamExt;
use serde_json::json;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

#[test]
fn a_request_pending_off_the_delivery_thread_gets_backpressure_and_nothing_is_dropped() {
    let cap = 64;
    let c = Client::new(
        fake_options(&["flood"])
            .delivery(Delivery::Poll)
            .event_queue_capacity(cap),
    );
    c.connect().unwrap();
    let n = 50_000u64;
    // The flood request stays pending (from another thread) while the consumer is slow.
    let flooding = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("test/flood", json!({"count": n})))
    };
    let (mut received, mut dropped, mut most) = (0u64, 0u64, 0usize);
    let mut batch = Vec::new();
    while received + dropped < n {
        assert!(c
            .next_events(&mut batch, usize::MAX, Some(Duration::from_secs(10)))
            .unwrap());
        assert!(!batch.is_empty(), "events stopped after {received}");
        most = most.max(batch.len());
        for ev in batch.drain(..) {
            match ev {
                Event::Notification(n) if n.method == "item/agentMessage/delta" => received += 1,
                Event::Connection(ConnectionEvent::Overflow { dropped: d }) => dropped += d,
                _ => {}
            }
        }
        if received % 1000 == 0 {
            std::thread::yield_now();
        }
    }
    assert_eq!(dropped, 0, "notifications were shed");
    assert_eq!(received, n);
    // One pull never sees more than the capacity plus what arrived while it was taken.
    assert!(most <= cap + 1, "the queue grew to {most} (capacity {cap})");
    assert_eq!(flooding.join().unwrap().unwrap()["sent"], n);
}

#[test]
fn read_ahead_from_a_callback_is_bounded_in_bytes_and_every_drop_is_reported_at_once() {
    let n = 20_000u64;
    let c = Client::new(
        fake_options(&["flood"])
            .event_queue_capacity(8)
            .read_ahead_bytes(64 * 1024),
    );
    let received = Arc::new(AtomicU64::new(0));
    let dropped = Arc::new(AtomicU64::new(0));
    let answer = Arc::new(Mutex::new(None));
    let (r2, a2, c2) = (received.clone(), answer.clone(), c.downgrade());
    c.on_notification(move |_| {
        if r2.fetch_add(1, Ordering::SeqCst) == 0 {
            // On the delivery thread, with the queue filling behind us: this must not
            // deadlock, so the reader reads ahead (and sheds past the budget).
            let c = c2.upgrade().unwrap();
            let r = c.request_blocking_with(
                "from/callback",
                json!({}),
                RequestOptions::timeout(Duration::from_secs(20)),
            );
            *a2.lock().unwrap() = Some(r.map(|v| v["method"].clone()));
        }
    })
    .unwrap();
    let d2 = dropped.clone();
    c.on_connection_event(move |e| {
        if let ConnectionEvent::Overflow { dropped } = e {
            d2.fetch_add(*dropped, Ordering::SeqCst);
        }
    })
    .unwrap();
    c.connect().unwrap();
    let sent = c
        .request_blocking("test/flood", json!({"count": n}))
        .unwrap();
    assert_eq!(sent["sent"], n);
    // After the flood the stream is quiet: every shed notification must still be reported.
    let all = wait_until(Duration::from_secs(10), || {
        received.load(Ordering::SeqCst) + dropped.load(Ordering::SeqCst) == n
    });
    let (got, lost) = (
        received.load(Ordering::SeqCst),
        dropped.load(Ordering::SeqCst),
    );
    assert!(all, "received {got} + reported dropped {lost} != {n}");
    assert!(
        lost > 0,
        "the 64 KiB budget should have shed some of {n} notifications"
    );
    assert_eq!(
        answer.lock().unwrap().take().unwrap().unwrap(),
        json!("from/callback")
    );
}

#[test]
fn dropping_an_event_stream_gives_its_buffered_events_back() {
    let c = Client::new(fake_options(&["flood"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    c.request_blocking("test/flood", json!({"count": 10}))
        .unwrap();
    // All ten are queued before the response (same connection, in order).
    let mut stream = c.events().unwrap();
    let first = futures_executor::block_on(stream.next()).unwrap();
    assert_eq!(first.method(), Some("item/agentMessage/delta"));
    drop(stream);
    let mut rest = Vec::new();
    c.next_events(&mut rest, usize::MAX, Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(
        rest.len(),
        9,
        "events taken by the dropped stream were lost"
    );
}

#[test]
fn pretty_printed_raw_json_goes_out_as_one_line() {
    let c = Client::new(fake_options(&["approval"]));
    let answered = Arc::new(Mutex::new(None));
    let a2 = answered.clone();
    c.on_server_request(move |req| {
        *a2.lock().unwrap() = Some(req.respond_json("{\n  \"decision\":\n    \"decline\"\n}"));
    })
    .unwrap();
    c.connect().unwrap();
    let pretty =
        serde_json::to_string_pretty(&json!({"a": [1, {"b": "x\ny"}], "c": null})).unwrap();
    assert!(pretty.contains('\n'));
    let raw = RawValue::from_string(pretty).unwrap();
    let echoed = c
        .request_raw_blocking(
            "echo/pretty",
            &raw,
            RequestOptions::timeout(Duration::from_secs(5)),
        )
        .unwrap();
    let echoed: serde_json::Value = serde_json::from_str(echoed.get()).unwrap();
    assert_eq!(
        echoed["params"],
        json!({"a": [1, {"b": "x\ny"}], "c": null})
    );
    c.request_blocking("test/approval", json!({})).unwrap();
    assert!(wait_until(Duration::from_secs(5), || answered
        .lock()
        .unwrap()
        .is_some()));
    answered.lock().unwrap().take().unwrap().unwrap();
    let answers = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    assert_eq!(
        answers["answers"][0]["result"],
        json!({"decision": "decline"})
    );
    assert!(
        !c.stderr_tail().contains("malformed"),
        "{}",
        c.stderr_tail()
    );
}

#[test]
fn a_handler_holding_a_weak_client_does_not_keep_the_client_alive() {
    let c = Client::new(fake_options(&["flood"]));
    let calls = Arc::new(AtomicUsize::new(0));
    let (weak, k) = (c.downgrade(), calls.clone());
    c.on_notification(move |_| {
        k.fetch_add(1, Ordering::SeqCst);
        if let Some(c) = weak.upgrade() {
            let _ = c.is_connected();
        }
    })
    .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/flood", json!({"count": 3}))
        .unwrap();
    assert!(wait_until(Duration::from_secs(5), || calls
        .load(Ordering::SeqCst)
        == 3));
    let pid = c.server_pid().unwrap();
    drop(c);
    assert!(
        wait_until(Duration::from_secs(5), || !pid_alive(pid)),
        "the server outlived the last client handle"
    );
}

#[test]
fn an_answered_awaited_request_keeps_nothing_of_the_connection_alive() {
    // The future of an awaited request holds the session only until the answer: once the
    // client is disconnected and dropped, the connection's last owner lets go, and the event
    // descriptor (shared by the client and its sessions) is closed.
    let c = Client::new(fake_options(&[]).delivery(Delivery::Poll));
    let fd = c.event_fd().unwrap();
    c.connect().unwrap();
    futures_executor::block_on(c.request("x/y", json!({}))).unwrap();
    let target = || std::fs::read_link(format!("/proc/self/fd/{fd}")).ok();
    let open = target().expect("the event descriptor is open");
    c.disconnect();
    drop(c);
    assert_ne!(
        target(),
        Some(open),
        "the event descriptor outlived the client: a session was kept alive"
    );
}

#[test]
fn a_handler_holding_a_strong_clone_keeps_the_client_until_disconnect() {
    // The documented rule: a strong clone in a handler keeps the client alive.
    let c = Client::new(fake_options(&[]));
    let strong = c.clone();
    c.on_notification(move |_| {
        let _ = strong.is_connected();
    })
    .unwrap();
    c.connect().unwrap();
    let pid = c.server_pid().unwrap();
    let weak = c.downgrade();
    drop(c);
    let c = weak.upgrade().expect("kept alive by its handler");
    assert!(pid_alive(pid) && c.is_connected());
    c.disconnect();
    assert!(!pid_alive(pid));
    assert!(matches!(
        c.request_blocking("x", json!({})),
        Err(Error::NotConnected)
    ));
}

#[test]
fn responses_sent_as_events_go_ahead_of_waiting_events_and_each_comes_once() {
    let c = Client::new(fake_options(&["flood", "hang", "slow"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    // 100 notifications wait unread.
    c.request_blocking("test/flood", json!({"count": 100}))
        .unwrap();
    let params = RawValue::from_string("{\"k\":1}".into()).unwrap();
    c.send_request("echo/one", &params, RequestOptions::default(), 7)
        .unwrap();
    c.send_request(
        "test/hang",
        &params,
        RequestOptions::timeout(Duration::from_millis(50)),
        8,
    )
    .unwrap();
    c.send_request("test/hang", &params, RequestOptions::default(), 9)
        .unwrap();
    // Answered in order by the server and past the 50 ms timeout: both outcomes are queued.
    c.request_blocking("test/slow", json!({"ms": 200})).unwrap();
    let mut first = Vec::new();
    c.next_events(&mut first, 2, Some(Duration::ZERO)).unwrap();
    let [Event::Response(r7), Event::Response(r8)] = &first[..] else {
        panic!("responses did not come first: {first:?}");
    };
    assert_eq!((r7.token, r8.token), (7, 8));
    let v: serde_json::Value = serde_json::from_str(r7.result.as_ref().unwrap().get()).unwrap();
    assert_eq!(v, json!({"method": "echo/one", "params": {"k": 1}}));
    assert!(matches!(r8.result, Err(Error::Timeout { .. })), "{r8:?}");
    assert_eq!(r8.method, "test/hang");
    // The disconnect answers the last one ahead of the unread notifications; the
    // Disconnected event comes last, then the disconnect error.
    c.disconnect();
    match c.next_event(Some(Duration::ZERO)).unwrap() {
        Some(Event::Response(r9)) => {
            assert_eq!(r9.token, 9);
            assert!(matches!(r9.result, Err(Error::Disconnected(_))), "{r9:?}");
        }
        other => panic!("expected the response to token 9, got {other:?}"),
    }
    let mut rest = Vec::new();
    assert!(
        !c.next_events(&mut rest, usize::MAX, Some(Duration::ZERO))
            .unwrap()
            || !rest.is_empty()
    );
    assert_eq!(
        rest.len(),
        101,
        "100 notifications and the Disconnected event"
    );
    assert!(matches!(
        rest.last(),
        Some(Event::Connection(ConnectionEvent::Disconnected(_)))
    ));
    assert!(matches!(
        c.next_event(Some(Duration::ZERO)),
        Err(Error::Disconnected(_))
    ));
    assert!(matches!(
        c.send_request("x", &params, RequestOptions::default(), 10),
        Err(Error::NotConnected)
    ));
}

#[test]
fn responses_reach_the_event_handler_even_while_disconnecting() {
    let c = Client::new(fake_options(&["hang"]));
    let got = Arc::new(Mutex::new(Vec::new()));
    let g2 = got.clone();
    c.on_event(move |ev| {
        let on_dispatch = codex_client::on_dispatch_thread();
        if let Event::Response(r) = ev {
            g2.lock()
                .unwrap()
                .push((r.token, r.result.is_ok(), on_dispatch));
        }
    })
    .unwrap();
    c.connect().unwrap();
    let params = RawValue::from_string("{}".into()).unwrap();
    c.send_request("echo/x", &params, RequestOptions::default(), 1)
        .unwrap();
    assert!(wait_until(Duration::from_secs(5), || got
        .lock()
        .unwrap()
        .len()
        == 1));
    c.send_request("test/hang", &params, RequestOptions::default(), 2)
        .unwrap();
    assert!(wait_until(Duration::from_secs(5), || c
        .stderr_tail()
        .contains("received test/hang")));
    c.disconnect();
    // disconnect returned: the pending request's answer (the disconnect) was delivered.
    assert_eq!(
        *got.lock().unwrap(),
        vec![(1, true, true), (2, false, true)]
    );
}

#[test]
fn subscriptions_each_get_every_notification_and_end_with_the_connection() {
    let c = Client::new(
        fake_options(&["flood", "approval"])
            .event_queue_capacity(16)
            .default_timeout(Duration::from_secs(10)),
    );
    let handled = Arc::new(AtomicUsize::new(0));
    let h2 = handled.clone();
    c.on_notification(move |_| {
        h2.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    c.connect().unwrap();
    let mut a = c.subscribe().unwrap();
    let b = c.subscribe().unwrap();
    let dropped_early = c.subscribe().unwrap();
    drop(dropped_early); // a gone subscriber never holds the reader back
    let n = 500;
    let pulling = std::thread::spawn(move || {
        let mut b = b;
        let mut got = Vec::new();
        while b.next_blocking(&mut got, usize::MAX, Some(Duration::from_secs(10))) {}
        got
    });
    // `a` is read on this thread while the flood runs: a full subscription holds the reader.
    let flooding = {
        let c = c.clone();
        std::thread::spawn(move || {
            c.request_blocking("test/flood", json!({"count": n}))
                .unwrap();
            c.request_blocking("test/approval", json!({})).unwrap();
        })
    };
    let mut got = Vec::new();
    while got.len() < n {
        assert!(a.next_blocking(&mut got, usize::MAX, Some(Duration::from_secs(10))));
    }
    flooding.join().unwrap();
    assert!(got.iter().all(|e| matches!(e, Event::Notification(_))));
    assert!(wait_until(Duration::from_secs(5), || handled
        .load(Ordering::SeqCst)
        >= n));
    c.disconnect();
    let rest = pulling.join().unwrap();
    let notes = rest
        .iter()
        .filter(|e| matches!(e, Event::Notification(_)))
        .count();
    assert_eq!(notes, n, "the second subscription missed notifications");
    // Both subscriptions hold the same notifications, each one's params shared (one copy of
    // the text, however many subscriptions), in the same order.
    let params = |events: &[Event]| -> Vec<Arc<serde_json::value::RawValue>> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Notification(n) => Some(n.params.clone()),
                _ => None,
            })
            .take(n)
            .collect()
    };
    let (pa, pb) = (params(&got), params(&rest));
    assert_eq!(pa.len(), n);
    for (x, y) in pa.iter().zip(&pb) {
        assert!(
            Arc::ptr_eq(x, y),
            "a copy per subscription: {} / {}",
            x.get(),
            y.get()
        );
    }
    assert!(
        !rest.iter().any(|e| matches!(e, Event::ServerRequest(_))),
        "server requests never go to subscriptions"
    );
    assert!(matches!(
        rest.last(),
        Some(Event::Connection(ConnectionEvent::Disconnected(_)))
    ));
    let mut tail = Vec::new();
    while a.next_blocking(&mut tail, usize::MAX, Some(Duration::from_secs(5))) {}
    assert!(matches!(
        tail.last(),
        Some(Event::Connection(ConnectionEvent::Disconnected(_)))
    ));
}

/// A binding's request completions travel through the core: each response carries what its
/// sender attached, to `on_response` on the dispatch thread (callbacks) or from `next_event`
/// (poll); `clear_handler` takes a handler out; `end_connection` says whether there was one.
#[test]
fn attachments_come_back_with_their_responses_in_both_modes() {
    use codex_client::HandlerSlot;
    let params = RawValue::from_string("{}".into()).unwrap();
    // Callbacks.
    let c = Client::new(fake_options(&["hang"]));
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = got.clone();
    c.on_response(move |r| {
        let tag = r
            .attachment
            .and_then(|a| a.downcast::<&str>().ok())
            .map(|b| *b);
        sink.lock().unwrap().push((r.token, tag, r.result.is_ok()));
    })
    .unwrap();
    c.connect().unwrap();
    let t1 = c
        .send_request_with(
            "echo/a",
            &params,
            RequestOptions::default(),
            Box::new("one"),
        )
        .unwrap();
    let t2 = c
        .send_request_with(
            "test/hang",
            &params,
            RequestOptions::default(),
            Box::new("two"),
        )
        .unwrap();
    assert!(t1 != 0 && t2 != t1);
    assert!(wait_until(Duration::from_secs(10), || got
        .lock()
        .unwrap()
        .len()
        == 1));
    assert!(c.cancel_request(t2));
    assert!(wait_until(Duration::from_secs(10), || got
        .lock()
        .unwrap()
        .len()
        == 2));
    assert_eq!(
        *got.lock().unwrap(),
        vec![(t1, Some("one"), true), (t2, Some("two"), false)]
    );
    // Without the handler, responses are dropped.
    c.clear_handler(HandlerSlot::Response).unwrap();
    c.send_request_with(
        "echo/b",
        &params,
        RequestOptions::default(),
        Box::new("three"),
    )
    .unwrap();
    c.request_blocking("echo/sync", json!({})).unwrap();
    assert!(c.end_connection());
    assert!(!c.end_connection());
    assert_eq!(got.lock().unwrap().len(), 2);
    // Poll (a response handler would run only in `dispatch_events`; none is registered: the
    // response is pulled).
    let p = Client::new(fake_options(&[]).delivery(Delivery::Poll));
    p.connect().unwrap();
    let t = p
        .send_request_with(
            "echo/p",
            &params,
            RequestOptions::default(),
            Box::new(42u64),
        )
        .unwrap();
    match p.next_event(Some(Duration::from_secs(10))).unwrap() {
        Some(Event::Response(r)) => {
            assert_eq!(r.token, t);
            assert_eq!(r.attachment.unwrap().downcast_ref::<u64>(), Some(&42));
        }
        other => panic!("expected the response, got {other:?}"),
    }
    p.disconnect();
}

#[test]
fn notifications_can_go_to_subscriptions_only() {
    let c = Client::new(fake_options(&["flood", "approval"]).delivery(Delivery::Poll));
    c.queue_notifications(false);
    c.connect().unwrap();
    let mut sub = c.subscribe().unwrap();
    let r = c
        .request_blocking("test/flood", json!({"count": 50}))
        .unwrap();
    assert_eq!(r["sent"], 50);
    let mut got = Vec::new();
    while got.len() < 50 && sub.next_blocking(&mut got, 64, Some(Duration::from_secs(5))) {}
    assert_eq!(got.len(), 50, "the subscription has every notification");
    // The client's own queue has none of them, but server requests still come there.
    c.request_blocking("test/approval", json!({})).unwrap();
    let ev = c.next_event(Some(Duration::from_secs(5))).unwrap();
    assert!(matches!(ev, Some(Event::ServerRequest(_))), "{ev:?}");
    assert!(c.next_event(Some(Duration::ZERO)).unwrap().is_none());
    // Back on: the main queue takes them again.
    c.queue_notifications(true);
    c.request_blocking("test/flood", json!({"count": 3}))
        .unwrap();
    let mut n = 0;
    while let Some(Event::Notification(_)) = c.next_event(Some(Duration::from_secs(5))).unwrap() {
        n += 1;
        if n == 3 {
            break;
        }
    }
    assert_eq!(n, 3);
    c.disconnect();
}

/// Run `c`'s handlers (poll mode) whenever its event fd is readable, until `done` or 10 s.
fn dispatch_until(c: &Client, mut done: impl FnMut() -> bool) -> bool {
    let fd = c.event_fd().unwrap();
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while !done() {
        if std::time::Instant::now() > end {
            return false;
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the call.
        unsafe { libc::poll(&mut p, 1, 100) };
        c.dispatch_events().unwrap();
    }
    true
}

/// The answers the fake app-server got, as `(id, answer)` JSON.
fn answers(c: &Client) -> Vec<serde_json::Value> {
    let r = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    r["answers"].as_array().cloned().unwrap_or_default()
}

#[test]
fn handlers_by_method_name_and_the_fallback_run_in_dispatch_events_in_poll_mode() {
    let c = Client::new(fake_options(&["approval", "unknown"]).delivery(Delivery::Poll));
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let s = seen.clone();
    c.on_method_request("item/commandExecution/requestApproval", move |r| {
        s.lock().unwrap().push(format!("method:{}", r.method));
        r.respond(&json!({"decision": "accept"})).unwrap();
    })
    .unwrap();
    let s = seen.clone();
    c.on_server_request(move |r| {
        s.lock().unwrap().push(format!("fallback:{}", r.method));
        r.respond(&json!({"ok": 1})).unwrap();
    })
    .unwrap();
    let s = seen.clone();
    c.on_method_notification("brand/newThing", move |n| {
        s.lock().unwrap().push(format!("note:{}", n.method));
    })
    .unwrap();
    let s = seen.clone();
    c.on_notification(move |n| s.lock().unwrap().push(format!("any-note:{}", n.method)))
        .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/approval", json!({})).unwrap();
    c.request_blocking("test/unknown", json!({})).unwrap();
    assert!(dispatch_until(&c, || seen.lock().unwrap().len() >= 3));
    let seen = seen.lock().unwrap().clone();
    assert!(seen.contains(&"method:item/commandExecution/requestApproval".to_owned()));
    assert!(seen.contains(&"fallback:brand/newRequest".to_owned()));
    assert!(seen.contains(&"note:brand/newThing".to_owned()), "{seen:?}");
    assert!(!seen.iter().any(|s| s.starts_with("any-note")), "{seen:?}");
    let a = answers(&c);
    assert!(
        a.iter().any(|m| m["result"]["decision"] == "accept"),
        "{a:?}"
    );
    assert!(a.iter().any(|m| m["result"]["ok"] == 1), "{a:?}");

    // Without the method's handler and the fallback, the table answers fail-closed.
    c.clear_method_handlers("item/commandExecution/requestApproval");
    c.clear_handler(codex_client::HandlerSlot::ServerRequest)
        .unwrap();
    c.request_blocking("test/approval", json!({})).unwrap();
    assert!(dispatch_until(&c, || answers(&c).len() >= 3));
    let a = answers(&c);
    assert_eq!(a[2]["result"]["decision"], "decline", "{a:?}");
    c.disconnect();

    // In callback mode the dispatch thread runs the handlers, not the caller.
    let cb = Client::new(fake_options(&[]));
    assert!(matches!(cb.dispatch_events(), Err(Error::InvalidState(_))));
}

#[test]
fn a_shared_server_request_is_answered_once_and_fail_closed_only_when_the_last_handle_goes() {
    let c = Client::new(fake_options(&["approval"]).delivery(Delivery::Poll));
    c.connect().unwrap();
    let pull = |c: &Client| loop {
        match c.next_event(Some(Duration::from_secs(5))).unwrap() {
            Some(Event::ServerRequest(r)) => return r,
            Some(_) => {}
            None => panic!("no server request"),
        }
    };
    // Dropping one handle leaves the request open; the last one answers fail-closed.
    c.request_blocking("test/approval", json!({})).unwrap();
    let r = pull(&c);
    let shown = r.share();
    drop(r);
    assert!(shown.is_open());
    assert!(answers(&c).is_empty());
    drop(shown);
    let a = answers(&c);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["result"]["decision"], "decline");

    // Answered through one handle: closed for both, and the other cannot answer again.
    c.request_blocking("test/approval", json!({})).unwrap();
    let r = pull(&c);
    let kept = r.share();
    c.handle_request(r); // no handler: the table declines it
    assert!(!kept.is_open());
    assert!(matches!(
        kept.respond(&json!({"decision": "accept"})),
        Err(Error::AlreadyResponded)
    ));
    drop(kept);
    let a = answers(&c);
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[1]["result"]["decision"], "decline");
    c.disconnect();
}
