//! The fault matrix (`scripts/fault-matrix.sh`): each fault, with and without reconnect,
//! against the real Codex where the fault allows and the fake server otherwise. One line per
//! row: outcome, time to detect, requests left unanswered (must be 0) and fds, threads,
//! library tasks ([`codex_client::rt::live_tasks`]) and server processes leaked (must be 0;
//! the library's own threads are started before the first row). Not part of `cargo test` by default (its rows run one
//! at a time in one process, so that the fd and thread counts mean something); run it with
//! `cargo test -p codex-client --test fault_matrix -- --nocapture`.
//! `FAULT_MATRIX_CYCLES` sets the connect/disconnect cycles (default 10,000).

mod support;

use codex_client::{
    Client, ClientOptions, ConnectionEvent, Delivery, Error, Event, ReconnectPolicy, RequestOptions,
};
use serde_json::json;
use std::collections::HashSet;
use std::time::{Duration, Instant};
use support::proxy::relayed_app_server;
use support::*;

fn policy(on: bool) -> Option<ReconnectPolicy> {
    on.then_some(ReconnectPolicy::new(
        5,
        Duration::from_millis(20),
        Duration::from_millis(200),
    ))
}

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// What the process holds: open fds and threads.
fn footprint() -> (usize, usize) {
    (count("/proc/self/fd"), count("/proc/self/task"))
}

/// One row's figures.
struct Row {
    outcome: String,
    detect: Option<Duration>,
    unanswered: usize,
}

/// Requests sent with tokens, and the responses seen.
#[derive(Default)]
struct Ledger {
    sent: HashSet<u64>,
    answered: HashSet<u64>,
    next: u64,
}

impl Ledger {
    fn send(&mut self, c: &Client, method: &str, params: serde_json::Value) {
        self.next += 1;
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        self.sent.insert(self.next);
        match c.send_request(method, &raw, RequestOptions::default(), self.next) {
            Ok(()) => {}
            // The connection already ended: the caller is answered at once, by the error.
            Err(Error::Disconnected(_)) => {
                self.answered.insert(self.next);
            }
            Err(e) => panic!("send_request: {e:?}"),
        }
    }
    fn see(&mut self, ev: &Event) {
        if let Event::Response(r) = ev {
            self.answered.insert(r.token);
        }
    }
    fn unanswered(&self) -> usize {
        self.sent.difference(&self.answered).count()
    }
}

/// Drain events until `done` says so (or the connection ends, or 60 s); the time of the
/// first connection event after `since`.
fn drain(
    c: &Client,
    ledger: &mut Ledger,
    since: Instant,
    mut done: impl FnMut(&Event) -> bool,
) -> (Option<Duration>, Vec<Event>) {
    let end = Instant::now() + Duration::from_secs(60);
    let mut detect = None;
    let mut kept = Vec::new();
    while Instant::now() < end {
        match c.next_event(Some(Duration::from_millis(200))) {
            Ok(Some(ev)) => {
                ledger.see(&ev);
                if detect.is_none()
                    && matches!(
                        ev,
                        Event::Connection(
                            ConnectionEvent::Reconnecting(_) | ConnectionEvent::Disconnected(_)
                        )
                    )
                {
                    detect = Some(since.elapsed());
                }
                let stop = done(&ev);
                kept.push(ev);
                if stop {
                    break;
                }
            }
            Ok(None) => {}
            Err(_) => break,
        }
    }
    (detect, kept)
}

/// SIGKILL the server, then drain until the reconnect (or the end); the time to detect.
fn kill_and_drain(c: &Client, l: &mut Ledger, on: bool) -> (Option<Duration>, Vec<Event>) {
    let t = Instant::now();
    kill(c.server_pid().unwrap());
    drain(c, l, t, |e| if on { reconnected(e) } else { ended(e) })
}

fn reconnected(ev: &Event) -> bool {
    matches!(ev, Event::Connection(ConnectionEvent::Reconnected(_)))
}

fn ended(ev: &Event) -> bool {
    matches!(ev, Event::Connection(ConnectionEvent::Disconnected(_)))
}

fn kill(pid: u32) {
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
}

/// Finish a row: the outcome of the fault, then (with reconnect) a request that shows whether
/// the client works again, then disconnect.
fn settle(c: &Client, outcome: &str, on: bool) -> String {
    settle_with(c, outcome, on, "model/list", json!({}))
}

