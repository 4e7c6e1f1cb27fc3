"""The names users have: :class:`Client` and :class:`AsyncClient`, the Codex clients
(subclasses of :class:`CodexClient` and :class:`AsyncCodexClient`) that also still carry the
MCP methods of :class:`McpClient` / :class:`AsyncMcpClient` as deprecated aliases: each warns
(:class:`DeprecationWarning`, naming its replacement) and forwards. Made with options naming
an MCP server they still connect to it, with a :class:`DeprecationWarning` pointing at
:class:`McpClient`. To be removed in the next minor version (see CHANGELOG.md)."""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ._async import AsyncCodexClient
from ._mcp_async import AsyncMcpClient, AsyncToolCall
from ._mcp_sync import McpClient, ToolCall
from ._option_keywords import AllKeywords
from ._options import with_options
from ._sync import CodexClient

if TYPE_CHECKING:
    # ParamSpec is new in Python 3.10.
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")

R = TypeVar("R")


def moved(f: Callable[Concatenate[Any, _P], R], owner: str) -> Callable[Concatenate[Any, _P], R]:
    """``f`` (a method of the MCP client class ``owner``) as a deprecated alias on a Codex
    client: it warns, naming ``owner.name()``, then forwards (the result is ``f``'s: an
    awaitable for the asyncio classes)."""
    name = f.__name__

    @functools.wraps(f)
    def alias(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> R:
        warnings.warn(
            f"{type(self).__name__}.{name}() is deprecated: use {owner}.{name}() "
            f"(the MCP methods moved to {owner})",
            DeprecationWarning,
            stacklevel=2,
        )
        return f(self, *args, **kwargs)

    return alias


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
    """The blocking Codex client (a :class:`CodexClient`). Deprecated on it: the MCP methods
    (now :class:`McpClient`'s; each alias warns and forwards) and making it for an MCP server
    (``command=``, ``transport="mcp+stdio…"``/``"http(s)://…"``: it connects, with a
    :class:`DeprecationWarning`); use :class:`McpClient` for MCP servers."""

    _tool_call_class = ToolCall

    def _check_protocol(self, mcp: bool) -> None:
        warn_mcp(type(self), mcp)

    list_tools = moved(McpClient.list_tools, "McpClient")
    list_tools_page = moved(McpClient.list_tools_page, "McpClient")
    call_tool = moved(McpClient.call_tool, "McpClient")
    call_tool_progress = moved(McpClient.call_tool_progress, "McpClient")
    list_resources = moved(McpClient.list_resources, "McpClient")
    list_resources_page = moved(McpClient.list_resources_page, "McpClient")
    list_resource_templates = moved(McpClient.list_resource_templates, "McpClient")
    list_resource_templates_page = moved(McpClient.list_resource_templates_page, "McpClient")
    read_resource = moved(McpClient.read_resource, "McpClient")
    subscribe_resource = moved(McpClient.subscribe_resource, "McpClient")
    unsubscribe_resource = moved(McpClient.unsubscribe_resource, "McpClient")
    list_prompts = moved(McpClient.list_prompts, "McpClient")
    list_prompts_page = moved(McpClient.list_prompts_page, "McpClient")
    get_prompt = moved(McpClient.get_prompt, "McpClient")
    complete = moved(McpClient.complete, "McpClient")
    set_logging_level = moved(McpClient.set_logging_level, "McpClient")
    ping = moved(McpClient.ping, "McpClient")
    list_skills = moved(McpClient.list_skills, "McpClient")
    load_skill = moved(McpClient.load_skill, "McpClient")
    listen = moved(McpClient.listen, "McpClient")
    call_tool_as_task = moved(McpClient.call_tool_as_task, "McpClient")
    get_task = moved(McpClient.get_task, "McpClient")
    list_tasks = moved(McpClient.list_tasks, "McpClient")
    cancel_task = moved(McpClient.cancel_task, "McpClient")
    task_result = moved(McpClient.task_result, "McpClient")
    wait_task = moved(McpClient.wait_task, "McpClient")
    on_sampling = moved(McpClient.on_sampling, "McpClient")
    on_roots = moved(McpClient.on_roots, "McpClient")


@with_options
class AsyncClient(AllKeywords, AsyncCodexClient):
    """The asyncio Codex client (an :class:`AsyncCodexClient`). Deprecated on it: the MCP
    methods (now :class:`AsyncMcpClient`'s; each alias warns when called and forwards) and
    making it for an MCP server (it connects, with a :class:`DeprecationWarning`); use
    :class:`AsyncMcpClient` for MCP servers."""

    _tool_call_class = AsyncToolCall

    def _check_protocol(self, mcp: bool) -> None:
        warn_mcp(type(self), mcp)

    list_tools = moved(AsyncMcpClient.list_tools, "AsyncMcpClient")
    list_tools_page = moved(AsyncMcpClient.list_tools_page, "AsyncMcpClient")
    call_tool = moved(AsyncMcpClient.call_tool, "AsyncMcpClient")
    call_tool_progress = moved(AsyncMcpClient.call_tool_progress, "AsyncMcpClient")
    list_resources = moved(AsyncMcpClient.list_resources, "AsyncMcpClient")
    list_resources_page = moved(AsyncMcpClient.list_resources_page, "AsyncMcpClient")
    list_resource_templates = moved(AsyncMcpClient.list_resource_templates, "AsyncMcpClient")
    list_resource_templates_page = moved(AsyncMcpClient.list_resource_templates_page, "AsyncMcpClient")
    read_resource = moved(AsyncMcpClient.read_resource, "AsyncMcpClient")
    subscribe_resource = moved(AsyncMcpClient.subscribe_resource, "AsyncMcpClient")
    unsubscribe_resource = moved(AsyncMcpClient.unsubscribe_resource, "AsyncMcpClient")
    list_prompts = moved(AsyncMcpClient.list_prompts, "AsyncMcpClient")
    list_prompts_page = moved(AsyncMcpClient.list_prompts_page, "AsyncMcpClient")
    get_prompt = moved(AsyncMcpClient.get_prompt, "AsyncMcpClient")
    complete = moved(AsyncMcpClient.complete, "AsyncMcpClient")
    set_logging_level = moved(AsyncMcpClient.set_logging_level, "AsyncMcpClient")
    ping = moved(AsyncMcpClient.ping, "AsyncMcpClient")
    list_skills = moved(AsyncMcpClient.list_skills, "AsyncMcpClient")
    load_skill = moved(AsyncMcpClient.load_skill, "AsyncMcpClient")
    listen = moved(AsyncMcpClient.listen, "AsyncMcpClient")
    call_tool_as_task = moved(AsyncMcpClient.call_tool_as_task, "AsyncMcpClient")
    get_task = moved(AsyncMcpClient.get_task, "AsyncMcpClient")
    list_tasks = moved(AsyncMcpClient.list_tasks, "AsyncMcpClient")
    cancel_task = moved(AsyncMcpClient.cancel_task, "AsyncMcpClient")
    task_result = moved(AsyncMcpClient.task_result, "AsyncMcpClient")
    wait_task = moved(AsyncMcpClient.wait_task, "AsyncMcpClient")
    on_sampling = moved(AsyncMcpClient.on_sampling, "AsyncMcpClient")
    on_roots = moved(AsyncMcpClient.on_roots, "AsyncMcpClient")


__all__ = ["Client", "AsyncClient"]
