"""Type-level checks of the typed protocol: run by ``mypy --strict`` and ``pyright`` (strict) in
scripts/test-python.sh, never executed (pytest does not collect it: no ``test_`` prefix).

Each ``assert_type`` fails the type checkers when the public typing regresses (a result that
becomes ``Any``, a union that stops narrowing, a decorator that loses the function's type);
the ``type: ignore`` lines (honoured by both) fail them when a wrong call stops being an error
(mypy ``warn_unused_ignores`` under --strict, pyright ``reportUnnecessaryTypeIgnoreComment``).
"""
# pyright: strict, reportUnnecessaryTypeIgnoreComment=true

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

from typing_extensions import Literal, assert_type

import codexclient
from codexclient import protocol as p


def sync_calls(
    client: codexclient.Client, cmd_request: p.ItemCommandExecutionRequestApprovalRequest, note: p.NotificationEvent
) -> None:
    # request(): typed per method literal, Any for any other string
    started = client.request("thread/start", {"model": "gpt-5", "cwd": "/tmp"})
    assert_type(started, p.ThreadStartResponse)
    assert_type(started["thread"]["id"], str)
    assert_type(client.request("model/list"), p.ModelListResponse)
    assert_type(client.request("some/futureMethod", {"x": 1}), Any)
    # params that do not fit the method's TypedDict take the fallback overload (result Any);
    # params built as a typed variable are checked where they are written
    assert_type(client.request("thread/start", {"modle": "typo"}), Any)
    params: p.TurnStartParams = {"threadId": "t"}  # type: ignore[typeddict-item]
    params = {"threadId": "t", "input": [{"type": "text", "text": "hi"}], "effort": "low"}
    assert_type(client.request("turn/start", params), p.TurnStartResponse)

    # events of a turn: narrowing on .method gives the params type
    turn = client.thread_start().run_streamed("hi")
    for ev in turn:
        if ev.method == "item/agentMessage/delta":
            assert_type(ev.params, p.AgentMessageDeltaNotification)
            assert_type(ev.params["delta"], str)
        elif ev.method == "item/completed":
            item = ev.params["item"]
            assert_type(item, p.ThreadItem)
            if item["type"] == "agentMessage":
                assert_type(item, p.AgentMessageThreadItem)
                assert_type(item["text"], str)
            elif item["type"] == "commandExecution":
                assert_type(item["command"], str)
        elif ev.method == "item/commandExecution/requestApproval":
            assert_type(ev, p.ItemCommandExecutionRequestApprovalRequest)
            assert_type(ev.params["itemId"], str)
        elif isinstance(ev, codexclient.ConnectionEvent):
            assert_type(ev.method, None)
        if isinstance(ev, codexclient.TurnCompleted):
            assert_type(ev.params, p.TurnCompletedNotification)
            assert_type(ev.method, Literal["turn/completed"])

    # thread.run(): a TurnResult with typed items and usage
    result = client.thread_start().run("hi")
    assert_type(result, codexclient.TurnResult)
    assert_type(result.items, List[p.ThreadItem])
    assert_type(result.usage, Optional[p.ThreadTokenUsage])
    assert_type(result.final_response, Optional[str])

    # decorators keep the decorated function's type
    @client.on_command_approval
    def approve(req: p.ItemCommandExecutionRequestApprovalRequest) -> p.CommandExecutionApprovalDecision:
        return "accept" if req.params.get("command") == "ls" else "decline"

    assert_type(approve(cmd_request), p.CommandExecutionApprovalDecision)

    @client.on_file_change_approval
    def any_request(req: codexclient.ServerRequest) -> int:
        return len(req.method)

    assert_type(any_request(cmd_request), int)

    @client.on_notification
    def on_note(n: p.NotificationEvent) -> bool:
        if n.method == "thread/started":
            assert_type(n.params["thread"], p.Thread)
        return True

    assert_type(on_note(note), bool)
    assert_type(client.on_notification(None), None)

    # a handler for the wrong request is refused
    def wrong(req: p.ItemToolCallRequest) -> None: ...

    client.on_command_approval(wrong)  # type: ignore[type-var]

    # input items are typed too
    def first_text(inputs: List[p.UserInput]) -> str:
        for inp in inputs:
            if inp["type"] == "text":
                assert_type(inp, p.TextUserInput)
                return inp["text"]
        return ""

    assert_type(first_text([{"type": "text", "text": "hello"}]), str)


