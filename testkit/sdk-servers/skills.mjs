// An MCP server that serves skills (the `io.modelcontextprotocol/skills` extension, SEP-2640)
// with the official TypeScript SDK's own implementation (`@modelcontextprotocol/server` 2.4.0,
// `ext/skills`: `loadSkills` reads a folder of skill folders, computes every file's digest and
// size and answers `skills/list`, `skills/get` and `resources/read` of `skill://` URIs), for
// core/tests/mcp_skills.rs and the C and Python tests.
// Usage: node skills.mjs <skills-root> [prefix]   (stdio)
// MCP_MODULES (from .cache/mcp.env) points at the installed node_modules.
const M = process.env.MCP_MODULES;
if (!M) {
  console.error("MCP_MODULES is not set: `. .cache/mcp.env` (bash scripts/setup-mcp.sh)");
  process.exit(2);
}
const root = process.argv[2];
if (!root) {
  console.error("usage: node skills.mjs <skills-root> [prefix]");
  process.exit(2);
}
const { McpServer } = await import(`${M}/@modelcontextprotocol/server/dist/index.mjs`);
const { StdioServerTransport } = await import(`${M}/@modelcontextprotocol/server/dist/stdio.mjs`);
const { loadSkills } = await import(`${M}/@modelcontextprotocol/server/dist/ext/skills/node.mjs`);

const server = new McpServer({ name: "ts-sdk-skills", version: "2.4.0" }, { capabilities: {} });
const prefix = process.argv[3];
const catalog = await loadSkills(root, prefix ? { prefix } : {});
catalog.attach(server);
await server.connect(new StdioServerTransport());