/// [`settle`] for the fake server, which answers `test/slow`.
fn settle_fake(c: &Client, outcome: &str, on: bool) -> String {
    settle_with(c, outcome, on, "test/slow", json!({"ms": 0}))
}

fn settle_with(
    c: &Client,
    outcome: &str,
    on: bool,
    method: &str,
    params: serde_json::Value,
) -> String {
    let after = if on {
        match c.request_blocking(method, params) {
            Ok(_) => "; next request ok".to_string(),
            Err(e) => format!("; next request: {e}"),
        }
    } else {
        String::new()
    };
    c.disconnect();
    format!("{outcome}{after}")
}

fn killed_mid_request(on: bool) -> Row {
    let tag = unique_tag("fm-req");
    let c = Client::new(
        fake_options(&["hang", "slow"])
            .env(TAG_VAR, &tag)
            .delivery(Delivery::Poll)
            .reconnect(policy(on)),
    );
    c.connect().unwrap();
    let mut l = Ledger::default();
    for _ in 0..10 {
        l.send(&c, "test/hang", json!({}));
    }
    assert!(wait_until(Duration::from_secs(10), || c
        .stderr_tail()
        .contains("received test/hang")));
    let (detect, evs) = kill_and_drain(&c, &mut l, on);
    let lost = evs
        .iter()
        .filter(|e| matches!(e, Event::Response(r) if matches!(r.result, Err(codex_client::Error::ConnectionLost(_)) | Err(codex_client::Error::Disconnected(_)))))
        .count();
    let outcome = format!(
        "{lost}/10 in flight failed ({}){}",
        if on { "ConnectionLost" } else { "Disconnected" },
        if on { ", reconnected" } else { "" }
    );
    let outcome = settle_fake(&c, &outcome, on);
    Row {
        outcome,
        detect,
        unanswered: l.unanswered(),
    }
}

