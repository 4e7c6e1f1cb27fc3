// A real OAuth 2.1 setup for the end-to-end authorization tests, all on 127.0.0.1:
//  - an authorization server: oidc-provider (a certified OpenID provider) with PKCE (S256,
//    required for every client), dynamic client registration, resource indicators (RFC 8707),
//    token introspection and revocation, DPoP, refresh tokens;
//  - an MCP server built on the official TypeScript SDK (@modelcontextprotocol/server 2.4.0,
//    both protocol eras) that serves its protected resource metadata (RFC 9728) and verifies
//    every request's token with the SDK's `requireBearerAuth`, by introspection at the
//    authorization server (so a revoked token is refused at once);
//  - a control endpoint for the tests (below).
// Run: `$MCP_NODE scripts/mcp/oauth-fixture.mjs` (with `. .cache/mcp.env`). When ready it prints
// one JSON line on stdout: {"issuer", "mcp", "browse", "control", "preRegistered": {"clientId",
// "clientSecret", "redirectUri"}, "service": {"clientId", "clientSecret"}, "serviceJwt":
// {"clientId", "privateKeyPem"}}; it runs until its stdin closes (so it never outlives the test).
// `service` and `serviceJwt` are clients of the client credentials grant (no user, no browser):
// one authenticates with its secret (client_secret_basic), the other with private_key_jwt (an
// ES256 key made at start; its public JWK registered, the private PEM printed for the test).
//
// The test's "browser": GET `<browse>?url=<authorization URL>` plays the user: it follows the
// authorization server's redirects with a cookie jar, signs in as `alice` and grants what was
// asked, and answers (text/plain) the URL the authorization server finally redirected to (the
// client's redirect URI with `code`, `state` and `iss`), without requesting it. A refused
// authorization answers that redirect too (with `error`).
// Control (POST `<control>/<what>`, answers JSON): `stats` (GET: {authorizations, tokens,
// refreshes, registrations, refused, clientCredentials}), `secrets` (GET: {accessTokens, refreshTokens,
// clientSecrets} handed out so far, for a test's no-secret-in-logs check), `revoke-access` (every access token issued so far is
// revoked: the next MCP request gets 401 invalid_token), `revoke-grants` (every grant is
// revoked, refresh tokens included: the client must authorize again).
// Scopes: `mcp:read` is required by every MCP request; the tool `write_note` needs `mcp:write`
// too (403 insufficient_scope with the scope in the challenge: step-up).
import http from "node:http";
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import Provider from "oidc-provider";
import {
  McpServer,
  createMcpHandler,
  requireBearerAuth,
  requireScopes,
  getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/server";
import { toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import * as z from "zod";

const HOST = "127.0.0.1";
const SCOPES = ["mcp:read", "mcp:write"];
const stats = { authorizations: 0, tokens: 0, refreshes: 0, registrations: 0, refused: 0, clientCredentials: 0 };
const issuedAccessTokens = new Set();
// Every secret the authorization server handed out, for the tests' "no secret in any log line".
const secrets = { accessTokens: issuedAccessTokens, refreshTokens: new Set(), clientSecrets: new Set() };

async function listen(server) {
  server.listen(0, HOST);
  await once(server, "listening");
  return `http://${HOST}:${server.address().port}`;
}

// --- The authorization server ---------------------------------------------------------------
const asServer = http.createServer();
const issuer = await listen(asServer);
const mcpServer = http.createServer();
const mcpOrigin = await listen(mcpServer);
const mcpUrl = `${mcpOrigin}/mcp`;

const preRegistered = {
  clientId: "pre-registered-client",
  clientSecret: "pre-registered-secret-0123456789",
  redirectUri: "http://127.0.0.1/callback",
};
const introspector = { client_id: "mcp-server", client_secret: "mcp-server-introspection-secret" };
// Clients of the client credentials grant: one with a secret, one with private_key_jwt.
const service = { clientId: "service-client", clientSecret: "service-secret-0123456789abcdef" };
const serviceKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
const serviceJwt = {
  clientId: "service-jwt-client",
  privateKeyPem: serviceKey.privateKey.export({ type: "pkcs8", format: "pem" }),
};
const serviceClient = { redirect_uris: [], response_types: [], grant_types: ["client_credentials"] };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: preRegistered.clientId,
      client_secret: preRegistered.clientSecret,
      redirect_uris: [preRegistered.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: ["offline_access", ...SCOPES].join(" "),
    },
    { ...introspector, redirect_uris: [], response_types: [], grant_types: [] },
    {
      ...serviceClient,
      client_id: service.clientId,
      client_secret: service.clientSecret,
      token_endpoint_auth_method: "client_secret_basic",
    },
    {
      ...serviceClient,
      client_id: serviceJwt.clientId,
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "ES256",
      jwks: { keys: [{ ...serviceKey.publicKey.export({ format: "jwk" }), alg: "ES256", use: "sig" }] },
    },
  ],
  scopes: ["openid", "offline_access"], // the MCP scopes are the resource's (getResourceServerInfo)
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    clientCredentials: { enabled: true },
    revocation: { enabled: true },
    dPoP: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => mcpUrl,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (resource !== mcpUrl) throw new Provider.errors.InvalidTarget();
        return { scope: SCOPES.join(" "), audience: mcpUrl, accessTokenFormat: "opaque", accessTokenTTL: 300 };
      },
    },
  },
  // Refresh tokens for every client allowed the grant (offline_access is not required).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  expiresWithSession: async () => false,
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AccessToken: 300, AuthorizationCode: 60, RefreshToken: 3600, Grant: 3600, Interaction: 300, Session: 3600 },
});
provider.proxy = false;
provider.on("grant.success", (ctx) => {
  if (ctx.oidc.params.grant_type === "refresh_token") stats.refreshes++;
  else if (ctx.oidc.params.grant_type === "client_credentials") stats.clientCredentials++;
  else stats.tokens++;
});
provider.on("authorization.success", () => stats.authorizations++);
provider.on("authorization.error", () => stats.refused++);
provider.on("grant.error", () => stats.refused++);
provider.on("registration_create.success", (ctx, client) => {
  stats.registrations++;
  if (client?.clientSecret) secrets.clientSecrets.add(client.clientSecret);
});
provider.on("refresh_token.saved", (token) => secrets.refreshTokens.add(token.jti));
provider.on("access_token.saved", (token) => issuedAccessTokens.add(token.jti));
provider.on("client_credentials.saved", (token) => issuedAccessTokens.add(token.jti));

