"""Fault injection against the fake app-server: timeouts, a dying server, overload, unknown
methods, a 10 MiB line, garbage lines; and the GIL being released while Rust waits."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import List

import pytest

import codexclient
from codexclient import AsyncClient, Client
from helpers import async_wait_until, fake, run, wait_until


def test_timeout_is_not_connection_closed(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "hang", default_timeout=0.3)) as c:
        t0 = time.monotonic()
        with pytest.raises(codexclient.RequestTimeoutError) as ei:
            c.request("test/hang")
        assert 0.25 < time.monotonic() - t0 < 3
        assert ei.value.method == "test/hang" and ei.value.timeout == pytest.approx(0.3)
        assert isinstance(ei.value, TimeoutError) and isinstance(ei.value, codexclient.CodexError)
        assert not isinstance(ei.value, codexclient.ConnectionClosedError)
        # Per-request override, and the connection still works.
        with pytest.raises(codexclient.RequestTimeoutError):
            c.request("test/hang", timeout=0.1)
        assert c.request("some/method", {"a": 1}) == {"method": "some/method", "params": {"a": 1}}

    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "hang")) as ac:
            with pytest.raises(codexclient.RequestTimeoutError):
                await ac.request("test/hang", timeout=0.2)
            assert (await ac.request("x/y"))["method"] == "x/y"
            # Cancelling an awaited request drops its Rust future; the connection goes on.
            assert ac._bridge.driver is not None
            before = ac._bridge.driver.pending()  # the inbox task's wait
            task = asyncio.ensure_future(ac.request("test/hang"))
            driver = ac._bridge.driver
            await async_wait_until(
                lambda: driver.pending() == before + 1, what="the request's native task"
            )
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert ac._bridge.driver.pending() == before
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(ac.request("test/hang"), 0.2)
            assert ac._bridge.driver.pending() == before
            assert (await ac.request("x/z"))["method"] == "x/z"

    run(main())


def test_dying_server_fails_pending_with_stderr_tail(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "die", "hang")) as c:
        errors: List[BaseException] = []

        def hang() -> None:
            try:
                c.request("test/hang")
            except BaseException as e:  # noqa: BLE001
                errors.append(e)

        th = threading.Thread(target=hang)
        th.start()
        # The fake server reports on stderr when test/hang reached it.
        wait_until(lambda: "hanging on test/hang" in c.stderr_tail, what="test/hang to be sent")
        assert th.is_alive() and not errors
        t0 = time.monotonic()
        with pytest.raises(codexclient.ConnectionClosedError) as ei:
            c.request("test/die")
        th.join(5)
        assert time.monotonic() - t0 < 3
        assert "fatal: fake server dying on purpose" in ei.value.stderr_tail
        assert len(errors) == 1 and isinstance(errors[0], codexclient.ConnectionClosedError)
        assert not c.is_connected
        with pytest.raises(codexclient.CodexError):
            c.request("x")

    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "die")) as ac:
            events = ac.events()
            with pytest.raises(codexclient.ConnectionClosedError) as ei:
                await ac.request("test/die")
            assert "dying on purpose" in ei.value.stderr_tail
            kinds = [ev.kind async for ev in events if isinstance(ev, codexclient.ConnectionEvent)]
            assert kinds[-1] == "disconnected"

    run(main())


def test_not_connected_and_overload(fake_bin: str) -> None:
    c = Client(**fake(fake_bin, "overload", retry_max_attempts=2, retry_base=0.01))
    with pytest.raises(codexclient.NotConnectedError):
        c.request("x")
    with c:
        assert c.request("test/overload", {"failures": 1}) == {"attempts": 2}
        with pytest.raises(codexclient.OverloadedError) as ei:
            c.request("test/overload", {"failures": 5})
        assert ei.value.code == -32001 and ei.value.attempts == 2
        assert isinstance(ei.value, codexclient.RpcError)
        with pytest.raises(codexclient.InvalidArgumentError):
            c.request("x", timeout=-1)


def test_reply_spin_option(fake_bin: str) -> None:
    """Blocking requests get their answers with the spin off, at its default and at its cap,
    and again after many answers (the adaptive spin backs off only when answers are slow)."""
    for spin in (0, None, 0.01):
        kwargs = {} if spin is None else {"reply_spin": spin}
        with Client(**fake(fake_bin, **kwargs)) as c:
            for i in range(50):
                assert c.request("echo/me", {"i": i}) == {"method": "echo/me", "params": {"i": i}}
    with pytest.raises(codexclient.InvalidArgumentError, match="reply_spin"):
        Client(**fake(fake_bin, reply_spin=-1))
    with pytest.raises(codexclient.InvalidArgumentError, match="from 0 to 0.01"):
        Client(**fake(fake_bin, reply_spin=0.5))


def test_unknown_notification_and_request_arrive_intact(fake_bin: str) -> None:
    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "unknown")) as ac:
            seen: List[codexclient.ServerRequest] = []
            ac.on_server_request("brand/newRequest", lambda r: seen.append(r) or {"ok": 1})
            events = ac.events()
            await ac.request("test/unknown")
            async for ev in events:
                if ev.method == "brand/newThing":
                    assert type(ev) is codexclient.Notification
                    assert ev.params == {"threadId": "thr_fake_1", "futureField": {"a": [1, 2]}}
                    assert ev.thread_id == "thr_fake_1" and ev.delta is None
                    assert '"futureField"' in ev.params_json
                    break
            await async_wait_until(lambda: bool(seen), what="the server request")
            assert seen[0].method == "brand/newRequest" and seen[0].params == {"x": 1}
            answers = (await ac.request("test/lastAnswers"))["answers"]
            assert answers[-1]["result"] == {"ok": 1}

    run(main())

    # Without a handler an unknown server request is refused with an error, never a success.
    with Client(**fake(fake_bin, "unknown", "approval")) as c:
        c.request("test/unknown")
        c.request("test/approval", {"method": codexclient.COMMAND_APPROVAL})
        wait_until(
            lambda: len(c.request("test/lastAnswers")["answers"]) >= 2, what="both answers"
        )
        answers = c.request("test/lastAnswers")["answers"]
        assert "error" in answers[0]
        assert answers[1]["result"] == {"decision": "decline"}


def test_approval_decisions_are_validated(
    fake_bin: str, caplog: pytest.LogCaptureFixture
) -> None:
    """What a handler returns for an approval is checked against the method's decision type:
    valid decisions (strings and object forms) go out unchanged, anything else is logged as
    an error and declined."""
    caplog.set_level(logging.ERROR, logger="codexclient")
    amend = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["echo", "hi"]}}
    network = {
        "applyNetworkPolicyAmendment": {
            "network_policy_amendment": {"host": "example.com", "action": "allow"}
        }
    }
    cases = [
        # (method, handler's return value, decision the server must get)
        (codexclient.COMMAND_APPROVAL, "acceptForSession", "acceptForSession"),
        (codexclient.COMMAND_APPROVAL, True, "accept"),
        (codexclient.COMMAND_APPROVAL, amend, amend),
        (codexclient.COMMAND_APPROVAL, {"decision": network}, network),
        (codexclient.COMMAND_APPROVAL, "bogus-decision", "decline"),
        (codexclient.COMMAND_APPROVAL, {"acceptWithExecpolicyAmendment": {}}, "decline"),
        (codexclient.COMMAND_APPROVAL, {"decision": 7}, "decline"),
        (codexclient.COMMAND_APPROVAL, {"verdict": "accept"}, "decline"),
        (codexclient.FILE_CHANGE_APPROVAL, "cancel", "cancel"),
        (codexclient.FILE_CHANGE_APPROVAL, amend, "decline"),
        (codexclient.FILE_CHANGE_APPROVAL, "approved", "decline"),
        ("execCommandApproval", "approved_for_session", "approved_for_session"),
        ("execCommandApproval", {"denied": {"rejection": "no"}}, {"denied": {"rejection": "no"}}),
        ("execCommandApproval", "accept", "denied"),
        ("applyPatchApproval", False, "denied"),
    ]
    with Client(**fake(fake_bin, "approval")) as c:
        for n, (method, value, expected) in enumerate(cases, 1):
            c.on_server_request(method, lambda req, v=value: v)
            c.request("test/approval", {"method": method})
            wait_until(
                lambda: len(c.request("test/lastAnswers")["answers"]) >= n,
                what=f"the answer to {method} {value!r}",
            )
            got = c.request("test/lastAnswers")["answers"][-1]
            assert got.get("result") == {"decision": expected}, (method, value, got)
    invalid = [r.getMessage() for r in caplog.records if "invalid" in r.getMessage()]
    assert len(invalid) == 7, invalid
    assert any("bogus-decision" in m and codexclient.COMMAND_APPROVAL in m for m in invalid)


def test_ten_mib_line(fake_bin: str) -> None:
    n = 10 * 1024 * 1024
    with Client(**fake(fake_bin, "bigline")) as c:
        events = c.events()
        assert c.request("test/bigline", {"bytes": n}) == {"len": n}
        for ev in events:
            if ev.method == "test/big":
                assert len(ev.params["data"]) == n
                break


def test_garbage_lines_are_reported_and_connection_goes_on(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "garbage")) as c:
        got: List[codexclient.ConnectionEvent] = []
        c.on_connection_event(got.append)
        assert c.request("test/garbage") == {"ok": True}
        wait_until(lambda: bool(got), what="the connection event")
        assert got[0].kind == "error"


# Params whose Python form must be exactly the standard `json.loads` form: integers past 64
# bits, exponents, -0.0, escapes and surrogate pairs, duplicate keys, deep nesting.
RAW_PARAMS = [
    '{"big":123456789012345678901234567890,"neg":-9223372036854775809,"u64":18446744073709551615}',
    '{"f":0.1,"g":1e-7,"h":1E2,"i":-0.0,"j":-0,"k":1.7976931348623157e308,"l":5e-324,"m":1e19}',
    '{"s":"a\\"b\\\\c\\n\\u00e9\\ud83d\\ude00 \u00fc","t":true,"n":null,"e":"","a":[],"o":{}}',
    '{"a":1,"a":2,"nested":' + "[" * 100 + "1" + "]" * 100 + "}",
    '{"x":2.5,"y":[1,2.0,"3",[4,{"5":6}]],"huge":1e400}',
]


def test_params_read_exactly_like_json_loads(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "garbage")) as c:
        events = c.events()
        for raw in RAW_PARAMS:
            c.request("test/emitRaw", {"line": '{"method":"test/raw","params":' + raw + "}"})
            ev = next(e for e in events if e.method == "test/raw")
            expected = json.loads(raw)
            # dumps tells 1 from 1.0 and -0.0 from 0.0, which == does not.
            assert json.dumps(ev.params) == json.dumps(expected), raw
            assert ev.params_json == raw


def test_gil_released_while_rust_waits(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "slow")) as c:
        done = threading.Event()
        ticks = 0

        def wait() -> None:
            c.request("test/slow", {"ms": 500})
            done.set()

        th = threading.Thread(target=wait)
        th.start()
        while not done.is_set():
            ticks += 1  # pure-Python work that needs the GIL
            time.sleep(0)
        th.join()
        assert ticks > 1000

    # asyncio: the loop keeps running while a request waits.
    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "slow")) as ac:
            beats = 0

            async def heartbeat() -> None:
                nonlocal beats
                while True:
                    beats += 1
                    await asyncio.sleep(0.01)

            hb = asyncio.ensure_future(heartbeat())
            await ac.request("test/slow", {"ms": 400})
            hb.cancel()
            assert beats > 5

    run(main())


def test_core_logs_reach_python_logging(fake_bin: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="codexclient")
    with Client(codex_bin=fake_bin, args=["--stderr-lines", "3"]) as c:
        c.request("x/y")
        wait_until(
            lambda: any("fake stderr line 2" in r.getMessage() for r in caplog.records),
            what="the server's stderr line in the log",
        )
    server = [r for r in caplog.records if r.name == "codexclient.server"]
    assert any("fake stderr line 2" in r.getMessage() for r in server)


def test_no_fd_thread_or_task_leaks(fake_bin: str) -> None:
    import os

    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    def warm() -> None:
        with Client(**fake(fake_bin)) as c:
            c.request("x")

    async def round_trip() -> None:
        async with AsyncClient(**fake(fake_bin)) as ac:
            for _ in range(20):
                await ac.request("x")
            # No request task is left behind; at most the event pump's own wait is pending
            # (0 while it is between two batches).
            assert ac._bridge.driver is not None and ac._bridge.driver.pending() <= 1

    def native_threads() -> int:
        return len(os.listdir("/proc/self/task"))

    warm()
    run(round_trip())
    base_fds, base_threads = fds(), threading.active_count()
    base_native = native_threads()
    for _ in range(5):
        warm()
        run(round_trip())
    # Whatever the last client started winds down (bounded wait, then the real assertions).
    wait_until(
        lambda: fds() <= base_fds + 2 and threading.active_count() <= base_threads + 1,
        what="descriptors and threads back to the baseline",
    )
    assert fds() <= base_fds + 2
    assert threading.active_count() <= base_threads + 1
    # The library's threads are shared by all clients and started once: the 10 clients above
    # added none (what Python itself runs may have ended meanwhile).
    assert native_threads() <= base_native
