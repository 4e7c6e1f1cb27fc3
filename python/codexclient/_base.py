"""What the sync and the async client share: :class:`ClientBase` (options, state, the calls
and the helpers), :class:`ThreadBase`, :class:`TurnBase`, :class:`ToolCallBase`, and
:func:`aio`, which makes a sync method the async surface's. What a call sends (method names,
params, decision wording) is built by the Rust core; this module spells no protocol name."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Coroutine, Dict, List, Optional, Tuple
from typing import Type, TypeVar, Union, cast

from . import _native
from ._auth import auth_options
from ._errors import InvalidArgumentError
from ._handlers import CodexHandlers, Handlers, McpHandlers, logger
from ._inputs import Input, Skills, input_json, skills_list_arg
from ._json import Params, arguments_json, as_params, build_params, dumps, keyword_params, loads
from ._lifecycle import track_client
from ._options import OPTION_NAMES
from ._signature import unknown_keyword
from ._results import InitializeResult, Page, TurnResult

if TYPE_CHECKING:
    # ParamSpec is new in Python 3.10.
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")

T = TypeVar("T")
R = TypeVar("R")


def _page(r: Tuple[List[Any], Optional[str]]) -> Page[Any]:
    return Page(r[0], r[1])


def aio(f: Callable[Concatenate[Any, _P], R]) -> Callable[Concatenate[Any, _P], Coroutine[Any, Any, R]]:
    """The async client's form of a sync client method whose body only returns what the shared
    helpers give (they return the value in the sync client, an awaitable in the async one): one
    implementation and its docstring behind both surfaces, typed for each."""
    call = cast(Callable[..., Awaitable[R]], f)

    async def method(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> R:
        return await call(self, *args, **kwargs)

    for name in ("__module__", "__name__", "__doc__"):
        setattr(method, name, getattr(f, name))
    method.__qualname__ = "Async" + f.__qualname__  # CodexClient.x -> AsyncCodexClient.x
    # help() shows the parameters (the result is awaitable, of the async surface's type).
    sig = inspect.signature(f).replace(return_annotation=inspect.Signature.empty)
    setattr(method, "__signature__", sig)
    return method


def aio_as(
    cls: Type[T], f: Callable[Concatenate[Any, _P], Any]
) -> Callable[Concatenate[Any, _P], Coroutine[Any, Any, T]]:
    """:func:`aio` of a sync method returning a :class:`Thread`, for the async surface whose
    shared helper gives its own class ``cls`` (an :class:`AsyncThread`)."""
    return cast("Callable[Concatenate[Any, _P], Coroutine[Any, Any, T]]", aio(f))



_PAIRS = ("env", "headers", "config_overrides")
"""The options given as ``NAME=value`` entries: a mapping is sent as its pairs, in order."""


def _pairs(value: Any) -> Any:
    """A mapping as the list of its ``[key, value]`` pairs (kept in order); anything else as
    it is."""
    return [[k, v] for k, v in value.items()] if isinstance(value, Mapping) else value


_NOT_OPTIONS = ("config", "authorize", "token_store")
"""The keywords that are no core option keys (``config``: the pairs of
``config_overrides``; the MCP authorization callbacks)."""


def mcp_server(transport: Any, command: Any) -> bool:
    """Whether the options name an MCP server rather than Codex, as the core decides
    (:func:`_native.client_kind`: ``command=[...]``, ``transport="mcp+stdio…"``,
    ``"http(s)://…"``); raises the core's error for a transport or command it refuses."""
    return _native.client_kind(transport, command) == "mcp"


def _same(v: Any) -> Any:
    return v


