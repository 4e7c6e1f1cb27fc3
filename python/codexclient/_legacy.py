"""The names users have: :class:`Client` and :class:`AsyncClient`, the Codex clients
(subclasses of :class:`CodexClient` and :class:`AsyncCodexClient`). They have no MCP method
(issue 42: no client carries the other protocol's methods; the deprecated MCP aliases they had
were removed before 0.2.0 shipped, see CHANGELOG.md): use :class:`McpClient` /
:class:`AsyncMcpClient`. Made with options naming an MCP server they still connect to it, with
a :class:`DeprecationWarning` pointing at :class:`McpClient`."""

from __future__ import annotations

import warnings

from ._async import AsyncCodexClient
from ._option_keywords import AllKeywords
from ._options import with_options
from ._sync import CodexClient


def warn_mcp(cls: type, mcp: bool) -> None:
    """The :class:`DeprecationWarning` of a Codex client made for an MCP server."""
    if mcp:
        new = "AsyncMcpClient" if cls.__name__.startswith("Async") else "McpClient"
        warnings.warn(
            f"{cls.__name__}(...) for an MCP server is deprecated: use {new}(...), which takes "
            "the same keywords",
            DeprecationWarning,
            stacklevel=5,  # warn_mcp <- _check_protocol <- _start <- __init__ <- the caller
        )


@with_options
class Client(AllKeywords, CodexClient):
    """The blocking Codex client (a :class:`CodexClient`), under its old name. It has no MCP
    method: those are :class:`McpClient`'s. Deprecated on it: making it for an MCP server
    (``command=``, ``transport="mcp+stdio…"``/``"http(s)://…"``: it connects, with a
    :class:`DeprecationWarning`); use :class:`McpClient` for MCP servers."""

    def _check_protocol(self, mcp: bool) -> None:
        warn_mcp(type(self), mcp)


@with_options
class AsyncClient(AllKeywords, AsyncCodexClient):
    """The asyncio Codex client (an :class:`AsyncCodexClient`), under its old name. It has no
    MCP method: those are :class:`AsyncMcpClient`'s. Deprecated on it: making it for an MCP
    server (it connects, with a :class:`DeprecationWarning`); use :class:`AsyncMcpClient` for MCP
    servers."""

    def _check_protocol(self, mcp: bool) -> None:
        warn_mcp(type(self), mcp)


__all__ = ["Client", "AsyncClient"]
