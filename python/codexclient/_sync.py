"""The blocking Codex client: :class:`CodexClient`, :class:`Thread`, :class:`Turn`, and the
blocking surface every client shares (:class:`SyncClientBase`).

Every wait releases the GIL and wakes up every 100 ms to let Ctrl-C through. Server requests
outside a streamed turn, connection events and (with ``on_notification``)
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
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Type, TypeVar, cast

from . import _native
from ._account import Login
from ._base import ClientBase, CodexBase, ThreadBase, TurnBase
from ._handlers import Event, finish, handler_failed
from ._options import with_options
from ._inputs import Input, Skills
from ._json import Params, loads
from ._results import InitializeResult, TurnResult
from ._keywords import ClientKeywords, ThreadKeywords
from ._option_keywords import CodexKeywords
from ._requests import SyncRequests

Timeout = Optional[float]
_S = TypeVar("_S", bound="SyncClientBase")


def _nothing(_: Any) -> None:
    return None


class Thread(ThreadKeywords["Thread", "Turn"], ThreadBase):
    """A conversation thread of a :class:`CodexClient`: :meth:`run` a turn to its end,
    :meth:`run_streamed` to iterate its events (their keywords are ``turn/start``'s params,
    typed: see :mod:`codexclient._keywords`)."""

    _client: "CodexClient"

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


class SyncClientBase(ClientBase):
    """The blocking surface every client shares, whatever its protocol: connect, close, the
    ``with`` block, notifications out, events in (:class:`CodexClient`, :class:`McpClient`)."""

    _callbacks = True

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

    def __enter__(self: _S) -> _S:
        self.connect()
        return self

    def __exit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    def notify(self, method: str, params: Params = None) -> None:
        """Send a client notification."""
        self._notify(method, params)

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


@with_options
class CodexClient(CodexKeywords, ClientKeywords[Thread], SyncRequests, CodexBase, SyncClientBase):
    """A blocking connection to OpenAI Codex: ``codex app-server`` (threads, turns, approvals,
    account and login, the app-server helpers, ``skills/list``), or Codex behind the ``exec``
    and ``codex-mcp-server`` (``codex mcp-server``) transports. For any other MCP server use
    :class:`McpClient`.

    ``with CodexClient(...) as client:`` spawns the server, runs the handshake and stops the
    server on exit. Takes the same options as :class:`AsyncCodexClient`, including
    ``transport`` (``"stdio"``, ``"exec"``, ``"codex-mcp-server"``, ``"ws://…"``/``"wss://…"`` with
    ``token``, ``"unix"``, ``"unix://PATH"``; an unknown value raises
    :class:`InvalidArgumentError`, a call the transport cannot serve
    :class:`UnsupportedError`; an option of the MCP client raises
    :class:`InvalidArgumentError` naming both). ``for event in client:`` yields the
    notifications and connection events not routed to a turn being streamed.

    Handlers may be plain functions or ``async def`` (run to completion with
    :func:`asyncio.run` on the calling thread). Without a handler approvals are **declined**.
    All handlers of a client run on one library thread, in order; that thread is shared with
    other clients (a pool of two), so a handler that blocks holds up the other clients on it:
    pass ``dedicated_dispatch_thread=True`` for a client whose handlers block.

    A client garbage-collected without :meth:`close` stops its server (and emits a
    :class:`ResourceWarning`); nothing the library runs keeps it alive.
    """

    _thread_class = Thread
    _turn_class = Turn
    _login_class: Callable[..., Any] = Login

    def thread(self, thread_id: str) -> Thread:
        """A handle on an existing (loaded) thread, without any request."""
        return Thread(self, thread_id, {})

    def thread_resume_ref(
        self, ref: _native.ThreadRef, /, params: Params = None, *, timeout: Timeout = None
    ) -> Thread:
        """``thread/resume`` of the thread a :class:`ThreadRef` names (``thread.reference()``,
        pickled and sent from another process, say), with the params it was opened with and
        ``params`` (``thread/resume`` params by wire name, e.g. ``{"model": ...}``) on top.
        Any server of the thread's ``CODEX_HOME`` can resume it."""
        return cast(Thread, self._resume_ref(ref, params, timeout))

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


__all__ = ["CodexClient", "SyncClientBase", "Thread", "Turn"]
