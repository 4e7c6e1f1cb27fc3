//! Login, account and the administrative helpers (compact, review, config batch write, MCP
//! server status and OAuth login, feedback) against the real `codex app-server` (the default
//! Codex; the `smoke_` test on every `CODEX_SMOKE` version too) and
//! the local mock model. What would reach OpenAI (the device code, a feedback upload) runs
//! with the server in a network namespace of its own (`unshare -n`): it fails at once and
//! no packet leaves the machine.

mod support;

use std::time::Duration;

use codex_client::{Client, ClientOptions, CodexClient, Delivery, ErrorKind, Event};
use serde_json::json;
use support::*;

fn connect(opts: ClientOptions) -> CodexClient {
    codex_connected(opts.delivery(Delivery::Poll))
}

/// `opts` with the server started inside a new network namespace (only its own loopback).
fn offline(env: &RealEnv, opts: ClientOptions) -> ClientOptions {
    let wrapper = env.work.path().join("codex-offline.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec unshare -n -- '{}' \"$@\"\n",
            codex_bin().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        std::process::Command::new("unshare")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success()),
        "`unshare -n` must work (util-linux, run as root): the offline tests need it"
    );
    opts.codex_bin(wrapper)
}

#[test]
fn smoke_api_key_login_is_stored_and_logout_forgets_it() {
    let env = RealEnv::new();
    let c = connect(env.options());
    let key = "sk-test-not-a-real-key-4242";
    c.login_api_key_blocking(key).expect("login");
    let auth = std::fs::read_to_string(env.home.path().join("auth.json")).expect("auth.json");
    assert!(auth.contains(key), "the server stored the key");
    assert_eq!(
        c.login_api_key_blocking("  ").unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    // API-key accounts have no ChatGPT rate limits: the server says so.
    let e = c.rate_limits_blocking().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rpc, "{e}");
    c.logout_blocking().expect("logout");
    let left = std::fs::read_to_string(env.home.path().join("auth.json")).unwrap_or_default();
    assert!(!left.contains(key), "logout removed the key");
    c.disconnect();
}

#[test]
fn chatgpt_browser_login_gives_the_url_and_cancel_ends_it() {
    let env = RealEnv::new();
    let c = connect(env.options());
    let login = c.login_chatgpt_blocking().expect("login start");
    let url = login.auth_url().expect("authUrl");
    assert!(
        url.starts_with("https://auth.openai.com/oauth/authorize?"),
        "{url}"
    );
    assert!(
        url.contains("code_challenge_method=S256") && url.contains("127.0.0.1"),
        "{url}"
    );
    assert!(login.login_id().is_some());
    assert!(
        !format!("{login:?}").contains("code_challenge"),
        "Debug hides the URL"
    );
    assert_eq!(login.outcome(), None);
    login.cancel_blocking().expect("cancel");
    let outcome = login
        .wait_blocking(Duration::from_secs(20))
        .expect("outcome");
    assert!(!outcome.success, "{outcome:?}");
    assert!(outcome.error.is_some());
    c.disconnect();
}

#[test]
fn device_code_login_fails_cleanly_without_network() {
    let env = RealEnv::new();
    let c = connect(offline(&env, env.options()));
    let t0 = std::time::Instant::now();
    let e = c.login_device_code_blocking().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rpc, "{e}");
    assert!(e.to_string().contains("device code"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(60));
    c.disconnect();
}

/// Codex 0.171.0 offline answers the upload at once (~5 s: its DNS lookup of the Sentry host
/// fails) with `-32603 "failed to upload feedback: failed to upload feedback to Sentry: …"`:
/// anything else (a timeout, the params refused, another error) fails the test.
#[test]
fn feedback_upload_fails_cleanly_without_network() {
    let env = RealEnv::new();
    let c = connect(offline(&env, env.options()));
    let t0 = std::time::Instant::now();
    let e = c
        .feedback_upload("bug", json!({"reason": "test", "includeLogs": false}))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rpc, "{e}");
    let rpc = e.rpc().expect("a JSON-RPC error");
    assert_eq!(rpc.code, -32603, "{e}");
    assert!(rpc.message.starts_with("failed to upload feedback:"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
    c.disconnect();
}

#[test]
fn config_batch_write_then_read() {
    let env = RealEnv::new();
    let c = connect(env.options());
    let r = c
        .config_batch_write(
            json!([{"keyPath": "model_reasoning_effort", "value": "low", "mergeStrategy": "replace"}]),
            json!({}),
        )
        .expect("batch write");
    assert_eq!(r["status"], "ok", "{r}");
    let toml = std::fs::read_to_string(env.home.path().join("config.toml")).unwrap();
    assert!(toml.contains("model_reasoning_effort = \"low\""), "{toml}");
    let read = c.request_blocking("config/read", json!({})).unwrap();
    assert_eq!(read["config"]["model_reasoning_effort"], "low", "{read}");
    c.disconnect();
}

#[test]
fn mcp_server_status_and_oauth_login_of_an_unknown_server() {
    let env = RealEnv::new();
    let c = connect(env.options());
    let r = c.mcp_server_status(json!({})).expect("status");
    assert!(r["data"].is_array(), "{r}");
    let e = c
        .mcp_server_oauth_login("no-such-server", json!({}))
        .unwrap_err();
    assert!(e.to_string().contains("no-such-server"), "{e}");
    c.disconnect();
}

/// Wait (60 s at most) for an `item/completed` of `kind` on `thread`.
fn wait_item(c: &Client, thread: &str, kind: &str) -> serde_json::Value {
    let end = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let left = end.saturating_duration_since(std::time::Instant::now());
        assert!(
            !left.is_zero(),
            "no {kind} item in 60 s; stderr:\n{}",
            c.stderr_tail()
        );
        if let Some(Event::Notification(n)) = c.next_event(Some(left)).unwrap() {
            let p = n.params_value();
            if n.method == "item/completed" && p["threadId"] == thread && p["item"]["type"] == kind
            {
                return p["item"].clone();
            }
        }
    }
}

#[test]
fn compact_and_review_run_on_a_real_thread() {
    let env = RealEnv::new();
    let c = connect(env.options());
    let thread = c.thread_start(json!({})).expect("thread");
    let log = run_turn(c.connection(), thread.id(), "hello", |_| {});
    assert_eq!(log.status(), "completed");
    thread.compact_start().expect("compact");
    wait_item(c.connection(), thread.id(), "contextCompaction");
    let r = thread
        .review_start(json!({"type": "uncommittedChanges"}))
        .expect("review");
    assert!(r["turn"]["id"].is_string(), "{r}");
    wait_item(c.connection(), thread.id(), "enteredReviewMode");
    c.disconnect();
}
