//! Discovery (MCP authorization, "Authorization Server Discovery"): the protected resource
//! metadata (the challenge's `resource_metadata` URL, else the path-form well-known URL,
//! else the root one), its `resource` checked against the server before anything is sent
//! to an authorization server, then the authorization server's metadata in the spec's order
//! (RFC 8414 and OpenID Connect discovery, path-inserted, then OIDC path-appended), its
//! `issuer` checked against the issuer it was looked up for. Without protected resource
//! metadata, the 2025-03-26 rules: metadata at the server's origin, else the default
//! endpoints `/authorize`, `/token`, `/register` there.

use url::Url;

use super::http::{check_secure, parse_url, redact_url, AuthHttp};
use super::metadata::{AuthServerMetadata, ProtectedResourceMetadata};
use super::AuthError;

/// The protocol version sent with discovery requests (MCP-Protocol-Version).
const PROTOCOL_VERSION: &str = "2025-11-25";

/// What discovery found.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The protected resource metadata, when the server has one.
    pub prm: Option<ProtectedResourceMetadata>,
    /// The resource to ask tokens for (RFC 8707).
    pub resource: String,
    /// The authorization server's metadata (default endpoints under the 2025-03-26 fallback).
    pub server: AuthServerMetadata,
}

/// The resource identifier of an MCP endpoint: the URL without its fragment.
pub(crate) fn canonical_resource(server: &Url) -> String {
    let mut u = server.clone();
    u.set_fragment(None);
    u.to_string()
}

/// The well-known URLs of the protected resource metadata, in the order tried: path form
/// (when the endpoint has a path), then root.
pub(crate) fn prm_urls(server: &Url) -> Vec<Url> {
    let mut out = Vec::new();
    let path = server.path().trim_end_matches('/');
    let mut base = server.clone();
    base.set_query(None);
    base.set_fragment(None);
    if !path.is_empty() {
        let mut u = base.clone();
        u.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
        out.push(u);
    }
    let mut u = base;
    u.set_path("/.well-known/oauth-protected-resource");
    out.push(u);
    out
}

