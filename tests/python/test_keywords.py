"""The typed keywords of ``thread_start``, ``thread_resume``, ``thread_fork``, ``run``,
``run_streamed`` and ``fork`` (generated from the schema: ``codexclient._keywords``), sync and
asyncio: every field of the params types is a keyword, an unknown keyword raises
:class:`TypeError` naming it and the closest valid one before anything is sent, ``extra=`` is
the one way to send a field the schema does not know; and the keywords reach the real codex
app-server 0.169.0 (with the local mock model). Also the asyncio turn bounds
(``timeout=``/``idle_timeout=`` of ``AsyncThread.run`` and ``AsyncTurn.result``)."""

from __future__ import annotations

import asyncio
import inspect
import re
import sys
import time
import typing
from typing import Any, Callable, Dict, List

import pytest

import codexclient
from codexclient import AsyncClient, AsyncThread, Client, Thread, protocol as p
from codexclient._signature import closest
from helpers import run

# (method, the params type, the fields that are positional or set by the library)
METHODS: List[Any] = [
    ("thread_start", p.ThreadStartParams, set()),
    ("thread_resume", p.ThreadResumeParams, {"threadId"}),
    ("thread_fork", p.ThreadForkParams, {"threadId"}),
]
TURN_FIXED = {"threadId", "input"}
TEST_ONLY = {"mockExperimentalField"}


def snake(wire: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", wire).lower()


def keywords(f: Callable[..., Any]) -> Dict[str, inspect.Parameter]:
    return {
        n: prm for n, prm in inspect.signature(f).parameters.items()
        if prm.kind is inspect.Parameter.KEYWORD_ONLY
    }


def fields(td: Any, fixed: "set[str]") -> "set[str]":
    return {snake(k) for k in typing.get_type_hints(td)} - {snake(k) for k in fixed | TEST_ONLY}


@pytest.mark.parametrize("cls", [Client, AsyncClient])
def test_every_params_field_is_a_typed_documented_keyword(cls: Any) -> None:
    for name, td, fixed in METHODS:
        f = getattr(cls, name)
        kws = keywords(f)
        want = fields(td, fixed)
        assert want <= set(kws), (name, sorted(want - set(kws)))
        assert set(kws) - want == {"extra", "timeout"}, (name, sorted(set(kws) - want))
        assert all(kws[k].default is None for k in want)
        doc = inspect.getdoc(f) or ""
        for k in want | {"extra", "timeout"}:
            assert f":param {k}:" in doc, (name, k)
        # Typed from the schema: the annotations name the protocol's types.
        assert "p.AskForApproval" in str(kws["approval_policy"].annotation)
        if sys.version_info >= (3, 12):  # inspect.markcoroutinefunction
            assert inspect.iscoroutinefunction(f) == (cls is AsyncClient), name
        assert inspect.iscoroutinefunction(inspect.unwrap(f)) == (cls is AsyncClient), name
    for tcls in (Thread, AsyncThread):
        run_kws, streamed_kws = keywords(tcls.run), keywords(tcls.run_streamed)
        want = fields(p.TurnStartParams, TURN_FIXED)
        assert set(run_kws) - want == {"skills", "timeout", "idle_timeout", "extra"}, tcls
        assert set(streamed_kws) - want == {"skills", "extra"}, tcls
        assert "output_schema" in want and "effort" in want and "sandbox_policy" in want
        assert set(keywords(tcls.fork)) - fields(p.ThreadForkParams, {"threadId"}) == {"extra", "timeout"}


def test_unknown_keyword_is_a_type_error_naming_the_closest(fake_bin: str) -> None:
    # No connection needed: the keywords are checked before anything is sent.
    c = Client(codex_bin=fake_bin)
    t = c.thread("thr_1")
    try:
        with pytest.raises(TypeError, match=r"Client\.thread_start\(\) got an unexpected keyword argument 'modle'; did you mean 'model'\?"):
            c.thread_start(modle="gpt-5")  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="'approvalPolicy'; did you mean 'approval_policy'"):
            c.thread_resume("thr_1", approvalPolicy="never")  # type: ignore[call-arg]
        with pytest.raises(TypeError, match=r"Thread\.run\(\) got an unexpected keyword argument 'efort'; did you mean 'effort'"):
            t.run("hi", efort="low")  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="'output_shema'; did you mean 'output_schema'"):
            t.run_streamed("hi", output_shema={})  # type: ignore[call-arg]
        with pytest.raises(TypeError, match=r"'zzz'.*extra="):
            t.fork(zzz=1)  # type: ignore[call-arg]
        assert closest("xyzzy", {"model", "cwd"}) is None
        with pytest.raises(codexclient.InvalidArgumentError, match="extra must be a mapping"):
            c.thread_start(extra=[1])  # type: ignore[arg-type]
    finally:
        c.close()


