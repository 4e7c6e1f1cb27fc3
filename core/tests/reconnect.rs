//! Automatic reconnect and rejoin (`ClientOptions::reconnect`): against the fake server for
//! the mechanics (requests in flight fail with `ConnectionLost`, requests made meanwhile wait,
//! `disconnect()` never reconnects, the policy gives up), and against the real Codex for the
//! rejoin (a killed server mid-approval; a WebSocket cut mid-turn with the server alive).

mod support;

use codex_client::{
    ClientOptions, CodexClient, ConnectionEvent, Delivery, Error, Event, ReconnectPolicy,
    ServerRequest,
};
use serde_json::json;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use support::proxy::relayed_app_server;
use support::*;

fn quick() -> Option<ReconnectPolicy> {
    Some(ReconnectPolicy::new(
        5,
        Duration::from_millis(20),
        Duration::from_millis(200),
    ))
}

/// Pull events until `pred` matches one (30 s at most); the events before it.
fn until(c: &codex_client::Client, mut pred: impl FnMut(&Event) -> bool) -> (Event, Vec<Event>) {
    let end = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "event never came; saw {seen:#?}");
        match c.next_event(Some(left)) {
            Ok(Some(ev)) if pred(&ev) => return (ev, seen),
            Ok(Some(ev)) => seen.push(ev),
            Ok(None) => {}
            Err(e) => panic!("connection ended: {e}; saw {seen:#?}"),
        }
    }
}

fn is_reconnected(ev: &Event) -> bool {
    matches!(ev, Event::Connection(ConnectionEvent::Reconnected(_)))
}

#[test]
fn in_flight_requests_fail_as_lost_and_requests_made_meanwhile_wait_for_the_rejoin() {
    let opts = fake_options(&["hang", "die", "slow"])
        .delivery(Delivery::Poll)
        .reconnect(quick());
    let c = fake_client(&[], opts);
    let first_pid = c.server_pid().unwrap();
    // One request the server never answers, in flight when it dies.
    let hung = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("test/hang", json!({})))
    };
    assert!(wait_until(Duration::from_secs(10), || c
        .stderr_tail()
        .contains("test/hang")));
    let died = c.request_blocking("test/die", json!({}));
    assert!(matches!(died, Err(Error::ConnectionLost(_))), "{died:?}");
    let hung = hung.join().unwrap();
    assert!(
        matches!(&hung, Err(e @ Error::ConnectionLost(_)) if e.is_retryable()),
        "{hung:?}"
    );
    // A client that is reconnecting (or reconnected) is still connected for connect().
    assert!(matches!(c.connect(), Err(Error::AlreadyConnected)));
    // Made while reconnecting (or just after): held, then answered by the new server.
    let later = c.request_blocking("test/slow", json!({"ms": 0})).unwrap();
    assert_eq!(later["sleptMs"], 0);
    let (ev, before) = until(c.connection(), is_reconnected);
    let Event::Connection(ConnectionEvent::Reconnected(r)) = ev else {
        unreachable!()
    };
    assert_eq!(r.requests_failed, 2, "{r:?}");
    assert!(r.threads.is_empty());
    let attempt = before
        .iter()
        .find_map(|e| match e {
            Event::Connection(ConnectionEvent::Reconnecting(a)) => Some(a.clone()),
            _ => None,
        })
        .expect("a Reconnecting event came first");
    assert_eq!(attempt.attempt, 1);
    assert!(attempt.cause.contains("exit"), "{attempt:?}");
    assert!(c.is_connected());
    let new_pid = c.server_pid().unwrap();
    assert_ne!(new_pid, first_pid);
    assert!(!pid_alive(first_pid));
    c.disconnect();
    assert!(wait_until(Duration::from_secs(10), || !pid_alive(new_pid)));
}

#[test]
fn disconnect_never_reconnects() {
    let c = fake_client(
        &[],
        fake_options(&[])
            .delivery(Delivery::Poll)
            .reconnect(quick()),
    );
    c.disconnect();
    let mut events = Vec::new();
    while let Ok(Some(ev)) = c.next_event(Some(Duration::from_millis(200))) {
        events.push(ev);
    }
    assert!(
        matches!(
            events.last(),
            Some(Event::Connection(ConnectionEvent::Disconnected(_)))
        ),
        "{events:?}"
    );
    assert!(!events.iter().any(|e| matches!(
        e,
        Event::Connection(ConnectionEvent::Reconnecting(_) | ConnectionEvent::Reconnected(_))
    )));
}

#[test]
fn without_a_policy_a_dropped_link_ends_the_connection() {
    let c = fake_client(&[], fake_options(&["die"]).delivery(Delivery::Poll));
    let died = c.request_blocking("test/die", json!({}));
    assert!(matches!(died, Err(Error::Disconnected(_))), "{died:?}");
}

