//! DPoP (RFC 9449): a per-session ES256 key, a fresh proof JWT for each request (`htm`, `htu`
//! without query or fragment, `iat`, `jti`, the server's `nonce`, and `ath` when an access
//! token goes with it), the `Authorization: DPoP <token>` scheme, and server nonces: the last
//! `DPoP-Nonce` each origin sent is remembered, and a `use_dpop_nonce` challenge (a token
//! endpoint's `400 {"error":"use_dpop_nonce"}`, a resource server's `401` with
//! `WWW-Authenticate: DPoP error="use_dpop_nonce"`) is retried once with it.

use super::grants::jose::{jwk_thumbprint, now_secs, random_id, sha256_b64url, SigningKey};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;

/// The JWS `typ` of a DPoP proof.
pub const PROOF_TYP: &str = "dpop+jwt";
/// The request header that carries a proof, and the response header with a nonce.
pub const HEADER: &str = "DPoP";
/// The response header with a server nonce.
pub const NONCE_HEADER: &str = "DPoP-Nonce";

/// A session's DPoP key and the nonces servers handed out. `Debug` shows the thumbprint only.
pub struct Dpop {
    key: SigningKey,
    jwk: Value,
    jkt: String,
    /// Last nonce per origin (`scheme://host:port`).
    nonces: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dpop(jkt {})", self.jkt)
    }
}

impl Default for Dpop {
    fn default() -> Dpop {
        Dpop::generate()
    }
}

impl Dpop {
    /// A new random ES256 key.
    pub fn generate() -> Dpop {
        let key = SigningKey::generate_es256();
        let jwk = key.public_jwk();
        let jkt = jwk_thumbprint(&jwk).expect("an EC JWK has a thumbprint");
        Dpop {
            key,
            jwk,
            jkt,
            nonces: Mutex::new(HashMap::new()),
        }
    }

    /// The key's RFC 7638 thumbprint (what a bound token's `cnf.jkt` names).
    pub fn jkt(&self) -> &str {
        &self.jkt
    }

    /// The public JWK that goes in each proof's header.
    pub fn public_jwk(&self) -> &Value {
        &self.jwk
    }

    /// A fresh proof for `method url`, with the nonce last seen from `url`'s origin and, for a
    /// resource request, `ath` of `access_token`.
    pub fn proof(&self, method: &str, url: &str, access_token: Option<&str>) -> String {
        let nonce = self.nonce_for(url);
        self.proof_with(method, url, nonce.as_deref(), access_token)
    }

    /// A fresh proof with an explicit nonce.
    pub fn proof_with(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> String {
        let mut claims = json!({
            "jti": random_id(),
            "htm": method.to_ascii_uppercase(),
            "htu": htu(url),
            "iat": now_secs(),
        });
        if let Some(n) = nonce {
            claims["nonce"] = Value::from(n);
        }
        if let Some(t) = access_token {
            claims["ath"] = Value::from(sha256_b64url(t.as_bytes()));
        }
        let mut header = Map::new();
        header.insert("typ".into(), Value::from(PROOF_TYP));
        header.insert("jwk".into(), self.jwk.clone());
        self.key.sign_jwt(header, &claims)
    }

    /// The nonce last seen from `url`'s origin.
    pub fn nonce_for(&self, url: &str) -> Option<String> {
        let o = origin(url)?;
        self.nonces.lock().ok()?.get(&o).cloned()
    }

    /// Remembers a `DPoP-Nonce` response header from `url`'s origin (any response may carry a
    /// new one, RFC 9449 §8.2). Returns whether it changed the stored nonce.
    pub fn remember_nonce(&self, url: &str, nonce: Option<&str>) -> bool {
        let (Some(o), Some(n)) = (origin(url), nonce.map(str::trim).filter(|n| !n.is_empty()))
        else {
            return false;
        };
        let Ok(mut m) = self.nonces.lock() else {
            return false;
        };
        if m.get(&o).is_some_and(|old| old == n) {
            return false;
        }
        m.insert(o, n.to_string());
        true
    }
}

/// `Authorization` value for a DPoP-bound access token.
pub fn authorization(access_token: &str) -> String {
    format!("DPoP {access_token}")
}

/// The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_string()
}

