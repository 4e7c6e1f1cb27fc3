"""MCP: the sync and async clients against the servers written with the official SDKs
(``testkit/sdk-servers``: Python ``mcp`` 2.3.0, TypeScript ``@modelcontextprotocol/server``
2.4.0) in both eras, over stdio and Streamable HTTP — every row and step of the scenario table
``testkit/sdk-servers/scenarios.json``, the one the Rust and C tests run too (its format:
``testkit/sdk-servers/README.md``). The typed methods are called (``call_tool``,
``read_resource``, ``call_tool_as_task``, ...) and their results compared in the wire's shape
(``.raw``).

The SDK servers come from ``MCP_SDK_PYTHON`` / ``MCP_NODE`` / ``MCP_MODULES``, else the
``.cache`` links of ``scripts/setup-mcp.sh``; a missing one FAILS the tests with that
instruction. Every wait is bounded; the one poll (a task's status) asks again every 50 ms.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import pathlib
import queue
import subprocess
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient, ServerRequest
from helpers import run

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVERS = ROOT / "testkit" / "sdk-servers"
TABLE = json.loads((SERVERS / "scenarios.json").read_text())
WAIT = 30.0


def _tool(var: str, link: str, what: str) -> str:
    path = pathlib.Path(os.environ.get(var) or ROOT / ".cache" / link)
    if not path.exists():
        pytest.fail(f"{path} is missing: run `bash scripts/setup-mcp.sh` (installs {what}) or set {var}", pytrace=False)
    return str(path)


def _command(sdk: str, *args: str) -> Tuple[List[str], Dict[str, str]]:
    """The server's command line and environment."""
    if sdk == "python":
        return [_tool("MCP_SDK_PYTHON", "mcp-sdk-python", "the Python MCP SDK 2.3.0"), str(SERVERS / "server.py"), *args], {}
    modules = _tool("MCP_MODULES", "mcp-modules", "the TypeScript MCP SDK 2.4.0")
    node = _tool("MCP_NODE", "mcp-node", "Node 22")
    return [node, str(SERVERS / "server.mjs"), *args], {"MCP_MODULES": modules}


class _HttpServer:
    """The SDK server over Streamable HTTP on a loopback port; restartable on the same port."""

    def __init__(self, sdk: str) -> None:
        self.sdk, self.port = sdk, 0
        self.proc = self._start()

    def _start(self) -> "subprocess.Popen[str]":
        argv, env = _command(self.sdk, "http", str(self.port))
        p = subprocess.Popen(argv, env=dict(os.environ, **env), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert p.stdout is not None
        line = p.stdout.readline()  # bounded: the server prints its port first or exits
        assert line.startswith("PORT "), f"the {self.sdk} server printed {line!r}"
        self.port = int(line.split()[1])
        return p

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def restart(self) -> None:
        self.stop()
        self.proc = self._start()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=WAIT)


def _sample(req: ServerRequest) -> Dict[str, Any]:
    asked = req.params["messages"][0]["content"]["text"]
    return {"role": "assistant", "content": {"type": "text", "text": f"short ({asked})"},
            "model": "test-model", "stopReason": "endTurn"}


