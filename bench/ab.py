#!/usr/bin/env python3
"""Compare two builds of the library, A and B, consumer by consumer, on one machine.

Each side is a source tree, its Cargo target dir (release: bench-rust, bench-c, bench-server) and
the Python of a venv with that tree's `codexclient` installed (as scripts/bench.sh builds them).
Every consumer of bench/run.py's stream and round-trip tables runs A, B, B, A, A, B, ... (pairs
alternate which goes first, so a drift of the machine's speed weighs on both), against the same
server (B's). Printed per consumer: the median of each side and the median of the pairwise
ratios B/A. Never a timed assertion: a machine's speed varies ~2.5x from one day to the next.

    python3 bench/ab.py --a ROOT_A:TARGET_A:PYTHON_A --b ROOT_B:TARGET_B:PYTHON_B \
        [--pairs 5] [--n 200000] [--rtt-calls 5000]
"""
import argparse
import json
import os
import statistics
import subprocess


def consumers(root, target, python, n, rtt):
    rel = os.path.join(target, "release")
    pyc = os.path.join(root, "bench", "py_consumers.py")
    rust, c = os.path.join(rel, "bench-rust"), os.path.join(rel, "bench-c")
    return [
        ("Rust stream (blocking iter)", [rust, "stream", "{server}", n, "blocking"], "events_per_s"),
        ("Rust stream (async Stream)", [rust, "stream", "{server}", n, "async"], "events_per_s"),
        ("C callbacks", [c, "callbacks", "{server}", n], "events_per_s"),
        ("C poll mode", [c, "poll", "{server}", n], "events_per_s"),
        ("Python async iterator", [python, pyc, "ours-async-stream", "{server}", n], "events_per_s"),
        ("Python async iterator, .params", [python, pyc, "ours-async-stream-params", "{server}", n], "events_per_s"),
        ("Python sync iterator", [python, pyc, "ours-sync-stream", "{server}", n], "events_per_s"),
        ("Python sync iterator, .delta", [python, pyc, "ours-sync-stream-delta", "{server}", n], "events_per_s"),
        ("Rust round trip", [rust, "rtt", "{server}", rtt], "median_us"),
        ("C round trip", [c, "rtt", "{server}", rtt], "median_us"),
        ("Python round trip", [python, pyc, "ours-rtt", "{server}", rtt], "median_us"),
    ]


def run(cmd, server, root):
    argv = [str(x).replace("{server}", server) for x in cmd]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=os.path.join(root, "bench"))
    if r.returncode != 0:
        raise RuntimeError(f"{argv[:3]}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="ROOT:TARGET:PYTHON of build A (the baseline)")
    ap.add_argument("--b", required=True, help="ROOT:TARGET:PYTHON of build B")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--n", type=int, default=200000, help="deltas per stream")
    ap.add_argument("--rtt-calls", type=int, default=5000)
    ap.add_argument("--only", default="", help="run only consumers whose name contains this")
    args = ap.parse_args()
    a, b = (s.split(":") for s in (args.a, args.b))
    server = os.path.join(b[1], "release", "bench-server")
    ca, cb = consumers(*a, args.n, args.rtt_calls), consumers(*b, args.n, args.rtt_calls)
    print(f"# A = {a[0]}, B = {b[0]}; {args.pairs} pairs, alternating; {args.n:,} deltas, {args.rtt_calls:,} calls")
    print("| consumer | metric | A median | B median | B/A (median of pairs) | better |")
    print("|---|---|---|---|---|---|")
    for (name, cmd_a, key), (_, cmd_b, _) in zip(ca, cb):
        if args.only and args.only not in name:
            continue
        va, vb, ratios = [], [], []
        try:
            for i in range(args.pairs):
                order = [("a", cmd_a, a[0]), ("b", cmd_b, b[0])]
                got = {}
                for side, cmd, root in order if i % 2 == 0 else order[::-1]:
                    got[side] = run(cmd, server, root)[key]
                va.append(got["a"])
                vb.append(got["b"])
                ratios.append(got["b"] / got["a"])
        except Exception as e:  # a failing consumer is reported, not hidden
            print(f"| {name} | {key} | n/a | n/a | {str(e)[:200]} | |")
            continue
        r = statistics.median(ratios)
        higher = key == "events_per_s"
        better = "B" if (r > 1) == higher and abs(r - 1) > 0.02 else ("A" if abs(r - 1) > 0.02 else "=")
        fmt = (lambda v: f"{v / 1e3:,.0f} k/s") if higher else (lambda v: f"{v:.1f} µs")
        print(f"| {name} | {key} | {fmt(statistics.median(va))} | {fmt(statistics.median(vb))} | {r:.3f} | {better} |",
              flush=True)


if __name__ == "__main__":
    main()
