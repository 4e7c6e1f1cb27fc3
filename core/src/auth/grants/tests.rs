//! The grant flows against a fake IdP and authorization server on 127.0.0.1: what goes on the
//! wire, and that no secret (client secret, private key, assertion, ID token, ID-JAG, access
//! token) reaches a log line at TRACE, an error or `Debug`.

use super::flows::{AssertionSource, ClientCredentials, EnterpriseManaged, JwtBearer};
use super::form::{GRANT_JWT_BEARER, GRANT_TOKEN_EXCHANGE, TOKEN_TYPE_ID_JAG};
use super::jose::tests::verify;
use super::signer::PrivateKeyJwt;
use crate::auth::http::AuthHttp;
use crate::auth::{AuthServerMetadata, ClientAuth, GrantContext, GrantFlow, Secret};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request the fake server got.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: HashMap<String, String>,
    form: HashMap<String, String>,
}

type Reply = Arc<dyn Fn(&Seen) -> (u16, Value) + Send + Sync>;

/// A one-connection-per-request HTTP/1.1 server answering JSON from `reply`.
async fn serve(reply: Reply) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            let reply = reply.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head, body) = loop {
                    let n = s.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_string();
                        let len = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        while buf.len() < i + 4 + len {
                            let n = s.read(&mut chunk).await.unwrap_or(0);
                            if n == 0 {
                                return;
                            }
                            buf.extend_from_slice(&chunk[..n]);
                        }
                        break (head, buf[i + 4..i + 4 + len].to_vec());
                    }
                };
                let mut lines = head.lines();
                let path = lines
                    .next()
                    .and_then(|l| l.split(' ').nth(1))
                    .unwrap_or("")
                    .to_string();
                let headers = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                    .collect();
                let form = url::form_urlencoded::parse(&body).into_owned().collect();
                let req = Seen {
                    path,
                    headers,
                    form,
                };
                let (status, v) = reply(&req);
                log.lock().unwrap().push(req);
                let b = v.to_string();
                let resp = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}",
                    b.len()
                );
                let _ = s.write_all(resp.as_bytes()).await;
            });
        }
    });
    (base, seen)
}

fn metadata(base: &str) -> AuthServerMetadata {
    serde_json::from_value(json!({
        "issuer": base,
        "token_endpoint": format!("{base}/token"),
    }))
    .unwrap()
}

/// Everything the TRACE-level subscriber wrote while `f` ran.
async fn traced<F: std::future::Future>(f: F) -> (F::Output, String) {
    use tracing_subscriber::layer::SubscriberExt;
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Buf::default();
    let w = buf.clone();
    let sub = tracing_subscriber::registry().with(
        tracing_subscriber::fmt::layer()
            .with_writer(move || w.clone())
            .with_ansi(false),
    );
    let _g = tracing::subscriber::set_default(sub);
    let out = f.await;
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    (out, text)
}

pub(super) const PEM_EC: &str = include_str!("../../../tests/data/ec-p256.pem");

#[tokio::test(flavor = "current_thread")]
async fn client_credentials_with_private_key_jwt_and_secret_basic() {
    let (base, seen) = serve(Arc::new(|_r: &Seen| {
        (
            200,
            json!({"access_token": "AT-cc-1", "token_type": "Bearer", "expires_in": 60}),
        )
    }))
    .await;
    let md = metadata(&base);
    let http = AuthHttp::new(None).unwrap();
    let signer = Arc::new(PrivateKeyJwt::from_pem(&Secret::new(PEM_EC), Some("ES256")).unwrap());
    let jwt = ClientAuth::PrivateKeyJwt {
        client_id: "cid".into(),
        signer: signer.clone(),
    };
    let ctx = GrantContext {
        metadata: &md,
        resource: "http://127.0.0.1:1/mcp",
        scope: Some("read"),
        client: Some(&jwt),
        http: &http,
    };
    let (tok, logs) = traced(ClientCredentials::new().obtain(ctx)).await;
    let tok = tok.unwrap();
    assert_eq!(tok.access_token.expose(), "AT-cc-1");
    let r = seen.lock().unwrap()[0].clone();
    assert_eq!(r.path, "/token");
    assert_eq!(r.form["grant_type"], "client_credentials");
    assert_eq!(r.form["scope"], "read");
    assert_eq!(r.form["resource"], "http://127.0.0.1:1/mcp");
    let assertion = &r.form["client_assertion"];
    let (h, c) = verify(assertion, &signer_jwk(&signer));
    assert_eq!(h["alg"], "ES256");
    assert_eq!(
        (c["iss"].as_str(), c["sub"].as_str()),
        (Some("cid"), Some("cid"))
    );
    assert_eq!(c["aud"], base.as_str());
    for secret in [
        assertion.as_str(),
        "AT-cc-1",
        PEM_EC.lines().nth(1).unwrap(),
    ] {
        assert!(!logs.contains(secret), "secret in the log:\n{logs}");
        assert!(!format!("{tok:?} {jwt:?} {signer:?}").contains(secret));
    }

    let basic = ClientAuth::Basic {
        client_id: "cid".into(),
        secret: Secret::new("S3cr3t-basic"),
    };
    let ctx = GrantContext {
        metadata: &md,
        resource: "http://127.0.0.1:1/mcp",
        scope: None,
        client: Some(&basic),
        http: &http,
    };
    let (tok, logs) = traced(ClientCredentials::new().obtain(ctx)).await;
    tok.unwrap();
    let r = seen.lock().unwrap()[1].clone();
    assert!(r.headers["authorization"].starts_with("Basic "));
    assert!(!r.form.contains_key("client_secret"));
    assert_eq!(r.form["client_id"], "cid", "the id in the form too");
    assert!(!logs.contains("S3cr3t-basic") && !logs.contains(&r.headers["authorization"][6..]));
}

