//! The scenarios of grants beyond the browser (the `auth/*` extension scenarios): client
//! credentials with `client_secret_basic` and `private_key_jwt`, enterprise-managed
//! authorization (token exchange for an ID-JAG, then the JWT bearer grant), workload identity
//! (JWT bearer) and DPoP with and without server nonces. The suite passes the credentials in
//! `MCP_CONFORMANCE_CONTEXT`. Each grant is configured by the option names every binding uses
//! (`oauth_grant`, `oauth_private_key`, `oauth_assertion`, `oauth_idp_*`, `oauth_dpop`; C's
//! `codex_options_set`, Python's keywords), so these scenarios prove the names as well as the
//! grants.

use codex_client::auth::OAuthConfig;
use codex_client::{OptionsBuilder, TransportKind};
use serde_json::{json, Value};

/// The OAuth settings for `scenario`, built on `base` (the `auth/*` settings of
/// [`crate::auth::config`]), or `None` when it is not one of these scenarios.
pub fn configure(
    scenario: &str,
    ctx: &Value,
    base: OAuthConfig,
) -> Option<Result<OAuthConfig, String>> {
    let s = |k: &str| -> Result<Value, String> {
        ctx.get(k)
            .filter(|v| v.is_string())
            .cloned()
            .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no `{k}`"))
    };
    let options = match scenario {
        "auth/client-credentials-basic" => (|| {
            Ok(vec![
                ("oauth_grant", json!("client_credentials")),
                ("oauth_client_id", s("client_id")?),
                ("oauth_client_secret", s("client_secret")?),
            ])
        })(),
        // The signing algorithm (`signing_algorithm`) is the key's own.
        "auth/client-credentials-jwt" => (|| {
            Ok(vec![
                ("oauth_grant", json!("client_credentials")),
                ("oauth_client_id", s("client_id")?),
                ("oauth_private_key", s("private_key_pem")?),
            ])
        })(),
        "auth/enterprise-managed-authorization" => (|| {
            Ok(vec![
                ("oauth_grant", json!("enterprise_managed")),
                ("oauth_client_id", s("client_id")?),
                ("oauth_client_secret", s("client_secret")?),
                ("oauth_assertion", s("idp_id_token")?),
                ("oauth_idp_token_endpoint", s("idp_token_endpoint")?),
                ("oauth_idp_client_id", s("idp_client_id")?),
            ])
        })(),
        "auth/wif-jwt-bearer" => (|| {
            Ok(vec![
                ("oauth_grant", json!("jwt_bearer")),
                ("oauth_client_id", s("client_id")?),
                ("oauth_assertion", s("valid_jwt")?),
            ])
        })(),
        "auth/dpop" | "auth/dpop-nonce" => Ok(vec![("oauth_dpop", json!(true))]),
        _ => return None,
    };
    Some(options.and_then(|o| by_name(o, base)))
}

/// `base` with what the options `named` configure (client identity, grant, client assertion
/// signer, DPoP), built by the core's option table as a binding's options are.
fn by_name(named: Vec<(&str, Value)>, base: OAuthConfig) -> Result<OAuthConfig, String> {
    let mut b = OptionsBuilder::new();
    let e = |e: codex_client::Error| e.to_string();
    b.set("transport", json!("http://127.0.0.1:1/mcp"))
        .map_err(e)?;
    for (k, v) in named {
        b.set(k, v).map_err(e)?;
    }
    let TransportKind::McpHttp(h) = b.build().map_err(e)?.get_transport().clone() else {
        return Err("an HTTP transport".into());
    };
    let n = h
        .oauth
        .ok_or("the oauth options make an OAuth configuration")?;
    let mut cfg = base;
    if n.client_id.is_some() {
        cfg.client_id = n.client_id;
        cfg.client_secret = n.client_secret;
    }
    cfg.grant = n.grant;
    cfg.assertion_signer = n.assertion_signer;
    cfg.dpop = n.dpop;
    Ok(cfg)
}

/// The suite's `MCP_CONFORMANCE_CONTEXT` (JSON; `null` when unset).
pub fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}