/// The metadata URLs of an issuer, in the spec's order.
pub(crate) fn as_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/').to_owned();
    let at = |p: String| {
        let mut u = issuer.clone();
        u.set_query(None);
        u.set_fragment(None);
        u.set_path(&p);
        u
    };
    if path.is_empty() {
        vec![
            at("/.well-known/oauth-authorization-server".into()),
            at("/.well-known/openid-configuration".into()),
        ]
    } else {
        vec![
            at(format!("/.well-known/oauth-authorization-server{path}")),
            at(format!("/.well-known/openid-configuration{path}")),
            at(format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// Whether the metadata's `resource` may stand for the MCP endpoint: the same origin, and
/// its path the endpoint's or a parent of it (segment-wise).
pub(crate) fn resource_allowed(server: &Url, resource: &str) -> bool {
    let Ok(r) = Url::parse(resource) else {
        return false;
    };
    if r.origin() != server.origin() || r.fragment().is_some() {
        return false;
    }
    let rp = r.path().trim_end_matches('/');
    let sp = server.path().trim_end_matches('/');
    sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// The origin of a URL as an issuer identifier (no trailing slash).
fn origin_of(u: &Url) -> String {
    u.origin().ascii_serialization()
}

/// Run discovery for `server`; `header_url` is the challenge's `resource_metadata`.
pub(crate) async fn discover(
    http: &AuthHttp,
    server: &Url,
    header_url: Option<&str>,
) -> Result<Discovered, AuthError> {
    let prm = fetch_prm(http, server, header_url).await?;
    let (resource, issuer) = match &prm {
        Some(p) => {
            let resource = match p.resource.as_deref() {
                Some(r) if resource_allowed(server, r) => r.to_owned(),
                Some(r) => {
                    return Err(AuthError::new(format!(
                        "the protected resource metadata is for `{r}`, not for this server ({}); not authorizing",
                        redact_url(server)
                    )))
                }
                None => canonical_resource(server),
            };
            let Some(issuer) = p.authorization_servers.first() else {
                return Err(AuthError::new(
                    "the protected resource metadata names no authorization server",
                ));
            };
            (resource, Some(issuer.clone()))
        }
        None => (canonical_resource(server), None),
    };
    match issuer {
        Some(issuer) => {
            let url = parse_url(&issuer, "the authorization server")?;
            check_secure(&url, "authorization server")?;
            let server_md = fetch_as(http, &url, &[issuer.as_str()])
                .await?
                .ok_or_else(|| {
                    AuthError::new(format!(
                        "no authorization server metadata found for {}",
                        redact_url(&url)
                    ))
                })?;
            Ok(Discovered {
                prm,
                resource,
                server: server_md,
            })
        }
        None => {
            // 2025-03-26: the authorization server is the MCP server's origin.
            let mut origin = server.clone();
            origin.set_path("/");
            origin.set_query(None);
            origin.set_fragment(None);
            let o = origin_of(server);
            let accepted = [o.clone(), format!("{o}/")];
            let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
            if let Some(md) = fetch_as(http, &origin, &accepted).await? {
                return Ok(Discovered {
                    prm: None,
                    resource,
                    server: md,
                });
            }
            tracing::debug!("OAuth discovery: no metadata; using the 2025-03-26 default endpoints");
            let at = |p: &str| origin.join(p).map(|u| u.to_string()).ok();
            Ok(Discovered {
                prm: None,
                resource,
                server: AuthServerMetadata {
                    issuer: o,
                    authorization_endpoint: at("/authorize"),
                    token_endpoint: at("/token"),
                    registration_endpoint: at("/register"),
                    code_challenge_methods_supported: Some(vec!["S256".into()]),
                    ..Default::default()
                },
            })
        }
    }
}

/// The protected resource metadata: from the header's URL, else the well-known ones.
async fn fetch_prm(
    http: &AuthHttp,
    server: &Url,
    header_url: Option<&str>,
) -> Result<Option<ProtectedResourceMetadata>, AuthError> {
    let mut urls = Vec::new();
    if let Some(h) = header_url {
        let u = server
            .join(h)
            .map_err(|e| AuthError::new(format!("bad resource_metadata URL: {e}")))?;
        urls.push(u);
    }
    urls.extend(prm_urls(server));
    for u in urls {
        if let Some(v) = http
            .get_json(&u, &[("mcp-protocol-version", PROTOCOL_VERSION)])
            .await?
        {
            let prm: ProtectedResourceMetadata = serde_json::from_value(v).map_err(|e| {
                AuthError::new(format!(
                    "the protected resource metadata at {} is malformed: {e}",
                    redact_url(&u)
                ))
            })?;
            return Ok(Some(prm));
        }
    }
    Ok(None)
}

/// The authorization server metadata of `issuer` (tried at each well-known URL in order);
/// a document whose `issuer` is not one of `accepted` is refused (RFC 8414 §3.3).
async fn fetch_as(
    http: &AuthHttp,
    issuer: &Url,
    accepted: &[&str],
) -> Result<Option<AuthServerMetadata>, AuthError> {
    for u in as_metadata_urls(issuer) {
        let Some(v) = http
            .get_json(&u, &[("mcp-protocol-version", PROTOCOL_VERSION)])
            .await?
        else {
            continue;
        };
        let md: AuthServerMetadata = serde_json::from_value(v).map_err(|e| {
            AuthError::new(format!(
                "the authorization server metadata at {} is malformed: {e}",
                redact_url(&u)
            ))
        })?;
        if !accepted.contains(&md.issuer.as_str()) {
            return Err(AuthError::new(format!(
                "the authorization server metadata at {} names issuer `{}`, not `{}`; not using it",
                redact_url(&u),
                md.issuer,
                accepted[0]
            )));
        }
        return Ok(Some(md));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn prm_well_known_order() {
        let v: Vec<String> = prm_urls(&u("https://ex.com/public/mcp?x=1"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            v,
            [
                "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
                "https://ex.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(prm_urls(&u("https://ex.com/")).len(), 1);
    }

    #[test]
    fn as_metadata_order_with_and_without_path() {
        let v: Vec<String> = as_metadata_urls(&u("https://auth.ex.com/tenant1"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            v,
            [
                "https://auth.ex.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.ex.com/.well-known/openid-configuration/tenant1",
                "https://auth.ex.com/tenant1/.well-known/openid-configuration"
            ]
        );
        let v: Vec<String> = as_metadata_urls(&u("https://auth.ex.com"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            v,
            [
                "https://auth.ex.com/.well-known/oauth-authorization-server",
                "https://auth.ex.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_must_be_this_server_or_a_parent_path() {
        let s = u("https://ex.com/api/mcp");
        assert!(resource_allowed(&s, "https://ex.com/api/mcp"));
        assert!(resource_allowed(&s, "https://ex.com/api"));
        assert!(resource_allowed(&s, "https://ex.com"));
        assert!(resource_allowed(&s, "https://ex.com/"));
        assert!(!resource_allowed(&s, "https://ex.com/ap"));
        assert!(!resource_allowed(&s, "https://ex.com/api/mcp/other"));
        assert!(!resource_allowed(&s, "https://other.com/api/mcp"));
        assert!(!resource_allowed(&s, "http://ex.com/api/mcp"));
        assert!(!resource_allowed(&s, "not a url"));
        assert_eq!(
            canonical_resource(&u("https://ex.com/mcp#f")),
            "https://ex.com/mcp"
        );
    }
}
