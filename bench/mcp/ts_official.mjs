// MCP `tools/call` round trips through the official TypeScript client
// (`@modelcontextprotocol/client` 2.4.0 from $MCP_MODULES, pinned in scripts/mcp/package.json),
// for bench/mcp/run.py:
//
//   node ts_official.mjs stdio N        spawns $MCP_NODE $MCP_EVERYTHING stdio
//   node ts_official.mjs http URL N     Streamable HTTP to URL
//
// The era: BENCH_MCP_PROTOCOL as the client's `versionNegotiation.mode` (`legacy`, `auto`; its
// own default is legacy). Connects, makes 200 warm-up calls, times N sequential
// `tools/call echo {"message":"hi"}` and prints one JSON line: client, transport, n,
// median_us, p99_us, mean_us.
const M = process.env.MCP_MODULES;
const { Client, StreamableHTTPClientTransport } = await import(`${M}/@modelcontextprotocol/client/dist/index.mjs`);
const { StdioClientTransport } = await import(`${M}/@modelcontextprotocol/client/dist/stdio.mjs`);

const WARMUP = 200;
const ARGS = { message: "hi" };
const [mode, ...rest] = process.argv.slice(2);
const n = Number(mode === "stdio" ? rest[0] : rest[1]);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({
        command: process.env.MCP_NODE,
        args: [process.env.MCP_EVERYTHING, "stdio"],
        env: { ...process.env },
        stderr: "ignore",
      })
    : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client(
  { name: "ts-bench", version: "1.0.0" },
  { versionNegotiation: { mode: process.env.BENCH_MCP_PROTOCOL ?? "legacy" } },
);
await client.connect(transport);
const first = await client.callTool({ name: "echo", arguments: ARGS });
if (first.content?.[0]?.text !== "Echo: hi") {
  console.error(`unexpected answer ${JSON.stringify(first)}`);
  process.exit(1);
}
for (let i = 0; i < WARMUP; i++) await client.callTool({ name: "echo", arguments: ARGS });
const samples = [];
for (let i = 0; i < n; i++) {
  const t = process.hrtime.bigint();
  await client.callTool({ name: "echo", arguments: ARGS });
  samples.push(Number(process.hrtime.bigint() - t) / 1000);
}
await client.close();
samples.sort((a, b) => a - b);
const at = (q) => samples[Math.round((samples.length - 1) * q)]; // as bench/src/lib.rs median_p99
const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
console.log(JSON.stringify({ client: "ts-official", transport: mode, n, median_us: at(0.5), p99_us: at(0.99), mean_us: mean }));
