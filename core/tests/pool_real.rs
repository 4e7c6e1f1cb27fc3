//! The pool against real `codex app-server --listen ws://127.0.0.1:…` 0.171.0 processes, each
//! with its own CODEX_HOME and mock model: 200 threads of one turn each placed evenly, every
//! final text right and no event of a turn lost or repeated; then, while turns run, one
//! endpoint killed (its turns fail naming it within the heartbeat bound; the others finish),
//! one stalled (SIGSTOP: the heartbeat ends it), one added (it takes new threads) and one
//! drained (it takes none).

mod support;

use codex_client::{
    ClientOptions, EndpointOptions, Error, Event, Heartbeat, Pool, PoolOptions, Thread,
};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

/// Heartbeat of the endpoints here: a dead or stalled peer is noticed within 3 s.
const BEAT: Heartbeat = Heartbeat::new(Duration::from_secs(1), Duration::from_secs(2));

/// One app-server host: its environment (CODEX_HOME, mock model) and its listening server.
pub struct Host {
    pub env: RealEnv,
    pub server: ListeningServer,
    token: String,
}

impl Host {
    pub fn start() -> Host {
        let env = RealEnv::new();
        let token = unique_tag("cap");
        let tf = env.home.path().join("ws-token");
        std::fs::write(&tf, &token).unwrap();
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
        Host { env, server, token }
    }

    pub fn options(&self) -> ClientOptions {
        ClientOptions::default()
            .websocket(
                self.server.url.as_deref().unwrap(),
                Some(self.token.clone()),
            )
            .heartbeat(Some(BEAT))
            .client_info("codex-client-tests", "0")
    }

    pub fn pid(&self) -> i32 {
        self.server.child.id() as i32
    }
}

/// One turn's events, checked: `turn/started` and `turn/completed` once each, the deltas
/// spelling the final message, each item completed once. Returns the final text.
fn run_checked(thread: &Thread, text: &str) -> codex_client::Result<String> {
    let mut turn = thread.run_streamed(format!("MOCK_TEXT: {text}").as_str())?;
    let mut deltas = String::new();
    let mut started = 0;
    let mut completed = 0;
    let mut items: HashMap<String, usize> = HashMap::new();
    while let Some(ev) = turn.next_event(Some(Duration::from_secs(60)))? {
        if let Event::Notification(n) = &ev {
            match n.method.as_str() {
                "turn/started" => started += 1,
                "turn/completed" => completed += 1,
                "item/agentMessage/delta" => deltas.push_str(&n.delta().unwrap()),
                "item/completed" => {
                    *items.entry(n.item_id().unwrap_or_default()).or_default() += 1;
                }
                _ => {}
            }
        }
        if turn.is_done() {
            break;
        }
    }
    let r = turn.finish()?;
    assert_eq!(r.status, "completed", "{r:?}");
    assert_eq!((started, completed), (1, 1), "thread {}", thread.id());
    assert!(
        items.values().all(|n| *n == 1),
        "an item completed twice: {items:?}"
    );
    let last = r.final_response.clone().unwrap_or_default();
    assert_eq!(deltas, last, "the deltas do not spell the final message");
    Ok(last)
}

#[test]
fn two_hundred_threads_on_four_app_servers_are_placed_evenly_and_all_come_back_right() {
    let hosts: Vec<Host> = (0..4).map(|_| Host::start()).collect();
    let pool = Pool::new(PoolOptions::default());
    for (i, h) in hosts.iter().enumerate() {
        pool.add_endpoint(&format!("h{i}"), h.options(), EndpointOptions::default())
            .unwrap();
    }
    let next = Arc::new(AtomicUsize::new(0));
    let placed: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let t0 = Instant::now();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (pool, next, placed) = (pool.clone(), next.clone(), placed.clone());
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= 200 {
                    return;
                }
                let thread = pool.thread_start(json!({})).unwrap();
                let want = format!("answer number {i}");
                assert_eq!(run_checked(&thread, &want).unwrap(), want);
                let e = pool.endpoint_of(thread.id()).unwrap();
                *placed.lock().unwrap().entry(e).or_default() += 1;
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let placed = placed.lock().unwrap().clone();
    eprintln!(
        "200 threads on 4 real app-servers in {:?}: {placed:?}",
        t0.elapsed()
    );
    assert_eq!(placed.values().sum::<usize>(), 200);
    for (e, n) in &placed {
        assert!(
            (40..=60).contains(n),
            "{e} took {n} of 200 (even is 50 ± 20 %): {placed:?}"
        );
    }
}

