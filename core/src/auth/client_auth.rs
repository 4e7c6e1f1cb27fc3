//! How the client authenticates itself at the token endpoint ([`ClientAuth`]), and the two
//! signing hooks the extension grants plug in: [`AssertionSigner`] (`private_key_jwt`
//! client assertions, RFC 7523) and [`ProofSigner`] (DPoP proofs, RFC 9449).

use std::sync::Arc;

use super::token::Secret;
use crate::error::Result;

/// Signs `private_key_jwt` client assertions (RFC 7523 §2.2).
pub trait AssertionSigner: Send + Sync {
    /// A signed JWT asserting `client_id` (as `iss` and `sub`) to `audience` (the
    /// authorization server's issuer or token endpoint), fresh for each request.
    fn client_assertion(&self, client_id: &str, audience: &str) -> Result<String>;
}

/// Signs DPoP proofs (RFC 9449 §4): one per HTTP request, to the token endpoint (no
/// `access_token`) and to the MCP server (with the access token's hash as `ath`).
pub trait ProofSigner: Send + Sync {
    /// The `DPoP` header value for `method` `url` (no query or fragment), with the server's
    /// `nonce` if it gave one.
    fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> Result<String>;
}

/// The client's authentication at the token endpoint.
#[derive(Clone)]
#[non_exhaustive]
pub enum ClientAuth {
    /// `client_secret_basic`: id and secret in `Authorization: Basic` (form-urlencoded
    /// first, RFC 6749 §2.3.1), and the id in the form body too (RFC 6749 §3.2.1), which
    /// servers that identify the client from the form need.
    Basic {
        /// The client id.
        client_id: String,
        /// The client secret.
        secret: Secret,
    },
    /// `client_secret_post`: id and secret in the form body (never in a URL).
    Post {
        /// The client id.
        client_id: String,
        /// The client secret.
        secret: Secret,
    },
    /// `none`: a public client; its id goes in the form body.
    None {
        /// The client id.
        client_id: String,
    },
    /// `private_key_jwt`: a signed assertion in the form body.
    PrivateKeyJwt {
        /// The client id.
        client_id: String,
        /// Signs the assertion.
        signer: Arc<dyn AssertionSigner>,
    },
}

impl ClientAuth {
    /// The client id.
    pub fn client_id(&self) -> &str {
        match self {
            ClientAuth::Basic { client_id, .. }
            | ClientAuth::Post { client_id, .. }
            | ClientAuth::None { client_id }
            | ClientAuth::PrivateKeyJwt { client_id, .. } => client_id,
        }
    }
    /// The method's registered name (`client_secret_basic`, ...).
    pub fn method(&self) -> &'static str {
        match self {
            ClientAuth::Basic { .. } => "client_secret_basic",
            ClientAuth::Post { .. } => "client_secret_post",
            ClientAuth::None { .. } => "none",
            ClientAuth::PrivateKeyJwt { .. } => "private_key_jwt",
        }
    }
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientAuth")
            .field("method", &self.method())
            .field("client_id", &self.client_id())
            .finish()
    }
}

/// `Basic` credentials of RFC 6749 §2.3.1: id and secret each form-urlencoded, then joined
/// with `:` and base64-encoded.
pub(crate) fn basic_header(client_id: &str, secret: &str) -> String {
    use base64::Engine;
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let raw = format!("{}:{}", enc(client_id), enc(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        // RFC 6749 §2.3.1: "a b" -> "a+b", ":" -> "%3A".
        assert_eq!(
            basic_header("my client", "s:ec"),
            format!(
                "Basic {}",
                base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    "my+client:s%3Aec"
                )
            )
        );
        let a = ClientAuth::Post {
            client_id: "id".into(),
            secret: Secret::new("TOPSECRET"),
        };
        let d = format!("{a:?}");
        assert!(
            d.contains("client_secret_post") && !d.contains("TOPSECRET"),
            "{d}"
        );
    }
}
