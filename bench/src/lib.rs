//! Shared pieces of the benchmark binaries: the captured real-server messages the bench
//! server replays, and measurement helpers.

use serde_json::Value;

/// Messages captured from one real Codex 0.169.0 turn by `bench/capture.py`.
pub const FIXTURES: &str = include_str!("../fixtures/real-0.169.0.jsonl");

/// The captured message of a kind (`initialize`, `thread/start`, `turn/start`, `delta`,
/// `turn/completed`, `thread/name/set`).
pub fn fixture(kind: &str) -> Value {
    for line in FIXTURES.lines() {
        let v: Value = serde_json::from_str(line).expect("fixture line is JSON");
        if v["kind"] == kind {
            return v["message"].clone();
        }
    }
    panic!("no fixture {kind}")
}

/// A number field of `/proc/self/status` (`VmHWM`, `VmRSS`, `Threads`), 0 when unknown.
pub fn proc_status(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.split(':').next() == Some(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Peak resident set size of this process in KiB (`VmHWM`), 0 when unknown.
pub fn peak_rss_kb() -> u64 {
    proc_status("VmHWM")
}

/// Median and 99th percentile of samples (sorted in place), in the samples' unit.
pub fn median_p99(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99))
}
