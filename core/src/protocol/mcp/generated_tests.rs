//! The generated MCP types (`generated.rs`) against the vendored schemas: every example the
//! 2026-07-28 schema ships for a type the library generates decodes, and re-encodes with
//! everything it had; hand-written values of the spec keep their unknown fields in `extra`.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema")
}

/// Whether `out` holds everything `input` had: every member with the same value, at any
/// depth (a member may only be missing when it was an empty list, which the types omit).
fn holds(out: &Value, input: &Value, at: &str) -> Result<(), String> {
    match (out, input) {
        (Value::Object(o), Value::Object(i)) => {
            for (k, v) in i {
                match o.get(k) {
                    Some(ov) => holds(ov, v, &format!("{at}/{k}"))?,
                    None if v == &json!([]) => {}
                    None => return Err(format!("{at}/{k} was lost")),
                }
            }
            Ok(())
        }
        (Value::Array(o), Value::Array(i)) if o.len() == i.len() => o
            .iter()
            .zip(i)
            .enumerate()
            .try_for_each(|(n, (o, i))| holds(o, i, &format!("{at}/{n}"))),
        _ if out == input => Ok(()),
        // 1 and 1.0 are one JSON number: f64 fields write integers as floats
        (Value::Number(o), Value::Number(i)) if o.as_f64() == i.as_f64() => Ok(()),
        _ => Err(format!("{at}: {input} became {out}")),
    }
}

/// Decode `v` as `T`, encode it again: nothing lost, and decoding the encoding gives the same.
fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
    v: &Value,
    what: &str,
) -> T {
    let t: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| {
        panic!(
            "{what} does not decode as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    let out = serde_json::to_value(&t).unwrap();
    holds(&out, v, "").unwrap_or_else(|e| panic!("{what}: {e}\n{out:#}"));
    let again: T = serde_json::from_value(out).unwrap();
    assert_eq!(again, t, "{what}");
    t
}

#[test]
fn every_vendored_example_of_a_generated_type_round_trips() {
    let examples = schema_dir().join("mcp-2026-07-28/examples");
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for dir in std::fs::read_dir(&examples).expect("schema/mcp-2026-07-28/examples") {
        let dir = dir.unwrap().path();
        let ty = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            let what = file.display().to_string();
            match ty.as_str() {
                "Tool" => drop(round_trip::<Tool>(&v, &what)),
                "CallToolResult" => drop(round_trip::<CallToolResult>(&v, &what)),
                "Resource" => drop(round_trip::<Resource>(&v, &what)),
                "ResourceLink" => drop(round_trip::<ResourceLink>(&v, &what)),
                "Root" => drop(round_trip::<Root>(&v, &what)),
                "ServerCapabilities" => drop(round_trip::<ServerCapabilities>(&v, &what)),
                "ClientCapabilities" => drop(round_trip::<ClientCapabilities>(&v, &what)),
                "GetPromptResult" => drop(round_trip::<GetPromptResult>(&v, &what)),
                "TextResourceContents" | "BlobResourceContents" => {
                    drop(round_trip::<ResourceContents>(&v, &what))
                }
                "ProgressNotificationParams" => drop(round_trip::<Progress>(&v, &what)),
                "CompleteResult" => drop(round_trip::<Completion>(&v["completion"], &what)),
                other => panic!("an example of {other}, which no generated type is: {what}"),
            }
            *seen.entry(ty.clone()).or_default() += 1;
        }
    }
    // The examples vendored (schema/mcp-README.md): 12 types, 37 files.
    assert_eq!(seen.len(), 12, "{seen:?}");
    assert_eq!(seen.values().sum::<usize>(), 37, "{seen:?}");
}

#[test]
fn the_schema_versions_are_the_vendored_ones() {
    let mut dirs: Vec<String> = std::fs::read_dir(schema_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let v = name.strip_prefix("mcp-")?;
            (v.as_bytes()[0].is_ascii_digit()).then(|| v.to_string())
        })
        .collect();
    dirs.sort();
    assert_eq!(SCHEMA_VERSIONS, dirs);
}

