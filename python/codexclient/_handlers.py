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


class Handlers:
    """The handler registration both clients share; the client's own delivery calls
    :meth:`_dispatch` for each event (the sync client on the core's dispatch thread, the
    async one on the loop)."""

    _native: _native.NativeClient
    _request_handlers: Dict[str, Callable[[Any], Any]]
    _notification_handler: Optional[Callable[[Any], Any]]
    _connection_handler: Optional[ConnectionHandler]

    def _init_handlers(self) -> None:
        self._request_handlers = {}
        self._notification_handler = None
        self._connection_handler = None


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
