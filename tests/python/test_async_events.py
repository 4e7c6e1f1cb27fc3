"""The asyncio event path (issue #35): a wake-up crosses into the extension once, its awaited
native future resolving with the batch of events itself, and a cancelled wait takes no event.
Against the real codex app-server and the local mock model."""

from __future__ import annotations

import asyncio
import select
from typing import Any, List, Optional, Tuple

import codexclient
from codexclient import AsyncClient, Client, _native
from helpers import run, text_of

Call = Tuple[str, Optional[int]]


class Recorder:
    """A native turn whose ``take()`` and ``wait_async()`` calls are recorded: ``("take", n)``
    (``n`` events, ``None`` at the end) and ``("wake", n)`` for what an awaited
    ``wait_async`` resolved with (``-1``: something that is not a list of events)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: List[Call] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def take(self, *a: Any) -> Any:
        evs = self.inner.take(*a)
        self.calls.append(("take", None if evs is None else len(evs)))
        return evs

    def wait_async(self, aio: Any, *a: Any) -> Any:
        def woke(f: "asyncio.Future[Any]") -> None:
            r = f.result()
            self.calls.append(("wake", None if r is None else len(r) if isinstance(r, list) else -1))

        aio[1].add_done_callback(woke)
        return self.inner.wait_async(aio, *a)


def test_a_wake_carries_its_batch(client_kwargs: dict) -> None:
    """Iterating a turn whose events come apart (so that it waits): every wake-up resolves
    with the events (or the end), never with a bare "ready" that needs another ``take()``;
    the events yielded are exactly those the native calls handed over, in order."""

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 6 30")
            rec = Recorder(turn._native)
            turn._native = rec
            events = [ev async for ev in turn]
            assert isinstance(events[-1], codexclient.TurnCompleted)
            assert text_of(events) == "".join(f"tick {i} " for i in range(6))
            wakes = [n for kind, n in rec.calls if kind == "wake"]
            assert len(wakes) >= 5, rec.calls  # it did wait, at least once per delayed delta
            # One crossing per wake: each carried its events (a list, not empty), or the end
            # (then it is the last native call).
            assert all(n is not None and n > 0 for n in wakes[:-1]), rec.calls
            assert wakes[-1] is None or wakes[-1] > 0, rec.calls
            assert wakes[-1] is not None or rec.calls[-1] == ("wake", None), rec.calls
            # Every wait came after a take() that found nothing, and nothing was taken twice.
            for i, (kind, n) in enumerate(rec.calls):
                if kind == "wake":
                    assert rec.calls[i - 1] == ("take", 0), rec.calls
            handed = sum(n for _, n in rec.calls if n is not None and n > 0)
            assert handed == len(events), rec.calls

    run(main())


def test_a_cancelled_wait_takes_no_event(client_kwargs: dict) -> None:
    """A wait whose asyncio future was cancelled after events came, but before the loop ran
    its task, leaves them in the stream for the next reader; an uncancelled wait resolves
    with them. (The executor is driven by hand here: no loop runs it.)"""
    loop = asyncio.new_event_loop()
    ex = _native.Executor()
    try:
        with Client(**client_kwargs) as c:
            stream = c._native.events()

            def woken_wait() -> "asyncio.Future[Any]":
                while True:  # a wait that found nothing ready (the server may still talk)
                    while stream.take():
                        pass
                    fut = loop.create_future()
                    stream.wait_async((ex, fut))
                    if not fut.done():
                        break
                    assert fut.result(), "a wait resolved at once, but with no event"
                assert ex.pending() == 1
                c.thread_start()  # a thread/started notification for the stream
                readable, _, _ = select.select([ex.fileno()], [], [], 30)
                assert readable, "the wait's task was not woken"
                return fut

            fut = woken_wait()
            fut.cancel()
            ex.run_ready()
            assert ex.pending() == 0
            evs = stream.take()
            assert evs, "the cancelled wait took the events that woke it"

            fut = woken_wait()
            ex.run_ready()
            assert ex.pending() == 0 and fut.done()
            evs = fut.result()
            assert isinstance(evs, list) and evs, evs
            assert all(isinstance(e, codexclient.Notification) for e in evs), evs
            stream.close()
            assert stream.take() is None
    finally:
        ex.close()
        loop.close()
