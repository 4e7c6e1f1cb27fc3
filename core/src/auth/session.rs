//! One connection's authorization state and the transport's entry point
//! ([`AuthSession::execute`]): every request gets the current token (refreshed shortly
//! before it expires); a 401 refreshes it (when the server's authorization server is still
//! the one that issued it) or runs the flow, a 403 `insufficient_scope` steps up with the
//! union of scopes; the request is then sent again, with at most
//! [`MAX_AUTHORIZATIONS`] authorizations for one request. One flow runs at a time;
//! requests that were refused meanwhile just retry with its token.

use reqwest::header::{HeaderValue, AUTHORIZATION};
use reqwest::{Request, Response};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::mpsc;
use url::Url;

use super::challenge::{self, Asked};
use super::config::OAuthConfig;
use super::discovery::{self, Discovered};
use super::events::AuthEvent;
use super::flow;
use super::http::{AuthHttp, TokenError, DPOP};
use super::scope;
use super::token::{Credentials, TokenType};
use super::AuthError;

/// Authorizations (the first one and step-ups) for one request before its 401 or 403 is
/// final.
pub(crate) const MAX_AUTHORIZATIONS: u32 = 3;
/// A token this close to its expiry is refreshed before it is used.
const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// Where auth events go (the connection's event queue).
pub(crate) type EventSink = mpsc::UnboundedSender<AuthEvent>;

#[derive(Default)]
struct State {
    loaded: bool,
    creds: Credentials,
    /// Bumped with each new token.
    generation: u64,
    /// The scopes asked for so far (step-up asks for their union with the challenge's).
    scopes: Vec<String>,
    /// Why the last authorization failed.
    failure: Option<String>,
    /// The resource server's last DPoP nonce.
    rs_nonce: Option<String>,
}

/// One connection's authorization.
pub(crate) struct AuthSession {
    cfg: OAuthConfig,
    server: Url,
    key: String,
    http: AuthHttp,
    events: Option<EventSink>,
    state: Mutex<State>,
    flow: tokio::sync::Mutex<()>,
}

/// What a refused request leads to.
enum Next {
    /// Send it again (a new token is there).
    Retry,
    /// Give the refusal to the caller.
    GiveUp,
}

