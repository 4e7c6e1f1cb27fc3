//! The pool of app-servers against fake endpoints (the fake app-server in its `turns` mode:
//! threads and turns that stream; `overload-start`: every `thread/start` overloaded):
//! placement, the limit on running turns, overload moving to another endpoint, drain,
//! removal, a killed endpoint, the shared handlers and the merged event stream.

mod support;

use codex_client::{
    ClientOptions, EndpointOptions, Error, Event, Pool, PoolOptions, ServerRequest,
};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

fn fake(modes: &[&str]) -> ClientOptions {
    fake_options(&[&["turns"], modes].concat())
}

fn pool_of(names: &[&str], options: PoolOptions) -> Pool {
    init_tracing();
    let pool = Pool::new(options);
    for n in names {
        pool.add_endpoint(n, fake(&[]), EndpointOptions::default())
            .unwrap();
    }
    pool
}

fn state_of(pool: &Pool, name: &str) -> Option<String> {
    pool.endpoints()
        .into_iter()
        .find(|s| s.name == name)
        .map(|s| s.state)
}

#[test]
fn threads_spread_evenly_and_every_later_call_goes_to_their_endpoint() {
    let pool = pool_of(&["a", "b", "c"], PoolOptions::default());
    let mut workers = Vec::new();
    for w in 0..4 {
        let pool = pool.clone();
        workers.push(std::thread::spawn(move || {
            let mut out = Vec::new();
            for i in 0..15 {
                let thread = pool.thread_start(json!({})).unwrap();
                let text = format!("task {w}-{i}");
                let r = thread.run(text.as_str()).unwrap();
                assert_eq!(r.status, "completed", "{r:?}");
                assert_eq!(r.final_response.as_deref(), Some(&*format!("echo: {text}")));
                out.push((
                    thread.id().to_owned(),
                    pool.endpoint_of(thread.id()).unwrap(),
                ));
            }
            out
        }));
    }
    let mut per: HashMap<String, usize> = HashMap::new();
    for w in workers {
        for (thread, endpoint) in w.join().unwrap() {
            // The thread id names the fake process that made it: the pool's record agrees.
            let pid = thread.split('_').nth(1).unwrap().parse::<u32>().unwrap();
            assert_eq!(pool.endpoint(&endpoint).unwrap().server_pid(), Some(pid));
            // A later call of the thread goes to the same endpoint.
            let again = pool.thread(&thread).unwrap();
            assert_eq!(again.client().server_pid(), Some(pid));
            *per.entry(endpoint).or_default() += 1;
        }
    }
    assert_eq!(per.values().sum::<usize>(), 60);
    for (e, n) in &per {
        assert!(
            (16..=24).contains(n),
            "endpoint {e} took {n} of 60: {per:?}"
        );
    }
    let st = pool.endpoints();
    assert!(
        st.iter()
            .all(|s| s.state == "ready" && s.running_turns == 0),
        "{st:?}"
    );
    assert_eq!(st.iter().map(|s| s.threads_placed).sum::<usize>(), 60);
}

