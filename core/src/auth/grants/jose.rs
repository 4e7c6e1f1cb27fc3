//! The JOSE pieces the grants, DPoP and the app-server's signed bearer tokens need, on `ring`
//! (already in the tree through rustls): base64url, signing keys (ES256 generated or from a
//! PEM, RS256 from a PEM), compact JWS signing (also HS256 with a shared secret), the public
//! JWK of an ES256 key and its RFC 7638 thumbprint.
//!
//! `ring` rather than `jsonwebtoken`/`josekit`/`p256`: it is the crypto rustls already links
//! (no second implementation, no OpenSSL), it generates P-256 keys and signs ES256 with the
//! fixed-length (JWS) signature format and RS256, and the few lines of JWS framing on top are
//! simpler than adapting a JWT crate's claim model to DPoP proofs.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, KeyPair, RsaKeyPair};
use serde_json::{json, Map, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// base64url without padding (RFC 7515 §2).
pub fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// SHA-256 of `bytes`, base64url-encoded (the DPoP `ath`, the PKCE S256 challenge).
pub fn sha256_b64url(bytes: &[u8]) -> String {
    b64url(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref())
}

/// A fresh random identifier (128 bits, base64url): `jti` of proofs and assertions.
pub fn random_id() -> String {
    let mut b = [0u8; 16];
    // The system RNG fails only if the OS has none; then no identifier is safe to make.
    SystemRandom::new()
        .fill(&mut b)
        .expect("the system random number generator");
    b64url(&b)
}

/// Seconds since the Unix epoch (`iat`, `exp`).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A JWS signature algorithm this client signs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Alg {
    /// ECDSA P-256 with SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl Alg {
    /// The JWS `alg` name.
    pub fn name(self) -> &'static str {
        match self {
            Alg::Es256 => "ES256",
            Alg::Rs256 => "RS256",
        }
    }

    /// Parses a JWS `alg` name (`ES256`, `RS256`).
    pub fn parse(s: &str) -> Option<Alg> {
        match s {
            "ES256" => Some(Alg::Es256),
            "RS256" => Some(Alg::Rs256),
            _ => None,
        }
    }
}

enum KeyInner {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

/// A private signing key. Its `Debug` names the algorithm only.
pub struct SigningKey {
    inner: KeyInner,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({}, <redacted>)", self.alg().name())
    }
}

/// Why a key could not be loaded (never contains key material).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyError(pub String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl SigningKey {
    /// A new random ES256 (P-256) key: the DPoP key of a session.
    pub fn generate_es256() -> SigningKey {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let doc = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("P-256 key generation");
        let pair = EcdsaKeyPair::from_pkcs8(alg, doc.as_ref(), &rng).expect("a key ring made");
        SigningKey {
            inner: KeyInner::Es256(pair),
        }
    }

    /// A key from PEM text: `PRIVATE KEY` (PKCS#8, EC P-256 or RSA) or `RSA PRIVATE KEY`
    /// (PKCS#1). `alg` is the algorithm the caller wants (ES256/RS256); `None` takes it from
    /// the key's type.
    pub fn from_pem(pem: &str, alg: Option<Alg>) -> Result<SigningKey, KeyError> {
        use rustls_pki_types::pem::PemObject;
        use rustls_pki_types::PrivateKeyDer;
        let der = PrivateKeyDer::from_pem_slice(pem.as_bytes())
            .map_err(|_| KeyError("the private key is not a PEM private key".into()))?;
        let rng = SystemRandom::new();
        let es = |bytes: &[u8]| {
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, bytes, &rng).map(
                |k| SigningKey {
                    inner: KeyInner::Es256(k),
                },
            )
        };
        let rs = |k: Result<RsaKeyPair, _>| {
            k.map(|k| SigningKey {
                inner: KeyInner::Rs256(k),
            })
        };
        let key = match &der {
            PrivateKeyDer::Pkcs8(d) => {
                let b = d.secret_pkcs8_der();
                match alg {
                    Some(Alg::Es256) => es(b).ok(),
                    Some(Alg::Rs256) => rs(RsaKeyPair::from_pkcs8(b)).ok(),
                    None => es(b).ok().or_else(|| rs(RsaKeyPair::from_pkcs8(b)).ok()),
                }
            }
            PrivateKeyDer::Pkcs1(d) if alg != Some(Alg::Es256) => {
                rs(RsaKeyPair::from_der(d.secret_pkcs1_der())).ok()
            }
            PrivateKeyDer::Sec1(_) => {
                return Err(KeyError(
                    "EC keys in SEC1 form (`EC PRIVATE KEY`) are not read: convert to PKCS#8 \
                     (`openssl pkcs8 -topk8 -nocrypt`)"
                        .into(),
                ))
            }
            _ => None,
        };
        key.ok_or_else(|| {
            KeyError(match alg {
                Some(a) => format!("the private key is not a valid {} key", a.name()),
                None => "the private key is neither an EC P-256 nor an RSA key".into(),
            })
        })
    }

    /// The algorithm this key signs with.
    pub fn alg(&self) -> Alg {
        match self.inner {
            KeyInner::Es256(_) => Alg::Es256,
            KeyInner::Rs256(_) => Alg::Rs256,
        }
    }

    /// The public key as a JWK (EC keys only: `kty`, `crv`, `x`, `y`; RSA: `kty`, `n`, `e`).
    pub fn public_jwk(&self) -> Value {
        match &self.inner {
            KeyInner::Es256(k) => {
                // Uncompressed point: 0x04 || x (32) || y (32).
                let p = k.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "x": b64url(&p[1..33]), "y": b64url(&p[33..65])})
            }
            KeyInner::Rs256(k) => {
                let c = signature::RsaPublicKeyComponents::<Vec<u8>>::from(k.public());
                json!({"kty": "RSA", "n": b64url(&c.n), "e": b64url(&c.e)})
            }
        }
    }

    /// Signs `input` (the JWS signing input) and returns the raw signature.
    fn sign(&self, input: &[u8]) -> Vec<u8> {
        let rng = SystemRandom::new();
        match &self.inner {
            KeyInner::Es256(k) => k
                .sign(&rng, input)
                .expect("ECDSA signing")
                .as_ref()
                .to_vec(),
            KeyInner::Rs256(k) => {
                let mut sig = vec![0u8; k.public().modulus_len()];
                k.sign(&signature::RSA_PKCS1_SHA256, &rng, input, &mut sig)
                    .expect("RSA signing");
                sig
            }
        }
    }

    /// A compact JWS: `header` gets `alg` set from this key; `claims` is the payload.
    pub fn sign_jwt(&self, mut header: Map<String, Value>, claims: &Value) -> String {
        header.insert("alg".into(), Value::from(self.alg().name()));
        let h = b64url(Value::Object(header).to_string().as_bytes());
        let p = b64url(claims.to_string().as_bytes());
        let input = format!("{h}.{p}");
        let sig = b64url(&self.sign(input.as_bytes()));
        format!("{input}.{sig}")
    }
}

