"""MCP authorization (OAuth 2.1) from Python against real parts, two real authorization servers:

- ``scripts/mcp/oauth-fixture.mjs`` runs oidc-provider (a certified OpenID provider: PKCE,
  dynamic registration, resource indicators, refresh tokens, revocation) in front of an MCP
  server on the official TypeScript SDK that verifies every token by introspection;
- ``scripts/mcp/oauth-fixture.py`` runs the official Python SDK's own authorization server
  (``mcp.server.auth``: its token endpoint identifies the client by the form's ``client_id``
  only) with an in-memory provider, in front of an MCP server on the same SDK that requires a
  scope (no per-tool scope: no step-up there).

Each has a ``browse`` endpoint that plays the user in the browser (signs in as ``alice``,
grants what is asked) and answers the redirect URL; its control endpoints count
authorizations, refreshes and registrations, revoke (or expire) tokens and list every secret
it handed out.

Covered for the sync :class:`McpClient` and the :class:`AsyncMcpClient`, against both servers (the
``server`` fixture): the whole flow through the ``authorize=`` callable (plain and ``async
def``) and a tool call, a ``token_store=`` object that a second client starts from without the
browser, a refresh after the access token is revoked or expired, a new authorization after the
grant is revoked, and no secret in any log record at trace level; against oidc-provider: a
step-up on ``403 insufficient_scope``, an authorize callable that raises, an ``async def`` one
cut off at ``oauth_authorize_timeout``, the :class:`LoopbackBrowser` helper.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import codexclient
from codexclient import AsyncMcpClient, McpClient, CodexError, ConnectionEvent, LoopbackBrowser

from conftest import ROOT, mcp_everything
from helpers import async_wait_until, run, wait_until

FIXTURE = ROOT / "scripts" / "mcp" / "oauth-fixture.mjs"
PY_FIXTURE = ROOT / "scripts" / "mcp" / "oauth-fixture.py"
REDIRECT = "http://127.0.0.1:1/callback"
"""The redirect URI the clients register: the fixture's browser never requests it."""

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http(method: str, url: str) -> str:
    """The body of a 200 answer from a loopback URL."""
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _NO_PROXY.open(req, timeout=20) as r:
        assert r.status == 200, (method, url, r.status)
        body: str = r.read().decode()
        return body


class OAuthFixture:
    """The running fixture (its stdin closed at the end stops it)."""

    def __init__(self, proc: "subprocess.Popen[bytes]", info: Dict[str, Any]) -> None:
        self.proc = proc
        self.info = info
        #: Whose fixture: ``"python-sdk"`` or ``"oidc-provider"``.
        self.server: str = info.get("server", "oidc-provider")
        #: Whether its MCP server has a tool that needs another scope (``write_note``).
        self.step_up = self.server == "oidc-provider"
        self.mcp: str = info["mcp"]
        self.issuer: str = info["issuer"]
        #: Every authorization URL the browser was sent to.
        self.visited: List[str] = []
        #: Every authorization code it brought back.
        self.codes: List[str] = []

    def control(self, what: str, post: bool = False) -> Any:
        return json.loads(http("POST" if post else "GET", f"{self.info['control']}/{what}"))

    def stats(self) -> Dict[str, int]:
        stats: Dict[str, int] = self.control("stats")
        return stats

    def browse(self, url: str) -> str:
        """Play the user at ``url``; the redirect URL (blocking HTTP)."""
        self.visited.append(url)
        target = f"{self.info['browse']}?{urllib.parse.urlencode({'url': url})}"
        redirect = http("GET", target)
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect).query).get("code")
        if code:
            self.codes.extend(code)
        return redirect

    def options(self, **kw: Any) -> Dict[str, Any]:
        """A client of the fixture's MCP server (OAuth on: ``authorize`` given)."""
        base: Dict[str, Any] = dict(
            transport=self.mcp, oauth_redirect_uri=REDIRECT, default_timeout=30.0, connect_timeout=30.0
        )
        base.update(kw)
        return base


