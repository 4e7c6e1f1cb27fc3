"""codexclient: a native client for OpenAI Codex's ``codex app-server`` and any MCP server.

A Rust core (pyo3 extension ``codexclient._native``) spawns the server, speaks its JSON-RPC
protocol and gives you, with :class:`CodexClient` (:class:`AsyncCodexClient`), threads, streamed turns and approvals with safe defaults: every request
has a timeout, a dead server fails every pending call at once with its stderr tail, and an
approval nobody handles (or whose handler raises) is declined. :class:`McpClient`
(:class:`AsyncMcpClient`) speaks to any MCP server. ``Client`` and ``AsyncClient`` are the Codex
clients under the names users have, with no MCP method (those are :class:`McpClient`'s).

Async::

    async with codexclient.AsyncCodexClient(codex_home=home) as client:
        thread = await client.thread_start()
        async for event in thread.run_streamed("Say hello"):
            if event.delta:
                print(event.delta, end="")

Sync::

    with codexclient.CodexClient(codex_home=home) as client:
        result = client.thread_start().run("Say hello")
        print(result.final_response)

MCP (any server; ``transport="http://…/mcp"`` for Streamable HTTP; ``AsyncMcpClient`` for
asyncio)::

    with codexclient.McpClient(command=["node", "server.js"]) as client:
        print([tool.name for tool in client.list_tools()])
        print(client.call_tool("echo", {"message": "hi"}).text)
"""

from __future__ import annotations

from ._async import AsyncCodexClient, AsyncEventStream, AsyncThread, AsyncTurn, StartingTurn
from ._mcp_async import AsyncMcpClient, AsyncToolCall
from ._account import AsyncLogin, Login
from . import _auth
from ._auth import Authorize, LoopbackBrowser, TokenStore
from ._handlers import COMMAND_APPROVAL, ELICITATION, FILE_CHANGE_APPROVAL, ROOTS, SAMPLING, Event
from ._inputs import Input, Root, image_url, local_image, text
from ._results import InitializeResult, Page, TurnResult
from ._errors import (
    AlreadyConnectedError,
    AlreadyRespondedError,
    CodexError,
    ConnectionClosedError,
    InvalidArgumentError,
    InvalidParamsError,
    InvalidRequestError,
    InvalidStateError,
    MethodNotFoundError,
    NotConnectedError,
    OverloadedError,
    ProtocolError,
    RequestCancelledError,
    ConnectionLostError,
    RequestTimeoutError,
    RpcError,
    TransportError,
    UnsupportedError,
    UnsupportedByVersionError,
    UnavailableError,
    UrlElicitationRequiredError,
    OutputSchemaError,
)
from ._native import (
    AgentMessageDelta,
    CallToolResult,
    Completion,
    ConnectionEvent,
    GetPromptResult,
    ItemCompleted,
    ItemStarted,
    Notification,
    Progress,
    Prompt,
    Resource,
    ResourceContents,
    Task,
    ResourceTemplate,
    ServerRequest,
    ThreadRef,
    TokenUsageUpdated,
    Tool,
    TurnCompleted,
    TurnStarted,
    __version__,
)
from ._listen import Listen
from ._sync import CodexClient, Thread, Turn
from ._pool import Pool
from ._mcp_sync import McpClient, ToolCall
from ._legacy import AsyncClient, Client

__all__ = [
    "CodexClient",
    "AsyncCodexClient",
    "McpClient",
    "AsyncMcpClient",
    "AsyncClient",
    "AsyncLogin",
    "Login",
    "AsyncEventStream",
    "AsyncThread",
    "AsyncTurn",
    "StartingTurn",
    "AsyncToolCall",
    "Client",
    "Thread",
    "Turn",
    "ToolCall",
    "TurnResult",
    "InitializeResult",
    "Event",
    "Input",
    "text",
    "image_url",
    "local_image",
    "COMMAND_APPROVAL",
    "FILE_CHANGE_APPROVAL",
    "SAMPLING",
    "ELICITATION",
    "ROOTS",
    "Root",
    "Page",
    "Tool",
    "CallToolResult",
    "Resource",
    "ResourceTemplate",
    "ResourceContents",
    "Prompt",
    "GetPromptResult",
    "Completion",
    "Task",
    "Listen",
    "Progress",
    "Notification",
    "AgentMessageDelta",
    "ItemStarted",
    "ItemCompleted",
    "TurnStarted",
    "TurnCompleted",
    "TokenUsageUpdated",
    "ServerRequest",
    "ThreadRef",
    "ConnectionEvent",
    "Authorize",
    "LoopbackBrowser",
    "TokenStore",
    "CodexError",
    "ConnectionClosedError",
    "NotConnectedError",
    "AlreadyConnectedError",
    "RequestTimeoutError",
    "RequestCancelledError",
    "ConnectionLostError",
    "RpcError",
    "OverloadedError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "ProtocolError",
    "TransportError",
    "InvalidArgumentError",
    "InvalidStateError",
    "AlreadyRespondedError",
    "UnsupportedError",
    "UnsupportedByVersionError",
    "UnavailableError",
    "Pool",
    "UrlElicitationRequiredError",
    "OutputSchemaError",
    "__version__",
]


def __getattr__(name: str) -> object:
    # Deprecated names, each with a DeprecationWarning: ``AUTHORIZE_TIMEOUT`` (an ``async def``
    # authorize callable is bounded by the ``oauth_authorize_timeout`` option; this is its
    # default, from the core).
    if name == "AUTHORIZE_TIMEOUT":
        return _auth.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
