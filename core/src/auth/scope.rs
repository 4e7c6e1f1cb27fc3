//! Which scopes to ask for (MCP authorization, "Scope Selection Strategy" and "Step-Up
//! Authorization Flow"): the program's own list, else the challenge's `scope`, else the
//! resource's `scopes_supported`, else none; on step-up, the union with what was asked
//! before; `offline_access` added only when the authorization server lists it.

/// Split a space-separated scope string.
pub(crate) fn split(s: &str) -> Vec<String> {
    s.split_ascii_whitespace().map(str::to_owned).collect()
}

/// The scopes of the authorization request.
///
/// `configured`: the program's; `challenged`: the 401/403's `scope`; `supported`: the
/// protected resource's `scopes_supported`; `previous`: what was asked before (kept on
/// step-up); `as_supported`: the authorization server's `scopes_supported` (for
/// `offline_access`); `wants_refresh`: whether to ask for `offline_access` when offered.
pub(crate) fn select(
    configured: Option<&[String]>,
    challenged: Option<&str>,
    supported: Option<&[String]>,
    previous: &[String],
    as_supported: Option<&[String]>,
    wants_refresh: bool,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |s: &str, out: &mut Vec<String>| {
        if !s.is_empty() && !out.iter().any(|x| x == s) {
            out.push(s.to_owned());
        }
    };
    if let Some(c) = configured {
        c.iter().for_each(|s| push(s, &mut out));
    } else {
        previous.iter().for_each(|s| push(s, &mut out));
        match challenged {
            Some(c) => split(c).iter().for_each(|s| push(s, &mut out)),
            None if previous.is_empty() => {
                if let Some(sup) = supported {
                    sup.iter().for_each(|s| push(s, &mut out));
                }
            }
            None => {}
        }
    }
    let offered = as_supported.is_some_and(|a| a.iter().any(|s| s == "offline_access"));
    if offered && wants_refresh && !out.is_empty() {
        push("offline_access", &mut out);
    }
    if !offered {
        out.retain(|s| s != "offline_access");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn header_scope_first() {
        let sup = v(&["a", "b"]);
        assert_eq!(
            select(None, Some("x y"), Some(&sup), &[], None, true),
            v(&["x", "y"])
        );
    }

    #[test]
    fn scopes_supported_when_no_header_scope() {
        let sup = v(&["a", "b", "c"]);
        assert_eq!(select(None, None, Some(&sup), &[], None, true), sup);
    }

    #[test]
    fn none_when_nothing_defined() {
        assert!(select(None, None, None, &[], None, true).is_empty());
        // offline_access alone is not asked for.
        let as_sup = v(&["offline_access"]);
        assert!(select(None, None, None, &[], Some(&as_sup), true).is_empty());
    }

    #[test]
    fn step_up_is_the_union() {
        let prev = v(&["mcp:basic"]);
        assert_eq!(
            select(None, Some("mcp:write"), Some(&v(&["p"])), &prev, None, true),
            v(&["mcp:basic", "mcp:write"])
        );
    }

    #[test]
    fn offline_access_only_when_offered() {
        let as_sup = v(&["mcp:basic", "offline_access"]);
        assert_eq!(
            select(None, Some("mcp:basic"), None, &[], Some(&as_sup), true),
            v(&["mcp:basic", "offline_access"])
        );
        let as_sup = v(&["mcp:basic"]);
        assert_eq!(
            select(
                None,
                Some("mcp:basic offline_access"),
                None,
                &[],
                Some(&as_sup),
                true
            ),
            v(&["mcp:basic"])
        );
        assert_eq!(
            select(
                None,
                Some("a"),
                None,
                &[],
                Some(&v(&["offline_access"])),
                false
            ),
            v(&["a"])
        );
    }

    #[test]
    fn configured_scopes_win() {
        let cfg = v(&["mine"]);
        assert_eq!(
            select(
                Some(&cfg),
                Some("x"),
                Some(&v(&["y"])),
                &v(&["z"]),
                None,
                true
            ),
            cfg
        );
    }
}
