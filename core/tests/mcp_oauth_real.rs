//! MCP authorization against real parts, two authorization servers with the same flow:
//!  - `scripts/mcp/oauth-fixture.mjs`: oidc-provider, a certified OpenID provider, in front of
//!    an MCP server on the official TypeScript SDK 2.4.0 that verifies every token by
//!    introspection (RFC 9728 at the path-form URL, OpenID Connect discovery, `iss`, a step-up
//!    on `403 insufficient_scope`);
//!  - `scripts/mcp/oauth-fixture.py`: the official Python SDK's own authorization server
//!    (`mcp.server.auth`, `mcp` 2.3.0: RFC 8414 metadata, registration offering
//!    `client_secret_post` and `client_secret_basic`, a token endpoint that reads `client_id`
//!    from the form only) with an in-memory provider, in front of a Streamable HTTP MCP server
//!    on the same SDK that requires a scope.
//!
//! Each run goes through discovery, dynamic registration, the authorization code flow with
//! PKCE, a tool call, a refresh after the access token expired or was revoked, a new
//! authorization after the grant (and its refresh token) is revoked, and a second client that
//! starts from the token file the first one left — and at TRACE level with `trace_wire` no
//! token, refresh token, client secret or code the authorization server handed out appears in
//! any log line. Its own test binary: it installs the process's log sink.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use codex_client::auth::AuthEvent;
use codex_client::log::{forward_logs, LogRecord};
use codex_client::{Client, ConnectionEvent, OptionsBuilder};
use serde_json::{json, Value};

/// The two real authorization servers the flow runs against.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Server {
    /// oidc-provider with the TypeScript SDK's MCP server (`oauth-fixture.mjs`).
    OidcProvider,
    /// The Python SDK's authorization server and MCP server (`oauth-fixture.py`).
    PythonSdk,
}

/// The fixture, running until dropped (its stdin closes).
struct Fixture {
    child: Child,
    info: Value,
}

impl Fixture {
    fn start(server: Server) -> Fixture {
        let mut cmd = match server {
            Server::OidcProvider => {
                let (node, _) = support::mcp_everything();
                assert!(
                    support::repo_root()
                        .join("scripts/mcp/node_modules/oidc-provider")
                        .exists(),
                    "oidc-provider is missing: run `bash scripts/setup-mcp.sh`"
                );
                let mut c = Command::new(node);
                c.arg(support::repo_root().join("scripts/mcp/oauth-fixture.mjs"));
                c
            }
            Server::PythonSdk => {
                let python = support::setup_mcp_path(
                    "MCP_SDK_PYTHON",
                    "mcp-sdk-python",
                    "the Python MCP SDK 2.3.0 (scripts/setup-mcp-python.sh)",
                );
                let mut c = Command::new(python);
                c.arg(support::repo_root().join("scripts/mcp/oauth-fixture.py"));
                c
            }
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the OAuth fixture");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the fixture's first line");
        let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!("the fixture did not start: {e}: {line:?}");
        });
        Fixture { child, info }
    }

    fn url(&self, key: &str) -> String {
        self.info[key].as_str().unwrap().to_owned()
    }

    fn control(&self, what: &str, post: bool) -> Value {
        let url = format!("{}/{what}", self.url("control"));
        serde_json::from_str(&http(if post { "POST" } else { "GET" }, &url)).unwrap()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.0 request (so the answer is not chunked) to a loopback URL; the body of
/// the answer.
fn http(method: &str, url: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    let mut s = std::net::TcpStream::connect((u.host_str().unwrap(), u.port().unwrap())).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let target = match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    };
    write!(
        s,
        "{method} {target} HTTP/1.0\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        u.host_str().unwrap()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(
        head.split(' ').nth(1) == Some("200"),
        "{method} {url}: {head}"
    );
    body.to_owned()
}

/// The options of a client of the fixture's MCP server: OAuth on, the fixture's headless
/// "browser" as the authorizer, tokens in `token_file`.
fn options(
    fx: &Fixture,
    token_file: &std::path::Path,
    codes: Arc<Mutex<Vec<String>>>,
) -> OptionsBuilder {
    let mut b = OptionsBuilder::new();
    b.set("transport", json!(fx.url("mcp"))).unwrap();
    b.set("oauth_redirect_uri", json!("http://127.0.0.1:1/callback"))
        .unwrap();
    b.set("oauth_token_file", json!(token_file)).unwrap();
    b.set("default_timeout", json!(30)).unwrap();
    b.set("connect_timeout", json!(30)).unwrap();
    b.set("trace_wire", json!(true)).unwrap();
    let browse = fx.url("browse");
    b.oauth_authorizer(Arc::new(move |auth_url: String| {
        let browse = browse.clone();
        let codes = codes.clone();
        async move {
            let target = format!(
                "{browse}?{}",
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("url", &auth_url)
                    .finish()
            );
            let redirect = tokio::task::spawn_blocking(move || http("GET", &target))
                .await
                .unwrap();
            let u = url::Url::parse(&redirect)
                .unwrap_or_else(|e| panic!("the browser step ended at {redirect:?}: {e}"));
            if let Some((_, code)) = u.query_pairs().find(|(k, _)| k == "code") {
                codes.lock().unwrap().push(code.into_owned());
            }
            Ok(redirect)
        }
    }));
    b
}

fn call(client: &Client, tool: &str, args: Value) -> String {
    futures_executor::block_on(
        codex_client::McpClient::from_connection(client).call_tool(tool, args),
    )
    .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"))
    .text()
}