def _start(server: str) -> Iterator[OAuthFixture]:
    if server == "python-sdk":
        py = pathlib.Path(os.environ.get("MCP_SDK_PYTHON") or ROOT / ".cache" / "mcp-sdk-python")
        if not py.exists():
            pytest.fail(f"{py} is missing: run `bash scripts/setup-mcp.sh` (the Python MCP SDK)", pytrace=False)
        argv = [str(py), str(PY_FIXTURE)]
    else:
        node, _ = mcp_everything()
        if not (ROOT / "scripts" / "mcp" / "node_modules" / "oidc-provider").exists():
            pytest.fail("oidc-provider is missing: run `bash scripts/setup-mcp.sh`", pytrace=False)
        argv = [node, str(FIXTURE)]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline().decode()
    try:
        info = json.loads(line)
    except ValueError:
        proc.kill()
        raise AssertionError(f"the OAuth fixture did not start: {line!r}")
    try:
        yield OAuthFixture(proc, info)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def oauth() -> Iterator[OAuthFixture]:
    """The oidc-provider fixture."""
    yield from _start("oidc-provider")


@pytest.fixture(params=["oidc-provider", "python-sdk"])
def server(request: pytest.FixtureRequest) -> Iterator[OAuthFixture]:
    """Each real authorization server in turn."""
    yield from _start(request.param)


class DictStore:
    """A :class:`codexclient.TokenStore` in a dict, recording its calls."""

    def __init__(self) -> None:
        self.data: Dict[str, str] = {}
        self.calls: List[str] = []

    def load(self, server: str) -> Optional[str]:
        self.calls.append("load")
        return self.data.get(server)

    def save(self, server: str, json: str) -> None:
        self.calls.append("save")
        self.data[server] = json

    def clear(self, server: str) -> None:
        self.calls.append("clear")
        self.data.pop(server, None)


def auth_steps(events: List[ConnectionEvent]) -> List[str]:
    return [str(e.auth) for e in events if e.kind == "auth"]


def never(url: str) -> str:
    raise AssertionError(f"authorize called: {url}")


# -- sync ------------------------------------------------------------------------------------


def test_sync_flow_step_up_refresh_and_reauthorization(server: OAuthFixture) -> None:
    oauth = server
    events: List[ConnectionEvent] = []
    callers: List[int] = []

    def authorize(url: str) -> str:
        callers.append(threading.get_ident())
        return oauth.browse(url)

    with McpClient(**oauth.options(authorize=authorize)) as c:
        c.on_connection_event(events.append)
        # 401 at connect → discovery, registration, the browser step, code + PKCE.
        who = json.loads(c.call_tool("whoami").text)
        assert who["sub"] == "alice", who
        stats = oauth.stats()
        assert (stats["registrations"], stats["authorizations"]) == (1, 1), stats
        assert len(oauth.visited) == 1 and oauth.visited[0].startswith(oauth.issuer), oauth.visited
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(oauth.visited[0]).query)
        assert q["code_challenge_method"] == ["S256"] and q["resource"] == [oauth.mcp], q
        # The callable ran on a library thread, not the caller's (which waits in connect).
        assert callers and threading.get_ident() not in callers

        authorized = 1
        if oauth.step_up:
            # 403 insufficient_scope → step-up through the callable, the call goes again.
            assert c.call_tool("write_note", {"text": "hi"}).text == "noted: hi"
            authorized += 1
            stats = oauth.stats()
            assert stats["authorizations"] == authorized and stats["registrations"] == 1, stats
            assert "mcp:write" in urllib.parse.parse_qs(urllib.parse.urlsplit(oauth.visited[1]).query)["scope"][0]

        # The access token revoked (or expired) → 401 invalid_token → refreshed, no browser.
        assert oauth.control("revoke-access", post=True)["revoked"] >= 1
        assert json.loads(c.call_tool("whoami").text)["sub"] == "alice"
        stats = oauth.stats()
        assert stats["refreshes"] >= 1 and stats["authorizations"] == authorized, stats
        wait_until(lambda: "refreshed" in auth_steps(events), what="the refreshed event")

        # The grant revoked (the refresh token too) → the refresh fails → the browser again.
        before = auth_steps(events).count("succeeded")
        assert oauth.control("revoke-grants", post=True)["revoked"] >= 1
        assert json.loads(c.call_tool("whoami").text)["sub"] == "alice"
        authorized += 1
        stats = oauth.stats()
        assert stats["authorizations"] == authorized and stats["registrations"] == 1, stats
        wait_until(lambda: auth_steps(events).count("succeeded") == before + 1, what="the succeeded event")
    steps = auth_steps(events)
    assert "started" in steps and "succeeded" in steps, steps
    succeeded = [e for e in events if e.auth == "succeeded"]
    assert succeeded[-1].issuer == oauth.issuer, succeeded
    started = [e for e in events if e.auth == "started"]
    assert started[-1].grant == "authorization_code", started
    if oauth.step_up:
        assert any("mcp:write" in (e.scope or "") for e in succeeded), succeeded
        assert any(e.reason == "insufficient_scope" for e in started), started


