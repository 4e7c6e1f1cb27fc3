//! MCP authorization end to end against a local fake (an MCP server and its authorization
//! server in one): a 401 runs discovery, dynamic registration, the authorization code flow
//! with PKCE through the authorize callback, and the request goes again with the token; a
//! revoked token is refreshed; the events say so; and at TRACE level with `trace_wire` no
//! token, refresh token, client secret, code or PKCE verifier appears in any log line. The
//! flow runs three ways: `client_secret_post` over plain http; `client_secret_basic` (with
//! `client_id` in the form too, as the Python SDK's token endpoint wants) over https through
//! stunnel with a private CA that wants a client certificate (the `tls_*` options reach
//! authorization's requests); and through the `mcp_proxy` proxy. Its own test binary: it
//! installs the process's log sink.

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codex_client::auth::{AuthEvent, OAuthConfig};
use codex_client::log::{forward_logs, LogRecord};
use codex_client::{Client, ClientOptions, ConnectionEvent, McpClient, McpHttp, TransportKind};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CODE: &str = "CODE-SECRET-4711";
const CLIENT_SECRET: &str = "CLIENT-SECRET-0815";
/// A code the fake never issued (its token endpoint answers `invalid_grant`).
const WRONG_CODE: &str = "WRONG-CODE-SECRET-1234";

#[derive(Default)]
struct Fake {
    base: String,
    /// The access token the MCP server accepts now.
    valid: Option<String>,
    issued: u32,
    refresh: Option<String>,
    verifiers: Vec<String>,
    challenge: Option<String>,
    token_forms: Vec<HashMap<String, String>>,
    registered: u32,
    /// `client_secret_basic` (with `client_id` in the form too), else `client_secret_post`.
    basic: bool,
    /// The auth method the client asked for at registration.
    asked_method: Option<String>,
    /// Requests that came in absolute form (through a proxy).
    proxied: Vec<String>,
    /// The port it listens on.
    port: u16,
}

struct Req {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

async fn read_req(s: &mut tokio::net::TcpStream) -> Option<Req> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Req {
        method,
        path,
        headers,
        body,
    })
}

fn reply(status: u16, headers: &[(&str, String)], body: &str) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(body);
    out.into_bytes()
}

fn json_reply(status: u16, v: Value) -> Vec<u8> {
    reply(
        status,
        &[("Content-Type", "application/json".into())],
        &v.to_string(),
    )
}