class ClientBase(Handlers):
    """What every client shares, whatever its protocol (:class:`CodexClient`,
    :class:`McpClient` and their asyncio twins): options, state, handlers, dispatch and the
    private calls. A subclass supplies :meth:`_call` (blocking or awaitable) and the typed
    methods around it; the public methods of one protocol are on :class:`CodexBase` or
    :class:`McpBase`."""

    _callbacks = False
    """Whether the core runs the handlers on its dispatch thread (else the loop drains)."""

    def _start(self, keywords: Dict[str, Any], other: Mapping[str, Any] = {}) -> None:
        """The constructor (the generated keywords of :mod:`._option_keywords` call it):
        ``keywords`` by name, ``other`` the options of another client's class, passed on so
        the core refuses them naming the option and the client. Each keyword is the core's
        option of that name, checked there (``None``: its default); only ``config`` (a
        mapping of ``-c`` overrides) is Python's own name, for the core's
        ``config_overrides``, beside MCP authorization's callbacks. Mappings go as lists of
        pairs (in their order)."""
        unknown = {k: v for k, v in other.items() if k not in OPTION_NAMES}
        if unknown:
            valid = [n for n in inspect.signature(type(self).__init__).parameters if n != "self"]
            raise unknown_keyword(type(self).__name__, unknown, valid)
        keywords = {**keywords, **other}
        given = {k: v for k, v in keywords.items() if v is not None and k not in _NOT_OPTIONS}
        opts = {k: _pairs(v) if k in _PAIRS else v for k, v in given.items()}
        # MCP authorization's callbacks (not option keys): adapted for the core (``_auth``).
        opts.update(auth_options(keywords.get("authorize"), keywords.get("token_store"), self,
                                 keywords.get("oauth_authorize_timeout")))
        config = keywords.get("config")
        if config is not None:
            opts["config_overrides"] = _pairs(config) + list(opts.get("config_overrides", []))
        self._check_protocol(mcp_server(keywords.get("transport"), keywords.get("command")))
        delivery = "callbacks" if self._callbacks else "poll"
        self._native = _native.NativeClient(delivery=delivery, **opts)
        self._init_handlers()
        self._init: Optional[InitializeResult] = None
        self._life = track_client(self, self._native)
        self._setup()

    def _setup(self) -> None:
        """Set up the subclass's delivery (end of ``__init__``)."""

    def _check_protocol(self, mcp: bool) -> None:
        """Refuse a server of the other protocol (``mcp``: the options name an MCP server);
        before anything is created."""

    # -- state -------------------------------------------------------------------------------

    @property
    def is_connected(self) -> bool:
        """Whether the handshake is done and the server alive."""
        return self._native.is_connected

    @property
    def is_reconnecting(self) -> bool:
        """Whether the connection dropped and the client is reconnecting (``reconnect=``):
        requests made now wait for the rejoin."""
        return self._native.is_reconnecting

    @property
    def initialize_result(self) -> Optional[InitializeResult]:
        """What the server answered to ``initialize`` (``None`` before ``connect()``)."""
        return self._init

    @property
    def stderr_tail(self) -> str:
        """The last output the server wrote to stderr."""
        return self._native.stderr_tail

    @property
    def server_pid(self) -> Optional[int]:
        """Process id of the running server (also while a connect is in progress, once it
        runs); ``None`` for remote transports."""
        return self._native.server_pid

    def _connected(self, view: str) -> InitializeResult:
        """Record the core's view (JSON) of the ``initialize`` result."""
        self._init = InitializeResult._from_view(loads(view))
        self._life.open = True
        return self._init

    @property
    def id(self) -> str:
        """The client's id (128 random bits in hex, made when the client was created): the
        owner of its server requests, which a reference answers only here."""
        return self._native.id

    @property
    def label(self) -> Optional[str]:
        """The client's name (option ``label``): what its events, server-request and thread
        references carry as their ``endpoint``; ``None`` when it has none."""
        return self._native.label

    # -- answers by reference (the lookup and its errors are the core's) ----------------------

    def respond(self, request: "Union[_native.ServerRequest, str, Mapping[str, Any]]", answer: Any) -> None:
        """Answer a server request of this client by reference: ``request`` is a
        :class:`ServerRequest` (an unpickled, detached one, or a live one), or its reference
        as JSON text or a dict (``request.reference_json``). ``answer`` is what a handler
        would return (for an approval ``"accept"``, ``"decline"``, ``True``/``False`` or any
        decision of the method). Raises :class:`InvalidArgumentError` for another client's
        request (naming both) or a bad answer, :class:`ConnectionLostError` or
        :class:`ConnectionClosedError` when its connection was lost or has ended, and
        :class:`AlreadyRespondedError` when it was answered (also fail-closed at its bound,
        option ``parked_request_timeout``) or resolved by the server. Never blocks."""
        self._native.respond_ref(_reference_json(request), dumps(answer))

    def respond_error(
        self, request: "Union[_native.ServerRequest, str, Mapping[str, Any]]", code: int, message: str,
        data: Any = None,
    ) -> None:
        """Answer a server request of this client by reference with a JSON-RPC error
        (``request`` and the errors as for :meth:`respond`)."""
        self._native.respond_ref_error(_reference_json(request), code, message, dumps(data))

    # -- calls (blocking or awaitable, see _call) ---------------------------------------------

    def _call(self, start: Callable[[Any], Any], then: Callable[[Any], Any] = loads) -> Any:
        """Run a native call: ``start(aio)`` (``aio`` is ``None`` for a blocking call), then
        ``then`` on its result. Blocking in the sync client, awaitable in the async one."""
        raise NotImplementedError

    def _request(self, method: str, params: Params, timeout: Optional[float]) -> Any:
        text = dumps(as_params(params))
        return self._call(lambda aio: self._native.request(method, text, timeout, aio))

    def _notify(self, method: str, params: Params) -> None:
        self._native.notify(method, dumps(as_params(params)))

    def _helper(
        self,
        name: str,
        thread_id: Optional[str] = None,
        arg: Any = None,
        params: Params = None,
        kwargs: Mapping[str, Any] = {},
        timeout: Optional[float] = None,
    ) -> Any:
        """The core's helper ``name``: a thread for the helpers that open one, else the
        result."""
        a, p = dumps(arg), build_params(params, kwargs)

        def then(r: Tuple[str, Optional[str], Optional[str]]) -> Any:
            result = loads(r[0])
            return result if r[1] is None else self._thread_class(self, r[1], result, r[2])

        return self._call(lambda aio: self._native.helper(name, thread_id, a, p, timeout, aio), then)

    def _open(
        self,
        name: str,
        thread_id: Optional[str],
        params: Params,
        given: Mapping[str, Any],
        extra: Params,
        timeout: Optional[float],
    ) -> Any:
        """The core's helper ``name`` that opens a thread (``thread_start``, ...), for the typed
        keyword methods of :mod:`._keywords`: ``given`` are the keywords by wire name."""
        p = keyword_params(params, given, extra)

        def then(r: Tuple[str, Optional[str], Optional[str]]) -> Any:
            return self._thread_class(self, r[1], loads(r[0]), r[2])

        return self._call(lambda aio: self._native.helper(name, thread_id, "null", p, timeout, aio), then)

    _thread_class: Callable[..., Any]
    _turn_class: Callable[..., Any]
    _tool_call_class: Callable[..., Any]

    # -- MCP (the typed requests; names are the core's ``McpRequest`` names) ------------------

    def _mcp(
        self,
        name: str,
        arg: Optional[str] = None,
        json: str = "null",
        value: Optional[str] = None,
        *,
        all_pages: bool = False,
        timeout: Optional[float] = None,
        then: Callable[[Any], Any] = _same,
    ) -> Any:
        """The core's MCP request ``name`` (see ``NativeClient.mcp``)."""
        start = lambda aio: self._native.mcp(name, arg, json, value, all_pages, timeout, aio)  # noqa: E731
        return self._call(start, then)

    def _mcp_list(self, name: str, cursor: Optional[str], page: bool, timeout: Optional[float]) -> Any:
        """Every item of an MCP list (``page=False``) or one :class:`Page` of it."""
        if page:
            return self._mcp(name, cursor, timeout=timeout, then=_page)
        return self._mcp(name, all_pages=True, timeout=timeout)

    # -- Skills over MCP (SEP-2640; the checks are the core's) -------------------------------

    def _skills_list(self) -> Any:
        """Every skill entry the MCP server lists (``NativeClient.skills_list``)."""
        return self._call(lambda aio: self._native.skills_list(None, True, aio), lambda t: loads(t)["skills"])

    def _skill_load(self, skill: str) -> Any:
        """The skill ``skill`` loaded and checked (``NativeClient.skill_load``)."""
        return self._call(lambda aio: self._native.skill_load(skill, aio))

    def _complete(
        self, argument: str, value: str, prompt: Optional[str], resource: Optional[str],
        timeout: Optional[float],
    ) -> Any:
        if (prompt is None) == (resource is None):
            raise InvalidArgumentError("complete() needs exactly one of prompt= and resource=")
        ref = _native.completion_ref("prompt", prompt) if prompt is not None else \
            _native.completion_ref("resource", resource or "")
        return self._mcp("complete", argument, ref, value, timeout=timeout)

    def _start_tool_call(
        self, name: str, arguments: Optional[Mapping[str, Any]], timeout: Optional[float]
    ) -> Any:
        native = self._native.call_tool_progress(name, arguments_json(arguments), timeout)
        return self._tool_call_class(self, native)

    def _start_turn(
        self, thread_id: str, input: Input, given: Mapping[str, Any], extra: Params, skills: Skills = None
    ) -> Any:
        """``turn/start`` on ``thread_id``: ``given`` are the typed keywords by wire name."""
        i, o = input_json(input), keyword_params(None, given, extra)
        sk = skills_list_arg(skills)
        start = lambda aio: self._native.start_turn(thread_id, i, o, aio, sk)  # noqa: E731
        return self._call(start, lambda nt: self._turn_class(self, nt))


