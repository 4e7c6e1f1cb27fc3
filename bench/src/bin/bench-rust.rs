//! `bench-rust`: the Rust consumers of the benchmark. Prints one JSON object per run.
//!
//! - `bench-rust stream SERVER N [blocking|async]`: events/s of one turn of N deltas through the
//!   Thread/Turn stream API (blocking iterator or async `Stream`), and peak RSS.
//! - `bench-rust rtt SERVER N`: N sequential `thread/name/set` round trips; median and p99 (µs).
//! - `bench-rust wc SERVER N`: the `wc -l` floor on the same stream.
//! - `bench-rust scale SERVER CLIENTS N [poll|callbacks]`: CLIENTS clients (each its own bench
//!   server), each streaming one turn of N deltas at once from its own consumer thread; the
//!   library's threads (after connecting, before any consumer thread), aggregate events/s,
//!   peak RSS and the RSS left once the streams ended (clients still connected).
//! - `bench-rust interleave SERVER TURNS N`: one connection, TURNS threads each streaming one
//!   turn (a consumer thread per turn stream), the server interleaving their N deltas in all
//!   line by line; aggregate events/s (TURNS = 1: the same with one turn, for comparison).
//! - `bench-rust turn CODEX_BIN REPS`: a real turn of the real Codex against the local mock
//!   model (a `MOCK_TEXT` answer streamed in deltas), from `turn/start` sent to the first
//!   `item/agentMessage/delta` and to `turn/completed`; the library and a hand-written
//!   JSON-RPC loop over the same binary, alternating; medians in ms.
//! - `bench-rust startup CODEX_BIN REPS`: spawn to `initialize` answered through the library
//!   (median ms of REPS) and, for comparison, the bare binary driven by hand.

use codex_client::{ClientOptions, CodexClient, Delivery, Event};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

fn usage() -> ! {
    eprintln!(
        "usage: bench-rust stream SERVER N [blocking|async] | rtt SERVER N | wc SERVER N | \
         scale SERVER CLIENTS N [poll|callbacks] | interleave SERVER TURNS N | \
         turn CODEX_BIN REPS | startup CODEX_BIN REPS"
    );
    std::process::exit(2)
}

fn connect(server: &str, n: u64) -> CodexClient {
    connect_with(server, n, Delivery::Poll)
}

fn connect_with(server: &str, n: u64, delivery: Delivery) -> CodexClient {
    let c = CodexClient::new(
        ClientOptions::default()
            .codex_bin(server)
            .env("BENCH_EVENTS", n.to_string())
            .delivery(delivery),
    );
    c.connect().expect("connect to the bench server");
    c
}

/// Read a turn stream to its end: its deltas (the turn must complete).
fn count_deltas(mut s: codex_client::TurnStream) -> u64 {
    let deltas = s
        .iter()
        .filter(|ev| matches!(ev, Event::Notification(n) if n.method == "item/agentMessage/delta"))
        .count() as u64;
    assert_eq!(s.result().status, "completed");
    deltas
}

fn interleave(server: &str, turns: usize, n: u64) {
    let c = CodexClient::new(
        ClientOptions::default()
            .codex_bin(server)
            .env("BENCH_EVENTS", n.to_string())
            .env("BENCH_TURNS", turns.to_string())
            .delivery(Delivery::Poll),
    );
    c.connect().expect("connect to the bench server");
    let threads: Vec<_> = (0..turns)
        .map(|_| c.thread_start(json!({})).unwrap())
        .collect();
    let t0 = Instant::now();
    // Every turn is started before the server sends any of their deltas.
    let streams: Vec<_> = threads
        .iter()
        .map(|t| t.run_streamed("go").unwrap())
        .collect();
    let consumers: Vec<_> = streams
        .into_iter()
        .map(|s| std::thread::spawn(move || count_deltas(s)))
        .collect();
    let total: u64 = consumers.into_iter().map(|h| h.join().unwrap()).sum();
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(
        total,
        n / turns as u64 * turns as u64,
        "every delta arrives"
    );
    println!(
        "{}",
        json!({"turns": turns, "events": total, "secs": secs, "events_per_s": total as f64 / secs})
    );
    c.disconnect();
}

fn scale(server: &str, clients: usize, n: u64, mode: &str) {
    let delivery = match mode {
        "callbacks" => Delivery::Callbacks,
        _ => Delivery::Poll,
    };
    let before = codex_bench::proc_status("Threads");
    let cs: Vec<CodexClient> = (0..clients)
        .map(|_| connect_with(server, n, delivery))
        .collect();
    let library_threads = codex_bench::proc_status("Threads") - before;
    let threads: Vec<_> = cs
        .iter()
        .map(|c| c.thread_start(json!({})).unwrap())
        .collect();
    let t0 = Instant::now();
    let consumers: Vec<_> = threads
        .into_iter()
        .map(|thread| std::thread::spawn(move || count_deltas(thread.run_streamed("go").unwrap())))
        .collect();
    let total: u64 = consumers.into_iter().map(|h| h.join().unwrap()).sum();
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(total, n * clients as u64, "every delta arrives");
    let rss_after_kb = codex_bench::proc_status("VmRSS");
    println!(
        "{}",
        json!({"clients": clients, "events": total, "secs": secs,
               "events_per_s": total as f64 / secs, "library_threads": library_threads,
               "peak_rss_kb": codex_bench::peak_rss_kb(), "rss_after_kb": rss_after_kb})
    );
    for c in cs {
        c.disconnect();
    }
}

