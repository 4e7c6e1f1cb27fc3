//! Codex's second WebSocket auth mode, `--ws-auth signed-bearer-token`, against the real
//! `codex app-server --listen ws://127.0.0.1:PORT` (0.171.0) and the mock model: the library
//! mints an HS256 JWT from the shared-secret file for every connect and every reconnect; a
//! wrong secret is refused with the server's 401; the options are checked when they are
//! built; neither the secret nor any token minted reaches `CODEXCLIENT_LOG=trace` output.

mod support;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use codex_client::{
    Client, ClientOptions, CodexClient, ConnectionEvent, Delivery, Error, Event, OptionsBuilder,
    ReconnectPolicy, SignedBearerToken, VersionSource,
};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::proxy::CutProxy;
use support::*;

const ISSUER: &str = "codex-client-tests";
const AUDIENCE: &str = "codex-app-server";

/// A fresh random secret of 64 hex characters (as Codex wants it: UTF-8 text, ≥ 32 bytes) in
/// `dir/name`, mode 0600; the secret and its file.
fn secret_file(dir: &Path, name: &str) -> (String, PathBuf) {
    let secret: String = (0..64)
        .map(|_| char::from_digit(fastrand::u32(0..16), 16).unwrap())
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    (secret, path)
}

/// `codex app-server --ws-auth signed-bearer-token` with the secret in `file`, issuer and
/// audience checked; `extra` appended.
fn signed_server(env: &RealEnv, file: &Path, extra: &[&str]) -> ListeningServer {
    let mut args = vec![
        "--ws-auth",
        "signed-bearer-token",
        "--ws-shared-secret-file",
        file.to_str().unwrap(),
        "--ws-issuer",
        ISSUER,
        "--ws-audience",
        AUDIENCE,
    ];
    args.extend_from_slice(extra);
    ListeningServer::start(env, "ws://127.0.0.1:0", &args, None)
}

fn signed(file: &Path) -> SignedBearerToken {
    SignedBearerToken::new(file)
        .issuer(ISSUER)
        .audience(AUDIENCE)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The bearer token of an HTTP request head (`Authorization: Bearer …`).
fn bearer(head: &[u8]) -> String {
    let text = String::from_utf8_lossy(head);
    text.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("authorization")
                .then(|| value.trim().strip_prefix("Bearer ").map(str::to_owned))?
        })
        .unwrap_or_else(|| panic!("no bearer token in {text}"))
}

/// A token's claims, after checking its HS256 signature with `secret`.
fn verified_claims(token: &str, secret: &str) -> Value {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a compact JWS");
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
    assert_eq!(header, json!({"alg": "HS256", "typ": "JWT"}));
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    ring::hmac::verify(&key, format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
        .expect("signed with the shared secret");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap()
}

/// A raw WebSocket upgrade to `addr` with `token`: the status line and the body of the answer.
fn raw_upgrade(addr: &str, token: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Authorization: Bearer {token}\r\n\r\n"
    )
    .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
    let status = text.lines().next().unwrap_or_default().to_owned();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).trim();
    format!("{status} | {body}")
}