def test_sync_token_store_is_reused_without_the_browser(server: OAuthFixture) -> None:
    oauth = server
    store = DictStore()
    with McpClient(**oauth.options(authorize=oauth.browse, token_store=store)) as c:
        assert json.loads(c.call_tool("whoami").text)["sub"] == "alice"
    assert "load" in store.calls and "save" in store.calls, store.calls
    saved = json.loads(store.data[oauth.mcp])
    assert saved["issuer"] == oauth.issuer, saved.keys()
    assert isinstance(store, codexclient.TokenStore)

    store.calls.clear()
    with McpClient(**oauth.options(authorize=never, token_store=store)) as second:
        assert json.loads(second.call_tool("whoami").text)["sub"] == "alice"
    assert store.calls[0] == "load", store.calls
    stats = oauth.stats()
    assert (stats["authorizations"], stats["registrations"]) == (1, 1), stats


def test_sync_authorize_that_raises_fails_clearly(oauth: OAuthFixture) -> None:
    def refuse(url: str) -> str:
        raise RuntimeError("the user closed the window")

    c = McpClient(**oauth.options(authorize=refuse))
    try:
        with pytest.raises(CodexError) as err:
            c.connect()
        # The request that needed the token fails with the server's 401, saying why.
        msg = str(err.value)
        assert "HTTP 401" in msg, msg
        assert "authorize callable raised RuntimeError: the user closed the window" in msg, msg
    finally:
        c.close()
    assert oauth.stats()["authorizations"] == 0


def test_sync_authorize_must_return_a_string(oauth: OAuthFixture) -> None:
    with pytest.raises(CodexError, match="must return the redirect URL"):
        with McpClient(**oauth.options(authorize=lambda url: 42)):
            pass


def test_sync_client_awaits_an_async_authorize_on_a_loop_of_its_own(oauth: OAuthFixture) -> None:
    async def authorize(url: str) -> str:
        await asyncio.sleep(0)
        return oauth.browse(url)

    with McpClient(**oauth.options(authorize=authorize)) as c:
        assert json.loads(c.call_tool("whoami").text)["sub"] == "alice"
    assert oauth.stats()["authorizations"] == 1


def test_callables_referring_to_their_client_are_collected() -> None:
    """The callables live in native code; the client shows them to the cycle collector."""
    import gc
    import weakref

    class Store(DictStore):
        client: Any = None

    store = Store()
    c = McpClient(transport="http://127.0.0.1:1/mcp", authorize=lambda url: str(c), token_store=store)
    store.client = c
    ref = weakref.ref(c)
    del c, store
    gc.collect()
    assert ref() is None, "a client whose callbacks refer to it was not collected"


def test_bad_callbacks_are_refused_at_construction() -> None:
    with pytest.raises(codexclient.InvalidArgumentError, match="lacks save, clear"):
        McpClient(transport="http://127.0.0.1:1/mcp", token_store=type("S", (), {"load": lambda s, k: None})())
    with pytest.raises(codexclient.InvalidArgumentError, match="authorize= takes a callable"):
        McpClient(transport="http://127.0.0.1:1/mcp", authorize="https://example")  # type: ignore[arg-type]


