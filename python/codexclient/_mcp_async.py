"""The asyncio MCP client: :class:`AsyncMcpClient` (the awaitable surface of
:class:`McpClient`) and :class:`AsyncToolCall`. The connection, handlers and events are the
ones every client shares (:class:`._async.AsyncClientBase`)."""

from __future__ import annotations

import asyncio
import inspect
from types import TracebackType
from typing import Any, Callable, Mapping, Optional, Type

from ._async import AsyncClientBase
from ._base import McpBase, ToolCallBase, aio
from ._handlers import ProgressHandler
from ._json import Params, arguments_json as _args
from ._mcp_sync import McpClient, refuse_codex
from ._native import CallToolResult, Progress
from ._option_keywords import McpKeywords
from ._options import with_options

Timeout = Optional[float]
_Start = Callable[[Any], Any]


class AsyncToolCall(ToolCallBase):
    """An MCP tool call that reports progress (:meth:`AsyncMcpClient.call_tool_progress`):
    ``async for update in call`` yields its :class:`Progress` updates until the answer comes;
    then ``await call.result()`` returns it::

        async with client.call_tool_progress("slow-tool", {"steps": 3}) as call:
            async for p in call:
                print(f"{p.progress}/{p.total}")
            result = await call.result()

    **Cancellation.** Cancelling a task that waits on the call (for an update or the result),
    leaving the ``async with`` block before the answer, :meth:`cancel` and dropping the call
    all cancel it: the server gets ``notifications/cancelled``.
    """

    _client: "AsyncMcpClient"

    def __aiter__(self) -> "AsyncToolCall":
        return self

    async def __anext__(self) -> Progress:
        p: Optional[Progress] = await self._wait(self._native.next_async)
        if p is None:
            raise StopAsyncIteration
        return p

    async def result(self) -> CallToolResult:
        """Wait for the answer (skipping the updates not read) and return it. Raises what the
        call failed with: :class:`RequestTimeoutError`, :class:`RpcError`,
        :class:`RequestCancelledError` after :meth:`cancel`, ..."""
        r: CallToolResult = await self._wait(self._native.result)
        return r

    async def _wait(self, start: _Start) -> Any:
        try:
            return await self._client._bridge.call(start)
        except asyncio.CancelledError:
            self.cancel()
            raise

    async def __aenter__(self) -> "AsyncToolCall":
        return self

    async def __aexit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.cancel()



@with_options
class AsyncMcpClient(McpKeywords, McpBase, AsyncClientBase):
    """A connection to any MCP server for asyncio code: the awaitable surface of
    :class:`McpClient` (the same options, methods and handlers; see there).

    ``async with AsyncMcpClient(command=[...]) as client:`` connects and runs the handshake,
    and stops the server on exit; ``async for event in client:`` yields the notifications
    and connection events. Handlers run on the loop thread (``async def`` ones in a task); an
    ``async def`` ``authorize`` is awaited on this client's loop.
    """

    _tool_call_class = AsyncToolCall

    def _check_protocol(self, mcp: bool) -> None:
        refuse_codex(type(self), mcp)

    async def request(self, method: str, params: Params = None, *, timeout: Timeout = None) -> Any:
        """Send any MCP request and return its result (see :meth:`McpClient.request`)."""
        return await self._request(method, params, timeout)

    # The requests whose sync form only returns the shared call: the same implementation,
    # awaitable (see :func:`._base.aio`).
    list_tools = aio(McpClient.list_tools)
    list_tools_page = aio(McpClient.list_tools_page)
    list_resources = aio(McpClient.list_resources)
    list_resources_page = aio(McpClient.list_resources_page)
    list_resource_templates = aio(McpClient.list_resource_templates)
    list_resource_templates_page = aio(McpClient.list_resource_templates_page)
    read_resource = aio(McpClient.read_resource)
    subscribe_resource = aio(McpClient.subscribe_resource)
    unsubscribe_resource = aio(McpClient.unsubscribe_resource)
    list_prompts = aio(McpClient.list_prompts)
    list_prompts_page = aio(McpClient.list_prompts_page)
    get_prompt = aio(McpClient.get_prompt)
    complete = aio(McpClient.complete)
    set_logging_level = aio(McpClient.set_logging_level)
    ping = aio(McpClient.ping)
    list_skills = aio(McpClient.list_skills)
    load_skill = aio(McpClient.load_skill)
    call_tool_as_task = aio(McpClient.call_tool_as_task)
    get_task = aio(McpClient.get_task)
    list_tasks = aio(McpClient.list_tasks)
    cancel_task = aio(McpClient.cancel_task)
    task_result = aio(McpClient.task_result)
    wait_task = aio(McpClient.wait_task)
    listen = aio(McpClient.listen)

    async def call_tool(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, timeout: Timeout = None,
        on_progress: Optional[ProgressHandler] = None,
    ) -> CallToolResult:
        """MCP ``tools/call``: call tool ``name`` with ``arguments`` and return its result. A
        tool that failed returns a result with ``is_error`` set; protocol errors raise
        (:class:`RpcError`, :class:`RequestTimeoutError` after ``timeout`` seconds, the call
        then cancelled on the server). Cancelling the awaiting task cancels the call on the
        server (``notifications/cancelled``). With ``on_progress`` (plain or ``async def``),
        the call asks for progress and ``on_progress(update)`` sees each :class:`Progress`
        before the result (if it raises, the call is cancelled and the exception
        propagates)."""
        if on_progress is None:
            r: CallToolResult = await self._mcp("call_tool", name, _args(arguments), timeout=timeout)
            return r
        async with self.call_tool_progress(name, arguments, timeout=timeout) as call:
            async for p in call:
                v = on_progress(p)
                if inspect.isawaitable(v):
                    await v
            return await call.result()

    def call_tool_progress(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, timeout: Timeout = None
    ) -> AsyncToolCall:
        """MCP ``tools/call`` asking for progress, sent now (not a coroutine): iterate the
        returned :class:`AsyncToolCall` for the updates, then await its
        :meth:`~AsyncToolCall.result`."""
        call: AsyncToolCall = self._start_tool_call(name, arguments, timeout)
        return call



__all__ = ["AsyncMcpClient", "AsyncToolCall"]
