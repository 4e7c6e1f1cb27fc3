//! The comparison on small synthetic schemas, and the embedded vendored table against the
//! vendored bundles.

use super::*;
use serde_json::json;

/// An envelope union with one alternative per `(method, params definition)`.
fn envelope(methods: &[(&str, &str)]) -> Value {
    let alts: Vec<Value> = methods
        .iter()
        .map(|(m, p)| json!({"type": "object", "properties": {"method": {"type": "string", "enum": [m]}, "params": {"$ref": format!("#/definitions/v2/{p}")}}}))
        .collect();
    json!({"oneOf": alts})
}

/// A small schema: client methods `a/one` (params with an enum, response with a union) and
/// `b/two`, notification `n/one`.
fn base() -> Value {
    json!({
        "ClientRequest": envelope(&[("a/one", "AOneParams"), ("b/two", "BTwoParams")]),
        "ServerNotification": envelope(&[("n/one", "NOneNotification")]),
        "ServerRequest": {"oneOf": []},
        "AOneParams": {"type": "object", "description": "Params.", "required": ["id"],
            "properties": {"id": {"type": "string"}, "mode": {"$ref": "#/definitions/v2/Mode"}}},
        "AOneResponse": {"type": "object", "properties": {"item": {"$ref": "#/definitions/v2/Item"}}},
        "BTwoParams": {"type": "object", "properties": {}},
        "BTwoResponse": {"type": "object", "properties": {}},
        "NOneNotification": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
        "Mode": {"type": "string", "enum": ["x", "y"]},
        "Item": {"oneOf": [
            {"type": "object", "required": ["type", "text"], "properties": {"type": {"type": "string", "enum": ["text"]}, "text": {"type": "string"}}},
            {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["image"]}}}]},
    })
}

fn schema(defs: &Value) -> Schema {
    let defs = defs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), schema::shape_only(v)))
        .collect();
    Schema::from_defs(defs, None, &Map::new())
}

fn compare(live: &Value) -> Vec<Difference> {
    diff::compare(&schema(&base()), &schema(live), &|m| {
        if m == "b/two" {
            vec!["b_two"]
        } else {
            vec![]
        }
    })
}

fn find<'a>(d: &'a [Difference], s: Section, name: &str, member: Option<&str>) -> &'a Difference {
    d.iter()
        .find(|x| x.section == s && x.name == name && x.member.as_deref() == member)
        .unwrap_or_else(|| panic!("no {s:?} {name} {member:?} in {d:#?}"))
}

#[test]
fn same_schema_and_description_or_key_order_changes_are_no_difference() {
    assert_eq!(compare(&base()), []);
    let mut live = base();
    live["AOneParams"]["description"] = json!("Other words.");
    live["AOneParams"]["properties"]["id"]["title"] = json!("Id");
    live["Item"]["oneOf"][0]["required"] = json!(["text", "type"]);
    let reordered: Map<String, Value> = live["AOneParams"]
        .as_object()
        .unwrap()
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    live["AOneParams"] = Value::Object(reordered);
    assert_eq!(compare(&live), []);
}

#[test]
fn added_removed_and_changed_methods() {
    let mut live = base();
    live["ClientRequest"] = envelope(&[("a/one", "AOneParams"), ("c/three", "BTwoParams")]);
    live["AOneParams"]["properties"]["extra"] = json!({"type": "integer"});
    live["AOneParams"]["required"] = json!(["extra", "id"]);
    let d = compare(&live);
    let added = find(&d, Section::ClientMethod, "c/three", None);
    assert_eq!(
        (added.change, added.verdict),
        (Change::Added, Verdict::KeptRaw)
    );
    let removed = find(&d, Section::ClientMethod, "b/two", None);
    assert_eq!(
        (removed.change, removed.verdict),
        (Change::Removed, Verdict::Refused)
    );
    assert!(
        removed.detail.contains("b_two helper fails"),
        "{}",
        removed.detail
    );
    let changed = find(&d, Section::ClientMethod, "a/one", None);
    assert_eq!(
        (changed.change, changed.verdict),
        (Change::Changed, Verdict::MayFail)
    );
    assert!(changed.detail.contains("AOneParams"), "{}", changed.detail);
    let field = find(&d, Section::TypeField, "AOneParams", Some("extra"));
    assert_eq!(
        (field.change, field.verdict),
        (Change::Added, Verdict::MayFail)
    );
}