fn form(body: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn handle(fake: &Mutex<Fake>, r: Req) -> Vec<u8> {
    let mut f = fake.lock().unwrap();
    let base = f.base.clone();
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => json_reply(
            200,
            json!({
                "resource": format!("{base}/mcp"),
                "authorization_servers": [base],
                "scopes_supported": ["files:read", "files:write"],
            }),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => json_reply(
            200,
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": if f.basic { json!(["client_secret_post", "client_secret_basic"]) } else { json!(["client_secret_post"]) },
                "authorization_response_iss_parameter_supported": true,
                "scopes_supported": ["files:read", "files:write", "offline_access"],
            }),
        ),
        ("POST", "/register") => {
            f.registered += 1;
            let asked: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            f.asked_method = asked["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_owned);
            json_reply(
                201,
                json!({
                    "client_id": "client-1",
                    "client_secret": CLIENT_SECRET,
                    "token_endpoint_auth_method": if f.basic { "client_secret_basic" } else { "client_secret_post" },
                }),
            )
        }
        ("POST", "/token") => {
            let p = form(&r.body);
            f.token_forms.push(p.clone());
            // As the Python SDK's token endpoint: the client is looked up by the form's
            // `client_id`, then authenticated by its registered method.
            let authed = p.get("client_id").map(String::as_str) == Some("client-1")
                && if f.basic {
                    r.headers.get("authorization") == Some(&basic("client-1", CLIENT_SECRET))
                        && !p.contains_key("client_secret")
                } else {
                    p.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET)
                };
            if !authed {
                return json_reply(
                    401,
                    json!({"error": "invalid_client", "error_description": "Missing client_id"}),
                );
            }
            let ok = match p.get("grant_type").map(String::as_str) {
                Some("authorization_code") => {
                    let v = p.get("code_verifier").cloned().unwrap_or_default();
                    f.verifiers.push(v.clone());
                    p.get("code").map(String::as_str) == Some(CODE)
                        && f.challenge.as_deref() == Some(s256(&v).as_str())
                }
                Some("refresh_token") => p.get("refresh_token") == f.refresh.as_ref(),
                _ => false,
            };
            if !ok {
                return json_reply(400, json!({"error": "invalid_grant"}));
            }
            f.issued += 1;
            let at = format!("AT-SECRET-{}", f.issued);
            let rt = format!("RT-SECRET-{}", f.issued);
            f.valid = Some(at.clone());
            f.refresh = Some(rt.clone());
            json_reply(
                200,
                json!({"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": 3600, "scope": "files:read offline_access"}),
            )
        }
        ("POST", "/mcp") => {
            let auth = r.headers.get("authorization").cloned().unwrap_or_default();
            let ok = f
                .valid
                .as_ref()
                .is_some_and(|t| auth == format!("Bearer {t}"));
            if !ok {
                let err = if auth.is_empty() {
                    ""
                } else {
                    "error=\"invalid_token\", "
                };
                let h = format!("Bearer {err}resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", scope=\"files:read\"");
                return reply(401, &[("WWW-Authenticate", h)], "");
            }
            let msg: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let id = msg.get("id").cloned();
            let Some(id) = id else {
                return reply(202, &[], "");
            };
            let result = match msg["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "auth-fake", "version": "1"},
                }),
                Some("tools/list") => {
                    json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
                }
                _ => json!({}),
            };
            json_reply(200, json!({"jsonrpc": "2.0", "id": id, "result": result}))
        }
        ("GET", "/mcp") => reply(405, &[], ""),
        ("DELETE", "/mcp") => reply(405, &[], ""),
        _ => reply(404, &[], ""),
    }
}

fn basic(id: &str, secret: &str) -> String {
    use base64::Engine;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
    )
}

fn s256(v: &str) -> String {
    use base64::Engine;
    let d = ring::digest::digest(&ring::digest::SHA256, v.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(d.as_ref())
}

/// Start the fake on a loopback port, on its own thread and runtime; its port. `base`: the
/// origin the clients use (`None`: `http://127.0.0.1:<its port>`), which a request in
/// absolute form (through a proxy) names.
fn start_fake_at(base: Option<String>, basic: bool) -> (Arc<Mutex<Fake>>, u16) {
    let std_l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_l.set_nonblocking(true).unwrap();
    let port = std_l.local_addr().unwrap().port();
    let base = base.unwrap_or_else(|| format!("http://127.0.0.1:{port}"));
    let fake = Arc::new(Mutex::new(Fake {
        base,
        basic,
        port,
        ..Default::default()
    }));
    let f2 = fake.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(std_l).unwrap();
            loop {
                let Ok((mut s, _)) = l.accept().await else {
                    return;
                };
                let f = f2.clone();
                tokio::spawn(async move {
                    if let Some(mut r) = read_req(&mut s).await {
                        let base = f.lock().unwrap().base.clone();
                        if let Some(path) = r.path.strip_prefix(&base) {
                            let line = format!("{} {}", r.method, r.path);
                            f.lock().unwrap().proxied.push(line);
                            r.path = path.to_owned();
                        }
                        let out = handle(&f, r);
                        let _ = s.write_all(&out).await;
                    }
                });
            }
        });
    });
    (fake, port)
}

/// The fake on plain http, `client_secret_post`.
fn start_fake() -> Arc<Mutex<Fake>> {
    start_fake_at(None, false).0
}

