//! The pool against real `codex app-server --listen ws://127.0.0.1:…` 0.171.0 processes, each
//! with its own CODEX_HOME and mock model, half of them in each WebSocket auth mode (capability
//! token, signed bearer token): 200 threads of one turn each placed evenly, every
//! final text right and no event of a turn lost or repeated; then, while turns run, one
//! endpoint killed (its turns fail naming it within the heartbeat bound; the others finish),
//! one stalled (SIGSTOP: the heartbeat ends it), one added (it takes new threads) and one
//! drained (it takes none).

mod support;

use codex_client::{
    ClientOptions, EndpointOptions, Error, Event, Heartbeat, Pool, PoolOptions, SignedBearerToken,
    Thread,
};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

/// Heartbeat of the endpoints here: a dead or stalled peer is noticed within 3 s.
const BEAT: Heartbeat = Heartbeat::new(Duration::from_secs(1), Duration::from_secs(2));

/// How a host's app-server authenticates its WebSocket clients: half the hosts of each test
/// use each of Codex's two modes.
enum Auth {
    /// `--ws-auth capability-token`: the token in a file.
    Capability(String),
    /// `--ws-auth signed-bearer-token`: HS256 JWTs from the shared secret in this file.
    Signed(std::path::PathBuf),
}

const ISSUER: &str = "pool-tests";
const AUDIENCE: &str = "codex-app-server";

/// One app-server host: its environment (CODEX_HOME, mock model) and its listening server.
pub struct Host {
    pub env: RealEnv,
    pub server: ListeningServer,
    auth: Auth,
}

impl Host {
    /// A host whose server takes a capability token.
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
        Host {
            env,
            server,
            auth: Auth::Capability(token),
        }
    }

    /// A host whose server takes signed bearer tokens (a 64-hex-digit secret, mode 0600).
    pub fn start_signed() -> Host {
        use std::os::unix::fs::PermissionsExt;
        let env = RealEnv::new();
        let secret: String = unique_tag("s")
            .bytes()
            .cycle()
            .take(64)
            .map(|b| char::from_digit(u32::from(b) % 16, 16).unwrap())
            .collect();
        let sf = env.home.path().join("ws-secret");
        std::fs::write(&sf, format!("{secret}\n")).unwrap();
        std::fs::set_permissions(&sf, std::fs::Permissions::from_mode(0o600)).unwrap();
        let server = ListeningServer::start(
            &env,
            "ws://127.0.0.1:0",
            &[
                "--ws-auth",
                "signed-bearer-token",
                "--ws-shared-secret-file",
                sf.to_str().unwrap(),
                "--ws-issuer",
                ISSUER,
                "--ws-audience",
                AUDIENCE,
            ],
            None,
        );
        Host {
            env,
            server,
            auth: Auth::Signed(sf),
        }
    }

    /// Hosts `0..n`, the even ones with capability tokens and the odd ones signed.
    pub fn start_mixed(n: usize) -> Vec<Host> {
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    Host::start()
                } else {
                    Host::start_signed()
                }
            })
            .collect()
    }

    pub fn options(&self) -> ClientOptions {
        let url = self.server.url.as_deref().unwrap();
        let o = match &self.auth {
            Auth::Capability(token) => ClientOptions::default().websocket(url, Some(token.clone())),
            Auth::Signed(file) => ClientOptions::default()
                .websocket(url, None)
                .signed_bearer_token(
                    SignedBearerToken::new(file)
                        .issuer(ISSUER)
                        .audience(AUDIENCE),
                ),
        };
        o.heartbeat(Some(BEAT))
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
    let hosts = Host::start_mixed(4);
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
    let hosts = Host::start_mixed(4);
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
    let added = Host::start_signed();
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

/// Two app-servers of one CODEX_HOME (as on a network file system), both `shared_home`
/// "nfs": a thread's turn runs on one; that one is killed; `resume_elsewhere` brings the
/// thread up on the other, where its history is there and a new turn runs; later calls go
/// there. A thread of an endpoint that shares its home with none is refused, naming why.
#[test]
fn a_lost_endpoints_thread_is_resumed_on_one_sharing_its_home() {
    let env = RealEnv::new();
    let token = unique_tag("cap");
    let tf = env.home.path().join("ws-token");
    std::fs::write(&tf, &token).unwrap();
    let args = [
        "--ws-auth",
        "capability-token",
        "--ws-token-file",
        tf.to_str().unwrap(),
    ];
    let first = ListeningServer::start(&env, "ws://127.0.0.1:0", &args, None);
    let second = ListeningServer::start(&env, "ws://127.0.0.1:0", &args, None);
    let options = |s: &ListeningServer| {
        ClientOptions::default()
            .websocket(s.url.as_deref().unwrap(), Some(token.clone()))
            .heartbeat(Some(BEAT))
            .client_info("codex-client-tests", "0")
    };
    let alone = Host::start();
    let pool = Pool::new(PoolOptions::default());
    let nfs = EndpointOptions::default().shared_home("nfs");
    pool.add_endpoint("first", options(&first), nfs.clone())
        .unwrap();
    // Only `first` takes threads while the turn runs: `second` joins afterwards.
    let thread = pool.thread_start(json!({})).unwrap();
    assert_eq!(pool.endpoint_of(thread.id()).unwrap(), "first");
    let r = thread.run("MOCK_TEXT: before the move").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("before the move"));
    pool.add_endpoint("second", options(&second), nfs).unwrap();
    pool.add_endpoint("alone", alone.options(), EndpointOptions::default())
        .unwrap();
    unsafe { libc::kill(first.child.id() as i32, libc::SIGKILL) };
    assert!(wait_until(Duration::from_secs(10), || pool
        .endpoints()
        .iter()
        .any(|s| s.name == "first" && s.state == "lost")));
    let moved = pool.resume_elsewhere(thread.id(), json!({})).unwrap();
    assert_eq!(moved.id(), thread.id());
    assert_eq!(pool.endpoint_of(thread.id()).unwrap(), "second");
    let history = moved.read(true).unwrap();
    assert!(
        history.to_string().contains("before the move"),
        "the resumed thread lost its history: {history}"
    );
    let r = pool
        .thread(thread.id())
        .unwrap()
        .run("MOCK_TEXT: after the move")
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("after the move"));
    // A thread on an endpoint that shares its home with none cannot move.
    let lonely = loop {
        let t = pool.thread_start(json!({})).unwrap();
        if pool.endpoint_of(t.id()).unwrap() == "alone" {
            break t;
        }
    };
    let err = pool.resume_elsewhere(lonely.id(), json!({})).unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(_)) && err.to_string().contains("alone"),
        "{err:?}"
    );
}
