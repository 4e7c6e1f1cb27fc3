#!/usr/bin/env python3
"""MCP `tools/call` round trips through libcodexclient's Python API (sync `McpClient`), for
bench/mcp/run.py:

    py_ours.py stdio N          spawns $MCP_NODE $MCP_EVERYTHING stdio
    py_ours.py http URL N       Streamable HTTP to URL

Connects, makes 200 warm-up calls, times N sequential `call_tool("echo", {"message": "hi"})`
and prints one JSON line: client, transport, n, median_us, p99_us, mean_us.
"""
import json
import os
import statistics
import sys
import time

from codexclient import McpClient

WARMUP = 200
ARGS = {"message": "hi"}


def main() -> int:
    transport, rest = sys.argv[1], sys.argv[2:]
    mode = os.environ.get("BENCH_MCP_PROTOCOL")  # the era (bench/mcp/run.py); default auto
    if transport == "stdio":
        client = McpClient(command=[os.environ["MCP_NODE"], os.environ["MCP_EVERYTHING"], "stdio"], mcp_protocol=mode)
        n = int(rest[0])
    else:
        client = McpClient(transport=rest[0], mcp_protocol=mode)
        n = int(rest[1])
    with client:
        first = client.call_tool("echo", ARGS)
        assert first.text == "Echo: hi", first
        for _ in range(WARMUP):
            client.call_tool("echo", ARGS)
        samples = []
        for _ in range(n):
            t = time.perf_counter()
            client.call_tool("echo", ARGS)
            samples.append((time.perf_counter() - t) * 1e6)
    samples.sort()
    at = lambda q: samples[round((len(samples) - 1) * q)]  # same as bench/src/lib.rs median_p99
    print(json.dumps({"client": "libcodexclient-python", "transport": transport, "n": n,
                      "median_us": at(0.5), "p99_us": at(0.99), "mean_us": statistics.fmean(samples)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
