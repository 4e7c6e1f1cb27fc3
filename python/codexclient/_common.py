"""The implementation shared by the sync and the async client: options, handlers, event
dispatch and the helpers, written once; :mod:`._sync` and :mod:`._async` add the typed
blocking or awaitable surface. What a call sends (method names, params, decision wording) is
built by the Rust core; this module spells no protocol name."""

from __future__ import annotations

import asyncio
import atexit
import inspect
import json
import logging
import os
import pathlib
import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Coroutine, Dict, Generic, List, Optional
from typing import Tuple, Type, TypeVar, Union, cast, overload

from . import _native
from ._errors import InvalidArgumentError
from ._native import ConnectionEvent, Notification, Progress, ServerRequest

if TYPE_CHECKING:
    # The generated protocol types (import cost: a few hundred TypedDicts), for type checkers
    # only: nothing here needs them at run time. ParamSpec is new in Python 3.10.
    from typing_extensions import Concatenate, ParamSpec

    from . import protocol as p

    _P = ParamSpec("_P")

logger = logging.getLogger("codexclient")

if TYPE_CHECKING:
    Event = p.Event
else:
    Event = Union[Notification, ServerRequest, ConnectionEvent]
"""One event: a notification, a server request or a connection event. For type checkers the
union of the typed events of :mod:`codexclient.protocol`: ``event.method == "..."`` narrows
it to that method's class, with typed ``params``."""

InputItem = Mapping[str, Any]
Input = Union[str, InputItem, Sequence[Union[str, InputItem]]]
"""Turn input: a string, one input item (``{"type": "text", ...}``) or a list of them."""

Skills = Optional[Iterable[Union[str, "os.PathLike[str]"]]]
"""Skills for a turn: names (``"release-notes"``) or paths of a ``SKILL.md`` or its folder
(a ``str`` holding ``/``, or any path-like object)."""

Params = Optional[Mapping[str, Any]]
"""Request params: a mapping (``None``: none)."""

RequestHandler = Callable[[ServerRequest], Any]
"""A server-request handler: ``handler(request)`` returning an answer, ``None`` (it answers
itself, now or later), or an awaitable of either."""

H = TypeVar("H", bound=Callable[[ServerRequest], Any])
"""A server-request handler's own type (the ``on_*`` decorators return it unchanged)."""
# The handlers of one server request: they may take that request's typed class (or any
# supertype, e.g. the bare ServerRequest); the decorators return them unchanged.
HCommand = TypeVar("HCommand", bound="Callable[[p.ItemCommandExecutionRequestApprovalRequest], Any]")
HFileChange = TypeVar("HFileChange", bound="Callable[[p.ItemFileChangeRequestApprovalRequest], Any]")
HPermissions = TypeVar("HPermissions", bound="Callable[[p.ItemPermissionsRequestApprovalRequest], Any]")
HUserInput = TypeVar("HUserInput", bound="Callable[[p.ItemToolRequestUserInputRequest], Any]")
HToolCall = TypeVar("HToolCall", bound="Callable[[p.ItemToolCallRequest], Any]")
HElicitation = TypeVar(
    "HElicitation", bound="Callable[[Union[p.McpServerElicitationRequestRequest, p.McpServerRequest]], Any]"
)
HMcp = TypeVar("HMcp", bound="Callable[[p.McpServerRequest], Any]")

T = TypeVar("T")
R = TypeVar("R")

NotificationHandler = Callable[[Notification], Any]
ConnectionHandler = Callable[[ConnectionEvent], Any]
HNotification = TypeVar("HNotification", bound="Callable[[p.NotificationEvent], Any]")
"""A notification handler's own type: it may take the typed union (and narrow on
``.method``) or the bare :class:`Notification`."""
HConnection = TypeVar("HConnection", bound=ConnectionHandler)
PathLike = Union[str, "os.PathLike[str]"]

Root = Union[str, "os.PathLike[str]", Tuple[Union[str, "os.PathLike[str]"], Optional[str]]]
"""An MCP root: a URI (``"file:///work/project"``), a local path (made an absolute
``file://`` URI) or a pair of either and a display name."""

ProgressHandler = Callable[[Progress], Any]
"""Receives each progress update of a tool call (may be ``async def`` in the async client)."""

