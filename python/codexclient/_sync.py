"""The blocking client: :class:`Client`, :class:`Thread`, :class:`Turn`.

Every wait releases the GIL and wakes up every 100 ms to let Ctrl-C through. Server requests
outside a streamed turn, connection events and (with :meth:`Client.on_notification`)
notifications are dispatched on the core's dispatch thread (one per connection), in arrival
order; server requests of a turn being iterated are handled on the iterating thread.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence, Type, Union

from . import _native
from ._common import (
    Event,
    Handlers,
    InitializeResult,
    Input,
    TurnResult,
    build_params,
    dumps,
    input_items,
    loads,
    logger,
    native_handler,
    native_options,
    params_json,
    run_coroutine_blocking,
    start_log_forwarding,
    thread_id_of,
    fail_closed,
    finish,
    track_client,
    weak_handler,
)


class Client(Handlers):
    """A blocking connection to ``codex app-server``.

    ``with Client(...) as client:`` spawns the server, runs the handshake and stops the server
    on exit. Takes the same options as :class:`AsyncClient`, including ``transport``
    (``"stdio"`` by default, ``"exec"``, ``"mcp"``, ``"ws://…"``/``"wss://…"`` with ``token``,
    ``"unix"``, ``"unix://PATH"``; an unknown value raises :class:`InvalidArgumentError`, a call
    the transport cannot serve :class:`UnsupportedError`). ``for event in client:`` yields
    the notifications and connection events not routed to a turn being streamed.

    Handlers may be plain functions or ``async def`` (run to completion with
    :func:`asyncio.run` on the calling thread). Without a handler approvals are **declined**.

    A client garbage-collected without :meth:`close` stops its server (and emits a
    :class:`ResourceWarning`); nothing the library runs keeps it alive.
    """

    def __init__(
        self,
        *,
        codex_bin: Optional[Union[str, "os.PathLike[str]"]] = None,
        args: Sequence[str] = (),
        config: Optional[Mapping[str, Any]] = None,
        env: Optional[Mapping[str, str]] = None,
        clear_env: bool = False,
        cwd: Optional[Union[str, "os.PathLike[str]"]] = None,
        codex_home: Optional[Union[str, "os.PathLike[str]"]] = None,
        client_name: Optional[str] = None,
        client_title: Optional[str] = None,
        client_version: Optional[str] = None,
        experimental_api: bool = False,
        opt_out_notification_methods: Sequence[str] = (),
        default_timeout: Optional[float] = None,
        retry_max_attempts: Optional[int] = None,
        retry_base: Optional[float] = None,
        retry_cap: Optional[float] = None,
        event_queue_capacity: Optional[int] = None,
        max_line_bytes: Optional[int] = None,
        connect_timeout: Optional[float] = None,
        read_ahead_bytes: Optional[int] = None,
        transport: Optional[str] = None,
        token: Optional[str] = None,
    ) -> None:
        super().__init__()
        start_log_forwarding()
        self._native = _native.NativeClient(
            **native_options(
                codex_bin=codex_bin,
                args=args,
                config=config,
                env=env,
                clear_env=clear_env,
                cwd=cwd,
                codex_home=codex_home,
                client_name=client_name,
                client_title=client_title,
                client_version=client_version,
                experimental_api=experimental_api,
                opt_out_notification_methods=opt_out_notification_methods,
                default_timeout=default_timeout,
                retry_max_attempts=retry_max_attempts,
                retry_base=retry_base,
                retry_cap=retry_cap,
                event_queue_capacity=event_queue_capacity,
                max_line_bytes=max_line_bytes,
                connect_timeout=connect_timeout,
                read_ahead_bytes=read_ahead_bytes,
            ),
            transport=transport,
            token=token,
            callbacks=True,
        )
        self._native.set_event_handler(weak_handler(self._dispatch))
        self._init: Optional[InitializeResult] = None
        self._life = track_client(self, self._native)

    # -- connection ------------------------------------------------------------------------

    def connect(self) -> InitializeResult:
        """Spawn the server and run the ``initialize``/``initialized`` handshake."""
        self._init = InitializeResult(loads(self._native.connect()))
        self._life.open = True
        return self._init

    def close(self) -> None:
        """Stop the server; pending calls fail with :class:`ConnectionClosedError`.
        Idempotent."""
        self._life.release(False)

    def __enter__(self) -> "Client":
        self.connect()
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    @property
    def is_connected(self) -> bool:
        """Whether the handshake is done and the server alive."""
        return self._native.is_connected

    @property
    def initialize_result(self) -> Optional[InitializeResult]:
        """What the server answered to ``initialize`` (``None`` before :meth:`connect`)."""
        return self._init

    @property
    def stderr_tail(self) -> str:
        """The last output the server wrote to stderr."""
        return self._native.stderr_tail

    @property
    def server_pid(self) -> Optional[int]:
        """Process id of the running server."""
        return self._native.server_pid

    # -- generic requests --------------------------------------------------------------------

    def request(
        self,
        method: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
    ) -> Any:
        """Send any v2 request and wait (GIL released) for its result, as Python objects.

        Raises :class:`RequestTimeoutError`, :class:`RpcError` (or a subclass) or
        :class:`ConnectionClosedError`.
        """
        return loads(self._native.request(method, params_json(params), timeout))

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """Send a client notification."""
        self._native.notify(method, params_json(params))

    # -- threads -----------------------------------------------------------------------------

    def thread(self, thread_id: str) -> "Thread":
        """A handle on an existing (loaded) thread, without any request."""
        return Thread(self, thread_id, {})

    def thread_start(
        self,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        **kwargs: Any,
    ) -> "Thread":
        """``thread/start``: a new thread. Keyword arguments are camel-cased into params."""
        r = self.request("thread/start", build_params(params, kwargs), timeout=timeout)
        return Thread(self, thread_id_of(r), r)

    def thread_resume(
        self,
        thread_id: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        **kwargs: Any,
    ) -> "Thread":
        """``thread/resume``: load a stored thread."""
        p = build_params(params, kwargs)
        p["threadId"] = thread_id
        r = self.request("thread/resume", p, timeout=timeout)
        return Thread(self, thread_id_of(r), r)

    def thread_fork(
        self,
        thread_id: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        **kwargs: Any,
    ) -> "Thread":
        """``thread/fork``: a new thread with a copy of ``thread_id``'s history."""
        p = build_params(params, kwargs)
        p["threadId"] = thread_id
        r = self.request("thread/fork", p, timeout=timeout)
        return Thread(self, thread_id_of(r), r)

    def thread_list(
        self,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        **kwargs: Any,
    ) -> Dict[str, Any]:
        """``thread/list``: stored threads (``{"data": [...], "nextCursor": ...}``)."""
        r: Dict[str, Any] = self.request(
            "thread/list", build_params(params, kwargs), timeout=timeout
        )
        return r

    def thread_read(
        self, thread_id: str, *, include_turns: bool = False, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """``thread/read``: a thread's stored state (with its turns if ``include_turns``)."""
        r: Dict[str, Any] = self.request(
            "thread/read", {"threadId": thread_id, "includeTurns": include_turns}, timeout=timeout
        )
        return r

    def thread_archive(self, thread_id: str, *, timeout: Optional[float] = None) -> None:
        """``thread/archive``."""
        self.request("thread/archive", {"threadId": thread_id}, timeout=timeout)

    def thread_unarchive(self, thread_id: str, *, timeout: Optional[float] = None) -> None:
        """``thread/unarchive``."""
        self.request("thread/unarchive", {"threadId": thread_id}, timeout=timeout)

    def thread_compact(self, thread_id: str, *, timeout: Optional[float] = None) -> None:
        """``thread/compact/start``: start compacting a thread's history."""
        self.request("thread/compact/start", {"threadId": thread_id}, timeout=timeout)

    def command_exec(
        self, command: Sequence[str], *, timeout: Optional[float] = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``command/exec``: run a command (argv list) in the server's sandbox, outside any
        thread; returns ``{"exitCode", "stdout", "stderr"}``. Keyword arguments are
        camel-cased (``cwd=``, ``timeout_ms=``, ...)."""
        p = build_params(None, kwargs)
        p["command"] = list(command)
        r: Dict[str, Any] = self.request("command/exec", p, timeout=timeout)
        return r

    def account_read(
        self, *, timeout: Optional[float] = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``account/read``: the signed-in account, if any."""
        r: Dict[str, Any] = self.request(
            "account/read", build_params(None, kwargs), timeout=timeout
        )
        return r

    def skills_list(
        self, *, timeout: Optional[float] = None, **kwargs: Any
    ) -> Dict[str, Any]:
        """``skills/list``."""
        r: Dict[str, Any] = self.request(
            "skills/list", build_params(None, kwargs), timeout=timeout
        )
        return r

    def model_list(self, *, timeout: Optional[float] = None, **kwargs: Any) -> Dict[str, Any]:
        """``model/list``."""
        r: Dict[str, Any] = self.request("model/list", build_params(None, kwargs), timeout=timeout)
        return r

    def config_read(self, *, timeout: Optional[float] = None, **kwargs: Any) -> Dict[str, Any]:
        """``config/read``."""
        r: Dict[str, Any] = self.request(
            "config/read", build_params(None, kwargs), timeout=timeout
        )
        return r

    def _start_turn(self, thread_id: str, input: Input, overrides: Dict[str, Any]) -> "Turn":
        params = dict(overrides)
        params["input"] = input_items(input)
        nt = self._native.start_turn(thread_id, dumps(params), native_handler(self))
        return Turn(self, nt)

    # -- events ------------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """A new (blocking) stream of the connection's notifications and connection events not
        routed to a turn being streamed. It ends when the connection ends."""
        stream: Iterator[Event] = self._native.events()
        return stream

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def _want_notifications(self, on: bool) -> None:
        self._native.set_want_notifications(on)

    def _run_coroutine(self, request: Optional[_native.ServerRequest], awaitable: Any) -> None:
        try:
            value = run_coroutine_blocking(awaitable)
        except Exception:
            if request is None:
                logger.exception("event handler raised")
                return
            logger.exception("handler for server request %s raised; declining", request.method)
            fail_closed(request)
            return
        if request is not None:
            finish(request, value)


class Thread:
    """A conversation thread of a :class:`Client`."""

    def __init__(self, client: Client, thread_id: str, info: Mapping[str, Any]) -> None:
        self._client = client
        #: The thread id.
        self.id = thread_id
        #: The result of the request that opened the thread (``thread/start`` etc.), if any.
        self.info: Dict[str, Any] = dict(info)

    def __repr__(self) -> str:
        return f"Thread({self.id!r})"

    @property
    def status(self) -> str:
        """Status derived from ``thread/status/changed`` (``idle``, ``active``, ...)."""
        return self._client._native.thread_status(self.id)

    def run(self, input: Input, **overrides: Any) -> TurnResult:
        """Run one turn to completion and return its result (final text, items, usage, diff).
        ``overrides`` are ``turn/start`` params in snake_case."""
        return self.run_streamed(input, **overrides).result()

    def run_streamed(self, input: Input, **overrides: Any) -> "Turn":
        """Start a turn; iterate the returned :class:`Turn` for its events."""
        return self._client._start_turn(self.id, input, build_params(None, overrides))

    def read(self, *, include_turns: bool = False) -> Dict[str, Any]:
        """``thread/read`` of this thread."""
        return self._client.thread_read(self.id, include_turns=include_turns)

    def archive(self) -> None:
        """``thread/archive``."""
        self._client.thread_archive(self.id)

    def unarchive(self) -> None:
        """``thread/unarchive``."""
        self._client.thread_unarchive(self.id)

    def compact(self) -> None:
        """``thread/compact/start``."""
        self._client.thread_compact(self.id)

    def set_name(self, name: str) -> None:
        """``thread/name/set``."""
        self._client.request("thread/name/set", {"threadId": self.id, "name": name})

    def fork(self, **kwargs: Any) -> "Thread":
        """``thread/fork`` of this thread."""
        return self._client.thread_fork(self.id, **kwargs)


class Turn:
    """A running turn: ``for event in turn`` yields its events (blocking, GIL released),
    ending with ``turn/completed``.

    Server requests of the turn are passed to the client's handlers on the iterating thread
    before they are yielded. If the connection ends before the turn completed, iteration
    raises :class:`ConnectionClosedError`. Leaving a ``with turn:`` block before the turn
    completed interrupts it; just abandoning the iterator does not.
    """

    def __init__(self, client: Client, native: _native.Turn) -> None:
        self._client = client
        self._native = native
        #: The thread id.
        self.thread_id: str = native.thread_id
        #: The turn id.
        self.turn_id: str = native.turn_id

    def __repr__(self) -> str:
        return f"Turn(thread_id={self.thread_id!r}, turn_id={self.turn_id!r})"

    @property
    def started(self) -> Dict[str, Any]:
        """The ``turn`` object ``turn/start`` answered."""
        r: Dict[str, Any] = loads(self._native.started_json)
        return r

    @property
    def done(self) -> bool:
        """Whether every event of the turn has been read."""
        return self._native.done

    def __iter__(self) -> Iterator[Event]:
        it: Iterator[Event] = self._native
        return it

    def result(self) -> TurnResult:
        """Read the rest of the turn and return its result."""
        return TurnResult(loads(self._native.finish()))

    def partial_result(self) -> TurnResult:
        """The result gathered from the events read so far."""
        return TurnResult(loads(self._native.result_json()))

    def interrupt(self, *, timeout: Optional[float] = None) -> None:
        """``turn/interrupt``: the turn then ends with status ``interrupted``."""
        self._native.interrupt(timeout)

    def steer(self, input: Input, *, timeout: Optional[float] = None) -> None:
        """``turn/steer``: add input to the running turn."""
        self._native.steer(dumps(input_items(input)), timeout)

    def close(self) -> None:
        """Stop routing this turn's events here. Does not interrupt the turn."""
        self._native.close()

    def __enter__(self) -> "Turn":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if not self.done:
            try:
                self._native.interrupt_nowait(None)
            except Exception as e:
                logger.debug("interrupt on exit not sent: %s", e)
        self.close()


__all__ = ["Client", "Thread", "Turn"]
