"""The blocking MCP client: :class:`McpClient` (any MCP server: tools, resources, prompts,
completion, logging, tasks, ``subscriptions/listen``, elicitation, sampling, roots, skills
over MCP) and :class:`ToolCall`. The connection, handlers and events are the ones every client
shares (:class:`._sync.SyncClientBase`)."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Type, Union, cast

from ._base import McpBase, ToolCallBase, _page, _same
from ._errors import InvalidArgumentError
from ._handlers import ProgressHandler
from ._json import Params, arguments_json as _args
from ._listen import Listen, listen_filter
from ._native import CallToolResult, Completion, GetPromptResult, Progress, Prompt, Resource
from ._native import ResourceContents, ResourceTemplate, Task, Tool
from ._option_keywords import McpKeywords
from ._options import with_options
from ._results import Page
from ._sync import SyncClientBase

Timeout = Optional[float]


def refuse_codex(cls: type, mcp: bool) -> None:
    """The error of an MCP client given no MCP server."""
    if not mcp:
        raise InvalidArgumentError(
            f"{cls.__name__} needs an MCP server: command=[PROGRAM, ARG, ...], "
            "transport=\"mcp+stdio:PROGRAM ARG...\" or transport=\"http(s)://.../mcp\" "
            "(for Codex use CodexClient)"
        )


class ToolCall(ToolCallBase):
    """An MCP tool call that reports progress (:meth:`McpClient.call_tool_progress`):
    ``for update in call`` yields its :class:`Progress` updates (blocking, GIL released) until
    the answer comes; then :meth:`result` returns it::

        with client.call_tool_progress("slow-tool", {"steps": 3}) as call:
            for p in call:
                print(f"{p.progress}/{p.total}")
            result = call.result()

    Leaving the ``with`` block before the answer (or :meth:`cancel`, or dropping the call)
    cancels the call: the server gets ``notifications/cancelled``.
    """

    def __iter__(self) -> Iterator[Progress]:
        return self

    def __next__(self) -> Progress:
        p = self._native.next()
        if p is None:
            raise StopIteration
        return p

    def result(self) -> CallToolResult:
        """Wait for the answer (skipping the updates not read) and return it. Raises what the
        call failed with: :class:`RequestTimeoutError`, :class:`RpcError`,
        :class:`RequestCancelledError` after :meth:`cancel`, ..."""
        return cast(CallToolResult, self._native.result())

    def __enter__(self) -> "ToolCall":
        return self

    def __exit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.cancel()



@with_options
class McpClient(McpKeywords, McpBase, SyncClientBase):
    """A blocking connection to any MCP server: an MCP server by ``command=[PROGRAM, ARG,
    ...]`` (stdio; ``env``, ``clear_env`` and ``cwd`` apply to it),
    ``transport="mcp+stdio:PROGRAM ARG…"`` or ``transport="http://…/mcp"`` (Streamable HTTP;
    ``token``, ``headers``, ``tls_ca_file``, ``tls_client_cert``, ``mcp_proxy``). Without one
    it raises :class:`InvalidArgumentError`; an option of the Codex client raises
    :class:`InvalidArgumentError` naming both.

    ``with McpClient(...) as client:`` connects (spawning the server for stdio) and runs the
    handshake; the typed requests (:meth:`list_tools`, :meth:`call_tool`,
    :meth:`read_resource`, ...), :meth:`request` for anything else; the server's requests go
    to :meth:`on_sampling`, :meth:`on_elicitation`, :meth:`on_roots` (``mcp_roots`` answers
    ``roots/list`` itself); its notifications (``notifications/resources/updated``,
    ``…/list_changed``, ``notifications/message``) come through :meth:`events` and
    :meth:`on_notification`. ``mcp_capabilities`` are the client capabilities sent in
    ``initialize`` (the requests of those with no handler are refused or declined).

    MCP authorization (OAuth 2.1, an HTTP MCP server that answers 401): ``authorize`` (a
    callable given the authorization URL that returns the URL the browser was redirected to;
    plain, run on a library thread and free to block, or ``async def``; or a
    :class:`LoopbackBrowser`), ``token_store`` (an object with ``load``/``save``/``clear``,
    see :class:`TokenStore`; else in memory, or ``oauth_token_file``) and the ``oauth_*``
    options. Authorization steps arrive as connection events of kind ``auth``.

    Handlers run as :class:`CodexClient`'s do (one library thread per client; ``async def``
    ones run to completion). A client garbage-collected without :meth:`close` stops its
    server (and emits a :class:`ResourceWarning`).
    """

    _tool_call_class = ToolCall

    def _check_protocol(self, mcp: bool) -> None:
        refuse_codex(type(self), mcp)

    def request(self, method: str, params: Params = None, *, timeout: Timeout = None) -> Any:
        """Send any MCP request and return its result as Python objects. Raises
        :class:`RequestTimeoutError` after ``timeout`` seconds (default: the client's
        ``default_timeout``), :class:`RpcError` (or a subclass) for an error answer and
        :class:`ConnectionClosedError` when the server goes away."""
        return self._request(method, params, timeout)

    # -- MCP -------------------------------------------------------------------------------

    def list_tools(self, *, timeout: Timeout = None) -> List[Tool]:
        """MCP ``tools/list``: every tool the server offers (all pages)."""
        return cast(List[Tool], self._mcp_list("list_tools", None, False, timeout))

    def list_tools_page(self, cursor: Optional[str] = None, *, timeout: Timeout = None) -> Page[Tool]:
        """MCP ``tools/list``: one page (pass its ``next_cursor`` for the next)."""
        return cast(Page[Tool], self._mcp_list("list_tools", cursor, True, timeout))

    def call_tool(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, timeout: Timeout = None,
        on_progress: Optional[ProgressHandler] = None,
    ) -> CallToolResult:
        """MCP ``tools/call``: call tool ``name`` with ``arguments`` and return its result. A
        tool that failed returns a result with ``is_error`` set; protocol errors raise
        (:class:`RpcError`, :class:`RequestTimeoutError` after ``timeout`` seconds, the call
        then cancelled on the server). With ``on_progress``, the call asks for progress and
        ``on_progress(update)`` sees each :class:`Progress` on this thread before the result
        (if it raises, the call is cancelled and the exception propagates)."""
        if on_progress is None:
            r: CallToolResult = self._mcp("call_tool", name, _args(arguments), timeout=timeout)
            return r
        with self.call_tool_progress(name, arguments, timeout=timeout) as call:
            for p in call:
                on_progress(p)
            return call.result()

    def call_tool_progress(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, timeout: Timeout = None
    ) -> ToolCall:
        """MCP ``tools/call`` asking for progress, sent now: iterate the returned
        :class:`ToolCall` for the updates, then take its :meth:`~ToolCall.result`."""
        return cast(ToolCall, self._start_tool_call(name, arguments, timeout))

    def list_resources(self, *, timeout: Timeout = None) -> List[Resource]:
        """MCP ``resources/list``: every resource (all pages)."""
        return cast(List[Resource], self._mcp_list("list_resources", None, False, timeout))

    def list_resources_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = None
    ) -> Page[Resource]:
        """MCP ``resources/list``: one page."""
        return cast(Page[Resource], self._mcp_list("list_resources", cursor, True, timeout))

    def list_resource_templates(self, *, timeout: Timeout = None) -> List[ResourceTemplate]:
        """MCP ``resources/templates/list``: every resource template (all pages)."""
        return cast(List[ResourceTemplate], self._mcp_list("list_resource_templates", None, False, timeout))

    def list_resource_templates_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = None
    ) -> Page[ResourceTemplate]:
        """MCP ``resources/templates/list``: one page."""
        return cast(Page[ResourceTemplate], self._mcp_list("list_resource_templates", cursor, True, timeout))

    def read_resource(self, uri: str, *, timeout: Timeout = None) -> List[ResourceContents]:
        """MCP ``resources/read``: the contents of resource ``uri`` (text or base64 blob)."""
        return cast(List[ResourceContents], self._mcp("read_resource", uri, timeout=timeout))

    def subscribe_resource(self, uri: str, *, timeout: Timeout = None) -> None:
        """MCP ``resources/subscribe``: the server then sends
        ``notifications/resources/updated`` for ``uri`` (see :meth:`on_notification`,
        :meth:`events`)."""
        return cast(None, self._mcp("subscribe_resource", uri, timeout=timeout))

    def unsubscribe_resource(self, uri: str, *, timeout: Timeout = None) -> None:
        """MCP ``resources/unsubscribe``."""
        return cast(None, self._mcp("unsubscribe_resource", uri, timeout=timeout))

    def list_prompts(self, *, timeout: Timeout = None) -> List[Prompt]:
        """MCP ``prompts/list``: every prompt (all pages)."""
        return cast(List[Prompt], self._mcp_list("list_prompts", None, False, timeout))

    def list_prompts_page(self, cursor: Optional[str] = None, *, timeout: Timeout = None) -> Page[Prompt]:
        """MCP ``prompts/list``: one page."""
        return cast(Page[Prompt], self._mcp_list("list_prompts", cursor, True, timeout))

    def get_prompt(
        self, name: str, arguments: Optional[Mapping[str, str]] = None, *, timeout: Timeout = None
    ) -> GetPromptResult:
        """MCP ``prompts/get``: prompt ``name`` filled in with ``arguments`` (strings)."""
        return cast(GetPromptResult, self._mcp("get_prompt", name, _args(arguments), timeout=timeout))

    def complete(
        self, argument: str, value: str = "", *, prompt: Optional[str] = None,
        resource: Optional[str] = None, timeout: Timeout = None,
    ) -> Completion:
        """MCP ``completion/complete``: suggested values for ``argument`` starting from
        ``value``, of prompt ``prompt`` or of resource template ``resource`` (a URI
        template; give exactly one)."""
        return cast(Completion, self._complete(argument, value, prompt, resource, timeout))

    def set_logging_level(self, level: str, *, timeout: Timeout = None) -> None:
        """MCP ``logging/setLevel`` (``debug``, ``info``, ``notice``, ``warning``, ``error``,
        ``critical``, ``alert``, ``emergency``): the server's log records at or above it
        arrive as ``notifications/message`` notifications and are logged on the
        ``codexclient.server`` logger."""
        return cast(None, self._mcp("set_logging_level", level, timeout=timeout))

    def ping(self, *, timeout: Timeout = None) -> None:
        """MCP ``ping``: raises unless the server answers."""
        return cast(None, self._mcp("ping", timeout=timeout))

    def list_skills(self) -> List[Dict[str, Any]]:
        """MCP ``skills/list`` (the skills extension, SEP-2640): every skill entry the server
        lists (all pages), each ``{"uri", "frontmatter", "resources"}`` as the server sent it.
        Reads no skill file. Raises :class:`UnsupportedError` when the server does not
        declare the extension."""
        return cast(List[Dict[str, Any]], self._skills_list())

    def load_skill(self, skill: str) -> Dict[str, Any]:
        """Load the skill ``skill`` (its name in ``list_skills``, or the URI of its
        ``SKILL.md``): its entry, then its ``SKILL.md`` checked against it (limits, size,
        SHA-256 digest, YAML frontmatter field by field); no other file is read. Returns
        ``{"entry", "text", "body"}``. A failed check raises :class:`ProtocolError` naming
        the URI and what differed; an unknown or ambiguous name :class:`InvalidArgumentError`
        listing the server's skills."""
        return cast(Dict[str, Any], self._skill_load(skill))

    def listen(
        self,
        filter: Optional[Mapping[str, Any]] = None,
        *,
        tools_list_changed: Optional[bool] = None,
        prompts_list_changed: Optional[bool] = None,
        resources_list_changed: Optional[bool] = None,
        resource_subscriptions: Optional[Sequence[str]] = None,
        timeout: Timeout = None,
    ) -> Listen:
        """MCP 2026-07-28 ``subscriptions/listen``: open a subscription stream and return it
        once the server acknowledged it (within ``timeout`` seconds, default: the client's
        ``default_timeout``). Say what to receive with the keywords, or with ``filter`` (a
        mapping by the protocol's names, ``{"toolsListChanged": True}``, or by the keywords'
        names; a keyword given replaces the same member): ``tools_list_changed``,
        ``prompts_list_changed``, ``resources_list_changed`` (booleans) and
        ``resource_subscriptions`` (the URIs whose ``notifications/resources/updated`` to
        receive). The notifications arrive like any other (``on_notification``,
        :meth:`events`). Use the returned :class:`Listen` as a context manager, or
        :meth:`Listen.close` it::

            with client.listen(tools_list_changed=True) as sub:
                print(sub.acknowledged)   # {'toolsListChanged': True}

        Raises :class:`UnsupportedError` in the handshake era (MCP 2025-11-25 and older,
        where :meth:`subscribe_resource` and the list-changed notifications serve),
        :class:`InvalidArgumentError` for an unknown key or a wrong value (the message
        names it), :class:`RequestTimeoutError` without an acknowledgment."""
        keywords = {
            "tools_list_changed": tools_list_changed,
            "prompts_list_changed": prompts_list_changed,
            "resources_list_changed": resources_list_changed,
            "resource_subscriptions": resource_subscriptions,
        }
        text = listen_filter(filter, keywords)
        start = lambda aio: self._native.listen(text, timeout, aio)  # noqa: E731
        return cast(Listen, self._call(start, Listen))

    # -- MCP tasks (2025-11-25) --------------------------------------------------------------

    def call_tool_as_task(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, ttl: Optional[float] = None,
    ) -> Union[Task, CallToolResult]:
        """MCP ``tools/call`` as a task: answered at once with the :class:`Task` the server
        runs in the background (kept ``ttl`` seconds after its creation when given), or with
        the :class:`CallToolResult` when the server runs the call plainly. Then
        :meth:`wait_task`, :meth:`task_result`, :meth:`cancel_task`."""
        ms = None if ttl is None else str(int(ttl * 1000))
        return cast(Union[Task, CallToolResult], self._mcp("call_tool_as_task", name, _args(arguments), ms))

    def get_task(self, task_id: str) -> Task:
        """MCP ``tasks/get``: the task's state now."""
        return cast(Task, self._mcp("get_task", task_id))

    def list_tasks(self, cursor: Optional[str] = None) -> Page[Task]:
        """MCP ``tasks/list``: one page of the tasks the server keeps for this client."""
        return cast(Page[Task], self._mcp("list_tasks", cursor, then=_page))

    def cancel_task(self, task_id: str) -> Task:
        """MCP ``tasks/cancel``: the task's state after the cancellation (a task that already
        ended cannot be cancelled: :class:`RpcError`)."""
        return cast(Task, self._mcp("cancel_task", task_id))

    def task_result(self, task_id: str) -> Dict[str, Any]:
        """MCP ``tasks/result``: the result of the task's request as the request would have
        been answered (a ``tools/call`` result as a dict); the server answers once the task
        ended, so this waits that long (bounded by the default timeout)."""
        return cast(Dict[str, Any], self._mcp("task_result", task_id))

    def wait_task(self, task_id: str, within: float) -> Task:
        """Poll ``tasks/get`` at the server's suggested interval until the task ends or waits
        for input: its :class:`Task`; :class:`RequestTimeoutError` after ``within`` seconds."""
        return cast(Task, self._call(lambda aio: self._native.wait_task(task_id, within, aio), _same))


__all__ = ["McpClient", "ToolCall"]
