"""MCP 2025-11-25 client surface from Python, against a server written with the official Python
SDK (``testkit/sdk-servers/surface.py``, ``mcp`` 2.3.0; ``MCP_SDK_PYTHON`` or the
``.cache/mcp-sdk-python`` link of ``scripts/setup-mcp.sh``; a missing one FAILS the tests):
a tool result that breaks its ``outputSchema`` raises :class:`OutputSchemaError` naming the JSON
path (not with ``mcp_validate_output=False``), -32042 raises
:class:`UrlElicitationRequiredError` with the elicitations, and the retry after the
out-of-band step succeeds; the sync and asyncio clients alike.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, Dict

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient
from helpers import run

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _surface(**extra: Any) -> Dict[str, Any]:
    py = pathlib.Path(os.environ.get("MCP_SDK_PYTHON") or ROOT / ".cache" / "mcp-sdk-python")
    if not py.exists():
        pytest.fail(
            f"{py} is missing: run `bash scripts/setup-mcp.sh` (installs the Python MCP SDK 2.3.0) "
            "or set MCP_SDK_PYTHON",
            pytrace=False,
        )
    script = ROOT / "testkit" / "sdk-servers" / "surface.py"
    return dict(command=[str(py), str(script), "stdio"], mcp_protocol="legacy", default_timeout=30.0, **extra)


def test_output_schema_and_url_elicitation_errors_are_typed() -> None:
    with McpClient(**_surface()) as c:
        tools = {t.name: t for t in c.list_tools()}
        assert "shaped" in tools
        assert tools["linked"].icons[0]["mimeType"] == "image/png"
        assert tools["add"].icons == []
        links = c.call_tool("linked").resource_links
        assert [(l["uri"], l["name"]) for l in links] == [("demo://greeting", "greeting")]
        assert c.call_tool("shaped", {"mode": "good"}).structured_content == {"items": [{"n": 1}]}
        with pytest.raises(codexclient.OutputSchemaError) as bad:
            c.call_tool("shaped", {"mode": "bad"})
        assert (bad.value.tool, bad.value.path) == ("shaped", "/items/1/n")
        assert "integer" in bad.value.reason
        assert bad.value.result["structuredContent"]["items"][1]["n"] == "two"
        assert isinstance(bad.value, codexclient.ProtocolError)

        with pytest.raises(codexclient.UrlElicitationRequiredError) as need:
            c.call_tool("connect")
        assert need.value.code == -32042
        assert [e["elicitationId"] for e in need.value.elicitations] == ["connect-1"]
        assert need.value.elicitations[0]["url"] == "https://127.0.0.1:9/connect?session=1"
        assert isinstance(need.value, codexclient.RpcError)
        assert c.call_tool("finish_connect").text == "finished"
        assert c.call_tool("connect").text == "connected"


def test_the_check_can_be_turned_off_and_async_raises_alike() -> None:
    with McpClient(**_surface(mcp_validate_output=False, mcp_progress_resets_timeout=False)) as c:
        c.list_tools()
        assert c.call_tool("shaped", {"mode": "bad"}).structured_content["items"][1]["n"] == "two"

    async def main() -> None:
        async with AsyncMcpClient(**_surface(mcp_sampling_tools=True)) as c:
            await c.list_tools()
            with pytest.raises(codexclient.OutputSchemaError) as bad:
                await c.call_tool("shaped", {"mode": "none"})
            assert bad.value.path == ""

    run(main())


def test_proxy_option_is_checked_by_the_core() -> None:
    with pytest.raises(codexclient.InvalidArgumentError, match="mcp_proxy"):
        McpClient(transport="http://127.0.0.1:9/mcp", mcp_proxy="socks5://127.0.0.1:1")
    McpClient(transport="http://127.0.0.1:9/mcp", mcp_proxy="none").close()
