//! One MCP HTTP connection's shared state: the HTTP client, the endpoint and the headers every
//! request carries (custom ones, the bearer token, the session's id and protocol version once
//! known), the legacy POST endpoint when the server is an HTTP+SSE one, and the way back to
//! the reader.

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{RequestBuilder, Response, Url};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;

use super::body::describe;
use super::peek::{self, Head};
use crate::error::{Error, Result};
use crate::options::McpHttp;
use crate::transport::io::Inbound;
use crate::transport::is_loopback;

/// Longest wait for a TCP (and TLS) connection to the server.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for the answer to the session's `DELETE`.
const DELETE_TIMEOUT: Duration = Duration::from_millis(800);
/// Longest wait for the HTTP status of a POST nobody waits an answer for (a notification or
/// a response); a request's POST is bounded by the engine's request timeout and the
/// connection's life.
pub(super) const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
/// Idle pooled connections are closed after this long.
const POOL_IDLE: Duration = Duration::from_secs(30);

const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// What the reader is told when the server forgot the session.
pub(super) const SESSION_EXPIRED: &str = "MCP session expired (HTTP 404)";

/// The connection's shared state.
pub(super) struct Conn {
    client: reqwest::Client,
    url: Url,
    /// Custom headers and the bearer token (values marked sensitive).
    fixed: HeaderMap,
    /// The session's id (replaced when a new session starts: [`super::renew`]).
    session_id: Mutex<Option<HeaderValue>>,
    protocol_version: OnceLock<HeaderValue>,
    legacy_endpoint: OnceLock<Url>,
    deliver: mpsc::Sender<Inbound>,
    /// The message size cap.
    pub(super) cap: usize,
    expired: AtomicBool,
    /// MCP 2026-07-28: the version and tool headers each POST carries.
    modern: super::modern::Modern,
    handshake: super::handshake::Handshake,
    /// MCP authorization, when configured ([`crate::auth`]).
    auth: Option<Arc<crate::auth::AuthSession>>,
}

/// Refuse a URL this transport cannot use, and a bearer token in clear text to another host.
fn check_url(url: &Url, has_token: bool) -> Result<()> {
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(Error::InvalidArgument(format!(
            "MCP HTTP URL must start with http:// or https://, got `{scheme}://`"
        )));
    }
    let host = url.host_str().unwrap_or("");
    if has_token && scheme == "http" && !is_loopback(host) {
        return Err(Error::InvalidArgument(format!(
            "refusing to send the bearer token in clear text to `{host}`: use https:// or a loopback http:// address"
        )));
    }
    Ok(())
}

/// The custom headers and the token as sensitive header values.
fn fixed_headers(cfg: &McpHttp) -> Result<HeaderMap> {
    let mut map = HeaderMap::new();
    for (name, value) in &cfg.headers {
        let n = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            Error::InvalidArgument(format!("`{name}` is not a valid HTTP header name"))
        })?;
        let mut v = HeaderValue::from_str(value).map_err(|_| {
            Error::InvalidArgument(format!(
                "the value of header `{name}` has characters not allowed in HTTP"
            ))
        })?;
        v.set_sensitive(true);
        map.append(n, v);
    }
    if let Some(t) = &cfg.token {
        let mut v = HeaderValue::from_str(&format!("Bearer {t}")).map_err(|_| {
            Error::InvalidArgument("token contains characters not allowed in a header".into())
        })?;
        v.set_sensitive(true);
        map.insert(AUTHORIZATION, v);
    }
    Ok(map)
}

impl Conn {
    /// Check the configuration and build the HTTP client (nothing is sent yet).
    pub(super) fn new(
        cfg: &McpHttp,
        net: &super::Net<'_>,
        cap: usize,
        deliver: mpsc::Sender<Inbound>,
        auth_events: Option<crate::auth::EventSink>,
    ) -> Result<Conn> {
        let url = Url::parse(&cfg.url)
            .map_err(|e| Error::InvalidArgument(format!("bad MCP HTTP URL: {e}")))?;
        check_url(&url, cfg.token.is_some() || cfg.oauth.is_some())?;
        let fixed = fixed_headers(cfg)?;
        let builder = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .pool_idle_timeout(POOL_IDLE)
            .tcp_nodelay(true)
            // A redirect could take the token and the custom headers elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("codex-client/", env!("CARGO_PKG_VERSION")));
        let builder = net.apply(builder, &url)?;
        let client = builder
            .build()
            .map_err(|e| Error::Transport(format!("could not set up HTTP: {}", describe(&e))))?;
        // After the client: a bad TLS file or proxy is the transport's `InvalidArgument`.
        let auth = match &cfg.oauth {
            Some(o) => Some(Arc::new(crate::auth::AuthSession::new(
                o,
                &url,
                auth_events,
                |b| {
                    net.apply(b, &url)
                        .map_err(|e| crate::auth::AuthError::new(e.to_string()))
                },
            )?)),
            None => None,
        };
        Ok(Conn {
            client,
            url,
            fixed,
            session_id: Mutex::new(None),
            protocol_version: OnceLock::new(),
            legacy_endpoint: OnceLock::new(),
            deliver,
            cap,
            expired: AtomicBool::new(false),
            modern: Default::default(),
            handshake: Default::default(),
            auth,
        })
    }

