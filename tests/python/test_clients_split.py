"""One client class per protocol (issues #35, #42): :class:`CodexClient` /
:class:`AsyncCodexClient` carry the Codex methods, :class:`McpClient` / :class:`AsyncMcpClient`
the MCP ones, on a shared protocol-neutral base; each class is checked against explicit lists,
and no class has any method of the other protocol (the lists taken from the classes
themselves). ``Client`` / ``AsyncClient`` stay the Codex clients, with no MCP method (their
deprecated MCP aliases were removed before 0.2.0 shipped); made for an MCP server they warn
and still connect — checked against the real MCP everything server and the real Codex. An
option of the other client is the core's clear error.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Dict, List, Set, Tuple

import pytest

import codexclient
from codexclient._async import AsyncClientBase
from codexclient._base import ClientBase
from codexclient._sync import SyncClientBase
from codexclient import (
    AsyncClient,
    AsyncCodexClient,
    AsyncMcpClient,
    Client,
    CodexClient,
    InvalidArgumentError,
    McpClient,
)
from conftest import mcp_everything
from helpers import run

SHARED = {
    "connect", "close", "request", "notify", "events", "is_connected", "is_reconnecting",
    "initialize_result", "stderr_tail", "server_pid", "on_server_request", "on_notification",
    "on_connection_event", "on_elicitation", "id", "label", "respond", "respond_error",
}  # fmt: skip
CODEX = {
    "thread_start", "thread_resume", "thread_fork", "thread", "thread_list", "thread_read",
    "thread_archive", "thread_unarchive", "thread_compact", "command_exec", "account_read",
    "skills_list", "model_list", "config_read", "config_batch_write", "review_start",
    "login_api_key", "login_chatgpt", "login_device_code", "logout", "rate_limits",
    "mcp_server_status_list", "mcp_server_oauth_login", "feedback_upload", "server_version",
    "supports", "add_skill_source", "remove_skill_source", "on_command_approval",
    "on_file_change_approval", "on_permissions_request", "on_user_input", "on_tool_call",
    "thread_resume_ref",
}  # fmt: skip
MCP = {
    "list_tools", "list_tools_page", "call_tool", "call_tool_progress", "list_resources",
    "list_resources_page", "list_resource_templates", "list_resource_templates_page",
    "read_resource", "subscribe_resource", "unsubscribe_resource", "list_prompts",
    "list_prompts_page", "get_prompt", "complete", "set_logging_level", "ping", "list_skills",
    "load_skill", "listen", "call_tool_as_task", "get_task", "list_tasks", "cancel_task",
    "task_result", "wait_task", "on_sampling", "on_roots",
}  # fmt: skip


def _public(cls: type) -> Set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


@pytest.mark.parametrize(
    "cls, expected",
    [
        (CodexClient, SHARED | CODEX),
        (AsyncCodexClient, SHARED | CODEX),
        (McpClient, SHARED | MCP),
        (AsyncMcpClient, SHARED | MCP),
        (Client, SHARED | CODEX),
        (AsyncClient, SHARED | CODEX),
    ],
)
def test_each_class_has_only_its_protocols_methods(cls: type, expected: Set[str]) -> None:
    assert _public(cls) == expected, (
        f"missing {sorted(expected - _public(cls))}, extra {sorted(_public(cls) - expected)}"
    )


def test_the_class_tree() -> None:
    assert issubclass(Client, CodexClient) and issubclass(AsyncClient, AsyncCodexClient)
    for mcp, codex in ((McpClient, CodexClient), (AsyncMcpClient, AsyncCodexClient)):
        assert not issubclass(mcp, codex) and not issubclass(codex, mcp)
    for name in ("CodexClient", "AsyncCodexClient", "McpClient", "AsyncMcpClient", "Client", "AsyncClient"):
        assert name in codexclient.__all__ and getattr(codexclient, name).__doc__
    # The asyncio classes' methods are awaitable where the sync ones block (the progress call
    # is sent at once and iterated).
    for name in sorted((CODEX | MCP) - {"thread", "add_skill_source", "remove_skill_source",
                                         "server_version", "supports", "call_tool_progress"}):
        if name.startswith("on_"):
            continue
        cls = AsyncCodexClient if name in CODEX else AsyncMcpClient
        assert inspect.iscoroutinefunction(inspect.unwrap(getattr(cls, name))), name


CODEX_CLASSES = (CodexClient, AsyncCodexClient, Client, AsyncClient)
MCP_CLASSES = (McpClient, AsyncMcpClient)
BASE = _public(ClientBase) | _public(SyncClientBase) | _public(AsyncClientBase) | SHARED
"""The protocol-neutral names: the neutral bases' and ``SHARED`` (every class has those, see
above; ``request`` is typed per protocol but sends any method): what a class has beyond them is
its protocol's."""


def _own(classes: Tuple[type, ...]) -> Set[str]:
    """Every public name of ``classes`` that their protocol-neutral bases do not have."""
    return set().union(*(_public(c) for c in classes)) - BASE


