//! The MCP 2025-11-25 client surface against a server written with the official Python SDK
//! (`testkit/sdk-servers/surface.py`, `mcp` 2.3.0) over stdio and Streamable HTTP: the URL-mode
//! elicitation lifecycle (-32042 typed, `notifications/elicitation/complete` awaited, the
//! request retried), sampling with tools (`sampling.tools`), icons and resource links, tool
//! results checked against their `outputSchema` (and the check following `list_changed`),
//! the option that keeps progress from restarting a timeout; and MCP over `https://` through
//! stunnel4 with the TLS options, and the proxy option.

mod support;

use codex_client::mcp::{
    CreateMessageParams, CreateMessageResult, ElicitationComplete, ToolUse, ELICITATION_COMPLETE,
    TOOLS_LIST_CHANGED,
};
use codex_client::protocol::mcp::era::EraMode;
use codex_client::{
    Client, ClientOptions, Error, McpClient, McpHttp, RequestOptions, TransportKind,
};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;
use support::sdk::{Sdk, SdkHttp};
use support::tls::{ca, free_port, leaf, Stunnel};
use support::*;

use futures_executor::block_on as b;

const WAIT: Duration = Duration::from_secs(30);

type Notes = mpsc::Receiver<(String, Value)>;

/// A client of the surface server in the handshake era: notifications to the returned
/// channel; sampling answers a `tool_use` of `weather` when the request carries tools;
/// elicitation accepts (URL mode with no content).
fn connected(opts: ClientOptions) -> (McpClient, Notes) {
    init_tracing();
    let c = McpClient::new(opts.default_timeout(WAIT).mcp_protocol(EraMode::Legacy));
    let (tx, rx) = mpsc::channel();
    c.on_notification(move |n| {
        let _ = tx.send((n.method.clone(), n.params_value()));
    })
    .unwrap();
    c.on_server_request(|req| match req.method.as_str() {
        "sampling/createMessage" => {
            let p: CreateMessageParams = req.params_as().expect("typed sampling params");
            let answer = match p.tools.first() {
                Some(tool) => {
                    assert_eq!(
                        p.tool_choice.as_ref().unwrap().mode.as_deref(),
                        Some("auto")
                    );
                    assert_eq!(tool.input_schema["required"], json!(["city"]));
                    CreateMessageResult::tool_use(
                        "test-model",
                        vec![ToolUse::new("call-1", &tool.name, json!({"city": "Oslo"}))],
                    )
                }
                None => CreateMessageResult::text("test-model", "plain"),
            };
            req.respond(&answer.to_value()).unwrap();
        }
        "elicitation/create" => {
            let p = req.params_value();
            let answer = if p["mode"] == "url" {
                assert_eq!(p["url"], "https://127.0.0.1:9/page", "{p}");
                assert_eq!(p["elicitationId"], "page-1", "{p}");
                json!({"action": "accept"})
            } else {
                json!({"action": "decline"})
            };
            req.respond(&answer).unwrap();
        }
        _ => drop(req),
    })
    .unwrap();
    c.connect().expect("connect to the surface server");
    (c, rx)
}

fn surface_stdio() -> ClientOptions {
    Sdk::Python.script_stdio("surface")
}