/// How the flow reaches the fake.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Way {
    /// Plain http, `client_secret_post`.
    Plain,
    /// https through stunnel with a private CA that wants a client certificate (the `tls_*`
    /// options), `client_secret_basic` with `client_id` in the form too.
    Tls,
    /// Through the `mcp_proxy` proxy (the fake answers requests in absolute form; its origin
    /// in the URLs is a closed port), `client_secret_basic`.
    Proxy,
}

#[test]
fn full_flow_refresh_events_and_no_secret_in_any_log_line() {
    let all_logs = Arc::new(Mutex::new(Vec::<LogRecord>::new()));
    let l2 = all_logs.clone();
    forward_logs(tracing::Level::TRACE, move |r| l2.lock().unwrap().push(r)).unwrap();
    for way in [Way::Plain, Way::Tls, Way::Proxy] {
        full_flow(way, &all_logs);
    }
}

/// The flow one `way`, then no secret in any log line so far.
fn full_flow(way: Way, all_logs: &Arc<Mutex<Vec<LogRecord>>>) {
    use support::tls::{ca, free_port, leaf, Stunnel};
    let dir = support::TempDir::new("oauth-tls");
    let mut tunnel = None;
    let (fake, tls) = match way {
        Way::Plain => (start_fake(), None),
        Way::Tls => {
            let public = free_port();
            let (fake, port) = start_fake_at(Some(format!("https://localhost:{public}")), true);
            let test_ca = ca("oauth");
            let ca_file = dir.path().join("ca.pem");
            std::fs::write(&ca_file, test_ca.cert.pem()).unwrap();
            let (cert, key) = leaf(dir.path(), "server", &test_ca, "localhost", false);
            let (client_c, client_k) = leaf(dir.path(), "client", &test_ca, "codex-client", false);
            tunnel = Some(Stunnel::start(
                dir.path(),
                port,
                &[(public, &cert, &key, Some(&ca_file))],
            ));
            (fake, Some((ca_file, client_c, client_k)))
        }
        Way::Proxy => (
            start_fake_at(Some("http://127.0.0.1:1".into()), true).0,
            None,
        ),
    };
    let base = fake.lock().unwrap().base.clone();

    let f3 = fake.clone();
    let cfg = OAuthConfig::new()
        .redirect_uri("http://127.0.0.1:1/callback")
        .authorizer(move |auth_url: String| {
            // The "browser": the user agrees; the server redirects with code, state and iss.
            let u = url::Url::parse(&auth_url).unwrap();
            let q: HashMap<String, String> = u.query_pairs().into_owned().collect();
            f3.lock().unwrap().challenge = q.get("code_challenge").cloned();
            let base = f3.lock().unwrap().base.clone();
            let mut r = url::Url::parse(&q["redirect_uri"]).unwrap();
            r.query_pairs_mut()
                .append_pair("code", CODE)
                .append_pair("state", &q["state"])
                .append_pair("iss", &base);
            let scope = q.get("scope").cloned().unwrap_or_default();
            let resource = q.get("resource").cloned().unwrap_or_default();
            let method = q.get("code_challenge_method").cloned().unwrap_or_default();
            async move {
                assert_eq!(scope, "files:read offline_access");
                assert!(resource.ends_with("/mcp"), "{resource}");
                assert_eq!(method, "S256");
                Ok(r.to_string())
            }
        });
    let mut opts = ClientOptions::default()
        .transport(TransportKind::McpHttp(
            McpHttp::new(format!("{base}/mcp")).oauth(cfg),
        ))
        .default_timeout(Duration::from_secs(20));
    if let Some((ca_file, c, k)) = &tls {
        opts = opts.tls_ca_file(ca_file).tls_client_cert(c, k);
    }
    if way == Way::Proxy {
        opts = opts.mcp_proxy(format!("http://127.0.0.1:{}", proxy_port(&fake)));
    }
    let client = McpClient::new(opts.trace_wire(true));
    let events = Arc::new(Mutex::new(Vec::<AuthEvent>::new()));
    let e2 = events.clone();
    client
        .on_connection_event(move |ev| {
            if let ConnectionEvent::Auth(a) = ev {
                e2.lock().unwrap().push(a.clone());
            }
        })
        .unwrap();
    client
        .connect()
        .unwrap_or_else(|e| panic!("connect after authorizing ({way:?}): {e}"));
    let tools = futures_executor::block_on(client.list_all_tools()).unwrap();
    assert_eq!(tools.len(), 1);
    {
        let f = fake.lock().unwrap();
        assert_eq!(f.registered, 1);
        assert_eq!(f.issued, 1);
        let code_form = &f.token_forms[0];
        assert_eq!(code_form["grant_type"], "authorization_code");
        assert_eq!(code_form["resource"], format!("{base}/mcp"));
        assert_eq!(code_form["redirect_uri"], "http://127.0.0.1:1/callback");
        assert_eq!(code_form["client_id"], "client-1");
        let asked = if way == Way::Plain {
            "client_secret_post"
        } else {
            "client_secret_basic"
        };
        assert_eq!(f.asked_method.as_deref(), Some(asked));
    }
    // The server revokes the token: the next request is refused with invalid_token, the
    // client refreshes (same issuer) and sends it again.
    fake.lock().unwrap().valid = Some("revoked".into());
    let tools = futures_executor::block_on(client.list_all_tools()).unwrap();
    assert_eq!(tools.len(), 1);
    {
        let f = fake.lock().unwrap();
        assert_eq!(f.issued, 2);
        let refresh_form = f.token_forms.last().unwrap();
        assert_eq!(refresh_form["grant_type"], "refresh_token");
        assert_eq!(refresh_form["refresh_token"], "RT-SECRET-1");
        assert_eq!(refresh_form["resource"], format!("{base}/mcp"));
        assert_eq!(refresh_form["client_id"], "client-1", "the id in the form");
        assert_eq!(f.registered, 1, "not registered again");
        if way == Way::Proxy {
            // Discovery, registration and both token requests went through the proxy.
            for want in [
                "GET http://127.0.0.1:1/.well-known/oauth-authorization-server",
                "POST http://127.0.0.1:1/register",
                "POST http://127.0.0.1:1/token",
            ] {
                assert!(
                    f.proxied.iter().any(|l| l == want),
                    "{want}: {:?}",
                    f.proxied
                );
            }
        }
    }
    // Connection events reach their handler on the delivery thread: wait for the third.
    support::wait_until(Duration::from_secs(10), || {
        events.lock().unwrap().len() >= 3
    });
    client.disconnect();

    let kinds: Vec<&str> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| e.kind_name())
        .collect();
    assert_eq!(
        kinds,
        ["started", "succeeded", "refreshed"],
        "{:?}",
        events.lock().unwrap()
    );

    let verifier = fake.lock().unwrap().verifiers[0].clone();
    assert_eq!(verifier.len(), 43);

    // A token request the server refuses (a code it never issued): the error names no secret.
    let refused = {
        let issuer = base.clone();
        let cfg = OAuthConfig::new()
            .redirect_uri("http://127.0.0.1:1/callback")
            .authorizer(move |auth_url: String| {
                let u = url::Url::parse(&auth_url).unwrap();
                let q: HashMap<String, String> = u.query_pairs().into_owned().collect();
                let mut r = url::Url::parse(&q["redirect_uri"]).unwrap();
                r.query_pairs_mut()
                    .append_pair("code", WRONG_CODE)
                    .append_pair("state", &q["state"])
                    .append_pair("iss", &issuer);
                async move { Ok(r.to_string()) }
            });
        let mut o = ClientOptions::default()
            .transport(TransportKind::McpHttp(
                McpHttp::new(format!("{base}/mcp")).oauth(cfg),
            ))
            .default_timeout(Duration::from_secs(20));
        if let Some((ca_file, c, k)) = &tls {
            o = o.tls_ca_file(ca_file).tls_client_cert(c, k);
        }
        if way == Way::Proxy {
            o = o.mcp_proxy(format!("http://127.0.0.1:{}", proxy_port(&fake)));
        }
        let c = Client::new(o.trace_wire(true));
        let e = c.connect().expect_err("a refused code fails the connect");
        c.disconnect();
        e.to_string()
    };
    assert!(refused.contains("invalid_grant"), "{refused}");
    let bad_verifier = fake.lock().unwrap().verifiers.last().unwrap().clone();
    for s in [
        WRONG_CODE,
        CLIENT_SECRET,
        bad_verifier.as_str(),
        &basic("client-1", CLIENT_SECRET)[6..],
    ] {
        assert!(!refused.contains(s), "a secret in the error: {refused}");
    }
    let secrets = [
        "AT-SECRET-1",
        "AT-SECRET-2",
        "RT-SECRET-1",
        "RT-SECRET-2",
        CLIENT_SECRET,
        CODE,
        WRONG_CODE,
        verifier.as_str(),
        bad_verifier.as_str(),
        // The Basic credentials as they go on the wire.
        &basic("client-1", CLIENT_SECRET)[6..],
    ];
    let checked = support::assert_no_secret_in_logs(
        all_logs,
        |l| l.message.contains("token refreshed"),
        &secrets,
    );
    assert!(checked > 0);
    let logs = all_logs.lock().unwrap();
    assert!(
        logs.iter().any(|l| l.message.contains("authorized by")),
        "auth is logged"
    );
    assert!(
        logs.iter()
            .any(|l| l.message.contains("\"tools/list\"") || l.message.contains("tools/list")),
        "the wire is traced"
    );
    drop(logs);
    drop(tunnel.take());
}

