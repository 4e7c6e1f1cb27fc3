//! The HTTP requests of authorization (not to the MCP server): metadata documents, client
//! registration and the token endpoint. Redirects are never followed; every URL must be
//! https or loopback http; each request is bounded; the client's credentials go in the
//! `Authorization` header or the form body, never in a URL; DPoP proofs are attached when a
//! [`ProofSigner`] is set, with the server's nonce retried once (RFC 9449 §8).

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use url::Url;

use super::client_auth::{basic_header, ClientAuth, ProofSigner};
use super::token::{Secret, Token, TokenResponse};
use super::AuthError;

/// Longest wait for one authorization request (connect included).
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest metadata or token answer read.
const MAX_BODY: usize = 256 * 1024;
/// The `DPoP` header.
pub(crate) const DPOP: &str = "dpop";
/// The `DPoP-Nonce` header.
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// Whether `host` is this machine (`localhost`, 127.0.0.0/8, `::1`): the only hosts
/// authorization talks to over plain http (RFC 8252 §8.3).
pub(crate) fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Refuse a URL authorization may not use: anything but https, or http to a loopback host.
pub(crate) fn check_secure(url: &Url, what: &str) -> Result<(), AuthError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url.host_str().unwrap_or("")) => Ok(()),
        s => Err(AuthError::new(format!(
            "{what} `{}` is not https (only loopback addresses may use http); scheme `{s}`",
            redact_url(url)
        ))),
    }
}

/// A URL for messages: without its query and fragment (they may carry codes or state).
pub(crate) fn redact_url(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.set_fragment(None);
    let _ = u.set_password(None);
    u.to_string()
}

/// Parse a URL found in metadata or a header.
pub(crate) fn parse_url(s: &str, what: &str) -> Result<Url, AuthError> {
    Url::parse(s).map_err(|e| AuthError::new(format!("{what} is not a valid URL: {e}")))
}

/// An OAuth error answer (RFC 6749 §5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OAuthErrorBody {
    pub status: u16,
    pub error: String,
    pub description: Option<String>,
}

/// A failed token request.
#[derive(Debug)]
pub(crate) enum TokenError {
    /// The server answered with an OAuth error (`invalid_grant`, ...).
    OAuth(OAuthErrorBody),
    /// Anything else.
    Other(AuthError),
}

impl From<AuthError> for TokenError {
    fn from(e: AuthError) -> Self {
        TokenError::Other(e)
    }
}

