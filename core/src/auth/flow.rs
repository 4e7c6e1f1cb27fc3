//! Getting a token once discovery is done: the authorization code flow with PKCE (S256
//! only), `state` and the RFC 9207 `iss` checks, `resource` on every request; a
//! [`GrantFlow`](super::GrantFlow) instead when one is configured; and refreshing.

use url::Url;

use super::config::{GrantContext, OAuthConfig};
use super::discovery::Discovered;
use super::http::{check_secure, parse_url, redact_url, AuthHttp};
use super::pkce::{random_string, Pkce};
use super::register::{client_auth, identity};
use super::token::{ClientRegistration, Credentials, Token};
use super::AuthError;

/// A new token from `found`'s authorization server for `scopes`.
pub(crate) async fn obtain(
    cfg: &OAuthConfig,
    http: &AuthHttp,
    found: &Discovered,
    scopes: &[String],
    stored_client: Option<&ClientRegistration>,
) -> Result<Credentials, AuthError> {
    let md = &found.server;
    let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
    let token_endpoint = md.token_endpoint.as_deref().ok_or_else(|| {
        AuthError::new(format!(
            "the authorization server {} has no token endpoint",
            md.issuer
        ))
    })?;
    let token_url = parse_url(token_endpoint, "the token endpoint")?;
    check_secure(&token_url, "token endpoint")?;
    if let Some(grant) = &cfg.grant {
        let ident = match (&cfg.client_id, stored_client) {
            (Some(_), _) | (None, Some(_)) => {
                Some(identity(cfg, http, md, stored_client, None, scope.as_deref()).await?)
            }
            _ => None,
        };
        let ctx = GrantContext {
            metadata: md,
            resource: &found.resource,
            scope: scope.as_deref(),
            client: ident.as_ref().map(|i| &i.auth),
            http,
        };
        let token = grant
            .obtain(ctx)
            .await
            .map_err(|e| AuthError::new(e.to_string()))?;
        return Ok(Credentials {
            token: Some(token),
            issuer: Some(md.issuer.clone()),
            token_endpoint: Some(token_url.to_string()),
            resource: Some(found.resource.clone()),
            auth_method: ident.as_ref().map(|i| i.auth.method().to_owned()),
            client: ident.and_then(|i| i.registration),
        });
    }
    if !md.supports_s256() {
        return Err(AuthError::new(format!(
            "the authorization server {} does not advertise PKCE with S256 (code_challenge_methods_supported); refusing to authorize without it",
            md.issuer
        )));
    }
    let authorizer = cfg.authorizer.as_ref().ok_or_else(|| {
        AuthError::new(
            "the server requires authorization and no authorize callback (browser step) is set",
        )
    })?;
    let redirect_uri = cfg
        .redirect_uri
        .clone()
        .or_else(|| authorizer.redirect_uri())
        .ok_or_else(|| {
            AuthError::new("no redirect URI: set one, or use an authorizer that has one")
        })?;
    let auth_endpoint = md.authorization_endpoint.as_deref().ok_or_else(|| {
        AuthError::new(format!(
            "the authorization server {} has no authorization endpoint",
            md.issuer
        ))
    })?;
    let mut auth_url = parse_url(auth_endpoint, "the authorization endpoint")?;
    check_secure(&auth_url, "authorization endpoint")?;
    let ident = identity(
        cfg,
        http,
        md,
        stored_client,
        Some(&redirect_uri),
        scope.as_deref(),
    )
    .await?;
    let pkce = Pkce::new()?;
    let state = random_string(24)?;
    {
        let mut q = auth_url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", ident.auth.client_id())
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", &found.resource);
        if let Some(s) = &scope {
            q.append_pair("scope", s);
        }
    }
    tracing::debug!(
        "OAuth: authorization request to {} (client {}, scope {:?})",
        redact_url(&auth_url),
        ident.auth.client_id(),
        scope
    );
    let bound = cfg.authorize_timeout;
    let redirected = tokio::time::timeout(bound, authorizer.authorize(auth_url.to_string()))
        .await
        .map_err(|_| {
            AuthError::new(format!(
                "the authorize callback (browser step) gave no redirect within {bound:?}"
            ))
        })?
        .map_err(|e| AuthError::new(format!("the authorize callback failed: {e}")))?;
    let code = check_redirect(&redirected, &state, md)?;
    let form = vec![
        ("grant_type", "authorization_code".to_owned()),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", pkce.verifier),
        ("resource", found.resource.clone()),
    ];
    let token = http
        .token(&token_url, form, &ident.auth, &md.issuer, None)
        .await
        .map_err(|e| e.into_auth())?;
    Ok(Credentials {
        token: Some(token),
        issuer: Some(md.issuer.clone()),
        token_endpoint: Some(token_url.to_string()),
        resource: Some(found.resource.clone()),
        auth_method: Some(ident.auth.method().to_owned()),
        client: ident.registration,
    })
}