def test_unknown_keyword_async_raises_at_the_call(fake_bin: str) -> None:
    async def main() -> None:
        c = AsyncClient(codex_bin=fake_bin)
        try:
            with pytest.raises(TypeError, match="did you mean 'model'"):
                c.thread_start(modl="x")  # type: ignore[call-arg]  # not awaited: raised at the call
            with pytest.raises(TypeError, match="did you mean 'effort'"):
                c.thread("thr_1").run_streamed("hi", effrt="low")  # type: ignore[call-arg]
        finally:
            await c.close()

    run(main())


def test_keywords_reach_the_server(client_kwargs: dict) -> None:
    asked: List[Any] = []
    with Client(**client_kwargs) as c:
        c.on_command_approval(lambda req: asked.append(req) or "decline")
        t = c.thread_start(approval_policy="on-request", sandbox="read-only", model="mock-kw-model",
                           extra={"someFutureField": 1})
        assert t.info["approvalPolicy"] == "on-request"
        assert t.info["sandbox"]["type"] == "readOnly"
        assert t.info["model"] == "mock-kw-model"
        # A turn keyword: under "never" nothing is asked; without it (the thread's on-request) the
        # same command asks.
        r = t.run("MOCK_EXEC: echo kw", approval_policy="never", effort="low",
                  output_schema={"type": "object"})
        assert r.status == "completed" and asked == [], (r.status, asked)
        r = t.run("MOCK_EXEC: echo kw", approval_policy="on-request")
        assert len(asked) == 1, asked
        f = t.fork(approval_policy="never", ephemeral=True, exclude_turns=True)
        assert f.id != t.id and f.info["approvalPolicy"] == "never"
    # A loaded thread is rejoined as it is: resume it from another server process. extra= is
    # sent as given (a known wire name here, to see it arrive).
    with Client(**client_kwargs) as c:
        r2 = c.thread_resume(t.id, extra={"approvalPolicy": "untrusted"}, sandbox="danger-full-access")
        assert r2.info["approvalPolicy"] == "untrusted"
        assert r2.info["sandbox"]["type"] == "dangerFullAccess"


def test_keywords_reach_the_server_async(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            t = await c.thread_start(sandbox="workspace-write", approval_policy="never")
            assert t.info["sandbox"]["type"] == "workspaceWrite" and t.info["approvalPolicy"] == "never"
            r = await t.run("MOCK_TEXT: typed", effort="low", summary="concise")
            assert r.final_response == "typed"
            turn = await t.run_streamed("MOCK_TEXT: streamed typed", effort="low")
            assert (await turn.result()).final_response == "streamed typed"
        async with AsyncClient(**client_kwargs) as c:
            r2 = await c.thread_resume(t.id, approval_policy="untrusted")
            assert r2.info["approvalPolicy"] == "untrusted"

    run(main(), 120)


def test_async_turn_bounds_interrupt_a_silent_turn_and_leave_a_quick_one(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            t0 = time.monotonic()
            # One delta, then 20 s of silence before each next one.
            with pytest.raises(codexclient.RequestTimeoutError) as e:
                await thread.run("MOCK_SLOW: 3 20000", timeout=120, idle_timeout=2)
            assert time.monotonic() - t0 < 15
            msg = str(e.value)
            assert "no event for 2s" in msg and "interrupted" in msg, msg
            assert "last event: " in msg and "last event: none" not in msg, msg
            # The loop stayed free while the turn was given up (a ticker kept running).
            turn = await thread.run_streamed("MOCK_SLOW: 100 500")
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.05)
                    ticks += 1

            task = asyncio.ensure_future(ticker())
            t1 = time.monotonic()
            with pytest.raises(codexclient.RequestTimeoutError, match="took longer than 3s"):
                await turn.result(timeout=3, idle_timeout=30)
            elapsed = time.monotonic() - t1
            task.cancel()
            assert 2.5 < elapsed < 12, elapsed
            assert ticks > elapsed / 0.05 * 0.5, (ticks, elapsed)
            assert turn.partial_result().status == "interrupted"
            assert turn.done
            r = await thread.run("hello", timeout=60, idle_timeout=30)
            assert r.status == "completed" and r.final_response == "Hello from the mock model."
            with pytest.raises(codexclient.InvalidArgumentError):
                await thread.run("hello", timeout=-1)

    run(main(), 120)
