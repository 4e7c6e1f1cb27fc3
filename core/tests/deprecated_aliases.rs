//! The methods that moved from `Client` to `CodexClient` and `McpClient` still work on
//! `Client` for one minor version: deprecated one-line forwards with the same results.
#![allow(deprecated)]

mod support;

use codex_client::{Client, CodexClient, McpClient};
use futures_executor::block_on as b;
use serde_json::json;
use std::time::Duration;
use support::sdk::Sdk;
use support::*;

#[test]
fn codex_aliases_forward_to_the_codex_client() {
    let c: Client = fake_client(&[], fake_options(&[])).into_connection();
    let params = json!({"reason": "test", "includeLogs": false, "threadId": "thr_7"});
    let old = c.feedback_upload("bug", params.clone()).unwrap();
    let new = CodexClient::from_connection(&c)
        .feedback_upload("bug", params)
        .unwrap();
    assert_eq!(old, new);
    assert_eq!(old["threadId"], "thr_7", "{old}");
    // An error is forwarded as it is.
    let e = c
        .feedback_upload("bug", json!({"include_logs": false}))
        .unwrap_err();
    assert_eq!(e.rpc().map(|r| r.code), Some(-32602), "{e}");
    // Thread handles from the alias are the Codex client's.
    let t = c.thread_start(json!({})).unwrap();
    assert!(!t.id().is_empty());
    // State kept by the connection is seen from both.
    assert!(c.skill_source_labels().is_empty());
    assert!(!c.remove_skill_source("none"));
    c.disconnect();
}

#[test]
fn mcp_aliases_forward_to_the_mcp_client() {
    let opts = Sdk::Python
        .script_stdio("surface")
        .default_timeout(Duration::from_secs(30));
    let c = Client::new(opts);
    c.connect().expect("connect to the surface server");
    // This server answers `ping` with -32601: the error comes back the same way.
    let old = b(c.ping()).unwrap_err();
    let new = b(McpClient::from_connection(&c).ping()).unwrap_err();
    assert_eq!(
        old.rpc().map(|r| r.code),
        new.rpc().map(|r| r.code),
        "{old} / {new}"
    );
    let old: Vec<String> = b(c.list_all_tools())
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    let new: Vec<String> = b(McpClient::from_connection(&c).list_all_tools())
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(!old.is_empty());
    assert_eq!(old, new);
    c.disconnect();
}