loads = json.loads
_METHODS: Dict[str, str] = _native.REQUEST_METHODS
COMMAND_APPROVAL = _METHODS["command_approval"]
FILE_CHANGE_APPROVAL = _METHODS["file_change_approval"]
SAMPLING = _METHODS["sampling"]
"""The MCP server request asking the client to sample an LLM (``sampling/createMessage``)."""
ELICITATION = _METHODS["mcp_elicitation"]
"""The MCP server request asking the user for input (``elicitation/create``)."""
ROOTS = _METHODS["roots"]
"""The MCP server request for the client's roots (``roots/list``)."""


def type_name(value: Any) -> str:
    """The qualified name of ``value``'s type, for error messages (``builtins`` left out)."""
    t = type(value)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class _Encoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, Mapping):
            return dict(o)
        text = repr(o)
        if len(text) > 80:
            text = text[:77] + "..."
        raise InvalidArgumentError(f"a {type_name(o)} cannot be sent as JSON: {text}")


_encoder = _Encoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``. Raises :class:`InvalidArgumentError` (naming the
    offending type) for anything JSON cannot hold: other objects, non-string keys, cycles,
    NaN and infinities."""
    try:
        return _encoder.encode(value)
    except InvalidArgumentError:
        raise
    except (TypeError, ValueError, RecursionError) as e:
        raise InvalidArgumentError(f"cannot be sent as JSON: {e}") from e


def as_params(params: Params, what: str = "params") -> Dict[str, Any]:
    """``params`` as a new dict (``None``: empty); anything but a mapping raises
    :class:`InvalidArgumentError`."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise InvalidArgumentError(f"{what} must be a mapping, not {type_name(params)}")
    return dict(params)


