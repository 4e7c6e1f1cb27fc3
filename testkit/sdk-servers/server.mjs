// An MCP server written with the official TypeScript SDK (`@modelcontextprotocol/server`
// 2.4.0, pinned in scripts/mcp/package.json), for core/tests/mcp_sdk_servers.rs and the
// Python and C tests. The same surface as server.py (the Python SDK's twin):
//   tools: `add` (structured output), `count` (progress), `ask_name` (elicitation),
//          `summarize` (sampling), `log` (logging), `slow_job` (a task when asked for one);
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
const { StdioServerTransport } = await import(`${M}/@modelcontextprotocol/server/dist/stdio.mjs`);
const { z } = await import(`${M}/zod/index.js`);
const { McpServer, ResourceTemplate, completable, WebStandardStreamableHTTPServerTransport } = sdk;

const NAMES = ["Ada", "Alan", "Barbara", "Grace"];

function build() {
  const server = new McpServer(
    { name: "ts-sdk-server", version: "2.4.0" },
    { capabilities: { logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } },
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
    "count",
    { description: "Count to n, reporting progress", inputSchema: z.object({ n: z.number().int() }) },
    async ({ n }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
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
  server.registerTool("ask_name", { description: "Ask the user for a name" }, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput({
      mode: "form",
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
    const text = r.action === "accept" ? `hello ${r.content.name}` : `no name (${r.action})`;
    return { content: [{ type: "text", text }] };
  });
  server.registerTool(
    "summarize",
    { description: "Ask the client's model", inputSchema: z.object({ text: z.string() }) },
    async ({ text }, ctx) => {
      const r = await ctx.mcpReq.requestSampling({
        messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
        maxTokens: 50,
      });
      return { content: [{ type: "text", text: `model ${r.model} said: ${r.content.text}` }] };
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
  await build().connect(new StdioServerTransport());
} else if (mode === "http") {
  // Sessionful Streamable HTTP: one server per session; an unknown session id answers 404.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = Buffer.concat(chunks);
      const sid = req.headers["mcp-session-id"];
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
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers,
        body: req.method === "POST" ? body : undefined,
      });
      const response = await transport.handleRequest(request);
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