#[test]
fn a_tool_with_icons_keeps_what_it_does_not_name() {
    let v = json!({
        "name": "get_weather",
        "title": "Weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "icons": [{"src": "https://example.com/w.png", "mimeType": "image/png",
                   "sizes": ["48x48", "any"], "theme": "dark", "futureIconField": 1}],
        "annotations": {"readOnlyHint": true},
        "execution": {"taskSupport": "optional"},
        "_meta": {"example.com/x": true},
        "futureToolField": {"nested": [1, 2]}
    });
    let t = round_trip::<Tool>(&v, "tool");
    assert_eq!(t.name, "get_weather");
    assert_eq!(t.icons.len(), 1);
    assert_eq!(t.icons[0].sizes, ["48x48", "any"]);
    assert_eq!(t.icons[0].theme.as_deref(), Some("dark"));
    assert_eq!(t.icons[0].extra["futureIconField"], 1);
    assert_eq!(t.annotations, Some(json!({"readOnlyHint": true})));
    assert_eq!(t.execution, Some(json!({"taskSupport": "optional"})));
    assert_eq!(t.extra["_meta"], json!({"example.com/x": true}));
    assert_eq!(t.extra["futureToolField"], json!({"nested": [1, 2]}));
    assert_eq!(t.extra.len(), 2);
    // the name identifies a tool: without it the tool does not decode
    let mut nameless = v.clone();
    nameless.as_object_mut().unwrap().remove("name");
    assert!(serde_json::from_value::<Tool>(nameless).is_err());
    // a missing inputSchema decodes as null (OVERRIDES: lenient)
    let t: Tool = serde_json::from_value(json!({"name": "n"})).unwrap();
    assert_eq!(t.input_schema, Value::Null);
}

#[test]
fn a_call_tool_result_with_structured_content_keeps_what_it_does_not_name() {
    let v = json!({
        "content": [{"type": "text", "text": "22°C"},
                    {"type": "resource_link", "uri": "file:///w.json", "name": "w",
                     "annotations": {"priority": 0.5}, "futureLinkField": "x"},
                    {"type": "futureBlock", "data": 1}],
        "structuredContent": {"temperature": 22, "unit": "C"},
        "isError": false,
        "resultType": "complete",
        "futureResultField": [true]
    });
    let r = round_trip::<CallToolResult>(&v, "result");
    assert_eq!(
        r.structured_content,
        Some(json!({"temperature": 22, "unit": "C"}))
    );
    assert_eq!(r.result_type.as_deref(), Some("complete"));
    assert_eq!(r.extra["futureResultField"], json!([true]));
    assert_eq!(r.text(), "22°C");
    let links = r.resource_links();
    assert_eq!(links.len(), 1);
    assert_eq!(links[0].annotations, Some(json!({"priority": 0.5})));
    assert_eq!(links[0].extra["type"], "resource_link");
    assert_eq!(links[0].extra["futureLinkField"], "x");
    // isError absent reads false; content absent reads empty
    let r: CallToolResult = serde_json::from_value(json!({})).unwrap();
    assert!(!r.is_error && r.content.is_empty());
}

#[test]
fn a_field_of_one_version_only_is_optional() {
    // 2025-11-25 requires no resultType; 2026-07-28 has no `tasks` capability.
    let r: GetPromptResult = serde_json::from_value(json!({"messages": []})).unwrap();
    assert_eq!(r.result_type, None);
    let c: ServerCapabilities =
        serde_json::from_value(json!({"tasks": {"list": {}}, "extensions": {"x": {}}})).unwrap();
    assert_eq!(c.tasks, Some(json!({"list": {}})));
    assert_eq!(c.extensions, Some(json!({"x": {}})));
    assert!(c.extra.is_empty());
    let r = Root::new("file:///p", None);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"uri": "file:///p"})
    );
}