def camel(name: str) -> str:
    """``approval_policy`` -> ``approvalPolicy`` (names without ``_`` are kept)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def build_params(params: Params, kwargs: Mapping[str, Any]) -> str:
    """JSON text of a params mapping merged with snake_case keyword arguments (camel-cased)."""
    out = as_params(params)
    for k, v in kwargs.items():
        out[camel(k)] = v
    return dumps(out)


def _item(kind: str, value: str) -> Dict[str, Any]:
    item: Dict[str, Any] = loads(_native.input_item(kind, value))
    return item


def text(value: str) -> Dict[str, Any]:
    """A text input item."""
    return _item("text", value)


def image_url(url: str) -> Dict[str, Any]:
    """An image input item given by URL (``https://`` or ``data:``)."""
    return _item("image_url", url)


def local_image(path: PathLike) -> Dict[str, Any]:
    """A local image file input item."""
    return _item("local_image", os.fspath(path))


def input_json(value: Input) -> str:
    """Turn input as JSON text; the core makes it the list of input items."""
    if not isinstance(value, (str, Mapping, Sequence)):
        raise InvalidArgumentError(
            f"turn input must be a string, an input item or a list of them, not {type_name(value)}"
        )
    return dumps(value if isinstance(value, (str, Mapping)) else list(value))


def skills_list_arg(skills: Skills) -> Optional[List[str]]:
    """Turn skills as the core takes them: names, or paths (path-like objects made
    absolute, so that they always read as paths)."""
    if skills is None:
        return None
    if isinstance(skills, (str, bytes)) or not isinstance(skills, Iterable):
        raise InvalidArgumentError(f"skills must be a list of names or paths, not {type_name(skills)}")
    out = []
    for s in skills:
        if isinstance(s, str):
            out.append(s)
        elif isinstance(s, os.PathLike):
            out.append(os.path.abspath(os.fspath(s)))
        else:
            raise InvalidArgumentError(f"a skill is a name or a path, not {type_name(s)}")
    return out


class InitializeResult:
    """What the server answered to ``initialize``: ``raw`` (the whole result); for Codex
    ``user_agent``, ``codex_home``, ``platform_family``, ``platform_os``; for an MCP server
    ``protocol_version`` (the version it chose), ``capabilities`` (``tools``,
    ``resources``, ``prompts``, ``logging``, ...), ``server_info`` (its name, version, ...)
    and ``instructions`` (how to use it, when it says). The others are ``None``."""

    __slots__ = (
        "user_agent", "codex_home", "platform_family", "platform_os", "raw",
        "protocol_version", "capabilities", "server_info", "instructions",
    )

    def __init__(
        self,
        raw: Dict[str, Any],
        user_agent: Optional[str] = None,
        codex_home: Optional[str] = None,
        platform_family: Optional[str] = None,
        platform_os: Optional[str] = None,
        protocol_version: Optional[str] = None,
        capabilities: Optional[Dict[str, Any]] = None,
        server_info: Optional[Dict[str, Any]] = None,
        instructions: Optional[str] = None,
    ) -> None:
        #: The whole result.
        self.raw = raw
        self.user_agent = user_agent
        self.codex_home = codex_home
        self.platform_family = platform_family
        self.platform_os = platform_os
        self.protocol_version = protocol_version
        self.capabilities = capabilities
        self.server_info = server_info
        self.instructions = instructions

    def __repr__(self) -> str:
        if self.protocol_version is not None:
            return (
                f"InitializeResult(protocol_version={self.protocol_version!r}, "
                f"server_info={self.server_info!r})"
            )
        return f"InitializeResult(user_agent={self.user_agent!r}, codex_home={self.codex_home!r})"


class Page(Generic[T]):
    """One page of an MCP list (``list_tools_page`` and friends): ``items`` and
    ``next_cursor``, the cursor of the next page (``None`` on the last one)."""

    __slots__ = ("items", "next_cursor")

    def __init__(self, items: List[T], next_cursor: Optional[str]) -> None:
        self.items = items
        self.next_cursor = next_cursor

    def __repr__(self) -> str:
        return f"Page(items={len(self.items)}, next_cursor={self.next_cursor!r})"


def _page(r: Tuple[List[Any], Optional[str]]) -> Page[Any]:
    return Page(r[0], r[1])


def _same(v: Any) -> Any:
    return v


def _policy(
    value: Union[bool, Mapping[str, float], None], name: str, keys: Tuple[str, ...]
) -> Union[bool, Dict[str, float], None]:
    """``reconnect=`` / ``heartbeat=``: ``None`` (default), ``True`` / ``False``, or a mapping
    with some of ``keys`` (seconds for durations)."""
    if value is None or isinstance(value, bool):
        return value
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f"{name} is True, False or a dict with {', '.join(keys)}")
    unknown = set(value) - set(keys)
    if unknown:
        raise InvalidArgumentError(f"{name}: unknown key(s) {sorted(unknown)} (known: {', '.join(keys)})")
    return {k: float(v) for k, v in value.items()}


def arguments_json(arguments: Optional[Mapping[str, Any]]) -> str:
    """JSON text of tool or prompt arguments (``null``: none)."""
    return "null" if arguments is None else dumps(as_params(arguments, "arguments"))


def _root(root: Root) -> Tuple[str, Optional[str]]:
    uri, name = (root[0], root[1]) if isinstance(root, tuple) and len(root) == 2 else (root, None)
    if isinstance(uri, os.PathLike):
        uri = pathlib.Path(os.fspath(uri)).resolve().as_uri()
    if not isinstance(uri, str) or not (name is None or isinstance(name, str)):
        raise InvalidArgumentError(
            f"an MCP root is a URI, a path or a (URI or path, name) pair, not {root!r}"
        )
    return uri, name


