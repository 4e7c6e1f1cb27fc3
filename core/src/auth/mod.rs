//! MCP authorization (OAuth 2.1) for the Streamable HTTP and legacy SSE transports, as the
//! MCP specification (2025-11-25, with the 2026-07-28 additions) has it.
//!
//! Set an [`OAuthConfig`] on the transport ([`McpHttp::oauth`](crate::McpHttp::oauth)); when
//! the server answers 401 the client discovers its authorization server
//! (discovery: RFC 9728, RFC 8414, OpenID Connect discovery, the 2025-03-26 fallbacks),
//! identifies itself (pre-registered, client ID metadata document, or dynamic registration
//! RFC 7591), runs the authorization code flow with PKCE through the program's
//! [`Authorize`] callback (or a configured [`GrantFlow`]), and sends the request again with
//! the token. Tokens are refreshed before they expire and on `401 invalid_token`; a `403
//! insufficient_scope` steps up. Tokens are kept in a [`TokenStore`]. What happens is
//! reported as [`AuthEvent`]s.
//!
//! Secrets (tokens, refresh tokens, client secrets, codes, PKCE verifiers) are never
//! logged, put in an error or shown by `Debug`; authorization URLs are https except for
//! loopback addresses; token requests follow no redirects; the client secret never goes in
//! a URL; a refresh token goes only to the token endpoint of the issuer that issued it.

mod blocking;
mod challenge;
mod client_auth;
mod config;
mod discovery;
pub mod dpop;
mod events;
mod flow;
pub mod grants;
mod http;
mod loopback;
mod metadata;
mod pkce;
mod register;
mod scope;
mod session;
mod store;
mod token;

pub use blocking::BlockingAuthorizer;
pub use client_auth::{AssertionSigner, ClientAuth, ProofSigner};
pub use config::{
    Authorize, BoxFuture, GrantContext, GrantFlow, OAuthConfig, DEFAULT_AUTHORIZE_TIMEOUT,
};
pub use events::AuthEvent;
pub use loopback::LoopbackBrowser;
pub use metadata::{AuthServerMetadata, ProtectedResourceMetadata};
pub use store::{FileTokenStore, JsonStore, JsonTokenStore, MemoryTokenStore, TokenStore};
pub use token::{ClientRegistration, Credentials, Secret, Token, TokenType};

pub(crate) use session::{AuthSession, EventSink};

/// Why authorization failed, in words that never hold a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthError(String);

impl AuthError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        AuthError(msg.into())
    }
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<AuthError> for crate::error::Error {
    fn from(e: AuthError) -> Self {
        crate::error::Error::Transport(format!("MCP authorization: {}", e.0))
    }
}
