//! The scenarios of grants beyond the browser (the `auth/*` extension scenarios): client
//! credentials with `client_secret_basic` and `private_key_jwt`, enterprise-managed
//! authorization (token exchange for an ID-JAG, then the JWT bearer grant), workload identity
//! (JWT bearer) and DPoP with and without server nonces. The suite passes the credentials in
//! `MCP_CONFORMANCE_CONTEXT`.

use codex_client::auth::grants::{
    AssertionSource, ClientCredentials, EnterpriseManaged, JwtBearer, PrivateKeyJwt,
};
use codex_client::auth::{dpop::Dpop, OAuthConfig, Secret};
use serde_json::Value;
use std::sync::Arc;

/// The OAuth settings for `scenario`, built on `base` (the `auth/*` settings of
/// [`crate::auth::config`]), or `None` when it is not one of these scenarios.
pub fn configure(
    scenario: &str,
    ctx: &Value,
    base: OAuthConfig,
) -> Option<Result<OAuthConfig, String>> {
    let s = |k: &str| -> Result<String, String> {
        ctx.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no `{k}`"))
    };
    let cfg = match scenario {
        "auth/client-credentials-basic" => (|| {
            Ok(base
                .client_id(s("client_id")?)
                .client_secret(Secret::new(s("client_secret")?))
                .grant(Arc::new(ClientCredentials::new())))
        })(),
        "auth/client-credentials-jwt" => (|| {
            let key = PrivateKeyJwt::from_pem(
                &Secret::new(s("private_key_pem")?),
                ctx.get("signing_algorithm").and_then(Value::as_str),
            )
            .map_err(|e| e.to_string())?;
            Ok(base
                .client_id(s("client_id")?)
                .assertion_signer(Arc::new(key))
                .grant(Arc::new(ClientCredentials::new())))
        })(),
        "auth/enterprise-managed-authorization" => (|| {
            Ok(base
                .client_id(s("client_id")?)
                .client_secret(Secret::new(s("client_secret")?))
                .grant(Arc::new(EnterpriseManaged::new(
                    s("idp_token_endpoint")?,
                    s("idp_client_id")?,
                    None,
                    AssertionSource::Value(Secret::new(s("idp_id_token")?)),
                ))))
        })(),
        "auth/wif-jwt-bearer" => (|| {
            Ok(base
                .client_id(s("client_id")?)
                .grant(Arc::new(JwtBearer::new(AssertionSource::Value(
                    Secret::new(s("valid_jwt")?),
                )))))
        })(),
        "auth/dpop" | "auth/dpop-nonce" => Ok(base.dpop(Arc::new(Dpop::generate()))),
        _ => return None,
    };
    Some(cfg)
}

/// The suite's `MCP_CONFORMANCE_CONTEXT` (JSON; `null` when unset).
pub fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}