@pytest.mark.parametrize(
    "classes, others, sample",
    [
        (MCP_CLASSES, CODEX_CLASSES, {"list_tools", "call_tool", "ping", "listen", "on_sampling"}),
        (CODEX_CLASSES, MCP_CLASSES, {"thread_start", "login_api_key", "on_command_approval"}),
    ],
    ids=["no MCP method on a Codex client", "no Codex method on an MCP client"],
)
def test_no_class_has_a_method_of_the_other_protocol(
    classes: Tuple[type, ...], others: Tuple[type, ...], sample: Set[str]
) -> None:
    # The names come from the classes (a method added later is covered); the sample guards
    # against an empty list passing.
    names = _own(classes)
    assert sample <= names, sorted(sample - names)
    for cls in others:
        present = sorted(n for n in names if hasattr(cls, n))
        assert not present, f"{cls.__name__} has {present}"
    # Nor an instance (no __getattr__ forwarding); made without connecting.
    for cls in others:
        kwargs: Dict[str, Any] = (
            {"command": ["/nonexistent/server"]} if cls in MCP_CLASSES else {"codex_bin": "/nonexistent/codex"}
        )
        c: Any = cls(**kwargs)
        try:
            present = sorted(n for n in names if hasattr(c, n))
            assert not present, f"a {cls.__name__} has {present}"
        finally:
            close = c.close()
            if inspect.isawaitable(close):
                run(close)


# -- construction --------------------------------------------------------------------------------


def test_an_mcp_client_needs_an_mcp_server() -> None:
    for cls in (McpClient, AsyncMcpClient):
        for opts in ({}, {"transport": "stdio"}, {"transport": "mcp"}, {"transport": "exec"}):
            with pytest.raises(InvalidArgumentError, match=f"{cls.__name__} needs an MCP server"):
                cls(**opts)


def test_a_codex_client_refuses_an_mcp_server() -> None:
    for cls, new in ((CodexClient, "McpClient"), (AsyncCodexClient, "AsyncMcpClient")):
        for opts in ({"command": ["node", "s.js"]}, {"transport": "http://127.0.0.1:1/mcp"},
                     {"transport": "mcp+stdio:node s.js"}):  # fmt: skip
            with pytest.raises(InvalidArgumentError, match=f"use {new}"):
                cls(**opts)


def test_an_option_of_the_other_client_is_the_cores_error() -> None:
    # The core refuses by name, naming the option and the client.
    with pytest.raises(InvalidArgumentError, match="codex_home") as e:
        McpClient(command=["node", "s.js"], codex_home="/tmp")
    assert "mcp" in str(e.value)
    with pytest.raises(InvalidArgumentError, match="mcp_cache"):
        CodexClient(mcp_cache=False)
    with pytest.raises(InvalidArgumentError, match="oauth"):
        AsyncCodexClient(oauth_scopes=["a"])


def test_client_made_for_an_mcp_server_warns_and_still_connects() -> None:
    # It connects (the warning at the caller's line), with no MCP method: raw requests only.
    node, js = mcp_everything()
    with pytest.warns(DeprecationWarning, match=r"Client\(\.\.\.\) for an MCP server is deprecated: use McpClient") as w:
        c = Client(command=[node, js, "stdio"], default_timeout=20.0)
    assert w[0].filename == __file__
    with c:
        assert not hasattr(c, "list_tools") and not hasattr(c, "call_tool")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            old = sorted(t["name"] for t in c.request("tools/list")["tools"])
    with McpClient(command=[node, js, "stdio"], default_timeout=20.0) as m:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert sorted(t.name for t in m.list_tools()) == old
            assert "echo" in old


def test_async_client_made_for_an_mcp_server_warns_and_still_connects() -> None:
    node, js = mcp_everything()

    async def main() -> Dict[str, Any]:
        with pytest.warns(DeprecationWarning, match=r"AsyncClient\(\.\.\.\) for an MCP server is deprecated: use AsyncMcpClient") as w:
            c = AsyncClient(command=[node, js, "stdio"], default_timeout=20.0)
        assert w[0].filename == __file__
        async with c:
            assert not hasattr(c, "list_tools") and not hasattr(c, "on_sampling")
            tools = (await c.request("tools/list"))["tools"]
        async with AsyncMcpClient(command=[node, js, "stdio"], default_timeout=20.0) as m:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fresh = await m.list_tools()
        return dict(old=sorted(t["name"] for t in tools), new=sorted(t.name for t in fresh))

    r = run(main())
    assert r["old"] == r["new"] and "echo" in r["new"]


def test_codex_clients_old_and_new_names_run_a_turn_without_warnings(client_kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cls in (CodexClient, Client):
            with cls(**client_kwargs) as c:
                r = c.thread_start().run("MOCK_TEXT: split " + cls.__name__)
                assert r.final_response == "split " + cls.__name__

        async def main() -> List[str]:
            out = []
            for acls in (AsyncCodexClient, AsyncClient):
                async with acls(**client_kwargs) as ac:
                    t = await ac.thread_start()
                    out.append((await t.run("MOCK_TEXT: async " + acls.__name__)).final_response)
            return out

        assert run(main()) == ["async AsyncCodexClient", "async AsyncClient"]
