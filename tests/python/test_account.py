"""Login, account and the administrative helpers (config batch write, review, compact, MCP
server status and OAuth login, feedback) from Python, sync and asyncio, against the real
codex app-server (the default Codex; the ``smoke`` test on each CODEX_SMOKE version too) and
the local mock model. What would reach OpenAI (the device code,
a feedback upload) runs with the server in a network namespace of its own (``unshare -n``):
it fails at once and no packet leaves the machine."""

from __future__ import annotations

import pathlib
import subprocess
import time
from typing import Any, Dict

import pytest

import codexclient
from codexclient import AsyncClient, Client
from helpers import run

KEY = "sk-test-not-a-real-key-4242"


@pytest.fixture
def offline_kwargs(client_kwargs: dict, tmp_path: pathlib.Path) -> dict:
    """``client_kwargs`` with the server in a new network namespace (only its own loopback)."""
    r = subprocess.run(["unshare", "-n", "true"])
    assert r.returncode == 0, "`unshare -n` must work (util-linux, run as root): the offline tests need it"
    wrapper = tmp_path / "codex-offline.sh"
    wrapper.write_text(f"#!/bin/sh\nexec unshare -n -- '{client_kwargs['codex_bin']}' \"$@\"\n")
    wrapper.chmod(0o755)
    return dict(client_kwargs, codex_bin=str(wrapper))


@pytest.mark.smoke
def test_api_key_login_is_stored_and_logout_forgets_it(client_kwargs: dict, codex_home: pathlib.Path) -> None:
    with Client(**client_kwargs) as c:
        assert c.login_api_key(KEY) is None
        assert KEY in (codex_home / "auth.json").read_text()
        with pytest.raises(codexclient.InvalidArgumentError):
            c.login_api_key("  ")
        # API-key accounts have no ChatGPT rate limits: the server says so.
        with pytest.raises(codexclient.RpcError):
            c.rate_limits()
        c.logout()
        auth = codex_home / "auth.json"
        assert not auth.exists() or KEY not in auth.read_text()


def test_api_key_login_async(client_kwargs: dict, codex_home: pathlib.Path) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            await c.login_api_key(KEY)
            assert KEY in (codex_home / "auth.json").read_text()
            with pytest.raises(codexclient.RpcError):
                await c.rate_limits()
            await c.logout()

    run(main())


def _check_browser_login(login: Any) -> None:
    assert login.auth_url.startswith("https://auth.openai.com/oauth/authorize?"), login.auth_url
    assert "code_challenge_method=S256" in login.auth_url and "127.0.0.1" in login.auth_url
    assert login.login_id and login.user_code is None
    assert "code_challenge" not in repr(login) and "auth.openai.com" not in repr(login)
    assert login.outcome is None