    /// Send a request, authorized when MCP authorization is configured (a 401 or 403 then
    /// runs the flow and the request goes again, once).
    pub(super) async fn execute(&self, req: RequestBuilder) -> reqwest::Result<Response> {
        let req = req.build()?;
        match &self.auth {
            Some(auth) => auth.execute(&self.client, req).await,
            None => self.client.execute(req).await,
        }
    }

    /// Why authorization failed, to add to a 401 or 403 error.
    pub(super) fn auth_failure(&self) -> Option<String> {
        self.auth.as_ref().and_then(|a| a.failure())
    }

    /// The MCP endpoint (the SSE endpoint for a legacy server).
    pub(super) fn url(&self) -> &Url {
        &self.url
    }

    /// The headers of a request: the fixed ones, then the session's, then `extra`.
    fn headers(&self, extra: &[(HeaderName, HeaderValue)]) -> HeaderMap {
        let mut map = self.fixed.clone();
        if let Some(v) = self.session_id() {
            map.insert(SESSION_ID, v);
        }
        if let Some(v) = self.protocol_version.get() {
            map.insert(PROTOCOL_VERSION, v.clone());
        }
        for (n, v) in extra {
            map.insert(n, v.clone());
        }
        map
    }

    /// A POST of one message to `to`.
    pub(super) fn post(&self, to: &Url, body: Bytes) -> RequestBuilder {
        let mut extra = vec![
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (
                ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            ),
        ];
        extra.extend(self.modern.headers(&body));
        let headers = self.headers(&extra);
        self.client.post(to.clone()).headers(headers).body(body)
    }

