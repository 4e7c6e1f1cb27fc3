"""Server-request, notification and connection-event handlers: their types, the registration
methods both clients share (:class:`Handlers`), and how a handler's return value becomes the
answer (fail-closed when it raises or returns an answer the request cannot take)."""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, TypeVar, Union, overload

from . import _native
from ._errors import InvalidArgumentError
from ._native import ConnectionEvent, Notification, Progress, ServerRequest

if TYPE_CHECKING:
    from . import protocol as p

logger = logging.getLogger("codexclient")

if TYPE_CHECKING:
    Event = p.Event
else:
    Event = Union[Notification, ServerRequest, ConnectionEvent]
"""One event: a notification, a server request or a connection event. For type checkers the
union of the typed events of :mod:`codexclient.protocol`: ``event.method == "..."`` narrows
it to that method's class, with typed ``params``."""

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

NotificationHandler = Callable[[Notification], Any]
ConnectionHandler = Callable[[ConnectionEvent], Any]
HNotification = TypeVar("HNotification", bound="Callable[[p.NotificationEvent], Any]")
"""A notification handler's own type: it may take the typed union (and narrow on
``.method``) or the bare :class:`Notification`."""
HConnection = TypeVar("HConnection", bound=ConnectionHandler)

ProgressHandler = Callable[[Progress], Any]
"""Receives each progress update of a tool call (may be ``async def`` in the async client)."""

_METHODS: Dict[str, str] = _native.REQUEST_METHODS
COMMAND_APPROVAL = _METHODS["command_approval"]
FILE_CHANGE_APPROVAL = _METHODS["file_change_approval"]
SAMPLING = _METHODS["sampling"]
"""The MCP server request asking the client to sample an LLM (``sampling/createMessage``)."""
ELICITATION = _METHODS["mcp_elicitation"]
"""The MCP server request asking the user for input (``elicitation/create``)."""
ROOTS = _METHODS["roots"]
"""The MCP server request for the client's roots (``roots/list``)."""


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


def _awaitable(value: Any) -> bool:
    return asyncio.iscoroutine(value) or isinstance(value, asyncio.Future)


class Handlers:
    """The handler registration both clients share. Handlers live in the core's handler table,
    which decides who handles what (a method's handler, else the ``"*"`` fallback, else
    fail-closed); this class only wraps each Python callable as a core handler (the answer
    from its return value, ``async def`` handlers run by the client, errors logged). The
    core runs them on its dispatch thread (:class:`CodexClient`, :class:`McpClient`), on the loop thread when the
    event descriptor is readable (:class:`AsyncCodexClient`, :class:`AsyncMcpClient`), or as a turn being iterated hands
    its server requests over."""

    _native: _native.NativeClient

    def _init_handlers(self) -> None:
        # Connection events are always logged on the ``codexclient`` logger.
        self._native.on_connection_event(self._event_runner(None, log=True))

    def _client_ref(self) -> Callable[[], Optional["Handlers"]]:
        # The wrappers live in native code: a strong reference to the client there would be
        # one the cycle collector cannot see past (the client shows the wrappers to it).
        return weakref.ref(self)

    def _request_runner(self, handler: Callable[[Any], Any]) -> Callable[[ServerRequest], None]:
        """``handler`` as the core calls it: its return value sent as the answer (``None``:
        it answers itself), an awaitable one run by the client; raising declines."""
        ref = self._client_ref()

        def run(request: ServerRequest) -> None:
            try:
                value = handler(request)
            except Exception:
                handler_failed(request)
                return
            if _awaitable(value):
                client = ref()
                if client is None:
                    value.close() if asyncio.iscoroutine(value) else value.cancel()
                    fail_closed(request)
                else:
                    client._run_coroutine(request, value)
                return
            finish(request, value)

        return run

    def _event_runner(
        self, handler: Optional[Callable[[Any], Any]], log: bool = False
    ) -> Callable[[Any], None]:
        """``handler`` for notifications or connection events (``log``: connection events,
        logged first); an awaitable result is run by the client."""
        ref = self._client_ref()

        def run(ev: Any) -> None:
            try:
                if log:
                    # outside_window, version_mismatch: the core logged its WARNING already.
                    if ev.kind in ("reconnected", "outside_window", "version_mismatch") or (ev.kind == "auth" and ev.auth != "failed"):
                        logger.info("connection event: %s", ev.message)
                    elif ev.kind != "disconnected":
                        logger.warning("connection event: %s", ev.message)
                if handler is None:
                    return
                value = handler(ev)
                if _awaitable(value):
                    client = ref()
                    if client is not None:
                        client._run_coroutine(None, value)
            except Exception:
                logger.exception("event handler raised")

        return run

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
        self._native.on_request(None if method == "*" else method, self._request_runner(handler))

    @overload
    def on_notification(self, handler: HNotification) -> HNotification: ...
    @overload
    def on_notification(self, handler: None) -> None: ...
    def on_notification(self, handler: Optional[Callable[[Any], Any]]) -> Optional[Callable[[Any], Any]]:
        """Call ``handler(notification)`` for every notification not routed to a turn being
        streamed (``None`` removes it). It may be ``async def``."""
        self._native.on_notification(None if handler is None else self._event_runner(handler))
        return handler

    @overload
    def on_connection_event(self, handler: HConnection) -> HConnection: ...
    @overload
    def on_connection_event(self, handler: None) -> None: ...
    def on_connection_event(self, handler: Optional[ConnectionHandler]) -> Optional[ConnectionHandler]:
        """Call ``handler(event)`` for connection events (errors, overflow, disconnect)."""
        self._native.on_connection_event(self._event_runner(handler, log=True))
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

    def _run_coroutine(self, request: Optional[ServerRequest], awaitable: Any) -> None:
        """Run a handler's awaitable; with ``request``, send its value as the answer."""
        raise NotImplementedError


class CodexHandlers(Handlers):
    """The handlers of Codex's server requests (approvals, user input, dynamic tools):
    :class:`CodexClient` and :class:`AsyncCodexClient`."""

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

    def on_tool_call(self, handler: HToolCall) -> HToolCall:
        """Handle dynamic tool calls (``item/tool/call``; return the whole result)."""
        self._set_request_handler(_METHODS["tool_call"], handler)
        return handler


class McpHandlers(Handlers):
    """The handlers of an MCP server's requests (sampling, roots): :class:`McpClient` and
    :class:`AsyncMcpClient`."""

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