/// Every log record of this binary (both tests), at TRACE.
fn logs() -> Arc<Mutex<Vec<LogRecord>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<LogRecord>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::<LogRecord>::new()));
        let l2 = logs.clone();
        forward_logs(tracing::Level::TRACE, move |r| l2.lock().unwrap().push(r)).unwrap();
        logs
    })
    .clone()
}

#[test]
fn oidc_provider_and_token_verifying_mcp_server() {
    the_real_flow(Server::OidcProvider);
}

/// The Python SDK's token endpoint identifies the client from the form only: the token
/// requests (code and refresh) carry `client_id` there beside `client_secret_basic`.
#[test]
fn python_sdk_authorization_server_and_mcp_server() {
    the_real_flow(Server::PythonSdk);
}

/// The flow against `server`'s fixture (see the file's comment).
fn the_real_flow(server: Server) {
    let logs = logs();
    let fx = Fixture::start(server);
    let dir = support::TempDir::new("oauth");
    let token_file = dir.0.join("tokens.json");
    let codes = Arc::new(Mutex::new(Vec::new()));

    let client = Client::new(options(&fx, &token_file, codes.clone()).build().unwrap());
    let events = Arc::new(Mutex::new(Vec::<AuthEvent>::new()));
    let e2 = events.clone();
    client
        .on_connection_event(move |ev| {
            if let ConnectionEvent::Auth(a) = ev {
                e2.lock().unwrap().push(a.clone());
            }
        })
        .unwrap();

    // 401 → discovery, registration, authorization code + PKCE through the browser step.
    client.connect().expect("connect after authorizing");
    let who: Value = serde_json::from_str(&call(&client, "whoami", json!({}))).unwrap();
    assert_eq!(who["sub"], "alice", "{who}");
    let stats = fx.control("stats", false);
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");

    // 403 insufficient_scope → step-up: authorized again with mcp:write, the call goes again
    // (the Python SDK's resource server has no per-tool scope, so no step-up there).
    let mut authorized = 1;
    if server == Server::OidcProvider {
        assert_eq!(
            call(&client, "write_note", json!({"text": "hi"})),
            "noted: hi"
        );
        authorized += 1;
        let stats = fx.control("stats", false);
        assert_eq!(stats["authorizations"], authorized, "step-up: {stats}");
        assert_eq!(stats["registrations"], 1, "not registered again: {stats}");
    }

    // The access token is revoked (oidc-provider) or expired (the Python SDK's) → 401
    // invalid_token → refreshed, no new authorization.
    assert!(
        fx.control("revoke-access", true)["revoked"]
            .as_u64()
            .unwrap()
            >= 1
    );
    let who: Value = serde_json::from_str(&call(&client, "whoami", json!({}))).unwrap();
    assert_eq!(who["sub"], "alice");
    let stats = fx.control("stats", false);
    assert!(
        stats["refreshes"].as_u64().unwrap() >= 1,
        "refreshed: {stats}"
    );
    assert_eq!(
        stats["authorizations"], authorized,
        "no new authorization: {stats}"
    );

    // The grant is revoked (refresh token too) → the refresh fails → authorized again.
    assert!(
        fx.control("revoke-grants", true)["revoked"]
            .as_u64()
            .unwrap()
            >= 1
    );
    let who: Value = serde_json::from_str(&call(&client, "whoami", json!({}))).unwrap();
    assert_eq!(who["sub"], "alice");
    let stats = fx.control("stats", false);
    authorized += 1;
    assert_eq!(
        stats["authorizations"], authorized,
        "authorized again: {stats}"
    );
    client.disconnect();

    let kinds: Vec<&str> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| e.kind_name())
        .collect();
    assert!(
        kinds.contains(&"started") && kinds.contains(&"succeeded"),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"refreshed"), "{kinds:?}");

    // The token file: owner-only, and a new client starts from it without the browser.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "token file mode {mode:o}");
    let second = Client::new(options(&fx, &token_file, codes.clone()).build().unwrap());
    second.connect().expect("connect with the stored token");
    let who: Value = serde_json::from_str(&call(&second, "whoami", json!({}))).unwrap();
    assert_eq!(who["sub"], "alice");
    second.disconnect();
    let stats = fx.control("stats", false);
    assert_eq!(
        stats["authorizations"], authorized,
        "the stored token was used: {stats}"
    );
    assert_eq!(
        stats["registrations"], 1,
        "the stored registration was used: {stats}"
    );

    // No secret the authorization server handed out appears in any log line.
    let secrets = fx.control("secrets", false);
    let mut all: Vec<String> = codes.lock().unwrap().clone();
    for k in ["accessTokens", "refreshTokens", "clientSecrets"] {
        all.extend(
            secrets[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned()),
        );
    }
    assert!(
        secrets["accessTokens"].as_array().unwrap().len() >= authorized as usize,
        "{secrets}"
    );
    assert!(
        !secrets["refreshTokens"].as_array().unwrap().is_empty(),
        "{secrets}"
    );
    let secrets: Vec<&str> = all.iter().map(String::as_str).collect();
    support::assert_no_secret_in_logs(&logs, |l| l.message.contains("whoami"), &secrets);
    let logs = logs.lock().unwrap();
    assert!(
        logs.iter().any(|l| l.message.contains("tools/call")),
        "the wire is traced"
    );
}
