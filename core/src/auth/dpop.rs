//! DPoP (RFC 9449) proofs: a per-client ES256 key ([`Dpop`]) that signs a fresh proof JWT for
//! each request (`typ` `dpop+jwt`, the public `jwk` in the header; `htm`, `htu` without query
//! or fragment, `iat`, `jti`, the server's `nonce`, and `ath` when an access token goes with
//! it). It is the [`ProofSigner`](crate::auth::ProofSigner) of
//! [`OAuthConfig::dpop`](crate::auth::OAuthConfig::dpop); the token request and the MCP
//! transport attach the proofs, present the token as `Authorization: DPoP`, and retry a
//! `use_dpop_nonce` challenge once with the server's `DPoP-Nonce`.

use super::grants::jose::{jwk_thumbprint, now_secs, random_id, sha256_b64url, SigningKey};
use serde_json::{json, Map, Value};

/// The JWS `typ` of a DPoP proof.
pub const PROOF_TYP: &str = "dpop+jwt";
/// A DPoP key (ES256, made at random). `Debug` shows the thumbprint only.
pub struct Dpop {
    key: SigningKey,
    jwk: Value,
    jkt: String,
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
        Dpop { key, jwk, jkt }
    }

    /// The key's RFC 7638 thumbprint (what a bound token's `cnf.jkt` names).
    pub fn jkt(&self) -> &str {
        &self.jkt
    }

    /// The public JWK that goes in each proof's header.
    pub fn public_jwk(&self) -> &Value {
        &self.jwk
    }

    /// A fresh proof for `method url`, with the server's `nonce` if it gave one and, for a
    /// request to the resource server, `ath` of `access_token`.
    pub fn proof(
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
}

impl crate::auth::ProofSigner for Dpop {
    fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> crate::error::Result<String> {
        Ok(Dpop::proof(self, method, url, nonce, access_token))
    }
}

/// The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::grants::jose::tests::verify;

    #[test]
    fn proof_is_signed_by_the_key_in_its_header() {
        let d = Dpop::generate();
        let p = d.proof("post", "https://as.example/token?x=1#f", None, None);
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
            &d.proof("POST", "https://as.example/token", None, None),
            &header_jwk,
        );
        assert_ne!(c["jti"], c2["jti"]);
    }

    #[test]
    fn nonce_and_ath() {
        let d = Dpop::generate();
        let p = d.proof(
            "POST",
            "http://127.0.0.1:9000/mcp",
            Some("n-1"),
            Some("tok"),
        );
        let (_, c) = verify(&p, d.public_jwk());
        assert_eq!(c["nonce"], "n-1");
        assert_eq!(c["htu"], "http://127.0.0.1:9000/mcp");
        // ath = base64url(SHA-256("tok")).
        assert_eq!(c["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        assert_eq!(htu("https://h/p#x?y"), "https://h/p");
        let shown = format!("{d:?}");
        assert!(shown.contains(d.jkt()) && !shown.contains('{'), "{shown}");
    }
}
