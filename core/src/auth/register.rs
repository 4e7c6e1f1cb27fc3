//! The client's identity at an authorization server (MCP authorization, "Client
//! Registration"), in the spec's order: pre-registered id (and secret), else a client ID
//! metadata document URL when the server supports them, else a dynamic registration
//! (RFC 7591) kept from before for this issuer, else a new one; and the token endpoint auth
//! method from what the server supports and what registration returned.

use serde_json::{json, Value};

use super::client_auth::ClientAuth;
use super::config::OAuthConfig;
use super::http::{is_loopback, parse_url, redact_url, AuthHttp};
use super::metadata::AuthServerMetadata;
use super::token::{ClientRegistration, Secret};
use super::AuthError;

/// The client's identity for one flow.
pub(crate) struct Identity {
    /// How it authenticates at the token endpoint.
    pub auth: ClientAuth,
    /// A new or kept dynamic registration, to store with the token.
    pub registration: Option<ClientRegistration>,
}

/// The auth method for a client with `secret`: `asked` (configured or registered) when the
/// server allows it, else the first of basic, post the server supports; `none` without a
/// secret.
pub(crate) fn choose_method(
    md: &AuthServerMetadata,
    has_secret: bool,
    asked: Option<&str>,
) -> &'static str {
    const KNOWN: [&str; 3] = ["client_secret_basic", "client_secret_post", "none"];
    if let Some(a) = asked.and_then(|a| KNOWN.iter().find(|k| **k == a)) {
        if *a == "none" || (has_secret && md.supports_auth_method(a)) {
            return a;
        }
    }
    if !has_secret {
        return "none";
    }
    ["client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| md.supports_auth_method(m))
        .unwrap_or(if md.supports_auth_method("none") {
            "none"
        } else {
            "client_secret_basic"
        })
}

/// Build the [`ClientAuth`] of `client_id` with `secret` by `method`.
pub(crate) fn client_auth(
    cfg: &OAuthConfig,
    md: &AuthServerMetadata,
    client_id: &str,
    secret: Option<&Secret>,
    method: Option<&str>,
) -> ClientAuth {
    if let Some(signer) = &cfg.assertion_signer {
        if md.supports_auth_method("private_key_jwt") || method == Some("private_key_jwt") {
            return ClientAuth::PrivateKeyJwt {
                client_id: client_id.to_owned(),
                signer: signer.clone(),
            };
        }
    }
    let m = choose_method(md, secret.is_some(), method);
    match (m, secret) {
        ("client_secret_basic", Some(s)) => ClientAuth::Basic {
            client_id: client_id.to_owned(),
            secret: s.clone(),
        },
        ("client_secret_post", Some(s)) => ClientAuth::Post {
            client_id: client_id.to_owned(),
            secret: s.clone(),
        },
        _ => ClientAuth::None {
            client_id: client_id.to_owned(),
        },
    }
}

/// The client's identity at the server of `md`; `stored`: a registration kept from before.
pub(crate) async fn identity(
    cfg: &OAuthConfig,
    http: &AuthHttp,
    md: &AuthServerMetadata,
    stored: Option<&ClientRegistration>,
    redirect_uri: Option<&str>,
    scope: Option<&str>,
) -> Result<Identity, AuthError> {
    if let Some(id) = &cfg.client_id {
        let auth = client_auth(
            cfg,
            md,
            id,
            cfg.client_secret.as_ref(),
            cfg.token_endpoint_auth_method.as_deref(),
        );
        return Ok(Identity {
            auth,
            registration: None,
        });
    }
    if let Some(url) = &cfg.client_metadata_url {
        if md.client_id_metadata_document_supported == Some(true) {
            let auth = client_auth(cfg, md, url, None, Some("none"));
            return Ok(Identity {
                auth,
                registration: None,
            });
        }
    }
    if let Some(reg) = stored.filter(|r| r.issuer.as_deref() == Some(md.issuer.as_str())) {
        let same_redirect = redirect_uri.is_none() || reg.redirect_uri.as_deref() == redirect_uri;
        if same_redirect {
            let auth = client_auth(
                cfg,
                md,
                &reg.client_id,
                reg.client_secret.as_ref(),
                reg.token_endpoint_auth_method.as_deref(),
            );
            return Ok(Identity {
                auth,
                registration: Some(reg.clone()),
            });
        }
    }
    let Some(endpoint) = &md.registration_endpoint else {
        return Err(AuthError::new(format!(
            "the authorization server {} offers no way for this client to identify itself: no pre-registered client id was given, {}and it has no registration endpoint",
            md.issuer,
            if cfg.client_metadata_url.is_some() {
                "it does not support client ID metadata documents, "
            } else {
                ""
            }
        )));
    };
    let reg = register(cfg, http, md, endpoint, redirect_uri, scope).await?;
    let auth = client_auth(
        cfg,
        md,
        &reg.client_id,
        reg.client_secret.as_ref(),
        reg.token_endpoint_auth_method.as_deref(),
    );
    Ok(Identity {
        auth,
        registration: Some(reg),
    })
}

