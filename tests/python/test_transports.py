"""`transport=`: the exec transport against the real Codex (the default, CODEX_DEFAULT) (`codex exec --json`), the mcp
transport against the real Codex 0.92.0 (`codex mcp-server`), both with the local mock model;
spec and token validation."""

from __future__ import annotations

import os
import pathlib
from typing import Any, List

import pytest

import codexclient
from codexclient import AsyncClient, Client, InvalidArgumentError, UnsupportedError
from conftest import ROOT
from helpers import run, text_of

MCP_CODEX_VERSION = "0.92.0"


@pytest.fixture
def exec_kwargs(client_kwargs: dict) -> dict:
    """Options of an exec-transport client (the work dir is not a Git repository)."""
    return dict(client_kwargs, transport="exec", args=["--skip-git-repo-check"])


@pytest.fixture
def codex_092_bin() -> str:
    """The real Codex 0.92.0 (CODEX_092_BIN, else ./.cache/codex-0.92.0); missing = failure."""
    given = os.environ.get("CODEX_092_BIN")
    path = pathlib.Path(given) if given else ROOT / ".cache" / f"codex-{MCP_CODEX_VERSION}"
    if not path.exists():
        pytest.fail(
            f"the real Codex {MCP_CODEX_VERSION} is not installed at {path}: "
            f"`npm install @openai/codex@{MCP_CODEX_VERSION}` in a scratch folder and link its "
            f"vendor codex binary there (or set CODEX_092_BIN)",
            pytrace=False,
        )
    return str(path)


def test_exec_async_streams_a_turn_and_run_returns_the_final_text(exec_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**exec_kwargs) as c:
            assert c.is_connected
            thread = await c.thread_start()
            turn = await thread.run_streamed("MOCK_TEXT: hello exec")
            assert turn.thread_id == thread.id and turn.turn_id
            events: List[Any] = []
            async for ev in turn:  # ends by itself at turn/completed
                events.append(ev)
            assert isinstance(events[-1], codexclient.TurnCompleted), [e.method for e in events]
            assert events[-1].status == "completed"
            # exec has no token streaming: one delta carries the message's full text.
            assert text_of(events) == "hello exec"
            assert (await turn.result()).final_response == "hello exec"
            # A second turn on the same thread (`codex exec resume`).
            r = await thread.run("MOCK_TEXT: again over exec")
            assert r.final_response == "again over exec"
            assert r.status == "completed"

    run(main())


def test_exec_sync_run_returns_the_final_text(exec_kwargs: dict) -> None:
    with Client(**exec_kwargs) as c:
        thread = c.thread_start()
        r = thread.run("MOCK_TEXT: hello exec")
        assert r.final_response == "hello exec"
        assert r.status == "completed" and r.completed
        assert any(i.get("type") == "agentMessage" for i in r.items)
        events = list(thread.run_streamed("MOCK_TEXT: streamed exec"))
        assert isinstance(events[-1], codexclient.TurnCompleted)


def test_exec_unsupported_calls_raise_unsupported_error_naming_the_transport(
    exec_kwargs: dict,
) -> None:
    with Client(**exec_kwargs) as c:
        thread = c.thread_start()
        thread.run("MOCK_TEXT: first")
        with pytest.raises(UnsupportedError) as info:
            c.request("thread/fork", {"threadId": thread.id})
        assert isinstance(info.value, codexclient.CodexError)
        assert "exec" in str(info.value) and "thread/fork" in str(info.value)

        turn = thread.run_streamed("MOCK_SLOW: 20 50")
        try:
            with pytest.raises(UnsupportedError, match="exec"):
                turn.steer("more")
        finally:
            turn.interrupt()
            list(turn)
        assert c.is_connected  # the connection is unaffected

    async def main() -> None:
        async with AsyncClient(**exec_kwargs) as ac:
            t = await ac.thread_start()
            await t.run("MOCK_TEXT: first")
            with pytest.raises(UnsupportedError, match="exec transport"):
                await ac.thread_fork(t.id)

    run(main())


@pytest.mark.parametrize("spec", ["bogus", "ftp://127.0.0.1:1/", "EXEC", "stdio2", "mcp+stdioX"])
def test_bad_transport_spec_raises_at_construction(spec: str, client_kwargs: dict) -> None:
    for cls in (Client, AsyncClient):
        with pytest.raises(InvalidArgumentError, match="unknown transport") as info:
            cls(**client_kwargs, transport=spec)
        assert isinstance(info.value, codexclient.CodexError)
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("spec", ["exec", "codex-mcp-server", "stdio", None, "unix", "unix:///tmp/x.sock"])
def test_token_refused_without_websocket_and_never_shown(spec: Any, client_kwargs: dict) -> None:
    secret = "sk-very-secret-token-123"
    for cls in (Client, AsyncClient):
        with pytest.raises(InvalidArgumentError, match="token") as info:
            cls(**client_kwargs, transport=spec, token=secret)
        assert secret not in str(info.value)


