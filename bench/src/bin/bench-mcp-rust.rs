//! MCP `tools/call` round trips through libcodexclient's Rust API, for bench/mcp/run.py:
//!
//!     bench-mcp-rust stdio N        spawns $MCP_NODE $MCP_EVERYTHING stdio
//!     bench-mcp-rust http URL N     Streamable HTTP to URL
//!
//! Connects, makes 200 warm-up calls, times N sequential `tools/call echo {"message":"hi"}`
//! (blocking `request` on the calling thread) and prints one JSON line: client, transport, n,
//! median_us, p99_us, mean_us.

use codex_client::mcp::McpRequest;
use codex_client::{Client, McpCommand, McpHttp, TransportKind};
use serde_json::json;
use std::time::Instant;

const WARMUP: usize = 200;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (transport, n) = match args.first().map(String::as_str) {
        Some("stdio") => {
            let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
            let cmd =
                McpCommand::new(var("MCP_NODE")).args([var("MCP_EVERYTHING"), "stdio".into()]);
            (TransportKind::McpStdio(cmd), &args[1])
        }
        Some("http") => (TransportKind::McpHttp(McpHttp::new(&args[1])), &args[2]),
        _ => panic!("usage: bench-mcp-rust stdio N | http URL N"),
    };
    let n: usize = n.parse().expect("N");
    let kind = args[0].clone();
    // The era (bench/mcp/run.py): BENCH_MCP_PROTOCOL, the option `mcp_protocol` (default auto).
    let mut opts = codex_client::OptionsBuilder::new();
    if let Ok(mode) = std::env::var("BENCH_MCP_PROTOCOL") {
        opts.set("mcp_protocol", serde_json::Value::String(mode))
            .expect("a valid mcp_protocol");
    }
    let opts = opts.build().expect("options");
    let client = Client::new(opts.transport(transport));
    client.connect().expect("connect");
    let method = McpRequest::CallTool.method();
    let params = json!({"name": "echo", "arguments": {"message": "hi"}});
    let first = client
        .request_blocking(method, params.clone())
        .expect("echo");
    assert_eq!(first["content"][0]["text"], "Echo: hi", "{first}");
    for _ in 0..WARMUP {
        client
            .request_blocking(method, params.clone())
            .expect("echo");
    }
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        client
            .request_blocking(method, params.clone())
            .expect("echo");
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    client.disconnect();
    let mean = samples.iter().sum::<f64>() / samples.len().max(1) as f64;
    let (median, p99) = codex_bench::median_p99(&mut samples);
    println!(
        "{}",
        json!({"client": "libcodexclient-rust", "transport": kind, "n": n,
               "median_us": median, "p99_us": p99, "mean_us": mean})
    );
}
