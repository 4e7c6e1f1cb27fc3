"""Type stubs of the Rust extension module ``codexclient._native``.

This module is the low-level layer; use the classes of :mod:`codexclient` instead.
"""

from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, Tuple, final

from typing_extensions import TypeVar, disjoint_base

import asyncio

from . import mcp_types as _mt
from . import protocol as _p

# The typed events of `codexclient.protocol` parameterize these classes (run-time generic
# aliases too): `Notification[Literal["turn/started"], TurnStartedNotification]`. Bare, a
# class is what it always was: any method, `params` of type `Any`.
_M = TypeVar("_M", bound=str, default=str, covariant=True)
_P = TypeVar("_P", default=Any, covariant=True)
_R = TypeVar("_R", default=Any, contravariant=True)

__version__: str
REQUEST_METHODS: Dict[str, str]
LISTEN_FILTER_KEYS: List[str]
__all__ = [
    "AgentMessageDelta",
    "CallToolResult",
    "ClientHandle",
    "Completion",
    "ConnectionEvent",
    "EventStream",
    "Executor",
    "GetPromptResult",
    "ItemCompleted",
    "ItemStarted",
    "LISTEN_FILTER_KEYS",
    "Listen",
    "LoopbackBrowser",
    "NativeClient",
    "NativeLogin",
    "NativePool",
    "REQUEST_METHODS",
    "Notification",
    "Progress",
    "Prompt",
    "Resource",
    "ResourceContents",
    "ResourceTemplate",
    "ServerRequest",
    "Task",
    "ThreadRef",
    "TokenUsageUpdated",
    "Tool",
    "ToolCall",
    "Turn",
    "TurnBounds",
    "TurnCompleted",
    "TurnStarted",
    "__version__",
    "client_kind",
    "compat_report",
    "completion_ref",
    "effective_option",
    "event_from_json",
    "input_item",
    "login_api_key",
    "login_start",
    "option_cases",
    "option_keys",
    "set_error_classes",
    "set_log_level",
    "shutdown_logging",
]

@disjoint_base
class Notification(Generic[_M, _P]):
    """A server notification (``{method, params}``); unknown methods arrive unchanged."""

    @property
    def method(self) -> _M: ...
    @property
    def params(self) -> _P: ...
    @classmethod
    def __class_getitem__(cls, item: Any) -> Any:
        """``Class[Method, Params, ...]`` at run time: a ``types.GenericAlias``."""
    @property
    def params_json(self) -> str: ...
    @property
    def thread_id(self) -> Optional[str]: ...
    @property
    def turn_id(self) -> Optional[str]: ...
    @property
    def delta(self) -> Optional[str]: ...
    @property
    def item(self) -> Optional[Any]: ...
    @property
    def item_id(self) -> Optional[Any]: ...
    @property
    def endpoint(self) -> Optional[str]:
        """The label of the client that received it (in a pool, the endpoint), or ``None``."""
    def __reduce__(self) -> Tuple[Callable[[str], Any], Tuple[str]]:
        """Pickles as the core's serialised form; comes back as the same class."""

@final
class AgentMessageDelta(_p.ItemAgentMessageDeltaEvent):
    """``item/agentMessage/delta``."""

@final
class ItemStarted(_p.ItemStartedEvent):
    """``item/started``."""

@final
class ItemCompleted(_p.ItemCompletedEvent):
    """``item/completed``."""

@final
class TurnStarted(_p.TurnStartedEvent):
    """``turn/started``."""

@final
class TurnCompleted(_p.TurnCompletedEvent):
    """``turn/completed``: the last event of a turn."""

    @property
    def turn(self) -> Optional[Any]: ...
    @property
    def status(self) -> Optional[Any]: ...
    @property
    def error(self) -> Optional[Any]: ...

@final
class TokenUsageUpdated(_p.ThreadTokenUsageUpdatedEvent):
    """``thread/tokenUsage/updated``."""

