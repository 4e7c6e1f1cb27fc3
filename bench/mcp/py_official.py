#!/usr/bin/env python3
"""MCP `tools/call` round trips through the official Python SDK (PyPI `mcp` 2.3.0, in the venv
scripts/bench.sh makes: $CACHE/bench-venv-mcp).

    py_official.py stdio N          spawns $MCP_NODE $MCP_EVERYTHING stdio
    py_official.py http URL N       Streamable HTTP to URL (e.g. http://127.0.0.1:PORT/mcp)

Connects (`mcp.client.Client`, `mode` from BENCH_MCP_PROTOCOL, default auto), makes 200 warm-up calls, then times N sequential `tools/call echo {"message":"hi"}`
and prints one JSON line: client, transport, n, median_us, p99_us, mean_us.
"""
import json
import os
import statistics
import sys
import time

import anyio
from mcp import StdioServerParameters
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

WARMUP = 200
ARGS = {"message": "hi"}


async def timed(session: Client, n: int) -> list:
    first = await session.call_tool("echo", ARGS)
    assert first.content[0].text == "Echo: hi", first
    for _ in range(WARMUP):
        await session.call_tool("echo", ARGS)
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await session.call_tool("echo", ARGS)
        samples.append((time.perf_counter() - t) * 1e6)
    return samples


async def run(transport: str, target: str, n: int) -> list:
    if transport == "stdio":
        params = StdioServerParameters(command=os.environ["MCP_NODE"], args=[os.environ["MCP_EVERYTHING"], "stdio"],
                                        env=dict(os.environ))
        streams = stdio_client(params, errlog=open(os.devnull, "w"))
    else:
        streams = streamable_http_client(target)
    # The era (bench/mcp/run.py): BENCH_MCP_PROTOCOL as the SDK's `mode` (its default: auto).
    mode = os.environ.get("BENCH_MCP_PROTOCOL", "auto")
    async with Client(streams, mode=mode) as session:
        return await timed(session, n)


def main() -> int:
    transport, rest = sys.argv[1], sys.argv[2:]
    target, n = (None, int(rest[0])) if transport == "stdio" else (rest[0], int(rest[1]))
    samples = sorted(anyio.run(run, transport, target, n))
    at = lambda q: samples[round((len(samples) - 1) * q)]  # same as bench/src/lib.rs median_p99
    print(json.dumps({"client": "python-mcp", "transport": transport, "n": n, "median_us": at(0.5),
                      "p99_us": at(0.99), "mean_us": statistics.fmean(samples)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
