//! The documents discovery reads: OAuth 2.0 protected resource metadata (RFC 9728) and
//! authorization server metadata (RFC 8414, and OpenID Connect discovery's superset).
//! Members this client does not use are kept in `extra`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Protected resource metadata (RFC 9728 §2): which authorization servers issue tokens for
/// the MCP server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier (the MCP server's canonical URI).
    #[serde(default)]
    pub resource: Option<String>,
    /// Issuer URLs of the authorization servers (the first one is used).
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// How a token may be presented (`header`, ...).
    #[serde(default)]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// Whether the resource requires DPoP-bound tokens (RFC 9449 §5.2).
    #[serde(default)]
    pub dpop_bound_access_tokens_required: Option<bool>,
    /// Every other member.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Authorization server metadata (RFC 8414 §2; OpenID Connect discovery).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthServerMetadata {
    /// The issuer identifier.
    #[serde(default)]
    pub issuer: String,
    /// Where the user authorizes the client.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged for tokens.
    #[serde(default)]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// Scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// `code`, ...
    #[serde(default)]
    pub response_types_supported: Option<Vec<String>>,
    /// `authorization_code`, `refresh_token`, `client_credentials`, ...
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// `client_secret_basic`, `client_secret_post`, `none`, `private_key_jwt`, ...
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Signing algorithms for `private_key_jwt` assertions.
    #[serde(default)]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// PKCE methods (`S256`).
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether client ID metadata documents (an https URL as `client_id`) are accepted.
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// DPoP proof algorithms (RFC 9449).
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Token revocation (RFC 7009).
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    /// Every other member.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthServerMetadata {
    /// Whether `method` is among the token endpoint auth methods (RFC 8414: absent means
    /// `client_secret_basic` only).
    pub fn supports_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(m) => m.iter().any(|x| x == method),
            None => method == "client_secret_basic",
        }
    }
    /// Whether `S256` PKCE is advertised.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|x| x == "S256"))
    }
    /// Whether `grant` is among the grant types (RFC 8414: absent means
    /// `authorization_code` and `implicit`).
    pub fn supports_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(g) => g.iter().any(|x| x == grant),
            None => grant == "authorization_code",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_defaults() {
        let m: AuthServerMetadata = serde_json::from_str(
            r#"{"issuer":"https://as","token_endpoint":"https://as/t","code_challenge_methods_supported":["plain","S256"],"custom":1}"#,
        )
        .unwrap();
        assert!(m.supports_s256());
        assert!(m.supports_auth_method("client_secret_basic"));
        assert!(!m.supports_auth_method("none"));
        assert!(m.supports_grant("authorization_code"));
        assert!(!m.supports_grant("client_credentials"));
        assert_eq!(m.extra["custom"], 1);
        let p: ProtectedResourceMetadata = serde_json::from_str(
            r#"{"resource":"https://r/mcp","authorization_servers":["https://as"],"scopes_supported":["a"]}"#,
        )
        .unwrap();
        assert_eq!(p.authorization_servers, ["https://as"]);
        assert_eq!(p.scopes_supported.unwrap(), ["a"]);
    }
}