#[test]
fn an_overloaded_endpoint_is_passed_over_and_thread_start_lands_elsewhere() {
    let pool = Pool::new(PoolOptions::default());
    pool.add_endpoint(
        "busy",
        fake(&["overload-start"]),
        EndpointOptions::default(),
    )
    .unwrap();
    pool.add_endpoint("free", fake(&[]), EndpointOptions::default())
        .unwrap();
    for _ in 0..6 {
        let t = pool.thread_start(json!({})).unwrap();
        assert_eq!(pool.endpoint_of(t.id()).as_deref(), Some("free"));
    }
    let tried = pool
        .endpoint("busy")
        .unwrap()
        .request_blocking("test/attempts", json!({"method": "thread/start"}))
        .unwrap();
    assert!(tried["attempts"].as_u64().unwrap() >= 1, "{tried}");
    // Alone, the overloaded endpoint makes thread_start fail with Overloaded at its bound.
    pool.remove_endpoint("free").unwrap();
    let t0 = Instant::now();
    let pool = {
        let p = Pool::new(PoolOptions::default().place_timeout(Duration::from_millis(800)));
        p.add_endpoint(
            "busy",
            fake(&["overload-start"]),
            EndpointOptions::default(),
        )
        .unwrap();
        p
    };
    match pool.thread_start(json!({})) {
        Err(Error::Overloaded { .. }) => {}
        other => panic!("expected Overloaded, got {other:?}"),
    }
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn no_endpoint_fails_at_once_and_names_are_checked() {
    let pool = Pool::new(PoolOptions::default());
    let t0 = Instant::now();
    match pool.thread_start(json!({})) {
        Err(Error::Unavailable(m)) => assert!(m.contains("no endpoint"), "{m}"),
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(t0.elapsed() < Duration::from_secs(1));
    pool.add_endpoint("a", fake(&[]), EndpointOptions::default())
        .unwrap();
    match pool.add_endpoint("a", fake(&[]), EndpointOptions::default()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("`a` is already"), "{m}"),
        other => panic!("expected a duplicate refused, got {other:?}"),
    }
    for bad in ["", "  "] {
        assert!(matches!(
            pool.add_endpoint(bad, fake(&[]), EndpointOptions::default()),
            Err(Error::InvalidArgument(_))
        ));
    }
    match pool.remove_endpoint("zz") {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("zz") && m.contains("a"), "{m}"),
        other => panic!("expected unknown endpoint, got {other:?}"),
    }
    let mcp = ClientOptions::default()
        .transport(codex_client::TransportKind::parse("mcp+stdio:/bin/true", None).unwrap());
    match pool.add_endpoint("m", mcp, EndpointOptions::default()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("app-server"), "{m}"),
        other => panic!("expected an MCP server refused, got {other:?}"),
    }
    assert!(matches!(
        pool.thread("thr_nobody"),
        Err(Error::InvalidArgument(_))
    ));
    // An endpoint that cannot be reached is not added (and the name is free again).
    let dead = fake(&[]).codex_bin("/nonexistent/codex");
    assert!(pool
        .add_endpoint("d", dead, EndpointOptions::default())
        .is_err());
    pool.add_endpoint("d", fake(&[]), EndpointOptions::default())
        .unwrap();
    // Every endpoint gone: at once again.
    pool.remove_endpoint("a").unwrap();
    pool.remove_endpoint("d").unwrap();
    let t0 = Instant::now();
    assert!(matches!(
        pool.thread_start(json!({})),
        Err(Error::Unavailable(_))
    ));
    assert!(t0.elapsed() < Duration::from_secs(1));
}

#[test]
fn at_the_limit_placement_waits_for_a_turn_to_end_within_its_bound() {
    let pool = pool_of(
        &["a", "b"],
        PoolOptions::default()
            .max_running_turns(1)
            .place_timeout(Duration::from_secs(20)),
    );
    let t1 = pool.thread_start(json!({})).unwrap();
    let t2 = pool.thread_start(json!({})).unwrap();
    assert_ne!(pool.endpoint_of(t1.id()), pool.endpoint_of(t2.id()));
    let s1 = t1.run_streamed("sleep=1500 one").unwrap();
    let s2 = t2.run_streamed("sleep=4000 two").unwrap();
    // Both endpoints are at their limit: the third placement waits for the first turn.
    let t0 = Instant::now();
    let t3 = pool.thread_start(json!({})).unwrap();
    let waited = t0.elapsed();
    assert!(
        waited >= Duration::from_millis(800),
        "placed after {waited:?}"
    );
    assert_eq!(pool.endpoint_of(t3.id()), pool.endpoint_of(t1.id()));
    assert_eq!(s1.finish().unwrap().status, "completed");
    // With a short bound and both endpoints busy again, placement gives up naming the limit.
    let s3 = t3.run_streamed("sleep=3000 three").unwrap();
    let short = Pool::new(PoolOptions::default());
    drop(short);
    let t0 = Instant::now();
    let quick = {
        let o = PoolOptions::default()
            .max_running_turns(1)
            .place_timeout(Duration::from_millis(300));
        let p = Pool::new(o);
        p.add_endpoint("x", fake(&[]), EndpointOptions::default())
            .unwrap();
        let tx = p.thread_start(json!({})).unwrap();
        let sx = tx.run_streamed("sleep=3000 x").unwrap();
        let r = p.thread_start(json!({}));
        drop(sx);
        r
    };
    match quick {
        Err(Error::Unavailable(m)) => assert!(m.contains("limit"), "{m}"),
        other => panic!("expected Unavailable at the limit, got {other:?}"),
    }
    assert!(t0.elapsed() < Duration::from_secs(3));
    assert_eq!(s2.finish().unwrap().status, "completed");
    assert_eq!(s3.finish().unwrap().status, "completed");
}

