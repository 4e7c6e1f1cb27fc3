//! How a client authenticates to `codex app-server --listen ws://…` (option `ws_auth`):
//! Codex's two modes. A capability token is sent as it is (option `token`); a signed bearer
//! token is minted by the library, an HS256 JWT from the shared secret the server reads
//! (`--ws-shared-secret-file`), fresh for every connect and every reconnect.
//!
//! What Codex 0.171.0 checks (measured, `../shared/docs/real-codex.md`): the secret file is
//! read as UTF-8 text and trimmed; it must not be empty and must be at least 32 bytes; a
//! token needs `exp` (expired past `--ws-max-clock-skew-seconds`, 30 s by default, it is
//! refused), and `iss`/`aud` only when the server was started with `--ws-issuer` /
//! `--ws-audience`. The unix control socket checks no token at all.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::TransportKind;
use crate::error::{Error, Result};
use crate::secret::Secret;

/// The lifetime of a minted token unless option `ws_token_lifetime` says otherwise: a token
/// only has to live until the upgrade it is sent with (a new one is minted for the next).
pub const DEFAULT_WS_TOKEN_LIFETIME: Duration = Duration::from_secs(300);
/// The longest lifetime option `ws_token_lifetime` takes (a day).
pub(crate) const MAX_WS_TOKEN_LIFETIME: Duration = Duration::from_secs(86_400);
/// The shortest secret Codex takes (`must be at least 32 bytes`).
const MIN_SECRET_BYTES: usize = 32;

/// How the WebSocket upgrade authenticates (option `ws_auth`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WsAuth {
    /// `"capability-token"` (the default): the transport's token, when it has one, is sent as
    /// it is (`codex app-server --ws-auth capability-token`, or a server without auth).
    #[default]
    CapabilityToken,
    /// `"signed-bearer-token"`: a fresh HS256 JWT for every connect and reconnect
    /// (`codex app-server --ws-auth signed-bearer-token`).
    SignedBearerToken(SignedBearerToken),
}

impl WsAuth {
    /// The option's word: `capability-token` or `signed-bearer-token`.
    pub fn name(&self) -> &'static str {
        match self {
            WsAuth::CapabilityToken => "capability-token",
            WsAuth::SignedBearerToken(_) => "signed-bearer-token",
        }
    }
}

/// The settings of signed bearer tokens: where the shared secret is and what the tokens say.
/// Holds no secret (the file is read for each token), so its `Debug` shows everything.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignedBearerToken {
    /// The file the server reads with `--ws-shared-secret-file` (option
    /// `ws_shared_secret_file`): read as UTF-8 text and trimmed, as Codex reads it; refused
    /// when its group or others can read it.
    pub secret_file: PathBuf,
    /// The `iss` claim (option `ws_issuer`; `--ws-issuer`). `None`: no `iss`.
    pub issuer: Option<String>,
    /// The `aud` claim (option `ws_audience`; `--ws-audience`). `None`: no `aud`.
    pub audience: Option<String>,
    /// How long each token is valid from the moment it is minted (option
    /// `ws_token_lifetime`; whole seconds, at least 1; zero: [`DEFAULT_WS_TOKEN_LIFETIME`]).
    pub lifetime: Duration,
}

impl SignedBearerToken {
    /// Tokens signed with the secret in `secret_file`, no `iss` or `aud`, the default lifetime.
    pub fn new(secret_file: impl Into<PathBuf>) -> Self {
        SignedBearerToken {
            secret_file: secret_file.into(),
            issuer: None,
            audience: None,
            lifetime: DEFAULT_WS_TOKEN_LIFETIME,
        }
    }
    /// Set the `iss` claim.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
    /// Set the `aud` claim.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }
    /// Set each token's lifetime.
    pub fn lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// The shared secret as Codex reads it: the file's UTF-8 text, trimmed. Refused (naming
    /// the file, never its content) when its group or others can read it, when it cannot be
    /// read or is not UTF-8 (Codex's words: `failed to read websocket auth secret …`), when it
    /// is empty or shorter than 32 bytes.
    pub(crate) fn read_secret(&self) -> Result<Secret> {
        read_secret(&self.secret_file)
    }

    /// A fresh token: `{"alg":"HS256","typ":"JWT"}` over `{iss?, aud?, iat, exp, jti}`
    /// (`jti` random, so that no two tokens are the same), signed with the secret read now.
    #[cfg(feature = "mcp-http")]
    #[cfg_attr(not(feature = "ws"), allow(dead_code))] // only ws:// connects mint
    pub(crate) fn mint(&self) -> Result<Secret> {
        use crate::auth::grants::jose::{now_secs, random_id, sign_hs256_jwt};
        let secret = self.read_secret()?;
        let iat = now_secs();
        let mut claims = serde_json::Map::new();
        if let Some(iss) = &self.issuer {
            claims.insert("iss".into(), iss.clone().into());
        }
        if let Some(aud) = &self.audience {
            claims.insert("aud".into(), aud.clone().into());
        }
        claims.insert("iat".into(), iat.into());
        let lifetime = self.lifetime.as_secs().max(1);
        claims.insert("exp".into(), (iat + lifetime).into());
        claims.insert("jti".into(), random_id().into());
        let mut header = serde_json::Map::new();
        header.insert("typ".into(), "JWT".into());
        let jwt = sign_hs256_jwt(
            secret.expose().as_bytes(),
            header,
            &serde_json::Value::Object(claims),
        );
        Ok(Secret::new(jwt))
    }