#[test]
fn new_enum_value_and_union_variant_are_kept_raw() {
    let mut live = base();
    live["Mode"]["enum"] = json!(["x", "y", "z"]);
    let mut alts = live["Item"]["oneOf"].as_array().unwrap().clone();
    alts.push(json!({"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["audio"]}}}));
    live["Item"]["oneOf"] = Value::Array(alts);
    let d = compare(&live);
    let value = find(&d, Section::EnumValue, "Mode", Some("z"));
    assert_eq!(
        (value.change, value.verdict),
        (Change::Added, Verdict::KeptRaw)
    );
    let variant = find(&d, Section::UnionVariant, "Item", Some("audio"));
    assert_eq!(
        (variant.change, variant.verdict),
        (Change::Added, Verdict::KeptRaw)
    );
    // The method reaches both; nothing in it fails.
    assert_eq!(
        find(&d, Section::ClientMethod, "a/one", None).verdict,
        Verdict::KeptRaw
    );
    assert_eq!(d.len(), 3, "{d:#?}");
}

#[test]
fn changed_variant_payload_and_notification_params() {
    let mut live = base();
    live["Item"]["oneOf"][0]["properties"]["text"] = json!({"type": "integer"});
    live["NOneNotification"]["properties"]["more"] = json!({"type": "string"});
    let d = compare(&live);
    // A known tag whose payload no longer decodes becomes the union's `Unknown`.
    assert_eq!(
        find(&d, Section::UnionVariant, "Item", Some("text")).verdict,
        Verdict::KeptRaw
    );
    let n = find(&d, Section::ServerNotification, "n/one", None);
    assert_eq!((n.change, n.verdict), (Change::Changed, Verdict::Typed));
    assert_eq!(
        find(&d, Section::TypeField, "NOneNotification", Some("more")).verdict,
        Verdict::Typed
    );
}

#[test]
fn removed_enum_value_and_required_field() {
    let mut live = base();
    live["Mode"]["enum"] = json!(["x"]);
    live["NOneNotification"]["properties"] = json!({});
    live["NOneNotification"]["required"] = json!([]);
    let d = compare(&live);
    // The library sends Mode: the server no longer takes `y`.
    assert_eq!(
        find(&d, Section::EnumValue, "Mode", Some("y")).verdict,
        Verdict::MayFail
    );
    assert_eq!(
        find(&d, Section::TypeField, "NOneNotification", Some("text")).verdict,
        Verdict::MayFail
    );
    // ... and a notification whose params no longer decode arrives as `Unknown`.
    assert_eq!(
        find(&d, Section::ServerNotification, "n/one", None).verdict,
        Verdict::KeptRaw
    );
}

#[test]
fn report_text_and_json() {
    let mut live = base();
    live["Mode"]["enum"] = json!(["x", "y", "z"]);
    let r = CompatReport {
        codex_binary: "codex".into(),
        codex_version: Some("9.9.9".into()),
        library_version: "0.169.0".into(),
        experimental_compared: true,
        differences: compare(&live),
    };
    let text = r.to_string();
    assert!(text.contains("2 differences: 2 kept raw"), "{text}");
    assert!(text.contains("Mode.z"), "{text}");
    let j = r.to_json();
    assert_eq!(j["identical"], false);
    assert_eq!(j["counts"]["kept_raw"], 2);
    assert_eq!(j["differences"][0]["section"], "client_method");
    let same = CompatReport {
        differences: vec![],
        ..r
    };
    assert!(same.to_string().contains("No differences"));
}

/// The Rust reduction of the vendored bundles equals the generator's (so that a live schema
/// is reduced exactly like the library's side), and both views have the expected methods.
#[test]
fn vendored_table_matches_the_vendored_bundles() {
    let version = crate::protocol::SCHEMA_CODEX_VERSION;
    assert_eq!(vendored_table()["version"], version);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(format!("codex-{version}"));
    let read = |kind: &str| -> Value {
        let text = std::fs::read_to_string(
            dir.join(kind)
                .join("codex_app_server_protocol.schemas.json"),
        )
        .unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (exp, stable) = (read("experimental"), read("stable"));
    let overrides = vendored_overrides();
    let from_bundles = Schema::from_bundles(&exp, Some(&stable), &overrides);
    let table = vendored(true);
    assert_eq!(from_bundles.defs, table.defs);
    assert_eq!(from_bundles.methods, table.methods);
    let stable_live = Schema::from_bundles(&stable, None, &overrides);
    let stable_table = vendored(false);
    assert_eq!(stable_live.defs, stable_table.defs);
    assert_eq!(stable_live.methods, stable_table.methods);
    let count = |s: &Schema, e: &str| s.methods[e].len();
    assert_eq!(
        (
            count(&stable_table, "ClientRequest"),
            count(&stable_table, "ServerNotification"),
            count(&stable_table, "ServerRequest")
        ),
        (110, 87, 10)
    );
    assert_eq!(count(&table, "ClientRequest"), 189);
    assert_eq!(
        table.methods["ClientRequest"]["thread/start"]
            .response
            .as_deref(),
        Some("ThreadStartResponse")
    );
    assert!(diff::compare(&table, &from_bundles, &helpers_calling).is_empty());
    assert_eq!(helpers_calling("thread/start"), ["thread_start"]);
    assert_eq!(helpers_calling("turn/start"), ["run", "run_streamed"]);
}
