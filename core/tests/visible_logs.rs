//! What the library logs: the one warning about a server request nobody handles, and no
//! secret at any level. Its own test binary: it installs the process's log sink.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use codex_client::log::{forward_logs, LogRecord};
use codex_client::{Client, CodexClient};
use serde_json::json;
use support::*;

/// The process's one log sink (installed by the first caller; the tests of this binary share
/// it, each looking for its own records).
fn capture() -> Arc<Mutex<Vec<LogRecord>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<LogRecord>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let l2 = logs.clone();
        forward_logs(tracing::Level::TRACE, move |r| l2.lock().unwrap().push(r)).unwrap();
        logs
    })
    .clone()
}

/// Wait until a record matching `f` arrived (the sink runs on its own thread).
fn wait_log(logs: &Mutex<Vec<LogRecord>>, f: impl Fn(&LogRecord) -> bool) -> bool {
    wait_until(Duration::from_secs(5), || {
        logs.lock().unwrap().iter().any(&f)
    })
}

#[test]
fn unhandled_server_requests_warn_once_then_log_at_info_and_secrets_never_show() {
    let logs = capture();

    // Callback mode, no handler: each approval is declined; the first one warns.
    let c = CodexClient::new(fake_options(&["approval"]));
    c.connect().unwrap();
    for _ in 0..2 {
        c.request_blocking("test/approval", json!({})).unwrap();
    }
    let answered = || {
        let a = c.request_blocking("test/lastAnswers", json!({})).unwrap();
        a["answers"].as_array().map_or(0, Vec::len)
    };
    assert!(wait_until(Duration::from_secs(5), || answered() == 2));
    let a = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    assert_eq!(a["answers"][0]["result"]["decision"], "decline", "{a}");
    let unhandled = |l: &LogRecord| l.message.contains("no handler for server request");
    assert!(wait_log(&logs, |l| unhandled(l) && l.level == tracing::Level::WARN));
    assert!(wait_log(&logs, |l| l
        .message
        .contains("answered fail-closed")
        && l.level == tracing::Level::INFO));
    let warns = logs.lock().unwrap().iter().filter(|l| unhandled(l)).count();
    assert_eq!(warns, 1, "warned once per client");
    c.disconnect();

    // A login with an API key, and a bearer token on an MCP HTTP transport: at TRACE level
    // nothing shows either.
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().trace_wire(true));
    c.connect().unwrap();
    let key = "sk-test-secret-key-9f8e7d";
    c.login_api_key_blocking(key).unwrap();
    c.logout_blocking().unwrap();
    c.disconnect();
    let http = Client::new(
        codex_client::ClientOptions::default()
            .transport(codex_client::TransportKind::McpHttp(
                codex_client::McpHttp::new("http://127.0.0.1:9/mcp").token("tok-secret-123"),
            ))
            .connect_timeout(Duration::from_secs(5)),
    );
    let e = http.connect().unwrap_err();
    assert!(!e.to_string().contains("tok-secret"), "{e}");
    assert!(!format!("{:?}", http.options()).contains("tok-secret"));
    assert!(wait_log(&logs, |l| l.message.contains("connection closed")
        || l.message.contains("MCP")));
    // The raw lines were logged (trace_wire), the key in them redacted.
    assert!(wait_log(&logs, |l| l.target == "codex_client::wire"
        && l.message.starts_with("-> ")
        && l.message.contains("account/login/start")
        && l.message.contains("<redacted>")));
    assert!(wait_log(&logs, |l| l.target == "codex_client::wire"
        && l.message.starts_with("<- ")));
    let all = logs.lock().unwrap();
    assert!(
        all.len() > 5,
        "the sink saw the run ({} records)",
        all.len()
    );
    for l in all.iter() {
        assert!(
            !l.message.contains(key) && !l.message.contains("tok-secret"),
            "{l:?}"
        );
    }
}

/// A server outside the window (the real Codex 0.92.0's app-server) connects: one WARNING log
/// line and an `outside_window` connection event, never a refusal; nothing is refused by
/// version on it.
#[test]
fn outside_window_server_connects_with_a_warning_and_an_event() {
    use codex_client::{ConnectionEvent, Delivery, Event, WindowPosition};
    let logs = capture();
    let env = RealEnv::new();
    {
        let c = CodexClient::new(
            env.options()
                .codex_bin(codex_092_bin())
                .delivery(Delivery::Poll),
        );
        let init = c.connect().expect("an old server is not refused");
        assert_eq!(init.codex_version(), Some("0.92.0"));
        let v = c.server_version().unwrap();
        assert_eq!(v.position, WindowPosition::Older);
        assert!(!v.in_window() && v.matches.is_none());
        let ev = c.next_event(Some(Duration::from_secs(10))).unwrap();
        match ev {
            Some(Event::Connection(ConnectionEvent::OutsideWindow(e))) => {
                assert_eq!(e, v);
                let j = ConnectionEvent::OutsideWindow(e).to_json();
                assert_eq!(j["kind"], "outside_window");
                assert_eq!(j["position"], "older");
            }
            other => panic!("expected the outside_window event first, got {other:?}"),
        }
        // Not refused by version: the table is not applied to a version outside it.
        assert!(c.supports("thread/search/stream").unwrap());
        let r = c.request_blocking("thread/search/stream", json!({}));
        assert_ne!(
            r.unwrap_err().kind(),
            codex_client::ErrorKind::UnsupportedByVersion
        );
        c.disconnect();
    }
    let about_window =
        |l: &LogRecord| l.message.contains("Codex 0.92.0") && l.message.contains("window");
    assert!(wait_log(&logs, |l| about_window(l)
        && l.level == tracing::Level::WARN));
    let n = logs
        .lock()
        .unwrap()
        .iter()
        .filter(|l| about_window(l))
        .count();
    assert_eq!(n, 1, "one warning per connect");
}
