//! MCP 2026-07-28 against a scripted Streamable HTTP server (a few lines of std HTTP/1.1 on
//! 127.0.0.1 that records every POST): the era negotiation (`auto` probes `server/discover`,
//! retries a refused version, falls back to `initialize`; `legacy` never probes; a pinned
//! version does not fall back), the `_meta` envelope and `MCP-Protocol-Version` on every
//! request, `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` with their encoding, tools with a
//! malformed `x-mcp-header` left out, JSON Schema kept as sent, and `InputRequiredResult`
//! rounds (answered by the user's handler, state echoed, a new id per round, bounded,
//! parallel calls isolated).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codex_client::{ClientOptions, Error, McpClient, McpHttp, OptionsBuilder, TransportKind};
use futures_executor::block_on;
use serde_json::{json, Value};

const V: &str = "2026-07-28";
const PV: &str = "io.modelcontextprotocol/protocolVersion";

/// One POST the server received: its headers (lower-case names) and JSON body.
#[derive(Clone, Debug)]
struct Post {
    headers: HashMap<String, String>,
    body: Value,
}

impl Post {
    fn method(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// The scripted answer to a POST: HTTP status and JSON body (`None`: 202, no body).
type Script = dyn Fn(&Post, &[Post]) -> (u16, Option<Value>) + Send + Sync;

/// A scripted MCP HTTP server on 127.0.0.1; every POST is recorded.
struct Server {
    url: String,
    posts: Arc<Mutex<Vec<Post>>>,
}

impl Server {
    fn start(
        script: impl Fn(&Post, &[Post]) -> (u16, Option<Value>) + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let posts = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let p = posts.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (p, s) = (p.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &p, &*s));
            }
        });
        Server { url, posts }
    }

    fn posts(&self) -> Vec<Post> {
        self.posts.lock().unwrap().clone()
    }

    fn of(&self, method: &str) -> Vec<Post> {
        self.posts()
            .into_iter()
            .filter(|p| p.method() == method)
            .collect()
    }
}

/// Serve one keep-alive connection: each request answered by the script.
fn serve(stream: TcpStream, posts: &Mutex<Vec<Post>>, script: &Script) {
    let mut out = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let verb = line.split(' ').next().unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let len: usize = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let reply = if verb != "POST" {
            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n".to_owned()
        } else {
            let post = Post {
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            };
            let before = posts.lock().unwrap().clone();
            posts.lock().unwrap().push(post.clone());
            match script(&post, &before) {
                (status, Some(v)) => {
                    let text = v.to_string();
                    format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
                        text.len()
                    )
                }
                (_, None) => "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned(),
            }
        };
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn ok(post: &Post, result: Value) -> (u16, Option<Value>) {
    (
        200,
        Some(json!({"jsonrpc": "2.0", "id": post.body["id"], "result": result})),
    )
}

fn err(post: &Post, status: u16, code: i64, data: Value) -> (u16, Option<Value>) {
    (
        status,
        Some(
            json!({"jsonrpc": "2.0", "id": post.body["id"], "error": {"code": code, "message": "no", "data": data}}),
        ),
    )
}

fn discover(post: &Post) -> (u16, Option<Value>) {
    ok(
        post,
        json!({"resultType": "complete", "supportedVersions": [V], "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}),
    )
}

fn client(url: &str, options: &[(&str, Value)]) -> McpClient {
    let mut b = OptionsBuilder::new();
    // The transport first: the options that follow are checked against the MCP client.
    b.set("transport", json!(url)).unwrap();
    for (k, v) in options {
        b.set(k, v.clone()).unwrap();
    }
    let opts: ClientOptions = b
        .build()
        .unwrap()
        .transport(TransportKind::McpHttp(McpHttp::new(url)))
        .client_info("era-test", "1.2.3")
        .default_timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(10));
    McpClient::new(opts)
}

/// The focal schema of the preservation check: 2020-12 keywords and a network `$ref`.
fn rich_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"id": {"$anchor": "ident", "type": "string", "pattern": "^[a-z]+$"}},
        "properties": {
            "id": {"$ref": "#/$defs/id"},
            "profile": {"$ref": "http://127.0.0.1:9/never-fetched.json"},
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"}
        },
        "allOf": [{"required": ["id"]}],
        "anyOf": [{"required": ["region"]}, {"required": ["n"]}],
        "if": {"properties": {"flag": {"const": true}}},
        "then": {"required": ["n"]},
        "else": {},
        "additionalProperties": false,
        "unevaluatedProperties": false
    })
}

