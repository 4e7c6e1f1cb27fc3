//! The HTTP headers of the stateless era (2026-07-28) as data: `Mcp-Method` and `Mcp-Name`
//! mirrored from a request's body, the `Mcp-Param-{Name}` headers a tool designates with
//! `x-mcp-header` in its `inputSchema` (checked: a malformed annotation excludes that tool),
//! and the value encoding (plain ASCII, or the `=?base64?…?=` sentinel).

use base64::Engine;
use serde_json::Value;

/// The header carrying the request's method.
pub const MCP_METHOD: &str = "mcp-method";
/// The header carrying `params.name` / `params.uri`.
pub const MCP_NAME: &str = "mcp-name";
/// The prefix of tool-designated headers.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";

/// One `x-mcp-header` annotation of a tool: where the value is in the arguments, and the name
/// part of its header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParamHeader {
    /// The chain of property names from the arguments' root.
    pub path: Vec<String>,
    /// The `x-mcp-header` value (`Region` → `Mcp-Param-Region`).
    pub name: String,
}

/// A header value as the spec encodes it: plain when it is printable ASCII without leading or
/// trailing whitespace and does not look like the sentinel, else `=?base64?{UTF-8 base64}?=`.
pub fn encode_value(s: &str) -> String {
    let plain = s.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && s.trim() == s
        && !(s.starts_with("=?base64?") && s.ends_with("?="));
    if plain {
        s.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    }
}

/// The standard headers of a request: `Mcp-Method`, and `Mcp-Name` for `tools/call`,
/// `prompts/get` (`params.name`) and `resources/read` (`params.uri`).
pub fn standard(method: &str, params: Option<&Value>) -> Vec<(&'static str, String)> {
    let mut out = vec![(MCP_METHOD, method.to_owned())];
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return out,
    };
    if let Some(v) = params.and_then(|p| p.get(field)).and_then(Value::as_str) {
        out.push((MCP_NAME, encode_value(v)));
    }
    out
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The `x-mcp-header` annotations of a tool's `inputSchema`, or why the tool must be
/// excluded: an annotation that is empty, not an HTTP token, on a property that is not a
/// string, integer or boolean, not reachable through `properties` alone, or not unique
/// (case-insensitively).
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut found)?;
    let mut seen = std::collections::HashSet::new();
    for h in &found {
        if !seen.insert(h.name.to_ascii_lowercase()) {
            return Err(format!("x-mcp-header `{}` is used twice", h.name));
        }
    }
    Ok(found)
}

fn walk(v: &Value, at: &mut Vec<String>, out: &mut Vec<ParamHeader>) -> Result<(), String> {
    match v {
        Value::Object(map) => {
            if let Some(h) = map.get("x-mcp-header") {
                out.push(check(h, map, at)?);
            }
            for (k, child) in map {
                at.push(k.clone());
                walk(child, at, out)?;
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(i.to_string());
                walk(child, at, out)?;
                at.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

fn check(
    h: &Value,
    schema: &serde_json::Map<String, Value>,
    at: &[String],
) -> Result<ParamHeader, String> {
    let name = h
        .as_str()
        .ok_or_else(|| "x-mcp-header is not a string".to_owned())?;
    if name.is_empty() {
        return Err("x-mcp-header is empty".into());
    }
    if !name.chars().all(is_tchar) {
        return Err(format!(
            "x-mcp-header `{}` is not an HTTP token",
            name.escape_debug()
        ));
    }
    let reachable = !at.is_empty()
        && at.len().is_multiple_of(2)
        && at.iter().step_by(2).all(|k| k == "properties");
    if !reachable {
        return Err(format!(
            "x-mcp-header `{name}` is not on a property reachable through `properties` alone (at /{})",
            at.join("/")
        ));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => {}
        other => {
            return Err(format!(
            "x-mcp-header `{name}` is on a property of type {} (string, integer or boolean only)",
            other.unwrap_or("unknown")
        ))
        }
    }
    let path = at.iter().skip(1).step_by(2).cloned().collect();
    Ok(ParamHeader {
        path,
        name: name.to_owned(),
    })
}

/// The `Mcp-Param-{Name}` headers of a call: each annotated argument that is present and not
/// null, as its string form (integers in decimal, booleans `true`/`false`), encoded.
pub fn param_values(headers: &[ParamHeader], arguments: Option<&Value>) -> Vec<(String, String)> {
    let Some(args) = arguments else {
        return Vec::new();
    };
    headers
        .iter()
        .filter_map(|h| {
            let v = h.path.iter().try_fold(args, |v, k| v.get(k))?;
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((format!("{MCP_PARAM_PREFIX}{}", h.name), encode_value(&s)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_plain_or_base64_as_the_spec_table_says() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(""), "");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn annotations_are_found_and_mirrored() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "opts": {"type": "object", "properties": {"v": {"type": "boolean", "x-mcp-header": "Verbose"}}},
            "q": {"type": "string"}
        }});
        let hs = param_headers(&schema).unwrap();
        assert_eq!(hs.len(), 3);
        let args = json!({"region": " x", "n": 42, "opts": {"v": false}, "q": "no"});
        let mut got = param_values(&hs, Some(&args));
        got.sort();
        assert_eq!(
            got,
            vec![
                ("Mcp-Param-N".to_owned(), "42".to_owned()),
                ("Mcp-Param-Region".to_owned(), "=?base64?IHg=?=".to_owned()),
                ("Mcp-Param-Verbose".to_owned(), "false".to_owned()),
            ]
        );
        let none = param_values(&hs, Some(&json!({"region": null})));
        assert!(none.is_empty());
    }

    #[test]
    fn malformed_annotations_are_refused() {
        let one = |p: Value| param_headers(&json!({"type": "object", "properties": p}));
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": ""}})).is_err());
        assert!(one(json!({"a": {"type": "object", "x-mcp-header": "A"}})).is_err());
        assert!(one(json!({"a": {"type": "array", "x-mcp-header": "A"}})).is_err());
        assert!(one(json!({"a": {"type": "null", "x-mcp-header": "A"}})).is_err());
        assert!(one(json!({"a": {"type": "number", "x-mcp-header": "A"}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "My Region"}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "R:P"}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "Région"}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "R\t1"}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "R"}, "b": {"type": "string", "x-mcp-header": "r"}})).is_err());
        assert!(one(
            json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}})
        )
        .is_err());
        assert!(one(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}})).is_err());
        assert!(one(json!({"a": {"type": "string", "x-mcp-header": "Ok"}})).is_ok());
    }

    #[test]
    fn standard_headers_mirror_method_and_name() {
        assert_eq!(
            standard("tools/call", Some(&json!({"name": "my-tool"}))),
            vec![
                (MCP_METHOD, "tools/call".into()),
                (MCP_NAME, "my-tool".into())
            ]
        );
        assert_eq!(
            standard("resources/read", Some(&json!({"uri": "file:///a%20b"})))[1].1,
            "file:///a%20b"
        );
        assert_eq!(standard("tools/list", None).len(), 1);
    }
}
