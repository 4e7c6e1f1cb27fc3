//! `bench-pool`: the pool of app-servers against the fast fake (`bench-server`), beside one
//! client on one endpoint (not a timed test: numbers to compare, printed as JSON lines).
//!
//! - `bench-pool pool SERVER N EVENTS`: a pool of N endpoints (each a `bench-server` over
//!   stdio streaming EVENTS deltas per turn): the library's threads, memory per endpoint,
//!   the cost of one `thread_start` placement, and the aggregate events/s of one turn per
//!   endpoint at once (one consumer thread per turn).
//! - `bench-pool single SERVER EVENTS`: one client on one endpoint, one turn of EVENTS
//!   deltas: events/s (compare with `pool SERVER 1 EVENTS`: the pool's cost per event).

use codex_client::{ClientOptions, CodexClient, EndpointOptions, Event, Pool, PoolOptions};
use serde_json::json;
use std::time::{Duration, Instant};

fn options(server: &str, events: u64) -> ClientOptions {
    ClientOptions::default()
        .codex_bin(server)
        .env("BENCH_EVENTS", events.to_string())
        .default_timeout(Duration::from_secs(600))
}

/// Deltas of one streamed turn, drained.
fn drain(mut turn: codex_client::TurnStream) -> u64 {
    let mut n = 0u64;
    for ev in turn.iter() {
        if let Event::Notification(note) = &ev {
            if note.method == "item/agentMessage/delta" {
                n += 1;
            }
        }
    }
    n
}

fn library_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with("codex-"))
                .count()
        })
        .unwrap_or(0)
}

fn pool(server: &str, n: usize, events: u64) {
    let rss0 = codex_bench::proc_status("VmRSS");
    let pool = Pool::new(PoolOptions::default());
    let t0 = Instant::now();
    for i in 0..n {
        pool.add_endpoint(
            &format!("e{i}"),
            options(server, events),
            EndpointOptions::default(),
        )
        .expect("add an endpoint");
    }
    let add_ms = t0.elapsed().as_secs_f64() * 1e3;
    let rss1 = codex_bench::proc_status("VmRSS");
    // Placement: thread_start round trips through the pool.
    let m = 400;
    let t0 = Instant::now();
    for _ in 0..m {
        pool.thread_start(json!({})).expect("thread_start");
    }
    let place_us = t0.elapsed().as_secs_f64() * 1e6 / m as f64;
    // One turn per endpoint at once, each drained on a thread of its own.
    let threads: Vec<_> = (0..n)
        .map(|_| pool.thread_start(json!({})).unwrap())
        .collect();
    let t0 = Instant::now();
    let consumers: Vec<_> = threads
        .into_iter()
        .map(|t| {
            let s = t.run_streamed("go").expect("turn/start");
            std::thread::spawn(move || drain(s))
        })
        .collect();
    let total: u64 = consumers.into_iter().map(|c| c.join().unwrap()).sum();
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({
            "bench": "pool", "endpoints": n, "events": total,
            "events_per_s": (total as f64 / secs).round(),
            "library_threads": library_threads(),
            "rss_kb_per_endpoint": (rss1.saturating_sub(rss0)) / n as u64,
            "add_ms_per_endpoint": add_ms / n as f64,
            "thread_start_us": place_us,
        })
    );
    pool.close();
}

fn single(server: &str, events: u64) {
    let c = CodexClient::new(options(server, events));
    c.connect().expect("connect");
    let t = c.thread_start(json!({})).unwrap();
    let m = 400;
    let t0 = Instant::now();
    for _ in 0..m {
        c.thread_start(json!({})).unwrap();
    }
    let start_us = t0.elapsed().as_secs_f64() * 1e6 / m as f64;
    let t0 = Instant::now();
    let n = drain(t.run_streamed("go").unwrap());
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({
            "bench": "single", "endpoints": 1, "events": n,
            "events_per_s": (n as f64 / secs).round(),
            "library_threads": library_threads(),
            "thread_start_us": start_us,
        })
    );
}

fn usage() -> ! {
    eprintln!("usage: bench-pool pool SERVER N EVENTS | bench-pool single SERVER EVENTS");
    std::process::exit(2)
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> u64 {
        a.get(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| usage())
    };
    match a.first().map(String::as_str) {
        Some("pool") if a.len() == 4 => pool(&a[1], num(2) as usize, num(3)),
        Some("single") if a.len() == 3 => single(&a[1], num(2)),
        _ => usage(),
    }
}