fn signer_jwk(s: &PrivateKeyJwt) -> Value {
    s.public_jwk()
}

#[tokio::test(flavor = "current_thread")]
async fn enterprise_managed_exchanges_the_id_token_then_presents_the_id_jag() {
    let (idp, idp_seen) = serve(Arc::new(|_r: &Seen| {
        (
            200,
            json!({"access_token": "IDJAG-xyz", "issued_token_type": TOKEN_TYPE_ID_JAG, "token_type": "N_A"}),
        )
    }))
    .await;
    let (asu, as_seen) = serve(Arc::new(|_r: &Seen| {
        (
            200,
            json!({"access_token": "AT-ema-1", "token_type": "Bearer"}),
        )
    }))
    .await;
    let md = metadata(&asu);
    let http = AuthHttp::new(None).unwrap();
    let client = ClientAuth::Basic {
        client_id: "mcp-client".into(),
        secret: Secret::new("S3cr3t-ema"),
    };
    let grant = EnterpriseManaged::new(
        format!("{idp}/token"),
        "idp-client",
        None,
        AssertionSource::Value(Secret::new("IDTOKEN-abc")),
    );
    let ctx = GrantContext {
        metadata: &md,
        resource: "http://127.0.0.1:2/mcp",
        scope: None,
        client: Some(&client),
        http: &http,
    };
    let (tok, logs) = traced(grant.obtain(ctx)).await;
    assert_eq!(tok.unwrap().access_token.expose(), "AT-ema-1");
    let x = idp_seen.lock().unwrap()[0].clone();
    assert_eq!(x.form["grant_type"], GRANT_TOKEN_EXCHANGE);
    assert_eq!(x.form["subject_token"], "IDTOKEN-abc");
    assert_eq!(x.form["audience"], asu);
    assert_eq!(x.form["resource"], "http://127.0.0.1:2/mcp");
    assert_eq!(x.form["client_id"], "idp-client");
    let b = as_seen.lock().unwrap()[0].clone();
    assert_eq!(b.form["grant_type"], GRANT_JWT_BEARER);
    assert_eq!(b.form["assertion"], "IDJAG-xyz");
    assert!(b.headers["authorization"].starts_with("Basic "));
    assert_eq!(b.form["client_id"], "mcp-client", "the id in the form too");
    assert!(!b.form.contains_key("client_secret"));
    for secret in ["IDTOKEN-abc", "IDJAG-xyz", "AT-ema-1", "S3cr3t-ema"] {
        assert!(!logs.contains(secret), "{secret} in the log:\n{logs}");
    }
    assert!(!format!("{grant:?}").contains("IDTOKEN-abc"));

    // An IdP that issues something else is refused, naming no token.
    let (idp2, _) = serve(Arc::new(|_r: &Seen| {
        (
            200,
            json!({"access_token": "NOTJAG", "issued_token_type": "urn:x", "token_type": "N_A"}),
        )
    }))
    .await;
    let grant = EnterpriseManaged::new(
        format!("{idp2}/token"),
        "idp-client",
        None,
        AssertionSource::Value(Secret::new("IDTOKEN-abc")),
    );
    let ctx = GrantContext {
        metadata: &md,
        resource: "http://127.0.0.1:2/mcp",
        scope: None,
        client: Some(&client),
        http: &http,
    };
    let e = grant.obtain(ctx).await.unwrap_err().to_string();
    assert!(e.contains("not an ID-JAG") && !e.contains("NOTJAG"), "{e}");
}

#[tokio::test(flavor = "current_thread")]
async fn jwt_bearer_reports_a_refusal_once_without_the_assertion() {
    let (base, seen) = serve(Arc::new(|_r: &Seen| {
        (
            400,
            json!({"error": "invalid_grant", "error_description": "expired"}),
        )
    }))
    .await;
    let md = metadata(&base);
    let http = AuthHttp::new(None).unwrap();
    let client = ClientAuth::None {
        client_id: "workload".into(),
    };
    let dir = std::env::temp_dir().join(format!("grants-wif-{}", std::process::id()));
    std::fs::write(&dir, "WORKLOAD.JWT.sig\n").unwrap();
    let grant = JwtBearer::new(AssertionSource::File(dir.clone()));
    let ctx = GrantContext {
        metadata: &md,
        resource: "http://127.0.0.1:3/mcp",
        scope: None,
        client: Some(&client),
        http: &http,
    };
    let (r, logs) = traced(grant.obtain(ctx)).await;
    let _ = std::fs::remove_file(&dir);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("invalid_grant"), "{e}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "no retry");
    assert_eq!(
        seen[0].form["assertion"], "WORKLOAD.JWT.sig",
        "file read, trimmed"
    );
    assert_eq!(seen[0].form["grant_type"], GRANT_JWT_BEARER);
    assert!(
        !e.contains("WORKLOAD") && !logs.contains("WORKLOAD"),
        "{e}\n{logs}"
    );
}
