"""Pieces shared by the sync and the async client."""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import threading
import warnings
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _native
from ._errors import InvalidArgumentError
from ._native import ConnectionEvent, Notification, ServerRequest

logger = logging.getLogger("codexclient")

Event = Union[Notification, ServerRequest, ConnectionEvent]
"""One event: a notification, a server request or a connection event."""

InputItem = Mapping[str, Any]
Input = Union[str, InputItem, Sequence[Union[str, InputItem]]]
"""Turn input: a string, one input item (``{"type": "text", ...}``) or a list of them."""

RequestHandler = Callable[[ServerRequest], Any]
"""A server-request handler: ``handler(request)`` returning an answer, ``None`` (it answers
itself, now or later), or an awaitable of either."""

NotificationHandler = Callable[[Notification], Any]
ConnectionHandler = Callable[[ConnectionEvent], Any]

loads = json.loads


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


def as_params(params: Optional[Mapping[str, Any]], what: str = "params") -> Dict[str, Any]:
    """``params`` as a new dict (``None``: empty); anything but a mapping raises
    :class:`InvalidArgumentError`."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise InvalidArgumentError(f"{what} must be a mapping, not {type_name(params)}")
    return dict(params)


def params_json(params: Optional[Mapping[str, Any]]) -> str:
    """JSON text of request params (``None``: ``{}``), see :func:`dumps`."""
    return dumps(as_params(params))

COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"
_V1_APPROVALS = {"execCommandApproval", "applyPatchApproval"}
_APPROVALS = {COMMAND_APPROVAL, FILE_CHANGE_APPROVAL} | _V1_APPROVALS


def text(value: str) -> Dict[str, Any]:
    """A text input item."""
    return {"type": "text", "text": value, "text_elements": []}


def image_url(url: str) -> Dict[str, Any]:
    """An image input item given by URL (``https://`` or ``data:``)."""
    return {"type": "image", "url": url}


def local_image(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """A local image file input item."""
    return {"type": "localImage", "path": os.fspath(path)}


def input_items(value: Input) -> List[Any]:
    """Normalize turn input into the list of input items ``turn/start`` takes."""
    if isinstance(value, str):
        return [text(value)]
    if isinstance(value, Mapping):
        return [dict(value)]
    if not isinstance(value, Sequence):
        raise InvalidArgumentError(
            f"turn input must be a string, an input item or a list of them, not {type_name(value)}"
        )
    out: List[Any] = []
    for item in value:
        out.append(text(item) if isinstance(item, str) else as_params(item, "an input item"))
    return out


def camel(name: str) -> str:
    """``approval_policy`` -> ``approvalPolicy`` (names without ``_`` are kept)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def build_params(params: Optional[Mapping[str, Any]], kwargs: Mapping[str, Any]) -> Dict[str, Any]:
    """Merge a params mapping and snake_case keyword arguments (converted to camelCase)."""
    out = as_params(params)
    for k, v in kwargs.items():
        out[camel(k)] = v
    return out


class InitializeResult:
    """What the server answered to ``initialize``."""

    __slots__ = ("user_agent", "codex_home", "platform_family", "platform_os", "raw")

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.raw = raw
        self.user_agent: Optional[str] = raw.get("userAgent")
        self.codex_home: Optional[str] = raw.get("codexHome")
        self.platform_family: Optional[str] = raw.get("platformFamily")
        self.platform_os: Optional[str] = raw.get("platformOs")

    def __repr__(self) -> str:
        return f"InitializeResult(user_agent={self.user_agent!r}, codex_home={self.codex_home!r})"


class TurnResult:
    """What a finished turn produced."""

    __slots__ = (
        "thread_id",
        "turn_id",
        "status",
        "final_response",
        "items",
        "usage",
        "diff",
        "error",
        "turn",
    )

    def __init__(self, data: Dict[str, Any]) -> None:
        self.thread_id: str = data.get("thread_id", "")
        self.turn_id: str = data.get("turn_id", "")
        #: ``completed``, ``interrupted``, ``failed`` (empty while the turn runs).
        self.status: str = data.get("status", "")
        #: Text of the last completed agent message.
        self.final_response: Optional[str] = data.get("final_response")
        #: Every item completed during the turn, in order.
        self.items: List[Dict[str, Any]] = data.get("items") or []
        #: The last token usage reported during the turn.
        self.usage: Optional[Dict[str, Any]] = data.get("usage")
        #: The turn's last unified diff.
        self.diff: Optional[str] = data.get("diff")
        #: The turn's error object, when it failed.
        self.error: Optional[Dict[str, Any]] = data.get("error")
        #: The whole ``turn`` object of ``turn/completed``.
        self.turn: Any = data.get("turn")

    @property
    def completed(self) -> bool:
        """Whether the turn completed normally."""
        return self.status == "completed"

    def __repr__(self) -> str:
        return (
            f"TurnResult(turn_id={self.turn_id!r}, status={self.status!r}, "
            f"final_response={self.final_response!r}, items={len(self.items)})"
        )


def answer_for(method: str, value: Any) -> Any:
    """Turn a handler's return value into the result sent to the server.

    For approvals a decision may be returned alone (``"accept"``, ``"decline"``,
    ``{"acceptWithExecpolicyAmendment": {...}}``, ``True``/``False``); it is wrapped as
    ``{"decision": ...}``. Any other request's handler returns the whole result.
    """
    if method not in _APPROVALS:
        return value
    if value is True:
        value = "approved" if method in _V1_APPROVALS else "accept"
    elif value is False:
        value = "denied" if method in _V1_APPROVALS else "decline"
    if isinstance(value, Mapping) and "decision" in value:
        return value
    return {"decision": value}


class Handlers:
    """Registration of server-request, notification and connection-event handlers."""

    def __init__(self) -> None:
        self._request_handlers: Dict[str, RequestHandler] = {}
        self._notification_handler: Optional[NotificationHandler] = None
        self._connection_handler: Optional[ConnectionHandler] = None

    def on_server_request(self, method: str, handler: RequestHandler) -> RequestHandler:
        """Handle server requests of ``method`` (``"*"``: every method without its own handler).

        The handler gets the :class:`ServerRequest` and may return the answer (for approvals
        just the decision, e.g. ``"accept"``), return ``None`` after answering it itself, or
        keep it and answer later (deferred). It may be ``async def``. If it raises, or returns
        an answer the request cannot take (not JSON; for approvals a decision that is not one
        of the method's), the request is declined and the error logged on the ``codexclient``
        logger. Requests without a handler are declined (approvals) or refused with a
        JSON-RPC error.
        """
        self._request_handlers[method] = handler
        return handler

    def on_command_approval(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``item/commandExecution/requestApproval`` (see :meth:`on_server_request`)."""
        return self.on_server_request(COMMAND_APPROVAL, handler)

    def on_file_change_approval(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``item/fileChange/requestApproval``."""
        return self.on_server_request(FILE_CHANGE_APPROVAL, handler)

    def on_permissions_request(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``item/permissions/requestApproval`` (return the whole result)."""
        return self.on_server_request("item/permissions/requestApproval", handler)

    def on_user_input(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``item/tool/requestUserInput`` (return the whole result)."""
        return self.on_server_request("item/tool/requestUserInput", handler)

    def on_elicitation(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``mcpServer/elicitation/request`` (return the whole result)."""
        return self.on_server_request("mcpServer/elicitation/request", handler)

    def on_tool_call(self, handler: RequestHandler) -> RequestHandler:
        """Handle ``item/tool/call`` (dynamic tools; return the whole result)."""
        return self.on_server_request("item/tool/call", handler)

    def on_notification(self, handler: Optional[NotificationHandler]) -> Optional[NotificationHandler]:
        """Call ``handler(notification)`` for every notification not routed to a turn being
        streamed (``None`` removes it)."""
        self._notification_handler = handler
        self._want_notifications(handler is not None)
        return handler

    def on_connection_event(self, handler: Optional[ConnectionHandler]) -> Optional[ConnectionHandler]:
        """Call ``handler(event)`` for connection events (errors, overflow, disconnect)."""
        self._connection_handler = handler
        return handler

    def _want_notifications(self, on: bool) -> None:
        raise NotImplementedError

    def _run_coroutine(self, request: Optional[ServerRequest], awaitable: Any) -> None:
        """Run a handler's awaitable; with ``request``, send its value as the answer."""
        raise NotImplementedError

    def _run_result(self, value: Any) -> None:
        """Run what an event handler returned when it is awaitable (``async def`` handlers)."""
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            self._run_coroutine(None, value)

    def _handle_request(self, request: ServerRequest) -> None:
        """Run the handler of one server request (called by the native layer and the dispatcher)."""
        handler = self._request_handlers.get(request.method) or self._request_handlers.get("*")
        if handler is None:
            logger.info("no handler for server request %s; declining", request.method)
            fail_closed(request)
            return
        try:
            value = handler(request)
        except Exception:
            logger.exception("handler for server request %s raised; declining", request.method)
            fail_closed(request)
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
                if ev.kind != "disconnected":
                    logger.warning("connection event: %s", ev.message)
                if h is not None:
                    self._run_result(h(ev))
            else:
                nh = self._notification_handler
                if nh is not None:
                    self._run_result(nh(ev))
        except Exception:
            logger.exception("event handler raised")


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


def native_handler(client: Handlers) -> Callable[[ServerRequest], None]:
    """``client``'s server-request handler for a turn (see :func:`weak_handler`)."""
    return weak_handler(client._handle_request)


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
    decisions; checked by the native layer) is logged as an error and the request declined.
    """
    if value is None or not request.is_open:
        return
    try:
        request.respond(answer_for(request.method, value))
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


# ---------------------------------------------------------------------------------------------
# Log forwarding and clean-up at exit


_log_thread: Optional[threading.Thread] = None
_log_lock = threading.Lock()


def _forward_logs() -> None:
    for level, name, message in _native.LogStream():
        lg = logging.getLogger(name)
        if lg.isEnabledFor(level):
            lg.log(level, "%s", message)


def start_log_forwarding() -> None:
    """Start the thread that forwards the core's log records to ``logging`` (once)."""
    global _log_thread
    with _log_lock:
        if _log_thread is None:
            _log_thread = threading.Thread(
                target=_forward_logs, name="codexclient-log", daemon=True
            )
            _log_thread.start()


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
    t = _log_thread
    if t is not None:
        t.join(timeout=1.0)


def run_coroutine_blocking(awaitable: Any) -> Any:
    """Run an awaitable to completion from synchronous code."""

    async def wrap() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: List[Any] = []
    err: List[BaseException] = []

    def target() -> None:
        try:
            box.append(asyncio.run(wrap()))
        except BaseException as e:  # noqa: BLE001 - re-raised below
            err.append(e)

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if err:
        raise err[0]
    return box[0] if box else None


def native_options(
    *,
    codex_bin: Optional[Union[str, "os.PathLike[str]"]],
    args: Sequence[str],
    config: Optional[Mapping[str, Any]],
    env: Optional[Mapping[str, str]],
    clear_env: bool,
    cwd: Optional[Union[str, "os.PathLike[str]"]],
    codex_home: Optional[Union[str, "os.PathLike[str]"]],
    client_name: Optional[str],
    client_title: Optional[str],
    client_version: Optional[str],
    experimental_api: bool,
    opt_out_notification_methods: Sequence[str],
    default_timeout: Optional[float],
    retry_max_attempts: Optional[int],
    retry_base: Optional[float],
    retry_cap: Optional[float],
    event_queue_capacity: Optional[int],
    max_line_bytes: Optional[int],
    connect_timeout: Optional[float] = None,
    read_ahead_bytes: Optional[int] = None,
) -> Dict[str, Any]:
    """Keyword arguments of ``_native.NativeClient`` from the public client options.

    ``config`` values that are not strings are written as JSON (which TOML reads for
    numbers, booleans, strings and arrays); strings are passed through as TOML text.
    """
    overrides: List[Tuple[str, str]] = []
    for k, v in as_params(config, "config").items():
        try:
            overrides.append((str(k), v if isinstance(v, str) else dumps(v)))
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"config[{k!r}]: {e}") from None
    return dict(
        codex_bin=os.fspath(codex_bin) if codex_bin is not None else None,
        args=[str(a) for a in args],
        config_overrides=overrides,
        env=[(str(k), str(v)) for k, v in (env or {}).items()],
        clear_env=clear_env,
        cwd=os.fspath(cwd) if cwd is not None else None,
        codex_home=os.fspath(codex_home) if codex_home is not None else None,
        client_name=client_name,
        client_title=client_title,
        client_version=client_version,
        experimental_api=experimental_api,
        opt_out_notification_methods=list(opt_out_notification_methods),
        default_timeout=default_timeout,
        retry_max_attempts=retry_max_attempts,
        retry_base=retry_base,
        retry_cap=retry_cap,
        event_queue_capacity=event_queue_capacity,
        max_line_bytes=max_line_bytes,
        connect_timeout=connect_timeout,
        read_ahead_bytes=read_ahead_bytes,
    )


def thread_id_of(result: Mapping[str, Any]) -> str:
    """The thread id in a ``thread/start``/``resume``/``fork`` result."""
    thread = result.get("thread") or {}
    tid = thread.get("id") if isinstance(thread, Mapping) else None
    if not isinstance(tid, str):
        from ._errors import ProtocolError

        raise ProtocolError(f"thread result without a thread id: {dict(result)!r}")
    return tid


__all__: Tuple[str, ...] = ()