def _reference_json(request: Any) -> str:
    """A server request's reference as the core's JSON text: of a :class:`ServerRequest`
    (its ``reference_json``), or given as JSON text or a dict."""
    if isinstance(request, _native.ServerRequest):
        return request.reference_json
    if isinstance(request, str):
        return request
    if isinstance(request, Mapping):
        return dumps(dict(request))
    raise InvalidArgumentError(
        f"not a server request or its reference: {type(request).__name__} (give the "
        "ServerRequest, its reference_json, or that JSON as a dict)"
    )


class CodexBase(CodexHandlers, ClientBase):
    """The Codex clients' own part of what sync and async share: the server's version, its
    method table and the skill sources of turns (:class:`CodexClient`,
    :class:`AsyncCodexClient`)."""

    def _check_protocol(self, mcp: bool) -> None:
        if mcp:
            new = "AsyncMcpClient" if type(self).__name__.startswith("Async") else "McpClient"
            raise InvalidArgumentError(
                f"{type(self).__name__} connects to Codex; for an MCP server (command=, "
                f'transport="mcp+stdio..." or "http(s)://...") use {new}'
            )

    @property
    def server_version(self) -> Optional[Dict[str, Any]]:
        """The connected app-server's Codex version placed in the supported window:
        ``{"version": "0.171.0" or None, "position": "inside" | "older" | "newer" | "unknown",
        "matches": the window version it is or None, "window": [every window version],
        "source": "spawned" | "remote" | "control_socket", "cli_version": ...}``.
        ``version`` is the server's own (through the control socket: the daemon's), with the
        installed CLI's beside it in ``cli_version`` (``None`` elsewhere). ``None`` when not
        connected, or when the server is not a Codex app-server (an MCP server, the ``exec``
        or ``codex-mcp-server`` transport). A server outside the window is connected anyway
        (one WARNING log line and an ``outside_window`` :class:`ConnectionEvent`), as is a
        daemon of another version than the CLI (``version_mismatch``)."""
        text = self._native.server_version
        return None if text is None else loads(text)

    def supports(self, method: str) -> bool:
        """Whether the connected app-server has client method ``method``, by the window's
        method table: for a window version, exactly; for a server outside the window, whether
        some window version has it; a method of no window version: ``False``. Calling a method
        the server's (window) version lacks raises :class:`UnsupportedByVersionError` before
        anything is sent. Raises :class:`NotConnectedError`, or :class:`InvalidStateError`
        when the server is not a Codex app-server."""
        return self._native.supports(method)

    def add_skill_source(self, label: str, server: "ClientBase") -> None:
        """Let this Codex client's turns use the skills of the MCP server ``server`` (a
        connected MCP client, sync or async) under ``label`` (1-64 of ``A-Z a-z 0-9 - _ .``,
        your name for that server). A turn then selects one as ``"name@label"`` (or
        ``"skill://.../SKILL.md@label"``) in ``skills=``; it is loaded and checked (size,
        SHA-256 digest, frontmatter) when the turn starts and goes to Codex as a text block
        naming the server, so the option ``skill_emulation`` must be ``"when_needed"`` or
        ``"always"``. The same label again replaces the server. Raises
        :class:`InvalidArgumentError` for a bad label, an MCP client here, or a ``server``
        that is not an MCP client."""
        self._native.add_skill_source(label, server._native)

    def remove_skill_source(self, label: str) -> bool:
        """Forget the skill source ``label``; whether there was one."""
        return bool(self._native.remove_skill_source(label))

    def _resume_ref(self, ref: "_native.ThreadRef", params: Params, timeout: Optional[float]) -> Any:
        """``thread/resume`` of the thread ``ref`` names, with its resume params and
        ``params`` on top (merged by the core)."""
        if not isinstance(ref, _native.ThreadRef):
            raise InvalidArgumentError(
                f"not a thread reference: {type(ref).__name__} (take one with thread.reference())"
            )
        p = ref.resume_params_json(dumps(as_params(params)))

        def then(r: Tuple[str, Optional[str], Optional[str]]) -> Any:
            return self._thread_class(self, r[1], loads(r[0]), r[2])

        return self._call(lambda aio: self._native.helper("thread_resume", ref.thread_id, "null", p, timeout, aio), then)


