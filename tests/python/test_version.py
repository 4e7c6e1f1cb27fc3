"""Version awareness from Python against the real Codex: the server's version and the window
(``server_version``), ``supports``, the unsupported-method error (``UnsupportedByVersionError``)
and a server outside the window (Codex 0.92.0: a WARNING and an ``outside_window`` event, never a
refusal). The ``smoke`` tests (with a streamed turn with an approval whose every event is a known
notification carrying known items, and a thread resumed on a new server) also run on each
version of ``CODEX_SMOKE`` (``scripts/test-python.sh``)."""

from __future__ import annotations

import logging
import pathlib
import typing
from typing import Any, List, Set

import pytest

import codexclient
from codexclient import AsyncClient, Client, protocol
from conftest import CODEX_VERSION
from helpers import run, wait_until

SEARCH = "thread/search/stream"


def _item_types() -> Set[str]:
    """The ``type`` of every ThreadItem variant the library knows."""
    out = set()
    for variant in typing.get_args(protocol.ThreadItem):
        hints = typing.get_type_hints(variant)
        out.update(typing.get_args(hints["type"]))
    return out


@pytest.mark.smoke
def test_smoke_server_version_supports_and_the_unsupported_error(client_kwargs: dict) -> None:
    with Client(experimental_api=True, **client_kwargs) as c:
        v = c.server_version
        assert v is not None
        assert v["version"] == CODEX_VERSION and v["position"] == "inside"
        assert v["matches"] == CODEX_VERSION and CODEX_VERSION in v["window"]
        assert c.supports("thread/start")
        assert not c.supports("no/such/method")
        if c.supports(SEARCH):
            try:
                c.request(SEARCH, {"query": "x"})
            except codexclient.UnsupportedByVersionError:  # pragma: no cover - the failure
                raise
            except codexclient.CodexError:
                pass  # the server's own answer: it got the request
        else:
            with pytest.raises(codexclient.UnsupportedByVersionError) as e:
                c.request(SEARCH, {"query": "x"})
            assert e.value.method == SEARCH and e.value.server_version == CODEX_VERSION
            assert e.value.versions and CODEX_VERSION not in e.value.versions
            assert isinstance(e.value, codexclient.UnsupportedError)
            assert SEARCH in str(e.value) and CODEX_VERSION in str(e.value)
            assert c.is_connected
    assert c.server_version is None
    with pytest.raises(codexclient.NotConnectedError):
        c.supports("thread/start")

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as ac:
            av = ac.server_version
            assert av is not None and av["version"] == CODEX_VERSION
            assert ac.supports("thread/start")
            if not ac.supports(SEARCH):
                with pytest.raises(codexclient.UnsupportedByVersionError):
                    await ac.request(SEARCH, {"query": "x"})

    run(main())


@pytest.mark.smoke
def test_smoke_streamed_turn_with_approval_every_event_known_then_resume(
    client_kwargs: dict, workdir: pathlib.Path
) -> None:
    marker = workdir / "smoke.txt"
    known_items = _item_types()
    with Client(**client_kwargs) as c:
        approvals: List[str] = []

        def approve(req: codexclient.ServerRequest) -> str:
            approvals.append(req.method)
            return "accept"

        c.on_command_approval(approve)
        thread = c.thread_start()
        turn = thread.run_streamed(f"MOCK_EXEC: touch {marker} && echo ran")
        events: List[Any] = list(turn)
        assert approvals == [codexclient.COMMAND_APPROVAL]
        assert marker.exists(), "the approved command ran"
        assert isinstance(events[-1], codexclient.TurnCompleted)
        for ev in events:
            # The stream carries the turn's notifications and its server requests.
            known = protocol.SERVER_REQUESTS if isinstance(ev, codexclient.ServerRequest) else protocol.SERVER_NOTIFICATIONS
            assert ev.method in known, f"Codex {CODEX_VERSION}: {ev.method}"
            item = ev.params.get("item")
            if isinstance(item, dict):
                assert item["type"] in known_items, f"Codex {CODEX_VERSION}: item {item['type']}"
        thread_id = thread.id
    # A new server process: the thread resumes with its history.
    with Client(**client_kwargs) as c2:
        resumed = c2.thread_resume(thread_id)
        assert resumed.id == thread_id
        assert resumed.run("MOCK_TEXT: resumed").final_response == "resumed"


def test_outside_window_server_connects_with_a_warning_and_an_event(
    client_kwargs: dict, codex_092_bin: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="codexclient")
    got: List[codexclient.ConnectionEvent] = []
    c = Client(**dict(client_kwargs, codex_bin=codex_092_bin))
    c.on_connection_event(got.append)
    try:
        c.connect()  # never refused
        wait_until(lambda: bool(got), what="the outside_window event")
        assert got[0].kind == "outside_window"
        assert got[0].server_version == "0.92.0" and got[0].position == "older"
        v = c.server_version
        assert v is not None and v["position"] == "older" and v["matches"] is None
        assert c.supports(SEARCH)  # outside the window: no refusal by version
    finally:
        c.close()
    warned = [r for r in caplog.records if "0.92.0" in r.getMessage() and "window" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