const providerCallback = provider.callback();
asServer.on("request", async (req, res) => {
  const m = req.url.match(/^\/interaction\/([^/?]+)/);
  if (!m) return providerCallback(req, res);
  // Alice signs in, then grants whatever the client asked for.
  try {
    const { prompt, params, session, grantId } = await provider.interactionDetails(req, res);
    if (process.env.FIXTURE_DEBUG) console.error(`interaction: ${JSON.stringify(prompt)}`);
    let result;
    if (prompt.name === "login") {
      result = { login: { accountId: "alice" } };
    } else {
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const d = prompt.details;
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(d.missingResourceScopes ?? {}))
        grant.addResourceScope(resource, scopes.join(" "));
      result = { consent: { grantId: await grant.save() } };
    }
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
  } catch (e) {
    res.writeHead(500, { "content-type": "text/plain" }).end(String(e));
  }
});

// --- The MCP server ---------------------------------------------------------------------------
const discovery = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
const metadataOptions = {
  oauthMetadata: discovery,
  resourceServerUrl: new URL(mcpUrl),
  scopesSupported: SCOPES,
  resourceName: "libcodexclient OAuth fixture",
  dangerouslyAllowInsecureIssuerUrl: true,
};
const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl));
const verifier = {
  async verifyAccessToken(token) {
    const body = new URLSearchParams({ token });
    const basic = Buffer.from(`${introspector.client_id}:${introspector.client_secret}`).toString("base64");
    const r = await fetch(discovery.introspection_endpoint, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const info = await r.json();
    if (!info.active) throw new OAuthError(OAuthErrorCode.InvalidToken, "the token is not active");
    return {
      token,
      clientId: info.client_id,
      scopes: info.scope ? info.scope.split(" ") : [],
      expiresAt: info.exp,
      resource: info.aud ? new URL(Array.isArray(info.aud) ? info.aud[0] : info.aud) : undefined,
      extra: { sub: info.sub },
    };
  },
};
const gate = requireBearerAuth({
  verifier,
  requiredScopes: ["mcp:read"],
  resourceMetadataUrl,
  expectedResource: new URL(mcpUrl),
});

function makeServer({ authInfo }) {
  const server = new McpServer({ name: "oauth-fixture", version: "1.0.0" });
  server.registerTool(
    "whoami",
    { description: "Who the token belongs to and what it may do", inputSchema: z.object({}) },
    async () => ({
      content: [{ type: "text", text: JSON.stringify({ sub: authInfo?.extra?.sub, client: authInfo?.clientId, scopes: authInfo?.scopes ?? [] }) }],
    }),
  );
  server.registerTool(
    "write_note",
    {
      description: "Needs the mcp:write scope (a token without it gets 403 insufficient_scope)",
      inputSchema: z.object({ text: z.string() }),
      scopeChallenge: requireScopes("mcp:read", "mcp:write"),
    },
    async ({ text }) => ({ content: [{ type: "text", text: `noted: ${text}` }] }),
  );
  return server;
}
const mcpHandler = createMcpHandler(makeServer);
const serveMcp = toNodeHandler({ fetch: async (request) => {
  if (process.env.FIXTURE_DEBUG) console.error(`mcp: ${request.method} ${request.headers.get("authorization") ? "with" : "without"} a token`);
  const auth = await gate(request);
  if (auth instanceof Response) return auth;
  return mcpHandler.fetch(request, { authInfo: auth });
} }, { onerror: (e) => console.error(`oauth-fixture: ${e?.stack ?? e}`) });

async function browse(authorizationUrl) {
  const jar = new Map();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (!url.startsWith(issuer)) return url; // left the authorization server: the redirect URI
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const r = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    const location = r.headers.get("location");
    if (!location) throw new Error(`the authorization server answered ${r.status} without a redirect: ${(await r.text()).slice(0, 300)}`);
    url = new URL(location, url).toString();
    if (process.env.FIXTURE_DEBUG) console.error(`browse: ${r.status} -> ${url}`);
  }
  throw new Error("too many redirects");
}