#[test]
fn signed_bearer_token_runs_a_turn_and_a_wrong_secret_is_refused_with_401() {
    let env = RealEnv::new();
    let (secret, file) = secret_file(env.home.path(), "ws-secret");
    let server = signed_server(&env, &file, &[]);
    let url = server.url.clone().unwrap();

    // By name, as the bindings set it.
    let mut b = OptionsBuilder::new();
    b.set("transport", json!(url)).unwrap();
    b.set("ws_auth", json!("signed-bearer-token")).unwrap();
    b.set("ws_shared_secret_file", json!(file)).unwrap();
    b.set("ws_issuer", json!(ISSUER)).unwrap();
    b.set("ws_audience", json!(AUDIENCE)).unwrap();
    b.set("codex_home", json!(env.home.path())).unwrap();
    assert_eq!(b.get("ws_token_lifetime").unwrap(), json!(300.0));
    let opts = b.build().unwrap();
    assert!(!format!("{opts:?}").contains(&secret));
    let c = CodexClient::new(opts);
    let init = c.connect().unwrap();
    assert!(init.user_agent.unwrap().contains(codex_version()));
    let v = c.server_version().unwrap();
    assert_eq!(
        (v.source, v.cli_version.as_deref()),
        (Some(VersionSource::Remote), None)
    );
    let r = c
        .thread_start(json!({}))
        .unwrap()
        .run("MOCK_TEXT: signed and accepted")
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("signed and accepted"));
    c.disconnect();

    // A token signed with another secret: the server's 401, named, no secret in the error.
    let (other, other_file) = secret_file(env.home.path(), "other-secret");
    let c = CodexClient::new(
        env.options()
            .websocket(&url, None)
            .signed_bearer_token(signed(&other_file)),
    );
    match c.connect() {
        Err(Error::Transport(m)) => {
            assert!(m.contains("HTTP 401"), "{m}");
            assert!(!m.contains(&secret) && !m.contains(&other), "{m}");
        }
        other => panic!("expected the server's 401, got {other:?}"),
    }
    assert!(!c.is_connected());
    // The right secret with another audience: 401 again, with the server's reason.
    let c = CodexClient::new(
        env.options()
            .websocket(&url, None)
            .signed_bearer_token(signed(&file).audience("someone-else")),
    );
    match c.connect() {
        Err(Error::Transport(m)) => {
            assert!(
                m.contains("HTTP 401") && m.contains("audience mismatch"),
                "{m}"
            )
        }
        other => panic!("expected the server's 401, got {other:?}"),
    }
}

/// Until `pred` matches an event of `c` (60 s at most).
fn until(c: &Client, mut pred: impl FnMut(&Event) -> bool) {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "the event never came");
        match c.next_event(Some(left)) {
            Ok(Some(ev)) if pred(&ev) => return,
            Ok(_) => {}
            Err(e) => panic!("connection ended: {e}"),
        }
    }
}

/// Connect through a relay with tokens of `lifetime`, run a turn, wait until the first token
/// expired, cut the relay: the client reconnects with a new token the server accepts, and a
/// second turn runs on the resumed thread. Returns the tokens the two upgrades carried.
fn reconnect_after_expiry(env: &RealEnv, secret: &str, file: &Path) -> Vec<String> {
    // No clock skew allowed: an expired token is refused at once.
    let server = signed_server(env, file, &["--ws-max-clock-skew-seconds", "0"]);
    let target = server.url.clone().unwrap();
    let target = target.trim_start_matches("ws://");
    let proxy = CutProxy::start(target);
    let c = CodexClient::new(
        env.options()
            .websocket(format!("ws://{}", proxy.addr), None)
            .signed_bearer_token(signed(file).lifetime(Duration::from_secs(2)))
            .reconnect(Some(ReconnectPolicy::new(
                5,
                Duration::from_millis(50),
                Duration::from_millis(500),
            )))
            .delivery(Delivery::Poll),
    );
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread.run("MOCK_TEXT: before the cut").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("before the cut"));

    let first = bearer(&proxy.heads.lock().unwrap()[0]);
    let claims = verified_claims(&first, secret);
    assert_eq!(
        (claims["iss"].as_str(), claims["aud"].as_str()),
        (Some(ISSUER), Some(AUDIENCE))
    );
    let exp = claims["exp"].as_u64().unwrap();
    assert_eq!(exp, claims["iat"].as_u64().unwrap() + 2);
    // The first token's lifetime passes (the clock, bounded): the server refuses it now.
    assert!(wait_until(Duration::from_secs(10), || now_secs() > exp));
    let refused = raw_upgrade(target, &first);
    assert!(
        refused.contains("401") && refused.contains("expired"),
        "{refused}"
    );

    proxy.cut();
    until(
        c.connection(),
        |ev| matches!(ev, Event::Connection(ConnectionEvent::Reconnected(r)) if r.threads == [thread.id()]),
    );
    let r = thread.run("MOCK_TEXT: after the reconnect").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("after the reconnect"));

    let heads = proxy.heads.lock().unwrap().clone();
    assert_eq!(heads.len(), 2, "one upgrade per connection");
    let second = bearer(&heads[1]);
    assert_ne!(second, first, "the reconnect minted a new token");
    let claims = verified_claims(&second, secret);
    assert!(
        claims["iat"].as_u64().unwrap() > exp,
        "minted after the first one expired: {claims}"
    );
    assert_ne!(claims["jti"], verified_claims(&first, secret)["jti"]);
    c.disconnect();
    vec![first, second]
}