@final
class ServerRequest(Generic[_M, _P, _R]):
    """A request from the server that expects an answer (now or later, from any thread)."""

    @property
    def id(self) -> Any: ...
    @property
    def method(self) -> _M: ...
    @property
    def params(self) -> _P: ...
    @classmethod
    def __class_getitem__(cls, item: Any) -> Any:
        """``Class[Method, Params, ...]`` at run time: a ``types.GenericAlias``."""
    @property
    def params_json(self) -> str: ...
    @property
    def thread_id(self) -> Optional[str]: ...
    @property
    def turn_id(self) -> Optional[str]: ...
    @property
    def item_id(self) -> Optional[Any]: ...
    @property
    def delta(self) -> Optional[str]: ...
    @property
    def item(self) -> Optional[Any]: ...
    @property
    def is_open(self) -> bool: ...
    @property
    def endpoint(self) -> Optional[str]:
        """The label of the client that received it (in a pool, the endpoint), or ``None``."""
    @property
    def detached(self) -> bool:
        """Whether it was unpickled: answer it with ``client.respond(request, answer)``."""
    @property
    def reference_json(self) -> str:
        """Its reference as the core's JSON text (does not park it)."""
    def park(self) -> bool:
        """Keep it open for an answer by reference until ``parked_request_timeout``."""
    def __reduce__(self) -> Tuple[Callable[[str], Any], Tuple[str]]:
        """Parks it and pickles its reference; unpickled it is detached."""
    def respond(self, result: _R) -> None: ...
    def respond_json(self, result_json: str) -> None: ...
    def answer(self, value: Any) -> None: ...
    def respond_error(self, code: int, message: str, data: Optional[Any] = None) -> None: ...
    def accept(self) -> None: ...
    def accept_for_session(self) -> None: ...
    def decline(self) -> None: ...
    def cancel(self) -> None: ...
    def fail_closed(self) -> None: ...

@final
class ConnectionEvent:
    """Something the connection reports: ``kind`` is ``error``, ``overflow``,
    ``disconnected``, ``reconnecting``, ``reconnected``, ``outside_window`` (the server's
    Codex is outside the supported window: ``server_version``, ``position``),
    ``version_mismatch`` (the app-server behind the control socket is another Codex version
    than the installed CLI: ``server_version``, ``cli_version``) or ``auth`` (MCP
    authorization: ``auth`` is ``started``, ``succeeded``, ``refreshed`` or ``failed``)."""

    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def dropped(self) -> Optional[int]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def stderr_tail(self) -> Optional[str]: ...
    @property
    def attempt(self) -> Optional[int]: ...
    @property
    def max_attempts(self) -> Optional[int]: ...
    @property
    def delay(self) -> Optional[float]: ...
    @property
    def cause(self) -> Optional[str]: ...
    @property
    def threads(self) -> Optional[List[str]]: ...
    @property
    def failed_threads(self) -> Optional[List[Tuple[str, str]]]: ...
    @property
    def requests_failed(self) -> Optional[int]: ...
    @property
    def server_requests_dropped(self) -> Optional[int]: ...
    @property
    def turns_ended(self) -> Optional[List[Tuple[str, str, str]]]: ...
    @property
    def auth(self) -> Optional[str]: ...
    @property
    def grant(self) -> Optional[str]: ...
    @property
    def issuer(self) -> Optional[str]: ...
    @property
    def scope(self) -> Optional[str]: ...
    @property
    def server_version(self) -> Optional[str]: ...
    @property
    def cli_version(self) -> Optional[str]: ...
    @property
    def position(self) -> Optional[str]: ...
    @property
    def method(self) -> None: ...
    @property
    def thread_id(self) -> Optional[str]: ...
    @property
    def turn_id(self) -> Optional[str]: ...
    @property
    def delta(self) -> Optional[str]: ...
    @property
    def item(self) -> Optional[str]: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def endpoint(self) -> None: ...
    def __reduce__(self) -> Tuple[Callable[[str], Any], Tuple[str]]:
        """Pickles as the core's serialised form."""

@final
class ThreadRef:
    """A thread without its client: ``endpoint``, ``thread_id`` and the ``thread/resume``
    params (``resume``) that reattach it. Pickles; resume it with
    ``client.thread_resume_ref(ref)``."""

    def __new__(cls, thread_id: str, endpoint: Optional[str] = None) -> "ThreadRef": ...
    @classmethod
    def from_json(cls, json: str) -> "ThreadRef": ...
    def to_json(self) -> str: ...
    @property
    def thread_id(self) -> str: ...
    @property
    def endpoint(self) -> Optional[str]: ...
    @property
    def resume(self) -> Dict[str, Any]: ...
    def resume_params_json(self, overrides_json: str) -> str: ...
    def __reduce__(self) -> Tuple[Callable[[str], "ThreadRef"], Tuple[str]]: ...

_Event = Any
_Aio = Optional[Tuple["Executor", "asyncio.Future[Any]"]]