/// A compact JWS signed with HMAC SHA-256 (`HS256`, RFC 7518 §3.2) under the shared secret
/// `key`: `header` gets `alg` set; `claims` is the payload. The JWT of
/// `codex app-server --ws-auth signed-bearer-token`.
pub fn sign_hs256_jwt(key: &[u8], mut header: Map<String, Value>, claims: &Value) -> String {
    header.insert("alg".into(), Value::from("HS256"));
    let h = b64url(Value::Object(header).to_string().as_bytes());
    let p = b64url(claims.to_string().as_bytes());
    let input = format!("{h}.{p}");
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    let sig = b64url(ring::hmac::sign(&key, input.as_bytes()).as_ref());
    format!("{input}.{sig}")
}

/// The RFC 7638 JWK thumbprint (SHA-256, base64url) of a public JWK: the required members in
/// lexicographic order, no whitespace. `None` for a key type without required members here.
pub fn jwk_thumbprint(jwk: &Value) -> Option<String> {
    let s = |k: &str| jwk.get(k).and_then(Value::as_str);
    let canonical = match s("kty")? {
        "EC" => format!(
            r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#,
            Value::from(s("crv")?),
            Value::from(s("x")?),
            Value::from(s("y")?)
        ),
        "RSA" => format!(
            r#"{{"e":{},"kty":"RSA","n":{}}}"#,
            Value::from(s("e")?),
            Value::from(s("n")?)
        ),
        "OKP" => format!(
            r#"{{"crv":{},"kty":"OKP","x":{}}}"#,
            Value::from(s("crv")?),
            Value::from(s("x")?)
        ),
        _ => return None,
    };
    Some(sha256_b64url(canonical.as_bytes()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    /// Splits a compact JWS and verifies its signature with the public key named by `jwk`
    /// (rebuilt from the JWK's members, so the JWK encoding is checked too). Returns the
    /// decoded header and claims.
    pub(crate) fn verify(jws: &str, jwk: &Value) -> (Value, Value) {
        let parts: Vec<&str> = jws.split('.').collect();
        assert_eq!(parts.len(), 3, "compact JWS");
        let dec = |s: &str| URL_SAFE_NO_PAD.decode(s).unwrap();
        let header: Value = serde_json::from_slice(&dec(parts[0])).unwrap();
        let claims: Value = serde_json::from_slice(&dec(parts[1])).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        let sig = dec(parts[2]);
        let field = |k: &str| dec(jwk[k].as_str().unwrap());
        match jwk["kty"].as_str().unwrap() {
            "EC" => {
                let mut point = vec![4u8];
                point.extend(field("x"));
                point.extend(field("y"));
                signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
                    .verify(input.as_bytes(), &sig)
                    .expect("ES256 signature verifies");
            }
            "RSA" => {
                let pk = signature::RsaPublicKeyComponents {
                    n: field("n"),
                    e: field("e"),
                };
                pk.verify(
                    &signature::RSA_PKCS1_2048_8192_SHA256,
                    input.as_bytes(),
                    &sig,
                )
                .expect("RS256 signature verifies");
            }
            k => panic!("kty {k}"),
        }
        (header, claims)
    }

    #[test]
    fn rfc7638_example_thumbprint() {
        // RFC 7638 §3.1.
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(
            jwk_thumbprint(&jwk).unwrap(),
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
        assert_eq!(jwk_thumbprint(&json!({"kty": "oct", "k": "x"})), None);
    }

    #[test]
    fn hs256_jwt_matches_rfc7515_and_verifies() {
        // RFC 7515 appendix A.1: its key and header (as this function writes it, `alg`
        // after `typ`), the MAC checked with `ring::hmac::verify`.
        let key = URL_SAFE_NO_PAD
            .decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
            .unwrap();
        let mut h = Map::new();
        h.insert("typ".into(), "JWT".into());
        let jws = sign_hs256_jwt(&key, h, &json!({"iss": "joe", "exp": 1300819380}));
        let parts: Vec<&str> = jws.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header, json!({"typ": "JWT", "alg": "HS256"}));
        let input = format!("{}.{}", parts[0], parts[1]);
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let k = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
        ring::hmac::verify(&k, input.as_bytes(), &sig).expect("HS256 verifies");
        let other = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, b"another key");
        assert!(ring::hmac::verify(&other, input.as_bytes(), &sig).is_err());
        // The RFC's own signing input gives the RFC's own MAC.
        let rfc_input = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
        assert_eq!(
            b64url(ring::hmac::sign(&k, rfc_input.as_bytes()).as_ref()),
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        );
    }

    #[test]
    fn es256_jwt_verifies_with_its_public_jwk() {
        let key = SigningKey::generate_es256();
        let jwk = key.public_jwk();
        assert_eq!(jwk["kty"], "EC");
        assert!(jwk.get("d").is_none(), "no private part in the JWK");
        let mut h = Map::new();
        h.insert("typ".into(), "JWT".into());
        let jws = key.sign_jwt(h, &json!({"a": 1}));
        let (header, claims) = verify(&jws, &jwk);
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["typ"], "JWT");
        assert_eq!(claims["a"], 1);
        // A second key's JWK does not verify the first key's signature.
        let other = SigningKey::generate_es256().public_jwk();
        let r = std::panic::catch_unwind(|| verify(&jws, &other));
        assert!(r.is_err());
    }

    #[test]
    fn es256_pkcs8_pem_loads_and_signs() {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .unwrap();
        let pem = pem("PRIVATE KEY", doc.as_ref());
        let key = SigningKey::from_pem(&pem, Some(Alg::Es256)).unwrap();
        assert_eq!(key.alg(), Alg::Es256);
        assert_eq!(SigningKey::from_pem(&pem, None).unwrap().alg(), Alg::Es256);
        let jws = key.sign_jwt(Map::new(), &json!({}));
        verify(&jws, &key.public_jwk());
        // Asking for RS256 from an EC key is refused, naming no key material.
        let e = SigningKey::from_pem(&pem, Some(Alg::Rs256)).unwrap_err();
        assert_eq!(e.0, "the private key is not a valid RS256 key");
        assert!(SigningKey::from_pem("not a key", None).is_err());
        assert_eq!(format!("{key:?}"), "SigningKey(ES256, <redacted>)");
    }

    #[test]
    fn rs256_pem_loads_and_signs() {
        let pem_text = TEST_RSA_PKCS8;
        let key = SigningKey::from_pem(pem_text, None).unwrap();
        assert_eq!(key.alg(), Alg::Rs256);
        let jws = key.sign_jwt(Map::new(), &json!({"x": "y"}));
        let (h, c) = verify(&jws, &key.public_jwk());
        assert_eq!(h["alg"], "RS256");
        assert_eq!(c["x"], "y");
        // The same key in PKCS#1 form (`RSA PRIVATE KEY`) loads too, to the same public key.
        let pkcs1 = SigningKey::from_pem(TEST_RSA_PKCS1, Some(Alg::Rs256)).unwrap();
        assert_eq!(pkcs1.public_jwk(), key.public_jwk());
        assert!(SigningKey::from_pem(TEST_RSA_PKCS1, Some(Alg::Es256)).is_err());
    }

    pub(crate) fn pem(label: &str, der: &[u8]) -> String {
        use base64::engine::general_purpose::STANDARD;
        let b = STANDARD.encode(der);
        let lines: Vec<&str> = b
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
            lines.join("\n")
        )
    }

    /// A 2048-bit RSA test key (PKCS#8), generated for these tests only.
    const TEST_RSA_PKCS8: &str = include_str!("../../../tests/data/rsa2048.pem");
    /// The same key as PKCS#1.
    const TEST_RSA_PKCS1: &str = include_str!("../../../tests/data/rsa2048-pkcs1.pem");
}