#[test]
fn a_reconnect_after_the_token_expired_carries_a_fresh_token_the_server_accepts() {
    let env = RealEnv::new();
    let (secret, file) = secret_file(env.home.path(), "ws-secret");
    reconnect_after_expiry(&env, &secret, &file);
}

/// `CODEXCLIENT_LOG=trace` output of a whole connect, turn and reconnect (and a refused
/// connect) holds the trace lines, and not the secret or any token minted. The scenario runs
/// in a child process of this test, started with the variable set as a user would, its log
/// records printed to its stdout, the tokens its upgrades carried written to a file.
#[test]
fn the_secret_and_the_tokens_never_reach_the_trace_log() {
    const CHILD: &str = "WS_SIGNED_BEARER_TRACE_CHILD";
    if let Some(out) = std::env::var_os(CHILD) {
        let out = PathBuf::from(out);
        let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let p = printed.clone();
        codex_client::log::forward_logs(tracing::Level::INFO, move |r| {
            p.lock()
                .unwrap()
                .push(format!("LOG {} {} {}", r.level, r.target, r.message));
        })
        .unwrap();
        let env = RealEnv::new();
        let secret = std::fs::read_to_string(out.join("secret")).unwrap();
        let file = out.join("secret");
        let tokens = reconnect_after_expiry(&env, secret.trim(), &file);
        // A refused connect too: its error and the options' Debug go to the output.
        let (_, wrong) = secret_file(&out, "wrong");
        let server = signed_server(&env, &file, &[]);
        let opts = env
            .options()
            .websocket(server.url.clone().unwrap(), None)
            .signed_bearer_token(signed(&wrong));
        println!("OPTIONS {opts:?}");
        let c = CodexClient::new(opts);
        let e = c.connect().unwrap_err();
        println!("ERROR {e} / {e:?}");
        // The sink runs on its own thread, in order: once this record is there, all are.
        tracing::info!("trace child done");
        assert!(wait_until(Duration::from_secs(10), || printed
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.ends_with("trace child done"))));
        for line in printed.lock().unwrap().iter() {
            println!("{line}");
        }
        std::fs::write(out.join("tokens"), tokens.join("\n")).unwrap();
        return;
    }
    let dir = TempDir::new("ws-trace");
    let (secret, _) = secret_file(dir.path(), "secret");
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_secret_and_the_tokens_never_reach_the_trace_log",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, dir.path())
        .env("CODEXCLIENT_LOG", "trace")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "child failed:\n{stdout}\n{stderr}");
    let tokens = std::fs::read_to_string(dir.path().join("tokens")).unwrap();
    let tokens: Vec<&str> = tokens.lines().filter(|t| !t.is_empty()).collect();
    assert_eq!(tokens.len(), 2);
    // The trace was on: every raw line of the connection went to the log.
    let wire = stdout
        .lines()
        .filter(|l| l.starts_with("LOG TRACE codex_client::wire"))
        .count();
    assert!(wire > 20, "{wire} wire lines:\n{stdout}");
    assert!(
        stdout.contains("turn/start") && stdout.contains("ERROR "),
        "{stdout}"
    );
    let all = format!("{stdout}\n{stderr}");
    assert!(!all.contains(&secret), "the secret is in the output");
    for t in &tokens {
        let signature = t.rsplit('.').next().unwrap();
        assert!(!all.contains(t), "a token is in the output");
        assert!(
            !all.contains(signature),
            "a token's signature is in the output"
        );
    }
}