    /// A GET of an SSE stream at the endpoint, resuming after `last_event_id` if given.
    pub(super) fn get(&self, last_event_id: Option<&str>) -> RequestBuilder {
        let mut extra = vec![(ACCEPT, HeaderValue::from_static("text/event-stream"))];
        if let Some(v) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            extra.push((LAST_EVENT_ID, v));
        }
        self.client
            .get(self.url.clone())
            .headers(self.headers(&extra))
    }

    /// Remember the session id of the `initialize` answer.
    pub(super) fn set_session(&self, headers: &HeaderMap) {
        if let Some(v) = headers.get(SESSION_ID) {
            let mut v = v.clone();
            v.set_sensitive(true);
            *self.session_id.lock().unwrap_or_else(|p| p.into_inner()) = Some(v);
        }
    }

    /// Forget the session id (a new session is being started).
    pub(super) fn clear_session(&self) {
        *self.session_id.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn session_id(&self) -> Option<HeaderValue> {
        self.session_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether requests carry a session id.
    pub(super) fn has_session(&self) -> bool {
        self.session_id().is_some()
    }

    /// The handshake as sent, for a new session ([`super::renew`]).
    pub(super) fn handshake(&self) -> &super::handshake::Handshake {
        &self.handshake
    }

    /// The legacy server's POST endpoint, once known.
    pub(super) fn legacy_endpoint(&self) -> Option<&Url> {
        self.legacy_endpoint.get()
    }

    /// Switch to the legacy transport: messages go to `endpoint`.
    pub(super) fn set_legacy_endpoint(&self, endpoint: Url) {
        let _ = self.legacy_endpoint.set(endpoint);
    }

    /// Whether the server said the session is gone.
    pub(super) fn is_expired(&self) -> bool {
        self.expired.load(Ordering::Acquire)
    }

    /// Hand the reader something.
    pub(super) async fn deliver(&self, d: Inbound) {
        let _ = self.deliver.send(d).await;
    }

    /// Hand the reader a message that arrived for `head` (`None`: on no request's behalf);
    /// whether it is the answer to that request.
    pub(super) async fn deliver_message(&self, head: Option<&Head>, msg: Bytes) -> bool {
        let answers = head.is_some_and(|h| h.answered_by(&msg));
        self.deliver_answer(head, answers, msg).await;
        answers
    }

    /// Hand the reader a message known to answer `head` or not. The `initialize` answer's
    /// protocol version is taken first, so the requests that follow it carry it.
    pub(super) async fn deliver_answer(&self, head: Option<&Head>, answers: bool, msg: Bytes) {
        if answers && head.is_some_and(|h| h.is("tools/list")) {
            self.modern.learn_tools(&msg);
        }
        if answers && head.is_some_and(|h| h.is("initialize")) {
            let version = peek::protocol_version(&msg).and_then(|v| HeaderValue::try_from(v).ok());
            if let Some(v) = version {
                let _ = self.protocol_version.set(v);
            }
        }
        self.deliver(Inbound::Message(msg)).await;
    }

    /// A message could not be delivered at the HTTP level: a request gets an error answer
    /// (so it fails now, not at its timeout); anything else is logged.
    pub(super) async fn fail(&self, head: &Head, http_status: Option<u16>, message: &str) {
        match head.request_id() {
            Some(id) => {
                tracing::debug!("MCP HTTP request failed: {message}");
                let answer = peek::error_answer(id, http_status, message);
                self.deliver(Inbound::Message(answer)).await;
            }
            None => tracing::warn!("MCP HTTP: a message was not taken: {message}"),
        }
    }

    /// The server answered 404 to a request with the session id: the session is gone and
    /// the connection ends with that reason (the engine has to connect and initialize anew).
    pub(super) async fn expire(&self) {
        if self.expired.swap(true, Ordering::AcqRel) {
            return;
        }
        tracing::error!("{SESSION_EXPIRED}");
        let why = format!(
            "{SESSION_EXPIRED}: the server no longer knows this session; connect again to start a new one"
        );
        self.deliver(Inbound::Failed(why)).await;
    }

    /// The writer closed: end the session with a `DELETE` (bounded; a server may refuse it
    /// with 405).
    pub(super) async fn end_session(&self) {
        if self.is_expired() || self.legacy_endpoint().is_some() || !self.has_session() {
            return;
        }
        let req = self
            .client
            .delete(self.url.clone())
            .headers(self.headers(&[]));
        match tokio::time::timeout(DELETE_TIMEOUT, self.execute(req)).await {
            Ok(Ok(r)) => tracing::debug!("MCP session DELETE: HTTP {}", r.status().as_u16()),
            Ok(Err(e)) => tracing::debug!("MCP session DELETE failed: {}", describe(&e)),
            Err(_) => tracing::debug!("MCP session DELETE: no answer within {DELETE_TIMEOUT:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_only_in_tls_or_to_loopback() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert!(check_url(&url("http://127.0.0.1:9/mcp"), true).is_ok());
        assert!(check_url(&url("http://127.5.6.7:9/mcp"), true).is_ok());
        assert!(check_url(&url("http://localhost:9/mcp"), true).is_ok());
        assert!(check_url(&url("http://[::1]:9/mcp"), true).is_ok());
        assert!(check_url(&url("https://example.com/mcp"), true).is_ok());
        assert!(check_url(&url("http://example.com/mcp"), false).is_ok());
        let err = check_url(&url("http://example.com/mcp"), true).unwrap_err();
        assert!(err.to_string().contains("clear text"), "{err}");
        assert!(check_url(&url("http://10.0.0.1/mcp"), true).is_err());
        assert!(check_url(&url("ws://127.0.0.1/mcp"), false).is_err());
    }

    #[test]
    fn bad_headers_are_refused_without_their_value() {
        let cfg = McpHttp::new("http://127.0.0.1:9/").header("X-Key", "secret\nvalue");
        let err = fixed_headers(&cfg).unwrap_err().to_string();
        assert!(err.contains("X-Key") && !err.contains("secret"), "{err}");
        let cfg = McpHttp::new("http://127.0.0.1:9/").header("bad name", "v");
        assert!(fixed_headers(&cfg).is_err());
        let cfg = McpHttp::new("http://127.0.0.1:9/")
            .header("X-Key", "v")
            .token("t");
        let map = fixed_headers(&cfg).unwrap();
        assert!(map.get(AUTHORIZATION).unwrap().is_sensitive());
        assert!(map.get("x-key").unwrap().is_sensitive());
    }
}