/// A stateless server: discover, tools/list (one good tool, one malformed), tools/call.
fn stateless_server() -> Server {
    Server::start(|p, _| match p.method() {
        "server/discover" => discover(p),
        "tools/list" => ok(
            p,
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [
                {"name": "rich", "inputSchema": rich_schema()},
                {"name": "bad", "inputSchema": {"type": "object", "properties": {
                    "score": {"type": "number", "x-mcp-header": "Score"}}}}
            ]}),
        ),
        "tools/call" => ok(p, json!({"content": [{"type": "text", "text": "done"}]})),
        _ => ok(p, json!({})),
    })
}

#[test]
fn auto_speaks_the_stateless_era_with_envelope_and_headers() {
    let s = stateless_server();
    let c = client(&s.url, &[]);
    let init = c.connect().unwrap();
    assert_eq!(init.mcp_era(), "stateless");
    assert_eq!(init.protocol_version(), Some(V));
    assert_eq!(init.server_info().unwrap()["name"], "fake");
    assert_eq!(
        init.to_json()["mcp_era"],
        "stateless",
        "the view every binding shows"
    );

    let tools = block_on(c.list_all_tools()).unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["rich"],
        "the malformed tool is left out, the other kept"
    );
    assert_eq!(
        tools[0].input_schema,
        rich_schema(),
        "the schema is kept as sent"
    );

    let args = json!({"id": "ab", "region": "Hello, 世界", "n": 42, "flag": false});
    let r = block_on(c.call_tool("rich", args)).unwrap();
    assert_eq!(r.text(), "done");
    c.disconnect();

    let posts = s.posts();
    assert!(
        s.of("initialize").is_empty(),
        "no handshake in the stateless era"
    );
    assert!(s.of("notifications/initialized").is_empty());
    for p in &posts {
        let meta = &p.body["params"]["_meta"];
        assert_eq!(meta[PV], V, "{}", p.body);
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "era-test"
        );
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
        assert_eq!(p.header("mcp-protocol-version"), Some(V), "{}", p.method());
        assert_eq!(p.header("mcp-method"), Some(p.method()));
    }
    let call = &s.of("tools/call")[0];
    assert_eq!(call.header("mcp-name"), Some("rich"));
    assert_eq!(
        call.header("mcp-param-region"),
        Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
    );
    assert_eq!(call.header("mcp-param-n"), Some("42"));
    assert_eq!(call.header("mcp-param-flag"), Some("false"));
    assert!(call.header("mcp-param-id").is_none());
    // No network `$ref` was fetched: the only requests are the client's POSTs to /mcp.
    assert!(posts.iter().all(|p| p.body["jsonrpc"] == "2.0"));
}

#[test]
fn a_refused_version_is_retried_with_one_the_server_lists() {
    let s = Server::start(|p, before| match p.method() {
        "server/discover" if before.is_empty() => {
            err(p, 400, -32022, json!({"supported": [V], "requested": "x"}))
        }
        "server/discover" => discover(p),
        _ => ok(p, json!({"tools": []})),
    });
    let c = client(&s.url, &[]);
    assert_eq!(c.connect().unwrap().mcp_era(), "stateless");
    assert_eq!(s.of("server/discover").len(), 2);
    assert_ne!(
        s.of("server/discover")[0].body["id"],
        s.of("server/discover")[1].body["id"]
    );
}

/// A handshake-era server: `server/discover` is an unknown method before `initialize`.
fn handshake_server() -> Server {
    Server::start(|p, _| match p.method() {
        "server/discover" => err(p, 400, -32000, json!(null)),
        "initialize" => ok(
            p,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "old", "version": "1"}}),
        ),
        "notifications/initialized" => (202, None),
        _ => ok(p, json!({"tools": []})),
    })
}