def test_loopback_browser_takes_the_redirect(oauth: OAuthFixture) -> None:
    """The ready browser step: the redirect URI is its own, the "system browser" a callable
    that plays the user and then follows the redirect to the loopback listener."""
    opened: List[str] = []

    def open_browser(url: str) -> None:
        opened.append(url)
        # A browser runs beside the program: the listener starts waiting once this returns.
        threading.Thread(target=lambda: http("GET", oauth.browse(url)), daemon=True).start()

    browser = LoopbackBrowser(timeout=30.0, open=open_browser)
    assert browser.redirect_uri.startswith("http://127.0.0.1:") and browser.redirect_uri.endswith("/callback")
    opts = oauth.options(authorize=browser)
    del opts["oauth_redirect_uri"]
    with McpClient(**opts) as c:
        assert json.loads(c.call_tool("whoami").text)["sub"] == "alice"
    assert len(opened) == 1
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(opened[0]).query)
    assert q["redirect_uri"] == [browser.redirect_uri], q


# -- asyncio ---------------------------------------------------------------------------------


def test_async_flow_with_an_async_authorize(server: OAuthFixture) -> None:
    oauth = server

    async def main() -> None:
        loop = asyncio.get_running_loop()
        on_loop: List[bool] = []
        events: List[ConnectionEvent] = []

        async def authorize(url: str) -> str:
            # Awaited on the client's own loop (so it may use the program's async libraries).
            on_loop.append(asyncio.get_running_loop() is loop)
            return await loop.run_in_executor(None, oauth.browse, url)

        async with AsyncMcpClient(**oauth.options(authorize=authorize)) as c:
            c.on_connection_event(events.append)
            assert json.loads((await c.call_tool("whoami")).text)["sub"] == "alice"
            if oauth.step_up:
                assert (await c.call_tool("write_note", {"text": "async"})).text == "noted: async"
            assert oauth.control("revoke-access", post=True)["revoked"] >= 1
            assert json.loads((await c.call_tool("whoami")).text)["sub"] == "alice"
        authorized = 2 if oauth.step_up else 1
        assert on_loop == [True] * authorized, on_loop
        stats = oauth.stats()
        assert stats["authorizations"] == authorized and stats["refreshes"] >= 1 and stats["registrations"] == 1, stats
        assert "refreshed" in auth_steps(events), auth_steps(events)

    run(main())


def test_async_plain_authorize_and_token_store(server: OAuthFixture) -> None:
    oauth = server
    store = DictStore()

    async def main() -> None:
        async with AsyncMcpClient(**oauth.options(authorize=oauth.browse, token_store=store)) as c:
            assert json.loads((await c.call_tool("whoami")).text)["sub"] == "alice"
        assert "save" in store.calls
        async with AsyncMcpClient(**oauth.options(authorize=never, token_store=store)) as c:
            assert json.loads((await c.call_tool("whoami")).text)["sub"] == "alice"

    run(main())
    stats = oauth.stats()
    assert (stats["authorizations"], stats["registrations"]) == (1, 1), stats


def test_async_authorize_that_raises_fails_clearly(oauth: OAuthFixture) -> None:
    async def refuse(url: str) -> str:
        await asyncio.sleep(0)
        raise PermissionError("denied by the user")

    async def main() -> str:
        c = AsyncMcpClient(**oauth.options(authorize=refuse))
        try:
            with pytest.raises(CodexError) as err:
                await c.connect()
            return str(err.value)
        finally:
            await c.close()

    msg = run(main(), timeout=60)
    assert "authorize callable raised PermissionError: denied by the user" in msg, msg