    /// This build cannot sign (see [`check`]).
    #[cfg(not(feature = "mcp-http"))]
    #[cfg_attr(not(feature = "ws"), allow(dead_code))] // only ws:// connects mint
    pub(crate) fn mint(&self) -> Result<Secret> {
        Err(no_signing())
    }
}

/// Why this build cannot sign a token.
#[cfg_attr(feature = "mcp-http", allow(dead_code))]
fn no_signing() -> Error {
    Error::Unsupported(
        "ws_auth \"signed-bearer-token\" needs the `mcp-http` cargo feature of codex-client \
         (its JWT signing), which this build leaves out"
            .into(),
    )
}

/// The shared secret in `path`, read as Codex reads it (see
/// [`SignedBearerToken::read_secret`]).
fn read_secret(path: &Path) -> Result<Secret> {
    let what = "option `ws_shared_secret_file`";
    let failed = |e: std::io::Error| {
        Error::InvalidArgument(format!(
            "{what}: failed to read websocket auth secret {}: {e}",
            path.display()
        ))
    };
    let meta = std::fs::metadata(path).map_err(failed)?;
    crate::secret::refuse_shared_mode(path, &meta, &format!("{what}: shared secret file"))?;
    let text = Secret::new(std::fs::read_to_string(path).map_err(failed)?);
    let secret = text.expose().trim();
    if secret.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: websocket auth secret {} must not be empty",
            path.display()
        )));
    }
    if secret.len() < MIN_SECRET_BYTES {
        return Err(Error::InvalidArgument(format!(
            "{what}: signed websocket bearer secret {} must be at least {MIN_SECRET_BYTES} bytes",
            path.display()
        )));
    }
    Ok(Secret::new(secret))
}

/// Whether `auth` goes with `transport` and the transport's token: a signed bearer token is
/// for `ws://`/`wss://` with no `token` of its own (the unix control socket checks none), in
/// a build that can sign.
pub(crate) fn check(auth: &WsAuth, transport: &TransportKind) -> Result<()> {
    if !matches!(auth, WsAuth::SignedBearerToken(_)) {
        return Ok(());
    }
    let bad = |m: &str| Err(Error::InvalidArgument(m.to_owned()));
    match transport {
        TransportKind::WebSocket { token: Some(_), .. } => bad(
            "options `token` and ws_auth \"signed-bearer-token\" both give the bearer token: \
             set one (with a signed bearer token the library mints each token from \
             `ws_shared_secret_file`)",
        ),
        TransportKind::WebSocket { .. } if !cfg!(feature = "mcp-http") => Err(no_signing()),
        TransportKind::WebSocket { .. } => Ok(()),
        TransportKind::Unix { .. } => bad(
            "ws_auth \"signed-bearer-token\" is for a ws:// or wss:// transport: Codex checks \
             no token on its unix control socket",
        ),
        _ => bad("ws_auth \"signed-bearer-token\" is for a ws:// or wss:// transport"),
    }
}

/// The `ws_*` options as set by name; [`OptionsBuilder::build`](super::OptionsBuilder::build)
/// makes them a [`WsAuth`].
#[derive(Debug, Clone, Default)]
pub(super) struct WsAuthOptions {
    /// `ws_auth` is `"signed-bearer-token"`.
    pub signed: bool,
    pub secret_file: Option<PathBuf>,
    pub issuer: Option<String>,
    pub audience: Option<String>,
    /// `None`: the default.
    pub lifetime: Option<Duration>,
}

impl WsAuthOptions {
    /// The options of a typed [`WsAuth`].
    pub(super) fn of(auth: &WsAuth) -> WsAuthOptions {
        match auth {
            WsAuth::CapabilityToken => WsAuthOptions::default(),
            WsAuth::SignedBearerToken(s) => WsAuthOptions {
                signed: true,
                secret_file: Some(s.secret_file.clone()),
                issuer: s.issuer.clone(),
                audience: s.audience.clone(),
                lifetime: Some(s.lifetime),
            },
        }
    }

