"""MCP 2026-07-28 subscription streams: :class:`Listen`, what ``McpClient.listen`` and
``AsyncMcpClient.listen`` return, and :func:`listen_filter`, the filter they send. The filter's
keys, their protocol names and the checks are the Rust core's; this module only gathers the
arguments and wraps the native handle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Dict, Optional, Type

from . import _native
from ._json import dumps, loads


def listen_filter(filter: Optional[Mapping[str, Any]], keywords: Mapping[str, Any]) -> str:
    """The filter as JSON text: ``filter``'s members, then the keywords given (not ``None``);
    a keyword replaces the member of the same name. The core checks the keys (the protocol's
    names or their snake_case names) and their values."""
    given: Dict[str, Any] = dict(filter) if filter is not None else {}
    for name, value in keywords.items():
        if value is not None:
            given[name] = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else value
    return dumps(given)


class Listen:
    """An open MCP subscription stream (``subscriptions/listen``, MCP 2026-07-28): the
    server acknowledged its filter (:attr:`acknowledged`), and the notifications it asked for
    (``notifications/tools/list_changed``, ``notifications/resources/updated``, ...) reach the
    client's notification handlers and :meth:`~McpClient.events` like any notification. Close it
    with :meth:`close`, or use it as a context manager (``with`` or ``async with``); it is
    also closed when garbage collected. Closing tells the server (``notifications/cancelled``)
    and leaves the connection open."""

    def __init__(self, native: _native.Listen) -> None:
        self._native = native
        self._acknowledged: Dict[str, Any] = loads(native.acknowledged_json)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<Listen {state} acknowledged={self._acknowledged!r}>"

    @property
    def acknowledged(self) -> Dict[str, Any]:
        """The filter the server acknowledged, as it sent it (the protocol's names:
        ``{"toolsListChanged": True, "resourceSubscriptions": [...]}``): the subset of the
        requested filter it honours."""
        return dict(self._acknowledged)

    @property
    def closed(self) -> bool:
        """Whether the stream was closed."""
        return self._native.closed

    def close(self) -> bool:
        """Close the stream now; whether it was still open (a second close does nothing).
        Not blocking; notifications already on their way may still arrive."""
        return self._native.close()

    def __enter__(self) -> "Listen":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    async def __aenter__(self) -> "Listen":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
