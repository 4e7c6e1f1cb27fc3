//! The grants that need no browser, as [`GrantFlow`]s for [`OAuthConfig::grant`]:
//! [`ClientCredentials`] (OAuth 2.1 §4.2, the MCP client credentials extension),
//! [`JwtBearer`] (RFC 7523 §2.1: workload identity federation, SEP-1933) and
//! [`EnterpriseManaged`] (the enterprise-managed authorization extension, SEP-990: an RFC 8693
//! token exchange at the enterprise IdP for an ID-JAG, then the JWT bearer grant with it).
//!
//! A failed grant is reported as it is: no retry, no other grant (SEP-1933).
//!
//! [`OAuthConfig::grant`]: crate::auth::OAuthConfig::grant

use super::form::{TokenForm, TOKEN_TYPE_ID_JAG};
use crate::auth::{BoxFuture, ClientAuth, GrantContext, GrantFlow, Secret, Token};
use crate::error::{Error, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a grant's assertion (a workload identity JWT, an enterprise ID token) comes from;
/// read again for each token request, so a rotated file or a fresh token is used.
#[derive(Clone)]
#[non_exhaustive]
pub enum AssertionSource {
    /// A fixed value.
    Value(Secret),
    /// A file holding it (e.g. a Kubernetes projected service account token); surrounding
    /// whitespace is dropped.
    File(PathBuf),
    /// A callback that returns it.
    Callback(Arc<dyn Fn() -> BoxFuture<'static, Result<Secret>> + Send + Sync>),
}

impl std::fmt::Debug for AssertionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AssertionSource::Value(_) => f.write_str("Value(<redacted>)"),
            AssertionSource::File(p) => write!(f, "File({})", p.display()),
            AssertionSource::Callback(_) => f.write_str("Callback"),
        }
    }
}

impl AssertionSource {
    /// The assertion now. `what` names it in errors.
    pub async fn get(&self, what: &str) -> Result<Secret> {
        let s = match self {
            AssertionSource::Value(s) => s.clone(),
            AssertionSource::File(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| {
                    Error::Transport(format!(
                        "MCP authorization: cannot read the {what} from {}: {e}",
                        p.display()
                    ))
                })?;
                Secret::new(text.trim())
            }
            AssertionSource::Callback(f) => f().await?,
        };
        if s.expose().is_empty() {
            return Err(Error::Transport(format!(
                "MCP authorization: the {what} is empty"
            )));
        }
        Ok(s)
    }
}

fn need_client<'a>(ctx: &GrantContext<'a>, grant: &str) -> Result<&'a ClientAuth> {
    ctx.client.ok_or_else(|| {
        Error::Transport(format!(
            "MCP authorization: the {grant} grant needs a client id (and its secret or key)"
        ))
    })
}

/// The client credentials grant: the client authenticates as itself (client secret or
/// `private_key_jwt`) and gets a token for the resource.
#[derive(Debug, Default, Clone)]
pub struct ClientCredentials;

impl ClientCredentials {
    /// The grant.
    pub fn new() -> ClientCredentials {
        ClientCredentials
    }
}

impl GrantFlow for ClientCredentials {
    fn name(&self) -> &str {
        "client_credentials"
    }

    fn obtain<'a>(&'a self, ctx: GrantContext<'a>) -> BoxFuture<'a, Result<Token>> {
        Box::pin(async move {
            let client = need_client(&ctx, "client_credentials")?;
            let form = TokenForm::client_credentials(ctx.scope, Some(ctx.resource));
            ctx.token_request(form.into_pairs(), client).await
        })
    }
}

/// The JWT bearer grant (RFC 7523 §2.1) with an assertion from elsewhere: workload identity
/// federation, where the platform (Kubernetes, a cloud) issues the workload a JWT whose
/// audience is the authorization server.
#[derive(Debug, Clone)]
pub struct JwtBearer {
    assertion: AssertionSource,
}

impl JwtBearer {
    /// The grant with assertions from `assertion`.
    pub fn new(assertion: AssertionSource) -> JwtBearer {
        JwtBearer { assertion }
    }
}

impl GrantFlow for JwtBearer {
    fn name(&self) -> &str {
        "jwt-bearer"
    }

    fn obtain<'a>(&'a self, ctx: GrantContext<'a>) -> BoxFuture<'a, Result<Token>> {
        Box::pin(async move {
            let assertion = self.assertion.get("JWT bearer assertion").await?;
            let client = need_client(&ctx, "jwt-bearer")?;
            let form = TokenForm::jwt_bearer(assertion.expose(), ctx.scope, Some(ctx.resource));
            ctx.token_request(form.into_pairs(), client).await
        })
    }
}

/// Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise IdP
/// (single sign-on) is exchanged at the IdP's token endpoint for an ID-JAG for this MCP
/// server (RFC 8693, `audience` = the authorization server's issuer, `resource` = the MCP
/// server), which the client then presents to the authorization server in the JWT bearer
/// grant, authenticating as itself there.
#[derive(Clone)]
pub struct EnterpriseManaged {
    idp_token_endpoint: String,
    idp_client: ClientAuth,
    id_token: AssertionSource,
}

impl std::fmt::Debug for EnterpriseManaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseManaged")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client", &self.idp_client)
            .field("id_token", &self.id_token)
            .finish()
    }
}

impl EnterpriseManaged {
    /// The grant: `idp_token_endpoint` of the enterprise IdP, the client's id there
    /// (`idp_client_secret` if it is confidential: sent as `client_secret_post`), and where
    /// the user's ID token comes from.
    pub fn new(
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        idp_client_secret: Option<Secret>,
        id_token: AssertionSource,
    ) -> EnterpriseManaged {
        let client_id = idp_client_id.into();
        let idp_client = match idp_client_secret {
            Some(secret) => ClientAuth::Post { client_id, secret },
            None => ClientAuth::None { client_id },
        };
        EnterpriseManaged {
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client,
            id_token,
        }
    }
}

impl GrantFlow for EnterpriseManaged {
    fn name(&self) -> &str {
        "enterprise-managed (ID-JAG)"
    }

    fn obtain<'a>(&'a self, ctx: GrantContext<'a>) -> BoxFuture<'a, Result<Token>> {
        Box::pin(async move {
            let client = need_client(&ctx, "enterprise-managed")?;
            let id_token = self.id_token.get("enterprise ID token").await?;
            let exchange = TokenForm::id_jag_exchange(
                id_token.expose(),
                &ctx.metadata.issuer,
                ctx.resource,
                ctx.scope,
            );
            let answer = ctx
                .form_request(
                    &self.idp_token_endpoint,
                    exchange.into_pairs(),
                    &self.idp_client,
                )
                .await?;
            let issued = answer
                .get("issued_token_type")
                .and_then(serde_json::Value::as_str);
            if issued != Some(TOKEN_TYPE_ID_JAG) {
                return Err(Error::Transport(format!(
                    "MCP authorization: the IdP's token exchange issued `{}`, not an ID-JAG",
                    issued.unwrap_or("(no issued_token_type)")
                )));
            }
            let id_jag = answer
                .get("access_token")
                .and_then(serde_json::Value::as_str)
                .filter(|s| !s.is_empty())
                .map(Secret::new)
                .ok_or_else(|| {
                    Error::Transport(
                        "MCP authorization: the IdP's token exchange answer has no access_token"
                            .into(),
                    )
                })?;
            let form = TokenForm::jwt_bearer(id_jag.expose(), ctx.scope, Some(ctx.resource));
            ctx.token_request(form.into_pairs(), client).await
        })
    }
}
