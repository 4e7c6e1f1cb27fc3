"""Reconnect (``reconnect=``): a request in flight when the server dies raises
ConnectionLostError (a ConnectionClosedError, retryable), ``reconnecting`` and ``reconnected``
connection events arrive, the next request works; ``close()`` never reconnects. Against the
real Codex: a killed app-server is spawned again and the thread resumed; a later turn on the
same thread completes. Option errors are clear."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, List

import pytest

import codexclient
from codexclient import AsyncClient, Client
from helpers import async_wait_until, fake, run, wait_until

QUICK = {"max_attempts": 5, "base": 0.02, "cap": 0.2}


def test_in_flight_request_raises_connection_lost_and_the_client_reconnects(fake_bin: str) -> None:
    seen: List[Any] = []
    with Client(**fake(fake_bin, "hang", "die", reconnect=QUICK)) as c:
        c.on_connection_event(seen.append)
        first_pid = c.server_pid
        errors: List[BaseException] = []

        def hang() -> None:
            try:
                c.request("test/hang")
            except BaseException as e:  # noqa: BLE001 - recorded for the assertion
                errors.append(e)

        t = threading.Thread(target=hang)
        t.start()
        wait_until(lambda: "test/hang" in c.stderr_tail, what="the fake server got test/hang")
        with pytest.raises(codexclient.ConnectionLostError) as ei:
            c.request("test/die")
        assert isinstance(ei.value, codexclient.ConnectionClosedError)
        assert ei.value.retryable and ei.value.reason
        t.join(10)
        assert len(errors) == 1 and isinstance(errors[0], codexclient.ConnectionLostError)
        # A request made while reconnecting waits for the rejoin, then goes through.
        assert c.request("echo/me", {"x": 1}) == {"method": "echo/me", "params": {"x": 1}}
        wait_until(lambda: any(e.kind == "reconnected" for e in seen), what="reconnected")
        kinds = [e.kind for e in seen]
        assert kinds.index("reconnecting") < kinds.index("reconnected")
        r = next(e for e in seen if e.kind == "reconnecting")
        assert r.attempt == 1 and r.max_attempts == 5 and r.delay is not None and r.cause
        done = next(e for e in seen if e.kind == "reconnected")
        assert done.requests_failed == 2 and done.threads == [] and done.turns_ended == []
        assert c.is_connected and not c.is_reconnecting
        assert c.server_pid != first_pid
        before_close = len(seen)
    # close() never reconnects.
    assert not any(e.kind == "reconnecting" for e in seen[before_close:])


def test_async_in_flight_request_raises_connection_lost(fake_bin: str) -> None:
    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "die", reconnect=True)) as c:
            seen: List[Any] = []
            c.on_connection_event(seen.append)
            with pytest.raises(codexclient.ConnectionLostError):
                await c.request("test/die")
            assert (await c.request("a/b"))["method"] == "a/b"
            await async_wait_until(lambda: any(e.kind == "reconnected" for e in seen))

    run(main())


def test_without_reconnect_the_connection_ends(fake_bin: str) -> None:
    with Client(**fake(fake_bin, "die")) as c:
        with pytest.raises(codexclient.ConnectionClosedError) as ei:
            c.request("test/die")
        assert not isinstance(ei.value, codexclient.ConnectionLostError)


def test_option_errors(fake_bin: str) -> None:
    with pytest.raises(codexclient.InvalidArgumentError, match="unknown entry"):
        Client(**fake(fake_bin, reconnect={"attempts": 3}))
    with pytest.raises(codexclient.InvalidArgumentError):
        Client(**fake(fake_bin, heartbeat="often"))
    with pytest.raises(codexclient.InvalidArgumentError, match=r"\[cert_path, key_path\]"):
        Client(**fake(fake_bin, tls_client_cert="cert.pem"))  # type: ignore[arg-type]
    Client(**fake(fake_bin, heartbeat=False, reconnect=False, tls_ca_file="ca.pem"))


def test_killed_app_server_is_respawned_and_the_thread_goes_on(client_kwargs: dict) -> None:
    seen: List[Any] = []
    with Client(**client_kwargs, reconnect=QUICK) as c:
        c.on_connection_event(seen.append)
        thread = c.thread_start()
        assert thread.run("MOCK_TEXT: before").final_response == "before"
        os.kill(c.server_pid, signal.SIGKILL)
        wait_until(lambda: any(e.kind == "reconnected" for e in seen), timeout=30, what="reconnected")
        done = next(e for e in seen if e.kind == "reconnected")
        assert done.threads == [thread.id]
        assert thread.run("MOCK_TEXT: after").final_response == "after"