fn killed_mid_turn(env: &RealEnv, on: bool, approval: bool) -> Row {
    let c = Client::new(env.options().delivery(Delivery::Poll).reconnect(policy(on)));
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let text = if approval {
        "MOCK_EXEC: true".to_string()
    } else {
        "MOCK_SLOW 100 50".to_string()
    };
    let mut l = Ledger::default();
    l.send(
        &c,
        "turn/start",
        json!({"threadId": thread, "input": [{"type": "text", "text": text}]}),
    );
    let mut held = Vec::new();
    drain(&c, &mut l, Instant::now(), |e| match e {
        Event::ServerRequest(_) => approval,
        Event::Notification(n) => !approval && n.method == "item/agentMessage/delta",
        _ => false,
    })
    .1
    .into_iter()
    .for_each(|e| {
        if let Event::ServerRequest(r) = e {
            held.push(r)
        }
    });
    for _ in 0..5 {
        l.send(&c, "thread/read", json!({"threadId": thread}));
    }
    let (detect, evs) = kill_and_drain(&c, &mut l, on);
    let turn_end = evs.iter().find_map(|e| match e {
        Event::Notification(n) if n.method == "turn/completed" => Some(
            n.params_value()["turn"]["status"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        ),
        _ => None,
    });
    let outcome = if on {
        format!(
            "reconnected, thread resumed, turn ended {}",
            turn_end.as_deref().unwrap_or("(no turn/completed)")
        )
    } else {
        "Disconnected, requests failed".into()
    };
    Row {
        outcome: settle(&c, &outcome, on),
        detect,
        unanswered: l.unanswered(),
    }
}

fn websocket(env: &RealEnv, on: bool, stall: bool) -> Row {
    let (server, proxy, url) = relayed_app_server(env);
    let opts: ClientOptions = env
        .options()
        .websocket(&url, None)
        .delivery(Delivery::Poll)
        .reconnect(policy(on))
        .heartbeat(Some(codex_client::Heartbeat::new(
            Duration::from_millis(500),
            Duration::from_millis(500),
        )))
        .connect_timeout(Duration::from_secs(2))
        .default_timeout(Duration::from_secs(3));
    let c = Client::new(opts);
    c.connect().unwrap();
    let thread = start_thread(&c, json!({}));
    let mut l = Ledger::default();
    l.send(
        &c,
        "turn/start",
        json!({"threadId": thread, "input": [{"type": "text", "text": "MOCK_SLOW 40 50"}]}),
    );
    drain(
        &c,
        &mut l,
        Instant::now(),
        |e| matches!(e, Event::Notification(n) if n.method == "item/agentMessage/delta"),
    );
    let t = Instant::now();
    if stall {
        proxy.stall();
    } else {
        proxy.cut();
    }
    for _ in 0..5 {
        l.send(&c, "thread/read", json!({"threadId": thread}));
    }
    let mut timed_out = 0;
    let (detect, evs) = drain(&c, &mut l, t, |e| {
        if stall {
            // The heartbeat notices the silent peer; reconnecting goes through the same
            // stalled relay, so the policy gives up.
            if matches!(e, Event::Response(r) if r.result.is_err()) {
                timed_out += 1;
            }
            ended(e)
        } else if on {
            matches!(e, Event::Notification(n) if n.method == "turn/completed")
        } else {
            ended(e)
        }
    });
    let completed = evs.iter().find_map(|e| match e {
        Event::Notification(n) if n.method == "turn/completed" => Some(
            n.params_value()["turn"]["status"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        ),
        _ => None,
    });
    let outcome = match (stall, on) {
        (true, on) => {
            let reason = evs.iter().find_map(|e| match e {
                Event::Connection(ConnectionEvent::Disconnected(i)) => Some(i.reason.clone()),
                _ => None,
            });
            let attempts = evs
                .iter()
                .filter(|e| matches!(e, Event::Connection(ConnectionEvent::Reconnecting(_))))
                .count();
            let tried = if on {
                format!("{attempts} reconnect attempts through the stalled relay, then ")
            } else {
                String::new()
            };
            let end = reason.map_or("not detected".into(), |r| {
                format!("Disconnected ({})", r.split(';').next().unwrap_or(""))
            });
            format!("{timed_out}/5 requests failed, {tried}{end}")
        }
        (false, true) => format!(
            "reconnected through the relay, turn {}",
            completed.as_deref().unwrap_or("(not completed)")
        ),
        (false, false) => "Disconnected".into(),
    };
    let row = Row {
        outcome: settle(&c, &outcome, on && !stall),
        detect,
        unanswered: l.unanswered(),
    };
    drop(server);
    row
}

fn stops_reading(on: bool) -> Row {
    let tag = unique_tag("fm-stdin");
    let c = Client::new(
        fake_options(&["stop-reading", "hang"])
            .env(TAG_VAR, &tag)
            .delivery(Delivery::Poll)
            .reconnect(policy(on))
            .default_timeout(Duration::from_secs(2)),
    );
    c.connect().unwrap();
    c.request_blocking("test/stopReading", json!({})).unwrap();
    let mut l = Ledger::default();
    // Enough bytes to fill the pipe: the writer blocks, every request still gets its answer.
    let pad = "x".repeat(8 * 1024);
    let t = Instant::now();
    for _ in 0..64 {
        l.send(&c, "test/hang", json!({ "pad": pad }));
    }
    let mut answered = 0;
    drain(&c, &mut l, t, |e| {
        answered += usize::from(matches!(e, Event::Response(_)));
        answered == 64
    });
    let detect = (l.unanswered() == 0).then(|| t.elapsed());
    let timeouts = l.answered.len();
    let d = Instant::now();
    c.disconnect();
    let outcome = format!(
        "{timeouts}/64 requests timed out; disconnect() took {} ms and stopped the server",
        d.elapsed().as_millis()
    );
    assert!(wait_until(Duration::from_secs(10), || pids_with_env(
        TAG_VAR, &tag
    )
    .is_empty()));
    Row {
        outcome,
        detect,
        unanswered: l.unanswered(),
    }
}

fn cycles(on: bool, n: usize) -> Row {
    let tag = unique_tag("fm-cycles");
    let opts = fake_options(&[]).env(TAG_VAR, &tag).reconnect(policy(on));
    let t = Instant::now();
    for _ in 0..n {
        let c = Client::new(opts.clone());
        c.connect().unwrap();
        c.disconnect();
    }
    Row {
        outcome: format!("{n} cycles in {:.1} s", t.elapsed().as_secs_f64()),
        detect: None,
        unanswered: 0,
    }
}

fn concurrent_kill(on: bool) -> Row {
    let c = Client::new(
        fake_options(&["slow"])
            .delivery(Delivery::Poll)
            .reconnect(policy(on))
            .event_queue_capacity(4096),
    );
    c.connect().unwrap();
    let mut l = Ledger::default();
    for i in 0..1000 {
        l.send(&c, "test/slow", json!({"ms": 200 + (i % 50)}));
    }
    let t = Instant::now();
    kill(c.server_pid().unwrap());
    // Responses go ahead of connection events: once the reconnect (or the end) is reported,
    // each of the 1,000 has had its answer.
    let (detect, evs) = drain(
        &c,
        &mut l,
        t,
        |e| if on { reconnected(e) } else { ended(e) },
    );
    let ok = evs
        .iter()
        .filter(|e| matches!(e, Event::Response(r) if r.result.is_ok()))
        .count();
    let outcome = format!(
        "{ok} answered before the kill, {} failed by it{}",
        l.answered.len() - ok,
        if on { ", reconnected" } else { "" }
    );
    Row {
        outcome: settle_fake(&c, &outcome, on),
        detect,
        unanswered: l.unanswered(),
    }
}

#[test]
fn fault_matrix() {
    let n_cycles: usize = std::env::var("FAULT_MATRIX_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let env = RealEnv::new();
    println!(
        "{:<42} {:<9} {:>10} {:>10} {:>14}  outcome",
        "fault", "reconnect", "detect ms", "unanswered", "leaked fd/thr/task/proc"
    );
    // The library's threads (the shared runtime, the dispatch pool) start with the first
    // client and stay: start them before counting, so a row's figures are its leaks only.
    for mode in [Delivery::Poll, Delivery::Callbacks] {
        let c = Client::new(fake_options(&[]).delivery(mode));
        c.connect().unwrap();
        c.disconnect();
    }
    let library_threads = footprint().1;
    let mut failures = Vec::new();
    type Run<'a> = Box<dyn Fn(bool) -> Row + 'a>;
    let rows: Vec<(&str, Run)> = vec![
        (
            "server SIGKILL mid-request (fake)",
            Box::new(killed_mid_request),
        ),
        (
            "server SIGKILL mid-turn (codex)",
            Box::new(|on| killed_mid_turn(&env, on, false)),
        ),
        (
            "server SIGKILL mid-approval (codex)",
            Box::new(|on| killed_mid_turn(&env, on, true)),
        ),
        (
            "WebSocket peer reset mid-turn (codex)",
            Box::new(|on| websocket(&env, on, false)),
        ),
        (
            "relay stalls mid-turn (codex ws)",
            Box::new(|on| websocket(&env, on, true)),
        ),
        ("server stops reading stdin (fake)", Box::new(stops_reading)),
        (
            "connect/disconnect cycles (fake)",
            Box::new(|on| cycles(on, n_cycles)),
        ),
        (
            "1,000 requests in flight, SIGKILL (fake)",
            Box::new(concurrent_kill),
        ),
    ];
    for (name, run) in &rows {
        for on in [false, true] {
            let (fd0, th0) = footprint();
            let row = run(on);
            // Threads and fds of a finished client go within its teardown; give stragglers
            // (the relay's threads, reaped children) a moment.
            let settled = wait_until(Duration::from_secs(10), || {
                let (fd, th) = footprint();
                fd <= fd0 && th <= th0 && codex_client::rt::live_tasks() == 0
            });
            let tasks = codex_client::rt::live_tasks();
            let (fd1, th1) = footprint();
            let leaked_fd = fd1.saturating_sub(fd0);
            let leaked_th = th1.saturating_sub(th0);
            let procs = children();
            println!(
                "{:<42} {:<9} {:>10} {:>10} {:>14}  {}",
                name,
                if on { "on" } else { "off" },
                row.detect.map_or("-".into(), |d| d.as_millis().to_string()),
                row.unanswered,
                format!("{leaked_fd}/{leaked_th}/{tasks}/{procs}"),
                row.outcome
            );
            if row.unanswered > 0 || !settled || procs > 0 {
                failures.push(format!("{name} (reconnect {on})"));
            }
        }
    }
    // However many clients came and went, the library's threads are the ones it started.
    assert_eq!(
        footprint().1,
        library_threads,
        "the library's threads grew with the clients"
    );
    assert!(
        failures.is_empty(),
        "rows with unanswered requests or leaks: {failures:?}"
    );
}

/// Live child processes of this test process (servers not reaped or not stopped).
fn children() -> usize {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                let after = s.rsplit(')').next().unwrap_or("");
                let mut f = after.split_whitespace();
                let state = f.next().unwrap_or("");
                f.next() == Some(me.as_str()) && state != "Z"
            })
        })
        .count()
}