class TurnResult:
    """What a finished turn produced: ``thread_id``, ``turn_id``, ``status`` (``completed``,
    ``interrupted``, ``failed``; empty while the turn runs), ``final_response`` (text of the
    last completed agent message), ``items`` (every item completed during the turn, in order),
    ``usage`` (the last token usage reported), ``diff`` (the turn's last unified diff),
    ``error`` (the turn's error object, when it failed), ``turn`` (the whole ``turn``
    object of ``turn/completed``), ``completed`` (whether the turn completed normally) and
    ``emulated_skills`` (the skills injected into the prompt as text because the server has no
    native skill input — exec, mcp, app-servers before Codex 0.169.0 — each a dict with
    ``name``, ``description`` and ``path``; empty when they went natively)."""

    __slots__ = (
        "thread_id", "turn_id", "status", "final_response", "items", "usage", "diff",
        "error", "turn", "completed", "emulated_skills",
    )

    def __init__(self, data: Dict[str, Any]) -> None:
        self.thread_id: str = data.get("thread_id", "")
        self.turn_id: str = data.get("turn_id", "")
        self.status: str = data.get("status", "")
        self.final_response: Optional[str] = data.get("final_response")
        self.items: List[p.ThreadItem] = data.get("items") or []
        self.usage: Optional[p.ThreadTokenUsage] = data.get("usage")
        self.diff: Optional[str] = data.get("diff")
        self.error: Optional[p.TurnError] = data.get("error")
        self.turn: Optional[p.Turn] = data.get("turn")
        #: Whether the turn completed normally.
        self.completed: bool = bool(data.get("completed"))
        #: The skills emulated in the turn's prompt (``name``, ``description``, ``path``).
        self.emulated_skills: List[Dict[str, str]] = data.get("emulated_skills") or []

    def __repr__(self) -> str:
        return (
            f"TurnResult(turn_id={self.turn_id!r}, status={self.status!r}, "
            f"final_response={self.final_response!r}, items={len(self.items)})"
        )


