"""A real OAuth 2.1 setup on the official Python MCP SDK (`mcp` 2.3.0), the twin of
oauth-fixture.mjs for the end-to-end authorization tests, all on 127.0.0.1:
 - an authorization server: the SDK's own (`mcp.server.auth`: RFC 8414 metadata, /authorize,
   /token, /register, /revoke, PKCE S256), with an in-memory
   `OAuthAuthorizationServerProvider` that approves every authorization at once (as `alice`);
   its registration and token endpoints offer `client_secret_post` and `client_secret_basic`,
   and its token endpoint identifies the client by the form's `client_id` only;
 - an MCP server on the SDK's `MCPServer` (Streamable HTTP) that requires the `mcp:read` scope
   (the SDK's `RequireAuthMiddleware`), checks that each token was issued for it (RFC 8707
   `resource`) and serves its protected resource metadata (RFC 9728);
 - a control endpoint for the tests (below).
Run: `.cache/mcp-sdk-python scripts/mcp/oauth-fixture.py` (scripts/setup-mcp-python.sh installs
the SDK). When ready it prints one JSON line on stdout: {"issuer", "mcp", "browse", "control",
"server": "python-sdk"}; it runs until its stdin closes (so it never outlives the test).

The test's "browser": GET `<browse>?url=<authorization URL>` plays the user: it requests the
authorization URL (the provider approves at once) and answers (text/plain) the URL the
authorization server redirected to (the client's redirect URI with `code` and `state`),
without requesting it.
Control (`<control>/<what>`, answers JSON): `stats` (GET: {authorizations, tokens, refreshes,
registrations, refused}), `secrets` (GET: {accessTokens, refreshTokens, clientSecrets} handed
out so far), `revoke-access` (POST: every access token issued so far expires, as the MCP server
sees it: the next MCP request gets 401 invalid_token and the client refreshes), `revoke-grants`
(POST: every access and refresh token is forgotten: the refresh fails, the client must
authorize again).
The SDK's resource server has one required scope and no per-tool scope challenge, so there is
no step-up here (oauth-fixture.mjs has one).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import socket
import sys
import threading
import time
import urllib.parse
import warnings

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

HOST = "127.0.0.1"
SCOPES = ["mcp:read", "mcp:write"]
ACCESS_TTL = 300
REFRESH_TTL = 3600

stats = {"authorizations": 0, "tokens": 0, "refreshes": 0, "registrations": 0, "refused": 0}
handed_out: dict[str, set[str]] = {"accessTokens": set(), "refreshTokens": set(), "clientSecrets": set()}


class InMemoryProvider:
    """The SDK's provider protocol, in memory; every authorization is approved for `alice`."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id or ""] = client_info
        stats["registrations"] += 1
        if client_info.client_secret:
            handed_out["clientSecrets"].add(client_info.client_secret)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 60,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="alice",
        )
        stats["authorizations"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code and code.client_id == client.client_id else None

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, subject: str | None) -> OAuthToken:
        at, rt = f"pyat_{secrets.token_urlsafe(24)}", f"pyrt_{secrets.token_urlsafe(24)}"
        now = int(time.time())
        self.access[at] = AccessToken(
            token=at, client_id=client_id, scopes=scopes, expires_at=now + ACCESS_TTL, resource=resource, subject=subject
        )
        self.refresh[rt] = RefreshToken(
            token=rt, client_id=client_id, scopes=scopes, expires_at=now + REFRESH_TTL, resource=resource, subject=subject
        )
        handed_out["accessTokens"].add(at)
        handed_out["refreshTokens"].add(rt)
        return OAuthToken(
            access_token=at, token_type="Bearer", expires_in=ACCESS_TTL, refresh_token=rt, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        stats["tokens"] += 1
        return self._issue(
            client.client_id or "", authorization_code.scopes, authorization_code.resource, authorization_code.subject
        )

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        rt = self.refresh.get(refresh_token)
        if rt is None or rt.client_id != client.client_id:
            stats["refused"] += 1
            return None
        return rt

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated
        stats["refreshes"] += 1
        return self._issue(
            client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource, refresh_token.subject
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def get_once(url: str) -> tuple[int, str | None, str]:
    """GET `url` without following a redirect: status, `Location`, body."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname or HOST, u.port, timeout=20)
    try:
        conn.request("GET", f"{u.path}?{u.query}" if u.query else u.path)
        r = conn.getresponse()
        return r.status, r.getheader("location"), r.read().decode(errors="replace")
    finally:
        conn.close()


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    origin = f"http://{HOST}:{sock.getsockname()[1]}"
    mcp_url = f"{origin}/mcp"
    provider = InMemoryProvider()
    server = MCPServer(
        "oauth-fixture-python",
        version="2.3.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=origin,  # a string: no trailing slash added (RFC 8414 issuer comparison is exact)
            resource_server_url=mcp_url,
            required_scopes=["mcp:read"],
            validate_token_resource=True,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=SCOPES, default_scopes=["mcp:read"]
            ),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Who the token belongs to and what it may do."""
        t = get_access_token()
        return json.dumps(
            {"sub": t.subject if t else None, "client": t.client_id if t else None, "scopes": t.scopes if t else []},
            separators=(",", ":"),
        )

    @server.custom_route("/fixture/browse", methods=["GET"])
    async def browse(request: Request) -> Response:
        status, location, body = await asyncio.to_thread(get_once, request.query_params["url"])
        if status not in (302, 303, 307) or not location:
            return PlainTextResponse(f"the authorization server answered {status}: {body[:300]}", 500)
        return PlainTextResponse(location)

    @server.custom_route("/fixture/{what}", methods=["GET", "POST"])
    async def control(request: Request) -> Response:
        what = request.path_params["what"]
        if what == "stats":
            return JSONResponse(stats)
        if what == "secrets":
            return JSONResponse({k: sorted(v) for k, v in handed_out.items()})
        if what == "revoke-access":
            past = int(time.time()) - 1
            for t in provider.access.values():
                t.expires_at = past
            return JSONResponse({"revoked": len(provider.access)})
        if what == "revoke-grants":
            n = len(provider.access) + len(provider.refresh)
            provider.access.clear()
            provider.refresh.clear()
            return JSONResponse({"revoked": n})
        return Response(status_code=404)

    info = {"issuer": origin, "mcp": mcp_url, "browse": f"{origin}/fixture/browse",
            "control": f"{origin}/fixture", "server": "python-sdk"}
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    userver = uvicorn.Server(config)

    def stop_when_stdin_closes() -> None:
        sys.stdin.buffer.read()
        userver.should_exit = True

    # Listening before the line goes out: a test's first request waits in the backlog.
    sock.listen(128)
    print(json.dumps(info, separators=(",", ":")), flush=True)
    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    asyncio.run(userver.serve(sockets=[sock]))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main()
