//! What the program gives for MCP authorization ([`OAuthConfig`]): its client identity,
//! redirect URI and scopes, where tokens are kept, the browser step ([`Authorize`]), and the
//! grant to use ([`GrantFlow`]; the authorization code flow when none).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::client_auth::{AssertionSigner, ClientAuth, ProofSigner};
use super::http::AuthHttp;
use super::metadata::AuthServerMetadata;
use super::store::{MemoryTokenStore, TokenStore};
use super::token::{Secret, Token};
use crate::error::{Error, Result};

/// A boxed future, as the callbacks return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The browser step of the authorization code flow: given the authorization URL, get the
/// user to it and return the URL the authorization server redirected to (with `code`,
/// `state` and maybe `iss`). [`LoopbackBrowser`](super::LoopbackBrowser) is a ready one for
/// desktop programs; any `Fn(String) -> impl Future<Output = Result<String>>` is one too.
pub trait Authorize: Send + Sync {
    /// Take the user to `authorization_url`; the redirect URL it ended at.
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String>>;
    /// The redirect URI this authorizer receives (used when the config names none).
    fn redirect_uri(&self) -> Option<String> {
        None
    }
}

impl<F, Fut> Authorize for F
where
    F: Fn(String) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String>> + Send + 'static,
{
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String>> {
        Box::pin(self(authorization_url))
    }
}

/// What a [`GrantFlow`] gets to obtain a token: the authorization server, the resource and
/// scope, the client's authentication, and the token request helper (no redirects, https,
/// DPoP).
#[non_exhaustive]
pub struct GrantContext<'a> {
    /// The authorization server's metadata.
    pub metadata: &'a AuthServerMetadata,
    /// The resource (RFC 8707) the token is for.
    pub resource: &'a str,
    /// The scope to ask for, if any.
    pub scope: Option<&'a str>,
    /// The client's authentication at the token endpoint, if the client has an identity.
    pub client: Option<&'a ClientAuth>,
    pub(crate) http: &'a AuthHttp,
}

impl GrantContext<'_> {
    /// POST a token request (`grant_type` and its parameters in `form`) to the token
    /// endpoint with `auth`; the token it issued.
    pub async fn token_request(
        &self,
        form: Vec<(&'static str, String)>,
        auth: &ClientAuth,
    ) -> Result<Token> {
        let endpoint = self.metadata.token_endpoint.as_deref().ok_or_else(|| {
            Error::Transport("the authorization server has no token endpoint".into())
        })?;
        let endpoint =
            super::http::parse_url(endpoint, "the token endpoint").map_err(Error::from)?;
        self.http
            .token(&endpoint, form, auth, &self.metadata.issuer, None)
            .await
            .map_err(|e| Error::from(e.into_auth()))
    }
}

impl GrantContext<'_> {
    /// POST a form to another token endpoint (an enterprise IdP's, for a token exchange) with
    /// `auth`; the JSON object it answered (its OAuth error as the error).
    pub async fn form_request(
        &self,
        endpoint: &str,
        form: Vec<(&'static str, String)>,
        auth: &ClientAuth,
    ) -> Result<serde_json::Value> {
        let url = super::http::parse_url(endpoint, "the token endpoint").map_err(Error::from)?;
        let bytes = self
            .http
            .post_form(&url, form, auth, endpoint)
            .await
            .map_err(|e| Error::from(e.into_auth()))?;
        serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .filter(serde_json::Value::is_object)
            .ok_or_else(|| {
                Error::Transport(format!(
                    "MCP authorization: the answer of {endpoint} is not a JSON object"
                ))
            })
    }
}

/// A grant that obtains a token without the browser step (client credentials, token
/// exchange, JWT bearer, ...): called when the MCP server asks for a token and no stored
/// one can be refreshed.
pub trait GrantFlow: Send + Sync {
    /// The grant's name for messages and events (`client_credentials`, ...).
    fn name(&self) -> &str;
    /// Obtain a token.
    fn obtain<'a>(&'a self, ctx: GrantContext<'a>) -> BoxFuture<'a, Result<Token>>;
}

