"""Bounded connects and read-ahead for requests made by handlers (fake app-server)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, List

import pytest

import codexclient
from helpers import fake, run


def test_connect_timeout_bounds_a_server_that_never_answers(fake_bin: str) -> None:
    client = codexclient.Client(**fake(fake_bin, "no-init", connect_timeout=0.5))
    t0 = time.monotonic()
    with pytest.raises(codexclient.RequestTimeoutError):
        client.connect()
    assert time.monotonic() - t0 < 5.0
    assert not client.is_connected
    client.close()


def test_async_connect_timeout_bounds_a_server_that_never_answers(fake_bin: str) -> None:
    async def main() -> float:
        client = codexclient.AsyncClient(**fake(fake_bin, "no-init", connect_timeout=0.5))
        t0 = time.monotonic()
        with pytest.raises(codexclient.RequestTimeoutError):
            await client.connect()
        await client.close()
        return time.monotonic() - t0

    assert run(main()) < 5.0


def test_a_handler_request_during_a_flood_completes(fake_bin: str) -> None:
    """A notification handler runs on the dispatch thread; its blocking request must not
    wait behind the full queue that only this thread drains."""
    client = codexclient.Client(**fake(fake_bin, "flood", event_queue_capacity=8))
    answers: List[Any] = []
    done = threading.Event()

    def on_note(note: Any) -> None:
        if not answers:
            answers.append(client.request("from/handler", {}, timeout=20))
            done.set()

    client.on_notification(on_note)
    with client:
        assert client.request("test/flood", {"count": 20000})["sent"] == 20000
        assert done.wait(20), "the handler's request did not complete"
    assert answers[0]["method"] == "from/handler"


def test_an_async_handler_request_during_a_flood_completes(fake_bin: str) -> None:
    async def main() -> Any:
        client = codexclient.AsyncClient(**fake(fake_bin, "flood", event_queue_capacity=8))
        answered = asyncio.Event()
        answer: List[Any] = []
        tasks: List["asyncio.Task[None]"] = []

        async def ask() -> None:
            answer[0] = await client.request("from/handler", {}, timeout=20)
            answered.set()

        def on_note(note: Any) -> None:
            # Runs on the loop, like the loop's own pulls of events: the request must not
            # wait behind the full queue the loop itself drains.
            if not answer:
                answer.append(None)
                tasks.append(asyncio.get_running_loop().create_task(ask()))

        client.on_notification(on_note)
        async with client:
            sent = await client.request("test/flood", {"count": 20000})
            assert sent["sent"] == 20000
            await asyncio.wait_for(answered.wait(), 20)
        return answer[0]

    assert run(main())["method"] == "from/handler"