/// The fake's own port, for the proxy way (the fake is the proxy).
fn proxy_port(fake: &Arc<Mutex<Fake>>) -> u16 {
    fake.lock().unwrap().port
}

/// The `oauth*` options make the transport's OAuth configuration; the secret reads back
/// redacted; they need an MCP HTTP transport.
#[test]
fn oauth_options_configure_the_http_transport() {
    use codex_client::OptionsBuilder;
    let mut b = OptionsBuilder::new();
    b.set("transport", json!("https://mcp.example.com/mcp"))
        .unwrap();
    b.set("oauth_client_id", json!("my-client")).unwrap();
    b.set("oauth_client_secret", json!("S3CRET-VALUE")).unwrap();
    b.set("oauth_scopes", json!(["a", "b"])).unwrap();
    b.add("oauth_scopes", json!("c")).unwrap();
    b.set("oauth_redirect_uri", json!("http://127.0.0.1:7/cb"))
        .unwrap();
    assert_eq!(b.get("oauth_client_secret").unwrap(), json!("<redacted>"));
    let o = b.build().unwrap();
    let TransportKind::McpHttp(h) = o.get_transport() else {
        panic!("{:?}", o.get_transport())
    };
    let c = h.oauth.as_ref().expect("oauth configured");
    assert_eq!(c.client_id.as_deref(), Some("my-client"));
    assert_eq!(c.client_secret.as_ref().unwrap().expose(), "S3CRET-VALUE");
    assert_eq!(c.scopes.as_deref().unwrap(), ["a", "b", "c"]);
    assert!(!format!("{o:?}").contains("S3CRET-VALUE"));
    let mut b = OptionsBuilder::new();
    b.set("oauth", json!(true)).unwrap();
    let err = b.build().unwrap_err().to_string();
    assert!(err.contains("oauth"), "{err}");
    let mut b = OptionsBuilder::new();
    b.set("transport", json!("http://127.0.0.1:9/mcp")).unwrap();
    let o = b.build().unwrap();
    let TransportKind::McpHttp(h) = o.get_transport() else {
        panic!()
    };
    assert!(h.oauth.is_none(), "off unless asked for");
}