async def async_calls(client: codexclient.AsyncCodexClient) -> None:
    started = await client.request("thread/start", {"ephemeral": True})
    assert_type(started, p.ThreadStartResponse)
    assert_type(await client.request("other/method"), Any)
    thread = await client.thread_start()
    assert_type(await thread.run("hi"), codexclient.TurnResult)
    async for ev in thread.run_streamed("hi"):
        if ev.method == "turn/completed":
            assert_type(ev.params["turn"]["status"], p.TurnStatus)
    async for ev in client.events():
        if ev.method == "thread/tokenUsage/updated":
            assert_type(ev.params["tokenUsage"]["total"]["totalTokens"], int)


def typed_keywords(client: codexclient.CodexClient) -> None:
    # the generated keywords (codexclient._keywords): typed by the schema, unknown ones refused
    thread = client.thread_start(approval_policy="never", sandbox="read-only", model="m")
    assert_type(thread, codexclient.Thread)
    assert_type(client.thread_resume("t", approval_policy="untrusted"), codexclient.Thread)
    assert_type(thread.fork(ephemeral=True), codexclient.Thread)
    assert_type(thread.run("hi", effort="low", output_schema={"type": "object"}, timeout=5.0),
                codexclient.TurnResult)
    assert_type(thread.run_streamed("hi", summary="concise", extra={"newField": 1}), codexclient.Turn)
    client.thread_start(modle="typo")  # type: ignore[call-arg]
    client.thread_start(sandbox="no-such-mode")  # type: ignore[arg-type]
    thread.run("hi", effort=3)  # type: ignore[arg-type]


async def typed_keywords_async(aclient: codexclient.AsyncCodexClient) -> None:
    assert_type(await aclient.thread_start(model="m"), codexclient.AsyncThread)
    assert_type(await aclient.thread_resume("t", sandbox="read-only"), codexclient.AsyncThread)
    assert_type(aclient.thread("t").run_streamed("hi", effort="low"), codexclient.StartingTurn)
    await aclient.thread("t").run("hi", efort="low")  # type: ignore[call-arg]


async def async_bounds(thread: codexclient.AsyncThread) -> None:
    assert_type(await thread.run("hi", timeout=5.0, idle_timeout=1.0), codexclient.TurnResult)
    turn = await thread.run_streamed("hi")
    assert_type(await turn.result(timeout=5.0, idle_timeout=1.0), codexclient.TurnResult)


def mcp_events(client: codexclient.McpClient) -> None:
    # an MCP server's notifications come through the same events, with untyped params
    for ev in client.events():
        if ev.method == "notifications/resources/updated":
            assert_type(ev, p.McpNotificationEvent)
            assert_type(ev.params, Dict[str, Any])
        elif ev.method == "item/started":
            assert_type(ev.params["item"], p.ThreadItem)


def readme_example(client: codexclient.Client) -> None:
    # python/README.md, "Typed protocol"
    started = client.request("thread/start", {"cwd": "/work"})  # -> p.ThreadStartResponse
    print(started["thread"]["id"])
    for ev in client.thread(started["thread"]["id"]).run_streamed("Hi"):
        if ev.method == "item/agentMessage/delta":
            print(ev.params["delta"], end="")
        elif ev.method == "item/completed":
            item = ev.params["item"]
            if item["type"] == "commandExecution":
                assert_type(item, p.CommandExecutionThreadItem)
                print(item["command"], item.get("exitCode"))

    @client.on_command_approval
    def approve(req: p.ItemCommandExecutionRequestApprovalRequest) -> p.CommandExecutionApprovalDecision:
        return "accept" if (req.params.get("command") or "").startswith("ls") else "decline"


