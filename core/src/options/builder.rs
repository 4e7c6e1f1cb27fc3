//! [`OptionsBuilder`]: client options set by name, the way every binding sets them (Python's
//! keyword arguments, C's `codex_options_set`), checked once here.

use super::{
    ClientOptions, Clients, McpCommand, OAuthOptions, OptionsBuilder, TransportKind, WsAuthOptions,
};
use crate::error::{Error, Result};

/// Deprecated values of option `transport`, each with the spelling that replaces it. Set
/// through [`OptionsBuilder::set`], one is still accepted, logged once at warn level and
/// listed by [`OptionsBuilder::deprecations`] (Python raises it as a `DeprecationWarning`).
pub(super) const DEPRECATED_TRANSPORTS: &[(&str, &str)] = &[("mcp", "codex-mcp-server")];

impl OptionsBuilder {
    /// A builder holding `o` as it is (its reconnect and heartbeat as the policy options), to
    /// read or check typed options through the table.
    pub(super) fn wrapping(o: ClientOptions) -> OptionsBuilder {
        OptionsBuilder {
            reconnect_on: o.reconnect.is_some(),
            reconnect: o.reconnect.unwrap_or_default(),
            heartbeat_on: o.heartbeat.is_some(),
            heartbeat: o.heartbeat.unwrap_or_default(),
            ws: WsAuthOptions::of(&o.ws_auth),
            o,
            ..OptionsBuilder::new()
        }
    }

    /// The options held, the reconnect and heartbeat policies back in them (the transport
    /// is left as it is: [`build`](Self::build) makes it).
    pub(super) fn into_options(self) -> ClientOptions {
        let mut o = self.o;
        o.reconnect = self.reconnect_on.then_some(self.reconnect);
        o.heartbeat = self.heartbeat_on.then_some(self.heartbeat);
        if let Some(auth) = self.ws.typed() {
            o.ws_auth = auth;
        }
        o
    }
}

/// The grants of option `oauth_grant`.
pub(super) const OAUTH_GRANTS: &[&str] = &[
    "authorization_code",
    "client_credentials",
    "jwt_bearer",
    "enterprise_managed",
];

impl OAuthOptions {
    /// Whether any was set.
    fn used(&self) -> bool {
        self.on
            || self.client_id.is_some()
            || self.client_secret.is_some()
            || self.redirect_uri.is_some()
            || self.scopes.is_some()
            || self.client_metadata_url.is_some()
            || self.token_file.is_some()
            || self.callbacks()
            || self.grant.is_some()
            || self.private_key.is_some()
            || self.private_key_file.is_some()
            || self.assertion.is_some()
            || self.assertion_file.is_some()
            || self.idp_token_endpoint.is_some()
            || self.idp_client_id.is_some()
            || self.idp_client_secret.is_some()
            || self.dpop
            || self.authorize_timeout.is_some()
    }

    /// Whether a binding handed over a callback (the browser step or the token store).
    #[cfg(feature = "mcp-http")]
    fn callbacks(&self) -> bool {
        self.authorizer.is_some() || self.store.is_some()
    }
    #[cfg(not(feature = "mcp-http"))]
    fn callbacks(&self) -> bool {
        false
    }

