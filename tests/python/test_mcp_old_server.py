"""MCP: an old server that exits on a method it does not know
(``testkit/sdk-servers/old_server.py``: the official Python SDK's low-level server, handshake
era only, patched to exit), with the default mode ``auto``, from the sync and asyncio clients:
the server ends on the ``server/discover`` probe, is started again once for ``initialize``
(an INFO record on the ``codexclient`` logger names the server and why) and a tool call works;
``initialize_result.mcp_prior`` given back as ``mcp_prior=`` skips the probe (the server's
method log shows no ``server/discover``); a server that dies on ``initialize`` too raises
``ConnectionClosedError`` saying both, after one restart. The same as
``core/tests/mcp_old_server.rs`` and ``tests/c/test_mcp_old_server.c``.

The SDK's Python comes from ``MCP_SDK_PYTHON``, else ``.cache/mcp-sdk-python``
(``scripts/setup-mcp.sh``); a missing one FAILS the tests. Every wait is bounded.
"""

from __future__ import annotations

import logging
import os
import pathlib
import stat
import time
from typing import Any, Dict, List

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient
from helpers import run

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "testkit" / "sdk-servers" / "old_server.py"


class Old:
    """One old server: a wrapper program of its own (so log records name it alone) and its
    method log."""

    def __init__(self, tmp: pathlib.Path, tag: str) -> None:
        py = pathlib.Path(os.environ.get("MCP_SDK_PYTHON") or ROOT / ".cache" / "mcp-sdk-python")
        if not py.exists():
            pytest.fail(f"{py} is missing: run `bash scripts/setup-mcp.sh` or set MCP_SDK_PYTHON", pytrace=False)
        self.program = tmp / f"{tag}-server"
        self.program.write_text(f"#!/bin/sh\nexec '{py}' \"$@\"\n")
        self.program.chmod(self.program.stat().st_mode | stat.S_IXUSR)
        self.log = tmp / f"{tag}-methods.log"

    def options(self, *flags: str, **kw: Any) -> Dict[str, Any]:
        argv = [str(self.program), str(SCRIPT), "--log", str(self.log), *flags]
        return {"command": argv, "connect_timeout": 90.0, "default_timeout": 30.0, **kw}

    def runs(self) -> List[List[str]]:
        """The methods each process received, in order of start."""
        out: List[List[str]] = []
        if not self.log.exists():
            return out
        for line in self.log.read_text().splitlines():
            _pid, what = line.split(" ", 1)
            if what == "start":
                out.append([])
            else:
                out[-1].append(what)
        return out


def _restart_record(caplog: pytest.LogCaptureFixture, old: Old) -> logging.LogRecord:
    """The INFO record of the restart of ``old`` (the core's log thread hands it over)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for r in caplog.records:
            m = r.getMessage()
            if str(old.program) in m and "ended during the server/discover probe" in m:
                return r
        time.sleep(0.01)
    raise AssertionError(f"no restart record naming {old.program}: {[r.getMessage() for r in caplog.records]}")


def test_auto_restarts_a_server_that_exits_on_the_probe(tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="codexclient")
    old = Old(tmp_path, "sync")
    with McpClient(**old.options()) as c:
        init = c.initialize_result
        assert init is not None
        assert init.mcp_era == "handshake", init
        assert init.protocol_version == "2025-11-25"
        assert init.server_info is not None and init.server_info["name"] == "old-server"
        assert init.mcp_prior == {"kind": "legacy"}
        assert c.call_tool("echo", {"message": "hi"}).text == "echo: hi"
    assert old.runs() == [
        ["server/discover"],
        ["initialize", "notifications/initialized", "tools/call"],
    ]
    r = _restart_record(caplog, old)
    assert r.levelno == logging.INFO
    assert "unknown method server/discover: exiting" in r.getMessage()


def test_async_client_restarts_too(tmp_path: pathlib.Path) -> None:
    old = Old(tmp_path, "async")

    async def main() -> str:
        async with AsyncMcpClient(**old.options()) as c:
            init = c.initialize_result
            assert init is not None and init.mcp_era == "handshake"
            return (await c.call_tool("echo", {"message": "hi"})).text

    assert run(main()) == "echo: hi"
    assert len(old.runs()) == 2, old.runs()


def test_the_remembered_era_skips_the_probe(tmp_path: pathlib.Path) -> None:
    old = Old(tmp_path, "prior")
    with McpClient(**old.options()) as c:
        assert c.initialize_result is not None
        prior = c.initialize_result.mcp_prior
    assert prior == {"kind": "legacy"}
    before = len(old.runs())
    with McpClient(**old.options(mcp_prior=prior)) as c:
        assert c.initialize_result is not None and c.initialize_result.mcp_prior == prior
        assert c.call_tool("echo", {"message": "again"}).text == "echo: again"
    runs = old.runs()
    assert len(runs) == before + 1, runs
    assert runs[-1] == ["initialize", "notifications/initialized", "tools/call"], "no server/discover"

    with pytest.raises(codexclient.InvalidArgumentError, match="mcp_prior"):
        McpClient(**old.options(mcp_prior="legacy"))
    with pytest.raises(codexclient.InvalidArgumentError, match="mcp_prior"):
        McpClient(**old.options(mcp_prior=prior, mcp_protocol="2026-07-28"))


def test_a_server_that_dies_on_initialize_too_fails_clearly(tmp_path: pathlib.Path) -> None:
    old = Old(tmp_path, "dies")
    c = McpClient(**old.options("--die-on-initialize"))
    t0 = time.monotonic()
    with pytest.raises(codexclient.ConnectionClosedError) as e:
        c.connect()
    assert time.monotonic() - t0 < 90, "no hang"
    assert "during the initialize handshake, after a restart" in e.value.reason, e.value
    assert "unknown method server/discover: exiting" in e.value.reason
    assert "not started again" in e.value.reason
    assert "unknown method initialize: exiting" in e.value.stderr_tail
    assert old.runs() == [["server/discover"], ["initialize"]], "exactly one restart"
    c.close()