/// MCP authorization settings of an HTTP MCP server ([`McpHttp::oauth`](crate::McpHttp::oauth)).
/// All optional: with none, the client registers itself (client ID metadata document when
/// given and offered, else dynamic registration), and runs the authorization code flow
/// through the [`Authorize`] callback.
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// The pre-registered client's secret (a confidential client).
    pub client_secret: Option<Secret>,
    /// The token endpoint auth method of the pre-registered client (`client_secret_basic`,
    /// `client_secret_post`, `none`); chosen from the server's list when `None`.
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URI (else the [`Authorize`] callback's).
    pub redirect_uri: Option<String>,
    /// Scopes to ask for, overriding the server's (`None`: the spec's choice: the
    /// challenge's `scope`, else the resource's `scopes_supported`, else none).
    pub scopes: Option<Vec<String>>,
    /// An https URL of this client's ID metadata document, used as its `client_id` where
    /// the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// The client name sent in dynamic registration.
    pub client_name: String,
    /// Where tokens are kept (in memory unless set).
    pub store: Arc<dyn TokenStore>,
    /// The browser step.
    pub authorizer: Option<Arc<dyn Authorize>>,
    /// A grant used instead of the authorization code flow.
    pub grant: Option<Arc<dyn GrantFlow>>,
    /// Signs `private_key_jwt` client assertions (the client then authenticates so).
    pub assertion_signer: Option<Arc<dyn AssertionSigner>>,
    /// Signs DPoP proofs (tokens are then DPoP-bound).
    pub dpop: Option<Arc<dyn ProofSigner>>,
    /// How long the browser step ([`Authorize`]) may take before the authorization fails
    /// ([`DEFAULT_AUTHORIZE_TIMEOUT`] unless set).
    pub authorize_timeout: Duration,
}

/// The default bound of the browser step: 5 minutes for the user to sign in.
pub const DEFAULT_AUTHORIZE_TIMEOUT: Duration = Duration::from_secs(300);

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            client_id: None,
            client_secret: None,
            token_endpoint_auth_method: None,
            redirect_uri: None,
            scopes: None,
            client_metadata_url: None,
            client_name: "codex-client".into(),
            store: Arc::new(MemoryTokenStore::new()),
            authorizer: None,
            grant: None,
            assertion_signer: None,
            dpop: None,
            authorize_timeout: DEFAULT_AUTHORIZE_TIMEOUT,
        }
    }
}

impl OAuthConfig {
    /// Nothing given: register and authorize as the server allows.
    pub fn new() -> Self {
        Self::default()
    }
    /// A pre-registered client id.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.client_id = Some(id.into());
        self
    }
    /// The pre-registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<Secret>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
    /// The pre-registered client's token endpoint auth method.
    pub fn token_endpoint_auth_method(mut self, method: impl Into<String>) -> Self {
        self.token_endpoint_auth_method = Some(method.into());
        self
    }
    /// The redirect URI.
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = Some(uri.into());
        self
    }
    /// The scopes to ask for.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }
    /// The client ID metadata document URL.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }
    /// The client name for dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }
    /// Where tokens are kept.
    pub fn store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }
    /// The browser step.
    pub fn authorizer(mut self, authorizer: impl Authorize + 'static) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }
    /// A grant used instead of the authorization code flow.
    pub fn grant(mut self, grant: Arc<dyn GrantFlow>) -> Self {
        self.grant = Some(grant);
        self
    }
    /// Sign `private_key_jwt` client assertions with `signer`.
    pub fn assertion_signer(mut self, signer: Arc<dyn AssertionSigner>) -> Self {
        self.assertion_signer = Some(signer);
        self
    }
    /// Bind tokens with DPoP proofs signed by `signer`.
    pub fn dpop(mut self, signer: Arc<dyn ProofSigner>) -> Self {
        self.dpop = Some(signer);
        self
    }
    /// How long the browser step may take.
    pub fn authorize_timeout(mut self, timeout: Duration) -> Self {
        self.authorize_timeout = timeout;
        self
    }
}

fn same<T: ?Sized>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

impl PartialEq for OAuthConfig {
    /// Equal settings, and the same store and callbacks (by identity).
    fn eq(&self, o: &Self) -> bool {
        self.client_id == o.client_id
            && self.client_secret == o.client_secret
            && self.token_endpoint_auth_method == o.token_endpoint_auth_method
            && self.redirect_uri == o.redirect_uri
            && self.scopes == o.scopes
            && self.client_metadata_url == o.client_metadata_url
            && self.client_name == o.client_name
            && Arc::ptr_eq(&self.store, &o.store)
            && same(&self.authorizer, &o.authorizer)
            && same(&self.grant, &o.grant)
            && same(&self.assertion_signer, &o.assertion_signer)
            && same(&self.dpop, &o.dpop)
            && self.authorize_timeout == o.authorize_timeout
    }
}

impl Eq for OAuthConfig {}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("authorizer", &self.authorizer.is_some())
            .field("grant", &self.grant.as_ref().map(|g| g.name().to_owned()))
            .field("assertion_signer", &self.assertion_signer.is_some())
            .field("dpop", &self.dpop.is_some())
            .field("authorize_timeout", &self.authorize_timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_secret_and_eq_compares_callbacks_by_identity() {
        let c = OAuthConfig::new()
            .client_id("id")
            .client_secret("S3CRET")
            .authorizer(|_url: String| async { Ok::<_, Error>("x".to_owned()) });
        let d = format!("{c:?}");
        assert!(d.contains("\"id\"") && !d.contains("S3CRET"), "{d}");
        assert_eq!(c.clone(), c);
        let other = c
            .clone()
            .authorizer(|_url: String| async { Ok::<_, Error>("x".to_owned()) });
        assert_ne!(other, c);
    }
}