    /// The configuration they make, or why they do not go together.
    #[cfg(feature = "mcp-http")]
    fn config(&self) -> Result<crate::auth::OAuthConfig> {
        use crate::auth::grants::{
            AssertionSource, ClientCredentials, EnterpriseManaged, JwtBearer, PrivateKeyJwt,
        };
        use std::sync::Arc;
        let bad = |m: String| Err(Error::InvalidArgument(m));
        let mut c = crate::auth::OAuthConfig::new();
        c.client_id = self.client_id.clone();
        c.client_secret = self.client_secret.clone().map(Into::into);
        c.redirect_uri = self.redirect_uri.clone();
        c.scopes = self.scopes.clone();
        c.client_metadata_url = self.client_metadata_url.clone();
        if let Some(p) = &self.token_file {
            c.store = Arc::new(crate::auth::FileTokenStore::new(p));
        }
        if let Some(s) = &self.store {
            c.store = s.clone();
        }
        c.authorizer = self.authorizer.clone();
        if let Some(t) = self.authorize_timeout {
            c.authorize_timeout = t;
        }
        if self.dpop {
            c.dpop = Some(Arc::new(crate::auth::dpop::Dpop::generate()));
        }
        // `private_key_jwt`: the key as text or in a file (read now: a bad key fails here,
        // naming the option, never the key).
        let pem = match (&self.private_key, &self.private_key_file) {
            (Some(_), Some(_)) => {
                return bad("options `oauth_private_key` and `oauth_private_key_file` both give the client's key: set one".into())
            }
            (Some(k), None) => Some(k.clone()),
            (None, Some(p)) => Some(crate::secret::Secret::new(
                std::fs::read_to_string(p).map_err(|e| {
                    Error::InvalidArgument(format!(
                        "option `oauth_private_key_file`: cannot read {}: {e}",
                        p.display()
                    ))
                })?,
            )),
            (None, None) => None,
        };
        if let Some(pem) = pem {
            if self.client_id.is_none() {
                return bad(
                    "option `oauth_private_key` (private_key_jwt) needs `oauth_client_id`".into(),
                );
            }
            if self.client_secret.is_some() {
                return bad("options `oauth_client_secret` and `oauth_private_key` both authenticate the client: set one".into());
            }
            c.assertion_signer = Some(Arc::new(PrivateKeyJwt::from_pem(&pem, None)?));
        }
        let assertion = match (&self.assertion, &self.assertion_file) {
            (Some(_), Some(_)) => {
                return bad("options `oauth_assertion` and `oauth_assertion_file` both give the assertion: set one".into())
            }
            (Some(a), None) => Some(AssertionSource::Value(a.clone())),
            (None, Some(p)) => Some(AssertionSource::File(p.clone())),
            (None, None) => None,
        };
        let grant = self.grant.as_deref().unwrap_or("authorization_code");
        let idp = self.idp_token_endpoint.is_some()
            || self.idp_client_id.is_some()
            || self.idp_client_secret.is_some();
        if idp && grant != "enterprise_managed" {
            return bad(format!("the oauth_idp_* options are for oauth_grant \"enterprise_managed\", not \"{grant}\""));
        }
        let need_client = |what: &str| {
            if self.client_id.is_none() {
                Err(Error::InvalidArgument(format!(
                    "oauth_grant \"{grant}\" needs `oauth_client_id`{what}"
                )))
            } else {
                Ok(())
            }
        };
        let need_assertion = |what: &str| {
            assertion.clone().ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "oauth_grant \"{grant}\" needs {what}: option `oauth_assertion` or `oauth_assertion_file`"
                ))
            })
        };
        c.grant = match grant {
            "authorization_code" => {
                if assertion.is_some() {
                    return bad("option `oauth_assertion` is for oauth_grant \"jwt_bearer\" or \"enterprise_managed\"".into());
                }
                None
            }
            "client_credentials" => {
                if assertion.is_some() {
                    return bad("option `oauth_assertion` is for oauth_grant \"jwt_bearer\" or \"enterprise_managed\"".into());
                }
                need_client(" and its `oauth_client_secret` or `oauth_private_key`")?;
                if self.client_secret.is_none() && c.assertion_signer.is_none() {
                    return bad("oauth_grant \"client_credentials\" needs `oauth_client_secret` or `oauth_private_key`".into());
                }
                Some(Arc::new(ClientCredentials::new()) as Arc<dyn crate::auth::GrantFlow>)
            }
            "jwt_bearer" => {
                need_client("")?;
                Some(Arc::new(JwtBearer::new(need_assertion(
                    "the workload's JWT",
                )?)))
            }
            _ => {
                need_client("")?;
                let id_token = need_assertion("the user's ID token from the enterprise IdP")?;
                let (Some(endpoint), Some(idp_client)) =
                    (&self.idp_token_endpoint, &self.idp_client_id)
                else {
                    return bad("oauth_grant \"enterprise_managed\" needs `oauth_idp_token_endpoint` and `oauth_idp_client_id`".into());
                };
                Some(Arc::new(EnterpriseManaged::new(
                    endpoint.clone(),
                    idp_client.clone(),
                    self.idp_client_secret.clone(),
                    id_token,
                )))
            }
        };
        Ok(c)
    }
}

impl OptionsBuilder {
    /// The browser step of MCP authorization (turns it on, like option `oauth`): bindings
    /// hand their callback over here.
    #[cfg(feature = "mcp-http")]
    pub fn oauth_authorizer(&mut self, authorizer: std::sync::Arc<dyn crate::auth::Authorize>) {
        self.oauth.authorizer = Some(authorizer);
    }

    /// Where MCP authorization keeps its tokens and client registration (turns it on, like
    /// option `oauth`): bindings hand their store's callbacks over here. Setting it with
    /// option `oauth_token_file` too is an error at [`build`](Self::build).
    #[cfg(feature = "mcp-http")]
    pub fn oauth_token_store(&mut self, store: std::sync::Arc<dyn crate::auth::TokenStore>) {
        self.oauth.store = Some(store);
    }