class McpBase(McpHandlers, ClientBase):
    """The MCP clients' own part of what sync and async share: the handlers of the server's
    sampling and roots requests (:class:`McpClient`, :class:`AsyncMcpClient`)."""


class ToolCallBase:
    """What :class:`ToolCall` and :class:`AsyncToolCall` share: an MCP tool call that reports
    progress, sent when it was created."""

    def __init__(self, client: Any, native: _native.ToolCall) -> None:
        self._client = client
        self._native = native

    def __repr__(self) -> str:
        return f"{type(self).__name__}(token={self.token!r}, done={self.done})"

    @property
    def token(self) -> Any:
        """The progress token sent with the call."""
        return self._native.token

    @property
    def done(self) -> bool:
        """Whether the answer came (or the call was cancelled): no update follows."""
        return self._native.done

    def cancel(self) -> bool:
        """Cancel the call unless its answer came: the server is told
        (``notifications/cancelled``) and ``result()`` raises
        :class:`RequestCancelledError`. Returns whether the call was still running."""
        return self._native.cancel()


class ThreadBase:
    """What :class:`Thread` and :class:`AsyncThread` share."""

    def __init__(
        self, client: Any, thread_id: str, info: Mapping[str, Any], reference_json: Optional[str] = None
    ) -> None:
        self._client = client
        #: The thread id.
        self.id = thread_id
        #: The result of the request that opened the thread (``thread/start`` etc.), if any.
        self.info: Dict[str, Any] = dict(info)
        self._reference_json = reference_json

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"

    def reference(self) -> _native.ThreadRef:
        """This thread's reference (:class:`ThreadRef`: the client's label as ``endpoint``,
        the thread id, the ``thread/resume`` params that reattach it as it was opened). It
        pickles: hand it to another process and resume it there with
        ``client.thread_resume_ref(ref)`` (a client of the same ``CODEX_HOME``). A handle made
        by ``client.thread(id)`` has no resume params."""
        if self._reference_json is not None:
            return _native.ThreadRef.from_json(self._reference_json)
        return _native.ThreadRef(self.id, self._client.label)

    def __reduce__(self) -> Any:
        raise TypeError(
            f"a {type(self).__name__} holds its client and does not pickle: pickle "
            "thread.reference() and resume it with client.thread_resume_ref(ref)"
        )

    @property
    def status(self) -> str:
        """Status derived from ``thread/status/changed`` (``idle``, ``active``, ...)."""
        status: str = self._client._native.thread_status(self.id)
        return status

    def _helper(self, name: str, arg: Any = None, **kwargs: Any) -> Any:
        return self._client._helper(name, self.id, arg, None, kwargs)

    def _fork(self, given: Mapping[str, Any], extra: Params, timeout: Optional[float]) -> Any:
        """``thread/fork`` of this thread (the typed :meth:`fork`)."""
        return self._client._open("thread_fork", self.id, None, given, extra, timeout)


