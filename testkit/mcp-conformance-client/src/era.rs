//! The scenarios of MCP 2026-07-28 (the stateless era): request metadata, input-required
//! rounds, the standard and tool-designated headers, JSON Schema kept as sent. Each is one
//! function; `main` picks it by the scenario's name. The era itself is negotiated by the
//! library (option `mcp_protocol`, default `auto`).

use codex_client::mcp::Tool;
use codex_client::Client;
use futures_executor::block_on;
use serde_json::{json, Value};

use super::{call, fail};

/// Run an era scenario; false when `scenario` is not one of them.
pub fn run(client: &Client, scenario: &str, tools: &[Tool]) -> bool {
    match scenario {
        // Connecting (discover, with the version retry) and tools/list are the scenario.
        "request-metadata" | "json-schema-ref-no-deref" => {}
        "sep-2322-client-request-state" => {
            for name in [
                "test_mrtr_echo_state",
                "test_mrtr_no_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_result_type",
            ] {
                call(client, name, json!({}));
            }
        }
        "http-standard-headers" => standard_headers(client, tools),
        "http-custom-headers" => custom_headers(client),
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .unwrap_or_else(|| fail("no json_schema_2020_12_tool listed"));
            call(
                client,
                "json_schema_echo",
                json!({ "schema": focal.input_schema }),
            );
        }
        _ => return false,
    }
    true
}

/// Every request kind that carries Mcp-Method / Mcp-Name.
fn standard_headers(client: &Client, tools: &[Tool]) {
    for t in tools {
        call(client, &t.name, json!({}));
    }
    let resources = block_on(codex_client::McpClient::from_connection(client).list_all_resources())
        .unwrap_or_else(|e| fail(&format!("resources/list: {e}")));
    for r in &resources {
        block_on(codex_client::McpClient::from_connection(client).read_resource(&r.uri))
            .unwrap_or_else(|e| fail(&format!("resources/read {}: {e}", r.uri)));
    }
    let prompts = block_on(codex_client::McpClient::from_connection(client).list_all_prompts())
        .unwrap_or_else(|e| fail(&format!("prompts/list: {e}")));
    for p in &prompts {
        block_on(codex_client::McpClient::from_connection(client).get_prompt(&p.name, json!({})))
            .unwrap_or_else(|e| fail(&format!("prompts/get {}: {e}", p.name)));
    }
}

/// The tool calls the scenario names in `MCP_CONFORMANCE_CONTEXT` (`toolCalls`).
fn custom_headers(client: &Client) {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_else(|| fail("no MCP_CONFORMANCE_CONTEXT"));
    let calls = context["toolCalls"].as_array().cloned().unwrap_or_default();
    for c in calls {
        let name = c["name"].as_str().unwrap_or_default();
        call(client, name, c["arguments"].clone());
    }
}