fn url_elicitation_lifecycle(c: &McpClient, notes: &Notes) {
    // -32042: typed, with the elicitations to complete.
    let err = b(c.call_tool("connect", json!({}))).unwrap_err();
    let Error::UrlElicitationRequired(u) = &err else {
        panic!("not a URL elicitation error: {err:?}")
    };
    assert_eq!(err.kind().name(), "url_elicitation_required");
    assert_eq!(u.ids(), vec!["connect-1".to_owned()]);
    assert_eq!(
        u.urls(),
        vec!["https://127.0.0.1:9/connect?session=1".to_owned()]
    );
    assert_eq!(u.elicitations[0]["message"], "Connect your account");
    assert_eq!(u.rpc.code, codex_client::URL_ELICITATION_REQUIRED_CODE);
    // Not complete yet: the wait is bounded.
    let early = b(c.wait_elicitations_complete(&u.ids(), Duration::from_millis(200)));
    assert!(
        matches!(&early, Err(Error::Timeout { method, .. }) if method.contains("connect-1")),
        "{early:?}"
    );
    // The out-of-band step completes it: the notification is delivered (typed) and awaited.
    let done = b(c.call_tool("finish_connect", json!({}))).unwrap();
    assert_eq!(done.text(), "finished");
    c.wait_elicitations_complete_blocking(&u.ids(), WAIT)
        .expect("the completion arrives");
    let note = support::wait_note(notes, ELICITATION_COMPLETE, WAIT, |_| true);
    let typed: ElicitationComplete = serde_json::from_value(note).unwrap();
    assert_eq!(typed.elicitation_id, "connect-1");
    // The retry goes through.
    let ok = b(c.call_tool("connect", json!({}))).unwrap();
    assert_eq!(ok.text(), "connected");

    // A URL-mode elicitation request reaches the handler; its completion follows.
    let asked = b(c.call_tool("ask_url", json!({}))).unwrap();
    assert_eq!(asked.text(), "url accept");
    b(c.wait_elicitations_complete(&["page-1".to_owned()], WAIT)).unwrap();
}

#[test]
fn url_elicitation_lifecycle_over_stdio() {
    let (c, notes) = connected(surface_stdio());
    url_elicitation_lifecycle(&c, &notes);
}

#[test]
fn url_elicitation_lifecycle_over_http() {
    let server = SdkHttp::start_script(Sdk::Python, "surface");
    let (c, notes) = connected(server.options());
    url_elicitation_lifecycle(&c, &notes);
}

#[test]
fn sampling_tools_is_offered_only_when_asked_for() {
    // Without the option the SDK refuses to send tools (no sampling.tools capability).
    let (plain, _n) = connected(surface_stdio());
    let refused = b(plain.call_tool("weather_agent", json!({})));
    assert!(
        matches!(&refused, Ok(r) if r.is_error) || refused.is_err(),
        "{refused:?}"
    );
    drop(plain);
    // With it, the handler gets the tools typed and answers a tool_use.
    let (c, _n) = connected(surface_stdio().mcp_sampling_tools(true));
    let r = b(c.call_tool("weather_agent", json!({}))).unwrap();
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "toolUse: weather(Oslo)");
}

#[test]
fn icons_and_resource_links_are_typed() {
    let (c, _n) = connected(surface_stdio());
    let init = c.initialize_result().expect("connected");
    let info = init.mcp_server_info().expect("typed serverInfo");
    assert_eq!(info.name, "py-sdk-server");
    let icon = &info.icons[0];
    assert_eq!(icon.mime_type.as_deref(), Some("image/png"));
    assert_eq!(icon.sizes, vec!["16x16".to_owned()]);
    assert_eq!(icon.theme.as_deref(), Some("light"));
    assert!(icon.src.starts_with("data:image/png;base64,"));

    let tools = b(c.list_all_tools()).unwrap();
    let linked = tools.iter().find(|t| t.name == "linked").unwrap();
    assert_eq!(linked.icons, info.icons);
    assert!(tools
        .iter()
        .find(|t| t.name == "add")
        .unwrap()
        .icons
        .is_empty());
    let r = b(c.call_tool("linked", json!({}))).unwrap();
    let links = r.resource_links();
    assert_eq!(links.len(), 1, "{r:?}");
    assert_eq!(links[0].uri, "demo://greeting");
    assert_eq!(links[0].name, "greeting");
    assert_eq!(links[0].mime_type.as_deref(), Some("text/plain"));
    assert_eq!(links[0].icons, info.icons);
    assert_eq!(links[0].extra["type"], "resource_link");
    // The link points at a resource that reads.
    let read = b(c.read_resource(&links[0].uri)).unwrap();
    assert_eq!(read[0].text.as_deref(), Some("Hello from Python"));

    let res = b(c.list_all_resources()).unwrap();
    let iconic = res.iter().find(|r| r.uri == "demo://iconic").unwrap();
    assert_eq!(iconic.icons, info.icons);
    let prompts = b(c.list_all_prompts()).unwrap();
    let pictured = prompts.iter().find(|p| p.name == "pictured").unwrap();
    assert_eq!(pictured.icons, info.icons);
}

