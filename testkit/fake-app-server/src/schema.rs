//! A shallow check of a JSON object against one definition of the vendored app-server schema
//! (`core/src/compat/vendored-schema.json`, the same file the core's compatibility report
//! reads): the required members are there, every member is one the definition lists, and a
//! member whose definition names JSON types has one of them. `$ref`s are not followed.

use std::sync::OnceLock;

use serde_json::Value;

/// The Codex version whose schema the library's compatibility report embeds (the newest of the
/// supported window): the fake claims it in its `userAgent`, so a client connected to the fake
/// sees a server inside the window (no outside-window warning or event).
///
/// Only the `version` member is read (the definitions are not parsed): every `initialize`
/// reads it, and building the whole 330 KB schema as a `Value` in a debug build took most of a
/// connect/disconnect cycle (~35 of ~40 ms under load; the fault matrix runs 20,000 of them).
pub fn window_version() -> &'static str {
    #[derive(serde::Deserialize)]
    struct Head {
        version: String,
    }
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        // The generator writes the schema compact, `"version":"X.Y.Z"` once, at the top level
        // (a definition's `version` property is an object): found by a scan in microseconds.
        // Anything else (another layout) falls back to a full parse, skipping the definitions.
        let scanned = VENDORED
            .split_once("\"version\":\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(v, _)| v)
            .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'));
        match scanned {
            Some(v) if VENDORED.matches("\"version\":\"").count() == 1 => v.to_owned(),
            _ => serde_json::from_str::<Head>(VENDORED)
                .map(|h| h.version)
                .unwrap_or_else(|_| "0.0.0".into()),
        }
    })
}

const VENDORED: &str = include_str!("../../../core/src/compat/vendored-schema.json");

/// The vendored schema, parsed once (only for [`check`]).
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(VENDORED).expect("the vendored schema is JSON"))
}

/// Whether `v` is of the JSON type `ty` (a schema `type` keyword's value).
fn is_type(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// Checks `value` against the definition `name`; the error says what is wrong.
pub fn check(name: &str, value: &Value) -> Result<(), String> {
    let def = schema()
        .pointer(&format!("/definitions/{name}"))
        .ok_or_else(|| format!("no definition {name} in the vendored schema"))?;
    let obj = value
        .as_object()
        .ok_or_else(|| format!("{name}: not an object: {value}"))?;
    let props = def["properties"].as_object().cloned().unwrap_or_default();
    for req in def["required"].as_array().into_iter().flatten() {
        let req = req.as_str().unwrap_or_default();
        if !obj.contains_key(req) {
            return Err(format!("{name}: missing field `{req}`"));
        }
    }
    for (key, v) in obj {
        let prop = props
            .get(key)
            .ok_or_else(|| format!("{name}: unknown field `{key}`"))?;
        let types: Vec<&str> = match &prop["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        if !types.iter().any(|t| is_type(v, t)) {
            return Err(format!(
                "{name}: field `{key}` is not {}: {v}",
                types.join(" or ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use serde_json::json;

    #[test]
    fn feedback_params_are_checked() {
        check("FeedbackUploadParams", &json!({"classification": "bug"})).unwrap();
        let e = check("FeedbackUploadParams", &json!({"reason": "x"})).unwrap_err();
        assert!(e.contains("missing field `classification`"), "{e}");
        let e = check("FeedbackUploadParams", &json!({"classification": 1})).unwrap_err();
        assert!(e.contains("`classification` is not string"), "{e}");
        let e = check(
            "FeedbackUploadParams",
            &json!({"classification": "bug", "include_logs": true}),
        )
        .unwrap_err();
        assert!(e.contains("unknown field `include_logs`"), "{e}");
    }
}
