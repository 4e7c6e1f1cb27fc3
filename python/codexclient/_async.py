"""The asyncio Codex client: :class:`AsyncCodexClient`, :class:`AsyncThread`,
:class:`AsyncTurn`, and the asyncio surface every client shares (:class:`AsyncClientBase`).

Rust futures run on the event loop's own thread, polled by the core's executor. The library's
runtime thread never takes the GIL: when a future can make progress the executor's descriptor,
which the loop watches (``loop.add_reader``), becomes readable and the loop thread polls it.
Cancelling an awaited call drops its Rust future (a cancelled request is forgotten; its late
answer is ignored). The client's events are drained on the loop thread when the core's event
descriptor is readable. The logic is in :mod:`._base`; this module is its awaitable surface.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import operator
import weakref
from types import TracebackType
from typing import Any, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping, Optional, Set
from typing import Type, TypeVar

from . import _native
from ._account import AsyncLogin
from ._base import ClientBase, CodexBase, ThreadBase, TurnBase, aio, aio_as
from ._handlers import Event, ProgressHandler, fail_closed, finish, handler_failed
from ._inputs import Input, Skills
from ._json import Params, arguments_json as _args, loads
from ._results import InitializeResult, TurnResult
from ._errors import NotConnectedError
from ._native import CallToolResult, Progress
from ._keywords import AsyncClientKeywords, AsyncThreadKeywords
from ._option_keywords import CodexKeywords
from ._options import with_options
from ._requests import AsyncRequests
from ._sync import CodexClient, Thread

Timeout = Optional[float]
_S = TypeVar("_S", bound="AsyncClientBase")
_Start = Callable[[Any], Any]


class _Bridge:
    """One :class:`_native.Executor` registered with one running event loop."""

    def __init__(self) -> None:
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        #: The executor (named for the tests that inspect it).
        self.driver: Optional[_native.Executor] = None

    def get(self) -> _native.Executor:
        loop = asyncio.get_running_loop()
        if self.loop is not loop or self.driver is None:
            self.close()
            d = _native.Executor()
            loop.add_reader(d.fileno(), d.run_ready)
            self.loop, self.driver = loop, d
        return self.driver

    async def call(self, start: _Start) -> Any:
        """Start a native task with a fresh future (``start((executor, future))``) and await
        it; cancelling drops the task."""
        ex = self.get()
        fut: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        task_id = start((ex, fut))
        try:
            return await fut
        except asyncio.CancelledError:
            ex.cancel(task_id)
            raise

    def close(self) -> None:
        loop, d = self.loop, self.driver
        self.loop = self.driver = None
        if d is None or loop is None:
            return
        if not loop.is_closed():
            try:
                loop.remove_reader(d.fileno())
            except Exception:  # loop shutting down
                pass
            d.close()


class _Events:
    """``async for``: events taken from a native stream in batches: ``take()`` when some are
    ready, else the batch an awaited ``wait_async`` resolves with (the wake-up carries the
    events: one native call per batch, no second ``take()``). The batch being iterated is
    the only place an event waits on this side."""

    _native: Any
    _client: "AsyncClientBase"
    #: The batch being iterated.
    _it: Iterator[Event] = iter(())

    def __aiter__(self) -> Any:
        return self

    async def __anext__(self) -> Event:
        ev = next(self._it, None)
        if ev is not None:
            return ev
        while True:
            evs = self._native.take()
            if evs is not None and not evs:
                evs = await self._client._bridge.call(self._native.wait_async)
            if evs is None:
                raise StopAsyncIteration
            if evs:
                it = self._it = iter(evs)
                return next(it)

    def _pending(self) -> int:
        """Events of the batch not yet yielded."""
        return operator.length_hint(self._it)


class AsyncEventStream(_Events):
    """``async for event in stream``: client-level events (see :meth:`AsyncClientBase.events`)."""

    def __init__(self, client: "AsyncClientBase", native: _native.EventStream) -> None:
        self._client = client
        self._native = native

    def __aiter__(self) -> "AsyncEventStream":
        return self

    def close(self) -> None:
        """Stop receiving events."""
        self._native.close()


class AsyncThread(AsyncThreadKeywords["AsyncThread", "StartingTurn"], ThreadBase):
    """A conversation thread of an :class:`AsyncCodexClient`: ``await`` :meth:`run` for a turn's
    result, :meth:`run_streamed` to iterate its events (their keywords are ``turn/start``'s
    params, typed: see :mod:`codexclient._keywords`)."""

    _client: "AsyncCodexClient"

    async def _run(
        self, input: Input, skills: Skills, timeout: Timeout, idle_timeout: Timeout,
        given: Mapping[str, Any], extra: Optional[Mapping[str, Any]],
    ) -> TurnResult:
        turn: AsyncTurn = await self._client._start_turn(self.id, input, given, extra, skills)
        return await turn.result(timeout=timeout, idle_timeout=idle_timeout)

    def _run_streamed(
        self, input: Input, skills: Skills, given: Mapping[str, Any], extra: Optional[Mapping[str, Any]]
    ) -> "StartingTurn":
        return StartingTurn(lambda: self._client._start_turn(self.id, input, given, extra, skills))

    read = aio(Thread.read)
    archive = aio(Thread.archive)
    unarchive = aio(Thread.unarchive)
    compact = aio(Thread.compact)
    set_name = aio(Thread.set_name)
    review_start = aio(Thread.review_start)


class StartingTurn:
    """What :meth:`AsyncThread.run_streamed` returns: awaitable (→ :class:`AsyncTurn`), async
    iterable (the turn's events) and an async context manager (interrupts the turn when left
    before it completed). The ``turn/start`` request is sent on first use, once."""

    def __init__(self, start: Callable[[], Awaitable["AsyncTurn"]]) -> None:
        self._start_fn = start
        self._task: Optional["asyncio.Future[AsyncTurn]"] = None

    def _start(self) -> "asyncio.Future[AsyncTurn]":
        if self._task is None:
            self._task = asyncio.ensure_future(self._start_fn())
        return self._task

    def __await__(self) -> Generator[Any, None, "AsyncTurn"]:
        return self._start().__await__()

    def __aiter__(self) -> "StartingTurn":
        return self

    async def __anext__(self) -> Event:
        turn = await self._start()
        return await turn.__anext__()

    async def __aenter__(self) -> "AsyncTurn":
        turn = await self._start()
        return await turn.__aenter__()

    async def __aexit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        task = self._task
        if task is not None and task.done() and not task.cancelled() and task.exception() is None:
            await task.result().__aexit__(et, e, tb)


class AsyncTurn(_Events, TurnBase):
    """A running turn: ``async for event in turn`` yields its events, ending with
    ``turn/completed`` (a :class:`TurnCompleted`).

    Server requests of the turn are passed to the client's handlers before they are yielded.
    If the connection ends before the turn completed, iteration raises
    :class:`ConnectionClosedError`.

    **Cancellation.** Cancelling the task that iterates (or awaits :meth:`result`) stops the
    wait and does **not** interrupt the turn: the turn keeps running, its events keep being
    collected, and iteration can be resumed. Leaving an ``async with turn:`` block before the
    turn completed (an exception, a ``break``, a cancellation) **does** interrupt it
    (``turn/interrupt`` is sent without waiting) and stops routing its events here.
    """

    def __aiter__(self) -> "AsyncTurn":
        return self

    @property
    def done(self) -> bool:
        """Whether every event of the turn has been read."""
        return not self._pending() and self._native.done

    def events(self) -> AsyncIterator[Event]:
        """The turn itself, as an async iterator."""
        return self

    async def result(self, *, timeout: Timeout = None, idle_timeout: Timeout = None) -> TurnResult:
        """Read the rest of the turn and return its result. ``timeout`` bounds the whole wait
        and ``idle_timeout`` the silence between two events (seconds; ``None``: no bound), as
        the core counts them (``TurnBounds``). Past either the turn is interrupted (without
        blocking the loop) and :class:`RequestTimeoutError` is raised, naming the bound and the
        last event seen (:meth:`partial_result` has what was gathered). Cancelling the awaiting
        task stops the wait and does not interrupt the turn."""
        if timeout is None and idle_timeout is None:
            async for _ in self:
                pass
            return self.partial_result()
        bounds = _native.TurnBounds(timeout, idle_timeout)
        bridge = self._client._bridge
        self._it = iter(())
        while True:
            evs = self._native.take()
            if evs is None:
                break
            if evs:
                continue
            got = await bridge.call(lambda aio: self._native.wait_async(aio, bounds))
            if got is None:
                break
            if got is False:
                await bridge.call(lambda aio: self._native.give_up_async(bounds, aio))
        return self.partial_result()

    async def interrupt(self) -> None:
        """``turn/interrupt``: the turn then ends with status ``interrupted``."""
        await self._interrupt(None)

    async def steer(self, input: Input) -> None:
        """``turn/steer``: add input to the running turn."""
        await self._steer(input, None)

    async def __aenter__(self) -> "AsyncTurn":
        return self

    async def __aexit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self._leave(self._client._bridge.get())


class AsyncClientBase(ClientBase):
    """The asyncio surface every client shares, whatever its protocol: connect, close, the
    ``async with`` block, notifications out, events in (:class:`AsyncCodexClient`,
    :class:`AsyncMcpClient`)."""

    def _setup(self) -> None:
        self._bridge = _Bridge()
        self._reader: Optional[asyncio.AbstractEventLoop] = None
        self._handler_tasks: Set["asyncio.Future[Any]"] = set()

    async def _call(self, start: _Start, then: Callable[[Any], Any] = loads) -> Any:
        return then(await self._bridge.call(start))

    async def connect(self) -> InitializeResult:
        """Spawn the server and run the ``initialize``/``initialized`` handshake.

        Bounded by ``connect_timeout``. Cancelling it (``task.cancel()``, the timeout of
        ``asyncio.wait_for``) aborts the connect as :meth:`close` would: the server is stopped
        and reaped without blocking the loop, and the client can connect again at once."""
        init = self._connected(await self._bridge.call(self._native.connect))
        loop = asyncio.get_running_loop()
        if self._reader is not loop:
            self._stop_reader()
            fd = self._native.event_fd()
            loop.add_reader(fd, _drain, weakref.ref(self), self._life.native, self._bridge, fd)
            self._reader = loop
        return init

    async def close(self) -> None:
        """Stop the server; pending calls fail with :class:`ConnectionClosedError`.

        Idempotent. The event loop keeps running while the server exits (which may take the
        core's exit grace, 0.5 s, for a server that ignores the end of its input): the
        disconnect completes like any other awaited call. Deferred server requests still open
        are answered fail-closed by the server's exit.
        """
        self._life.open = False
        await self._bridge.call(self._native.disconnect)
        while self._reader is not None and _drain(weakref.ref(self), self._life.native, self._bridge):
            pass  # the connection's last events (its disconnect) go to the handlers
        self._stop_reader()
        for t in list(self._handler_tasks):
            t.cancel()
        self._bridge.close()

    def _stop_reader(self) -> None:
        loop, self._reader = self._reader, None
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self._native.event_fd())

    async def __aenter__(self: _S) -> _S:
        await self.connect()
        return self

    async def __aexit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await self.close()

    async def notify(self, method: str, params: Params = None) -> None:
        """Send a client notification."""
        self._notify(method, params)

    def events(self) -> AsyncEventStream:
        """A new stream of the connection's notifications and connection events that are not
        routed to a turn being streamed. It ends when the connection ends."""
        return AsyncEventStream(self, self._native.events())

    def __aiter__(self) -> AsyncEventStream:
        return self.events()

    def _run_coroutine(self, request: Optional[_native.ServerRequest], awaitable: Any) -> None:
        task = asyncio.ensure_future(awaitable)
        self._handler_tasks.add(task)
        task.add_done_callback(self._handler_tasks.discard)
        task.add_done_callback(functools.partial(_handler_done, request))


@with_options
class AsyncCodexClient(CodexKeywords, AsyncClientKeywords[AsyncThread], AsyncRequests, CodexBase, AsyncClientBase):
    """A connection to OpenAI Codex for asyncio code: ``codex app-server`` (threads, turns,
    approvals, account and login, the app-server helpers, ``skills/list``), or Codex behind
    the ``exec`` and ``codex-mcp-server`` (``codex mcp-server``) transports. For any other MCP server use
    :class:`AsyncMcpClient`.

    ``async with AsyncCodexClient(...) as client:`` spawns the server and runs the handshake,
    and stops the server on exit. ``async for event in client:`` yields the notifications and
    connection events that are not routed to a turn being streamed.

    Options (keyword-only): listed below, from the core's option table. ``transport``
    chooses the server: an unknown value raises :class:`InvalidArgumentError` here, and
    ``token`` is never logged nor kept on the object; an option of the MCP client raises
    :class:`InvalidArgumentError` naming both; ``dedicated_dispatch_thread`` runs this
    client's handlers on a thread of its own (see :class:`codexclient.CodexClient`).

    Server requests (approvals, ...) go to the handlers registered with
    :meth:`on_command_approval` and friends; without a handler approvals are **declined**.
    Handlers run on the loop thread (``async def`` ones in a task): a sync one must not block.

    A client garbage-collected without :meth:`close` stops its server (blocking, in the
    finalizer) and emits a :class:`ResourceWarning`; nothing the library runs keeps it alive.
    """

    _thread_class = AsyncThread
    _turn_class = AsyncTurn
    _login_class = AsyncLogin


    def thread(self, thread_id: str) -> AsyncThread:
        """A handle on an existing (loaded) thread, without any request."""
        return AsyncThread(self, thread_id, {})

    # The requests whose sync form only returns the shared call: the same implementation,
    # awaitable (see :func:`._base.aio`).
    thread_resume_ref = aio_as(AsyncThread, CodexClient.thread_resume_ref)
    thread_list = aio(CodexClient.thread_list)
    thread_read = aio(CodexClient.thread_read)
    thread_archive = aio(CodexClient.thread_archive)
    thread_unarchive = aio(CodexClient.thread_unarchive)
    thread_compact = aio(CodexClient.thread_compact)
    command_exec = aio(CodexClient.command_exec)
    account_read = aio(CodexClient.account_read)
    skills_list = aio(CodexClient.skills_list)
    model_list = aio(CodexClient.model_list)
    config_read = aio(CodexClient.config_read)
    config_batch_write = aio(CodexClient.config_batch_write)
    review_start = aio(CodexClient.review_start)
    login_api_key = aio(CodexClient.login_api_key)
    login_chatgpt = aio_as(AsyncLogin, CodexClient.login_chatgpt)
    login_device_code = aio_as(AsyncLogin, CodexClient.login_device_code)
    logout = aio(CodexClient.logout)
    rate_limits = aio(CodexClient.rate_limits)
    mcp_server_status_list = aio(CodexClient.mcp_server_status_list)
    mcp_server_oauth_login = aio(CodexClient.mcp_server_oauth_login)
    feedback_upload = aio(CodexClient.feedback_upload)

def _drain(
    ref: "weakref.ref[AsyncClientBase]", native: _native.ClientHandle, bridge: _Bridge, fd: int = -1
) -> bool:
    """The loop's reader of the client's event descriptor: the core runs the handlers of the
    waiting events on the loop thread (``dispatch_events``). Returns whether any were waiting.

    It holds the client only while dispatching, so an unreferenced client is collected; its
    finalizer ends the connection, which makes the descriptor readable once more, and the
    reader then unregisters itself and the client's executor from the loop.
    """
    client = ref()
    if client is None:
        if fd >= 0:
            asyncio.get_running_loop().remove_reader(fd)
        bridge.close()
        return False
    return native.dispatch_events() > 0


def _handler_done(request: Optional[_native.ServerRequest], task: "asyncio.Future[Any]") -> None:
    """Send the answer an ``async def`` handler returned (``request``: ``None`` for event
    handlers); cancelled or failed, the request is declined."""
    if task.cancelled():
        if request is not None:
            fail_closed(request)
        return
    e = task.exception()
    if e is not None:
        handler_failed(request, e)
    elif request is not None:
        finish(request, task.result())


__all__ = [
    "AsyncClientBase",
    "AsyncCodexClient",
    "AsyncThread",
    "AsyncTurn",
    "StartingTurn",
    "AsyncEventStream",
    "NotConnectedError",
]
