"""The examples in examples/python run against the real Codex and the mock model (the MCP one
against the MCP everything server)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from conftest import ROOT, mcp_everything
from test_oauth import OAuthFixture, oauth  # noqa: F401 (the fixture)

EXAMPLES = ROOT / "examples" / "python"


def _run(args: list, stdin: str = "", cwd: pathlib.Path = ROOT) -> str:
    r = subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_concurrent_threads_example(codex_bin: str, codex_home: pathlib.Path) -> None:
    out = _run(
        [str(EXAMPLES / "concurrent_threads.py"), "MOCK_TEXT: one", "MOCK_TEXT: two",
         "--codex-bin", codex_bin, "--codex-home", str(codex_home)]
    )
    assert "'MOCK_TEXT: one' -> 'one' (completed)" in out
    assert "'MOCK_TEXT: two' -> 'two' (completed)" in out


def test_approval_prompt_example(
    codex_bin: str, codex_home: pathlib.Path, workdir: pathlib.Path
) -> None:
    marker = workdir / "example-approved.txt"
    out = _run(
        [str(EXAMPLES / "approval_prompt.py"), f"MOCK_EXEC: touch {marker} && echo done",
         "--codex-bin", codex_bin, "--codex-home", str(codex_home)],
        stdin="y\n",
        cwd=workdir,
    )
    assert marker.exists() and "[completed;" in out


def test_streaming_chat_example(codex_bin: str, codex_home: pathlib.Path) -> None:
    out = _run(
        [str(EXAMPLES / "streaming_chat.py"), "--codex-bin", codex_bin, "--codex-home", str(codex_home)],
        stdin="MOCK_TEXT: first answer\nMOCK_TEXT: second answer\n",
    )
    assert out == "first answer\n[completed]\nsecond answer\n[completed]\n"


def test_mcp_tools_example() -> None:
    node, js = mcp_everything()
    out = _run([str(EXAMPLES / "mcp_tools.py"), node, js, "stdio"])
    assert "connected to mcp-servers/everything (MCP 2025-11-25)" in out, out
    assert "  echo: " in out and "  trigger-long-running-operation: " in out, out
    assert "echo -> Echo: hello from codexclient" in out, out
    out = _run(
        [str(EXAMPLES / "mcp_tools.py"), "--tool", "trigger-long-running-operation",
         "--args", '{"duration": 0.2, "steps": 2}', node, js, "stdio"]
    )
    assert "  progress 1/2\n  progress 2/2\n" in out, out
    assert "trigger-long-running-operation -> Long running operation completed." in out, out
    assert "listening:" not in out, out  # the everything server is of the handshake era


def test_mcp_tools_example_listens_in_the_stateless_era() -> None:
    from test_mcp_sdk import _command

    argv, _ = _command("python", "stdio")
    out = _run([str(EXAMPLES / "mcp_tools.py"), "--tool", "add", "--args", '{"a": 1, "b": 2}', *argv])
    assert "(MCP 2026-07-28)" in out, out
    assert "listening: {'toolsListChanged': True}" in out, out
    assert "add -> " in out and '"sum": 3' in out, out


def test_mcp_oauth_example(oauth: OAuthFixture, tmp_path: pathlib.Path) -> None:
    """The authorization example against the real OAuth fixture: the browser step pasted (the
    fixture's browser plays the user), the tokens kept in a directory, and a second run that
    starts from them without asking."""
    tokens = tmp_path / "tokens"
    args = [sys.executable, str(EXAMPLES / "mcp_oauth.py"), "--paste", "--tokens", str(tokens),
            "--tool", "whoami", "--timeout", "30", oauth.mcp]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert p.stdin is not None and p.stdout is not None
    try:
        assert p.stdout.readline().startswith("Open this URL"), "the example asks for the browser"
        url = p.stdout.readline().strip()
        assert url.startswith(oauth.issuer), url
        p.stdin.write(oauth.browse(url) + "\n")
        p.stdin.flush()
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, out
    assert "[auth succeeded]" in out and '"sub":"alice"' in out.replace(" ", ""), out
    assert [f.stat().st_mode & 0o077 for f in tokens.iterdir()] == [0], "one owner-only file"
    out = _run(args[1:])  # no stdin: the stored token is used
    assert "Open this URL" not in out and "whoami -> " in out, out
    assert oauth.stats()["authorizations"] == 1


def test_login_example_api_key(codex_bin: str, codex_home: pathlib.Path) -> None:
    key = "sk-example-not-a-real-key-77"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "login.py"), "--api-key-env", "EXAMPLE_KEY",
         "--codex-bin", codex_bin, "--codex-home", str(codex_home)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "EXAMPLE_KEY": key},
    )
    assert r.returncode == 0, r.stderr
    # The tests' model provider (the mock) needs no OpenAI account: the server reports none, and
    # the key is in its CODEX_HOME.
    assert r.stdout == "login: API key stored\naccount: none\n", r.stdout
    assert key in (codex_home / "auth.json").read_text()
    assert key not in r.stdout + r.stderr


@pytest.mark.usefixtures("chatgpt_login_lock")
def test_login_example_chatgpt_gives_the_url_and_cancels(codex_bin: str, codex_home: pathlib.Path) -> None:
    for flags in ([], ["--async"]):
        r = subprocess.run(
            [sys.executable, str(EXAMPLES / "login.py"), "--chatgpt", "--wait", "0.5", *flags,
             "--codex-bin", codex_bin, "--codex-home", str(codex_home)],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )
        assert r.returncode == 0, r.stderr
        assert "open this URL to log in: https://auth.openai.com/oauth/authorize?" in r.stderr, r.stderr
        assert r.stdout.startswith("login: failed: "), (flags, r.stdout)
        assert r.stdout.endswith("account: none\n"), (flags, r.stdout)
