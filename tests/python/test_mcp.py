"""MCP: the sync and async clients against the real everything server
(``@modelcontextprotocol/server-everything``) over stdio, Streamable HTTP and legacy HTTP+SSE.

Node and the server's entry script come from ``MCP_NODE`` / ``MCP_EVERYTHING``, else the
``.cache/mcp-node`` / ``.cache/mcp-everything`` links that ``scripts/setup-mcp.sh`` makes; a
missing one FAILS the tests with that instruction. Nothing is skipped.

Every wait is on an event (a notification, a log record, an answer), bounded; nothing sleeps
to wait. That the server got ``notifications/cancelled`` is seen from the client: the
everything server (its SDK) sends no answer to a cancelled request, while a late answer would
arrive before the answer of a same-length call started after it and be reported as a
connection error event.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pathlib
import queue
import re
import socket
import subprocess
import threading
import time
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient, ServerRequest
from conftest import mcp_everything
from helpers import run

WAIT = 20.0
ROOT_URI = "file:///work/project"
TOOLS = [
    "echo",
    "get-structured-content",
    "trigger-long-running-operation",
    "trigger-sampling-request",
    "trigger-elicitation-request",
    "get-roots-list",
    "toggle-subscriber-updates",
    "toggle-simulated-logging",
]
SAMPLED = "sampled by the pytest handler"
DEFAULT_TEXT = "It was a dark and stormy night."
TRANSPORTS = ["stdio", "streamable_http", "sse"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _HttpServers:
    """The everything server listening over HTTP, one process per mode, started on first use
    (bounded readiness polling) and stopped at the end of the session."""

    def __init__(self) -> None:
        self.procs: Dict[str, Tuple[subprocess.Popen, int]] = {}

    def url(self, mode: str, path: str) -> str:
        if mode not in self.procs:
            node, js = mcp_everything()
            port = _free_port()
            p = subprocess.Popen(
                [node, js, mode],
                env=dict(os.environ, PORT=str(port)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.procs[mode] = (p, port)
            deadline = time.monotonic() + WAIT
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if p.poll() is not None or time.monotonic() > deadline:
                        pytest.fail(f"the everything server ({mode}) did not listen on {port}")
                    time.sleep(0.05)
        return f"http://127.0.0.1:{self.procs[mode][1]}{path}"

    def stop(self) -> None:
        for p, _ in self.procs.values():
            p.kill()
            p.wait()


@pytest.fixture(scope="session")
def http_servers() -> Iterator[_HttpServers]:
    servers = _HttpServers()
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture(params=TRANSPORTS)
def server(request: pytest.FixtureRequest, http_servers: _HttpServers) -> Dict[str, Any]:
    """McpClient options reaching the everything server over one transport (without roots)."""
    opts: Dict[str, Any] = dict(default_timeout=WAIT, client_name="codexclient-pytest")
    if request.param == "stdio":
        node, js = mcp_everything()
        opts["command"] = [node, js, "stdio"]
    elif request.param == "streamable_http":
        opts["transport"] = http_servers.url("streamableHttp", "/mcp")
    else:
        opts["transport"] = http_servers.url("sse", "/sse")
    return opts


def _with_roots(opts: Dict[str, Any]) -> Dict[str, Any]:
    return dict(opts, mcp_roots=[(ROOT_URI, "project")])


def _check_init(init: codexclient.InitializeResult) -> None:
    assert init.protocol_version == "2025-11-25"
    assert init.server_info is not None and init.server_info["name"] == "mcp-servers/everything"
    assert init.capabilities is not None and "tools" in init.capabilities
    assert init.instructions
    assert init.raw["protocolVersion"] == init.protocol_version


def _check_tools(tools: List[codexclient.Tool], page: "codexclient.Page[codexclient.Tool]") -> None:
    names = [t.name for t in tools]
    for want in TOOLS:
        assert want in names, names
    echo = tools[names.index("echo")]
    assert echo.input_schema["properties"]["message"]["type"] == "string"
    assert echo.raw["name"] == "echo" and echo.description
    assert page.items == tools[: len(page.items)]
    assert page.next_cursor is None or isinstance(page.next_cursor, str)


def _check_structured(r: codexclient.CallToolResult) -> None:
    assert not r.is_error
    assert isinstance(r.structured_content, dict) and "temperature" in r.structured_content


def _check_progress(updates: List[codexclient.Progress], r: codexclient.CallToolResult) -> None:
    assert [(p.progress, p.total) for p in updates] == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
    assert "completed" in r.text, r.text


SLOW = {"duration": 0.6, "steps": 3}
"""A call that runs 0.6 s and reports progress every 0.2 s."""


def _sampling_answer(req: ServerRequest) -> Dict[str, Any]:
    asked = req.params["messages"][0]["content"]["text"]
    return {
        "role": "assistant",
        "content": {"type": "text", "text": f"{SAMPLED}: {asked}"},
        "model": "pytest-model",
        "stopReason": "endTurn",
    }


# Only `name` is given: the schema's defaults fill the rest (SEP-1034, in the core).
ELICITED = {"action": "accept", "content": {"name": "Ada", "check": True}}


def _errors(events: List[Any]) -> List[str]:
    return [e.message for e in events if e.kind == "error"]


class _LogRecords(logging.Handler):
    """Collects the records of the ``codexclient.server`` logger (the MCP server's log)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.got = threading.Event()
        self.records: List[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if re.search(r"level[- ]message", record.getMessage()):
            self.got.set()


@pytest.fixture
def server_log() -> Iterator[_LogRecords]:
    logger = logging.getLogger("codexclient.server")
    handler, old = _LogRecords(), logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


# -- sync ---------------------------------------------------------------------------------------


def test_sync_tools_progress_timeout_and_cancel(server: Dict[str, Any]) -> None:
    conn_events: List[Any] = []
    client = McpClient(**server)
    client.on_connection_event(conn_events.append)
    with client as c:
        _check_init(c.initialize_result)  # type: ignore[arg-type]
        _check_tools(c.list_tools(), c.list_tools_page())
        echo = c.call_tool("echo", {"message": "hi"})
        assert echo.text == "Echo: hi" and not echo.is_error
        assert echo.content == [{"type": "text", "text": "Echo: hi"}]
        _check_structured(c.call_tool("get-structured-content", {"location": "Chicago"}))

        # Progress: as an iterator with the result after it, and through on_progress.
        with c.call_tool_progress("trigger-long-running-operation", {"duration": 0.3, "steps": 3}) as call:
            updates = list(call)
            assert call.done
            _check_progress(updates, call.result())
        seen: List[codexclient.Progress] = []
        _check_progress(
            seen,
            c.call_tool(
                "trigger-long-running-operation",
                {"duration": 0.3, "steps": 3},
                on_progress=seen.append,
            ),
        )

        # A timeout fails the call (and cancels it on the server); the connection goes on.
        with pytest.raises(codexclient.RequestTimeoutError):
            c.call_tool("trigger-long-running-operation", SLOW, timeout=0.1)
        # Cancelling a call after its first update: the server is told.
        with c.call_tool_progress("trigger-long-running-operation", SLOW) as call:
            assert next(call).progress == 1.0
            assert call.cancel() and call.done
            with pytest.raises(codexclient.RequestCancelledError):
                call.result()
            assert not call.cancel()
        # Neither sends an answer: one would come before this same-length call's.
        assert "completed" in c.call_tool("trigger-long-running-operation", SLOW).text
        c.ping()
        assert _errors(conn_events) == []


def test_sync_server_requests_reach_the_handlers(server: Dict[str, Any]) -> None:
    client = McpClient(**_with_roots(server))

    @client.on_sampling
    def sample(req: ServerRequest) -> Dict[str, Any]:
        return _sampling_answer(req)

    @client.on_elicitation
    def elicit(req: ServerRequest) -> Dict[str, Any]:
        assert req.params["requestedSchema"]["type"] == "object"
        return ELICITED

    assert sample.__name__ == "sample" and elicit.__name__ == "elicit"  # returned unchanged
    with client as c:
        s = c.call_tool("trigger-sampling-request", {"prompt": "colours"})
        assert SAMPLED in s.text and "colours" in s.text, s.text
        e = c.call_tool("trigger-elicitation-request").text
        assert "Ada" in e and DEFAULT_TEXT in e, e
        roots = c.call_tool("get-roots-list").text
        assert ROOT_URI in roots and "project" in roots, roots


def test_sync_without_handlers_requests_are_refused_or_declined(server: Dict[str, Any]) -> None:
    client = McpClient(**server)  # no mcp_roots: the roots handler answers

    @client.on_roots
    def roots(req: ServerRequest) -> Dict[str, Any]:
        return {"roots": [{"uri": "file:///from/handler", "name": "handler-root"}]}

    with client as c:
        e = c.call_tool("trigger-elicitation-request", timeout=10)
        assert "declined" in e.text, e.text
        # The core refuses the sampling request; the tool reports the refusal.
        s = c.call_tool("trigger-sampling-request", {"prompt": "x"}, timeout=10)
        assert s.is_error and "no handler for server request" in s.text, s.text
        assert "file:///from/handler" in c.call_tool("get-roots-list", timeout=10).text


def test_sync_resources_prompts_completion_logging(
    server: Dict[str, Any], server_log: _LogRecords
) -> None:
    notes: "queue.Queue[codexclient.Notification]" = queue.Queue()

    def wait_note(method: str, pred: Any = lambda p: True) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            n = notes.get(timeout=max(0.0, deadline - time.monotonic()))
            if n.method == method and pred(n.params):
                params: Dict[str, Any] = n.params
                return params

    client = McpClient(**server)
    client.on_notification(notes.put)
    with client as c:
        resources = c.list_resources()
        assert resources and c.list_resources_page().items == resources[: len(c.list_resources_page().items)]
        templates = c.list_resource_templates()
        assert any("{resourceId}" in t.uri_template for t in templates), templates
        assert c.list_resource_templates_page().items == templates
        uri = resources[0].uri
        contents = c.read_resource(uri)
        assert contents[0].uri == uri and (contents[0].text or contents[0].blob)

        c.subscribe_resource(uri)
        c.call_tool("toggle-subscriber-updates")
        wait_note("notifications/resources/updated", lambda p: p["uri"] == uri)
        c.unsubscribe_resource(uri)
        # A tool that adds a resource: resources/list_changed, and the resource reads back.
        link = c.call_tool("gzip-file-as-resource", {"name": "py-sync.gz", "data": "data:text/plain,hello"})
        assert not link.is_error, link.text
        wait_note("notifications/resources/list_changed")
        new_uri = link.content[0]["uri"]
        assert c.read_resource(new_uri)[0].blob

        prompts = c.list_prompts()
        assert "args-prompt" in [p.name for p in prompts] and c.list_prompts_page().items == prompts
        got = c.get_prompt("args-prompt", {"city": "Paris"})
        assert "Paris" in str(got.messages), got.raw
        assert "Engineering" in c.complete("department", "E", prompt="completable-prompt").values
        with pytest.raises(codexclient.InvalidArgumentError):
            c.complete("department", "E")

        c.set_logging_level("debug")
        c.call_tool("toggle-simulated-logging")
        assert isinstance(wait_note("notifications/message")["level"], str)
        assert server_log.got.wait(WAIT), [r.getMessage() for r in server_log.records]
        c.ping()


# -- async --------------------------------------------------------------------------------------


def test_async_tools_progress_timeout_and_cancellation(server: Dict[str, Any]) -> None:
    async def main() -> None:
        conn_events: List[Any] = []
        client = AsyncMcpClient(**server)
        client.on_connection_event(conn_events.append)
        async with client as c:
            _check_init(c.initialize_result)  # type: ignore[arg-type]
            _check_tools(await c.list_tools(), await c.list_tools_page())
            assert (await c.call_tool("echo", {"message": "hi"})).text == "Echo: hi"
            _check_structured(await c.call_tool("get-structured-content", {"location": "Chicago"}))

            async with c.call_tool_progress(
                "trigger-long-running-operation", {"duration": 0.3, "steps": 3}
            ) as call:
                updates = [p async for p in call]
                _check_progress(updates, await call.result())
            seen: List[codexclient.Progress] = []

            async def on_progress(p: codexclient.Progress) -> None:
                seen.append(p)

            _check_progress(
                seen,
                await c.call_tool(
                    "trigger-long-running-operation",
                    {"duration": 0.3, "steps": 3},
                    on_progress=on_progress,
                ),
            )

            with pytest.raises(codexclient.RequestTimeoutError):
                await c.call_tool("trigger-long-running-operation", SLOW, timeout=0.1)

            # task.cancel() on an awaited call: CancelledError, and the server is told.
            plain = asyncio.ensure_future(c.call_tool("trigger-long-running-operation", SLOW))
            first = asyncio.Event()
            with_progress = asyncio.ensure_future(
                c.call_tool("trigger-long-running-operation", SLOW, on_progress=lambda p: first.set())
            )
            await first.wait()
            plain.cancel()
            with_progress.cancel()
            for t in (plain, with_progress):
                with pytest.raises(asyncio.CancelledError):
                    await t
            call = c.call_tool_progress("trigger-long-running-operation", SLOW)
            assert (await call.__anext__()).progress == 1.0
            assert call.cancel()
            with pytest.raises(codexclient.RequestCancelledError):
                await call.result()
            # None of them answers: an answer would come before this same-length call's.
            assert "completed" in (await c.call_tool("trigger-long-running-operation", SLOW)).text
            await c.ping()
            assert _errors(conn_events) == []

    run(main(), 60)


def test_async_server_requests_reach_the_handlers(server: Dict[str, Any]) -> None:
    async def main() -> None:
        client = AsyncMcpClient(**_with_roots(server))

        @client.on_sampling
        async def sample(req: ServerRequest) -> Dict[str, Any]:
            await asyncio.sleep(0)  # an async handler, run in a task
            return _sampling_answer(req)

        @client.on_elicitation
        def elicit(req: ServerRequest) -> Dict[str, Any]:
            return ELICITED

        assert sample.__name__ == "sample"
        async with client as c:
            s = await c.call_tool("trigger-sampling-request", {"prompt": "colours"})
            assert SAMPLED in s.text and "colours" in s.text, s.text
            e = (await c.call_tool("trigger-elicitation-request")).text
            assert "Ada" in e and DEFAULT_TEXT in e, e
            roots = (await c.call_tool("get-roots-list")).text
            assert ROOT_URI in roots, roots

        # No handlers: declined or refused, at once.
        async with AsyncMcpClient(**server) as c:
            declined = await c.call_tool("trigger-elicitation-request", timeout=10)
            assert "declined" in declined.text, declined.text
            s = await c.call_tool("trigger-sampling-request", {"prompt": "x"}, timeout=10)
            assert s.is_error and "no handler for server request" in s.text, s.text

    run(main(), 60)


def test_async_resources_prompts_notifications_logging(
    server: Dict[str, Any], server_log: _LogRecords
) -> None:
    async def main() -> None:
        async with AsyncMcpClient(**server) as c:
            events = c.events()

            async def wait_note(method: str, pred: Any = lambda p: True) -> Dict[str, Any]:
                async def scan() -> Dict[str, Any]:
                    async for ev in events:
                        if ev.method == method and pred(ev.params):
                            params: Dict[str, Any] = ev.params
                            return params
                    raise AssertionError(f"the connection ended before {method}")

                return await asyncio.wait_for(scan(), WAIT)

            resources = await c.list_resources()
            assert (await c.list_resources_page()).items == resources[: len((await c.list_resources_page()).items)]
            templates = await c.list_resource_templates()
            assert (await c.list_resource_templates_page()).items == templates
            uri = resources[0].uri
            assert (await c.read_resource(uri))[0].uri == uri

            await c.subscribe_resource(uri)
            await c.call_tool("toggle-subscriber-updates")
            await wait_note("notifications/resources/updated", lambda p: p["uri"] == uri)
            await c.unsubscribe_resource(uri)
            link = await c.call_tool(
                "gzip-file-as-resource", {"name": "py-async.gz", "data": "data:text/plain,hello"}
            )
            await wait_note("notifications/resources/list_changed")
            assert (await c.read_resource(link.content[0]["uri"]))[0].blob

            prompts = await c.list_prompts()
            assert (await c.list_prompts_page()).items == prompts
            got = await c.get_prompt("args-prompt", {"city": "Paris"})
            assert "Paris" in str(got.messages)
            done = await c.complete("department", "E", prompt="completable-prompt")
            assert "Engineering" in done.values

            await c.set_logging_level("debug")
            await c.call_tool("toggle-simulated-logging")
            assert isinstance((await wait_note("notifications/message"))["level"], str)
            got_log = await asyncio.get_running_loop().run_in_executor(None, server_log.got.wait, WAIT)
            assert got_log, [r.getMessage() for r in server_log.records]
            await c.ping()

    run(main(), 60)


# -- options --------------------------------------------------------------------------------------


def test_mcp_options_are_checked() -> None:
    bad = [
        dict(transport="mcp+stdio"),
        dict(command=[]),
        dict(command="node server.js"),
        dict(command=["node"], transport="stdio"),
        dict(command=["node"], token="t"),
        dict(transport="mcp+stdio:node x", headers={"X-A": "b"}),
        dict(transport="mcp+stdio:'unbalanced"),
        dict(command=["node"], mcp_roots=[42]),
        dict(command=["node"], mcp_capabilities=["not", "a", "mapping"]),
    ]
    for opts in bad:
        with pytest.raises(codexclient.InvalidArgumentError) as e:
            McpClient(**opts)  # type: ignore[arg-type]
        assert "needs an MCP server" not in str(e.value), opts  # the core refused it
    # Accepted without starting anything: a spec, an HTTP URL with headers and a token,
    # roots as URIs, paths or pairs, capabilities.
    McpClient(transport="mcp+stdio:node 'my server.js' stdio").close()
    McpClient(transport="https://example.invalid/mcp", token="t", headers={"X-A": "b"}).close()
    McpClient(
        command=["node", pathlib.Path("server.js")],
        mcp_roots=["file:///a", pathlib.Path("/tmp"), ("file:///b", "b")],
        mcp_capabilities={"roots": {}},
    ).close()
