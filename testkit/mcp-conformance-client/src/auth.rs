//! The `auth/*` scenarios: the client authorizes as the library does for any program, with
//! the browser step played by following the suite's authorization endpoint (a GET whose
//! redirect is the redirect URL, as a browser would follow it after the user agreed).
//! Credentials the scenario hands over (`MCP_CONFORMANCE_CONTEXT`: a pre-registered
//! `client_id`/`client_secret`) are used as a program's configuration would be.

use codex_client::auth::OAuthConfig;
use codex_client::Error;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The client ID metadata document URL the suite expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Where the "browser" is sent back to (nothing listens there: the redirect is not followed).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The authorization settings of an `auth/*` scenario.
pub fn config(scenario: &str) -> OAuthConfig {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let mut cfg = OAuthConfig::new()
        .client_name("codex-client-conformance")
        .redirect_uri(REDIRECT_URI)
        .client_metadata_url(CLIENT_METADATA_URL)
        .authorizer(|url: String| async move { follow(&url) });
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        cfg = cfg.client_id(id);
    }
    if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
        cfg = cfg.client_secret(secret);
    }
    eprintln!("{scenario}: OAuth configured ({cfg:?})");
    cfg
}

/// GET the authorization URL (http on this machine) and return where it redirects.
fn follow(url: &str) -> Result<String, Error> {
    let bad = |m: String| Error::Transport(format!("authorization endpoint: {m}"));
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("not an http:// URL".into()))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut s = TcpStream::connect(host).map_err(|e| bad(e.to_string()))?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| bad(e.to_string()))?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) => return Err(bad(e.to_string())),
        }
    }
    let head = String::from_utf8_lossy(&answer);
    let status = head.split_whitespace().nth(1).unwrap_or("");
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("location")
                .then(|| v.trim().to_owned())
        })
        .ok_or_else(|| bad(format!("HTTP {status} without a redirect")))
}
