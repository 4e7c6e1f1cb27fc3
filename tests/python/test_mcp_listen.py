"""MCP 2026-07-28 subscription streams from Python (``McpClient.listen`` / ``AsyncMcpClient.listen``)
against the servers written with the official SDKs (``testkit/sdk-servers``: Python ``mcp``
2.3.0 and TypeScript ``@modelcontextprotocol/server`` 2.4.0) over stdio: in the stateless era
the filter is acknowledged (by keywords, by a mapping of the protocol's names, or both), the
returned :class:`codexclient.Listen` is a context manager (``with`` and ``async with``) and
closes; the connection goes on afterwards; a refused filter is ``InvalidArgumentError`` before
anything is sent; in the handshake era ``listen`` raises ``UnsupportedError``.

The servers come from ``MCP_SDK_PYTHON`` / ``MCP_NODE`` / ``MCP_MODULES`` (else the ``.cache``
links of ``scripts/setup-mcp.sh``); a missing one FAILS with that instruction.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient, Listen
from codexclient import _native
from helpers import run
from test_mcp_sdk import WAIT, _command

SDKS = ["python", "typescript"]
FILTER = {"toolsListChanged": True, "resourceSubscriptions": ["demo://greeting"]}


def _options(sdk: str, mode: str) -> Dict[str, Any]:
    argv, env = _command(sdk, "stdio")
    return {"command": argv, "env": env, "mcp_protocol": mode, "default_timeout": WAIT}


def test_the_keywords_are_the_cores_filter_keys() -> None:
    """The keyword-only parameters of ``listen`` (but ``timeout``) are the core's names."""
    for f in (McpClient.listen, AsyncMcpClient.listen):
        kw = [p.name for p in inspect.signature(f).parameters.values() if p.kind is p.KEYWORD_ONLY]
        assert kw == [*_native.LISTEN_FILTER_KEYS, "timeout"], (f, kw)


@pytest.mark.parametrize("sdk", SDKS)
def test_sync(sdk: str) -> None:
    with McpClient(**_options(sdk, "auto")) as c:
        assert c.initialize_result is not None and c.initialize_result.mcp_era == "stateless"
        with c.listen(tools_list_changed=True, resource_subscriptions=("demo://greeting",)) as sub:
            assert isinstance(sub, Listen) and not sub.closed
            assert sub.acknowledged["toolsListChanged"] is True, sub
            # A second stream beside it, by the protocol's names and with a bound.
            other = c.listen(FILTER, prompts_list_changed=None, timeout=WAIT)
            assert other.acknowledged["toolsListChanged"] is True
            assert other.close() is True and other.closed
            assert other.close() is False
        assert sub.closed and "closed" in repr(sub)
        # Refused before anything is sent, naming what is wrong.
        with pytest.raises(codexclient.InvalidArgumentError, match="tools_list_changed"):
            c.listen({"tools": True})
        with pytest.raises(codexclient.InvalidArgumentError, match="boolean"):
            not_a_bool: Any = "yes"
            c.listen(tools_list_changed=not_a_bool)
        with pytest.raises(codexclient.InvalidArgumentError, match="list of URI strings"):
            c.listen(resource_subscriptions="demo://greeting")
        with pytest.raises(codexclient.InvalidArgumentError, match="timeout"):
            c.listen(tools_list_changed=True, timeout=0)
        # The connection goes on after the streams closed.
        assert c.call_tool("add", {"a": 1, "b": 0.5}).structured_content == {"sum": 1.5}

    with McpClient(**_options(sdk, "legacy")) as c:
        with pytest.raises(codexclient.UnsupportedError, match="2026-07-28"):
            c.listen(tools_list_changed=True)
        c.ping()


@pytest.mark.parametrize("sdk", SDKS)
def test_async(sdk: str) -> None:
    async def main() -> None:
        async with AsyncMcpClient(**_options(sdk, "auto")) as c:
            async with await c.listen({"tools_list_changed": True}) as sub:
                assert sub.acknowledged["toolsListChanged"] is True, sub
                assert not sub.closed
            assert sub.closed
            with pytest.raises(codexclient.InvalidArgumentError, match="same key"):
                await c.listen({"toolsListChanged": True, "tools_list_changed": True})
            r = await c.call_tool("add", {"a": 2, "b": 0.5})
            assert r.structured_content == {"sum": 2.5}

        async with AsyncMcpClient(**_options(sdk, "legacy")) as c:
            with pytest.raises(codexclient.UnsupportedError, match="2026-07-28"):
                await c.listen(tools_list_changed=True)
            await c.ping()

    run(main())
