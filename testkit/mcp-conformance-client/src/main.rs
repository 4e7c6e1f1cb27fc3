//! The client the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! drives: it is run as `mcp-conformance-client <server-url>` with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, and does what a well-behaved client does in that scenario,
//! through the library's public API only. Exit status 0 when every step worked.

mod auth;
mod era;
mod grants;
mod skills;

use codex_client::{Client, ClientOptions, McpHttp, TransportKind};
use futures_executor::block_on;
use serde_json::{json, Value};
use std::time::Duration;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "codex_client=debug".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let url = match std::env::args().nth(1) {
        Some(u) => u,
        None => fail("usage: mcp-conformance-client <server-url>"),
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    eprintln!("scenario `{scenario}` against {url}");
    let http = match scenario.as_str() {
        s if s.starts_with("auth/") => {
            let base = auth::config(s);
            // The grants beyond the browser (and DPoP) build on the same settings.
            let cfg = match grants::configure(s, &grants::context(), base.clone()) {
                Some(cfg) => cfg.unwrap_or_else(|e| fail(&e)),
                None => base,
            };
            McpHttp::new(url).oauth(cfg)
        }
        _ => McpHttp::new(url),
    };
    let client = Client::new(
        ClientOptions::default()
            .transport(TransportKind::McpHttp(http))
            .client_info("codex-client-conformance", env!("CARGO_PKG_VERSION"))
            .default_timeout(Duration::from_secs(20))
            .connect_timeout(Duration::from_secs(10)),
    );
    // Elicitations are accepted with nothing filled in: the library applies the schema's
    // defaults (SEP-1034). Everything else is left to the library's fail-closed answers.
    client
        .on_server_request(|req| {
            if req.method == "elicitation/create" {
                let _ = req.respond(&json!({"action": "accept", "content": {}}));
            }
        })
        .unwrap_or_else(|e| fail(&format!("handler: {e}")));
    let init = client
        .connect()
        .unwrap_or_else(|e| fail(&format!("connect: {e}")));
    eprintln!(
        "connected ({} era, version {:?}): {}",
        init.mcp_era(),
        init.protocol_version(),
        init.raw
    );
    let tools = block_on(codex_client::McpClient::from_connection(&client).list_all_tools())
        .unwrap_or_else(|e| fail(&format!("tools/list: {e}")));
    eprintln!(
        "tools: {:?}",
        tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    match scenario.as_str() {
        "initialize" => {}
        "tools_call" => call(&client, "add_numbers", json!({"a": 5, "b": 3})),
        "elicitation-sep1034-client-defaults" => {
            call(&client, "test_client_elicitation_defaults", json!({}))
        }
        "sse-retry" => call(&client, "test_reconnection", json!({})),
        s if era::run(&client, s, &tools) => {}
        s if skills::run(&client, s) => {}
        // Any other scenario: call every tool without arguments.
        _ => {
            for t in &tools {
                call(&client, &t.name, json!({}));
            }
        }
    }
    client.disconnect();
}

fn call(client: &Client, name: &str, args: Value) {
    match block_on(codex_client::McpClient::from_connection(client).call_tool(name, args)) {
        Ok(r) => eprintln!("{name}: {}", r.text()),
        Err(e) => fail(&format!("tools/call {name}: {e}")),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("mcp-conformance-client: {msg}");
    std::process::exit(1)
}
