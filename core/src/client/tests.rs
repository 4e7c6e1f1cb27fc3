//! Tests of `Client` internals that need a live connection (a python3 MCP server).

use serde_json::json;
use std::sync::Arc;

use super::Client;
use crate::options::{ClientOptions, McpCommand, TransportKind};

/// An MCP server that answers `initialize` and `ping`.
const PING_SERVER: &str = r#"
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "ping", "version": "0"}}
    elif m.get("method") == "ping":
        r = {}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

#[test]
fn an_answered_async_request_keeps_no_reference_to_its_session() {
    let cmd = McpCommand::new("python3").args(["-c", PING_SERVER]);
    let c = Client::new(ClientOptions::default().transport(TransportKind::McpStdio(cmd)));
    c.connect().unwrap();
    let session = Arc::downgrade(&c.live_session().unwrap());
    futures_executor::block_on(c.request("ping", json!({}))).unwrap();
    c.disconnect();
    drop(c);
    assert!(
        session.upgrade().is_none(),
        "the session outlived its client: an async request kept it"
    );
}