    /// The [`WsAuth`] they make, when they make one (`None`: signed without a secret file).
    pub(super) fn typed(&self) -> Option<WsAuth> {
        if !self.signed {
            return Some(WsAuth::CapabilityToken);
        }
        Some(WsAuth::SignedBearerToken(SignedBearerToken {
            secret_file: self.secret_file.clone()?,
            issuer: self.issuer.clone(),
            audience: self.audience.clone(),
            lifetime: self.lifetime.unwrap_or(DEFAULT_WS_TOKEN_LIFETIME),
        }))
    }

    /// The [`WsAuth`] for `transport`, or why these options do not go with it: the `ws_*`
    /// settings without the signed mode, the signed mode without a secret file or with a
    /// token, off a WebSocket transport; the secret file is read now (a file others can
    /// read, one that is not UTF-8 text, a secret too short: refused here, at option time).
    pub(super) fn build(&self, transport: &TransportKind) -> Result<WsAuth> {
        if !self.signed {
            if self.secret_file.is_some()
                || self.issuer.is_some()
                || self.audience.is_some()
                || self.lifetime.is_some()
            {
                return Err(Error::InvalidArgument(
                    "options `ws_shared_secret_file`, `ws_issuer`, `ws_audience` and \
                     `ws_token_lifetime` are for ws_auth \"signed-bearer-token\" (Codex's \
                     `--ws-auth signed-bearer-token`)"
                        .into(),
                ));
            }
            return Ok(WsAuth::CapabilityToken);
        }
        let Some(auth) = self.typed() else {
            return Err(Error::InvalidArgument(
                "ws_auth \"signed-bearer-token\" needs option `ws_shared_secret_file` (the file \
                 the server reads with `--ws-shared-secret-file`)"
                    .into(),
            ));
        };
        check(&auth, transport)?;
        if let WsAuth::SignedBearerToken(s) = &auth {
            s.read_secret()?;
        }
        Ok(auth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(dir: &Path, name: &str, bytes: &[u8], mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// The secret file is read as Codex reads it, each refusal in Codex's words and never
    /// with the file's content.
    #[test]
    fn the_secret_file_is_read_as_codex_reads_it() {
        let dir = std::env::temp_dir().join(format!("ws-auth-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = file(&dir, "ok", format!("  {HEX}\n").as_bytes(), 0o600);
        assert_eq!(read_secret(&ok).unwrap().expose(), HEX, "trimmed");
        let msg = |p: &Path| read_secret(p).unwrap_err().to_string();
        let shared = file(&dir, "shared", HEX.as_bytes(), 0o640);
        let m = msg(&shared);
        assert!(
            m.contains("readable by others (mode 640)") && m.contains("chmod 600"),
            "{m}"
        );
        assert!(!m.contains(HEX), "{m}");
        let binary = file(&dir, "bin", &[0xff, 0xfe, 0x80, 0x81].repeat(10), 0o600);
        let m = msg(&binary);
        assert!(
            m.contains("failed to read websocket auth secret")
                && m.contains("stream did not contain valid UTF-8"),
            "{m}"
        );
        let empty = file(&dir, "empty", b" \n", 0o600);
        assert!(msg(&empty).contains("must not be empty"));
        let short = file(&dir, "short", format!("{}\n", &HEX[..31]).as_bytes(), 0o600);
        let m = msg(&short);
        assert!(
            m.contains("must be at least 32 bytes") && !m.contains(&HEX[..31]),
            "{m}"
        );
        let m = msg(&dir.join("missing"));
        assert!(
            m.contains("failed to read websocket auth secret") && m.contains("missing"),
            "{m}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each token is fresh: signed with the file's secret, `exp` = `iat` + the lifetime, a
    /// `jti` of its own; its `Debug` shows nothing of it.
    #[cfg(feature = "mcp-http")]
    #[test]
    fn each_token_is_fresh_and_signed_with_the_secret() {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine as _;
        let dir = std::env::temp_dir().join(format!("ws-auth-mint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = file(&dir, "secret", format!("{HEX}\n").as_bytes(), 0o600);
        let s = SignedBearerToken::new(&p)
            .issuer("iss-1")
            .audience("aud-1")
            .lifetime(Duration::from_secs(7));
        let (a, b) = (s.mint().unwrap(), s.mint().unwrap());
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "<redacted>");
        let parts: Vec<&str> = a.expose().split('.').collect();
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, HEX.as_bytes());
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        ring::hmac::verify(&key, format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
            .expect("signed with the trimmed secret");
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "iss-1");
        assert_eq!(claims["aud"], "aud-1");
        assert_eq!(
            claims["exp"].as_u64().unwrap(),
            claims["iat"].as_u64().unwrap() + 7
        );
        assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 16));
        // The secret read for each token: a rotated file signs the next one.
        std::fs::write(&p, HEX.replace('0', "z")).unwrap();
        let c = s.mint().unwrap();
        let parts: Vec<&str> = c.expose().split('.').collect();
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        assert!(
            ring::hmac::verify(&key, format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
                .is_err()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