#[test]
fn auto_falls_back_to_the_handshake() {
    let s = handshake_server();
    let c = client(&s.url, &[]);
    let init = c.connect().unwrap();
    assert_eq!(init.mcp_era(), "handshake");
    assert_eq!(init.protocol_version(), Some("2025-11-25"));
    assert_eq!(init.to_json()["mcp_era"], "handshake");
    block_on(c.list_all_tools()).unwrap();
    c.disconnect();
    let posts = s.posts();
    let methods: Vec<_> = posts.iter().map(Post::method).collect();
    assert_eq!(
        &methods[..4],
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    let init_post = &s.of("initialize")[0];
    assert!(
        init_post.header("mcp-protocol-version").is_none(),
        "the probe's version is not kept"
    );
    let list = &s.of("tools/list")[0];
    assert!(
        list.body["params"].get("_meta").is_none(),
        "no envelope in the handshake era"
    );
    assert_eq!(list.header("mcp-protocol-version"), Some("2025-11-25"));
    assert!(list.header("mcp-method").is_none());
}

#[test]
fn legacy_never_probes_and_a_pinned_version_never_falls_back() {
    let s = handshake_server();
    let c = client(&s.url, &[("mcp_protocol", json!("legacy"))]);
    assert_eq!(c.connect().unwrap().mcp_era(), "handshake");
    c.disconnect();
    assert!(s.of("server/discover").is_empty());

    let s = handshake_server();
    let c = client(&s.url, &[("mcp_protocol", json!(V))]);
    let e = c.connect().unwrap_err();
    assert!(matches!(e, Error::Protocol(_)), "{e:?}");
    assert!(e.to_string().contains("pinned"), "{e}");
    assert!(s.of("initialize").is_empty());
    let bad = OptionsBuilder::new().set("mcp_protocol", json!("2025-11-25"));
    assert!(bad.is_err());
}

/// A stateless server whose `ask` tool needs one elicitation (answered with `requestState`),
/// whose `loop` tool always asks again, and whose `plain` tool answers at once.
fn input_server() -> Server {
    Server::start(|p, _| {
        let params = &p.body["params"];
        match (p.method(), params["name"].as_str()) {
            ("server/discover", _) => discover(p),
            ("tools/call", Some("ask")) if params.get("inputResponses").is_none() => ok(
                p,
                json!({"resultType": "input_required", "requestState": "opaque-1",
                       "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                           "message": "ok?", "requestedSchema": {"type": "object", "properties": {
                               "confirmed": {"type": "boolean", "default": true}}}}}}}),
            ),
            ("tools/call", Some("ask")) => ok(
                p,
                json!({"resultType": "complete", "content": [{"type": "text",
                       "text": params["inputResponses"]["confirm"].to_string()}]}),
            ),
            ("tools/call", Some("loop")) => ok(
                p,
                json!({"resultType": "input_required", "inputRequests": {}, "requestState": "again"}),
            ),
            ("tools/call", _) => ok(p, json!({"content": [{"type": "text", "text": "plain"}]})),
            _ => ok(p, json!({})),
        }
    })
}

#[test]
fn input_required_rounds_go_through_the_users_handler() {
    let s = input_server();
    let c = client(&s.url, &[("mcp_input_rounds", json!(3))]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    c.on_server_request(move |req| {
        seen2.lock().unwrap().push(req.method.clone());
        if req.method == "elicitation/create" {
            req.respond(&json!({"action": "accept", "content": {}}))
                .unwrap();
        }
    })
    .unwrap();
    c.connect().unwrap();

    // The two calls run at once: the plain one never carries the other's state.
    let (asked, plain) = block_on(futures_util::future::join(
        c.call_tool("ask", json!({})),
        c.call_tool("plain", json!({})),
    ));
    let asked = asked.unwrap();
    assert_eq!(plain.unwrap().text(), "plain");
    // The handler's answer, with the schema's default applied (SEP-1034), went back.
    let answer: Value = serde_json::from_str(&asked.text()).unwrap();
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"confirmed": true}})
    );
    assert_eq!(*seen.lock().unwrap(), ["elicitation/create"]);

    let asks: Vec<_> = s
        .of("tools/call")
        .into_iter()
        .filter(|p| p.body["params"]["name"] == "ask")
        .collect();
    assert_eq!(asks.len(), 2);
    assert_ne!(
        asks[0].body["id"], asks[1].body["id"],
        "a new JSON-RPC id per round"
    );
    assert_eq!(asks[1].body["params"]["requestState"], "opaque-1");
    assert_eq!(asks[1].body["params"]["_meta"][PV], V);
    let plain = s
        .of("tools/call")
        .into_iter()
        .find(|p| p.body["params"]["name"] == "plain")
        .unwrap();
    assert!(plain.body["params"].get("inputResponses").is_none());
    assert!(plain.body["params"].get("requestState").is_none());

    // Bounded: the server that never stops asking fails the call after 3 rounds.
    let e = block_on(c.call_tool("loop", json!({}))).unwrap_err();
    assert!(e.to_string().contains("3 rounds"), "{e}");
    let loops = s
        .of("tools/call")
        .into_iter()
        .filter(|p| p.body["params"]["name"] == "loop")
        .count();
    assert_eq!(loops, 3);
    c.disconnect();
}