#[test]
fn the_policy_gives_up_when_the_server_stays_away() {
    let env = RealEnv::new();
    let mut server = ListeningServer::start(&env, "ws://127.0.0.1:0", &[], None);
    let url = server.url.clone().unwrap();
    let c = CodexClient::new(
        env.options()
            .websocket(&url, None)
            .delivery(Delivery::Poll)
            .reconnect(Some(ReconnectPolicy::new(
                3,
                Duration::from_millis(10),
                Duration::from_millis(50),
            ))),
    );
    c.connect().unwrap();
    server.kill();
    let (ev, before) = until(c.connection(), |e| {
        matches!(e, Event::Connection(ConnectionEvent::Disconnected(_)))
    });
    let Event::Connection(ConnectionEvent::Disconnected(info)) = ev else {
        unreachable!()
    };
    assert!(
        info.reason
            .contains("gave up reconnecting after 3 attempts"),
        "{info:?}"
    );
    let attempts: Vec<u32> = before
        .iter()
        .filter_map(|e| match e {
            Event::Connection(ConnectionEvent::Reconnecting(a)) => Some(a.attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [1, 2, 3]);
    assert!(matches!(
        c.request_blocking("model/list", json!({})),
        Err(Error::Disconnected(_))
    ));
}

/// Wait for the next server request.
fn next_request(c: &codex_client::Client) -> ServerRequest {
    match until(c, |e| matches!(e, Event::ServerRequest(_))).0 {
        Event::ServerRequest(r) => r,
        _ => unreachable!(),
    }
}

#[test]
fn a_killed_server_is_respawned_the_thread_resumed_and_the_lost_turn_ends_interrupted() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().delivery(Delivery::Poll).reconnect(quick()));
    c.connect().unwrap();
    let thread = start_thread(c.connection(), json!({}));
    let marker = env.work.path().join("killed.txt");
    let turn = c
        .request_blocking(
            "turn/start",
            json!({"threadId": thread, "input": [{"type": "text", "text": format!("MOCK_EXEC: touch {}", marker.display())}]}),
        )
        .unwrap();
    let turn_id = turn["turn"]["id"].as_str().unwrap().to_owned();
    let approval = next_request(c.connection());
    let pid = c.server_pid().unwrap();
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let (ev, before) = until(c.connection(), is_reconnected);
    let Event::Connection(ConnectionEvent::Reconnected(r)) = ev else {
        unreachable!()
    };
    assert_eq!(r.threads, std::slice::from_ref(&thread), "{r:?}");
    assert_eq!(r.server_requests_dropped, 1);
    assert_eq!(
        r.turns_ended,
        [(thread.clone(), turn_id.clone(), "interrupted".to_owned())]
    );
    assert!(before
        .iter()
        .any(|e| matches!(e, Event::Connection(ConnectionEvent::Reconnecting(_)))));
    // The approval of the dead server cannot be answered; it says why.
    let stale = approval.respond(&json!({"decision": "accept"}));
    assert!(matches!(stale, Err(Error::ConnectionLost(_))), "{stale:?}");
    // The lost turn ended with a clear status, delivered by the rejoin (before `Reconnected`).
    let done = before
        .iter()
        .find_map(|e| match e {
            Event::Notification(n) if n.method == "turn/completed" => Some(n),
            _ => None,
        })
        .expect("turn/completed of the lost turn");
    let p = done.params_value();
    assert_eq!(p["turn"]["id"], turn_id.as_str());
    assert_eq!(p["turn"]["status"], "interrupted");
    assert!(p["turn"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("restarted"));
    assert!(!marker.exists());
    assert_ne!(c.server_pid().unwrap(), pid);
    // The thread goes on: a later turn's approval, answered, runs the command.
    let log = run_turn(
        c.connection(),
        &thread,
        &format!("MOCK_EXEC: touch {}", marker.display()),
        |r| r.respond(&json!({"decision": "accept"})).unwrap(),
    );
    assert_eq!(log.status(), "completed");
    assert!(marker.exists());
}

#[test]
fn a_websocket_cut_mid_turn_resumes_without_gaps_or_duplicates() {
    let env = RealEnv::new();
    let (_server, proxy, url) = relayed_app_server(&env);
    let c = CodexClient::new(
        env.options()
            .websocket(&url, None)
            .delivery(Delivery::Poll)
            .reconnect(quick()),
    );
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    // A slow streamed message: 30 deltas 100 ms apart, cut after the fifth.
    let mut stream = thread.run_streamed("MOCK_SLOW 30 100").unwrap();
    let mut completed: HashMap<String, usize> = HashMap::new();
    let mut deltas = 0;
    let mut cut = false;
    let mut final_turn = None;
    for ev in stream.iter() {
        match ev {
            Event::Notification(n) => match n.method.as_str() {
                "item/agentMessage/delta" => {
                    deltas += 1;
                    if deltas == 5 && !cut {
                        proxy.cut();
                        cut = true;
                    }
                }
                "item/completed" => {
                    let id = n.params_value()["item"]["id"].as_str().unwrap().to_owned();
                    *completed.entry(id).or_default() += 1;
                }
                "turn/completed" => final_turn = Some(n.params_value()["turn"].clone()),
                _ => {}
            },
            other => panic!("unexpected on the turn stream: {other:?}"),
        }
    }
    assert!(cut, "the cut happened mid-turn");
    let turn = final_turn.expect("the turn completed");
    assert_eq!(turn["status"], "completed", "{turn}");
    let dup: Vec<_> = completed.iter().filter(|(_, n)| **n > 1).collect();
    assert!(dup.is_empty(), "items delivered twice: {dup:?}");
    let read = thread.read(true).unwrap();
    let history: Vec<String> = read["thread"]["turns"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    for id in &history {
        assert!(
            completed.contains_key(id),
            "item {id} of the history was never delivered"
        );
    }
    assert!(history.len() >= 2, "{history:?}");
    assert!(proxy.accepted.load(std::sync::atomic::Ordering::Acquire) >= 2);
    // The connection events: one reconnect, the thread resumed.
    let (ev, _) = until(c.connection(), is_reconnected);
    let Event::Connection(ConnectionEvent::Reconnected(r)) = ev else {
        unreachable!()
    };
    assert_eq!(r.threads, [thread.id().to_owned()]);
    assert!(r.turns_ended.is_empty(), "{r:?}");
}

#[test]
fn a_websocket_cut_during_an_approval_delivers_it_again_and_answering_completes_the_turn() {
    let env = RealEnv::new();
    let (_server, proxy, url) = relayed_app_server(&env);
    let opts: ClientOptions = env
        .options()
        .websocket(&url, None)
        .delivery(Delivery::Poll)
        .reconnect(quick());
    let c = CodexClient::new(opts);
    c.connect().unwrap();
    let thread = start_thread(c.connection(), json!({}));
    let marker = env.work.path().join("again.txt");
    c.request_blocking(
        "turn/start",
        json!({"threadId": thread, "input": [{"type": "text", "text": format!("MOCK_EXEC: touch {}", marker.display())}]}),
    )
    .unwrap();
    let first = next_request(c.connection());
    proxy.cut();
    let again = next_request(c.connection());
    assert_eq!(again.method, first.method);
    assert_eq!(again.id, first.id, "the server asks again with the same id");
    assert!(matches!(
        first.respond(&json!({"decision": "accept"})),
        Err(Error::ConnectionLost(_))
    ));
    again.respond(&json!({"decision": "accept"})).unwrap();
    let (done, _) = until(
        c.connection(),
        |e| matches!(e, Event::Notification(n) if n.method == "turn/completed"),
    );
    let Event::Notification(done) = done else {
        unreachable!()
    };
    assert_eq!(done.params_value()["turn"]["status"], "completed");
    assert!(marker.exists());
}

fn short_heartbeat() -> Option<codex_client::Heartbeat> {
    Some(codex_client::Heartbeat::new(
        Duration::from_millis(200),
        Duration::from_millis(300),
    ))
}

#[test]
fn the_heartbeat_notices_a_silent_peer_and_keeps_a_live_idle_one() {
    let env = RealEnv::new();
    let (_server, proxy, url) = relayed_app_server(&env);
    let c = CodexClient::new(
        env.options()
            .websocket(&url, None)
            .delivery(Delivery::Poll)
            .heartbeat(short_heartbeat()),
    );
    c.connect().unwrap();
    // Idle for many intervals: the server answers the pings, the connection stays.
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        if let Some(ev) = c.next_event(Some(Duration::from_millis(100))).unwrap() {
            assert!(!matches!(ev, Event::Connection(_)), "{ev:?}");
        }
    }
    assert!(c.is_connected());
    assert!(c.request_blocking("model/list", json!({})).is_ok());
    // Silent peer: the relay keeps the connection open and passes nothing.
    proxy.stall();
    let pending = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("model/list", json!({})))
    };
    let (ev, _) = until(c.connection(), |e| {
        matches!(e, Event::Connection(ConnectionEvent::Disconnected(_)))
    });
    let Event::Connection(ConnectionEvent::Disconnected(info)) = ev else {
        unreachable!()
    };
    assert!(info.reason.contains("heartbeat missed"), "{info:?}");
    assert!(matches!(
        pending.join().unwrap(),
        Err(Error::Disconnected(_))
    ));
}
