#!/usr/bin/env python3
"""Python consumers of the benchmark. Prints one JSON object per run.

    py_consumers.py MODE SERVER N
    py_consumers.py ours-sync-scale|official-scale SERVER N CLIENTS

MODE:
  floor-stream / floor-rtt       minimal loop: subprocess + readline + json.loads (the floor)
  official-stream / official-rtt OpenAI's `openai-codex` SDK (its own venv, Python >= 3.12)
  ours-async-stream / ours-sync-stream / ours-rtt   our `codexclient` extension
  ours-{async,sync}-stream-delta / -params, official-stream-delta / -params: the same stream,
      reading `.delta` (the official SDK: `.payload.delta`) or the whole params as Python
      objects (`.params`; the official SDK: its validated `.payload` model) of every event

`scale` connects CLIENTS clients (each spawning its own bench server), counts the threads they
added, then streams one turn of N deltas on each at once, one consumer thread per client, and
reports the aggregate events/s, peak RSS and the RSS once the streams ended. `stream` runs one turn of N `item/agentMessage/delta` notifications from the bench server and
reports events/s and the process's peak RSS; `rtt` makes N sequential `thread/name/set` calls
and reports the median and p99 in microseconds.
"""
import json
import os
import subprocess
import sys
import time


def peak_rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def report_stream(n: int, secs: float) -> None:
    print(json.dumps({"events": n, "secs": secs, "events_per_s": n / secs, "peak_rss_kb": peak_rss_kb()}))


def report_rtt(samples: list) -> None:
    samples.sort()
    at = lambda q: samples[round((len(samples) - 1) * q)]
    print(json.dumps({"calls": len(samples), "median_us": at(0.5), "p99_us": at(0.99)}))


class Floor:
    """The least a Python client can do: write requests, readline + json.loads."""

    def __init__(self, server: str, n: int):
        env = dict(os.environ, BENCH_EVENTS=str(n))
        self.p = subprocess.Popen([server, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.next = 0

    def call(self, method: str, params: dict) -> dict:
        self.next += 1
        rid = self.next
        self.p.stdin.write(json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n")
        self.p.stdin.flush()
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == rid and "method" not in msg:
                return msg["result"]

    def start(self) -> str:
        self.call("initialize", {"clientInfo": {"name": "floor", "version": "0"}})
        self.p.stdin.write(b'{"method":"initialized"}\n')
        return self.call("thread/start", {})["thread"]["id"]

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def floor_stream(server: str, n: int) -> None:
    f = Floor(server, n)
    tid = f.start()
    t0 = time.perf_counter()
    f.call("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go", "text_elements": []}]})
    count = 0
    readline = f.p.stdout.readline
    while True:
        msg = json.loads(readline())
        m = msg.get("method")
        if m == "item/agentMessage/delta":
            count += 1
        elif m == "turn/completed":
            break
    secs = time.perf_counter() - t0
    assert count == n, count
    report_stream(count, secs)
    f.close()


def floor_rtt(server: str, n: int) -> None:
    f = Floor(server, 0)
    tid = f.start()
    samples = []
    for i in range(n + 200):
        t = time.perf_counter()
        f.call("thread/name/set", {"threadId": tid, "name": "bench"})
        if i >= 200:
            samples.append((time.perf_counter() - t) * 1e6)
    report_rtt(samples)
    f.close()


def official(server: str, n: int):
    from openai_codex import Codex, CodexConfig

    return Codex(CodexConfig(codex_bin=server, env=dict(os.environ, BENCH_EVENTS=str(n))))


def official_stream(server: str, n: int, read=lambda ev: None) -> None:
    with official(server, n) as codex:
        thread = codex.thread_start()
        t0 = time.perf_counter()
        turn = thread.turn("go")
        count = 0
        for ev in turn.stream():
            read(ev)
            if ev.method == "item/agentMessage/delta":
                count += 1
        secs = time.perf_counter() - t0
    assert count == n, count
    report_stream(count, secs)


def official_rtt(server: str, n: int) -> None:
    with official(server, 0) as codex:
        thread = codex.thread_start()
        samples = []
        for i in range(n + 200):
            t = time.perf_counter()
            thread.set_name("bench")
            if i >= 200:
                samples.append((time.perf_counter() - t) * 1e6)
    report_rtt(samples)


def threads() -> int:
    """Threads of this process now."""
    return len(os.listdir("/proc/self/task"))


def scale_consume(clients, open_turn, library_threads: int, n: int) -> dict:
    """Stream one turn of every client at once, each from a consumer thread of its own
    (`open_turn(client)` gives the turn's event iterator); the scaling row's figures."""
    import threading

    counts = [0] * len(clients)

    def consume(i: int, turn) -> None:
        c = 0
        for ev in turn:
            if ev.method == "item/agentMessage/delta":
                c += 1
        counts[i] = c

    t0 = time.perf_counter()
    workers = [threading.Thread(target=consume, args=(i, open_turn(c))) for i, c in enumerate(clients)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    secs = time.perf_counter() - t0
    total = sum(counts)
    assert total == n * len(clients), total
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f)
    return {"clients": len(clients), "events": total, "secs": secs, "events_per_s": total / secs,
            "library_threads": library_threads, "peak_rss_kb": int(status["VmHWM"].split()[0]),
            "rss_after_kb": int(status["VmRSS"].split()[0])}


def official_scale(server: str, n: int, k: int) -> dict:
    """`official-scale`: k `Codex` instances (each spawns its own server), one turn each."""
    before = threads()
    codexes = [official(server, n).__enter__() for _ in range(k)]
    library_threads = threads() - before
    convs = [c.thread_start() for c in codexes]
    it = iter(convs)
    row = scale_consume(codexes, lambda _c: next(it).turn("go").stream(), library_threads, n)
    for c in codexes:
        c.__exit__(None, None, None)
    return row


def main() -> int:
    mode, server, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode.endswith("-scale"):
        k = int(sys.argv[4])
        if mode == "official-scale":
            print(json.dumps(official_scale(server, n, k)))
        else:
            import bench_ours

            print(json.dumps(bench_ours.ours_sync_scale(server, n, k, threads, scale_consume)))
        return 0
    if mode.startswith("ours-"):
        import bench_ours  # our extension's consumers (bench/bench_ours.py)

        if "-stream" in mode:
            bench_ours.stream(mode, server, n, report_stream)
        else:
            getattr(bench_ours, mode.replace("-", "_"))(server, n, report_stream, report_rtt)
        return 0
    {
        "floor-stream": floor_stream,
        "floor-rtt": floor_rtt,
        "official-stream": official_stream,
        "official-stream-delta": lambda s, n: official_stream(s, n, lambda ev: getattr(ev.payload, "delta", None)),
        "official-stream-params": lambda s, n: official_stream(s, n, lambda ev: ev.payload),
        "official-rtt": official_rtt,
    }[mode](server, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