/// A stateless server whose `tools/list` says fresh for a minute and whose `resources/read`
/// says stale at once; `set_logging_level` goes into the envelope (no `logging/setLevel`).
#[test]
fn cache_hints_and_the_log_level_in_the_envelope() {
    let s = Server::start(|p, _| match p.method() {
        "server/discover" => discover(p),
        "tools/list" => ok(
            p,
            json!({"resultType": "complete", "ttlMs": 60_000, "cacheScope": "public", "tools": [
                {"name": "t", "inputSchema": {"type": "object"}}]}),
        ),
        "resources/read" => ok(
            p,
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                   "contents": [{"uri": p.body["params"]["uri"], "text": "x"}]}),
        ),
        _ => ok(p, json!({"content": []})),
    });
    let c = client(&s.url, &[]);
    c.connect().unwrap();
    for _ in 0..3 {
        assert_eq!(block_on(c.list_all_tools()).unwrap()[0].name, "t");
        block_on(c.read_resource("demo://r")).unwrap();
    }
    assert_eq!(
        s.of("tools/list").len(),
        1,
        "fresh for ttlMs: served from the cache"
    );
    assert_eq!(s.of("resources/read").len(), 3, "ttlMs 0: asked every time");

    block_on(c.set_logging_level("warning")).unwrap();
    assert!(block_on(c.set_logging_level("loud")).is_err());
    block_on(c.call_tool("t", json!({}))).unwrap();
    c.disconnect();
    assert!(s.of("logging/setLevel").is_empty());
    // Disconnected: an unknown level is still the caller's error (named first), a known one
    // finds no connection.
    let e = block_on(c.set_logging_level("loud")).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(_)) && e.to_string().contains("known:"),
        "{e:?}"
    );
    let e = block_on(c.set_logging_level("info")).unwrap_err();
    assert!(matches!(e, Error::NotConnected), "{e:?}");
    let call = &s.of("tools/call")[0];
    assert_eq!(
        call.body["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
        "warning"
    );

    // Off: every list is asked.
    let s2 = Server::start(|p, _| match p.method() {
        "server/discover" => discover(p),
        _ => ok(
            p,
            json!({"resultType": "complete", "ttlMs": 60_000, "tools": []}),
        ),
    });
    let c = client(&s2.url, &[("mcp_cache", json!(false))]);
    c.connect().unwrap();
    block_on(c.list_all_tools()).unwrap();
    block_on(c.list_all_tools()).unwrap();
    assert_eq!(s2.of("tools/list").len(), 2);
    c.disconnect();
}