def test_the_mcp_alias_still_works_with_a_deprecation_warning_at_the_callers_line(
    client_kwargs: dict,
) -> None:
    """Transport ``"mcp"`` (it means ``codex mcp-server``, not any MCP server) is accepted for
    one more minor version; the core's note is raised as a DeprecationWarning that points at
    the line that made the client and names the replacement."""
    import warnings

    for cls in (codexclient.CodexClient, codexclient.AsyncCodexClient):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            c = cls(**client_kwargs, transport="mcp")
        dep = [w for w in caught if issubclass(w.category, DeprecationWarning)]
        assert len(dep) == 1, [str(w.message) for w in caught]
        assert '"codex-mcp-server"' in str(dep[0].message)
        assert dep[0].filename == __file__, dep[0].filename
        assert type(c).__name__ == cls.__name__
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cls(**client_kwargs, transport="codex-mcp-server")
        assert not [w for w in caught if issubclass(w.category, DeprecationWarning)]


def test_accepted_specs_construct_and_token_stays_out_of_repr(client_kwargs: dict) -> None:
    secret = "sk-very-secret-token-456"
    for spec in (None, "", "stdio", "exec", "codex-mcp-server", "unix", "unix:///tmp/x.sock"):
        Client(**client_kwargs, transport=spec)
    for spec in ("ws://127.0.0.1:9/", "wss://example.invalid/"):
        c = Client(**client_kwargs, transport=spec, token=secret)
        assert secret not in repr(c) and secret not in repr(vars(c))
        ac = AsyncClient(**client_kwargs, transport=spec, token=secret)
        assert secret not in repr(ac) and secret not in repr(vars(ac))


def test_mcp_transport_runs_a_turn_on_codex_092(
    codex_092_bin: str, client_kwargs: dict, mock_port: int
) -> None:
    kwargs = dict(
        client_kwargs,
        codex_bin=codex_092_bin,
        transport="codex-mcp-server",
        # 0.92.0 would fetch the model list from chatgpt.com without this, and offers the
        # mock's `exec_command` tool only with unified_exec.
        env={"OPENAI_BASE_URL": f"http://127.0.0.1:{mock_port}/v1"},
        config={"features.unified_exec": True},
    )

    async def main() -> None:
        async with AsyncClient(**kwargs) as c:
            assert c.initialize_result is not None
            assert MCP_CODEX_VERSION in (c.initialize_result.user_agent or "")
            thread = await c.thread_start()
            events: List[Any] = []
            async for ev in thread.run_streamed("MOCK_TEXT: hello over mcp"):
                events.append(ev)
            assert isinstance(events[-1], codexclient.TurnCompleted)
            r = await thread.run("MOCK_TEXT: second over mcp")
            assert r.final_response == "second over mcp"
            assert r.status == "completed"

    run(main())


def test_signed_bearer_token_by_keywords_runs_a_turn_and_a_wrong_secret_gets_401(
    codex_bin: str, client_kwargs: dict, codex_home: pathlib.Path, workdir: pathlib.Path,
    tmp_path: pathlib.Path,
) -> None:
    """Codex's ``--ws-auth signed-bearer-token`` (the real app-server over ``ws://``): the
    keywords ``ws_auth``, ``ws_shared_secret_file``, ``ws_issuer``, ``ws_audience`` make the
    library mint the JWT; a turn runs. A token signed with another secret gets the server's
    401; a secret file others can read is refused when the client is made. No secret shows."""
    import secrets
    import socket
    import subprocess

    from helpers import wait_until

    def secret_file(name: str, mode: int = 0o600) -> "tuple[str, pathlib.Path]":
        value = secrets.token_hex(32)
        path = tmp_path / name
        path.write_text(value + "\n")
        path.chmod(mode)
        return value, path

    def accepts(port: int) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    secret, path = secret_file("ws-secret")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"ws://127.0.0.1:{port}"
    server = subprocess.Popen(
        [codex_bin, "app-server", "--listen", url, "--ws-auth", "signed-bearer-token",
         "--ws-shared-secret-file", str(path), "--ws-issuer", "py-tests",
         "--ws-audience", "codex-app-server"],
        env={**os.environ, "CODEX_HOME": str(codex_home)},
        cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: accepts(port), timeout=30, what="the app-server listening")
        kw = dict(client_kwargs, transport=url, ws_auth="signed-bearer-token",
                  ws_shared_secret_file=path, ws_issuer="py-tests",
                  ws_audience="codex-app-server")
        with codexclient.CodexClient(**kw) as c:
            assert c.server_version is not None and c.server_version["source"] == "remote"
            r = c.thread_start().run("MOCK_TEXT: signed from Python")
            assert r.final_response == "signed from Python"

        other, other_path = secret_file("other-secret")
        with pytest.raises(codexclient.TransportError, match="HTTP 401") as info:
            with codexclient.CodexClient(**dict(kw, ws_shared_secret_file=other_path)):
                pass
        assert secret not in str(info.value) and other not in str(info.value)

        shared, shared_path = secret_file("shared-secret", 0o644)
        with pytest.raises(InvalidArgumentError, match="readable by others") as refused:
            codexclient.CodexClient(**dict(kw, ws_shared_secret_file=shared_path))
        assert shared not in str(refused.value)
    finally:
        server.kill()
        server.wait(timeout=10)