async function control(what) {
  if (what === "stats") return stats;
  if (what === "secrets")
    return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, [...v]]));
  if (what === "revoke-access") {
    let n = 0;
    for (const jti of issuedAccessTokens) {
      const t = await provider.AccessToken.find(jti);
      if (t) { await t.destroy(); n++; }
    }
    return { revoked: n };
  }
  if (what === "revoke-grants") {
    let n = 0;
    for (const jti of issuedAccessTokens) {
      const t = await provider.AccessToken.find(jti);
      const grantId = t?.grantId;
      if (grantId) {
        const g = await provider.Grant.find(grantId);
        if (g) { await g.destroy(); n++; }
        for (const Model of [provider.AccessToken, provider.RefreshToken, provider.AuthorizationCode]) await Model.revokeByGrantId(grantId);
      }
    }
    return { revoked: n };
  }
  return undefined;
}

mcpServer.on("request", async (req, res) => {
  try {
    const path = new URL(req.url, mcpOrigin);
    if (path.pathname === "/fixture/browse") {
      const target = path.searchParams.get("url");
      const answer = await browse(target);
      return res.writeHead(200, { "content-type": "text/plain" }).end(answer);
    }
    if (path.pathname.startsWith("/fixture/")) {
      const result = await control(path.pathname.slice("/fixture/".length));
      if (!result) return res.writeHead(404).end();
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
    }
    const metadata = path.pathname.startsWith("/.well-known/")
      ? oauthMetadataResponse(await toWebRequest(req), metadataOptions)
      : undefined;
    if (metadata) {
      res.writeHead(metadata.status, Object.fromEntries(metadata.headers));
      return res.end(Buffer.from(await metadata.arrayBuffer()));
    }
    if (path.pathname === "/mcp") return serveMcp(req, res);
    res.writeHead(404).end();
  } catch (e) {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(e?.stack ?? e));
  }
});

// The tests read only the first line and may close stdout after it: oidc-provider's later notices
// (console.info) must not take the fixture down with EPIPE.
process.stdout.on("error", () => {});
process.stdout.write(
  JSON.stringify({
    issuer,
    mcp: mcpUrl,
    browse: `${mcpOrigin}/fixture/browse`,
    control: `${mcpOrigin}/fixture`,
    preRegistered,
    service,
    serviceJwt,
  }) + "\n",
);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