fn stream(server: &str, n: u64, mode: &str) {
    let c = connect(server, n);
    let thread = c.thread_start(json!({})).unwrap();
    let t0 = Instant::now();
    let mut s = thread.run_streamed("go").unwrap();
    let mut deltas = 0u64;
    let count = |ev: &Event, deltas: &mut u64| {
        if let Event::Notification(note) = ev {
            if note.method == "item/agentMessage/delta" {
                *deltas += 1;
            }
        }
    };
    if mode == "async" {
        use futures_util::StreamExt;
        futures_executor::block_on(async {
            while let Some(ev) = s.next().await {
                count(&ev, &mut deltas);
            }
        });
    } else {
        for ev in s.iter() {
            count(&ev, &mut deltas);
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(deltas, n, "every delta arrives");
    assert_eq!(s.result().status, "completed");
    println!(
        "{}",
        json!({"events": deltas, "secs": secs, "events_per_s": deltas as f64 / secs,
               "peak_rss_kb": codex_bench::peak_rss_kb()})
    );
    c.disconnect();
}

fn rtt(server: &str, n: u64) {
    let c = connect(server, 0);
    let thread = c.thread_start(json!({})).unwrap();
    let params = json!({"threadId": thread.id(), "name": "bench"});
    for _ in 0..200 {
        c.request_blocking("thread/name/set", params.clone())
            .unwrap();
    }
    let mut samples = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = Instant::now();
        c.request_blocking("thread/name/set", params.clone())
            .unwrap();
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (median, p99) = codex_bench::median_p99(&mut samples);
    println!(
        "{}",
        json!({"calls": n, "median_us": median, "p99_us": p99})
    );
    c.disconnect();
}

/// The answer the mock model streams in a real-turn run.
const TURN_TEXT: &str = "The quick brown fox jumps over the lazy dog while the benchmark \
    counts every delta of this sentence, twice over: the quick brown fox jumps over the lazy dog.";

/// `bin app-server` with piped stdin and stdout, for driving it by hand.
fn spawn_app_server(bin: &str, home: &std::path::Path) -> std::process::Child {
    std::process::Command::new(bin)
        .arg("app-server")
        .env("CODEX_HOME", home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn codex")
}

/// One real turn driven by hand: spawn `bin app-server`, handshake, start a thread, then time
/// `turn/start` → first delta and → `turn/completed` (ms).
fn hand_turn(bin: &str, home: &std::path::Path) -> (f64, f64) {
    let mut child = spawn_app_server(bin, home);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut answer = |stdin: &mut std::process::ChildStdin, msg: serde_json::Value, id: u64| {
        writeln!(stdin, "{msg}").unwrap();
        loop {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "codex exited");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id && v.get("method").is_none() {
                return v["result"].clone();
            }
        }
    };
    answer(
        &mut stdin,
        json!({"id": 1, "method": "initialize", "params": {
        "clientInfo": {"name": "bench", "version": "0"}, "capabilities": {"experimentalApi": false}}}),
        1,
    );
    writeln!(stdin, "{}", json!({"method": "initialized"})).unwrap();
    let thread = answer(
        &mut stdin,
        json!({"id": 2, "method": "thread/start", "params": {}}),
        2,
    );
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_owned();
    let t0 = Instant::now();
    writeln!(stdin, "{}", json!({"id": 3, "method": "turn/start", "params": {"threadId": thread_id,
        "input": [{"type": "text", "text": format!("MOCK_TEXT: {TURN_TEXT}"), "text_elements": []}]}}))
    .unwrap();
    let mut first = None;
    let mut line = String::new();
    let done = loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "codex exited");
        if first.is_none() && line.contains("\"item/agentMessage/delta\"") {
            first = Some(t0.elapsed());
        }
        if line.contains("\"turn/completed\"") {
            break t0.elapsed();
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(first.expect("a delta before turn/completed")), ms(done))
}

/// One real turn through the library (connect and thread start not timed).
fn library_turn(bin: &str, home: &std::path::Path) -> (f64, f64) {
    let c = CodexClient::new(
        ClientOptions::default()
            .codex_bin(bin)
            .codex_home(home)
            .delivery(Delivery::Poll),
    );
    c.connect().expect("connect to codex");
    let thread = c.thread_start(json!({})).unwrap();
    let t0 = Instant::now();
    let mut s = thread
        .run_streamed(format!("MOCK_TEXT: {TURN_TEXT}"))
        .unwrap();
    let mut first = None;
    for ev in s.iter() {
        if first.is_none()
            && matches!(&ev, Event::Notification(n) if n.method == "item/agentMessage/delta")
        {
            first = Some(t0.elapsed());
        }
    }
    let done = t0.elapsed();
    assert_eq!(s.result().status, "completed");
    c.disconnect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(first.expect("a delta")), ms(done))
}