/// The era a connect negotiated, given back as option `mcp_prior`: a stateless verdict is
/// adopted with no `server/discover` (the same initialize result view, the envelope on every
/// request), a legacy one sends `initialize` at once; a verdict that disagrees with
/// `mcp_protocol`, or lists no version this client speaks, is refused before anything is sent.
#[test]
fn a_remembered_era_skips_the_probe() {
    let s = stateless_server();
    let c = client(&s.url, &[]);
    let first = c.connect().unwrap();
    c.disconnect();
    let prior = first.to_json()["mcp_prior"].clone();
    assert_eq!(prior["kind"], "modern", "{prior}");
    assert_eq!(prior["discover"]["supportedVersions"], json!([V]));
    assert!(
        prior["discover"].get("era").is_none(),
        "the server's result, not the view"
    );
    assert_eq!(s.of("server/discover").len(), 1);

    let c = client(&s.url, &[("mcp_prior", prior.clone())]);
    let init = c.connect().unwrap();
    assert_eq!(init.raw, first.raw, "the same view as the probed connect");
    assert_eq!(init.mcp_era(), "stateless");
    assert_eq!(
        init.to_json()["mcp_prior"],
        prior,
        "it can be kept again as it is"
    );
    block_on(c.list_all_tools()).unwrap();
    c.disconnect();
    assert_eq!(
        s.of("server/discover").len(),
        1,
        "no probe with the verdict"
    );
    let list = s.of("tools/list").pop().unwrap();
    assert_eq!(list.body["params"]["_meta"][PV], V, "the envelope");
    assert_eq!(list.header("mcp-protocol-version"), Some(V));
    // Pinned to the version it lists: adopted too.
    let c = client(
        &s.url,
        &[("mcp_protocol", json!(V)), ("mcp_prior", prior.clone())],
    );
    c.connect().unwrap();
    c.disconnect();
    assert_eq!(s.of("server/discover").len(), 1);

    // A legacy verdict: initialize at once.
    let h = handshake_server();
    let legacy = json!({"kind": "legacy"});
    let c = client(&h.url, &[("mcp_prior", legacy.clone())]);
    let init = c.connect().unwrap();
    assert_eq!(init.mcp_era(), "handshake");
    assert_eq!(init.to_json()["mcp_prior"], legacy);
    c.disconnect();
    assert!(h.of("server/discover").is_empty());
    assert_eq!(h.of("initialize").len(), 1);

    // Refused: verdicts that disagree with mcp_protocol, malformed ones.
    let build = |opts: &[(&str, Value)]| {
        let mut b = OptionsBuilder::new();
        b.set("transport", json!(s.url)).unwrap();
        for (k, v) in opts {
            b.set(k, v.clone())?;
        }
        b.build()
    };
    for (opts, says) in [
        (
            vec![
                ("mcp_protocol", json!("legacy")),
                ("mcp_prior", prior.clone()),
            ],
            "\"legacy\"",
        ),
        (
            vec![("mcp_protocol", json!(V)), ("mcp_prior", legacy.clone())],
            "pins 2026-07-28",
        ),
        (
            vec![(
                "mcp_prior",
                json!({"kind": "modern", "discover": {"supportedVersions": ["2099-01-01"]}}),
            )],
            "none this client speaks",
        ),
        (
            vec![("mcp_prior", json!({"kind": "modern"}))],
            "needs \"discover\"",
        ),
        (vec![("mcp_prior", json!("legacy"))], "a JSON object"),
    ] {
        let e = build(&opts).expect_err(says);
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert!(
            e.to_string().contains("mcp_prior") && e.to_string().contains(says),
            "{e}"
        );
    }
    // The same rule for options set on the fields (checked at connect).
    let opts = ClientOptions::default()
        .transport(TransportKind::McpHttp(McpHttp::new(&s.url)))
        .mcp_protocol(codex_client::protocol::mcp::era::EraMode::Legacy)
        .mcp_prior(codex_client::protocol::mcp::era::Prior::from_json(&prior).unwrap());
    let before = s.posts().len();
    let e = McpClient::new(opts).connect().unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert_eq!(s.posts().len(), before, "nothing sent");
    // Not for a Codex client.
    let mut b = OptionsBuilder::new();
    b.set("mcp_prior", legacy).unwrap();
    assert!(b.build().is_err(), "mcp_prior is an MCP client's option");
}

/// Over HTTP a connection error during the probe is not a restart (there is no process to
/// start): the client tries `initialize` once (a server that drops the connection on a method
/// it does not know is the HTTP form of the old server) and, when that fails too, the connect
/// fails at once with the transport's reason.
#[test]
fn a_connection_error_during_the_probe_over_http() {
    // A port that drops every connection it accepts, counting them.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let accepted = Arc::new(Mutex::new(0usize));
    let a = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            *a.lock().unwrap() += 1;
            let mut s = stream;
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            drop(s);
        }
    });
    let c = client(&url, &[]);
    let t0 = std::time::Instant::now();
    let e = c.connect().unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(
        e.to_string().contains("could not reach the MCP server"),
        "{e}"
    );
    assert!(!e.to_string().contains("restart"), "{e}");
    let n = *accepted.lock().unwrap();
    assert_eq!(n, 2, "the probe and one initialize, nothing more");

    // A closed port: the same reason, as fast.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mcp", l.local_addr().unwrap())
    };
    let c = client(&closed, &[]);
    let t0 = std::time::Instant::now();
    let e = c.connect().unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(
        e.to_string().contains("could not reach the MCP server"),
        "{e}"
    );
}
