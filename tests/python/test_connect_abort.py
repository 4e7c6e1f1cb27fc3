"""Abandoning a connect aborts it as ``disconnect()`` would (issue 28): an asyncio
cancellation (``wait_for``'s timeout included) and Ctrl-C in the blocking ``connect()`` stop
the handshake, stop and reap the server, and leave the client ready for a new ``connect()``.

The server is a launcher whose first start never answers ``initialize`` (the fake
app-server's ``no-init`` mode) and whose later starts are a good fake app-server."""

from __future__ import annotations

import asyncio
import os
import pathlib
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from typing import Any, Dict, List

import pytest

import codexclient
from helpers import async_wait_until, process_alive, run, wait_until


@pytest.fixture
def first_start_silent(tmp_path: pathlib.Path, fake_bin: str) -> Dict[str, Any]:
    """Client options whose first server never answers ``initialize``; ``exec`` keeps the
    pid the client reports."""
    script = tmp_path / "server.sh"
    marker = tmp_path / "started"
    script.write_text(
        "#!/bin/sh\n"
        f"if [ -e '{marker}' ]; then exec '{fake_bin}' \"$@\"; fi\n"
        f": > '{marker}'\n"
        f"exec '{fake_bin}' \"$@\" --mode no-init\n"
    )
    script.chmod(0o755)
    return dict(codex_bin=str(script), client_name="codexclient-pytest", connect_timeout=30.0)


async def _reaped_then_connect_again(client: codexclient.AsyncClient, pid: int) -> None:
    """The abandoned connect's server is reaped within 1 s; a new connect succeeds at once."""
    await async_wait_until(lambda: not process_alive(pid), 1.0, f"server {pid} reaped")
    assert not client.is_connected
    init = await client.connect()
    assert init.user_agent, init
    assert client.is_connected
    assert client.server_pid not in (None, pid)


def test_a_wait_for_timeout_aborts_the_connect(first_start_silent: Dict[str, Any]) -> None:
    async def main() -> None:
        client = codexclient.AsyncClient(**first_start_silent)
        pids: List[int] = []

        async def watch() -> None:
            while client.server_pid is None:
                await asyncio.sleep(0.005)
            pids.append(client.server_pid)

        watcher = asyncio.ensure_future(watch())
        try:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.connect(), 1.5)
            assert pids, "the server did not start within the wait_for timeout"
            await _reaped_then_connect_again(client, pids[0])
        finally:
            watcher.cancel()
            await client.close()

    run(main())


def test_cancelling_the_task_that_awaits_connect_aborts_it(first_start_silent: Dict[str, Any]) -> None:
    async def main() -> None:
        client = codexclient.AsyncClient(**first_start_silent)
        try:
            task = asyncio.ensure_future(client.connect())
            await async_wait_until(lambda: client.server_pid is not None, 10.0, "the server to start")
            pid = client.server_pid
            assert pid is not None and not task.done()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await _reaped_then_connect_again(client, pid)
        finally:
            await client.close()

    run(main())


_CTRL_C_CHILD = textwrap.dedent(
    """
    import signal, sys, threading, time
    import codexclient

    # Python's own Ctrl-C handler even when the test runs with SIGINT ignored (a test command
    # started in the background by a non-interactive shell inherits SIG_IGN, and Python then
    # installs no KeyboardInterrupt handler).
    signal.signal(signal.SIGINT, signal.default_int_handler)

    client = codexclient.Client(codex_bin=sys.argv[1], client_name="codexclient-pytest",
                                connect_timeout=30.0)

    def announce():
        while client.server_pid is None:
            time.sleep(0.005)
        print("PID", client.server_pid, flush=True)

    threading.Thread(target=announce, daemon=True).start()
    try:
        client.connect()
        print("CONNECTED", flush=True)
    except KeyboardInterrupt:
        print("INTERRUPTED", client.is_connected, flush=True)
    sys.stdin.readline()  # the parent has checked the server is reaped
    init = client.connect()
    print("SECOND", client.is_connected, client.server_pid, bool(init.user_agent), flush=True)
    client.close()
    """
)


def test_ctrl_c_in_the_blocking_connect_aborts_it(first_start_silent: Dict[str, Any]) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_CHILD, first_start_silent["codex_bin"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    lines: "queue.Queue[str]" = queue.Queue()
    out = child.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()

    def line() -> str:
        try:
            return lines.get(timeout=20).split("\n")[0]
        except queue.Empty:
            raise AssertionError("the child said nothing for 20 s") from None

    try:
        first = line()
        assert first.startswith("PID "), first
        pid = int(first.split()[1])
        os.kill(child.pid, signal.SIGINT)
        assert line() == "INTERRUPTED False"
        # The child is alive and has not exited: a reaped server was reaped by its client.
        wait_until(lambda: not process_alive(pid), 1.0, f"server {pid} reaped")
        child.stdin.write("go\n")
        child.stdin.flush()
        second = line().split()
        assert second[:2] == ["SECOND", "True"], second
        assert int(second[2]) != pid and second[3] == "True", second
        assert child.wait(timeout=20) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()

