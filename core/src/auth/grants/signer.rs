//! The `private_key_jwt` client assertion signer: a PEM private key (ES256 or RS256) behind
//! the [`AssertionSigner`] hook of the token request.

use super::jose::{now_secs, random_id, Alg, SigningKey};
use crate::auth::{AssertionSigner, Secret};
use crate::error::{Error, Result};
use serde_json::{json, Map};

/// Lifetime of a client assertion, seconds.
const ASSERTION_LIFETIME: u64 = 60;

/// Signs `private_key_jwt` client assertions (RFC 7523 §2.2) with a private key: `iss` = `sub`
/// = the client id, `aud` = the authorization server's issuer, `iat`, `exp` (60 s later) and a
/// fresh `jti`. `Debug` shows the algorithm only.
#[derive(Debug)]
pub struct PrivateKeyJwt {
    key: SigningKey,
}

impl PrivateKeyJwt {
    /// From PEM text (`PRIVATE KEY`: PKCS#8 EC P-256 or RSA; `RSA PRIVATE KEY`: PKCS#1).
    /// `alg`: `ES256` or `RS256`, or `None` to take it from the key. The error names no key
    /// material.
    pub fn from_pem(pem: &Secret, alg: Option<&str>) -> Result<PrivateKeyJwt> {
        let alg = match alg {
            None | Some("") => None,
            Some(a) => Some(Alg::parse(a).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "client assertion signing algorithm `{a}` is not supported (ES256, RS256)"
                ))
            })?),
        };
        let key = SigningKey::from_pem(pem.expose(), alg)
            .map_err(|e| Error::InvalidArgument(format!("client assertion key: {e}")))?;
        Ok(PrivateKeyJwt { key })
    }

    /// The algorithm it signs with (`ES256`, `RS256`).
    pub fn alg(&self) -> &'static str {
        self.key.alg().name()
    }

    /// The public key as a JWK (what the client registers with its authorization server).
    pub fn public_jwk(&self) -> serde_json::Value {
        self.key.public_jwk()
    }

    /// A fresh assertion for `client_id` to `audience`.
    pub fn assertion(&self, client_id: &str, audience: &str) -> Secret {
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
        Secret::new(self.key.sign_jwt(header, &claims))
    }
}

impl AssertionSigner for PrivateKeyJwt {
    fn client_assertion(&self, client_id: &str, audience: &str) -> Result<String> {
        Ok(self.assertion(client_id, audience).expose().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::grants::jose::tests::verify;

    const PEM_RSA: &str = include_str!("../../../tests/data/rsa2048.pem");

    #[test]
    fn assertion_claims_and_signature() {
        for (pem, alg) in [(super::super::tests::PEM_EC, "ES256"), (PEM_RSA, "RS256")] {
            let s = PrivateKeyJwt::from_pem(&Secret::new(pem), None).unwrap();
            assert_eq!(s.alg(), alg);
            let a = s.assertion("cid", "https://as.example");
            let (h, c) = verify(a.expose(), &s.public_jwk());
            assert_eq!(h["alg"], alg);
            assert_eq!(c["iss"], "cid");
            assert_eq!(c["sub"], "cid");
            assert_eq!(c["aud"], "https://as.example");
            let (iat, exp) = (c["iat"].as_u64().unwrap(), c["exp"].as_u64().unwrap());
            assert!(exp > iat && exp - iat <= 300, "short-lived: {iat}..{exp}");
            assert!(iat.abs_diff(now_secs()) < 5);
            let again = s.assertion("cid", "https://as.example");
            let (_, c2) = verify(again.expose(), &s.public_jwk());
            assert_ne!(c["jti"], c2["jti"], "a fresh jti each time");
            assert!(!format!("{s:?} {a:?}").contains(a.expose()));
        }
    }

    #[test]
    fn bad_keys_and_algorithms_are_refused_without_key_material() {
        let e = PrivateKeyJwt::from_pem(&Secret::new(PEM_RSA), Some("ES256")).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("not a valid ES256 key"), "{m}");
        assert!(!m.contains(PEM_RSA.lines().nth(1).unwrap()));
        let e = PrivateKeyJwt::from_pem(&Secret::new(PEM_RSA), Some("HS256")).unwrap_err();
        assert!(e.to_string().contains("HS256"));
        assert!(PrivateKeyJwt::from_pem(&Secret::new("junk"), None).is_err());
    }
}
