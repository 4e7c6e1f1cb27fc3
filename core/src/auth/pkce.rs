//! PKCE (RFC 7636, S256 only) and the `state` value: random strings from the system's
//! secure random source.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};

use super::AuthError;

/// `n` random bytes, base64url without padding.
pub(crate) fn random_string(n: usize) -> Result<String, AuthError> {
    let mut buf = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut buf)
        .map_err(|_| AuthError::new("the system's random source failed"))?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// A PKCE pair: the verifier (kept) and its S256 challenge (sent). `Debug` hides the
/// verifier.
pub(crate) struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

impl Pkce {
    /// A fresh verifier (43 characters: 32 random bytes) and its challenge.
    pub(crate) fn new() -> Result<Pkce, AuthError> {
        let verifier = random_string(32)?;
        Ok(Pkce {
            challenge: s256(&verifier),
            verifier,
        })
    }
}

/// `BASE64URL(SHA256(verifier))`.
pub(crate) fn s256(verifier: &str) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    URL_SAFE_NO_PAD.encode(d.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let p = Pkce::new().unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert!(p
            .verifier
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(p.challenge, s256(&p.verifier));
        assert!(!format!("{p:?}").contains(&p.verifier));
        assert_ne!(Pkce::new().unwrap().verifier, p.verifier);
    }
}
