"""The Python API against the real codex app-server (the default Codex; the ``smoke`` tests on
each CODEX_SMOKE version too) and the local mock model."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import pathlib
import threading
import time
import weakref
from typing import Any, List

import pytest

import codexclient
from codexclient import AsyncClient, Client, ServerRequest
from helpers import async_wait_until, process_alive, run, text_of, wait_until

LONG_TEXT = "The quick brown fox jumps over the lazy dog, then naps. " * 4


@pytest.mark.smoke
def test_handshake_sync_and_async(client_kwargs: dict, codex_home: pathlib.Path) -> None:
    with Client(**client_kwargs) as c:
        init = c.initialize_result
        assert init is not None and init.user_agent and "codexclient-pytest" in init.user_agent
        assert init.codex_home is not None and pathlib.Path(init.codex_home) == codex_home
        assert c.is_connected and c.server_pid
    assert not c.is_connected

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as ac:
            assert ac.initialize_result is not None
            assert ac.initialize_result.platform_os == "linux"
            cfg = await ac.config_read()
            assert cfg["config"]["model"] == "mock-model"

    run(main())


def test_streamed_turn_async_deltas_reassemble(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed(f"MOCK_TEXT: {LONG_TEXT}")
            assert turn.thread_id == thread.id and turn.turn_id
            events: List[Any] = []
            async for ev in turn:
                events.append(ev)
                assert ev.thread_id in (None, thread.id)
            deltas = [e for e in events if isinstance(e, codexclient.AgentMessageDelta)]
            assert len(deltas) > 5  # really streamed, in 4-character pieces
            assert all(d.turn_id == turn.turn_id for d in deltas)
            assert text_of(events) == LONG_TEXT.strip()
            last = events[-1]
            assert isinstance(last, codexclient.TurnCompleted)
            assert last.method == "turn/completed" and last.status == "completed"
            result = await turn.result()
            assert result.final_response == LONG_TEXT.strip()
            assert result.status == "completed" and result.completed
            assert any(i.get("type") == "agentMessage" for i in result.items)
            completed = [e for e in events if e.method == "item/completed"]
            assert completed and all(isinstance(e.item, dict) for e in completed)
            assert isinstance(completed[0].params, dict)

    run(main())


def test_streamed_turn_sync_deltas_reassemble(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        thread = c.thread_start()
        turn = thread.run_streamed(f"MOCK_TEXT: {LONG_TEXT}")
        events = list(turn)
        assert text_of(events) == LONG_TEXT.strip()
        assert isinstance(events[-1], codexclient.TurnCompleted)
        assert turn.result().final_response == LONG_TEXT.strip()
        # run(): final text, items, usage
        r = thread.run("MOCK_TEXT: second turn")
        assert r.final_response == "second turn"
        assert r.status == "completed"
        assert r.usage is not None and r.usage["total"]["totalTokens"] > 0
        assert [i["type"] for i in r.items].count("agentMessage") == 1


def _exec_prompt(marker: pathlib.Path) -> str:
    return f"MOCK_EXEC: touch {marker} && echo ran"


def test_approval_accepted_sync_handler(client_kwargs: dict, workdir: pathlib.Path) -> None:
    marker = workdir / "accepted.txt"
    seen: List[ServerRequest] = []
    with Client(**client_kwargs) as c:

        def approve(req: ServerRequest) -> str:
            seen.append(req)
            assert req.method == codexclient.COMMAND_APPROVAL
            assert str(marker) in req.params["command"]
            return "accept"

        c.on_command_approval(approve)
        r = c.thread_start().run(_exec_prompt(marker))
    assert len(seen) == 1 and not seen[0].is_open
    assert marker.exists(), "the approved command did not run"
    assert r.final_response is not None and "ran" in r.final_response
    assert any(i["type"] == "commandExecution" for i in r.items)


def test_approval_accepted_async_handler(client_kwargs: dict, workdir: pathlib.Path) -> None:
    marker = workdir / "async-accepted.txt"

    async def main() -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs, experimental_api=True) as c:

            async def approve(req: ServerRequest) -> str:
                await asyncio.sleep(0.05)
                return "accept"

            c.on_command_approval(approve)
            thread = await c.thread_start()
            return await thread.run(_exec_prompt(marker))

    r = run(main())
    assert marker.exists()
    assert r.final_response is not None and "ran" in r.final_response


def test_approval_declined_by_handler(client_kwargs: dict, workdir: pathlib.Path) -> None:
    marker = workdir / "declined.txt"

    async def main() -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs) as c:
            c.on_command_approval(lambda req: "decline")
            return await (await c.thread_start()).run(_exec_prompt(marker))

    r = run(main())
    assert not marker.exists()
    cmd = [i for i in r.items if i["type"] == "commandExecution"]
    assert cmd and cmd[0]["status"] == "declined"


def test_no_handler_declines(client_kwargs: dict, workdir: pathlib.Path) -> None:
    marker = workdir / "nohandler.txt"
    with Client(**client_kwargs) as c:
        turn = c.thread_start().run_streamed(_exec_prompt(marker))
        requests = [e for e in turn if isinstance(e, ServerRequest)]
        r = turn.result()
    assert len(requests) == 1 and not requests[0].is_open  # answered before it was yielded
    assert not marker.exists()
    assert [i["status"] for i in r.items if i["type"] == "commandExecution"] == ["declined"]


def test_raising_handler_declines_logs_and_connection_survives(
    client_kwargs: dict, workdir: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    marker = workdir / "raised.txt"
    caplog.set_level(logging.ERROR, logger="codexclient")

    async def main() -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs) as c:

            async def boom(req: ServerRequest) -> str:
                raise ValueError("handler exploded")

            c.on_command_approval(boom)
            thread = await c.thread_start()
            r = await thread.run(_exec_prompt(marker))
            # The connection keeps working.
            after = await thread.run("MOCK_TEXT: still alive")
            assert after.final_response == "still alive"
            return r

    r = run(main())
    assert not marker.exists()
    assert [i["status"] for i in r.items if i["type"] == "commandExecution"] == ["declined"]
    assert any("handler exploded" in (rec.exc_text or str(rec.exc_info)) for rec in caplog.records)

    # Same with a sync handler on the sync client.
    with Client(**client_kwargs) as c:
        def boom_sync(req: ServerRequest) -> str:
            raise RuntimeError("sync handler exploded")

        c.on_command_approval(boom_sync)
        t = c.thread_start()
        r2 = t.run(_exec_prompt(marker))
        assert [i["status"] for i in r2.items if i["type"] == "commandExecution"] == ["declined"]
        assert t.run("MOCK_TEXT: ok").final_response == "ok"
    assert not marker.exists()


def test_invalid_decision_is_declined_and_logged(
    client_kwargs: dict, workdir: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    marker = workdir / "bogus.txt"
    caplog.set_level(logging.ERROR, logger="codexclient")

    def commands(r: codexclient.TurnResult) -> List[str]:
        return [i["status"] for i in r.items if i["type"] == "commandExecution"]

    def bogus_logged() -> bool:
        return any(
            rec.name == "codexclient"
            and rec.levelno >= logging.ERROR
            and "bogus-decision" in rec.getMessage()
            and codexclient.COMMAND_APPROVAL in rec.getMessage()
            for rec in caplog.records
        )

    async def main() -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs) as c:

            async def bogus(req: ServerRequest) -> str:
                return "bogus-decision"

            c.on_command_approval(bogus)
            thread = await c.thread_start()
            r = await thread.run(_exec_prompt(marker))
            assert (await thread.run("MOCK_TEXT: still alive")).final_response == "still alive"
            return r

    r = run(main())
    assert not marker.exists()
    assert commands(r) == ["declined"]
    assert bogus_logged()

    caplog.clear()
    with Client(**client_kwargs) as c:
        c.on_command_approval(lambda req: {"decision": "bogus-decision"})
        r2 = c.thread_start().run(_exec_prompt(marker))
    assert not marker.exists()
    assert commands(r2) == ["declined"]
    assert bogus_logged()


def test_unclosed_clients_with_turns_in_cycles_are_collected(client_kwargs: dict) -> None:
    """A turn keeps its client's request handler in native code, which the cycle collector
    cannot see into: a client and a turn that refer to each other must still be collected."""
    c = Client(**client_kwargs)
    c.connect()
    turn = c.thread_start().run_streamed("MOCK_TEXT: cycle")
    c.last_turn = turn  # type: ignore[attr-defined]  # client -> turn -> client
    assert turn.result().final_response == "cycle"
    pid = c.server_pid
    assert pid is not None
    ref = weakref.ref(c)
    with pytest.warns(ResourceWarning, match="unclosed Client"):
        del c, turn
        gc.collect()
    assert ref() is None
    wait_until(lambda: not process_alive(pid), what="the server process to exit")

    async def main() -> None:
        ac = AsyncClient(**client_kwargs)
        await ac.connect()
        aturn = await (await ac.thread_start()).run_streamed("MOCK_TEXT: async cycle")
        ac.last_turn = aturn  # type: ignore[attr-defined]
        assert (await aturn.result()).final_response == "async cycle"
        apid = ac.server_pid
        assert apid is not None
        aref = weakref.ref(ac)
        with pytest.warns(ResourceWarning, match="unclosed AsyncClient"):
            del ac, aturn
            gc.collect()
        assert aref() is None
        await async_wait_until(lambda: not process_alive(apid), what="the server to exit")

    run(main())


def test_deferred_answer(client_kwargs: dict, workdir: pathlib.Path) -> None:
    marker = workdir / "deferred.txt"

    async def main() -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs) as c:
            kept: List[ServerRequest] = []
            got = asyncio.Event()

            def defer(req: ServerRequest) -> None:
                kept.append(req)  # answered later, elsewhere
                got.set()

            c.on_command_approval(defer)
            thread = await c.thread_start()
            run_task = asyncio.ensure_future(thread.run(_exec_prompt(marker)))
            await got.wait()
            await asyncio.sleep(0.3)
            assert not run_task.done() and kept[0].is_open and not marker.exists()
            # Answer from another OS thread.
            th = threading.Thread(target=kept[0].accept)
            th.start()
            th.join()
            assert not kept[0].is_open
            with pytest.raises(codexclient.AlreadyRespondedError):
                kept[0].decline()
            return await run_task

    r = run(main())
    assert marker.exists()
    assert r.final_response is not None and "ran" in r.final_response


def test_interrupt(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 100 100")
            t0 = time.monotonic()
            deltas = 0
            async for ev in turn:
                if ev.delta:
                    deltas += 1
                    if deltas == 2:
                        await turn.interrupt()
                if isinstance(ev, codexclient.TurnCompleted):
                    assert ev.status == "interrupted"
            assert time.monotonic() - t0 < 8  # 100 ticks would take 10 s
            r = await turn.result()
            assert r.status == "interrupted"

    run(main())

    with Client(**client_kwargs) as c:
        turn = c.thread_start().run_streamed("MOCK_SLOW: 100 100")
        sent = False
        for ev in turn:
            if ev.delta and not sent:
                turn.interrupt()
                sent = True
        assert turn.result().status == "interrupted"


def test_steer(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 8 100")
            async for ev in turn:
                if ev.delta:
                    await turn.steer("MOCK_TEXT: steered")
                    break
            r = await turn.result()
            assert r.status == "completed"
            # Steering a finished turn is an RPC error, not a crash.
            with pytest.raises(codexclient.RpcError):
                await turn.steer("too late")

    run(main())


def test_cancelling_iteration_does_not_interrupt(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 6 150")
            first = asyncio.Event()

            async def consume() -> None:
                async for ev in turn:
                    if ev.delta:
                        first.set()

            task = asyncio.ensure_future(consume())
            await first.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The turn went on: iterating again reaches a normal completion.
            r = await turn.result()
            assert r.status == "completed"
            assert r.final_response == "".join(f"tick {i} " for i in range(6))

    run(main())


def test_cancelling_inside_async_with_interrupts(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            events = c.events()
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 100 100")
            first = asyncio.Event()

            async def consume() -> None:
                async with turn:
                    async for ev in turn:
                        if ev.delta:
                            first.set()

            task = asyncio.ensure_future(consume())
            await first.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The rest of the turn goes to the client's events: it ends interrupted.
            async for ev in events:
                if ev.method == "turn/completed" and ev.turn_id == turn.turn_id:
                    assert ev.params["turn"]["status"] == "interrupted"
                    break

    run(main(), timeout=30)


def test_cancelled_await_is_cleaned_up(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 4 100")
            assert c._bridge.driver is not None
            before = c._bridge.driver.pending()  # the inbox task's wait
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(turn.result(), 0.05)
            assert c._bridge.driver.pending() == before  # the turn's Rust wait was dropped
            assert (await turn.result()).status == "completed"

    run(main())


def test_concurrent_turns_on_two_threads(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            a, b = await asyncio.gather(c.thread_start(), c.thread_start())
            ta, tb = await asyncio.gather(
                a.run_streamed("MOCK_SLOW: 5 50"), b.run_streamed("MOCK_TEXT: other thread")
            )

            async def collect(t: codexclient.AsyncTurn) -> List[Any]:
                return [ev async for ev in t]

            ea, eb = await asyncio.gather(collect(ta), collect(tb))
            assert all(e.thread_id in (None, a.id) for e in ea)
            assert all(e.thread_id in (None, b.id) for e in eb)
            assert text_of(ea) == "".join(f"tick {i} " for i in range(5))
            assert text_of(eb) == "other thread"

    run(main())

    # Sync client, two OS threads.
    with Client(**client_kwargs) as c:
        out: dict = {}

        def go(name: str) -> None:
            out[name] = c.thread_start().run(f"MOCK_TEXT: from {name}").final_response

        ths = [threading.Thread(target=go, args=(n,)) for n in ("x", "y")]
        for t in ths:
            t.start()
        for t in ths:
            t.join(60)
        assert out == {"x": "from x", "y": "from y"}


def test_server_crash_mid_turn_raises_connection_closed(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_SLOW: 100 100")
            with pytest.raises(codexclient.ConnectionClosedError) as ei:
                async for ev in turn:
                    if ev.delta:
                        assert c.server_pid
                        os.kill(c.server_pid, 9)
            assert isinstance(ei.value, codexclient.CodexError)
            with pytest.raises(codexclient.CodexError):
                await c.request("config/read")

    run(main())


def test_thread_family_and_rpc_errors(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            await thread.run("MOCK_TEXT: remember me")
            read = await thread.read(include_turns=True)
            assert read["thread"]["id"] == thread.id and len(read["thread"]["turns"]) == 1
            listed = await c.thread_list()
            assert thread.id in [t["id"] for t in listed["data"]]
            fork = await thread.fork()
            assert fork.id != thread.id
            await thread.set_name("named")
            await c.thread_archive(fork.id)
            with pytest.raises(codexclient.InvalidRequestError) as ei:
                await c.request("no/such/method")
            assert ei.value.code == -32600 and "unknown variant" in ei.value.message
            assert isinstance(ei.value, codexclient.RpcError)
            with pytest.raises(codexclient.InvalidParamsError) as ep:
                await thread.run("x" * 1_048_577)
            assert ep.value.code == -32602
            assert ep.value.data["input_error_code"] == "input_too_large"

    run(main())

    with Client(**client_kwargs) as c:
        t = c.thread_start()
        t.run("MOCK_TEXT: hi")
        c.close()
        with Client(**client_kwargs) as c2:
            resumed = c2.thread_resume(t.id)
            assert resumed.id == t.id
            assert resumed.run("MOCK_TEXT: again").final_response == "again"


def test_sync_client_async_handler_and_notification_callback(
    client_kwargs: dict, workdir: pathlib.Path
) -> None:
    marker = workdir / "sync-async-handler.txt"
    notes: List[str] = []
    with Client(**client_kwargs) as c:

        async def approve(req: ServerRequest) -> bool:
            await asyncio.sleep(0.01)
            return True

        c.on_command_approval(approve)
        c.on_notification(lambda n: notes.append(n.method))
        thread = c.thread_start()
        r = thread.run(_exec_prompt(marker))
        for _ in range(100):
            if "thread/started" in notes:
                break
            time.sleep(0.02)
    assert marker.exists() and r.status == "completed"
    assert "thread/started" in notes  # not routed to a turn: delivered to the callback


def test_run_streamed_is_iterable_awaitable_and_context_manager(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            events = [ev async for ev in thread.run_streamed("MOCK_TEXT: direct")]
            assert text_of(events) == "direct" and events[-1].method == "turn/completed"
            async with thread.run_streamed("MOCK_TEXT: managed") as turn:
                assert isinstance(turn, codexclient.AsyncTurn)
                assert (await turn.result()).final_response == "managed"
            starting = thread.run_streamed("MOCK_TEXT: awaited")
            turn2 = await starting
            assert turn2 is await starting  # started once
            assert (await turn2.result()).final_response == "awaited"

    run(main())


def test_sync_with_turn_exit_interrupts(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        events = c.events()
        turn = c.thread_start().run_streamed("MOCK_SLOW: 100 100")
        t0 = time.monotonic()
        with turn:
            for ev in turn:
                if ev.delta:
                    break  # leaving the block early interrupts the turn
        for ev in events:
            if ev.method == "turn/completed" and ev.turn_id == turn.turn_id:
                assert ev.params["turn"]["status"] == "interrupted"
                break
        assert time.monotonic() - t0 < 8


def test_convenience_methods(client_kwargs: dict, workdir: pathlib.Path) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            r = await c.command_exec(["sh", "-c", "echo out; echo err >&2; exit 3"], cwd=str(workdir))
            assert r["exitCode"] == 3 and r["stdout"] == "out\n" and r["stderr"] == "err\n"
            assert "data" in await c.model_list()
            assert isinstance(await c.account_read(), dict)
            assert isinstance(await c.skills_list(), dict)

    run(main())
    with Client(**client_kwargs) as c:
        assert c.command_exec(["echo", "hi"])["stdout"] == "hi\n"
        assert c.config_read()["config"]["model_provider"] == "mock"


def test_experimental_api_option(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        with pytest.raises(codexclient.InvalidRequestError) as ei:
            c.request("collaborationMode/list")
        assert "experimentalApi" in ei.value.message
    with Client(**client_kwargs, experimental_api=True) as c:
        assert isinstance(c.request("collaborationMode/list"), dict)


def test_options_opt_out_config_env(client_kwargs: dict) -> None:
    kw = dict(client_kwargs)
    with Client(
        **kw,
        opt_out_notification_methods=["item/agentMessage/delta"],
        config={"model_reasoning_effort": "low"},
        env={"CODEXCLIENT_TEST_VAR": "from-env"},
    ) as c:
        turn = c.thread_start().run_streamed("MOCK_TEXT: no deltas please")
        events = list(turn)
        assert not [e for e in events if e.method == "item/agentMessage/delta"]
        assert turn.result().final_response == "no deltas please"
        assert c.config_read()["config"]["model_reasoning_effort"] == "low"
        out = c.command_exec(["sh", "-c", "echo $CODEXCLIENT_TEST_VAR"])
        assert out["stdout"] == "from-env\n"


def test_file_change_approval(client_kwargs: dict, workdir: pathlib.Path) -> None:
    async def main(decision: str) -> codexclient.TurnResult:
        async with AsyncClient(**client_kwargs) as c:
            seen: List[str] = []

            async def decide(req: ServerRequest) -> str:
                seen.append(req.method)
                return decision

            c.on_file_change_approval(decide)
            thread = await c.thread_start(approval_policy="untrusted", cwd=str(workdir))
            r = await thread.run(f"MOCK_PATCH: {decision}.txt written by {decision}")
            assert seen == [codexclient.FILE_CHANGE_APPROVAL]
            return r

    run(main("decline"))
    assert not (workdir / "decline.txt").exists()
    r = run(main("accept"))
    assert (workdir / "accept.txt").read_text().strip() == "written by accept"
    assert any(i["type"] == "fileChange" for i in r.items)