/// Check the authorization response (the redirect URL): the `iss` per RFC 9207 and the MCP
/// table (before anything else is acted on), then `state`, then `error`; the code.
pub(crate) fn check_redirect(
    redirected: &str,
    state: &str,
    md: &super::metadata::AuthServerMetadata,
) -> Result<String, AuthError> {
    let url = Url::parse(redirected.trim()).map_err(|e| {
        AuthError::new(format!("the authorize callback returned no valid URL: {e}"))
    })?;
    let mut iss = None;
    let mut got_state = None;
    let mut code = None;
    let mut error = None;
    let mut description = None;
    let pairs = url.query_pairs().chain(
        url.fragment()
            .map(|f| url::form_urlencoded::parse(f.as_bytes()))
            .into_iter()
            .flatten(),
    );
    for (k, v) in pairs {
        match k.as_ref() {
            "iss" => iss = Some(v.into_owned()),
            "state" => got_state = Some(v.into_owned()),
            "code" => code = Some(v.into_owned()),
            "error" => error = Some(v.into_owned()),
            "error_description" => description = Some(v.into_owned()),
            _ => {}
        }
    }
    match (md.authorization_response_iss_parameter_supported == Some(true), &iss) {
        (_, Some(i)) if *i != md.issuer => {
            return Err(AuthError::new(format!(
                "the authorization response names issuer `{i}`, not `{}` (RFC 9207); rejected",
                md.issuer
            )))
        }
        (true, None) => {
            return Err(AuthError::new(format!(
                "the authorization server {} advertises `iss` in authorization responses but sent none (RFC 9207); rejected",
                md.issuer
            )))
        }
        _ => {}
    }
    if got_state.as_deref() != Some(state) {
        return Err(AuthError::new(
            "the authorization response's `state` does not match the request's; rejected",
        ));
    }
    if let Some(e) = error {
        let d = description.map(|d| format!(": {d}")).unwrap_or_default();
        return Err(AuthError::new(format!(
            "the authorization server refused: {e}{d}"
        )));
    }
    code.filter(|c| !c.is_empty())
        .ok_or_else(|| AuthError::new("the authorization response carries no code"))
}