/// Dynamic client registration (RFC 7591).
async fn register(
    cfg: &OAuthConfig,
    http: &AuthHttp,
    md: &AuthServerMetadata,
    endpoint: &str,
    redirect_uri: Option<&str>,
    scope: Option<&str>,
) -> Result<ClientRegistration, AuthError> {
    let url = parse_url(endpoint, "the registration endpoint")?;
    let native = redirect_uri
        .and_then(|r| url::Url::parse(r).ok())
        .is_none_or(|u| u.host_str().is_some_and(is_loopback) || u.scheme() != "https");
    let mut grant_types = vec![json!("authorization_code"), json!("refresh_token")];
    if cfg.grant.is_some() {
        grant_types.clear();
    }
    let mut body = json!({
        "client_name": cfg.client_name,
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": if md.supports_auth_method("none") && md.token_endpoint_auth_methods_supported.is_some() { "none" } else { choose_method(md, true, None) },
        "application_type": if native { "native" } else { "web" },
    });
    if let Some(r) = redirect_uri {
        body["redirect_uris"] = json!([r]);
    }
    // The scope goes into the registration only where the authorization server can take it:
    // a server that lists its scopes refuses others (the MCP server's own scopes are often
    // resource scopes it does not list), and the scope is asked for at authorization anyway.
    if let Some(s) = scope {
        let listed = md.scopes_supported.as_ref();
        if listed.is_none_or(|l| s.split(' ').all(|one| l.iter().any(|x| x == one))) {
            body["scope"] = json!(s);
        }
    }
    let (status, answer) = http.post_json(&url, &body).await?;
    if !status.is_success() {
        let err = answer.get("error").and_then(Value::as_str).unwrap_or("");
        let why = answer
            .get("error_description")
            .and_then(Value::as_str)
            .map(|d| format!(": {}", d.chars().take(200).collect::<String>()))
            .unwrap_or_default();
        return Err(AuthError::new(format!(
            "dynamic client registration at {} failed: HTTP {} {err}{why}",
            redact_url(&url),
            status.as_u16()
        )));
    }
    let Some(client_id) = answer.get("client_id").and_then(Value::as_str) else {
        return Err(AuthError::new("the registration answer has no client_id"));
    };
    tracing::debug!("OAuth: registered dynamically at {}", redact_url(&url));
    Ok(ClientRegistration {
        client_id: client_id.to_owned(),
        client_secret: answer
            .get("client_secret")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(Secret::new),
        token_endpoint_auth_method: answer
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .map(str::to_owned),
        issuer: Some(md.issuer.clone()),
        redirect_uri: redirect_uri.map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(methods: Option<&[&str]>) -> AuthServerMetadata {
        AuthServerMetadata {
            issuer: "https://as".into(),
            token_endpoint_auth_methods_supported: methods
                .map(|m| m.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn auth_method_choice() {
        // Registration said so, and the server allows it.
        assert_eq!(
            choose_method(
                &md(Some(&["client_secret_post"])),
                true,
                Some("client_secret_post")
            ),
            "client_secret_post"
        );
        // The server's only method wins over an unsupported ask.
        assert_eq!(
            choose_method(
                &md(Some(&["client_secret_post"])),
                true,
                Some("client_secret_basic")
            ),
            "client_secret_post"
        );
        // RFC 8414 default: basic.
        assert_eq!(choose_method(&md(None), true, None), "client_secret_basic");
        assert_eq!(
            choose_method(
                &md(Some(&["client_secret_basic", "client_secret_post"])),
                true,
                None
            ),
            "client_secret_basic"
        );
        // No secret: none.
        assert_eq!(
            choose_method(&md(Some(&["client_secret_basic"])), false, None),
            "none"
        );
        assert_eq!(choose_method(&md(Some(&["none"])), true, None), "none");
    }
}