def test_async_authorize_is_bounded_by_the_option(oauth: OAuthFixture) -> None:
    """An ``async def`` authorize that never finishes is cut off at ``oauth_authorize_timeout``
    (the option, as the core has it; no default of the binding's own): the connect fails with
    the core's timeout error once the bound has passed, and the coroutine is cancelled."""
    bound = 1.5
    asked: List[float] = []
    cut_off: List[float] = []

    async def forever(url: str) -> str:
        asked.append(time.monotonic())
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cut_off.append(time.monotonic())
            raise
        return url

    async def main() -> Tuple[str, float]:
        # One handshake (no era probe), so the authorize callable is asked once.
        c = AsyncMcpClient(**oauth.options(authorize=forever, oauth_authorize_timeout=bound, mcp_protocol="legacy"))
        t0 = time.monotonic()
        try:
            with pytest.raises(CodexError) as err:
                await c.connect()
            elapsed = time.monotonic() - t0
            # Cancelled on the client's loop just after the core gave up.
            await async_wait_until(lambda: bool(cut_off), timeout=5.0, what="the cancellation")
            return str(err.value), elapsed
        finally:
            await c.close()

    msg, elapsed = run(main(), timeout=30)
    assert "gave no redirect within 1.5s" in msg, msg
    assert bound <= elapsed < bound + 3.0, (elapsed, msg)
    assert len(asked) == 1 and len(cut_off) == 1, (asked, cut_off)
    ran = cut_off[0] - asked[0]
    assert bound <= ran < bound + 1.5, ran
    # The deprecated constant is the core's default, with a warning.
    with pytest.warns(DeprecationWarning, match="oauth_authorize_timeout"):
        assert codexclient.AUTHORIZE_TIMEOUT == 300.0


# -- no secret in the logs -------------------------------------------------------------------

_LOGGED_FLOW = """
import json, logging, sys, urllib.parse, urllib.request
import codexclient
logging.basicConfig(stream=sys.stdout, format="%(name)s %(levelname)s %(message)s")
info, codes_file = json.loads(sys.argv[1]), sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
codes = []
def authorize(url):
    q = urllib.parse.urlencode({"url": url})
    redirect = opener.open(info["browse"] + "?" + q, timeout=20).read().decode()
    codes.extend(urllib.parse.parse_qs(urllib.parse.urlsplit(redirect).query).get("code", []))
    return redirect
def post(what):
    req = urllib.request.Request(info["control"] + "/" + what, method="POST", data=b"")
    return json.loads(opener.open(req, timeout=20).read())
with codexclient.McpClient(transport=info["mcp"], oauth_redirect_uri="http://127.0.0.1:1/callback",
                        authorize=authorize, trace_wire=True, default_timeout=30.0) as c:
    c.call_tool("whoami")
    if info.get("server") != "python-sdk":
        c.call_tool("write_note", {"text": "x"})
    post("revoke-access")
    c.call_tool("whoami")
    post("revoke-grants")
    c.call_tool("whoami")
open(codes_file, "w").write(json.dumps(codes))
print("FLOW-DONE", flush=True)
"""


def test_no_secret_in_any_log_record_at_trace(server: OAuthFixture, tmp_path: pathlib.Path) -> None:
    oauth = server
    codes_file = tmp_path / "codes.json"
    env = dict(os.environ, CODEXCLIENT_LOG="trace")
    r = subprocess.run(
        [sys.executable, "-c", _LOGGED_FLOW, json.dumps(oauth.info), str(codes_file)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0 and "FLOW-DONE" in r.stdout, r.stderr[-3000:]
    logs = r.stdout + r.stderr
    assert "tools/call" in logs and "Level 5" in logs, "the wire is traced"
    assert "connection event: authorized by" in logs, "the auth events are logged"
    secrets = oauth.control("secrets")
    found = list(json.loads(codes_file.read_text()))
    for k in ("accessTokens", "refreshTokens", "clientSecrets"):
        found += secrets[k]
    assert len(secrets["accessTokens"]) >= 2 and secrets["refreshTokens"] and len(found) >= 5, secrets.keys()
    leaked = [s[:6] + "…" for s in found if s and s in logs]
    assert not leaked, f"secrets in the log records: {leaked}"
