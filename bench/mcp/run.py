#!/usr/bin/env python3
"""MCP `tools/call` round trip in both eras of MCP: every client against the `echo` tool of the
TypeScript SDK test server (testkit/sdk-servers/server.mjs, `@modelcontextprotocol/server`
2.4.0, which serves the handshake era and 2026-07-28) over stdio and Streamable HTTP, each era
in turn (BENCH_MCP_PROTOCOL=legacy, then auto, which finds 2026-07-28), alternating clients,
several rounds; medians of each run's numbers.

Called by scripts/bench.sh (which installs the MCP tools, builds and installs the clients and
sources .cache/mcp.env). Options: --rounds R (default 3)  --calls N (default 2000)
Every client program takes `stdio N` (it spawns `$MCP_NODE $MCP_EVERYTHING stdio`; here
MCP_EVERYTHING is the SDK test server) or `http URL N`, reads the era from BENCH_MCP_PROTOCOL,
makes 200 warm-up calls, times N sequential `tools/call echo {"message":"hi"}` and prints one
JSON line with median_us, p99_us and mean_us. One HTTP server (on a free 127.0.0.1 port) serves
every HTTP run. Missing clients are printed as "n/a" with the reason; a client that speaks
only the handshake era is "n/a" in the other.
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
        ("official TypeScript client 2.4.0", [os.environ.get("MCP_NODE", "node"), os.path.join(HERE, "ts_official.mjs")]),
    ]


# Clients whose bench program speaks only the handshake era.
HANDSHAKE_ONLY = {BASELINE}
SERVER = os.path.join(ROOT, "testkit", "sdk-servers", "server.mjs")
ERAS = (("legacy", "handshake"), ("auto", "2026-07-28"))


def clients():
    ours = [("libcodexclient Rust", ours_rust()), ("libcodexclient C", ours_c()),
            ("libcodexclient Python", ours_python())]
    return ours + rivals()


def start_http_server(log):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([os.environ["MCP_NODE"], SERVER, "http", str(port)], stdout=log, stderr=log)
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
    raise RuntimeError(f"the SDK test server did not listen on 127.0.0.1:{port} within 20 s:\n{tail}")


def run_json(cmd, era):
    env = dict(os.environ, MCP_EVERYTHING=SERVER, BENCH_MCP_PROTOCOL=era)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
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
    cells = [(era, t) for era, _ in ERAS for t in ("stdio", "http")]
    res = {(name, c): [] for name, _ in cons for c in cells}
    errors = {}
    with tempfile.TemporaryFile() as log:
        server, url = start_http_server(log)
        try:
            for rnd in range(args.rounds):
                order = cons[rnd % len(cons):] + cons[: rnd % len(cons)]
                for era, t in cells:
                    for name, cmd in order:
                        if name in errors or (era != "legacy" and name in HANDSHAKE_ONLY):
                            continue
                        if not os.path.exists(cmd[0]):
                            errors[name] = f"{cmd[0]} not built/installed"
                            continue
                        target = ["stdio"] if t == "stdio" else ["http", url]
                        try:
                            res[(name, (era, t))].append(run_json(cmd + target + [str(args.calls)], era))
                        except Exception as e:  # a failing client is reported, not hidden
                            errors[name] = str(e)[:300]
        finally:
            server.kill()
            server.wait()

    print(f"\n## MCP `tools/call` round trip, both eras (SDK test server `echo`, {args.calls} sequential calls, "
          f"{args.rounds} rounds, medians of median µs; p99 in brackets)\n")
    head = " | ".join(f"{label} {t}" for _, label in ERAS for t in ("stdio", "HTTP"))
    print(f"| client | {head} | median ÷ rmcp (handshake stdio, HTTP) |")
    print("|---|" + "---|" * (len(cells) + 1))
    base = {t: med(res[(BASELINE, ("legacy", t))], "median_us") for t in ("stdio", "http")}
    for name, _ in cons:
        if name in errors:
            print(f"| {name} | " + " | ".join("n/a" for _ in cells) + f" | {errors[name]} |")
            continue
        row = []
        for c in cells:
            m = med(res[(name, c)], "median_us")
            row.append("n/a (handshake only)" if m is None else f"{m:.0f} ({med(res[(name, c)], 'p99_us'):.0f})")
        ratios = []
        for t in ("stdio", "http"):
            m = med(res[(name, ("legacy", t))], "median_us")
            ratios.append(f"{m / base[t]:.2f}×" if m and base[t] else "n/a")
        print(f"| {name} | " + " | ".join(row) + f" | {', '.join(ratios)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