/// The signed mode's options are checked when they are built (option time), each refusal
/// naming what is wrong and never the secret.
#[test]
fn signed_mode_options_are_checked_when_built() {
    let dir = TempDir::new("ws-options");
    let (secret, good) = secret_file(dir.path(), "good");
    let build = |pairs: &[(&str, Value)]| {
        let mut b = OptionsBuilder::new();
        b.set("transport", json!("ws://127.0.0.1:9/")).unwrap();
        for (k, v) in pairs {
            b.set(k, v.clone()).unwrap();
        }
        b.build().map(|_| ()).map_err(|e| e.to_string())
    };
    let signed_with = |f: &Path| {
        vec![
            ("ws_auth", json!("signed-bearer-token")),
            ("ws_shared_secret_file", json!(f)),
        ]
    };
    assert_eq!(build(&signed_with(&good)), Ok(()));
    assert_eq!(
        build(&[
            ("ws_auth", json!("capability-token")),
            ("token", json!("t"))
        ]),
        Ok(())
    );

    let no_file = build(&[("ws_auth", json!("signed-bearer-token"))]).unwrap_err();
    assert!(no_file.contains("ws_shared_secret_file"), "{no_file}");

    let shared = dir.path().join("shared");
    std::fs::copy(&good, &shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = build(&signed_with(&shared)).unwrap_err();
    assert!(
        e.contains("readable by others (mode 644)") && e.contains("chmod 600"),
        "{e}"
    );
    assert!(!e.contains(&secret), "{e}");

    let binary = dir.path().join("binary");
    std::fs::write(&binary, [0xc3u8, 0x28, 0xff, 0xfe].repeat(16)).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = build(&signed_with(&binary)).unwrap_err();
    assert!(
        e.contains("failed to read websocket auth secret")
            && e.contains("stream did not contain valid UTF-8"),
        "{e}"
    );

    let short = dir.path().join("short");
    std::fs::write(&short, &secret[..20]).unwrap();
    std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = build(&signed_with(&short)).unwrap_err();
    assert!(
        e.contains("at least 32 bytes") && !e.contains(&secret[..20]),
        "{e}"
    );

    let mut with_token = signed_with(&good);
    with_token.push(("token", json!("t")));
    let e = build(&with_token).unwrap_err();
    assert!(e.contains("both give the bearer token"), "{e}");

    // Codex checks no token on the unix control socket: refused there, and off WebSocket.
    for transport in ["unix", "stdio"] {
        let mut b = OptionsBuilder::new();
        b.set("transport", json!(transport)).unwrap();
        b.set("ws_auth", json!("signed-bearer-token")).unwrap();
        b.set("ws_shared_secret_file", json!(good)).unwrap();
        let e = b.build().unwrap_err().to_string();
        assert!(e.contains("ws:// or wss://"), "{transport}: {e}");
    }
    // The signed mode's settings without the signed mode.
    let e = build(&[("ws_issuer", json!("x"))]).unwrap_err();
    assert!(e.contains("are for ws_auth \"signed-bearer-token\""), "{e}");
    let mut b = OptionsBuilder::new();
    assert!(b.set("ws_auth", json!("jwt")).is_err());
    let e = b
        .set("ws_token_lifetime", json!(0.5))
        .unwrap_err()
        .to_string();
    assert!(e.contains("from 1 to 86400"), "{e}");

    // Typed options are held to the same rules at connect, before anything is dialed.
    let c = Client::new(
        ClientOptions::default()
            .websocket("ws://127.0.0.1:9/", Some("t".into()))
            .signed_bearer_token(SignedBearerToken::new(&good)),
    );
    assert!(matches!(c.connect(), Err(Error::InvalidArgument(m)) if m.contains("both give")));
    let c = Client::new(
        ClientOptions::default()
            .websocket("ws://127.0.0.1:9/", None)
            .signed_bearer_token(SignedBearerToken::new(&shared)),
    );
    assert!(
        matches!(c.connect(), Err(Error::InvalidArgument(m)) if m.contains("readable by others"))
    );
}
