"""Small helpers shared by the tests."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, TypeVar

T = TypeVar("T")


def run(coro: Awaitable[T], timeout: float = 90.0) -> T:
    """Run a coroutine with an overall bound (no test may hang)."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


def text_of(events: Any) -> str:
    """Concatenate the agent-message deltas of a list of events."""
    return "".join(e.delta for e in events if e.method == "item/agentMessage/delta")
