//! How the client authenticates at a token endpoint: `none` (a public client: `client_id` in
//! the form), `client_secret_basic`, `client_secret_post`, and `private_key_jwt` (RFC 7523 §2.2:
//! a short-lived JWT signed with the client's key, `iss` = `sub` = client id, `aud` = the
//! authorization server's issuer).

use super::form::TokenForm;
use super::jose::{now_secs, random_id, SigningKey};
use super::secret::Secret;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Map};
use std::sync::Arc;

/// `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
pub const CLIENT_ASSERTION_TYPE_JWT: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Lifetime of a client assertion, seconds.
const ASSERTION_LIFETIME: u64 = 60;

/// A client's credentials at a token endpoint. `Debug` shows the method and client id only.
#[derive(Clone)]
#[non_exhaustive]
pub enum ClientAuth {
    /// A public client: `client_id` in the form.
    None {
        /// The client id.
        client_id: String,
    },
    /// `client_secret_basic`: HTTP Basic with the form-urlencoded id and secret.
    SecretBasic {
        /// The client id.
        client_id: String,
        /// The client secret.
        secret: Secret,
    },
    /// `client_secret_post`: id and secret in the form.
    SecretPost {
        /// The client id.
        client_id: String,
        /// The client secret.
        secret: Secret,
    },
    /// `private_key_jwt`: a JWT assertion signed with the client's private key.
    PrivateKeyJwt {
        /// The client id.
        client_id: String,
        /// The signing key (ES256 or RS256).
        key: Arc<SigningKey>,
    },
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientAuth({}, {:?})", self.method(), self.client_id())
    }
}

impl ClientAuth {
    /// The `token_endpoint_auth_method` name.
    pub fn method(&self) -> &'static str {
        match self {
            ClientAuth::None { .. } => "none",
            ClientAuth::SecretBasic { .. } => "client_secret_basic",
            ClientAuth::SecretPost { .. } => "client_secret_post",
            ClientAuth::PrivateKeyJwt { .. } => "private_key_jwt",
        }
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        match self {
            ClientAuth::None { client_id }
            | ClientAuth::SecretBasic { client_id, .. }
            | ClientAuth::SecretPost { client_id, .. }
            | ClientAuth::PrivateKeyJwt { client_id, .. } => client_id,
        }
    }

    /// Adds this authentication to a token request: form parameters, and the value of the
    /// `Authorization` header for `client_secret_basic`. `audience` is the authorization
    /// server's issuer (the `aud` of a `private_key_jwt` assertion).
    pub fn apply(&self, form: &mut TokenForm, audience: &str) -> Option<Secret> {
        match self {
            ClientAuth::None { client_id } => {
                form.push("client_id", client_id);
                None
            }
            ClientAuth::SecretBasic { client_id, secret } => {
                Some(basic_authorization(client_id, secret.expose()))
            }
            ClientAuth::SecretPost { client_id, secret } => {
                form.push("client_id", client_id)
                    .push("client_secret", secret.expose());
                None
            }
            ClientAuth::PrivateKeyJwt { client_id, key } => {
                let assertion = client_assertion(key, client_id, audience);
                // No `client_id`: the assertion's `sub` names the client (RFC 7523 §3; the
                // client credentials extension's example).
                form.push("client_assertion_type", CLIENT_ASSERTION_TYPE_JWT)
                    .push("client_assertion", assertion.expose());
                None
            }
        }
    }
}

/// `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1).
pub fn basic_authorization(client_id: &str, secret: &str) -> Secret {
    let pair = format!("{}:{}", form_urlencode(client_id), form_urlencode(secret));
    Secret::new(format!("Basic {}", STANDARD.encode(pair)))
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_urlencode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A `private_key_jwt` client assertion: `iss` = `sub` = `client_id`, `aud` = `audience`,
/// `iat`, `exp` (60 s later), a fresh `jti`.
pub fn client_assertion(key: &SigningKey, client_id: &str, audience: &str) -> Secret {
    let now = now_secs();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": random_id(),
    });
    let mut header = Map::new();
    header.insert("typ".into(), "JWT".into());
    Secret::new(key.sign_jwt(header, &claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::grants::jose::tests::verify;

    #[test]
    fn private_key_jwt_assertion_claims_and_signature() {
        let key = Arc::new(SigningKey::generate_es256());
        let auth = ClientAuth::PrivateKeyJwt {
            client_id: "cid".into(),
            key: key.clone(),
        };
        let mut form = TokenForm::client_credentials(None, None);
        assert!(auth.apply(&mut form, "https://as.example").is_none());
        assert_eq!(form.get("client_id"), None);
        assert_eq!(
            form.get("client_assertion_type"),
            Some(CLIENT_ASSERTION_TYPE_JWT)
        );
        let jwt = form.get("client_assertion").unwrap().to_string();
        let (h, c) = verify(&jwt, &key.public_jwk());
        assert_eq!(h["alg"], "ES256");
        assert_eq!(c["iss"], "cid");
        assert_eq!(c["sub"], "cid");
        assert_eq!(c["aud"], "https://as.example");
        let (iat, exp) = (c["iat"].as_u64().unwrap(), c["exp"].as_u64().unwrap());
        assert!(exp > iat && exp - iat <= 300, "short-lived: {iat}..{exp}");
        assert!(iat.abs_diff(now_secs()) < 5);
        // Each assertion has its own jti.
        let again = client_assertion(&key, "cid", "https://as.example");
        let (_, c2) = verify(again.expose(), &key.public_jwk());
        assert_ne!(c["jti"], c2["jti"]);
        assert!(!format!("{auth:?} {form:?}").contains(&jwt));
    }

    #[test]
    fn secret_basic_and_post() {
        let basic = ClientAuth::SecretBasic {
            client_id: "id:x".into(),
            secret: Secret::new("s e/xyzzy"),
        };
        let mut form = TokenForm::client_credentials(None, None);
        let h = basic.apply(&mut form, "https://as").unwrap();
        let b64 = h.expose().strip_prefix("Basic ").unwrap();
        let pair = String::from_utf8(STANDARD.decode(b64).unwrap()).unwrap();
        assert_eq!(pair, "id%3Ax:s+e%2Fxyzzy");
        assert_eq!(form.get("client_secret"), None);
        assert_eq!(form.get("client_id"), None);
        assert!(!format!("{basic:?}").contains("xyzzy"));

        let post = ClientAuth::SecretPost {
            client_id: "id".into(),
            secret: Secret::new("hunter2"),
        };
        let mut form = TokenForm::client_credentials(None, None);
        assert!(post.apply(&mut form, "https://as").is_none());
        assert_eq!(form.get("client_secret"), Some("hunter2"));
        assert!(!format!("{post:?} {form:?}").contains("hunter2"));
    }
}