impl AuthSession {
    /// The authorization of the MCP endpoint `server`, its HTTP client's network settings set
    /// by `network` (the transport hands its own TLS settings and proxy, which authorization's
    /// requests use too; auth does not reach into the transport).
    pub(crate) fn new(
        cfg: &OAuthConfig,
        server: &Url,
        events: Option<EventSink>,
        network: impl FnOnce(reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, AuthError>,
    ) -> Result<AuthSession, AuthError> {
        let http = AuthHttp::with_network(cfg.dpop.clone(), network)?;
        Ok(AuthSession {
            cfg: cfg.clone(),
            key: server.to_string(),
            server: server.clone(),
            http,
            events,
            state: Mutex::new(State::default()),
            flow: tokio::sync::Mutex::new(()),
        })
    }

    fn emit(&self, ev: AuthEvent) {
        match &ev {
            AuthEvent::Failed { reason } => tracing::warn!("MCP authorization failed: {reason}"),
            other => tracing::info!("MCP authorization: {other}"),
        }
        if let Some(tx) = &self.events {
            let _ = tx.send(ev);
        }
    }

    /// Why the last authorization failed, if it did.
    pub(crate) fn failure(&self) -> Option<String> {
        self.state.lock().unwrap().failure.clone()
    }

    /// Send `req` with the current token; on 401 or 403 (re)authorize and send it again.
    pub(crate) async fn execute(
        &self,
        client: &reqwest::Client,
        req: Request,
    ) -> reqwest::Result<Response> {
        let mut generation = self.ready().await;
        let mut authorizations = 0u32;
        let mut refused_once = false;
        let mut nonce_retried = false;
        let mut next = req.try_clone();
        let mut resp = client.execute(self.decorate(req)).await?;
        loop {
            let status = resp.status().as_u16();
            if status != 401 && status != 403 {
                return Ok(resp);
            }
            let asked = challenge::asked(resp.headers());
            self.take_rs_nonce(resp.headers());
            let Some(req) = next.take() else {
                return Ok(resp);
            };
            let may_authorize = authorizations < MAX_AUTHORIZATIONS;
            let decision = match (status, asked.error.as_deref()) {
                (401, Some("use_dpop_nonce")) if !nonce_retried => {
                    nonce_retried = true;
                    Next::Retry
                }
                (401, _) if !refused_once && may_authorize => {
                    refused_once = true;
                    authorizations += 1;
                    self.unauthorized(generation, &asked).await
                }
                (403, Some("insufficient_scope")) if may_authorize => {
                    authorizations += 1;
                    self.step_up(generation, &asked).await
                }
                (401 | 403, _) if !may_authorize => {
                    self.give_up(format!(
                        "the server still refuses after {MAX_AUTHORIZATIONS} authorizations for one request (HTTP {status})"
                    ));
                    Next::GiveUp
                }
                _ => Next::GiveUp,
            };
            if let Next::GiveUp = decision {
                return Ok(resp);
            }
            drop(resp);
            generation = self.generation();
            next = req.try_clone();
            resp = client.execute(self.decorate(req)).await?;
        }
    }

    fn generation(&self) -> u64 {
        self.state.lock().unwrap().generation
    }

    /// Load the stored token on first use; refresh it when it is about to expire. The token
    /// generation to compare with after a refusal.
    async fn ready(&self) -> u64 {
        let (load, expiring) = {
            let s = self.state.lock().unwrap();
            let expiring = s
                .creds
                .token
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some() && t.expires_within(REFRESH_MARGIN));
            (!s.loaded, expiring)
        };
        if !load && !expiring {
            return self.generation();
        }
        let _flow = self.flow.lock().await;
        if load {
            self.load().await;
        }
        let expiring = {
            let s = self.state.lock().unwrap();
            s.creds
                .token
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some() && t.expires_within(REFRESH_MARGIN))
        };
        if expiring {
            self.try_refresh().await;
        }
        self.generation()
    }

    /// Load the stored credentials (the store is called off the runtime's threads: a
    /// binding's store may take a lock of its runtime, a file store does I/O).
    async fn load(&self) {
        let (store, key) = (self.cfg.store.clone(), self.key.clone());
        let loaded = match crate::rt::off_runtime(move || store.load(&key))
            .await
            .and_then(|r| r)
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("MCP authorization: the token store failed to load: {e}");
                None
            }
        };
        let mut s = self.state.lock().unwrap();
        if !s.loaded {
            s.loaded = true;
            if let Some(c) = loaded {
                if let Some(scope) = c.token.as_ref().and_then(|t| t.scope.as_deref()) {
                    s.scopes = scope::split(scope);
                }
                s.creds = c;
                s.generation += 1;
            }
        }
    }

    /// Save `creds` (off the runtime's threads, as [`load`](Self::load)).
    async fn save(&self, creds: &Credentials) {
        let (store, key, creds) = (self.cfg.store.clone(), self.key.clone(), creds.clone());
        let saved = crate::rt::off_runtime(move || store.save(&key, &creds)).await;
        if let Err(e) = saved.and_then(|r| r) {
            tracing::warn!("MCP authorization: the token store failed to save: {e}");
        }
    }

    /// Refresh the current token; whether a new one is there. A refused refresh token is
    /// dropped (the next refusal runs the flow).
    async fn try_refresh(&self) -> bool {
        let creds = self.state.lock().unwrap().creds.clone();
        if creds
            .token
            .as_ref()
            .is_none_or(|t| t.refresh_token.is_none())
        {
            return false;
        }
        match flow::refresh(&self.cfg, &self.http, &creds).await {
            Ok(token) => {
                let issuer = creds.issuer.clone().unwrap_or_default();
                let saved = {
                    let mut s = self.state.lock().unwrap();
                    s.creds.token = Some(token);
                    s.generation += 1;
                    s.creds.clone()
                };
                self.save(&saved).await;
                self.emit(AuthEvent::Refreshed { issuer });
                true
            }
            Err(e) => {
                if let TokenError::OAuth(_) = e {
                    let mut s = self.state.lock().unwrap();
                    if let Some(t) = s.creds.token.as_mut() {
                        t.refresh_token = None;
                    }
                }
                tracing::info!("MCP authorization: refresh failed: {}", e.into_auth());
                false
            }
        }
    }

    /// Record and report a final refusal.
    fn give_up(&self, why: String) {
        self.state.lock().unwrap().failure = Some(why.clone());
        self.emit(AuthEvent::Failed { reason: why });
    }

    /// A 401: discover again; refresh when the token's issuer is still the server's
    /// authorization server (a refresh token never goes to another), else run the flow
    /// (at the new authorization server, with a new registration, after a migration).
    async fn unauthorized(&self, generation: u64, asked: &Asked) -> Next {
        let _flow = self.flow.lock().await;
        if self.generation() != generation {
            return Next::Retry;
        }
        let (has_token, refreshable, issuer) = {
            let s = self.state.lock().unwrap();
            let t = s.creds.token.as_ref();
            (
                t.is_some(),
                t.is_some_and(|t| t.refresh_token.is_some()),
                s.creds.issuer.clone(),
            )
        };
        let reason = if has_token {
            "invalid_token"
        } else {
            "unauthorized"
        };
        let found =
            match discovery::discover(&self.http, &self.server, asked.resource_metadata.as_deref())
                .await
            {
                Ok(f) => f,
                Err(e) => {
                    self.emit(AuthEvent::Started {
                        reason: reason.to_owned(),
                        grant: self.grant_name(),
                    });
                    self.give_up(e.to_string());
                    return Next::GiveUp;
                }
            };
        let same_issuer = issuer.as_deref() == Some(found.server.issuer.as_str());
        if refreshable && same_issuer && self.try_refresh().await {
            return Next::Retry;
        }
        if has_token && !same_issuer {
            tracing::info!(
                "MCP authorization: the server's authorization server is now {}; authorizing there",
                found.server.issuer
            );
        }
        self.authorize(reason, asked, false, Some(found)).await
    }

    /// A 403 `insufficient_scope`: authorize again for the union of scopes.
    async fn step_up(&self, generation: u64, asked: &Asked) -> Next {
        let _flow = self.flow.lock().await;
        if self.generation() != generation {
            return Next::Retry;
        }
        self.authorize("insufficient_scope", asked, true, None)
            .await
    }

    fn grant_name(&self) -> String {
        self.cfg
            .grant
            .as_ref()
            .map_or_else(|| "authorization_code".to_owned(), |g| g.name().to_owned())
    }

    /// Discover (unless `found`), then get a new token (the flow, or the configured grant).
    async fn authorize(
        &self,
        reason: &str,
        asked: &Asked,
        step_up: bool,
        found: Option<Discovered>,
    ) -> Next {
        self.emit(AuthEvent::Started {
            reason: reason.to_owned(),
            grant: self.grant_name(),
        });
        match self.run_flow(asked, step_up, found).await {
            Ok(creds) => {
                let issuer = creds.issuer.clone().unwrap_or_default();
                let scope = creds.token.as_ref().and_then(|t| t.scope.clone());
                self.save(&creds).await;
                let mut s = self.state.lock().unwrap();
                s.creds = creds;
                s.generation += 1;
                s.failure = None;
                let asked_scope = (!s.scopes.is_empty()).then(|| s.scopes.join(" "));
                drop(s);
                self.emit(AuthEvent::Succeeded {
                    issuer,
                    scope: scope.or(asked_scope),
                });
                Next::Retry
            }
            Err(e) => {
                self.give_up(e.to_string());
                Next::GiveUp
            }
        }
    }

    async fn run_flow(
        &self,
        asked: &Asked,
        step_up: bool,
        found: Option<Discovered>,
    ) -> Result<Credentials, AuthError> {
        let found = match found {
            Some(f) => f,
            None => {
                discovery::discover(&self.http, &self.server, asked.resource_metadata.as_deref())
                    .await?
            }
        };
        let previous = {
            let s = self.state.lock().unwrap();
            if step_up {
                s.scopes.clone()
            } else {
                Vec::new()
            }
        };
        let scopes = scope::select(
            self.cfg.scopes.as_deref(),
            asked.scope.as_deref(),
            found
                .prm
                .as_ref()
                .and_then(|p| p.scopes_supported.as_deref()),
            &previous,
            found.server.scopes_supported.as_deref(),
            self.cfg.grant.is_none(),
        );
        self.state.lock().unwrap().scopes = scopes.clone();
        let stored_client = {
            let s = self.state.lock().unwrap();
            s.creds.client.clone()
        };
        let mut creds = flow::obtain(
            &self.cfg,
            &self.http,
            &found,
            &scopes,
            stored_client.as_ref(),
        )
        .await?;
        if creds.client.is_none() {
            // Keep an earlier registration at another issuer only if it is this one's.
            creds.client = stored_client.filter(|c| c.issuer.as_deref() == creds.issuer.as_deref());
        }
        Ok(creds)
    }

    /// Remember the resource server's DPoP nonce.
    fn take_rs_nonce(&self, headers: &reqwest::header::HeaderMap) {
        if let Some(n) = headers
            .get(super::http::DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
        {
            self.state.lock().unwrap().rs_nonce = Some(n.to_owned());
        }
    }

    /// `req` with the current token (and its DPoP proof).
    fn decorate(&self, mut req: Request) -> Request {
        let (token, nonce) = {
            let s = self.state.lock().unwrap();
            (s.creds.token.clone(), s.rs_nonce.clone())
        };
        let Some(token) = token else {
            return req;
        };
        let scheme = match (token.token_type, &self.cfg.dpop) {
            (TokenType::DPoP, Some(_)) => "DPoP",
            _ => "Bearer",
        };
        let Ok(mut v) = HeaderValue::from_str(&format!("{scheme} {}", token.access_token.expose()))
        else {
            tracing::warn!("MCP authorization: the access token is not valid in a header");
            return req;
        };
        v.set_sensitive(true);
        req.headers_mut().insert(AUTHORIZATION, v);
        if let (TokenType::DPoP, Some(signer)) = (token.token_type, &self.cfg.dpop) {
            let mut htu = req.url().clone();
            htu.set_query(None);
            htu.set_fragment(None);
            let at = token.access_token.expose();
            match signer.proof(
                req.method().as_str(),
                htu.as_str(),
                nonce.as_deref(),
                Some(at),
            ) {
                Ok(p) => match HeaderValue::from_str(&p) {
                    Ok(mut p) => {
                        p.set_sensitive(true);
                        req.headers_mut().insert(DPOP, p);
                    }
                    Err(_) => {
                        tracing::warn!("MCP authorization: the DPoP proof is not a valid header")
                    }
                },
                Err(e) => tracing::warn!("MCP authorization: signing the DPoP proof failed: {e}"),
            }
        }
        req
    }
}