#[test]
fn a_killed_a_stalled_an_added_and_a_drained_endpoint_while_turns_run() {
    let hosts: Vec<Host> = (0..4).map(|_| Host::start()).collect();
    let pool = Pool::new(PoolOptions::default());
    let names = ["alive", "killed", "stalled", "drained"];
    for (h, n) in hosts.iter().zip(names) {
        pool.add_endpoint(n, h.options(), EndpointOptions::default())
            .unwrap();
    }
    // One slow turn on every endpoint, started before anything happens.
    let mut slow = Vec::new();
    while slow.len() < 8 {
        let t = pool.thread_start(json!({})).unwrap();
        let s = t.run_streamed("MOCK_SLOW: 40 200").unwrap();
        slow.push((pool.endpoint_of(t.id()).unwrap(), t.id().to_owned(), s));
    }
    let per: HashMap<&str, usize> = names
        .iter()
        .map(|n| (*n, slow.iter().filter(|(e, ..)| e == n).count()))
        .collect();
    assert!(per.values().all(|n| *n == 2), "{per:?}");
    // Each slow turn is waited for on a thread of its own: when it ended is measured there.
    let waiting: Vec<_> = slow
        .into_iter()
        .map(|(endpoint, thread, s)| {
            std::thread::spawn(move || {
                let r = s.finish();
                (endpoint, thread, r, Instant::now())
            })
        })
        .collect();
    pool.drain_endpoint("drained").unwrap();
    let t_fault = Instant::now();
    unsafe {
        libc::kill(hosts[1].pid(), libc::SIGKILL);
        libc::kill(hosts[2].pid(), libc::SIGSTOP);
    }
    let added = Host::start();
    pool.add_endpoint("added", added.options(), EndpointOptions::default())
        .unwrap();
    // New threads while the faults play out: none lands on the drained endpoint.
    let mut fresh: HashMap<String, usize> = HashMap::new();
    for i in 0..12 {
        let t = pool.thread_start(json!({})).unwrap();
        let e = pool.endpoint_of(t.id()).unwrap();
        let want = format!("after the faults {i}");
        assert_eq!(run_checked(&t, &want).unwrap(), want, "on {e}");
        *fresh.entry(e).or_default() += 1;
    }
    assert_eq!(fresh.get("drained"), None, "{fresh:?}");
    assert!(fresh.get("added").copied().unwrap_or(0) >= 1, "{fresh:?}");
    for w in waiting {
        let (endpoint, thread, r, ended) = w.join().unwrap();
        match endpoint.as_str() {
            "killed" | "stalled" => match r {
                Err(Error::Disconnected(info)) => {
                    let took = ended - t_fault;
                    // Within the heartbeat's bound (1 s + 2 s), with room for a loaded machine.
                    assert!(
                        took < Duration::from_secs(8),
                        "{endpoint}: noticed after {took:?}"
                    );
                    assert!(
                        info.reason.contains(&endpoint) && info.reason.contains(&thread),
                        "the error names neither the endpoint nor the thread: {info:?}"
                    );
                }
                other => panic!("a turn on `{endpoint}`: {other:?}"),
            },
            _ => assert_eq!(r.unwrap().status, "completed", "a turn on `{endpoint}`"),
        }
    }
    // The drained endpoint leaves once its turns are done; the dead ones are reported lost.
    assert!(wait_until(Duration::from_secs(20), || !pool
        .endpoints()
        .iter()
        .any(|s| s.name == "drained")));
    let states: HashMap<String, String> = pool
        .endpoints()
        .into_iter()
        .map(|s| (s.name, s.state))
        .collect();
    assert_eq!(states["killed"], "lost", "{states:?}");
    assert_eq!(states["stalled"], "lost", "{states:?}");
    assert_eq!(states["alive"], "ready");
    assert_eq!(states["added"], "ready");
    unsafe { libc::kill(hosts[2].pid(), libc::SIGCONT) };
}