/// `scheme://authority` of an absolute URL (lowercase), the key of the nonce table.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(format!("{}://{}", scheme, &rest[..end]).to_ascii_lowercase())
}

/// Whether a token endpoint's error response asks for a nonce: status 400 with
/// `{"error":"use_dpop_nonce"}` (RFC 9449 §8).
pub fn token_endpoint_wants_nonce(status: u16, body: &[u8]) -> bool {
    status == 400
        && serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| {
                v.get("error")
                    .and_then(Value::as_str)
                    .map(|e| e == "use_dpop_nonce")
            })
            .unwrap_or(false)
}

/// Whether a resource server's response asks for a nonce: status 401 with a `DPoP` challenge
/// whose `error` is `use_dpop_nonce` (RFC 9449 §9).
pub fn resource_wants_nonce<'a>(
    status: u16,
    www_authenticate: impl IntoIterator<Item = &'a str>,
) -> bool {
    status == 401
        && www_authenticate.into_iter().any(|h| {
            let l = h.to_ascii_lowercase();
            l.trim_start().starts_with("dpop")
                && (l.contains("error=\"use_dpop_nonce\"") || l.contains("error=use_dpop_nonce"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::grants::jose::tests::verify;

    #[test]
    fn proof_is_signed_by_the_key_in_its_header() {
        let d = Dpop::generate();
        let p = d.proof("post", "https://as.example/token?x=1#f", None);
        let header_jwk = {
            use base64::Engine as _;
            let h = p.split('.').next().unwrap();
            let h: Value = serde_json::from_slice(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(h)
                    .unwrap(),
            )
            .unwrap();
            h["jwk"].clone()
        };
        let (h, c) = verify(&p, &header_jwk);
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert!(h["jwk"].get("d").is_none(), "no private key in the header");
        assert_eq!(jwk_thumbprint(&h["jwk"]).unwrap(), d.jkt());
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["htu"], "https://as.example/token");
        assert!(c.get("nonce").is_none() && c.get("ath").is_none());
        assert!(c["iat"].as_u64().unwrap().abs_diff(now_secs()) < 5);
        // Fresh jti each time.
        let (_, c2) = verify(
            &d.proof("POST", "https://as.example/token", None),
            &header_jwk,
        );
        assert_ne!(c["jti"], c2["jti"]);
    }

    #[test]
    fn ath_and_nonces_per_origin() {
        let d = Dpop::generate();
        let rs = "http://127.0.0.1:9000/mcp";
        assert!(d.remember_nonce(rs, Some("n-1")));
        assert!(!d.remember_nonce("http://127.0.0.1:9000/other", Some("n-1")));
        let p = d.proof("POST", rs, Some("tok"));
        let (_, c) = verify(&p, d.public_jwk());
        assert_eq!(c["nonce"], "n-1");
        // ath = base64url(SHA-256("tok")).
        assert_eq!(c["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        // Another origin has no nonce.
        let (_, c) = verify(
            &d.proof("POST", "http://127.0.0.1:9001/token", None),
            d.public_jwk(),
        );
        assert!(c.get("nonce").is_none());
        assert_eq!(authorization("tok"), "DPoP tok");
        assert!(!format!("{d:?}").contains('{'));
    }

    #[test]
    fn nonce_challenges() {
        assert!(token_endpoint_wants_nonce(
            400,
            br#"{"error":"use_dpop_nonce","error_description":"x"}"#
        ));
        assert!(!token_endpoint_wants_nonce(
            400,
            br#"{"error":"invalid_grant"}"#
        ));
        assert!(!token_endpoint_wants_nonce(
            401,
            br#"{"error":"use_dpop_nonce"}"#
        ));
        assert!(resource_wants_nonce(
            401,
            [r#"DPoP error="use_dpop_nonce", resource_metadata="http://x""#]
        ));
        assert!(!resource_wants_nonce(
            401,
            [r#"DPoP resource_metadata="http://x""#]
        ));
        assert!(!resource_wants_nonce(
            401,
            [r#"Bearer error="invalid_token""#]
        ));
        assert!(!resource_wants_nonce(
            403,
            [r#"DPoP error="use_dpop_nonce""#]
        ));
    }
}