    /// The deprecated spellings this builder was given (for now only the transport `"mcp"`,
    /// which reads as "any MCP server" but means `codex mcp-server`), each as a warning that
    /// names the replacement; the core also logs each at warn level when it is set. Bindings
    /// raise them in their idiom (Python: `DeprecationWarning`).
    ///
    /// ```
    /// use codex_client::OptionsBuilder;
    /// let mut b = OptionsBuilder::new();
    /// b.set("transport", serde_json::json!("mcp"))?;
    /// assert!(b.deprecations()[0].contains("\"codex-mcp-server\""));
    /// # Ok::<(), codex_client::Error>(())
    /// ```
    pub fn deprecations(&self) -> &[String] {
        &self.deprecations
    }

    /// The kind of client options `transport` and `command` make (one of [`Clients`]'
    /// kinds): [`Clients::MCP`] for `command` or a transport `mcp+stdio…`, `http(s)://…`,
    /// `mcp+http(s)://…` (any MCP server); else [`Clients::EXEC`], [`Clients::CODEX_MCP_SERVER`]
    /// or [`Clients::APP_SERVER`] (stdio, `ws://`, `wss://`, the unix socket). Decided from
    /// these two options alone, before [`build`](Self::build) checks them with the others
    /// (`command` with a Codex transport is an MCP client that `build` refuses), so that a
    /// binding picks its client class (Python's `CodexClient` or `McpClient`) by the core's
    /// rule.
    pub fn client_kind(&self) -> Result<Clients> {
        if self.command.is_some() || self.transport == "mcp+stdio" {
            return Ok(Clients::MCP);
        }
        Ok(Clients::of(&TransportKind::parse(&self.transport, None)?))
    }

    /// [`build`](Self::build) without the check of which client each option applies to
    /// (that is the table's, in `keys.rs`).
    pub(super) fn build_transport(&self) -> Result<ClientOptions> {
        let bad = |m: &str| Err(Error::InvalidArgument(m.to_owned()));
        let mut o = self.o.clone();
        let kind = match &self.command {
            Some(argv) => {
                if !(self.transport.is_empty() || self.transport == "mcp+stdio")
                    || self.token.is_some()
                {
                    return bad("option `command` starts an MCP server over stdio: use it with transport \"mcp+stdio\" (or none) and no token");
                }
                let Some((program, args)) = argv.split_first() else {
                    return bad("option `command` needs a program: [PROGRAM, ARG, ...]");
                };
                TransportKind::McpStdio(McpCommand::new(program).args(args.iter().cloned()))
            }
            None if self.transport == "mcp+stdio" => {
                return bad("transport \"mcp+stdio\" needs option `command` ([PROGRAM, ARG, ...]) or the spec \"mcp+stdio:PROGRAM ARG ...\"");
            }
            None => TransportKind::parse(&self.transport, self.token.clone())?,
        };
        let kind = match kind {
            TransportKind::McpHttp(mut h) => {
                h.headers.extend(self.headers.iter().cloned());
                #[cfg(feature = "mcp-http")]
                {
                    if self.oauth.store.is_some() && self.oauth.token_file.is_some() {
                        return bad("options `oauth_token_file` and a token store callback both say where tokens are kept: set one");
                    }
                    if self.oauth.used() {
                        h.oauth = Some(self.oauth.config()?);
                    }
                }
                TransportKind::McpHttp(h)
            }
            _ if self.oauth.used() => {
                return bad("the oauth* options are for an MCP server over HTTP (transport \"http://...\" or \"https://...\")");
            }
            _ if !self.headers.is_empty() => {
                return bad("option `headers` is for an MCP server over HTTP (transport \"http://...\" or \"https://...\")");
            }
            TransportKind::Exec(_) => TransportKind::Exec(self.exec.clone()),
            _ if self.exec_set => {
                return bad("the exec_* options are for the exec transport (transport \"exec\")");
            }
            other => other,
        };
        if let Some(feature) = kind.missing_feature() {
            return Err(crate::options::feature_error(&kind, feature));
        }
        if !cfg!(feature = "tls") && (o.tls.ca_file.is_some() || o.tls.client_cert.is_some()) {
            return bad("options `tls_ca_file` and `tls_client_cert` need the `tls` cargo feature of codex-client, which this build leaves out");
        }
        o.ws_auth = self.ws.build(&kind)?;
        o.transport = kind;
        o.reconnect = self.reconnect_on.then_some(self.reconnect);
        o.heartbeat = self.heartbeat_on.then_some(self.heartbeat);
        Ok(o)
    }
}
