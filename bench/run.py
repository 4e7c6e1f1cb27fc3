#!/usr/bin/env python3
"""Run every benchmark consumer, alternating, for several rounds; print medians, ratios and targets.

Called by scripts/bench.sh (which builds and installs everything first). Options:
    --rounds R (default 3)   --sizes 200000,1000000   --rtt-calls 10000   --quick
Consumers whose program is missing are printed as "n/a" with the reason, never dropped silently.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REL = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release")
SERVER = os.path.join(REL, "bench-server")
CACHE = os.environ.get("LIBCODEXCLIENT_CACHE", os.path.expanduser("~/.cache/libcodexclient"))
PY_OURS = os.environ.get("BENCH_PY_OURS", os.path.join(CACHE, "bench-venv-ours", "bin", "python"))
PY_OFFICIAL = os.environ.get("BENCH_PY_OFFICIAL", os.path.join(CACHE, "bench-venv-official", "bin", "python"))
C_BENCH = os.environ.get("BENCH_C", os.path.join(REL, "bench-c"))
PYC = os.path.join(ROOT, "bench", "py_consumers.py")
# The default Codex: CODEX_DEFAULT of scripts/codex-versions.sh (the one place it lives).
CODEX_VERSION = next(
    line.split("=", 1)[1].strip().strip('"')
    for line in open(os.path.join(ROOT, "scripts", "codex-versions.sh"))
    if line.startswith("CODEX_DEFAULT=")
)
CODEX_NATIVE = os.path.join(ROOT, ".cache", "codex-" + CODEX_VERSION)
CODEX_LAUNCHER = os.path.join(CACHE, "codex-" + CODEX_VERSION, "node_modules", ".bin", "codex")


def stream_consumers():
    return [
        ("Rust stream API (blocking iter)", [os.path.join(REL, "bench-rust"), "stream", SERVER, "{n}", "blocking"], "rust"),
        ("Rust stream API (async Stream)", [os.path.join(REL, "bench-rust"), "stream", SERVER, "{n}", "async"], "rust"),
        ("C callbacks", [C_BENCH, "callbacks", SERVER, "{n}"], "c"),
        ("C poll mode", [C_BENCH, "poll", SERVER, "{n}"], "c"),
        ("Python async iterator", [PY_OURS, PYC, "ours-async-stream", SERVER, "{n}"], "py-async"),
        ("Python sync iterator", [PY_OURS, PYC, "ours-sync-stream", SERVER, "{n}"], "py-sync"),
        ("Python sync iterator, reads .delta", [PY_OURS, PYC, "ours-sync-stream-delta", SERVER, "{n}"], "py-delta"),
        ("Python sync iterator, reads .params", [PY_OURS, PYC, "ours-sync-stream-params", SERVER, "{n}"], "py-params"),
        ("Python async iterator, reads .params", [PY_OURS, PYC, "ours-async-stream-params", SERVER, "{n}"], "py-params"),
        ("OpenAI Python SDK 0.163.0", [PY_OFFICIAL, PYC, "official-stream", SERVER, "{n}"], "official"),
        ("OpenAI Python SDK, reads .payload.delta", [PY_OFFICIAL, PYC, "official-stream-delta", SERVER, "{n}"], "official"),
        ("OpenAI Python SDK, reads .payload", [PY_OFFICIAL, PYC, "official-stream-params", SERVER, "{n}"], "official"),
        ("minimal Python (readline+json.loads)", [sys.executable, PYC, "floor-stream", SERVER, "{n}"], "floor"),
        ("wc -l on the stream", [os.path.join(REL, "bench-rust"), "wc", SERVER, "{n}"], "wc"),
    ]


def rtt_consumers():
    return [
        ("Rust", [os.path.join(REL, "bench-rust"), "rtt", SERVER, "{n}"], "rust"),
        ("C", [C_BENCH, "rtt", SERVER, "{n}"], "c"),
        ("Python (ours)", [PY_OURS, PYC, "ours-rtt", SERVER, "{n}"], "py"),
        ("OpenAI Python SDK 0.163.0", [PY_OFFICIAL, PYC, "official-rtt", SERVER, "{n}"], "official"),
        ("minimal Python", [sys.executable, PYC, "floor-rtt", SERVER, "{n}"], "floor"),
    ]


STREAM_TARGET = {"rust": (1.5e6, 15), "c": (1.0e6, 15), "py-async": (500e3, 40), "py-sync": (700e3, 40),
                 "py-delta": (1.0e6, None), "py-params": (500e3, None)}
# The official SDK's row that does the same work as our row of that kind.
LIKE_FOR_LIKE = {"py-delta": "OpenAI Python SDK, reads .payload.delta", "py-params": "OpenAI Python SDK, reads .payload"}
RTT_TARGET = {"rust": 25, "c": 30, "py": 30}


def run_json(cmd, pin=False, timeout=600):
    if pin:
        cmd = ["taskset", "-c", "0"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=os.path.join(ROOT, "bench"))
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {r.stderr.strip()[-400:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def available(cmd):
    if cmd is None:
        return None
    exe = cmd[0]
    if not os.path.exists(exe):
        return f"{exe} not built/installed"
    return None


def fmt_rate(v):
    return "n/a" if v is None else (f"{v / 1e6:.2f} M" if v >= 1e6 else f"{v / 1e3:.0f} k")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--rtt-calls", type=int, default=10000)
    ap.add_argument("--startup-reps", type=int, default=10)
    ap.add_argument("--clients", default="1,10,50,200", help="client counts of the scaling table")
    ap.add_argument("--per-client", type=int, default=20000, help="deltas per client in the scaling table")
    ap.add_argument("--scaling-only", action="store_true", help="only the client-scaling table")
    args = ap.parse_args()
    if args.scaling_only:
        scaling(args)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# libcodexclient benchmarks: {os.cpu_count()} CPUs, {args.rounds} rounds (alternating), medians")
    print(f"# server alone (--emit | wc -l) is the ceiling; every consumer reads the same pre-rendered stream\n")

    # ---- stream ----
    cons = stream_consumers()
    results = {(name, n): [] for name, _, _ in cons for n in sizes}
    errors = {}
    for rnd in range(args.rounds):
        order = cons[rnd % len(cons):] + cons[: rnd % len(cons)]
        for n in sizes:
            for name, cmd, kind in order:
                if name in errors:
                    continue
                why = available(cmd)
                if why:
                    errors[name] = why
                    continue
                try:
                    res = run_json([c.format(n=n) for c in cmd])
                    results[(name, n)].append(res)
                except Exception as e:  # a failing consumer is reported, not hidden
                    errors[name] = str(e)[:300]
    head = "| consumer | " + " | ".join(f"events/s N={n:,}" for n in sizes) + f" | peak RSS N={sizes[-1]:,} | × official SDK | target |"
    print("## Stream\n")
    print(head)
    print("|" + "---|" * (len(sizes) + 4))
    for name, _, kind in cons:
        if name in errors:
            print(f"| {name} | " + " | ".join("n/a" for _ in sizes) + f" | n/a | | {errors[name]} |")
            continue
        rates = [med(results[(name, n)], "events_per_s") for n in sizes]
        rss = med(results[(name, sizes[-1])], "peak_rss_kb")
        # Like for like: a consumer that reads .delta / .params beside the SDK reading the same.
        rival = med(results.get((LIKE_FOR_LIKE.get(kind, "OpenAI Python SDK 0.163.0"), sizes[0]), []), "events_per_s")
        ratio = f"{rates[0] / rival:.1f}×" if rival and rates[0] else ""
        tgt = STREAM_TARGET.get(kind)
        target = ""
        if tgt:
            ok = rates[-1] is not None and min(r for r in rates if r) >= tgt[0]
            if tgt[1] is not None:
                ok = ok and rss is not None and rss / 1024 <= tgt[1]
            mb = f", ≤ {tgt[1]} MB" if tgt[1] is not None else ""
            target = f"≥ {fmt_rate(tgt[0])}/s{mb}: {'met' if ok else 'MISSED'}"
        rss_s = "n/a" if rss is None else f"{rss / 1024:.1f} MB"
        print(f"| {name} | " + " | ".join(fmt_rate(r) for r in rates) + f" | {rss_s} | {ratio} | {target} |")

    # ---- round trip ----
    print("\n## Round trip (`thread/name/set`, %d sequential calls)\n" % args.rtt_calls)
    print("| consumer | median µs (unpinned) | p99 µs | median µs (taskset -c 0) | p99 µs | target |")
    print("|---|---|---|---|---|---|")
    rc = rtt_consumers()
    rres = {(name, pin): [] for name, _, _ in rc for pin in (False, True)}
    rerr = {}
    for rnd in range(args.rounds):
        order = rc[rnd % len(rc):] + rc[: rnd % len(rc)]
        for pin in (False, True):
            for name, cmd, kind in order:
                if name in rerr:
                    continue
                why = available(cmd)
                if why:
                    rerr[name] = why
                    continue
                try:
                    rres[(name, pin)].append(run_json([c.format(n=args.rtt_calls) for c in cmd], pin=pin))
                except Exception as e:
                    rerr[name] = str(e)[:300]
    for name, _, kind in rc:
        if name in rerr:
            print(f"| {name} | n/a | | | | {rerr[name]} |")
            continue
        u, up = med(rres[(name, False)], "median_us"), med(rres[(name, False)], "p99_us")
        p, pp = med(rres[(name, True)], "median_us"), med(rres[(name, True)], "p99_us")
        t = RTT_TARGET.get(kind)
        target = f"≤ {t} µs: {'met' if u is not None and u <= t else 'MISSED'} unpinned, {'met' if p is not None and p <= t else 'MISSED'} pinned" if t else ""
        print(f"| {name} | {u:.1f} | {up:.1f} | {p:.1f} | {pp:.1f} | {target} |")

    interleaved(args)
    scaling(args)

    # ---- a real turn ----
    print("\n## A real turn (real Codex " + CODEX_VERSION + ", local mock model, `turn/start` sent → first delta and → `turn/completed`, median of %d)\n" % args.startup_reps)
    print("| client | first delta ms | completed ms |")
    print("|---|---|---|")
    if os.path.exists(CODEX_NATIVE):
        try:
            r = run_json([os.path.join(REL, "bench-rust"), "turn", CODEX_NATIVE, str(args.startup_reps)])
            print(f"| hand-written JSON-RPC loop (Rust, same binary) | {r['hand_first_ms']:.1f} | {r['hand_done_ms']:.1f} |")
            print(f"| libcodexclient (Rust stream API) | {r['library_first_ms']:.1f} | {r['library_done_ms']:.1f} |")
            print(f"| library − hand-written | {r['library_first_ms'] - r['hand_first_ms']:+.1f} | {r['library_done_ms'] - r['hand_done_ms']:+.1f} |")
        except Exception as e:
            print(f"| n/a | | {str(e)[:200]} |")
    else:
        print(f"| n/a | | {CODEX_NATIVE} missing |")

    # ---- start-up ----
    print("\n## Start-up (spawn to `initialize` answered, real Codex " + CODEX_VERSION + ", median of %d)\n" % args.startup_reps)
    print("| binary given | bare binary (by hand) ms | through libcodexclient ms | target |")
    print("|---|---|---|---|")
    for label, binpath in (("native", CODEX_NATIVE), ("npm JavaScript launcher", CODEX_LAUNCHER)):
        if not os.path.exists(binpath):
            print(f"| {label} | n/a | n/a | {binpath} missing |")
            continue
        try:
            r = run_json([os.path.join(REL, "bench-rust"), "startup", binpath, str(args.startup_reps)])
            note = "library within 5 ms of the bare native binary" if label == "native" else "the library swaps the launcher for the native binary beside it"
            ok = "met" if r["library_ms"] <= r["bare_ms"] + 5 else "MISSED"
            print(f"| {label} | {r['bare_ms']:.1f} | {r['library_ms']:.1f} | {note}: {ok if label == 'native' else ''} |")
        except Exception as e:
            print(f"| {label} | n/a | n/a | {str(e)[:200]} |")
    return 0


def interleaved(args):
    """One connection, turns whose deltas the server interleaves line by line (Rust, one consumer
    thread per turn stream), against the same number of deltas in one turn."""
    n = max(int(x) for x in args.sizes.split(","))
    print(f"\n## Interleaved turns (Rust, one connection, {n:,} deltas in all, a consumer thread per turn)\n")
    print("| turns | aggregate events/s | vs one turn |")
    print("|---|---|---|")
    rates = {}
    for turns in (1, 100):
        rs = []
        try:
            for _ in range(args.rounds):
                rs.append(run_json([os.path.join(REL, "bench-rust"), "interleave", SERVER, str(turns), str(n)]))
        except Exception as e:
            print(f"| {turns} | n/a | {str(e)[:200]} |")
            continue
        rates[turns] = med(rs, "events_per_s")
        rel = f"{rates[turns] / rates[1] - 1:+.0%}" if rates.get(1) and turns != 1 else ""
        print(f"| {turns} | {fmt_rate(rates[turns])} | {rel} |")


def scaling(args):
    """The client-scaling table: library threads, aggregate events/s and memory for each client
    count, for every consumer side by side (Rust poll/callbacks, C poll/callbacks, our Python
    sync iterator, the official Python SDK)."""
    counts = [int(c) for c in args.clients.split(",") if c]
    consumers = [
        ("Rust poll", lambda k: [os.path.join(REL, "bench-rust"), "scale", SERVER, str(k), str(args.per_client), "poll"]),
        ("Rust callbacks", lambda k: [os.path.join(REL, "bench-rust"), "scale", SERVER, str(k), str(args.per_client), "callbacks"]),
        ("C poll", lambda k: [C_BENCH, "scale-poll", SERVER, str(args.per_client), str(k)]),
        ("C callbacks", lambda k: [C_BENCH, "scale-callbacks", SERVER, str(args.per_client), str(k)]),
        ("Python sync iterator", lambda k: [PY_OURS, PYC, "ours-sync-scale", SERVER, str(args.per_client), str(k)]),
        ("OpenAI Python SDK 0.163.0", lambda k: [PY_OFFICIAL, PYC, "official-scale", SERVER, str(args.per_client), str(k)]),
    ]
    print("\n## Client scaling (each client its own bench server, %d deltas each, all at once)\n" % args.per_client)
    print("| consumer | clients | library threads | aggregate events/s | peak RSS | RSS after the streams |")
    print("|---|---|---|---|---|---|")
    for name, cmd in consumers:
        missing = available(cmd(1))
        if missing:
            print(f"| {name} | | n/a | | | {missing} |")
            continue
        for k in counts:
            rs = []
            for _ in range(args.rounds):
                try:
                    rs.append(run_json(cmd(k)))
                except Exception as e:  # reported, not hidden
                    print(f"| {name} | {k} | n/a | | | {str(e)[:200]} |")
                    break
            if rs:
                print(f"| {name} | {k} | {med(rs, 'library_threads'):.0f} | {fmt_rate(med(rs, 'events_per_s'))} "
                      f"| {med(rs, 'peak_rss_kb') / 1024:.1f} MB | {med(rs, 'rss_after_kb') / 1024:.1f} MB |", flush=True)


def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return statistics.median(vals) if vals else None


if __name__ == "__main__":
    sys.exit(main())
