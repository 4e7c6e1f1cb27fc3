// Known-good conformance client on the official TypeScript SDK (the one the conformance suite
// depends on), for `scripts/mcp-conformance.sh --reference`: what our
// testkit/mcp-conformance-client must match. Usage (by the suite): node sdk-client.mjs <url>
// with MCP_CONFORMANCE_SCENARIO set and MCP_MODULES pointing at the installed node_modules.
const sdk = (p) => import(`${process.env.MCP_MODULES}/@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { ElicitRequestSchema } = await sdk("types.js");

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const url = new URL(process.argv[2]);
const calls = {
  initialize: null,
  tools_call: ["add_numbers", { a: 5, b: 3 }],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
  "sse-retry": ["test_reconnection", {}],
};
if (!(scenario in calls)) {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}
const client = new Client(
  { name: "sdk-reference-client", version: "1.0.0" },
  { capabilities: { elicitation: { form: { applyDefaults: true } } } },
);
// Accept every form with no content of its own: the SDK fills in the schema's defaults.
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
const transport = new StreamableHTTPClientTransport(url);
await client.connect(transport);
const { tools } = await client.listTools();
console.error(`tools: ${tools.map((t) => t.name).join(", ")}`);
if (calls[scenario]) {
  const [name, args] = calls[scenario];
  const result = await client.callTool({ name, arguments: args });
  console.error(`${name}: ${JSON.stringify(result)}`);
}
await transport.close();
