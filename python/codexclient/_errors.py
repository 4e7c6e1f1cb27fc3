"""Exceptions raised by codexclient. Every error from the library is a :class:`CodexError`."""

from __future__ import annotations

from typing import Any, List, Optional


class CodexError(Exception):
    """Base class of every exception raised by codexclient."""


class ConnectionClosedError(CodexError):
    """The connection to the server ended (the server exited, crashed or was disconnected).

    ``stderr_tail`` holds the last lines the server wrote to stderr, ``reason`` the cause.
    """

    def __init__(self, message: str, *, reason: str = "", stderr_tail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.stderr_tail = stderr_tail


class ConnectionLostError(ConnectionClosedError):
    """The connection dropped while the request was in flight and the client is reconnecting
    (``reconnect=``): whether the server acted on it is unknown. Retry it after the
    ``reconnected`` connection event (``retryable`` is True). Answering a server request of
    the lost connection raises it too: the server asks again after the rejoin. A subclass of
    :class:`ConnectionClosedError`, so code written before reconnect still catches it."""

    retryable = True


class NotConnectedError(CodexError):
    """A method that needs a connection was called before ``connect()`` or after ``close()``."""


class AlreadyConnectedError(CodexError):
    """``connect()`` was called on a connected client."""


class RequestTimeoutError(CodexError, TimeoutError):
    """A request got no answer within its timeout (also a builtin :class:`TimeoutError`)."""

    def __init__(self, message: str, *, method: str = "", timeout: float = 0.0) -> None:
        super().__init__(message)
        self.method = method
        self.timeout = timeout


class RpcError(CodexError):
    """The server answered with a JSON-RPC error.

    ``code`` (int), ``message`` (the server's message; also ``server_message``) and ``data``
    (the error's ``data`` member as Python objects, or ``None``).
    """

    def __init__(
        self,
        message: str,
        *,
        code: int = 0,
        server_message: str = "",
        data: Optional[Any] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.server_message = server_message
        #: The server's error message (same as ``server_message``).
        self.message = server_message
        self.data = data


class OverloadedError(RpcError):
    """The server kept answering -32001 (overloaded) after every retry (``attempts``)."""

    def __init__(
        self,
        message: str,
        *,
        code: int = -32001,
        server_message: str = "",
        data: Optional[Any] = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message, code=code, server_message=server_message, data=data)
        self.attempts = attempts


class InvalidRequestError(RpcError):
    """JSON-RPC -32600: the server rejected the request (unknown method, not initialized,
    experimental method without ``experimental_api``, ...)."""


class MethodNotFoundError(RpcError):
    """JSON-RPC -32601."""


class InvalidParamsError(RpcError):
    """JSON-RPC -32602: bad params (for example input too large)."""


class UrlElicitationRequiredError(RpcError):
    """MCP -32042: the request needs URL-mode elicitations completed first.

    ``elicitations`` is the list the server sent (dicts with ``mode`` ``"url"``, ``message``,
    ``url``, ``elicitationId``). Show each URL to the user, wait for the server's
    ``notifications/elicitation/complete`` of each (``wait_elicitations_complete``), then call
    again."""

    def __init__(
        self,
        message: str,
        *,
        code: int = -32042,
        server_message: str = "",
        data: Optional[Any] = None,
        elicitations: Optional[List[Any]] = None,
    ) -> None:
        super().__init__(message, code=code, server_message=server_message, data=data)
        self.elicitations = list(elicitations or [])


class ProtocolError(CodexError):
    """The server sent something that breaks the protocol."""


class OutputSchemaError(ProtocolError):
    """An MCP tool's ``structuredContent`` does not match the tool's ``outputSchema``
    (option ``mcp_validate_output``). ``tool``, ``path`` (JSON pointer of the failing value),
    ``reason`` and ``result`` (the result as the server sent it)."""

    def __init__(
        self,
        message: str,
        *,
        tool: str = "",
        path: str = "",
        reason: str = "",
        result: Optional[Any] = None,
    ) -> None:
        super().__init__(message)
        self.tool = tool
        self.path = path
        self.reason = reason
        self.result = result


class TransportError(CodexError):
    """The server could not be started, or reading from / writing to it failed."""


class RequestCancelledError(CodexError):
    """The request was cancelled before its answer came (for example a tool call whose
    :meth:`~codexclient.ToolCall.cancel` was called); the server was told
    (MCP ``notifications/cancelled``). A cancelled asyncio task raises
    :class:`asyncio.CancelledError` instead, as asyncio wants, and cancels its request the
    same way."""


class InvalidArgumentError(CodexError, ValueError):
    """An argument was invalid (bad JSON, non-positive timeout, ...)."""


class InvalidStateError(CodexError):
    """The operation is not valid in the current state."""


class AlreadyRespondedError(InvalidStateError):
    """The server request was already answered, or resolved by the server."""


class UnsupportedError(CodexError):
    """The transport in use cannot do this."""


class UnsupportedByVersionError(UnsupportedError):
    """The connected Codex (a version of the supported window) does not have this method, by
    the window's method table: refused before anything was sent. ``method``,
    ``server_version`` and ``versions`` (the window versions that have it);
    :meth:`~codexclient.CodexClient.supports` asks first."""

    def __init__(
        self,
        message: str,
        *,
        method: str = "",
        server_version: str = "",
        versions: Optional[List[str]] = None,
    ) -> None:
        super().__init__(message)
        self.method = method
        self.server_version = server_version
        self.versions = list(versions or [])


class UnavailableError(CodexError):
    """No endpoint of a :class:`~codexclient.Pool` can take the call: none is healthy and
    accepting (raised at once), or each stayed at its limit of running turns until
    ``place_timeout``. The message names every endpoint and its state."""


def _hand_to_native() -> None:
    """Hand every exception class to the extension, which raises them by name (it imports
    nothing of this package)."""
    from . import _native

    classes = {k: v for k, v in globals().items() if isinstance(v, type) and issubclass(v, CodexError)}
    _native.set_error_classes(classes)


_hand_to_native()
