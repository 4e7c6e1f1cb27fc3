//! Secrets, tokens and what a program keeps between runs ([`Credentials`]).

use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use crate::secret::Secret;

/// How an access token is presented to the MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum TokenType {
    /// `Authorization: Bearer <token>` (RFC 6750).
    #[default]
    Bearer,
    /// `Authorization: DPoP <token>` with a `DPoP` proof header (RFC 9449).
    DPoP,
}

impl TokenType {
    /// The `token_type` of a token response (case-insensitive); `None` for a type this client
    /// cannot present.
    pub fn parse(s: &str) -> Option<TokenType> {
        if s.eq_ignore_ascii_case("bearer") {
            Some(TokenType::Bearer)
        } else if s.eq_ignore_ascii_case("dpop") {
            Some(TokenType::DPoP)
        } else {
            None
        }
    }
    /// The scheme of the `Authorization` header: `Bearer` or `DPoP`.
    pub fn scheme(self) -> &'static str {
        match self {
            TokenType::Bearer => "Bearer",
            TokenType::DPoP => "DPoP",
        }
    }
}

/// An access token with what came with it. `Debug` redacts the tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Token {
    /// The access token.
    pub access_token: Secret,
    /// How it is presented.
    #[serde(default)]
    pub token_type: TokenType,
    /// The refresh token, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires (`None`: not said).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "unix_seconds"
    )]
    pub expires_at: Option<SystemTime>,
    /// The scopes granted (space-separated), when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl Token {
    /// A bearer token with nothing else known about it.
    pub fn bearer(access_token: impl Into<Secret>) -> Self {
        Token {
            access_token: access_token.into(),
            token_type: TokenType::Bearer,
            refresh_token: None,
            expires_at: None,
            scope: None,
        }
    }
    /// Whether the token expires within `margin` from now (false when its expiry is unknown).
    pub fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| at <= SystemTime::now() + margin)
    }
}

/// The token endpoint's answer (RFC 6749 §5.1), as received.
#[derive(Deserialize)]
pub(crate) struct TokenResponse {
    pub access_token: String,
    #[serde(default)]
    pub token_type: Option<String>,
    #[serde(default, deserialize_with = "number_or_string")]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

impl TokenResponse {
    /// The token it gives; `previous_refresh`: kept when a refresh answer brings no new one.
    pub(crate) fn into_token(self, previous_refresh: Option<&Secret>) -> Result<Token, String> {
        let token_type = match self.token_type.as_deref() {
            // RFC 6749 requires it; a missing one is taken for bearer, as the SDKs do.
            None => TokenType::Bearer,
            Some(t) => TokenType::parse(t).ok_or_else(|| {
                format!("the token endpoint issued an unsupported token_type `{t}`")
            })?,
        };
        if self.access_token.is_empty() {
            return Err("the token endpoint issued an empty access_token".into());
        }
        Ok(Token {
            access_token: Secret::new(self.access_token),
            token_type,
            refresh_token: self
                .refresh_token
                .map(Secret::new)
                .or_else(|| previous_refresh.cloned()),
            expires_at: self
                .expires_in
                .map(|s| SystemTime::now() + Duration::from_secs(s.min(10 * 365 * 86_400))),
            scope: self.scope,
        })
    }
}

fn number_or_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumOrStr {
        Num(f64),
        Str(String),
        Null(()),
    }
    Ok(match NumOrStr::deserialize(d)? {
        NumOrStr::Num(n) if n >= 0.0 => Some(n as u64),
        NumOrStr::Str(s) => s.trim().parse().ok(),
        _ => None,
    })
}

mod unix_seconds {
    use super::*;
    pub fn serialize<S: serde::Serializer>(
        t: &Option<SystemTime>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match t.and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
            Some(d) => s.serialize_u64(d.as_secs()),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<SystemTime>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(|s| UNIX_EPOCH + Duration::from_secs(s)))
    }
}

/// A client identity at one authorization server: pre-registered, a client ID metadata
/// document URL, or what dynamic client registration returned. `Debug` redacts the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientRegistration {
    /// The client id.
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// The token endpoint authentication method registered (`client_secret_basic`,
    /// `client_secret_post`, `none`, `private_key_jwt`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The authorization server (issuer) this identity belongs to; `None` for a
    /// pre-registered identity, which is used with any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The redirect URI registered, when the identity came from registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl ClientRegistration {
    /// A client id with no secret.
    pub fn new(client_id: impl Into<String>) -> Self {
        ClientRegistration {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            issuer: None,
            redirect_uri: None,
        }
    }
}

/// What a [`TokenStore`](super::TokenStore) keeps for one MCP server: the token, the
/// authorization server that issued it, and the client identity registered there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Credentials {
    /// The current token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
    /// The issuer of the token (its refresh token goes to this authorization server only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The token endpoint the token came from (refreshes go there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The resource (RFC 8707) the token is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The token endpoint auth method the token was obtained with (refreshes use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<String>,
    /// The client identity registered dynamically (kept so it is not registered again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRegistration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets() {
        let t = Token {
            access_token: Secret::new("AT-123"),
            token_type: TokenType::DPoP,
            refresh_token: Some(Secret::new("RT-456")),
            expires_at: None,
            scope: Some("read".into()),
        };
        let c = Credentials {
            token: Some(t),
            client: Some(ClientRegistration {
                client_secret: Some("CS-789".into()),
                ..ClientRegistration::new("id")
            }),
            ..Default::default()
        };
        let d = format!("{c:?} {c:#?}");
        for s in ["AT-123", "RT-456", "CS-789"] {
            assert!(!d.contains(s), "{d}");
        }
        assert!(d.contains("read") && d.contains("DPoP"));
    }

    #[test]
    fn token_response_rules() {
        let r: TokenResponse = serde_json::from_str(
            r#"{"access_token":"a","token_type":"bearer","expires_in":"3600","scope":"x y"}"#,
        )
        .unwrap();
        let t = r.into_token(Some(&Secret::new("old"))).unwrap();
        assert_eq!(t.token_type, TokenType::Bearer);
        assert_eq!(t.refresh_token.as_ref().unwrap().expose(), "old");
        assert!(t.expires_within(Duration::from_secs(3601)));
        assert!(!t.expires_within(Duration::from_secs(3000)));
        let r: TokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"mac"}"#).unwrap();
        assert!(r.into_token(None).is_err());
        let r: TokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"DPoP","expires_in":60}"#)
                .unwrap();
        assert_eq!(r.into_token(None).unwrap().token_type, TokenType::DPoP);
    }

    #[test]
    fn credentials_round_trip_as_json() {
        let c = Credentials {
            token: Some(Token {
                expires_at: Some(UNIX_EPOCH + Duration::from_secs(2_000_000_000)),
                ..Token::bearer("a")
            }),
            issuer: Some("https://as".into()),
            ..Default::default()
        };
        let j = serde_json::to_string(&c).unwrap();
        assert!(j.contains("2000000000"), "{j}");
        let back: Credentials = serde_json::from_str(&j).unwrap();
        assert_eq!(back, c);
    }
}
