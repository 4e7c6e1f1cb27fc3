"""Our `codexclient` consumers for bench/py_consumers.py (imported there for `ours-*` modes)."""
import asyncio
import os
import time

import codexclient


def _env(n: int) -> dict:
    return {"BENCH_EVENTS": str(n)}


# What a consumer reads of every event: only the method (`ev.method`, always), the delta text
# too (`ev.delta`), or the whole params as Python objects (`ev.params`, parsed on access).
READ = {
    "": lambda ev: None,
    "delta": lambda ev: ev.delta,
    "params": lambda ev: ev.params,
}


def _async_stream(server: str, n: int, report_stream, read) -> None:
    async def go() -> None:
        async with codexclient.AsyncClient(codex_bin=server, env=_env(n)) as client:
            thread = await client.thread_start()
            t0 = time.perf_counter()
            turn = await thread.run_streamed("go")
            count = 0
            async for ev in turn:
                read(ev)
                if ev.method == "item/agentMessage/delta":
                    count += 1
            secs = time.perf_counter() - t0
            assert count == n, count
            report_stream(count, secs)

    asyncio.run(go())


def _sync_stream(server: str, n: int, report_stream, read) -> None:
    with codexclient.Client(codex_bin=server, env=_env(n)) as client:
        thread = client.thread_start()
        t0 = time.perf_counter()
        turn = thread.run_streamed("go")
        count = 0
        for ev in turn:
            read(ev)
            if ev.method == "item/agentMessage/delta":
                count += 1
        secs = time.perf_counter() - t0
    assert count == n, count
    report_stream(count, secs)


def stream(mode: str, server: str, n: int, report_stream) -> None:
    """`ours-{async,sync}-stream[-delta|-params]`."""
    kind, _, read = mode[len("ours-"):].partition("-stream")
    run = {"async": _async_stream, "sync": _sync_stream}[kind]
    run(server, n, report_stream, READ[read.lstrip("-")])


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



def ours_sync_scale(server: str, n: int, k: int, threads, scale_consume) -> dict:
    """`ours-sync-scale`: k clients, one turn of n deltas each, sync iterators."""
    before = threads()
    clients = [codexclient.Client(codex_bin=server, env=_env(n)) for _ in range(k)]
    for c in clients:
        c.connect()
    library_threads = threads() - before
    turns = [c.thread_start() for c in clients]
    it = iter(turns)
    row = scale_consume(clients, lambda _c: next(it).run_streamed("go"), library_threads, n)
    for c in clients:
        c.close()
    return row
