//! `bench-server`: a fast fake `codex app-server` for the stream and round-trip benchmarks.
//!
//! Accepts (and ignores) any command line, so it can stand in for `codex` for any client.
//! Answers `initialize`, `thread/start` and `turn/start` with messages captured from the real
//! Codex 0.169.0 (`bench/fixtures`), then streams `BENCH_EVENTS` (default 200000)
//! pre-rendered `item/agentMessage/delta` notifications and the `turn/completed` of that turn.
//! Every other request gets `{}` at once (the round-trip benchmark uses `thread/name/set`).
//! `bench-server --emit N` writes the turn stream to stdout without any client (the `wc -l`
//! floor, and a check that the server alone is not the bottleneck).
//!
//! With `BENCH_TURNS=K` (K > 1) threads get ids of their own (`bench-thread-<i>`), and once K
//! turns were started their `BENCH_EVENTS` deltas are interleaved line by line (turn 0, 1, …
//! K-1, 0, 1, …; `BENCH_EVENTS / K` each), then their K `turn/completed`: every line switches
//! turns.

use serde_json::Value;
use std::io::{BufRead, BufWriter, Write};

fn line(v: &Value) -> Vec<u8> {
    let mut l = serde_json::to_vec(v).unwrap();
    l.push(b'\n');
    l
}

/// The pre-rendered lines of a turn: N deltas then `turn/completed`.
struct TurnLines {
    delta: Vec<u8>,
    completed: Vec<u8>,
}

impl TurnLines {
    fn new() -> Self {
        let mut delta = codex_bench::fixture("delta");
        delta["params"]["delta"] = Value::String("tok ".into());
        TurnLines {
            delta: line(&delta),
            completed: line(&codex_bench::fixture("turn/completed")),
        }
    }
    fn write(&self, out: &mut impl Write, n: u64) -> std::io::Result<()> {
        for _ in 0..n {
            out.write_all(&self.delta)?;
        }
        out.write_all(&self.completed)
    }
}

/// The lines of K turns interleaved (see the module doc).
struct Interleaved {
    deltas: Vec<Vec<u8>>,
    completed: Vec<Vec<u8>>,
}

impl Interleaved {
    fn new(k: usize) -> Self {
        let mut deltas = Vec::new();
        let mut completed = Vec::new();
        for i in 0..k {
            let mut d = codex_bench::fixture("delta");
            d["params"]["delta"] = Value::String("tok ".into());
            d["params"]["threadId"] = thread_id(i).into();
            d["params"]["turnId"] = turn_id(i).into();
            deltas.push(line(&d));
            let mut c = codex_bench::fixture("turn/completed");
            c["params"]["threadId"] = thread_id(i).into();
            c["params"]["turn"]["id"] = turn_id(i).into();
            completed.push(line(&c));
        }
        Interleaved { deltas, completed }
    }
    fn write(&self, out: &mut impl Write, per_turn: u64) -> std::io::Result<()> {
        for _ in 0..per_turn {
            for d in &self.deltas {
                out.write_all(d)?;
            }
        }
        for c in &self.completed {
            out.write_all(c)?;
        }
        Ok(())
    }
}

fn thread_id(i: usize) -> String {
    format!("bench-thread-{i}")
}

fn turn_id(i: usize) -> String {
    format!("bench-turn-{i}")
}

fn answer(id: &Value, mut template: Value) -> Vec<u8> {
    template["id"] = id.clone();
    line(&template)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let turn = TurnLines::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    if let Some(i) = args.iter().position(|a| a == "--emit") {
        let n: u64 = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(200_000);
        let _ = turn.write(&mut out, n).and_then(|_| out.flush());
        return;
    }
    let n: u64 = std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let init = codex_bench::fixture("initialize");
    let thread = codex_bench::fixture("thread/start");
    let started = codex_bench::fixture("turn/start");
    let empty = serde_json::json!({"result": {}});
    let turns: usize = std::env::var("BENCH_TURNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let interleaved = (turns > 1).then(|| Interleaved::new(turns));
    let (mut threads, mut turns_started) = (0usize, 0usize);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = String::new();
    loop {
        buf.clear();
        match input.read_line(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(msg) = serde_json::from_str::<Value>(&buf) else {
            continue;
        };
        let Some(id) = msg.get("id") else { continue }; // notifications
        let r = match msg["method"].as_str().unwrap_or("") {
            "initialize" => out.write_all(&answer(id, init.clone())),
            "thread/start" if interleaved.is_some() => {
                let mut t = thread.clone();
                t["result"]["thread"]["id"] = thread_id(threads).into();
                threads += 1;
                out.write_all(&answer(id, t))
            }
            "turn/start" if interleaved.is_some() => {
                let thread = msg["params"]["threadId"].as_str().unwrap_or("");
                let i: usize = thread
                    .rsplit('-')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let mut t = started.clone();
                t["result"]["turn"]["id"] = turn_id(i).into();
                turns_started += 1;
                out.write_all(&answer(id, t))
                    .and_then(|_| match &interleaved {
                        Some(lines) if turns_started == turns => {
                            lines.write(&mut out, n / turns as u64)
                        }
                        _ => Ok(()),
                    })
            }
            "thread/start" => out.write_all(&answer(id, thread.clone())),
            "turn/start" => out
                .write_all(&answer(id, started.clone()))
                .and_then(|_| turn.write(&mut out, n)),
            _ => out.write_all(&answer(id, empty.clone())),
        };
        if r.and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