def aio(f: Callable[Concatenate[Any, _P], R]) -> Callable[Concatenate[Any, _P], Coroutine[Any, Any, R]]:
    """The async client's form of a sync client method whose body only returns what the shared
    helpers give (they return the value in the sync client, an awaitable in the async one): one
    implementation and its docstring behind both surfaces, typed for each."""
    call = cast(Callable[..., Awaitable[R]], f)

    async def method(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> R:
        return await call(self, *args, **kwargs)

    for name in ("__module__", "__name__", "__doc__"):
        setattr(method, name, getattr(f, name))
    method.__qualname__ = "Async" + f.__qualname__  # Client.x -> AsyncClient.x
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


def weak_handler(method: Callable[[Any], None]) -> Callable[[Any], None]:
    """A handler for native code (the core's dispatch thread, a turn) that calls the bound
    ``method`` of a client through a weak reference, because the cycle collector cannot see
    references held in native code (a client and a turn referring to each other would never
    be collected). Once the client is gone, server requests are answered fail-closed."""
    ref = weakref.WeakMethod(method)

    def handle(ev: Any) -> None:
        bound = ref()
        if bound is not None:
            bound(ev)
        elif type(ev) is ServerRequest:
            fail_closed(ev)

    return handle


def fail_closed(request: ServerRequest) -> None:
    """Answer a request fail-closed unless it was answered already."""
    if request.is_open:
        try:
            request.fail_closed()
        except Exception as e:  # connection gone or resolved meanwhile
            logger.debug("fail-closed answer to %s not sent: %s", request.method, e)


def finish(request: ServerRequest, value: Any) -> None:
    """Send a handler's return value (``None`` means the handler answers itself).

    An answer the request cannot take (not JSON, or for an approval not one of the method's
    decisions; checked by the core) is logged as an error and the request declined.
    """
    if value is None or not request.is_open:
        return
    try:
        request.answer(value)
    except InvalidArgumentError as e:
        logger.error(
            "handler for server request %s returned an invalid answer; declining: %s",
            request.method,
            e,
        )
        fail_closed(request)
    except Exception:
        logger.exception("answering server request %s failed; declining", request.method)
        fail_closed(request)


def handler_failed(request: Optional[ServerRequest], exc: Optional[BaseException] = None) -> None:
    """Log a handler that raised (``exc``, else the exception being handled); a server
    request is declined."""
    info = exc if exc is not None else True
    if request is None:
        logger.error("event handler raised", exc_info=info)
    else:
        logger.error("handler for server request %s raised; declining", request.method, exc_info=info)
        fail_closed(request)


class ClientBase:
    """What :class:`Client` and :class:`AsyncClient` share: options, handlers, dispatch and
    the helpers. A subclass supplies :meth:`_call` (blocking or awaitable) and the typed
    methods around it."""

    _callbacks = False
    """Whether the core runs the handlers on its dispatch thread (else the loop drains)."""

    def __init__(
        self,
        *,
        codex_bin: Optional[PathLike] = None,
        args: Sequence[str] = (),
        config: Optional[Mapping[str, Any]] = None,
        env: Optional[Mapping[str, str]] = None,
        clear_env: bool = False,
        cwd: Optional[PathLike] = None,
        codex_home: Optional[PathLike] = None,
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
        reply_spin: Optional[float] = None,
        dedicated_dispatch_thread: bool = False,
        transport: Optional[str] = None,
        token: Optional[str] = None,
        command: Optional[Sequence[PathLike]] = None,
        headers: Optional[Mapping[str, str]] = None,
        mcp_roots: Optional[Sequence[Root]] = None,
        mcp_capabilities: Optional[Mapping[str, Any]] = None,
        reconnect: Union[bool, Mapping[str, float], None] = None,
        heartbeat: Union[bool, Mapping[str, float], None] = None,
        tls_ca_file: Optional[PathLike] = None,
        tls_client_cert: Optional[Tuple[PathLike, PathLike]] = None,
    ) -> None:
        opts = dict(locals())
        del opts["self"], opts["config"]
        opts["reconnect"] = _policy(reconnect, "reconnect", ("max_attempts", "base", "cap"))
        opts["heartbeat"] = _policy(heartbeat, "heartbeat", ("interval", "timeout"))
        if tls_ca_file is not None:
            opts["tls_ca_file"] = os.fspath(tls_ca_file)
        if tls_client_cert is not None:
            if not (isinstance(tls_client_cert, tuple) and len(tls_client_cert) == 2):
                raise InvalidArgumentError("tls_client_cert is a (cert_path, key_path) pair")
            opts["tls_client_cert"] = (os.fspath(tls_client_cert[0]), os.fspath(tls_client_cert[1]))
        if isinstance(command, (str, bytes)):
            raise InvalidArgumentError(
                "command must be a list ([PROGRAM, ARG, ...]); for a command line use "
                "transport='mcp+stdio:PROGRAM ARG ...'"
            )
        if command is not None:
            opts["command"] = [os.fspath(a) for a in command]
        if headers is not None:
            opts["headers"] = [(str(k), str(v)) for k, v in as_params(headers, "headers").items()]
        if mcp_roots is not None:
            opts["mcp_roots"] = [_root(r) for r in mcp_roots]
        if mcp_capabilities is not None:
            opts["mcp_capabilities"] = dumps(as_params(mcp_capabilities, "mcp_capabilities"))
        # ``config`` values that are not strings are written as JSON (which TOML reads for
        # numbers, booleans, strings and arrays); strings are passed through as TOML text.
        overrides: List[Tuple[str, str]] = []
        for k, v in as_params(config, "config").items():
            try:
                overrides.append((str(k), v if isinstance(v, str) else dumps(v)))
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"config[{k!r}]: {e}") from None
        opts.update(
            args=[str(a) for a in args],
            env=[(str(k), str(v)) for k, v in (env or {}).items()],
            opt_out_notification_methods=list(opt_out_notification_methods),
        )
        self._native = _native.NativeClient(
            config_overrides=overrides, callbacks=self._callbacks, **opts
        )
        self._request_handlers: Dict[str, Callable[[Any], Any]] = {}
        self._notification_handler: Optional[Callable[[Any], Any]] = None
        self._connection_handler: Optional[ConnectionHandler] = None
        self._init: Optional[InitializeResult] = None
        self._life = track_client(self, self._native)
        self._setup()

    def _setup(self) -> None:
        """Set up the subclass's delivery (end of ``__init__``)."""

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

    def _connected(self, init: Tuple[Any, ...]) -> InitializeResult:
        raw, agent, home, family, os_, version, caps, info, instructions = init
        self._init = InitializeResult(
            loads(raw), agent, home, family, os_, version,
            None if caps is None else loads(caps),
            None if info is None else loads(info),
            instructions,
        )
        self._life.open = True
        return self._init

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

        def then(r: Tuple[str, Optional[str]]) -> Any:
            result = loads(r[0])
            return result if r[1] is None else self._thread_class(self, r[1], result)

        return self._call(lambda aio: self._native.helper(name, thread_id, a, p, timeout, aio), then)

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
        self, thread_id: str, input: Input, overrides: Mapping[str, Any], skills: Skills = None
    ) -> Any:
        i, o = input_json(input), build_params(None, overrides)
        sk = skills_list_arg(skills)
        h = weak_handler(self._handle_request)
        start = lambda aio: self._native.start_turn(thread_id, i, o, h, aio, sk)  # noqa: E731
        return self._call(start, lambda nt: self._turn_class(self, nt))

    # -- handlers ----------------------------------------------------------------------------

    def on_server_request(self, method: str, handler: H) -> H:
        """Handle server requests of ``method`` (``"*"``: every method without its own handler).

        The handler gets the :class:`ServerRequest` and may return the answer (for approvals
        just the decision, e.g. ``"accept"``), return ``None`` after answering it itself, or
        keep it and answer later (deferred). It may be ``async def``. If it raises, or returns
        an answer the request cannot take (not JSON; for approvals a decision that is not one
        of the method's), the request is declined and the error logged on the ``codexclient``
        logger. Requests without a handler are declined (approvals) or refused with a
        JSON-RPC error.
        """
        self._set_request_handler(method, handler)
        return handler

    def _set_request_handler(self, method: str, handler: Callable[[Any], Any]) -> None:
        self._request_handlers[method] = handler

    def on_command_approval(self, handler: HCommand) -> HCommand:
        """Handle command approvals (``item/commandExecution/requestApproval``; see
        :meth:`on_server_request`). Usable as a decorator; returns ``handler``."""
        self._set_request_handler(COMMAND_APPROVAL, handler)
        return handler

    def on_file_change_approval(self, handler: HFileChange) -> HFileChange:
        """Handle file-change approvals (``item/fileChange/requestApproval``)."""
        self._set_request_handler(FILE_CHANGE_APPROVAL, handler)
        return handler

    def on_permissions_request(self, handler: HPermissions) -> HPermissions:
        """Handle permission requests (``item/permissions/requestApproval``; return the whole
        result)."""
        self._set_request_handler(_METHODS["permissions_request"], handler)
        return handler

    def on_user_input(self, handler: HUserInput) -> HUserInput:
        """Handle user-input requests (``item/tool/requestUserInput``; the whole result)."""
        self._set_request_handler(_METHODS["user_input"], handler)
        return handler

    def on_elicitation(self, handler: HElicitation) -> HElicitation:
        """Handle elicitations: an MCP server's ``elicitation/create`` and Codex's relayed
        ``mcpServer/elicitation/request``. Return the whole result: ``{"action": "accept",
        "content": {...}}``, ``{"action": "decline"}`` or ``{"action": "cancel"}``. For an
        MCP form elicitation accepted with fields left out, the core fills in the defaults
        of the requested schema. Without a handler elicitations are declined."""
        self._set_request_handler(_METHODS["elicitation"], handler)
        self._set_request_handler(ELICITATION, handler)
        return handler

    def on_sampling(self, handler: HMcp) -> HMcp:
        """Handle an MCP server's requests to sample an LLM (``sampling/createMessage``):
        return the whole result (``{"role": "assistant", "content": {...}, "model": ...,
        "stopReason": ...}``). Without a handler they are refused with a JSON-RPC error."""
        self._set_request_handler(SAMPLING, handler)
        return handler

    def on_roots(self, handler: HMcp) -> HMcp:
        """Handle an MCP server's requests for the client's roots (``roots/list``; return
        the whole result, ``{"roots": [...]}``). Only asked when the client was created
        without ``mcp_roots`` (which the core answers itself); without either they are
        refused with a JSON-RPC error."""
        self._set_request_handler(ROOTS, handler)
        return handler

    def on_tool_call(self, handler: HToolCall) -> HToolCall:
        """Handle dynamic tool calls (``item/tool/call``; return the whole result)."""
        self._set_request_handler(_METHODS["tool_call"], handler)
        return handler

    @overload
    def on_notification(self, handler: HNotification) -> HNotification: ...
    @overload
    def on_notification(self, handler: None) -> None: ...
    def on_notification(self, handler: Optional[Callable[[Any], Any]]) -> Optional[Callable[[Any], Any]]:
        """Call ``handler(notification)`` for every notification not routed to a turn being
        streamed (``None`` removes it). It may be ``async def``."""
        self._notification_handler = handler
        self._native.set_want_notifications(handler is not None)
        return handler

    @overload
    def on_connection_event(self, handler: HConnection) -> HConnection: ...
    @overload
    def on_connection_event(self, handler: None) -> None: ...
    def on_connection_event(self, handler: Optional[ConnectionHandler]) -> Optional[ConnectionHandler]:
        """Call ``handler(event)`` for connection events (errors, overflow, disconnect)."""
        self._connection_handler = handler
        return handler

    def _run_coroutine(self, request: Optional[ServerRequest], awaitable: Any) -> None:
        """Run a handler's awaitable; with ``request``, send its value as the answer."""
        raise NotImplementedError

    def _run_result(self, value: Any) -> None:
        """Run what an event handler returned when it is awaitable (``async def`` handlers)."""
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            self._run_coroutine(None, value)

    def _handle_request(self, request: ServerRequest) -> None:
        """Run the handler of one server request (from the dispatcher or a turn)."""
        handler = self._request_handlers.get(request.method) or self._request_handlers.get("*")
        if handler is None:
            logger.info("no handler for server request %s; declining", request.method)
            fail_closed(request)
            return
        try:
            value = handler(request)
        except Exception:
            handler_failed(request)
            return
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            self._run_coroutine(request, value)
            return
        finish(request, value)

    def _dispatch(self, ev: Any) -> None:
        """Dispatch one event of the client's own delivery to its handlers."""
        try:
            if type(ev) is ServerRequest:
                self._handle_request(ev)
            elif type(ev) is ConnectionEvent:
                h = self._connection_handler
                if ev.kind == "reconnected":
                    logger.info("connection event: %s", ev.message)
                elif ev.kind != "disconnected":
                    logger.warning("connection event: %s", ev.message)
                if h is not None:
                    self._run_result(h(ev))
            else:
                nh = self._notification_handler
                if nh is not None:
                    self._run_result(nh(ev))
        except Exception:
            logger.exception("event handler raised")


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

    def __init__(self, client: Any, thread_id: str, info: Mapping[str, Any]) -> None:
        self._client = client
        #: The thread id.
        self.id = thread_id
        #: The result of the request that opened the thread (``thread/start`` etc.), if any.
        self.info: Dict[str, Any] = dict(info)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"

    @property
    def status(self) -> str:
        """Status derived from ``thread/status/changed`` (``idle``, ``active``, ...)."""
        status: str = self._client._native.thread_status(self.id)
        return status

    def _helper(self, name: str, arg: Any = None, **kwargs: Any) -> Any:
        return self._client._helper(name, self.id, arg, None, kwargs)


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
# Clean-up at exit


