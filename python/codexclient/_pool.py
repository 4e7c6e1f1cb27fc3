"""A pool of Codex app-servers (:class:`Pool`): many endpoints behind one handle. Placement,
health, drain, overload and every option's meaning are the Rust core's (``Pool``); this module
hands each endpoint's client over as a :class:`CodexClient` and each placed thread as that
client's :class:`Thread`, so everything a thread does goes to the endpoint that holds it."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Type

from . import _native
from ._handlers import CodexHandlers
from ._json import Params, as_params, dumps, loads
from ._lifecycle import Lifecycle
from ._results import InitializeResult
from ._sync import CodexClient, Thread

Timeout = Optional[float]


def _adopt(native: _native.NativeClient, init_view: Optional[str], name: str) -> CodexClient:
    """A :class:`CodexClient` over a native client the pool owns: its handlers are the pool's
    (one table for every endpoint), and garbage collection leaves the connection to the pool."""
    client = CodexClient.__new__(CodexClient)
    client._native = native
    # No _init_handlers(): the endpoint shares the pool's handler table, whose connection
    # event handler (logging, or the user's) the pool's handler client registered.
    client._init = None
    client._life = Lifecycle(native.handle(), f"endpoint {name!r}")
    client._setup()
    if init_view is not None:
        client._connected(init_view)
    return client


class Pool(CodexHandlers):
    """A pool of Codex app-servers (``codex app-server --listen ws://…``/``unix://`` run by
    Kubernetes, systemd or ``codex app-server daemon``, or local ``stdio`` servers).

    ``add_endpoint(name, **client_options)`` connects one (the same keywords as
    :class:`CodexClient`: ``transport="ws://host:port"``, ``token=``, the ``ws_auth`` options,
    ``codex_home=``, ...); :meth:`thread_start` places a new thread on the least busy healthy
    endpoint with capacity and returns that endpoint's :class:`Thread`, so every later call of
    the thread goes there. Handlers registered on the pool (``on_command_approval``, ...)
    serve every endpoint, also those added later; without one, approvals are **declined**.

    ``place_timeout`` (seconds, default 30) bounds :meth:`thread_start`'s placement;
    ``max_running_turns`` (default 0: none) is each endpoint's default limit on running
    turns; ``overload_backoff`` (seconds, default 0.5) is how long an endpoint that answered
    overloaded is passed over. ``with Pool(...) as pool:`` closes it (every endpoint
    disconnected) on exit.
    """

    def __init__(
        self,
        *,
        place_timeout: Optional[float] = None,
        max_running_turns: Optional[int] = None,
        overload_backoff: Optional[float] = None,
    ) -> None:
        given = {
            "place_timeout": place_timeout,
            "max_running_turns": max_running_turns,
            "overload_backoff": overload_backoff,
        }
        self._pool = _native.NativePool(dumps({k: v for k, v in given.items() if v is not None}))
        self._native = self._pool.handler_client()
        self._init_handlers()
        self._clients: Dict[str, CodexClient] = {}

    # -- endpoints -------------------------------------------------------------------------

    def add_endpoint(
        self,
        name: str,
        *,
        max_running_turns: Optional[int] = None,
        shared_home: Optional[str] = None,
        **options: Any,
    ) -> InitializeResult:
        """Connect endpoint ``name`` (blocking, bounded by its ``connect_timeout``) and let it
        take threads. ``options`` are :class:`CodexClient`'s keywords; ``max_running_turns``
        overrides the pool's limit for it, ``shared_home`` names the ``CODEX_HOME`` it shares
        with other endpoints (a lost endpoint's threads can then be resumed on one of them,
        :meth:`resume_elsewhere`). Raises :class:`InvalidArgumentError` for an empty or
        duplicate name and whatever connecting raises."""
        endpoint = {"max_running_turns": max_running_turns, "shared_home": shared_home}
        native, view = self._pool.add_endpoint(name, dumps(endpoint), None, **options)
        client = _adopt(native, view, name)
        self._clients[name] = client
        return client.initialize_result  # type: ignore[return-value]

    def remove_endpoint(self, name: str) -> None:
        """Take endpoint ``name`` out now: disconnected at once (its running turns fail with
        :class:`ConnectionClosedError` naming it and the thread)."""
        self._pool.remove_endpoint(name, None)
        self._clients.pop(name, None)

    def drain_endpoint(self, name: str) -> None:
        """Let endpoint ``name`` take no new thread; once no turn runs on it, it is
        disconnected and leaves the pool (:meth:`endpoints` shows ``draining`` until then)."""
        self._pool.drain_endpoint(name)

    def endpoints(self) -> List[Dict[str, Any]]:
        """Every endpoint: ``name``, ``target``, ``state`` (``ready``, ``reconnecting``,
        ``lost``, ``draining``), ``running_turns``, ``waiting_threads``, ``threads_placed``,
        ``max_running_turns``, ``shared_home``, ``lost`` (why), ``codex_version``."""
        rows: List[Dict[str, Any]] = loads(self._pool.endpoints())
        return rows

    def endpoint(self, name: str) -> CodexClient:
        """Endpoint ``name``'s client, for calls that belong to no thread (``model_list``,
        ``config_read``, account calls). It belongs to the pool: close the pool, not it."""
        try:
            return self._clients[name]
        except KeyError:
            known = ", ".join(self._clients) or "none"
            from ._errors import InvalidArgumentError

            raise InvalidArgumentError(f"no endpoint `{name}` in the pool (endpoints: {known})") from None

    # -- threads ---------------------------------------------------------------------------

    def _thread_of(self, placed: Any) -> Thread:
        endpoint, thread_id, info = placed
        return Thread(self.endpoint(endpoint), thread_id, loads(info))

    def thread_start(self, /, params: Params = None, **kwargs: Any) -> Thread:
        """``thread/start`` on the least busy endpoint that takes threads (keywords are
        ``thread/start``'s params, camel-cased: ``cwd=``, ``approval_policy=``). Raises
        :class:`UnavailableError` at once when no endpoint is healthy, or after
        ``place_timeout`` when all stayed at their limit; :class:`OverloadedError` when every
        endpoint kept answering overloaded until then."""
        from ._json import keyword_params

        p = keyword_params(params, {}, kwargs) if kwargs else as_params(params)
        return self._thread_of(self._pool.thread_start(dumps(p), None))

    def thread(self, thread_id: str) -> Thread:
        """The handle of a thread the pool placed or resumed, on the endpoint that holds it."""
        name = self._pool.endpoint_of(thread_id)
        if name is None:
            from ._errors import InvalidArgumentError

            raise InvalidArgumentError(f"thread {thread_id} is not a thread of this pool")
        return Thread(self.endpoint(name), thread_id, {})

    def endpoint_of(self, thread_id: str) -> Optional[str]:
        """The endpoint holding thread ``thread_id`` (``None``: not a thread of this pool)."""
        name: Optional[str] = self._pool.endpoint_of(thread_id)
        return name

    def threads_on(self, name: str) -> List[str]:
        """The threads the pool placed or resumed on endpoint ``name`` (also after it left:
        the threads that died with it)."""
        ids: List[str] = self._pool.threads_on(name)
        return ids

    def resume_elsewhere(self, thread_id: str, /, params: Params = None, **kwargs: Any) -> Thread:
        """``thread/resume`` of a thread on another healthy endpoint that shares its
        ``CODEX_HOME`` (``shared_home``); raises :class:`InvalidArgumentError` when its
        endpoint shares it with none, :class:`UnavailableError` when none is healthy now."""
        from ._json import keyword_params

        p = keyword_params(params, {}, kwargs) if kwargs else as_params(params)
        return self._thread_of(self._pool.resume_elsewhere(thread_id, dumps(p), None))

    # -- life ------------------------------------------------------------------------------

    def close(self) -> None:
        """Disconnect every endpoint. Idempotent."""
        self._pool.close()
        self._clients.clear()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(
        self, et: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    @staticmethod
    def option_rows() -> Mapping[str, Any]:
        """The pool's and endpoints' option rows (name, default, meaning), from the core."""
        rows: Mapping[str, Any] = loads(_native.NativePool.option_rows())
        return rows


__all__ = ["Pool"]