class _Row:
    """One row's client: its handlers count what they answered; notifications are queued."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.handled: Dict[str, int] = {}
        self.notes: "queue.Queue[Any]" = queue.Queue()
        client.on_notification(self.notes.put)

        @client.on_sampling
        def sample(req: ServerRequest) -> Dict[str, Any]:
            self.handled["sampling/createMessage"] = self.handled.get("sampling/createMessage", 0) + 1
            return _sample(req)

        @client.on_elicitation
        def elicit(req: ServerRequest) -> Dict[str, Any]:
            self.handled["elicitation/create"] = self.handled.get("elicitation/create", 0) + 1
            return {"action": "accept", "content": {"name": "Ada"}}

    def note(self, method: str) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            n = self.notes.get(timeout=max(0.01, deadline - time.monotonic()))
            if n.method == method:
                params: Dict[str, Any] = n.params
                return params


def _subst(v: Any, names: Dict[str, str]) -> Any:
    return names[v[1:]] if isinstance(v, str) and v.startswith("$") else v


def _values_at(v: Any, pointer: str) -> List[Any]:
    """The values at a JSON pointer; a ``*`` segment stands for every element."""
    head, star, rest = pointer.partition("/*")
    cur = v
    for seg in head.split("/")[1:]:
        seg = seg.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, list) and seg.isdigit() and int(seg) < len(cur):
            cur = cur[int(seg)]
        elif isinstance(cur, dict) and seg in cur:
            cur = cur[seg]
        else:
            return []
    if not star:
        return [cur]
    return [x for e in (cur if isinstance(cur, list) else []) for x in _values_at(e, rest)]


def _same(a: Any, b: Any) -> bool:
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return bool(a == b)


def _check(v: Any, c: List[Any], names: Dict[str, str]) -> bool:
    pointer, op, want = c[0], c[1], _subst(c[2], names)
    got = _values_at(v, pointer)
    if op == "=":
        return len(got) == 1 and _same(got[0], want)
    if op == "!=":
        return not any(_same(g, want) for g in got)
    if op == "has":
        return any(_same(g, want) for g in got)
    if op == "contains":
        return bool(got) and isinstance(got[0], str) and want in got[0]
    if op == "len":
        return bool(got) and isinstance(got[0], list) and len(got[0]) == want
    raise AssertionError(f"unknown op {op}")


def _check_all(what: str, v: Any, step: Dict[str, Any], names: Dict[str, str]) -> None:
    for c in step.get("expect", []):
        assert _check(v, c, names), f"{what}: {c} does not hold for {v}"


def _call(c: Any, step: Dict[str, Any], names: Dict[str, str]) -> Tuple[Callable[[], Any], Callable[[Any], Any]]:
    """The typed method of the step's request, and how its result reads in the wire's shape."""
    n, s, a = step["request"], _subst(step.get("subject"), names), step.get("arguments")
    kw: Dict[str, Any] = {"timeout": step["timeout_ms"] / 1000} if "timeout_ms" in step else {}
    raw: Callable[[Any], Any] = lambda r: r.raw  # noqa: E731
    each = lambda key: lambda r: {key: [x.raw for x in r]}  # noqa: E731
    empty: Callable[[Any], Any] = lambda r: {}  # noqa: E731
    plans: Dict[str, Tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "list_tools": (lambda: c.list_tools(**kw), each("tools")),
        "call_tool": (lambda: c.call_tool(s, a, **kw), raw),
        "list_resources": (lambda: c.list_resources(**kw), each("resources")),
        "list_resource_templates": (lambda: c.list_resource_templates(**kw), each("resourceTemplates")),
        "read_resource": (lambda: c.read_resource(s, **kw), each("contents")),
        "list_prompts": (lambda: c.list_prompts(**kw), each("prompts")),
        "get_prompt": (lambda: c.get_prompt(s, a, **kw), raw),
        "set_logging_level": (lambda: c.set_logging_level(s, **kw), empty),
        "ping": (lambda: c.ping(**kw), empty),
        "call_tool_as_task": (lambda: c.call_tool_as_task(s, a), lambda r: {"task": r.raw}),
        "get_task": (lambda: c.get_task(s), raw),
        "list_tasks": (lambda: c.list_tasks(), lambda p: {"tasks": [t.raw for t in p.items]}),
        "cancel_task": (lambda: c.cancel_task(s), raw),
        "task_result": (lambda: c.task_result(s), lambda r: r),
    }
    if n == "complete":
        ref, arg = a["ref"], a["argument"]
        where = {"prompt": ref["name"]} if ref["type"] == "ref/prompt" else {"resource": ref["uri"]}
        return (lambda: c.complete(arg["name"], arg["value"], **where, **kw)), (lambda r: {"completion": r.raw})
    return plans[n]


async def _maybe(v: Any) -> Any:
    return await v if inspect.isawaitable(v) else v


async def _run_steps(row: Dict[str, Any], r: _Row, server: Optional[_HttpServer], names: Dict[str, str]) -> None:
    """Every step of the table that applies to the row (sync clients' calls return values,
    async ones awaitables: one runner for both)."""
    c = r.client
    for i, step in enumerate(TABLE["steps"]):
        if any(k in step and step[k] != row[k] for k in ("transport", "era")):
            continue
        what = f"{row} step {i} {step}"
        handled = step.get("handled")
        before = r.handled.get(handled, 0) if handled else 0
        kind = step["do"]
        if kind == "request":
            start, shape = _call(c, step, names)
            err = step.get("error")
            try:
                got = shape(await _maybe(start()))
            except codexclient.RequestTimeoutError:
                assert err in ("timeout", "any"), what
                continue
            except codexclient.RpcError as e:
                assert err == "any" or err == e.code, f"{what}: {e!r}"
                continue
            if err is not None:
                assert err == "any" and got.get("isError") is True, f"{what}: answered {got}"
            _check_all(what, got, step, names)
            for var, pointer in step.get("save", {}).items():
                (names[var],) = _values_at(got, pointer)
        elif kind == "progress":
            seen: List[Any] = []
            kw = {"timeout": step["timeout_ms"] / 1000} if "timeout_ms" in step else {}
            done = await _maybe(c.call_tool(step["subject"], step["arguments"], on_progress=seen.append, **kw))
            _check_all(what, done.raw, step, names)
            if "progress" in step:
                assert [[p.progress, p.total, p.message] for p in seen] == step["progress"], what
            if "progress_count" in step:
                assert len(seen) == step["progress_count"], what
        elif kind == "notification":
            _check_all(what, await asyncio.get_running_loop().run_in_executor(None, r.note, step["method"]), step, names)
        elif kind == "poll":
            deadline = time.monotonic() + WAIT
            start, shape = _call(c, step, names)
            while not _check(shape(await _maybe(start())), step["until"], names):
                assert time.monotonic() < deadline, what
                await asyncio.sleep(0.05)
        elif kind == "restart":
            assert server is not None, what
            server.restart()
        else:
            raise AssertionError(f"unknown step {kind}")
        if handled:
            assert r.handled.get(handled, 0) == before + 1, f"{what}: {handled} answered {r.handled}"


def _options(row: Dict[str, Any], server: Optional[_HttpServer]) -> Dict[str, Any]:
    opts: Dict[str, Any] = {"mcp_protocol": row["mode"], "default_timeout": WAIT}
    if server is not None:
        opts["transport"] = server.url
    else:
        argv, env = _command(row["sdk"], "stdio")
        opts["command"] = argv
        opts["env"] = env
    return opts


def _check_init(row: Dict[str, Any], init: Any) -> None:
    era = TABLE["eras"][row["era"]]
    assert init.mcp_era == era["era"], (row, init)
    assert init.protocol_version == era["protocolVersion"], (row, init)
    assert init.server_info["name"] == TABLE["servers"][row["sdk"]]["name"], init
    assert "tools" in init.capabilities and "completions" in init.capabilities, init


def _names(row: Dict[str, Any]) -> Dict[str, str]:
    return dict(TABLE["servers"][row["sdk"]])


@pytest.fixture
def http(request: pytest.FixtureRequest) -> Iterator[Optional[_HttpServer]]:
    row = request.param
    server = _HttpServer(row["sdk"]) if row["transport"] == "http" else None
    try:
        yield server
    finally:
        if server is not None:
            server.stop()


ROWS = TABLE["rows"]
IDS = [f"{r['sdk']}-{r['transport']}-{r['mode']}" for r in ROWS]


@pytest.mark.parametrize("row,http", [(r, r) for r in ROWS], ids=IDS, indirect=["http"])
def test_sync(row: Dict[str, Any], http: Optional[_HttpServer]) -> None:
    client = McpClient(**_options(row, http))
    r = _Row(client)
    with client as c:
        _check_init(row, c.initialize_result)
        asyncio.run(_run_steps(row, r, http, _names(row)))


# The asyncio client on four rows (each SDK, transport and era once): it shares every step's
# code with the sync client, which runs all rows; this keeps three interpreters' run short.
ASYNC_ROWS = [0, 3, 5, 6]


@pytest.mark.parametrize(
    "row,http", [(ROWS[i], ROWS[i]) for i in ASYNC_ROWS], ids=[IDS[i] for i in ASYNC_ROWS], indirect=["http"]
)
def test_async(row: Dict[str, Any], http: Optional[_HttpServer]) -> None:
    async def main() -> None:
        client = AsyncMcpClient(**_options(row, http))
        r = _Row(client)
        async with client as c:
            _check_init(row, c.initialize_result)
            await _run_steps(row, r, http, _names(row))

    run(main())


def test_the_table_has_both_eras_and_every_mode() -> None:
    assert {r["era"] for r in ROWS} == {"legacy", "modern"}
    assert {r["mode"] for r in ROWS} == {"legacy", "auto", "2026-07-28"}
    assert {(r["sdk"], r["transport"]) for r in ROWS} == {
        (s, t) for s in ("python", "typescript") for t in ("stdio", "http")
    }


def _task_options() -> Dict[str, Any]:
    argv, env = _command("python", "stdio")
    return {"command": argv, "env": env, "mcp_protocol": "legacy", "default_timeout": WAIT}


def test_sync_task_wrappers() -> None:
    """The typed task helpers beyond the table: ``wait_task``, a ``Task``'s fields, a page."""
    with McpClient(**_task_options()) as c:
        task = c.call_tool_as_task("slow_job", {"ms": 100}, ttl=30)
        assert isinstance(task, codexclient.Task) and task.status == "working", task
        assert task.ttl == 30000 and not task.is_terminal
        done = c.wait_task(task.task_id, WAIT)
        assert done.status == "completed" and done.is_terminal, done
        assert c.task_result(task.task_id)["structuredContent"] == {"ms": 100}
        page = c.list_tasks()
        assert task.task_id in [t.task_id for t in page.items]
        with pytest.raises(codexclient.InvalidArgumentError):
            c.wait_task(task.task_id, 0)
        # A task that ended cannot be cancelled.
        with pytest.raises(codexclient.RpcError):
            c.cancel_task(task.task_id)


def test_async_task_wrappers() -> None:
    async def main() -> None:
        async with AsyncMcpClient(**_task_options()) as c:
            task = await c.call_tool_as_task("slow_job", {"ms": 30000})
            assert isinstance(task, codexclient.Task)
            cancelled = await c.cancel_task(task.task_id)
            assert cancelled.status == "cancelled" and cancelled.is_terminal
            assert (await c.get_task(task.task_id)).status == "cancelled"
            with pytest.raises(codexclient.RpcError):
                await c.cancel_task(task.task_id)
            short = await c.call_tool_as_task("slow_job", {"ms": 50})
            assert isinstance(short, codexclient.Task)
            assert (await c.wait_task(short.task_id, WAIT)).status == "completed"

    run(main())