fn turn(bin: &str, reps: usize) {
    let model = codex_mock_model::MockModel::start().expect("start the mock model");
    let home = std::env::temp_dir().join(format!("codex-bench-turn-{}", std::process::id()));
    model.write_codex_home(&home).unwrap();
    let (mut hf, mut hd, mut lf, mut ld) = (vec![], vec![], vec![], vec![]);
    for i in 0..reps + 1 {
        let (h, l) = (hand_turn(bin, &home), library_turn(bin, &home));
        if i > 0 {
            // The first round warms the binary's pages and the model's sockets.
            hf.push(h.0);
            hd.push(h.1);
            lf.push(l.0);
            ld.push(l.1);
        }
    }
    let med = |v: &mut Vec<f64>| codex_bench::median_p99(v).0;
    println!(
        "{}",
        json!({"reps": reps, "hand_first_ms": med(&mut hf), "hand_done_ms": med(&mut hd),
               "library_first_ms": med(&mut lf), "library_done_ms": med(&mut ld)})
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// Spawn `bin app-server`, write `initialize`, read its answer: the binary's own time.
fn bare_startup(bin: &str, home: &std::path::Path) -> f64 {
    let t = Instant::now();
    let mut child = spawn_app_server(bin, home);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"bench\",\"version\":\"0\"},\"capabilities\":{\"experimentalApi\":false}}}\n")
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(line.contains("\"result\""), "initialize answered: {line}");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    ms
}

fn startup(bin: &str, reps: usize) {
    let home = std::env::temp_dir().join(format!("codex-bench-home-{}", std::process::id()));
    // The model provider points at a closed loopback port: start-up never calls the model, and
    // the config keeps Codex off the network (see ../shared/docs/real-codex.md).
    codex_mock_model::write_codex_home(&home, 9).unwrap();
    let mut lib = Vec::new();
    let mut bare = Vec::new();
    for _ in 0..reps {
        bare.push(bare_startup(bin, &home));
        let c = CodexClient::new(
            ClientOptions::default()
                .codex_bin(bin)
                .codex_home(&home)
                .delivery(Delivery::Poll),
        );
        let t = Instant::now();
        c.connect().expect("connect to codex");
        lib.push(t.elapsed().as_secs_f64() * 1e3);
        c.disconnect();
        std::thread::sleep(Duration::from_millis(20));
    }
    let (lib_med, _) = codex_bench::median_p99(&mut lib);
    let (bare_med, _) = codex_bench::median_p99(&mut bare);
    println!(
        "{}",
        json!({"reps": reps, "library_ms": lib_med, "bare_ms": bare_med})
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// `SERVER --emit N | wc -l`, timed; wc's own peak RSS from `wait4` (spawned from this small
/// process, so the figure is not inflated by a large parent).
fn wc(server: &str, n: u64) {
    use std::os::unix::process::ExitStatusExt;
    let t = Instant::now();
    let mut emit = std::process::Command::new(server)
        .args(["--emit", &n.to_string()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the bench server");
    #[allow(clippy::zombie_processes)] // reaped by libc::wait4 below, which also gives its rusage
    let wc = std::process::Command::new("wc")
        .arg("-l")
        .stdin(emit.stdout.take().unwrap())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn wc");
    let pid = wc.id() as libc::pid_t;
    let mut out = String::new();
    std::io::Read::read_to_string(&mut wc.stdout.unwrap(), &mut out).unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data filled by the kernel; pid is our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(rc, pid, "wait4 on wc");
    assert!(std::process::ExitStatus::from_raw(status).success());
    emit.wait().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let lines: u64 = out.trim().parse().unwrap();
    assert_eq!(lines, n + 1, "N deltas and turn/completed");
    println!(
        "{}",
        json!({"events": n, "secs": secs, "events_per_s": n as f64 / secs, "peak_rss_kb": ru.ru_maxrss})
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_else(|| usage());
    match args.first().map(String::as_str) {
        Some("stream") => stream(
            &arg(1),
            arg(2).parse().unwrap_or_else(|_| usage()),
            args.get(3).map(String::as_str).unwrap_or("blocking"),
        ),
        Some("rtt") => rtt(&arg(1), arg(2).parse().unwrap_or_else(|_| usage())),
        Some("wc") => wc(&arg(1), arg(2).parse().unwrap_or_else(|_| usage())),
        Some("scale") => scale(
            &arg(1),
            arg(2).parse().unwrap_or_else(|_| usage()),
            arg(3).parse().unwrap_or_else(|_| usage()),
            args.get(4).map(String::as_str).unwrap_or("poll"),
        ),
        Some("interleave") => interleave(
            &arg(1),
            arg(2).parse().unwrap_or_else(|_| usage()),
            arg(3).parse().unwrap_or_else(|_| usage()),
        ),
        Some("turn") => turn(&arg(1), arg(2).parse().unwrap_or_else(|_| usage())),
        Some("startup") => startup(&arg(1), arg(2).parse().unwrap_or_else(|_| usage())),
        _ => usage(),
    }
}
