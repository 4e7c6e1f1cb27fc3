"""Client life cycle against the fake app-server: unclosed clients are collected and stop their
server, ``AsyncClient.close()`` leaves the event loop running, and data that cannot be sent as
JSON raises :class:`InvalidArgumentError` on every path."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
import weakref
from typing import Any, List, Set

import pytest

import codexclient
from codexclient import AsyncClient, Client, ServerRequest
from helpers import (
    async_wait_until,
    fake,
    fd_count,
    native_threads,
    process_alive,
    run,
    thread_count,
    wait_until,
)


def _dispatch_threads() -> Set[int]:
    """The core's dispatch threads (native; the sync client's handlers run on them)."""
    return native_threads("codex-client-dispatch")


def _watched(loop: asyncio.AbstractEventLoop, fd: int) -> bool:
    """Whether ``loop`` watches ``fd`` (``add_reader``)."""
    try:
        loop._selector.get_key(fd)  # type: ignore[attr-defined]
    except KeyError:
        return False
    return True


def _warm_up(fake_bin: str) -> None:
    """One connection first, so that what the process sets up once (the library's shared
    runtime and dispatch threads, the runtime's signal pipe, the log thread) is not counted
    against the client under test."""
    with Client(**fake(fake_bin)) as c:
        c.request("x")


# -- unclosed clients are collected ---------------------------------------------------------


def test_unclosed_client_is_collected_and_stops_its_server(fake_bin: str) -> None:
    _warm_up(fake_bin)
    c = Client(**fake(fake_bin, "approval"))
    threads_before, fds_before, dispatchers_before = thread_count(), fd_count(), _dispatch_threads()
    c.connect()
    # A handler and a thread handle that refer back to the client (ordinary reference cycles).
    c.on_command_approval(lambda req, c=c: "accept" if c.is_connected else "decline")
    thread = c.thread_start()
    assert c.request("x/y") == {"method": "x/y", "params": {}}
    pid = c.server_pid
    assert pid is not None and process_alive(pid)
    # The handlers run on a thread of the library's shared dispatch pool (started by the
    # warm-up): the client adds no thread.
    assert len(dispatchers_before) == 2
    assert _dispatch_threads() == dispatchers_before
    assert thread_count() == threads_before
    ref = weakref.ref(c)
    with pytest.warns(ResourceWarning, match="unclosed Client"):
        del c, thread
        gc.collect()
    assert ref() is None, "the client object was not collected"
    wait_until(lambda: not process_alive(pid), what="the server process to exit")
    assert _dispatch_threads() == dispatchers_before, "the shared dispatch threads stay"
    wait_until(lambda: thread_count() <= threads_before, what="the client's threads to end")
    wait_until(lambda: fd_count() <= fds_before, what="the client's descriptors to close")


def test_many_clients_share_the_library_threads(fake_bin: str) -> None:
    _warm_up(fake_bin)
    threads_before, pool = thread_count(), _dispatch_threads()
    clients = [Client(**fake(fake_bin)) for _ in range(20)]
    for c in clients:
        c.connect()
        c.on_notification(lambda n: None)
        assert c.request("x")["method"] == "x"
    # 20 connections with handlers: the runtime and dispatch threads are the same ones.
    assert thread_count() == threads_before
    assert _dispatch_threads() == pool
    for c in clients:
        c.close()
    assert thread_count() == threads_before


def test_dedicated_dispatch_thread_comes_and_goes(fake_bin: str) -> None:
    import threading

    _warm_up(fake_bin)
    pool = _dispatch_threads()
    seen: "list[int]" = []
    with Client(dedicated_dispatch_thread=True, **fake(fake_bin)) as c:
        c.on_notification(lambda n: seen.append(threading.get_native_id()))
        c.thread_start()  # the fake server sends `thread/started`
        wait_until(lambda: bool(seen), what="a notification")
        own = _dispatch_threads() - pool
        assert len(own) == 1, "a client with dedicated_dispatch_thread gets its own thread"
        assert set(seen) == own, "its handlers run on it"
    wait_until(lambda: _dispatch_threads() == pool, what="the dedicated thread to end")


def test_unclosed_async_client_is_collected_and_stops_its_server(fake_bin: str) -> None:
    _warm_up(fake_bin)

    async def main() -> None:
        c = AsyncClient(**fake(fake_bin, "approval"))
        threads_before, fds_before = thread_count(), fd_count()
        await c.connect()
        c.on_command_approval(lambda req, c=c: "accept" if c.is_connected else "decline")
        c.on_notification(lambda n, c=c: c.is_connected)
        thread = await c.thread_start()
        assert (await c.request("x/y"))["method"] == "x/y"
        pid = c.server_pid
        assert pid is not None and process_alive(pid)
        # The loop watches the client's event descriptor and its executor's descriptor.
        loop = asyncio.get_running_loop()
        assert c._bridge.driver is not None
        ours = {c._native.event_fd(), c._bridge.driver.fileno()}
        assert all(_watched(loop, fd) for fd in ours), "no event reader"
        ref = weakref.ref(c)
        with pytest.warns(ResourceWarning, match="unclosed AsyncClient"):
            del c, thread
            gc.collect()
        assert ref() is None, "the client object was not collected"
        await async_wait_until(lambda: not process_alive(pid), what="the server process to exit")
        await async_wait_until(
            lambda: not any(_watched(loop, fd) for fd in ours),
            what="the client's readers to be removed from the loop",
        )
        await async_wait_until(
            lambda: thread_count() <= threads_before, what="the client's threads to end"
        )
        # The server's pipes and the loop bridge's pipe are closed.
        await async_wait_until(
            lambda: fd_count() <= fds_before, what="the client's descriptors to close"
        )

    run(main())


def test_closed_client_emits_no_resource_warning(fake_bin: str) -> None:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Client(**fake(fake_bin)) as c:
            c.request("x")
        ref = weakref.ref(c)
        del c

        async def main() -> "weakref.ref[AsyncClient]":
            async with AsyncClient(**fake(fake_bin)) as ac:
                await ac.request("x")
            return weakref.ref(ac)

        aref = run(main())
        gc.collect()
    assert ref() is None and aref() is None
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


# -- AsyncClient.close() does not block the loop --------------------------------------------


def test_async_close_lets_the_loop_run(fake_bin: str) -> None:
    async def main() -> None:
        ticks: List[float] = []

        async def ticker() -> None:
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.01)

        tick_task = asyncio.ensure_future(ticker())
        try:
            c = AsyncClient(**fake(fake_bin, "ignore-eof"))
            await c.connect()
            pid = c.server_pid
            assert pid is not None
            await async_wait_until(lambda: len(ticks) >= 2, what="the ticker")
            t0 = time.monotonic()
            await c.close()
            t1 = time.monotonic()
            grace = t1 - t0
            assert not process_alive(pid)
            # The server ignored EOF: close() waited for the exit grace, then killed it.
            assert grace > 0.3, f"close took {grace:.3f} s; the server did not ignore EOF?"
            during = [t for t in ticks if t0 <= t <= t1]
            # Ticks every 10 ms: a free loop gets dozens in; a blocked one none.
            assert len(during) >= max(10, int(grace / 0.01) // 4), (len(during), grace)
            edges = [t0] + during + [t1]
            assert max(b - a for a, b in zip(edges, edges[1:])) < 0.2

            # Closes run concurrently: N clients close in about one grace, not N.
            n = 6
            clients = [AsyncClient(**fake(fake_bin, "ignore-eof")) for _ in range(n)]
            await asyncio.gather(*(x.connect() for x in clients))
            pids = [x.server_pid for x in clients]
            t0 = time.monotonic()
            await asyncio.gather(*(x.close() for x in clients))
            total = time.monotonic() - t0
            assert total < n * grace / 2, f"{n} closes took {total:.3f} s (one: {grace:.3f} s)"
            assert not any(p is not None and process_alive(p) for p in pids)
            assert not any(x.is_connected for x in clients)
        finally:
            tick_task.cancel()

    run(main())


# -- data that is not JSON ------------------------------------------------------------------


class Opaque:
    """A value json cannot encode."""


def _assert_invalid(ei: "pytest.ExceptionInfo[codexclient.InvalidArgumentError]") -> None:
    assert isinstance(ei.value, codexclient.CodexError)
    assert "Opaque" in str(ei.value), str(ei.value)


def test_unserialisable_data_raises_invalid_argument_sync(
    fake_bin: str, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(codexclient.InvalidArgumentError) as ei:
        Client(**fake(fake_bin, config={"model": Opaque()}))
    _assert_invalid(ei)
    caplog.set_level(logging.ERROR, logger="codexclient")
    with Client(**fake(fake_bin, "unknown")) as c:
        for call in (
            lambda: c.request("x", {"a": Opaque()}),
            lambda: c.request("x", {"a": [1, {"b": Opaque()}]}),
            lambda: c.notify("x", {"a": Opaque()}),
            lambda: c.thread_start(model=Opaque()),
            lambda: c.thread_start({"a": Opaque()}),
            lambda: c.thread_resume("thr_fake_1", extra=Opaque()),
            lambda: c.command_exec(["true"], env=Opaque()),
            lambda: c.thread("thr_fake_1").run({"type": "text", "text": Opaque()}),
        ):
            with pytest.raises(codexclient.InvalidArgumentError) as ei:
                call()
            _assert_invalid(ei)
        with pytest.raises(codexclient.InvalidArgumentError):
            c.request("x", {("tuple", "key"): 1})  # type: ignore[dict-item]
        with pytest.raises(codexclient.InvalidArgumentError):
            c.request("x", [1, 2])  # type: ignore[arg-type]

        # Answering a server request: directly (raises), or from a handler (declined, logged).
        direct: List[BaseException] = []
        answered = threading.Event()

        def handler(req: ServerRequest) -> Any:
            try:
                req.respond({"x": Opaque()})
            except Exception as e:  # noqa: BLE001 - recorded for the assertion
                direct.append(e)
            assert req.is_open
            answered.set()
            return {"y": Opaque()}

        c.on_server_request("brand/newRequest", handler)
        c.request("test/unknown")
        assert answered.wait(5)
        wait_until(lambda: bool(c.request("test/lastAnswers")["answers"]), what="the answer")
        answers = c.request("test/lastAnswers")["answers"]
        assert "error" in answers[0] and "result" not in answers[0]  # declined (fail-closed)
        assert len(direct) == 1 and isinstance(direct[0], codexclient.InvalidArgumentError)
        assert "Opaque" in str(direct[0])
        assert c.request("x", {"still": "works"})["params"] == {"still": "works"}
    assert any(
        r.levelno >= logging.ERROR and "brand/newRequest" in r.getMessage() for r in caplog.records
    )


def test_unserialisable_data_raises_invalid_argument_async(fake_bin: str) -> None:
    with pytest.raises(codexclient.InvalidArgumentError) as ei:
        AsyncClient(**fake(fake_bin, config={"model": {"x": Opaque()}}))
    _assert_invalid(ei)

    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "unknown")) as c:
            thread = c.thread("thr_fake_1")
            for make in (
                lambda: c.request("x", {"a": Opaque()}),
                lambda: c.notify("x", {"a": Opaque()}),
                lambda: c.thread_start(model=Opaque()),
                lambda: c.thread_fork("thr_fake_1", {"a": Opaque()}),
                lambda: c.thread_list(cursor=Opaque()),
                lambda: thread.run({"type": "text", "text": Opaque()}),
                lambda: thread.run_streamed(["hi", {"type": "text", "text": Opaque()}]),
            ):
                with pytest.raises(codexclient.InvalidArgumentError) as ei:
                    await make()
                _assert_invalid(ei)
            with pytest.raises(codexclient.InvalidArgumentError):
                await c.request("x", "not a mapping")  # type: ignore[arg-type]

            got: "asyncio.Future[BaseException]" = asyncio.get_running_loop().create_future()

            async def handler(req: ServerRequest) -> Any:
                try:
                    req.respond({"x": Opaque()})
                except Exception as e:  # noqa: BLE001 - recorded for the assertion
                    got.set_result(e)
                return {"ok": 1}

            c.on_server_request("brand/newRequest", handler)
            await c.request("test/unknown")
            e = await asyncio.wait_for(got, 5)
            assert isinstance(e, codexclient.InvalidArgumentError) and "Opaque" in str(e)
            deadline = time.monotonic() + 5
            while not (answers := (await c.request("test/lastAnswers"))["answers"]):
                assert time.monotonic() < deadline, "the handler's answer never arrived"
                await asyncio.sleep(0.01)
            assert answers[0]["result"] == {"ok": 1}

    run(main())