/// Refresh `creds`'s token at the token endpoint it came from (never another issuer's).
pub(crate) async fn refresh(
    cfg: &OAuthConfig,
    http: &AuthHttp,
    creds: &Credentials,
) -> Result<Token, super::http::TokenError> {
    let (Some(token), Some(endpoint), Some(issuer)) =
        (&creds.token, &creds.token_endpoint, &creds.issuer)
    else {
        return Err(AuthError::new("nothing to refresh").into());
    };
    let Some(rt) = &token.refresh_token else {
        return Err(AuthError::new("no refresh token").into());
    };
    let url = parse_url(endpoint, "the token endpoint")?;
    // The issuer's metadata is not fetched again for a refresh: the stored client identity
    // decides the auth method, as registered.
    let method = creds
        .auth_method
        .as_deref()
        .unwrap_or("client_secret_basic");
    let md = super::metadata::AuthServerMetadata {
        issuer: issuer.clone(),
        token_endpoint: Some(endpoint.clone()),
        token_endpoint_auth_methods_supported: Some(vec![method.to_owned()]),
        ..Default::default()
    };
    let auth = match (&cfg.client_id, &creds.client) {
        (Some(id), _) => client_auth(cfg, &md, id, cfg.client_secret.as_ref(), Some(method)),
        (None, Some(reg)) => client_auth(
            cfg,
            &md,
            &reg.client_id,
            reg.client_secret.as_ref(),
            Some(method),
        ),
        (None, None) => match &cfg.client_metadata_url {
            Some(u) => client_auth(cfg, &md, u, None, Some(method)),
            None => return Err(AuthError::new("no client identity to refresh with").into()),
        },
    };
    let mut form = vec![
        ("grant_type", "refresh_token".to_owned()),
        ("refresh_token", rt.expose().to_owned()),
    ];
    if let Some(r) = &creds.resource {
        form.push(("resource", r.clone()));
    }
    http.token(&url, form, &auth, issuer, Some(rt)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::metadata::AuthServerMetadata;

    fn md(supported: Option<bool>) -> AuthServerMetadata {
        AuthServerMetadata {
            issuer: "http://127.0.0.1:9/as".into(),
            authorization_response_iss_parameter_supported: supported,
            ..Default::default()
        }
    }

    #[test]
    fn iss_table_of_rfc9207() {
        let ok = "http://127.0.0.1:1/cb?code=C&state=S&iss=http%3A%2F%2F127.0.0.1%3A9%2Fas";
        let none = "http://127.0.0.1:1/cb?code=C&state=S";
        let wrong = "http://127.0.0.1:1/cb?code=C&state=S&iss=https%3A%2F%2Fevil.example.com";
        let slash = "http://127.0.0.1:1/cb?code=C&state=S&iss=http%3A%2F%2F127.0.0.1%3A9%2Fas%2F";
        // Advertised: present and equal proceeds; absent, different or only equal after
        // normalization is rejected.
        assert_eq!(check_redirect(ok, "S", &md(Some(true))).unwrap(), "C");
        assert!(check_redirect(none, "S", &md(Some(true))).is_err());
        assert!(check_redirect(wrong, "S", &md(Some(true))).is_err());
        assert!(check_redirect(slash, "S", &md(Some(true))).is_err());
        // Not advertised: absent proceeds, present is compared all the same.
        assert_eq!(check_redirect(none, "S", &md(None)).unwrap(), "C");
        assert_eq!(check_redirect(ok, "S", &md(Some(false))).unwrap(), "C");
        assert!(check_redirect(wrong, "S", &md(None)).is_err());
    }

    #[test]
    fn state_error_and_code() {
        let m = md(None);
        assert!(check_redirect("http://127.0.0.1/cb?code=C&state=X", "S", &m).is_err());
        assert!(check_redirect("http://127.0.0.1/cb?code=C", "S", &m).is_err());
        let e = check_redirect("http://127.0.0.1/cb?error=access_denied&state=S", "S", &m)
            .unwrap_err()
            .to_string();
        assert!(e.contains("access_denied"), "{e}");
        // A wrong issuer's error is not shown.
        let e = check_redirect(
            "http://127.0.0.1/cb?error=evil_said&state=S&iss=https%3A%2F%2Fevil",
            "S",
            &m,
        )
        .unwrap_err()
        .to_string();
        assert!(!e.contains("evil_said"), "{e}");
        // The code is never in a message.
        let e = check_redirect("http://127.0.0.1/cb?code=SECRETCODE&state=X", "S", &m)
            .unwrap_err()
            .to_string();
        assert!(!e.contains("SECRETCODE"), "{e}");
        assert!(check_redirect("not a url", "S", &m).is_err());
    }
}
