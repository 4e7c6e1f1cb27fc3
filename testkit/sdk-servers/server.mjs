// An MCP server written with the official TypeScript SDK (`@modelcontextprotocol/server`
// 2.4.0, pinned in scripts/mcp/package.json), for core/tests/mcp_sdk_servers.rs and the
// Python and C tests. The same surface as server.py (the Python SDK's twin):
//   tools: `add` (structured output), `echo` (the bench's round trip), `count` (progress), `ask_name` (elicitation),
//          `summarize` (sampling), `log` (logging), `slow_job` (a task when asked for one);
//   both eras: the handshake (2025-11-25) and 2026-07-28 (`server/discover`, the `_meta`
//   envelope; elicitation and sampling as input-required rounds, shimmed into server
//   requests by the SDK in the handshake era);
//   resources: `demo://greeting`, template `demo://items/{id}` (completion of `id`);
//   prompts: `greet` (completion of `name`); the 2025-11-25 `tasks/*` methods.
// Usage: node server.mjs stdio | node server.mjs http <port> (0: any; prints `PORT <n>`).
// MCP_MODULES (from .cache/mcp.env) points at the installed node_modules.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { tasks } from "./tasks.mjs";

const M = process.env.MCP_MODULES;
if (!M) {
  console.error("MCP_MODULES is not set: `. .cache/mcp.env` (bash scripts/setup-mcp.sh)");
  process.exit(2);
}
const sdk = await import(`${M}/@modelcontextprotocol/server/dist/index.mjs`);
const { serveStdio } = await import(`${M}/@modelcontextprotocol/server/dist/stdio.mjs`);
const { z } = await import(`${M}/zod/index.js`);
const {
  McpServer,
  ResourceTemplate,
  completable,
  WebStandardStreamableHTTPServerTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
  createMcpHandler,
  isLegacyRequest,
  inputRequired,
  inputResponse,
} = sdk;

const NAMES = ["Ada", "Alan", "Barbara", "Grace"];

function build() {
  const server = new McpServer(
    { name: "ts-sdk-server", version: "2.4.0" },
    {
      capabilities: { logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      // Both eras: the handshake versions and the stateless 2026-07-28 (`server/discover`).
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, "2026-07-28"],
    },
  );
  server.registerTool(
    "add",
    {
      description: "Add two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    "echo",
    { description: "Echo a message (the MCP round-trip bench)", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
  );
  server.registerTool(
    "count",
    {
      description: "Count to n, reporting progress (waiting delay_ms before each step)",
      inputSchema: z.object({ n: z.number().int(), delay_ms: z.number().int().optional() }),
    },
    async ({ n, delay_ms }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        await new Promise((r) => setTimeout(r, delay_ms ?? 0));
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
          });
        }
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    },
  );
  // Elicitation and sampling as multi-round-trip handlers: an `InputRequiredResult` in the
  // 2026-07-28 era, turned into server requests by the SDK's shim in the handshake era.
  server.registerTool("ask_name", { description: "Ask the user for a name" }, async (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "name");
    if (r.kind !== "elicit") {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          }),
        },
      });
    }
    const text = r.action === "accept" ? `hello ${r.content.name}` : `no name (${r.action})`;
    return { content: [{ type: "text", text }] };
  });
  server.registerTool(
    "summarize",
    { description: "Ask the client's model", inputSchema: z.object({ text: z.string() }) },
    async ({ text }, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, "said");
      if (r.kind !== "sampling") {
        return inputRequired({
          inputRequests: {
            said: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
              maxTokens: 50,
            }),
          },
        });
      }
      return { content: [{ type: "text", text: `model ${r.result.model} said: ${r.result.content.text}` }] };
    },
  );
  server.registerTool(
    "log",
    { description: "Log a message at a level", inputSchema: z.object({ level: z.string(), message: z.string() }) },
    async ({ level, message }, ctx) => {
      await ctx.mcpReq.log(level, message, "ts-sdk-server");
      return { content: [{ type: "text", text: "logged" }] };
    },
  );
  server.registerTool(
    "slow_job",
    { description: "A job that finishes after ms milliseconds", inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: "text", text: `job done after ${ms} ms` }], structuredContent: { ms } };
    },
  );
  server.registerResource(
    "greeting",
    "demo://greeting",
    { mimeType: "text/plain", description: "A greeting" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Hello from TypeScript" }] }),
  );
  server.registerResource(
    "item",
    new ResourceTemplate("demo://items/{id}", {
      list: undefined,
      complete: { id: (value) => ["1", "2", "10", "20"].filter((v) => v.startsWith(value)) },
    }),
    { mimeType: "text/plain", description: "An item by id" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `item ${id}` }] }),
  );
  server.registerPrompt(
    "greet",
    {
      description: "Greet someone",
      argsSchema: z.object({ name: completable(z.string(), (v) => NAMES.filter((n) => n.startsWith(v))) }),
    },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please greet ${name}` } }] }),
  );
  tasks(server.server);
  return server;
}

const [mode, portArg] = process.argv.slice(2);
if (mode === "stdio") {
  // The SDK's stdio entry: the first message picks the era (`server/discover` or `initialize`).
  serveStdio(build);
} else if (mode === "http") {
  // 2026-07-28 requests (with the `_meta` envelope) go to the SDK's stateless entry; the
  // handshake era's are served sessionfully: one server per session, an unknown session id
  // answers 404.
  const modern = createMcpHandler(build, { legacy: "reject" });
  const sessions = new Map();
  const legacy = async (request, sid) => {
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport && !sid) {
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    if (!transport) {
      const body = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };
      return new Response(JSON.stringify(body), { status: 404, headers: { "content-type": "application/json" } });
    }
    return transport.handleRequest(request);
  };
  const http = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = Buffer.concat(chunks);
      const request = () =>
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers: req.headers,
          body: req.method === "POST" ? body : undefined,
        });
      const response = (await isLegacyRequest(request()))
        ? await legacy(request(), req.headers["mcp-session-id"])
        : await modern.fetch(request());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) res.write(chunk);
      }
      res.end();
    } catch (e) {
      console.error(e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  http.listen(Number(portArg ?? 0), "127.0.0.1", () => console.log(`PORT ${http.address().port}`));
} else {
  console.error("usage: server.mjs stdio | http <port>");
  process.exit(2);
}