def mcp_handlers(client: codexclient.McpClient, req: p.McpServerRequest) -> None:
    @client.on_sampling
    def sample(r: p.McpServerRequest) -> Dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": r.method}}

    assert_type(sample(req), Dict[str, Any])

    @client.on_elicitation
    def elicit(r: Union[p.McpServerElicitationRequestRequest, p.McpServerRequest]) -> Dict[str, str]:
        return {"action": "decline"}

    assert_type(elicit(req), Dict[str, str])
    client.on_roots(sample)
    client.on_roots(elicit)

    def tool_call(r: p.ItemToolCallRequest) -> None: ...

    client.on_sampling(tool_call)  # type: ignore[type-var]


def mcp_listen(client: codexclient.McpClient) -> None:
    # subscriptions/listen: a Listen, a context manager; the filter keywords are typed
    with client.listen(tools_list_changed=True, resource_subscriptions=["file:///a"], timeout=5.0) as sub:
        assert_type(sub, codexclient.Listen)
        assert_type(sub.acknowledged, Dict[str, Any])
    assert_type(client.listen({"toolsListChanged": True}).close(), bool)
    client.listen(tools_list_changed="yes")  # type: ignore[arg-type]


async def mcp_listen_async(aclient: codexclient.AsyncMcpClient) -> None:
    async with await aclient.listen(prompts_list_changed=True) as sub:
        assert_type(sub, codexclient.Listen)
        assert_type(sub.closed, bool)


def one_protocol_per_class(
    codex: codexclient.CodexClient, mcp: codexclient.McpClient, old: codexclient.Client
) -> None:
    # each class has only its protocol's methods; Client (the Codex client's old name) has none
    # of MCP's
    assert_type(mcp.list_tools(), List[codexclient.Tool])
    old.list_tools()  # type: ignore[attr-defined]
    old.call_tool("echo", {"message": "hi"})  # type: ignore[attr-defined]
    assert_type(old.thread_start(), codexclient.Thread)
    assert_type(mcp.request("tools/list"), Any)
    codex.list_tools()  # type: ignore[attr-defined]
    mcp.thread_start()  # type: ignore[attr-defined]
    with codexclient.McpClient(command=["server"]) as m:
        assert_type(m, codexclient.McpClient)
    # each class takes its clients' options (generated from the core's table); another
    # client's option, or a wrongly typed one, is a type error
    codexclient.McpClient(command=["server"], codex_home="/h")  # type: ignore[arg-type]
    codexclient.CodexClient(mcp_cache=True)  # type: ignore[arg-type]
    codexclient.CodexClient(default_timeout="soon")  # type: ignore[arg-type]
    codexclient.Client(command=["server"], codex_home="/h", mcp_cache=True)
    with codexclient.CodexClient() as c:
        assert_type(c, codexclient.CodexClient)


async def one_protocol_per_class_async(
    mcp: codexclient.AsyncMcpClient, old: codexclient.AsyncClient
) -> None:
    assert_type(await mcp.call_tool("echo"), codexclient.CallToolResult)
    await old.call_tool("echo")  # type: ignore[attr-defined]
    await old.list_prompts()  # type: ignore[attr-defined]
    assert_type(await old.thread_start(), codexclient.AsyncThread)
    assert_type(mcp.call_tool_progress("slow"), codexclient.AsyncToolCall)
    await mcp.thread_start()  # type: ignore[attr-defined]
    async with codexclient.AsyncMcpClient(command=["server"]) as m:
        assert_type(m, codexclient.AsyncMcpClient)


def mcp_typed_dicts(mcp: codexclient.McpClient) -> None:
    # the dicts of MCP results are the generated TypedDicts of codexclient.mcp_types
    from codexclient import mcp_types as mt

    tool = mcp.list_tools()[0]
    assert_type(tool.icons, List[mt.Icon])
    assert_type(tool.icons[0]["src"], str)
    links = mcp.call_tool("linked", {}).resource_links
    assert_type(links, List[mt.ResourceLink])
    assert_type(links[0]["uri"], str)
    assert_type(links[0]["type"], Literal["resource_link"])
    assert_type(links[0].get("size"), Optional[int])
    _link: mt.ResourceLink = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    _bad: mt.Icon = {"mimeType": "image/png"}  # type: ignore[typeddict-item]
    assert_type(mt.SCHEMA_VERSIONS, Tuple[str, ...])