impl TokenError {
    /// The error as one message (never a secret: the server's error code and description).
    pub(crate) fn into_auth(self) -> AuthError {
        match self {
            TokenError::OAuth(b) => AuthError::new(format!(
                "the token endpoint refused (HTTP {}): {}{}",
                b.status,
                b.error,
                b.description
                    .map(|d| format!(": {}", truncate(&d, 200)))
                    .unwrap_or_default()
            )),
            TokenError::Other(e) => e,
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The HTTP side of authorization for one connection.
pub(crate) struct AuthHttp {
    client: reqwest::Client,
    /// Signs DPoP proofs (set by the DPoP extension).
    pub(crate) dpop: Option<Arc<dyn ProofSigner>>,
    /// The authorization server's last DPoP nonce.
    nonce: Mutex<Option<String>>,
}

impl AuthHttp {
    /// A client that follows no redirects, with reqwest's default network settings.
    #[cfg(test)]
    pub(crate) fn new(dpop: Option<Arc<dyn ProofSigner>>) -> Result<Self, AuthError> {
        Self::with_network(dpop, Ok)
    }

    /// A client that follows no redirects, its network settings (TLS roots and client
    /// certificate, proxy) set by `network`: the MCP transport's own, so discovery,
    /// registration and token requests reach a server behind a private CA or a proxy as the
    /// MCP requests do.
    pub(crate) fn with_network(
        dpop: Option<Arc<dyn ProofSigner>>,
        network: impl FnOnce(reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, AuthError>,
    ) -> Result<Self, AuthError> {
        let builder = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("codex-client/", env!("CARGO_PKG_VERSION")));
        let client = network(builder)?
            .build()
            .map_err(|e| AuthError::new(format!("could not set up HTTP for authorization: {e}")))?;
        Ok(AuthHttp {
            client,
            dpop,
            nonce: Mutex::new(None),
        })
    }

    /// GET a JSON document; `Ok(None)` when the server has none there (any 4xx, or a body
    /// that is not a JSON object) so discovery can try the next URL.
    pub(crate) async fn get_json(
        &self,
        url: &Url,
        headers: &[(&'static str, &str)],
    ) -> Result<Option<Value>, AuthError> {
        check_secure(url, "metadata URL")?;
        let mut req = self
            .client
            .get(url.clone())
            .header(ACCEPT, "application/json");
        for (n, v) in headers {
            req = req.header(*n, *v);
        }
        let resp = req.send().await.map_err(|e| {
            AuthError::new(format!(
                "could not fetch {}: {}",
                redact_url(url),
                describe(e)
            ))
        })?;
        let status = resp.status();
        tracing::debug!(
            "OAuth discovery: GET {} -> HTTP {}",
            redact_url(url),
            status.as_u16()
        );
        if status.is_client_error() || status.is_redirection() {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(AuthError::new(format!(
                "GET {} answered HTTP {}",
                redact_url(url),
                status.as_u16()
            )));
        }
        let body = read_body(resp).await?;
        Ok(serde_json::from_slice::<Value>(&body)
            .ok()
            .filter(Value::is_object))
    }

    /// POST a JSON body (client registration, RFC 7591); the answer's status and JSON.
    pub(crate) async fn post_json(
        &self,
        url: &Url,
        body: &Value,
    ) -> Result<(StatusCode, Value), AuthError> {
        check_secure(url, "registration endpoint")?;
        let resp = self
            .client
            .post(url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| {
                AuthError::new(format!(
                    "could not reach {}: {}",
                    redact_url(url),
                    describe(e)
                ))
            })?;
        let status = resp.status();
        let body = read_body(resp).await?;
        let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok((status, v))
    }

    /// A token request (RFC 6749 §3.2): `form` plus the client's authentication, POSTed to
    /// `endpoint`; `audience` is the assertion audience for `private_key_jwt` (the issuer).
    /// `previous_refresh`: kept when a refresh answer brings no new refresh token.
    pub(crate) async fn token(
        &self,
        endpoint: &Url,
        form: Vec<(&'static str, String)>,
        auth: &ClientAuth,
        audience: &str,
        previous_refresh: Option<&Secret>,
    ) -> Result<Token, TokenError> {
        let bytes = self.post_form(endpoint, form, auth, audience).await?;
        let parsed: TokenResponse = serde_json::from_slice(&bytes).map_err(|e| {
            AuthError::new(format!(
                "the token endpoint's answer is not a token response (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        parsed
            .into_token(previous_refresh)
            .map_err(|m| TokenError::Other(AuthError::new(m)))
    }

    /// POST `form` with the client's authentication to a token endpoint (DPoP proof and its
    /// nonce retry included); the body of a successful answer. Used for token requests and
    /// for the token exchange at an enterprise IdP (whose answer is not an access token).
    pub(crate) async fn post_form(
        &self,
        endpoint: &Url,
        mut form: Vec<(&'static str, String)>,
        auth: &ClientAuth,
        audience: &str,
    ) -> Result<Vec<u8>, TokenError> {
        check_secure(endpoint, "token endpoint")?;
        let mut headers = HeaderMap::new();
        match auth {
            ClientAuth::Basic { client_id, secret } => {
                let mut v = HeaderValue::from_str(&basic_header(client_id, secret.expose()))
                    .map_err(|_| {
                        AuthError::new("the client credentials are not valid in a header")
                    })?;
                v.set_sensitive(true);
                headers.insert(AUTHORIZATION, v);
                // The client id goes in the form too (only the secret stays out of it). RFC
                // 6749 §3.2.1 lets a client identify itself with `client_id` beside its
                // authentication, and some servers look the client up from the form alone:
                // the official MCP Python SDK's token and revocation endpoints
                // (`mcp.server.auth`) answer `401 invalid_client: Missing client_id` without it.
                // We keep `client_secret_basic` rather than switch to `client_secret_post`
                // where both are offered: it is the method every server must support
                // (RFC 6749 §2.3.1, RFC 7591's default), a client registered or configured for
                // it must use it (the Python SDK refuses a secret in the form from a client
                // registered for basic), and the secret stays out of the body.
                form.push(("client_id", client_id.clone()));
            }
            ClientAuth::Post { client_id, secret } => {
                form.push(("client_id", client_id.clone()));
                form.push(("client_secret", secret.expose().to_owned()));
            }
            ClientAuth::None { client_id } => form.push(("client_id", client_id.clone())),
            ClientAuth::PrivateKeyJwt { client_id, signer } => {
                let assertion = signer.client_assertion(client_id, audience).map_err(|e| {
                    AuthError::new(format!("signing the client assertion failed: {e}"))
                })?;
                form.push(("client_id", client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
                ));
                form.push(("client_assertion", assertion));
            }
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let grant = form
            .iter()
            .find(|(k, _)| *k == "grant_type")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let mut nonce_retried = false;
        loop {
            let mut h = headers.clone();
            if let Some(proof) = self.proof("POST", endpoint, None)? {
                h.insert(DPOP, proof);
            }
            h.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            );
            h.insert(ACCEPT, HeaderValue::from_static("application/json"));
            let resp = self
                .client
                .request(Method::POST, endpoint.clone())
                .headers(h)
                .body(body.clone())
                .send()
                .await
                .map_err(|e| {
                    AuthError::new(format!(
                        "could not reach the token endpoint {}: {}",
                        redact_url(endpoint),
                        describe(e)
                    ))
                })?;
            let status = resp.status();
            self.take_nonce(resp.headers());
            tracing::debug!(
                "OAuth: token request ({grant}, {}) to {} -> HTTP {}",
                auth.method(),
                redact_url(endpoint),
                status.as_u16()
            );
            if status.is_redirection() {
                return Err(AuthError::new(format!(
                    "the token endpoint answered a redirect (HTTP {}); token requests do not follow redirects",
                    status.as_u16()
                ))
                .into());
            }
            let bytes = read_body(resp).await?;
            if status.is_success() {
                return Ok(bytes);
            }
            let err = serde_json::from_slice::<Value>(&bytes).ok();
            let error = err
                .as_ref()
                .and_then(|v| v.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            if error == "use_dpop_nonce" && self.dpop.is_some() && !nonce_retried {
                nonce_retried = true;
                continue;
            }
            return Err(TokenError::OAuth(OAuthErrorBody {
                status: status.as_u16(),
                error: if error.is_empty() {
                    "(no OAuth error code)".into()
                } else {
                    error
                },
                description: err
                    .as_ref()
                    .and_then(|v| v.get("error_description"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }));
        }
    }

    /// A DPoP proof header for `method` `url` (with the last nonce), when DPoP is on.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
    ) -> Result<Option<HeaderValue>, AuthError> {
        let Some(signer) = &self.dpop else {
            return Ok(None);
        };
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let nonce = self.nonce.lock().unwrap().clone();
        let proof = signer
            .proof(method, htu.as_str(), nonce.as_deref(), access_token)
            .map_err(|e| AuthError::new(format!("signing the DPoP proof failed: {e}")))?;
        let mut v = HeaderValue::from_str(&proof)
            .map_err(|_| AuthError::new("the DPoP proof is not a valid header value"))?;
        v.set_sensitive(true);
        Ok(Some(v))
    }

    /// Remember a `DPoP-Nonce` the server sent.
    pub(crate) fn take_nonce(&self, headers: &HeaderMap) {
        if let Some(n) = headers.get(DPOP_NONCE).and_then(|v| v.to_str().ok()) {
            *self.nonce.lock().unwrap() = Some(n.to_owned());
        }
    }
}

/// A request error in words, without its URL (it may carry a query), with its causes.
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut out = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// Read a body up to [`MAX_BODY`].
async fn read_body(mut resp: Response) -> Result<Vec<u8>, AuthError> {
    let mut out = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| AuthError::new(format!("reading an authorization answer failed: {e}")))?
    {
        if out.len() + chunk.len() > MAX_BODY {
            return Err(AuthError::new(format!(
                "an authorization answer is larger than {MAX_BODY} bytes"
            )));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(check_secure(&u("https://as.example/token"), "x").is_ok());
        assert!(check_secure(&u("http://127.0.0.1:5/token"), "x").is_ok());
        assert!(check_secure(&u("http://localhost/token"), "x").is_ok());
        let e = check_secure(&u("http://as.example/token?code=SECRET"), "token endpoint")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not https") && !e.contains("SECRET"), "{e}");
    }
}
