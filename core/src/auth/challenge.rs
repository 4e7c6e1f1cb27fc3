//! `WWW-Authenticate` (RFC 9110 §11.6.1) as a 401 or 403 carries it: the challenges, and the
//! RFC 6750 / RFC 9728 parameters of the `Bearer` (or `DPoP`) one: `resource_metadata`,
//! `scope`, `error`.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};

/// One challenge: its scheme and its parameters (names lower-cased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A parameter's value.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/".contains(&c)
}

/// Every challenge in one `WWW-Authenticate` value (several may share one header).
pub(crate) fn parse(value: &str) -> Vec<Challenge> {
    let s = value.as_bytes();
    let mut i = 0;
    let mut out: Vec<Challenge> = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\t') {
            *i += 1;
        }
    };
    while i < s.len() {
        while i < s.len() && (s[i] == b' ' || s[i] == b'\t' || s[i] == b',') {
            i += 1;
        }
        let start = i;
        while i < s.len() && tchar(s[i]) {
            i += 1;
        }
        if start == i {
            // Not a token: skip the character.
            i += 1;
            continue;
        }
        let tok = &value[start..i];
        skip_ws(&mut i);
        let is_param = i < s.len() && s[i] == b'=' && !out.is_empty();
        if !is_param {
            out.push(Challenge {
                scheme: tok.to_owned(),
                params: Vec::new(),
            });
            continue;
        }
        i += 1;
        skip_ws(&mut i);
        let mut val = String::new();
        if i < s.len() && s[i] == b'"' {
            i += 1;
            let mut buf = Vec::new();
            while i < s.len() && s[i] != b'"' {
                if s[i] == b'\\' && i + 1 < s.len() {
                    i += 1;
                }
                buf.push(s[i]);
                i += 1;
            }
            i += 1;
            val = String::from_utf8_lossy(&buf).into_owned();
        } else {
            let vs = i;
            while i < s.len() && s[i] != b',' && s[i] != b' ' && s[i] != b'\t' {
                i += 1;
            }
            val.push_str(&value[vs..i]);
        }
        if let Some(c) = out.last_mut() {
            c.params.push((tok.to_ascii_lowercase(), val));
        }
    }
    out
}

/// What a 401 or 403 asks for, from its `Bearer` or `DPoP` challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Asked {
    /// RFC 9728 §5.1: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// RFC 6750 §3: the scopes needed.
    pub scope: Option<String>,
    /// RFC 6750 §3.1: `invalid_token`, `insufficient_scope`, `invalid_request`; RFC 9449:
    /// `use_dpop_nonce`, `invalid_dpop_proof`.
    pub error: Option<String>,
}

/// The `Bearer` (else `DPoP`) challenge's parameters in `headers`.
pub(crate) fn asked(headers: &HeaderMap) -> Asked {
    let all: Vec<Challenge> = headers
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(parse)
        .collect();
    let pick = all
        .iter()
        .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
        .or_else(|| all.iter().find(|c| c.scheme.eq_ignore_ascii_case("dpop")));
    let Some(c) = pick else {
        return Asked::default();
    };
    let get = |n: &str| c.param(n).filter(|v| !v.is_empty()).map(str::to_owned);
    Asked {
        resource_metadata: get("resource_metadata"),
        scope: get("scope"),
        error: get("error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn bearer_parameters() {
        let mut h = HeaderMap::new();
        h.insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static(
                r#"Bearer realm="mcp", error="insufficient_scope", scope="files:read files:write", resource_metadata="https://r.example/.well-known/oauth-protected-resource/mcp""#,
            ),
        );
        let a = asked(&h);
        assert_eq!(a.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(a.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(
            a.resource_metadata.as_deref(),
            Some("https://r.example/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn several_challenges_tokens_and_escapes() {
        let c = parse(
            r#"Basic realm="x", DPoP algs="ES256 RS256", Bearer error=invalid_token, error_description="a \"q\"""#,
        );
        assert_eq!(c.len(), 3);
        assert_eq!(c[1].scheme, "DPoP");
        assert_eq!(c[1].param("algs"), Some("ES256 RS256"));
        assert_eq!(c[2].param("error"), Some("invalid_token"));
        assert_eq!(c[2].param("error_description"), Some("a \"q\""));
        let c = parse("Bearer");
        assert_eq!(
            c,
            [Challenge {
                scheme: "Bearer".into(),
                params: vec![]
            }]
        );
        // Case-insensitive scheme and parameter names; a DPoP challenge when no Bearer.
        let mut h = HeaderMap::new();
        h.append(WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=x"));
        h.append(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("dpop Error=\"use_dpop_nonce\""),
        );
        assert_eq!(asked(&h).error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(asked(&HeaderMap::new()), Asked::default());
    }
}
