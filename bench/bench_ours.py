"""Our `codexclient` consumers for bench/py_consumers.py (imported there for `ours-*` modes)."""
import asyncio
import os
import time

import codexclient


def _env(n: int) -> dict:
    return {"BENCH_EVENTS": str(n)}


def ours_async_stream(server: str, n: int, report_stream, report_rtt) -> None:
    async def go() -> None:
        async with codexclient.AsyncClient(codex_bin=server, env=_env(n)) as client:
            thread = await client.thread_start()
            t0 = time.perf_counter()
            turn = await thread.run_streamed("go")
            count = 0
            async for ev in turn:
                if ev.method == "item/agentMessage/delta":
                    count += 1
            secs = time.perf_counter() - t0
            assert count == n, count
            report_stream(count, secs)

    asyncio.run(go())


def ours_sync_stream(server: str, n: int, report_stream, report_rtt) -> None:
    with codexclient.Client(codex_bin=server, env=_env(n)) as client:
        thread = client.thread_start()
        t0 = time.perf_counter()
        turn = thread.run_streamed("go")
        count = 0
        for ev in turn:
            if ev.method == "item/agentMessage/delta":
                count += 1
        secs = time.perf_counter() - t0
    assert count == n, count
    report_stream(count, secs)


def ours_rtt(server: str, n: int, report_stream, report_rtt) -> None:
    with codexclient.Client(codex_bin=server, env=_env(0)) as client:
        thread = client.thread_start()
        samples = []
        for i in range(n + 200):
            t = time.perf_counter()
            thread.set_name("bench")
            if i >= 200:
                samples.append((time.perf_counter() - t) * 1e6)
    report_rtt(samples)