#[test]
fn a_drained_endpoint_takes_no_thread_and_leaves_once_idle() {
    let pool = pool_of(&["a", "b"], PoolOptions::default());
    // A thread with a running turn on each endpoint.
    let ta = pool.thread_start(json!({})).unwrap();
    let tb = pool.thread_start(json!({})).unwrap();
    let (ta, tb) = if pool.endpoint_of(ta.id()).as_deref() == Some("a") {
        (ta, tb)
    } else {
        (tb, ta)
    };
    let sa = ta.run_streamed("sleep=1500 drain me").unwrap();
    pool.drain_endpoint("a").unwrap();
    assert_eq!(state_of(&pool, "a").as_deref(), Some("draining"));
    for _ in 0..8 {
        let t = pool.thread_start(json!({})).unwrap();
        assert_eq!(pool.endpoint_of(t.id()).as_deref(), Some("b"));
        // Each runs a turn so that it does not count as waiting.
        assert_eq!(t.run("x").unwrap().status, "completed");
    }
    // The running turn on the draining endpoint finishes normally; then it leaves.
    let r = sa.finish().unwrap();
    assert_eq!(
        r.final_response.as_deref(),
        Some("echo: sleep=1500 drain me")
    );
    assert!(
        wait_until(Duration::from_secs(10), || state_of(&pool, "a").is_none()),
        "{:?}",
        pool.endpoints()
    );
    assert_eq!(tb.run("still here").unwrap().status, "completed");
    assert_eq!(pool.threads_on("a"), vec![ta.id().to_owned()]);
}

#[test]
fn a_killed_endpoint_ends_its_turns_with_an_error_and_the_others_go_on() {
    let pool = pool_of(&["a", "b"], PoolOptions::default());
    let mut streams = Vec::new();
    for i in 0..4 {
        let t = pool.thread_start(json!({})).unwrap();
        let s = t.run_streamed(format!("sleep=2500 t{i}").as_str()).unwrap();
        streams.push((pool.endpoint_of(t.id()).unwrap(), s));
    }
    let pid = pool.endpoint("a").unwrap().server_pid().unwrap();
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let t0 = Instant::now();
    for (endpoint, s) in streams {
        let r = s.finish();
        if endpoint == "a" {
            match r {
                Err(Error::Disconnected(info)) => {
                    assert!(!info.reason.is_empty(), "{info:?}")
                }
                other => panic!("a turn of the killed endpoint: {other:?}"),
            }
        } else {
            assert_eq!(r.unwrap().status, "completed");
        }
    }
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert!(
        wait_until(Duration::from_secs(5), || state_of(&pool, "a").as_deref()
            == Some("lost")),
        "{:?}",
        pool.endpoints()
    );
    // New threads go to the survivor only.
    for _ in 0..4 {
        let t = pool.thread_start(json!({})).unwrap();
        assert_eq!(pool.endpoint_of(t.id()).as_deref(), Some("b"));
    }
    let lost = pool
        .endpoints()
        .into_iter()
        .find(|s| s.name == "a")
        .unwrap();
    assert!(lost.lost.is_some(), "{lost:?}");
}

