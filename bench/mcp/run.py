#!/usr/bin/env python3
"""MCP `tools/call` round trip: every client against the everything server's `echo` tool over
stdio and Streamable HTTP, alternating, several rounds; medians of each run's numbers.

Called by scripts/bench.sh (which installs the MCP tools, builds and installs the clients and
sources .cache/mcp.env). Options: --rounds R (default 3)  --calls N (default 2000)
Every client program takes `stdio N` (it spawns `$MCP_NODE $MCP_EVERYTHING stdio` itself) or
`http URL N`, makes 200 warm-up calls, times N sequential `tools/call echo {"message":"hi"}`
and prints one JSON line with median_us, p99_us and mean_us. One HTTP server (on a free
127.0.0.1 port) serves every HTTP run; each run has its own session. Missing clients are
printed as "n/a" with the reason.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("LIBCODEXCLIENT_CACHE", os.path.expanduser("~/.cache/libcodexclient"))
REL = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release")
RMCP = os.environ.get("BENCH_RMCP", os.path.join(CACHE, "target-mcp-bench", "release", "rmcp-bench-client"))
PY_MCP = os.environ.get("BENCH_PY_MCP", os.path.join(CACHE, "bench-venv-mcp", "bin", "python"))
PY_OURS = os.environ.get("BENCH_PY_OURS", os.path.join(CACHE, "bench-venv-ours", "bin", "python"))
HERE = os.path.join(ROOT, "bench", "mcp")
BASELINE = "rmcp 3.11.0 (Rust)"


# ---- Our clients (libcodexclient's MCP API): each returns the command (argv before `stdio N` /
# `http URL N`). scripts/bench.sh builds them (release). ----
def ours_rust():
    return [os.path.join(REL, "bench-mcp-rust")]


def ours_c():
    return [os.path.join(REL, "bench-mcp-c")]


def ours_python():
    return [PY_OURS, os.path.join(HERE, "py_ours.py")]


def rivals():
    return [
        (BASELINE, [RMCP]),
        ("official Python SDK `mcp` 2.3.0", [PY_MCP, os.path.join(HERE, "py_official.py")]),
    ]


def clients():
    ours = [("libcodexclient Rust", ours_rust()), ("libcodexclient C", ours_c()),
            ("libcodexclient Python", ours_python())]
    return ours + rivals()


def start_http_server(log):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [os.environ["MCP_NODE"], "--import", os.path.join(ROOT, "scripts", "mcp", "loopback.mjs"),
           os.environ["MCP_EVERYTHING"], "streamableHttp"]
    proc = subprocess.Popen(cmd, env=dict(os.environ, PORT=str(port)), stdout=log, stderr=log)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    log.seek(0)
    tail = log.read().decode(errors="replace")[-600:]
    raise RuntimeError(f"the everything server did not listen on 127.0.0.1:{port} within 20 s:\n{tail}")


def run_json(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {r.stderr.strip()[-400:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return statistics.median(vals) if vals else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    cons = clients()
    transports = ("stdio", "http")
    res = {(name, t): [] for name, _ in cons for t in transports}
    errors = {}
    with tempfile.TemporaryFile() as log:
        server, url = start_http_server(log)
        try:
            for rnd in range(args.rounds):
                order = cons[rnd % len(cons):] + cons[: rnd % len(cons)]
                for t in transports:
                    for name, cmd in order:
                        if name in errors:
                            continue
                        if cmd is None:
                            errors[name] = "not written yet (slot in bench/mcp/run.py)"
                        elif not os.path.exists(cmd[0]):
                            errors[name] = f"{cmd[0]} not built/installed"
                        else:
                            target = ["stdio"] if t == "stdio" else ["http", url]
                            try:
                                res[(name, t)].append(run_json(cmd + target + [str(args.calls)]))
                            except Exception as e:  # a failing client is reported, not hidden
                                errors[name] = str(e)[:300]
        finally:
            server.kill()
            server.wait()

    print(f"\n## MCP `tools/call` round trip (everything server `echo`, {args.calls} sequential calls, "
          f"{args.rounds} rounds, medians)\n")
    print("| client | stdio median µs | p99 µs | mean µs | HTTP median µs | p99 µs | mean µs | median ÷ rmcp (stdio, HTTP) |")
    print("|---|---|---|---|---|---|---|---|")
    base = {t: med(res[(BASELINE, t)], "median_us") for t in transports}
    for name, _ in cons:
        if name in errors:
            print(f"| {name} | n/a | | | n/a | | | {errors[name]} |")
            continue
        cells, ratios = [], []
        for t in transports:
            m = med(res[(name, t)], "median_us")
            cells += [f"{m:.0f}", f"{med(res[(name, t)], 'p99_us'):.0f}", f"{med(res[(name, t)], 'mean_us'):.0f}"]
            ratios.append(f"{m / base[t]:.2f}×" if base[t] else "n/a")
        print(f"| {name} | " + " | ".join(cells) + f" | {', '.join(ratios)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