class Lifecycle:
    """What a client's finalizer needs: its native client and whether it is open.

    It never refers to the client, so that nothing keeps an unreferenced client alive: the
    core's dispatch thread (sync) and the loop's reader (async) hold only a weak reference to
    it.
    """

    __slots__ = ("native", "kind", "open", "__weakref__")

    def __init__(self, native: _native.NativeClient, kind: str) -> None:
        self.native = native
        self.kind = kind
        #: Connected and not closed since.
        self.open = False

    def release(self, warn: bool) -> None:
        """Stop the server (blocking); with ``warn``, emit a :class:`ResourceWarning` if the
        client was left open."""
        if self.open and warn:
            warnings.warn(
                f"unclosed {self.kind}: call close() or use it as a context manager",
                ResourceWarning,
            )
        self.open = False
        self.native.disconnect()


_lifecycles: "weakref.WeakSet[Lifecycle]" = weakref.WeakSet()


def track_client(client: Any, native: _native.NativeClient) -> Lifecycle:
    """The :class:`Lifecycle` of a new client: when the client is garbage-collected its server
    is stopped (with a :class:`ResourceWarning` if it was not closed); at interpreter exit
    every client still alive is disconnected."""
    life = Lifecycle(native, type(client).__name__)
    fin = weakref.finalize(client, life.release, True)
    fin.atexit = False
    _lifecycles.add(life)
    return life


@atexit.register
def _shutdown() -> None:
    for life in list(_lifecycles):
        try:
            life.release(False)
        except Exception:
            pass
    _native.shutdown_logging()


__all__: Tuple[str, ...] = ()