#[test]
fn handlers_registered_on_the_pool_serve_every_endpoint_also_one_added_later() {
    let pool = pool_of(&["a"], PoolOptions::default());
    let seen: Arc<Mutex<Vec<(u32, String)>>> = Arc::default();
    let s = seen.clone();
    pool.on_server_request(move |req: ServerRequest| {
        let method = req.method.clone();
        req.respond_decision(codex_client::Decision::Accept)
            .unwrap();
        // Recorded after the answer is queued: the `test/lastAnswers` request below is written
        // after it on the same connection, so the server has the answer when it is asked.
        s.lock().unwrap().push((0, method));
    })
    .unwrap();
    pool.add_endpoint("b", fake(&["approval"]), EndpointOptions::default())
        .unwrap();
    // `a` has no approval mode: only `b` raises one.
    let b = pool.endpoint("b").unwrap();
    b.request_blocking("test/approval", json!({})).unwrap();
    assert!(wait_until(Duration::from_secs(5), || seen
        .lock()
        .unwrap()
        .len()
        == 1));
    let answers = b.request_blocking("test/lastAnswers", json!({})).unwrap();
    assert_eq!(
        answers["answers"][0]["result"]["decision"], "accept",
        "{answers}"
    );
}

#[test]
fn the_pool_stream_tags_each_event_with_its_endpoint_and_follows_added_ones() {
    let pool = pool_of(&["a"], PoolOptions::default());
    let mut events = pool.subscribe().unwrap();
    pool.add_endpoint("b", fake(&[]), EndpointOptions::default())
        .unwrap();
    // Threads on both endpoints, one turn each (notifications outside a turn stream: the
    // turn runs through the blocking request, not `run_streamed`).
    let mut want = HashMap::new();
    while want.len() < 2 {
        let t = pool.thread_start(json!({})).unwrap();
        let e = pool.endpoint_of(t.id()).unwrap();
        if want.contains_key(&e) {
            continue;
        }
        t.client()
            .request_blocking(
                "turn/start",
                json!({"threadId": t.id(), "input": [{"type": "text", "text": "hi"}]}),
            )
            .unwrap();
        want.insert(e, t.id().to_owned());
    }
    let mut completed: HashMap<String, String> = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while completed.len() < 2 && Instant::now() < deadline {
        if let Ok(Some(ev)) = events.next_event(Some(Duration::from_millis(200))) {
            if let Event::Notification(n) = &ev.event {
                if n.method == "turn/completed" {
                    completed.insert(ev.endpoint.to_string(), n.thread_id().unwrap());
                }
            }
        }
    }
    assert_eq!(completed, want);
    // A removed endpoint's stream ends with its Disconnected event, tagged.
    pool.remove_endpoint("a").unwrap();
    let mut saw = false;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !saw && Instant::now() < deadline {
        if let Ok(Some(ev)) = events.next_event(Some(Duration::from_millis(200))) {
            saw = &*ev.endpoint == "a"
                && matches!(
                    ev.event,
                    Event::Connection(codex_client::ConnectionEvent::Disconnected(_))
                );
        }
    }
    assert!(saw, "no Disconnected event of `a`");
    pool.close();
    assert!(events.next_event(Some(Duration::from_secs(5))).is_err());
}

#[test]
fn library_threads_do_not_grow_with_endpoints() {
    // The library's own threads (its runtime's and dispatch threads are named `codex-…`);
    // the test harness runs other tests beside this one on threads of its own.
    fn threads() -> usize {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .filter(|name| name.starts_with("codex-"))
            .count()
    }
    // Warm the runtime and dispatch threads first.
    let one = pool_of(&["w"], PoolOptions::default());
    one.thread_start(json!({})).unwrap().run("warm").unwrap();
    let before = threads();
    let names: Vec<String> = (0..16).map(|i| format!("e{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let pool = pool_of(&refs, PoolOptions::default());
    for _ in 0..16 {
        assert_eq!(
            pool.thread_start(json!({}))
                .unwrap()
                .run("x")
                .unwrap()
                .status,
            "completed"
        );
    }
    let after = threads();
    // Each stdio endpoint has a child process, not a thread of ours.
    assert_eq!(
        after, before,
        "library threads {before} -> {after} with 16 more endpoints"
    );
    drop(pool);
    drop(one);
}
