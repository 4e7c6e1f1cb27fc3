//! The body of a token request (`application/x-www-form-urlencoded`) and the grant requests
//! beyond the browser: client credentials (OAuth 2.1 §4.2), the JWT bearer grant (RFC 7523
//! §2.1: workload identity, enterprise-managed authorization's ID-JAG), and the token exchange
//! that turns an enterprise IdP's ID token into an ID-JAG (RFC 8693, the enterprise-managed
//! authorization extension).

/// `grant_type` of the client credentials grant.
pub const GRANT_CLIENT_CREDENTIALS: &str = "client_credentials";
/// `grant_type` of the JWT bearer grant (RFC 7523 §2.1).
pub const GRANT_JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// `grant_type` of token exchange (RFC 8693 §2.1).
pub const GRANT_TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// Token type of an OpenID Connect ID token (RFC 8693 §3).
pub const TOKEN_TYPE_ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// Token type of an identity assertion JWT authorization grant (ID-JAG).
pub const TOKEN_TYPE_ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// Names of the parameters whose values are secrets (never shown by `Debug`).
const SECRET_PARAMS: &[&str] = &[
    "client_secret",
    "client_assertion",
    "assertion",
    "subject_token",
    "actor_token",
    "refresh_token",
    "code",
    "code_verifier",
];

/// The form parameters of one token request, in order. `Debug` shows the names and only the
/// values that are not secrets.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TokenForm {
    params: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for TokenForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for (k, v) in &self.params {
            if SECRET_PARAMS.contains(k) {
                m.entry(k, &"<redacted>");
            } else {
                m.entry(k, v);
            }
        }
        m.finish()
    }
}

impl TokenForm {
    /// A form with `grant_type` only.
    pub fn grant(grant_type: &str) -> TokenForm {
        let mut f = TokenForm::default();
        f.push("grant_type", grant_type);
        f
    }

    /// Appends `name=value`.
    pub fn push(&mut self, name: &'static str, value: &str) -> &mut TokenForm {
        self.params.push((name, value.to_string()));
        self
    }

    /// Appends `name=value` when `value` is `Some` and not empty.
    pub fn push_opt(&mut self, name: &'static str, value: Option<&str>) -> &mut TokenForm {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            self.push(name, v);
        }
        self
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The parameters in order (for the HTTP client's form encoder).
    pub fn pairs(&self) -> &[(&'static str, String)] {
        &self.params
    }

    /// The parameters, for the token request helper.
    pub fn into_pairs(self) -> Vec<(&'static str, String)> {
        self.params
    }

    /// The client credentials grant: `scope` and `resource` (RFC 8707) when given.
    pub fn client_credentials(scope: Option<&str>, resource: Option<&str>) -> TokenForm {
        let mut f = TokenForm::grant(GRANT_CLIENT_CREDENTIALS);
        f.push_opt("scope", scope).push_opt("resource", resource);
        f
    }

    /// The JWT bearer grant with `assertion` (a workload identity JWT or an ID-JAG).
    pub fn jwt_bearer(assertion: &str, scope: Option<&str>, resource: Option<&str>) -> TokenForm {
        let mut f = TokenForm::grant(GRANT_JWT_BEARER);
        f.push("assertion", assertion)
            .push_opt("scope", scope)
            .push_opt("resource", resource);
        f
    }

    /// The token exchange at the enterprise IdP: the user's ID token (`subject_token`) for an
    /// ID-JAG for the MCP server's authorization server (`audience`, its issuer) and the MCP
    /// server (`resource`).
    pub fn id_jag_exchange(
        id_token: &str,
        audience: &str,
        resource: &str,
        scope: Option<&str>,
    ) -> TokenForm {
        let mut f = TokenForm::grant(GRANT_TOKEN_EXCHANGE);
        f.push("requested_token_type", TOKEN_TYPE_ID_JAG)
            .push("audience", audience)
            .push("resource", resource)
            .push_opt("scope", scope)
            .push("subject_token", id_token)
            .push("subject_token_type", TOKEN_TYPE_ID_TOKEN);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_credentials_form() {
        let f = TokenForm::client_credentials(Some("a b"), Some("https://mcp.example/mcp"));
        assert_eq!(f.get("grant_type"), Some("client_credentials"));
        assert_eq!(f.get("scope"), Some("a b"));
        assert_eq!(f.get("resource"), Some("https://mcp.example/mcp"));
        let bare = TokenForm::client_credentials(None, Some(""));
        assert_eq!(bare.pairs().len(), 1, "empty values are left out: {bare:?}");
    }

    #[test]
    fn jwt_bearer_and_exchange_forms_hide_their_tokens() {
        let f = TokenForm::jwt_bearer("eyJ.secret.sig", None, Some("https://r"));
        assert_eq!(f.get("grant_type"), Some(GRANT_JWT_BEARER));
        assert_eq!(f.get("assertion"), Some("eyJ.secret.sig"));
        let shown = format!("{f:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("https://r"), "{shown}");

        let x = TokenForm::id_jag_exchange("id.tok.en", "https://as", "https://mcp/mcp", None);
        assert_eq!(x.get("grant_type"), Some(GRANT_TOKEN_EXCHANGE));
        assert_eq!(x.get("requested_token_type"), Some(TOKEN_TYPE_ID_JAG));
        assert_eq!(x.get("subject_token_type"), Some(TOKEN_TYPE_ID_TOKEN));
        assert_eq!(x.get("subject_token"), Some("id.tok.en"));
        assert_eq!(x.get("audience"), Some("https://as"));
        assert_eq!(x.get("resource"), Some("https://mcp/mcp"));
        assert_eq!(x.get("scope"), None);
        assert!(!format!("{x:?}").contains("id.tok.en"));
    }
}