fn output_schema_checks(c: &McpClient, notes: Option<&Notes>) {
    let tools = b(c.list_all_tools()).unwrap();
    // Kept as the server sent it: 2020-12, `$defs`, an undereferenced `$ref`.
    let schema = tools
        .iter()
        .find(|t| t.name == "shaped")
        .and_then(|t| t.output_schema.clone())
        .unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        schema["properties"]["items"]["items"],
        json!({"$ref": "#/$defs/item"})
    );

    let good = b(c.call_tool("shaped", json!({"mode": "good"}))).unwrap();
    assert_eq!(good.structured_content, Some(json!({"items": [{"n": 1}]})));
    let bad = b(c.call_tool("shaped", json!({"mode": "bad"}))).unwrap_err();
    let Error::OutputSchemaMismatch(m) = &bad else {
        panic!("not a schema mismatch: {bad:?}")
    };
    assert_eq!((m.tool.as_str(), m.path.as_str()), ("shaped", "/items/1/n"));
    assert!(m.message.contains("integer"), "{}", m.message);
    assert!(bad.to_string().contains("/items/1/n"), "{bad}");
    assert_eq!(m.result["structuredContent"]["items"][1]["n"], "two");
    let none = b(c.call_tool("shaped", json!({"mode": "none"}))).unwrap_err();
    assert!(
        matches!(&none, Error::OutputSchemaMismatch(m) if m.path.is_empty()),
        "{none:?}"
    );
    // The raw request path (what C's codex_client_call takes) checks the same.
    let raw = c.request_blocking(
        "tools/call",
        json!({"name": "shaped", "arguments": {"mode": "bad"}}),
    );
    assert!(
        matches!(raw, Err(Error::OutputSchemaMismatch(_))),
        "{raw:?}"
    );

    let Some(notes) = notes else { return };
    // The tools change: the next call lists them again and checks the new schema.
    assert_eq!(
        b(c.call_tool("reshape", json!({}))).unwrap().text(),
        "reshaped"
    );
    support::wait_note(notes, TOOLS_LIST_CHANGED, WAIT, |_| true);
    let now = b(c.call_tool("shaped", json!({"mode": "bad"}))).unwrap_err();
    assert!(
        matches!(&now, Error::OutputSchemaMismatch(m) if m.path == "/items/0/n"),
        "{now:?}"
    );
}

#[test]
fn tool_results_are_checked_against_their_output_schema() {
    let (c, notes) = connected(surface_stdio());
    output_schema_checks(&c, Some(&notes));
}

#[test]
fn output_schema_check_in_the_stateless_era_and_turned_off() {
    init_tracing();
    // The default era (`auto`: 2026-07-28 on this server) checks alike.
    let c = McpClient::new(surface_stdio().default_timeout(WAIT));
    let init = c.connect().unwrap();
    assert_eq!(init.mcp_era(), "stateless");
    output_schema_checks(&c, None);
    drop(c);
    // Off: the result comes as the server sent it.
    let (off, _n) = connected(surface_stdio().mcp_validate_output(false));
    b(off.list_all_tools()).unwrap();
    let bad = b(off.call_tool("shaped", json!({"mode": "bad"}))).unwrap();
    assert_eq!(bad.structured_content.unwrap()["items"][1]["n"], "two");
}

#[test]
fn progress_restarting_the_timeout_can_be_turned_off() {
    let short = RequestOptions::timeout(Duration::from_millis(600));
    let slow = json!({"n": 5, "delay_ms": 200});
    let (on, _n) = connected(surface_stdio());
    let done = b(on.call_tool_with_progress("count", slow.clone(), short, |_| {})).unwrap();
    assert!(done.text().contains("counted to 5"));
    let (off, _n) = connected(surface_stdio().mcp_progress_resets_timeout(false));
    let mut steps = 0;
    let r = b(off.call_tool_with_progress("count", slow, short, |_| steps += 1));
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    assert!(steps < 5, "{steps}");
}