#[test]
fn a_refused_browser_step_fails_the_connect_once_in_auto_mode() {
    // The default era mode probes `server/discover`; a 401 it cannot get past is the
    // answer `initialize` would get too, so the user is not asked a second time.
    let fake = start_fake();
    let base = fake.lock().unwrap().base.clone();
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let a2 = asked.clone();
    let cfg = OAuthConfig::new()
        .redirect_uri("http://127.0.0.1:1/callback")
        .authorizer(move |_url: String| {
            a2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async {
                Err(codex_client::Error::Cancelled(
                    "the user closed the browser".into(),
                ))
            }
        });
    let client = McpClient::new(
        ClientOptions::default()
            .transport(TransportKind::McpHttp(
                McpHttp::new(format!("{base}/mcp")).oauth(cfg),
            ))
            .default_timeout(Duration::from_secs(20)),
    );
    let err = client.connect().unwrap_err().to_string();
    assert!(err.contains("401"), "{err}");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1, "{err}");
}

/// The grants by name (`oauth_grant` and the options that go with it), as C and Python set
/// them: each makes the configuration its Rust type makes, the secrets read back redacted and
/// stay out of `Debug`, and options that do not go together are refused at build, named.
#[test]
fn grant_options_by_name() {
    use codex_client::OptionsBuilder;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let http = |pairs: &[(&str, Value)]| {
        let mut b = OptionsBuilder::new();
        b.set("transport", json!("https://mcp.example.com/mcp"))
            .unwrap();
        for (k, v) in pairs {
            b.set(k, v.clone()).unwrap();
        }
        b
    };
    let config = |b: &OptionsBuilder| -> Result<OAuthConfig, String> {
        let o = b.build().map_err(|e| e.to_string())?;
        let TransportKind::McpHttp(h) = o.get_transport().clone() else {
            panic!("http transport")
        };
        Ok(h.oauth.expect("oauth configured"))
    };
    let grant = |c: &OAuthConfig| c.grant.as_ref().map(|g| g.name().to_owned());

    // The default grant is the browser's; DPoP and the browser step's bound by name.
    let b = http(&[
        ("oauth_dpop", json!(true)),
        ("oauth_authorize_timeout", json!(2.5)),
    ]);
    let c = config(&b).unwrap();
    assert_eq!(grant(&c), None);
    assert!(c.dpop.is_some());
    assert_eq!(c.authorize_timeout, Duration::from_millis(2500));
    assert_eq!(b.get("oauth_grant").unwrap(), json!("authorization_code"));
    let c = config(&http(&[("oauth", json!(true))])).unwrap();
    assert_eq!(
        c.authorize_timeout,
        codex_client::auth::DEFAULT_AUTHORIZE_TIMEOUT
    );
    assert!(c.dpop.is_none());

    // Client credentials with a secret, or with private_key_jwt from a PEM file or text.
    let c = config(&http(&[
        ("oauth_grant", json!("client_credentials")),
        ("oauth_client_id", json!("svc")),
        ("oauth_client_secret", json!("S3CRET-CC")),
    ]))
    .unwrap();
    assert_eq!(grant(&c).as_deref(), Some("client_credentials"));
    assert!(c.assertion_signer.is_none());
    let pem = std::fs::read_to_string(data.join("ec-p256.pem")).unwrap();
    for key in [
        ("oauth_private_key_file", json!(data.join("ec-p256.pem"))),
        ("oauth_private_key", json!(pem)),
    ] {
        let b = http(&[
            ("oauth_grant", json!("client_credentials")),
            ("oauth_client_id", json!("svc")),
            key.clone(),
        ]);
        let c = config(&b).unwrap();
        assert!(c.assertion_signer.is_some(), "{}", key.0);
        assert!(!format!("{b:?} {c:?}").contains(pem.lines().nth(1).unwrap()));
    }
    assert_eq!(
        http(&[("oauth_private_key", json!(pem))])
            .get("oauth_private_key")
            .unwrap(),
        json!("<redacted>")
    );

    // The JWT bearer grant: the assertion as text (redacted) or a file read per request.
    let b = http(&[
        ("oauth_grant", json!("jwt_bearer")),
        ("oauth_client_id", json!("wl")),
        ("oauth_assertion", json!("eyJ.ASSERTION-SECRET.sig")),
    ]);
    assert_eq!(b.get("oauth_assertion").unwrap(), json!("<redacted>"));
    let c = config(&b).unwrap();
    assert_eq!(grant(&c).as_deref(), Some("jwt-bearer"));
    assert!(!format!("{b:?} {c:?}").contains("ASSERTION-SECRET"));
    let c = config(&http(&[
        ("oauth_grant", json!("jwt_bearer")),
        ("oauth_client_id", json!("wl")),
        ("oauth_assertion_file", json!("/var/run/secrets/token")),
    ]))
    .unwrap();
    assert_eq!(grant(&c).as_deref(), Some("jwt-bearer"));

    // Enterprise-managed: the ID token and the IdP.
    let c = config(&http(&[
        ("oauth_grant", json!("enterprise_managed")),
        ("oauth_client_id", json!("app")),
        ("oauth_client_secret", json!("s")),
        ("oauth_assertion", json!("id.token.jwt")),
        (
            "oauth_idp_token_endpoint",
            json!("https://idp.example/token"),
        ),
        ("oauth_idp_client_id", json!("app-at-idp")),
        ("oauth_idp_client_secret", json!("IDP-SECRET")),
    ]))
    .unwrap();
    assert!(grant(&c).unwrap().starts_with("enterprise-managed"));
    assert!(!format!("{c:?}").contains("IDP-SECRET"));

    // What does not go together is refused at build, naming what is missing or extra.
    for (pairs, says) in [
        (
            vec![
                ("oauth_grant", json!("client_credentials")),
                ("oauth_client_id", json!("x")),
            ],
            "oauth_client_secret",
        ),
        (
            vec![
                ("oauth_grant", json!("jwt_bearer")),
                ("oauth_client_id", json!("x")),
            ],
            "oauth_assertion",
        ),
        (
            vec![
                ("oauth_grant", json!("jwt_bearer")),
                ("oauth_assertion", json!("a")),
            ],
            "oauth_client_id",
        ),
        (vec![("oauth_assertion", json!("a"))], "jwt_bearer"),
        (
            vec![
                ("oauth_grant", json!("enterprise_managed")),
                ("oauth_client_id", json!("x")),
                ("oauth_assertion", json!("a")),
            ],
            "oauth_idp_token_endpoint",
        ),
        (
            vec![("oauth_idp_client_id", json!("x"))],
            "enterprise_managed",
        ),
        (vec![("oauth_private_key", json!(pem))], "oauth_client_id"),
        (
            vec![
                ("oauth_client_id", json!("x")),
                ("oauth_client_secret", json!("s")),
                ("oauth_private_key", json!(pem)),
            ],
            "set one",
        ),
        (
            vec![
                ("oauth_client_id", json!("x")),
                ("oauth_private_key", json!("not a key")),
            ],
            "client assertion key",
        ),
        (
            vec![
                ("oauth_client_id", json!("x")),
                ("oauth_private_key_file", json!(data.join("missing.pem"))),
            ],
            "missing.pem",
        ),
    ] {
        let err = config(&http(&pairs)).unwrap_err();
        assert!(err.contains(says), "{pairs:?}: {err}");
        assert!(!err.contains("not a key"), "{err}");
    }
    let mut b = OptionsBuilder::new();
    assert!(b
        .set("oauth_grant", json!("password"))
        .unwrap_err()
        .to_string()
        .contains("client_credentials"));
}