class TurnBase:
    """What :class:`Turn` and :class:`AsyncTurn` share."""

    def __init__(self, client: Any, native: _native.Turn) -> None:
        self._client = client
        self._native = native
        #: The thread id.
        self.thread_id: str = native.thread_id
        #: The turn id.
        self.turn_id: str = native.turn_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(thread_id={self.thread_id!r}, turn_id={self.turn_id!r})"

    @property
    def started(self) -> Dict[str, Any]:
        """The ``turn`` object ``turn/start`` answered."""
        r: Dict[str, Any] = loads(self._native.started_json)
        return r

    def partial_result(self) -> TurnResult:
        """The result gathered from the events read so far."""
        return TurnResult(loads(self._native.result_json()))

    def _interrupt(self, timeout: Optional[float]) -> Any:
        return self._client._call(lambda aio: self._native.interrupt(timeout, aio), _none)

    def _steer(self, input: Input, timeout: Optional[float]) -> Any:
        text = input_json(input)
        return self._client._call(lambda aio: self._native.steer(text, timeout, aio), _none)

    def close(self) -> None:
        """Stop routing this turn's events here (they go to the client's own delivery). Does
        not interrupt the turn."""
        self._native.close()

    def _leave(self, executor: Optional[_native.Executor]) -> None:
        """Leaving a ``with`` block: interrupt the turn unless it is done, then close."""
        if not self.done:
            try:
                self._native.interrupt_nowait(executor)
            except Exception as e:  # connection gone: nothing to interrupt
                logger.debug("interrupt on exit not sent: %s", e)
        self.close()

    @property
    def done(self) -> bool:
        """Whether every event of the turn has been read."""
        return self._native.done


def _none(_: Any) -> None:
    return None


# ---------------------------------------------------------------------------------------------