"""The blocking client: :class:`Client`, :class:`Thread`, :class:`Turn`.

Every wait releases the GIL and wakes up every 100 ms to let Ctrl-C through. Server requests
outside a streamed turn, connection events and (with :meth:`Client.on_notification`)
notifications are dispatched on the client's dispatch thread, in arrival order: one
library-owned thread per client, taken from a small pool shared by all clients of the process
(so a handler that blocks holds up the other clients on that thread; ``dedicated_dispatch_thread=True``
gives a client a thread of its own); server requests of a turn being iterated are handled on
the iterating thread. The logic
is in :mod:`._base`; this module is its blocking surface.
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Type, Union, cast

from . import _native
from ._account import Login
from ._base import ClientBase, ThreadBase, ToolCallBase, TurnBase, _page, _same
from ._handlers import Event, ProgressHandler, finish, handler_failed
from ._options import with_options
from ._inputs import Input, Skills
from ._json import Params, arguments_json as _args, loads
from ._listen import Listen, listen_filter
from ._results import InitializeResult, Page, TurnResult
from ._native import CallToolResult, Completion, GetPromptResult, Progress, Prompt, Resource
from ._native import ResourceContents, ResourceTemplate, Task, Tool
from ._keywords import ClientKeywords, ThreadKeywords
from ._requests import SyncRequests

Timeout = Optional[float]


def _nothing(_: Any) -> None:
    return None


class Thread(ThreadKeywords["Thread", "Turn"], ThreadBase):
    """A conversation thread of a :class:`Client`: :meth:`run` a turn to its end,
    :meth:`run_streamed` to iterate its events (their keywords are ``turn/start``'s params,
    typed: see :mod:`codexclient._keywords`)."""

    _client: "Client"

    def _run(
        self, input: Input, skills: Skills, timeout: Timeout, idle_timeout: Timeout,
        given: Mapping[str, Any], extra: Optional[Mapping[str, Any]],
    ) -> TurnResult:
        turn = self._run_streamed(input, skills, given, extra)
        return turn.result(timeout=timeout, idle_timeout=idle_timeout)

    def _run_streamed(
        self, input: Input, skills: Skills, given: Mapping[str, Any], extra: Optional[Mapping[str, Any]]
    ) -> "Turn":
        return cast(Turn, self._client._start_turn(self.id, input, given, extra, skills))

    def read(self, *, include_turns: bool = False) -> Dict[str, Any]:
        """``thread/read`` of this thread."""
        return self._client.thread_read(self.id, include_turns=include_turns)

    def archive(self) -> None:
        """``thread/archive``."""
        return cast(None, self._helper("thread_archive"))

    def unarchive(self) -> None:
        """``thread/unarchive``."""
        return cast(None, self._helper("thread_unarchive"))

    def compact(self) -> None:
        """``thread/compact/start``."""
        return cast(None, self._helper("thread_compact"))

    def set_name(self, name: str) -> None:
        """``thread/name/set``."""
        return cast(None, self._helper("thread_set_name", name))

    def review_start(self, /, target: Mapping[str, Any], **kwargs: Any) -> Dict[str, Any]:
        """``review/start``: review changes on this thread, e.g. ``target={"type":
        "uncommittedChanges"}``; returns ``{"turn", "reviewThreadId"}`` (the review runs as a
        turn: its events arrive like any turn's). Keyword arguments are camel-cased
        (``delivery="inline"``)."""
        return cast(Dict[str, Any], self._helper("review_start", dict(target), **kwargs))


class Turn(TurnBase):
    """A running turn: ``for event in turn`` yields its events (blocking, GIL released),
    ending with ``turn/completed``.

    Server requests of the turn are passed to the client's handlers on the iterating thread
    before they are yielded. If the connection ends before the turn completed, iteration
    raises :class:`ConnectionClosedError`. Leaving a ``with turn:`` block before the turn
    completed interrupts it; just abandoning the iterator does not.
    """

    def __iter__(self) -> Iterator[Event]:
        return cast(Iterator[Event], self._native)

    def result(self, *, timeout: Timeout = None, idle_timeout: Timeout = None) -> TurnResult:
        """Read the rest of the turn and return its result. ``timeout`` bounds the whole wait
        and ``idle_timeout`` the silence between two events (seconds; ``None``: no bound).
        Past either the turn is interrupted and :class:`RequestTimeoutError` is raised, naming
        the bound and the last event seen (:meth:`partial_result` has what was gathered)."""
        return TurnResult(loads(self._native.finish(timeout, idle_timeout)))

    def interrupt(self, *, timeout: Timeout = None) -> None:
        """``turn/interrupt``: the turn then ends with status ``interrupted``."""
        self._interrupt(timeout)

    def steer(self, input: Input, *, timeout: Timeout = None) -> None:
        """``turn/steer``: add input to the running turn."""
        self._steer(input, timeout)

    def __enter__(self) -> "Turn":
        return self

    def __exit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self._leave(None)


class ToolCall(ToolCallBase):
    """An MCP tool call that reports progress (:meth:`Client.call_tool_progress`):
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
class Client(ClientKeywords[Thread], SyncRequests, ClientBase):
    """A blocking connection to ``codex app-server``, or to any MCP server.

    ``with Client(...) as client:`` spawns the server, runs the handshake and stops the server
    on exit. Takes the same options as :class:`AsyncClient`, including ``transport``
    (``"stdio"``, ``"exec"``, ``"mcp"``, ``"ws://…"``/``"wss://…"`` with ``token``,
    ``"unix"``, ``"unix://PATH"``; an unknown value raises :class:`InvalidArgumentError`, a call
    the transport cannot serve :class:`UnsupportedError`) and the MCP ones (an MCP server by
    ``command=[PROGRAM, ARG, ...]``, ``transport="mcp+stdio:PROGRAM ARG…"`` or
    ``transport="http://…/mcp"``; ``token``, ``headers``, ``mcp_roots``,
    ``mcp_capabilities``). ``for event in client:`` yields
    the notifications and connection events not routed to a turn being streamed.

    MCP authorization (OAuth 2.1, an HTTP MCP server that answers 401): ``authorize`` (a
    callable given the authorization URL that returns the URL the browser was redirected to;
    plain, run on a library thread and free to block, or ``async def``; or a
    :class:`LoopbackBrowser`), ``token_store`` (an object with ``load``/``save``/``clear``,
    see :class:`TokenStore`; else in memory, or ``oauth_token_file``) and the ``oauth_*``
    options. Authorization steps arrive as connection events of kind ``auth``.

    Handlers may be plain functions or ``async def`` (run to completion with
    :func:`asyncio.run` on the calling thread). Without a handler approvals are **declined**.
    All handlers of a client run on one library thread, in order; that thread is shared with
    other clients (a pool of two), so a handler that blocks holds up the other clients on it:
    pass ``dedicated_dispatch_thread=True`` for a client whose handlers block.

    A client garbage-collected without :meth:`close` stops its server (and emits a
    :class:`ResourceWarning`); nothing the library runs keeps it alive.
    """

    _callbacks = True
    _thread_class = Thread
    _turn_class = Turn
    _tool_call_class = ToolCall
    _login_class: Callable[..., Any] = Login

    def _call(self, start: Any, then: Any = loads) -> Any:
        return then(start(None))

    def connect(self) -> InitializeResult:
        """Spawn the server and run the ``initialize``/``initialized`` handshake.

        Bounded by ``connect_timeout``. Ctrl-C while it waits aborts the connect as
        :meth:`close` would (the server is stopped and reaped; the client can connect again at
        once) and raises ``KeyboardInterrupt``."""
        return self._connected(self._native.connect())

    def close(self) -> None:
        """Stop the server; pending calls fail with :class:`ConnectionClosedError`.
        Idempotent."""
        self._life.release(False)

    def __enter__(self) -> "Client":
        self.connect()
        return self

    def __exit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    def notify(self, method: str, params: Params = None) -> None:
        """Send a client notification."""
        self._notify(method, params)

    def thread(self, thread_id: str) -> Thread:
        """A handle on an existing (loaded) thread, without any request."""
        return Thread(self, thread_id, {})

    def thread_list(
        self, /, params: Params = None, *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``thread/list``: stored threads (``{"data": [...], "nextCursor": ...}``)."""
        return cast(Dict[str, Any], self._helper("thread_list", None, None, params, kwargs, timeout))

    def thread_read(
        self, thread_id: str, *, include_turns: bool = False, timeout: Timeout = None
    ) -> Dict[str, Any]:
        """``thread/read``: a thread's stored state (with its turns if ``include_turns``)."""
        return cast(Dict[str, Any], self._helper("thread_read", thread_id, include_turns, timeout=timeout))

    def thread_archive(self, thread_id: str, *, timeout: Timeout = None) -> None:
        """``thread/archive``."""
        return cast(None, self._helper("thread_archive", thread_id, timeout=timeout))

    def thread_unarchive(self, thread_id: str, *, timeout: Timeout = None) -> None:
        """``thread/unarchive``."""
        return cast(None, self._helper("thread_unarchive", thread_id, timeout=timeout))

    def thread_compact(self, thread_id: str, *, timeout: Timeout = None) -> None:
        """``thread/compact/start``: start compacting a thread's history."""
        return cast(None, self._helper("thread_compact", thread_id, timeout=timeout))

    def command_exec(
        self, /, command: Sequence[str], *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``command/exec``: run a command (argv list) in the server's sandbox, outside any
        thread; returns ``{"exitCode", "stdout", "stderr"}``. Keyword arguments are
        camel-cased (``cwd=``, ``timeout_ms=``, ...)."""
        return cast(Dict[str, Any], self._helper("command_exec", None, list(command), None, kwargs, timeout))

    def account_read(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``account/read``: the signed-in account, if any."""
        return cast(Dict[str, Any], self._helper("account_read", kwargs=kwargs, timeout=timeout))

    def skills_list(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``skills/list``."""
        return cast(Dict[str, Any], self._helper("skills_list", kwargs=kwargs, timeout=timeout))

    def model_list(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``model/list``."""
        return cast(Dict[str, Any], self._helper("model_list", kwargs=kwargs, timeout=timeout))

    def config_read(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``config/read``."""
        return cast(Dict[str, Any], self._helper("config_read", kwargs=kwargs, timeout=timeout))

    def config_batch_write(
        self, /, edits: Sequence[Mapping[str, Any]], *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``config/batchWrite``: write several config values at once, each edit
        ``{"keyPath": "model", "value": "gpt-5", "mergeStrategy": "replace"}``; returns
        ``{"status", "filePath", ...}``."""
        e = [dict(x) for x in edits]
        return cast(Dict[str, Any], self._helper("config_batch_write", None, e, None, kwargs, timeout))

    def review_start(
        self, /, thread_id: str, target: Mapping[str, Any], *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``review/start`` on thread ``thread_id`` (see :meth:`Thread.review_start`)."""
        t = dict(target)
        return cast(Dict[str, Any], self._helper("review_start", thread_id, t, None, kwargs, timeout))

    # -- Account ---------------------------------------------------------------------------

    def login_api_key(self, /, api_key: str) -> None:
        """Log in with an OpenAI API key (``account/login/start``, type ``apiKey``). The
        server stores it in its ``CODEX_HOME``; the library never logs it."""
        return cast(None, self._call(lambda aio: _native.login_api_key(self._native, api_key, aio), _nothing))

    def login_chatgpt(self) -> Login:
        """Start the ChatGPT browser login: show the user :attr:`Login.auth_url`, then
        :meth:`Login.wait` for the outcome (or :meth:`Login.cancel`)."""
        return cast(Login, self._call(lambda aio: _native.login_start(self._native, False, aio), lambda n: self._login_class(self, n)))

    def login_device_code(self) -> Login:
        """Start the ChatGPT device-code login (no browser on this machine): show the user
        :attr:`Login.user_code` and :attr:`Login.verification_url`, then :meth:`Login.wait`."""
        return cast(Login, self._call(lambda aio: _native.login_start(self._native, True, aio), lambda n: self._login_class(self, n)))

    def logout(self, /, *, timeout: Timeout = None) -> None:
        """``account/logout``: the server forgets the stored credentials."""
        return cast(None, self._helper("account_logout", timeout=timeout))

    def rate_limits(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``account/rateLimits/read``: the ChatGPT account's rate limits (with an API key the
        server answers with an error: :class:`RpcError`)."""
        return cast(Dict[str, Any], self._helper("account_rate_limits", kwargs=kwargs, timeout=timeout))

    def mcp_server_status_list(self, /, *, timeout: Timeout = None, **kwargs: Any) -> Dict[str, Any]:
        """``mcpServerStatus/list``: the MCP servers of Codex's config and their state
        (``{"data": [...], "nextCursor"}``)."""
        return cast(Dict[str, Any], self._helper("mcp_server_status_list", kwargs=kwargs, timeout=timeout))

    def mcp_server_oauth_login(
        self, /, name: str, *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``mcpServer/oauth/login``: start the OAuth login of the configured MCP server
        ``name`` (returns ``{"authorizationUrl"}``)."""
        return cast(Dict[str, Any], self._helper("mcp_server_oauth_login", None, name, None, kwargs, timeout))

    def feedback_upload(
        self, /, classification: str, *, timeout: Timeout = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``feedback/upload``: send feedback to OpenAI (``classification`` such as ``"bug"``;
        keyword arguments camel-cased: ``reason=``, ``include_logs=``, ``thread_id=``)."""
        return cast(Dict[str, Any], self._helper("feedback_upload", None, classification, None, kwargs, timeout))

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

    def events(self) -> Iterator[Event]:
        """A new (blocking) stream of the connection's notifications and connection events not
        routed to a turn being streamed. It ends when the connection ends."""
        return cast(Iterator[Event], self._native.events())

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def _run_coroutine(self, request: Optional[_native.ServerRequest], awaitable: Any) -> None:
        try:
            value = run_coroutine_blocking(awaitable)
        except Exception:
            handler_failed(request)
            return
        if request is not None:
            finish(request, value)


def run_coroutine_blocking(awaitable: Any) -> Any:
    """Run an awaitable to completion from synchronous code (on a new thread when this one
    runs an event loop)."""

    async def wrap() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: List[Any] = []

    def target() -> None:
        try:
            box.append(asyncio.run(wrap()))
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box.append(e)

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if box and isinstance(box[0], BaseException):
        raise box[0]
    return box[0] if box else None


__all__ = ["Client", "Thread", "Turn", "ToolCall"]