@pytest.mark.usefixtures("chatgpt_login_lock")
def test_chatgpt_browser_login_gives_the_url_times_out_and_cancels(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        login = c.login_chatgpt()
        assert isinstance(login, codexclient.Login)
        _check_browser_login(login)
        t0 = time.monotonic()
        with pytest.raises(codexclient.RequestTimeoutError):
            login.wait(timeout=0.3)
        assert time.monotonic() - t0 < 5
        login.cancel()
        outcome: Dict[str, Any] = login.wait(timeout=20)
        assert outcome["success"] is False and outcome["error"], outcome
        assert login.outcome == outcome


@pytest.mark.usefixtures("chatgpt_login_lock")
def test_chatgpt_browser_login_async(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            login = await c.login_chatgpt()
            assert isinstance(login, codexclient.AsyncLogin)
            _check_browser_login(login)
            with pytest.raises(codexclient.RequestTimeoutError):
                await login.wait(timeout=0.3)
            await login.cancel()
            outcome = await login.wait(timeout=20)
            assert outcome["success"] is False, outcome

    run(main())


def test_device_code_login_fails_cleanly_without_network(offline_kwargs: dict) -> None:
    with Client(**offline_kwargs) as c:
        t0 = time.monotonic()
        with pytest.raises(codexclient.RpcError, match="device code"):
            c.login_device_code()
        assert time.monotonic() - t0 < 60

    async def main() -> None:
        async with AsyncClient(**offline_kwargs) as c:
            with pytest.raises(codexclient.RpcError, match="device code"):
                await c.login_device_code()

    run(main())


def test_feedback_upload_fails_cleanly_without_network(offline_kwargs: dict) -> None:
    # Codex offline answers at once (~5 s: its DNS lookup of the Sentry host fails) with
    # -32603 "failed to upload feedback: failed to upload feedback to Sentry: ...": a timeout,
    # refused params or any other error fails the test.
    with Client(**offline_kwargs) as c:
        t0 = time.monotonic()
        with pytest.raises(codexclient.RpcError) as caught:
            c.feedback_upload("bug", reason="test", include_logs=False, timeout=30)
        assert caught.value.code == -32603, repr(caught.value)
        assert caught.value.server_message.startswith("failed to upload feedback:"), repr(caught.value)
        assert time.monotonic() - t0 < 30


def test_config_batch_write_then_read(client_kwargs: dict, codex_home: pathlib.Path) -> None:
    with Client(**client_kwargs) as c:
        r = c.config_batch_write(
            [{"keyPath": "model_reasoning_effort", "value": "low", "mergeStrategy": "replace"}]
        )
        assert r["status"] == "ok", r
        assert 'model_reasoning_effort = "low"' in (codex_home / "config.toml").read_text()
        assert c.config_read()["config"]["model_reasoning_effort"] == "low"

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            r = await c.config_batch_write(
                [{"keyPath": "model_reasoning_effort", "value": "high", "mergeStrategy": "replace"}]
            )
            assert r["status"] == "ok", r
            assert (await c.config_read())["config"]["model_reasoning_effort"] == "high"

    run(main())


def test_mcp_server_status_and_oauth_login_of_an_unknown_server(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        assert isinstance(c.mcp_server_status_list()["data"], list)
        with pytest.raises(codexclient.RpcError, match="no-such-server"):
            c.mcp_server_oauth_login("no-such-server")

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            assert isinstance((await c.mcp_server_status_list())["data"], list)
            with pytest.raises(codexclient.RpcError, match="no-such-server"):
                await c.mcp_server_oauth_login("no-such-server")

    run(main())


def test_compact_and_review_on_a_real_thread(client_kwargs: dict) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            assert (await thread.run("hello")).status == "completed"
            events = c.events()
            await thread.compact()
            async for ev in events:
                p = getattr(ev, "params", None) or {}
                if ev.method == "item/completed" and p.get("item", {}).get("type") == "contextCompaction":
                    break
            r = await thread.review_start({"type": "uncommittedChanges"})
            assert isinstance(r["turn"]["id"], str), r
            async for ev in events:
                p = getattr(ev, "params", None) or {}
                if ev.method == "item/completed" and p.get("item", {}).get("type") == "enteredReviewMode":
                    break

    run(main(), 120)


def test_turn_bounds_interrupt_a_silent_turn_and_leave_a_quick_one(client_kwargs: dict) -> None:
    with Client(**client_kwargs) as c:
        thread = c.thread_start()
        t0 = time.monotonic()
        # One delta, then 20 s of silence before each next one.
        with pytest.raises(codexclient.RequestTimeoutError) as e:
            thread.run("MOCK_SLOW: 3 20000", timeout=120, idle_timeout=2)
        assert time.monotonic() - t0 < 15
        assert "no event for 2s" in str(e.value) and "last event: " in str(e.value), e.value
        assert "interrupted" in str(e.value)
        turn = thread.run_streamed("MOCK_SLOW: 100 500")
        with pytest.raises(codexclient.RequestTimeoutError, match="took longer than 3s"):
            turn.result(timeout=3, idle_timeout=30)
        assert turn.partial_result().status == "interrupted"
        r = thread.run("hello", timeout=60, idle_timeout=30)
        assert r.status == "completed" and r.final_response == "Hello from the mock model."
        with pytest.raises(codexclient.InvalidArgumentError):
            thread.run("hello", timeout=-1)