#[test]
fn mcp_over_https_takes_the_tls_options() {
    let server = SdkHttp::start(Sdk::Python);
    let dir = TempDir::new("mcp-https");
    let good_ca = ca("mcp");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, good_ca.cert.pem()).unwrap();
    let (cert, key) = leaf(dir.path(), "server", &good_ca, "localhost", false);
    let (client_c, client_k) = leaf(dir.path(), "client", &good_ca, "codex-client", false);
    let ports = [free_port(), free_port()];
    let _tunnel = Stunnel::start(
        dir.path(),
        server.port,
        &[
            (ports[0], &cert, &key, None),
            (ports[1], &cert, &key, Some(&ca_file)),
        ],
    );
    let https = |port: u16| {
        ClientOptions::default()
            .transport(TransportKind::McpHttp(McpHttp::new(format!(
                "https://localhost:{port}/mcp"
            ))))
            .mcp_protocol(EraMode::Legacy)
            .default_timeout(WAIT)
    };
    let call = |opts: ClientOptions| {
        let c = McpClient::new(opts);
        c.connect()?;
        b(c.call_tool("add", json!({"a": 1, "b": 2})))
    };

    // The test CA: connects and calls a tool.
    let r = call(https(ports[0]).tls_ca_file(&ca_file)).expect("https with the CA file");
    assert_eq!(r.structured_content.unwrap()["sum"], 3.0);
    // Without it the certificate's issuer is unknown.
    let e = call(https(ports[0])).unwrap_err();
    let text = e.to_string().to_lowercase();
    assert!(
        text.contains("unknownissuer") || text.contains("unknown issuer"),
        "{e}"
    );
    // A service that wants a client certificate: refused without, served with one.
    assert!(call(https(ports[1]).tls_ca_file(&ca_file)).is_err());
    let r = call(
        https(ports[1])
            .tls_ca_file(&ca_file)
            .tls_client_cert(&client_c, &client_k),
    )
    .expect("https with a client certificate");
    assert_eq!(r.structured_content.unwrap()["sum"], 3.0);
}

/// A proxy that records the first request line it gets and answers 502.
fn refusing_proxy() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let n = conn.read(&mut buf).unwrap_or(0);
            let text = String::from_utf8_lossy(&buf[..n]);
            let _ = tx.send(text.lines().next().unwrap_or("").to_owned());
            let _ = conn.write_all(
                b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (port, rx)
}

#[test]
fn the_proxy_option_routes_mcp_http() {
    init_tracing();
    let (proxy, seen) = refusing_proxy();
    let target = free_port();
    let endpoint = format!("http://127.0.0.1:{target}/mcp");
    let opts = || {
        ClientOptions::default()
            .transport(TransportKind::McpHttp(McpHttp::new(endpoint.clone())))
            .mcp_protocol(EraMode::Legacy)
            .connect_timeout(Duration::from_secs(10))
    };
    // Through the proxy, even to a loopback endpoint: the proxy gets the absolute URL.
    let via = Client::new(opts().mcp_proxy(format!("http://127.0.0.1:{proxy}")));
    assert!(via.connect().is_err());
    let line = seen.recv_timeout(WAIT).expect("the proxy got the request");
    assert_eq!(line, format!("POST {endpoint} HTTP/1.1"));
    drop(via);
    while seen.recv_timeout(Duration::from_millis(300)).is_ok() {}
    // "none": straight to the (closed) endpoint, the proxy sees nothing.
    let direct = Client::new(opts().mcp_proxy("none"));
    assert!(direct.connect().is_err());
    assert!(seen.recv_timeout(Duration::from_millis(300)).is_err());
    // A proxy that is no http(s) URL is refused by the option.
    let mut builder = codex_client::OptionsBuilder::new();
    assert!(builder
        .set("mcp_proxy", json!("socks5://127.0.0.1:1"))
        .is_err());
    assert!(builder.set("mcp_proxy", json!("none")).is_ok());
}
