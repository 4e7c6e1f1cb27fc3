"""Small helpers shared by the tests."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Awaitable, Callable, List, TypeVar

T = TypeVar("T")


def run(coro: Awaitable[T], timeout: float = 90.0) -> T:
    """Run a coroutine with an overall bound (no test may hang)."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


def fake(fake_bin: str, *modes: str, **kw: Any) -> dict:
    """Client options for the fake app-server with the given ``--mode``s."""
    args: List[str] = []
    for m in modes:
        args += ["--mode", m]
    return dict(codex_bin=fake_bin, args=args, client_name="codexclient-pytest", **kw)


def text_of(events: Any) -> str:
    """Concatenate the agent-message deltas of a list of events."""
    return "".join(e.delta for e in events if e.method == "item/agentMessage/delta")


def wait_until(cond: Callable[[], bool], timeout: float = 5.0, what: str = "condition") -> None:
    """Poll ``cond`` (every 10 ms) until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)


async def async_wait_until(
    cond: Callable[[], bool], timeout: float = 5.0, what: str = "condition"
) -> None:
    """:func:`wait_until` for coroutines: polls ``cond`` without blocking the event loop."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still exists (a zombie counts: it has not been reaped)."""
    return os.path.exists(f"/proc/{pid}")


def thread_count() -> int:
    """OS threads of this process (Python's and the extension's native ones)."""
    return len(os.listdir("/proc/self/task"))


def native_threads(name: str) -> "set[int]":
    """Ids of this process's OS threads named ``name`` (cut to the kernel's 15 bytes)."""
    ids = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                if f.read().strip() == name[:15]:
                    ids.add(int(tid))
        except OSError:  # the thread ended meanwhile
            pass
    return ids


def fd_count() -> int:
    """Open file descriptors of this process."""
    return len(os.listdir("/proc/self/fd"))