@final
class Tool:
    """A tool the MCP server offers (``list_tools``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent (with the fields this version does not name)."""
    @property
    def name(self) -> str:
        """Name to call it by."""
    @property
    def title(self) -> Optional[str]:
        """Human-readable title."""
    @property
    def description(self) -> Optional[str]:
        """What the tool does."""
    @property
    def input_schema(self) -> Any:
        """JSON Schema of the arguments."""
    @property
    def output_schema(self) -> Optional[Dict[str, Any]]:
        """JSON Schema of the structured result, when the tool declares one."""
    @property
    def annotations(self) -> Optional[Dict[str, Any]]:
        """Behaviour hints (``readOnlyHint``, ``destructiveHint``, ...)."""
    @property
    def icons(self) -> List[_mt.Icon]:
        """Icons (:class:`codexclient.mcp_types.Icon` dicts: ``src``, ``mimeType``, ``sizes``, ``theme``), empty when none."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class CallToolResult:
    """What a tool call returned; a tool that failed sets ``is_error``."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def content(self) -> List[Dict[str, Any]]:
        """Content blocks (text, images, audio, resource links, resources) as dicts."""
    @property
    def structured_content(self) -> Any:
        """The structured result, for tools with an output schema (else ``None``)."""
    @property
    def is_error(self) -> bool:
        """Whether the tool reported a failure."""
    @property
    def text(self) -> str:
        """The text of every text content block, joined by newlines."""
    @property
    def resource_links(self) -> List[_mt.ResourceLink]:
        """The ``resource_link`` content blocks (:class:`codexclient.mcp_types.ResourceLink` dicts: ``uri``, ``name``, ``mimeType``, ``icons``, ...)."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class Resource:
    """A resource of the MCP server (``list_resources``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def uri(self) -> str:
        """Its URI."""
    @property
    def name(self) -> str:
        """Its name."""
    @property
    def title(self) -> Optional[str]:
        """Human-readable title."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def mime_type(self) -> Optional[str]:
        """MIME type."""
    @property
    def icons(self) -> List[_mt.Icon]:
        """Icons (:class:`codexclient.mcp_types.Icon` dicts: ``src``, ``mimeType``, ``sizes``, ``theme``), empty when none."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class ResourceTemplate:
    """A resource template (``list_resource_templates``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def uri_template(self) -> str:
        """The RFC 6570 URI template."""
    @property
    def name(self) -> str:
        """Its name."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def mime_type(self) -> Optional[str]:
        """MIME type."""
    @property
    def icons(self) -> List[_mt.Icon]:
        """Icons (:class:`codexclient.mcp_types.Icon` dicts: ``src``, ``mimeType``, ``sizes``, ``theme``), empty when none."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class ResourceContents:
    """One part of a read resource (``read_resource``): ``text`` or ``blob`` (base64)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def uri(self) -> str:
        """Its URI."""
    @property
    def mime_type(self) -> Optional[str]:
        """MIME type."""
    @property
    def text(self) -> Optional[str]:
        """Text contents."""
    @property
    def blob(self) -> Optional[str]:
        """Binary contents, base64."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class Prompt:
    """A prompt the MCP server offers (``list_prompts``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def name(self) -> str:
        """Name to get it by."""
    @property
    def title(self) -> Optional[str]:
        """Human-readable title."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def arguments(self) -> List[Dict[str, Any]]:
        """Its arguments, as dicts (name, description, whether required)."""
    @property
    def icons(self) -> List[_mt.Icon]:
        """Icons (:class:`codexclient.mcp_types.Icon` dicts: ``src``, ``mimeType``, ``sizes``, ``theme``), empty when none."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class GetPromptResult:
    """A prompt filled in (``get_prompt``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def messages(self) -> List[Dict[str, Any]]:
        """The messages (dicts with a role and content)."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class Completion:
    """Completions of an argument value (``complete``)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def values(self) -> List[str]:
        """Suggested values."""
    @property
    def total(self) -> Optional[int]:
        """Total number of matches, when known."""
    @property
    def has_more(self) -> bool:
        """Whether more values exist than were sent."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class Progress:
    """One progress update of a tool call."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def progress(self) -> float:
        """Progress so far (increases with each update)."""
    @property
    def total(self) -> Optional[float]:
        """Total, when known."""
    @property
    def message(self) -> Optional[str]:
        """What is happening, when the server says."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class Task:
    """A task the MCP server runs in the background (2025-11-25 tasks)."""

    @property
    def raw(self) -> Dict[str, Any]:
        """Everything the server sent."""
    @property
    def task_id(self) -> str:
        """The task's id, chosen by the server."""
    @property
    def status(self) -> str:
        """``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``."""
    @property
    def status_message(self) -> Optional[str]:
        """What the server says about the status."""
    @property
    def created_at(self) -> str:
        """When the task was created (ISO 8601)."""
    @property
    def last_updated_at(self) -> str:
        """When its status last changed (ISO 8601)."""
    @property
    def ttl(self) -> Optional[int]:
        """How long (ms) the server keeps the task after it was created (``None``: unlimited)."""
    @property
    def poll_interval(self) -> Optional[int]:
        """The poll interval (ms) the server suggests."""
    @property
    def is_terminal(self) -> bool:
        """Whether the task ended (``completed``, ``failed`` or ``cancelled``)."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class ToolCall:
    """An MCP tool call that reports progress (the core's ``ProgressCall``)."""

    @property
    def token(self) -> Any: ...
    @property
    def done(self) -> bool: ...
    def next(self) -> Optional[Progress]: ...
    def next_async(self, aio: _Aio) -> Any: ...
    def result(self, aio: _Aio = None) -> Any: ...
    def cancel(self) -> bool: ...

@final
class Listen:
    """An open MCP subscription stream (the core's ``mcp::Listen``)."""

    @property
    def acknowledged_json(self) -> str:
        """The filter the server acknowledged, as JSON text."""
    @property
    def closed(self) -> bool:
        """Whether the stream was closed."""
    def close(self) -> bool: ...

@final
class Executor:
    """Runs Rust futures for one asyncio event loop (the core's executor)."""

    def __new__(cls) -> "Executor": ...
    def fileno(self) -> int: ...
    def run_ready(self) -> int: ...
    def cancel(self, task_id: int) -> bool: ...
    def pending(self) -> int: ...
    def close(self) -> None: ...

@final
class EventStream:
    """``client.events()``: the connection's notifications and connection events."""

    def __iter__(self) -> Iterator[_Event]: ...
    def __next__(self) -> _Event: ...
    def take(self, max: int = 1024) -> Optional[List[_Event]]: ...
    def wait_async(self, aio: _Aio, max: int = 1024) -> Any: ...
    def close(self) -> None: ...

@final
class Turn:
    """A turn being streamed."""

    @property
    def thread_id(self) -> str: ...
    @property
    def turn_id(self) -> str: ...
    @property
    def started_json(self) -> str: ...
    @property
    def done(self) -> bool: ...
    def __iter__(self) -> Iterator[_Event]: ...
    def __next__(self) -> _Event: ...
    def take(self, max: int = 1024) -> Optional[List[_Event]]: ...
    def wait_async(self, aio: _Aio, bounds: Optional[TurnBounds] = None, max: int = 1024) -> Any: ...
    def give_up_async(self, bounds: TurnBounds, aio: _Aio) -> Any: ...
    def finish(self, timeout: Optional[float] = None, idle: Optional[float] = None) -> str: ...
    def result_json(self) -> str: ...
    def interrupt(self, timeout: Optional[float] = None, aio: _Aio = None) -> Any: ...
    def interrupt_nowait(self, executor: Optional[Executor] = None) -> None: ...
    def steer(self, input_json: str, timeout: Optional[float] = None, aio: _Aio = None) -> Any: ...
    def close(self) -> None: ...

@final
class TurnBounds:
    """The bounds of a turn's wait (the core's ``TurnBounds``), started when made."""

    def __new__(cls, timeout: Optional[float] = None, idle: Optional[float] = None) -> TurnBounds: ...

@final
class NativeLogin:
    """A ChatGPT login in progress (the core's ``Login``)."""

    def info(self) -> str: ...
    def outcome(self) -> Optional[str]: ...
    def wait(self, timeout: Optional[float] = None, aio: _Aio = None) -> Any: ...
    def cancel(self, aio: _Aio = None) -> Any: ...

@final
class ClientHandle:
    """A handle on a native client for its finalizer and the loop's reader."""

    def disconnect(self) -> None: ...
    def dispatch_events(self) -> int: ...

@final
class LoopbackBrowser:
    """The browser step for desktop programs (RFC 8252): listens on ``127.0.0.1:port`` for
    the redirect to ``/callback`` and opens the system browser (or ``open(url)``)."""

    def __new__(
        cls, port: int = 0, *, timeout: float = 300.0, open: Optional[Callable[[str], object]] = None
    ) -> "LoopbackBrowser": ...
    @property
    def redirect_uri(self) -> str: ...

@final
class NativeClient:
    """The core client, in callbacks mode (sync) or poll mode (asyncio)."""

    def __new__(cls, **options: Any) -> "NativeClient": ...
    def connect(self, aio: _Aio = None) -> Any: ...
    def disconnect(self, aio: _Aio = None) -> Any: ...
    @property
    def is_connected(self) -> bool: ...
    @property
    def is_reconnecting(self) -> bool: ...
    @property
    def server_version(self) -> Optional[str]: ...
    def supports(self, method: str) -> bool: ...
    @property
    def stderr_tail(self) -> str: ...
    @property
    def server_pid(self) -> Optional[int]: ...
    @property
    def default_timeout(self) -> float: ...
    def request(
        self, method: str, params_json: str, timeout: Optional[float] = None, aio: _Aio = None
    ) -> Any: ...
    def helper(
        self,
        name: str,
        thread_id: Optional[str],
        arg_json: str,
        params_json: str,
        timeout: Optional[float] = None,
        aio: _Aio = None,
    ) -> Any: ...
    def mcp(
        self,
        name: str,
        arg: Optional[str] = None,
        json: str = "null",
        value: Optional[str] = None,
        all_pages: bool = False,
        timeout: Optional[float] = None,
        aio: _Aio = None,
    ) -> Any: ...
    def skills_list(
        self, cursor: Optional[str] = None, all_pages: bool = False, aio: _Aio = None
    ) -> Any: ...
    def skill_load(self, skill: str, aio: _Aio = None) -> Any: ...
    def add_skill_source(self, label: str, server: "NativeClient") -> None: ...
    def remove_skill_source(self, label: str) -> bool: ...
    def call_tool_progress(
        self, name: str, arguments_json: str, timeout: Optional[float] = None
    ) -> ToolCall: ...
    def wait_task(self, task_id: str, within: float, aio: _Aio = None) -> Any: ...
    def listen(self, filter_json: str, timeout: Optional[float] = None, aio: _Aio = None) -> Any: ...
    def notify(self, method: str, params_json: str) -> None: ...
    def on_request(
        self, method: Optional[str], handler: Optional[Callable[[ServerRequest], Any]]
    ) -> None: ...
    def on_notification(self, handler: Optional[Callable[[Notification], Any]]) -> None: ...
    def on_connection_event(self, handler: Optional[Callable[[ConnectionEvent], Any]]) -> None: ...
    def event_fd(self) -> int: ...
    def dispatch_events(self) -> int: ...
    def handle(self) -> ClientHandle: ...
    def events(self) -> EventStream: ...
    def start_turn(
        self,
        thread_id: str,
        input_json: str,
        overrides_json: str,
        aio: _Aio = None,
        skills: Optional[List[str]] = None,
    ) -> Any: ...
    def thread_status(self, thread_id: str) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def label(self) -> Optional[str]: ...
    def respond_ref(self, ref_json: str, answer_json: str) -> None: ...
    def respond_ref_error(self, ref_json: str, code: int, message: str, data_json: str) -> None: ...

@final
class NativePool:
    """The core's pool of Codex app-servers (see ``codexclient.Pool``)."""

    def __new__(cls, options_json: Optional[str] = None) -> "NativePool": ...
    def add_endpoint(
        self, name: str, endpoint_json: str, aio: _Aio = None, **options: Any
    ) -> Any: ...
    def remove_endpoint(self, name: str, aio: _Aio = None) -> Any: ...
    def drain_endpoint(self, name: str) -> None: ...
    def endpoints(self) -> str: ...
    def thread_start(self, params_json: str, aio: _Aio = None) -> Any: ...
    def resume_elsewhere(self, thread_id: str, params_json: str, aio: _Aio = None) -> Any: ...
    def endpoint_of(self, thread_id: str) -> Optional[str]: ...
    def threads_on(self, name: str) -> List[str]: ...
    def handler_client(self) -> NativeClient: ...
    def close(self) -> None: ...
    @staticmethod
    def option_rows() -> str: ...

def event_from_json(json: str) -> Any: ...
def input_item(kind: str, value: str) -> str: ...
def login_api_key(client: NativeClient, api_key: str, aio: _Aio = None) -> Any: ...
def login_start(client: NativeClient, device_code: bool, aio: _Aio = None) -> Any: ...
def compat_report(codex: Optional[str] = None) -> Tuple[str, str, bool]: ...
def completion_ref(kind: str, name: str) -> str: ...
def set_log_level(level: int) -> None: ...
def shutdown_logging() -> None: ...
def set_error_classes(classes: Dict[str, type]) -> None: ...
def option_keys() -> str: ...
def client_kind(transport: Any = None, command: Any = None) -> str: ...
def option_cases() -> str: ...
def effective_option(key: str, value: Any) -> str: ...
