//! One side of a comparison: a Codex app-server schema reduced to its shape, with its methods
//! and the kind of each definition (string enum, union, object).
//!
//! The same reduction as `shape_only` in `tools/protocol-gen/gen.py` (which wrote the vendored
//! side): `$ref`s are cut to the definition name, the keywords in [`NOT_SHAPE`] are dropped and
//! `required` lists are sorted; key order never matters (`serde_json::Map` compares by key).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Keywords that describe a schema but are not its shape.
const NOT_SHAPE: [&str; 5] = ["description", "title", "$schema", "default", "examples"];
/// Keywords whose value maps names to schemas (the names are kept, even `description`).
const NAMED_SCHEMAS: [&str; 3] = ["properties", "patternProperties", "definitions"];
/// The schema's method unions: client requests, server notifications, server requests.
pub(crate) const ENVELOPES: [&str; 3] = ["ClientRequest", "ServerNotification", "ServerRequest"];

/// A schema node reduced to its shape.
pub(crate) fn shape_only(node: &Value) -> Value {
    match node {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                if NOT_SHAPE.contains(&k.as_str()) {
                    continue;
                }
                let v = match v {
                    Value::Object(named) if NAMED_SCHEMAS.contains(&k.as_str()) => Value::Object(
                        named
                            .iter()
                            .map(|(n, s)| (n.clone(), shape_only(s)))
                            .collect(),
                    ),
                    Value::Array(list) if k == "required" => {
                        let mut l = list.clone();
                        l.sort_by_key(|a| a.to_string());
                        Value::Array(l)
                    }
                    Value::String(r) if k == "$ref" => {
                        Value::String(r.rsplit('/').next().unwrap_or(r).to_owned())
                    }
                    _ => shape_only(v),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        Value::Array(list) => Value::Array(list.iter().map(shape_only).collect()),
        _ => node.clone(),
    }
}

/// A method of one of the [`ENVELOPES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Method {
    /// The params definition, if the params are a (possibly nullable) `$ref`.
    pub params: Option<String>,
    /// The response definition (client and server requests), if the schema has one.
    pub response: Option<String>,
    /// Only in the experimental API.
    pub experimental: bool,
}

/// A schema: its definitions reduced to their shape, and its methods.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schema {
    /// Definitions by name (the bundle's top level and its `v2` namespace, in one namespace).
    pub defs: BTreeMap<String, Value>,
    /// Methods of each envelope, by envelope name.
    pub methods: BTreeMap<&'static str, BTreeMap<String, Method>>,
}

impl Schema {
    /// A schema from a `codex_app_server_protocol.schemas.json` bundle; `stable` is the stable
    /// bundle of the same binary when `bundle` is the experimental one (it marks which methods
    /// are experimental).
    pub fn from_bundles(
        bundle: &Value,
        stable: Option<&Value>,
        overrides: &Map<String, Value>,
    ) -> Schema {
        let defs = bundle_defs(bundle);
        let stable_methods = stable.map(|s| {
            let st = bundle_defs(s);
            ENVELOPES
                .iter()
                .map(|e| {
                    (
                        *e,
                        envelope_entries(&st, e)
                            .into_iter()
                            .map(|(m, _)| m)
                            .collect(),
                    )
                })
                .collect::<BTreeMap<&str, BTreeSet<String>>>()
        });
        Schema::from_defs(defs, stable_methods.as_ref(), overrides)
    }

    /// A schema from its definitions; `stable_methods` (by envelope) marks the others
    /// experimental; `overrides` maps client methods to response types that do not follow the
    /// `XxxParams` -> `XxxResponse` convention.
    pub fn from_defs(
        defs: BTreeMap<String, Value>,
        stable_methods: Option<&BTreeMap<&str, BTreeSet<String>>>,
        overrides: &Map<String, Value>,
    ) -> Schema {
        let mut methods = BTreeMap::new();
        for envelope in ENVELOPES {
            let stable = stable_methods.and_then(|s| s.get(envelope));
            let mut table = BTreeMap::new();
            for (name, params) in envelope_entries(&defs, envelope) {
                let response = match overrides.get(&name).and_then(Value::as_str) {
                    Some(r) if envelope == "ClientRequest" && defs.contains_key(r) => {
                        Some(r.to_owned())
                    }
                    _ if envelope == "ServerNotification" => None,
                    _ => params
                        .as_deref()
                        .and_then(|p| p.strip_suffix("Params"))
                        .map(|base| format!("{base}Response"))
                        .filter(|r| defs.contains_key(r)),
                };
                let experimental = stable.is_some_and(|s| !s.contains(&name));
                table.insert(
                    name,
                    Method {
                        params,
                        response,
                        experimental,
                    },
                );
            }
            methods.insert(envelope, table);
        }
        Schema { defs, methods }
    }
}

/// The definitions of a bundle, reduced to their shape (the `v2` namespace wins a clash).
pub(crate) fn bundle_defs(bundle: &Value) -> BTreeMap<String, Value> {
    let mut defs = BTreeMap::new();
    let top = bundle.get("definitions").and_then(Value::as_object);
    let nested = top.and_then(|t| t.get("v2")).and_then(Value::as_object);
    for map in [top, nested].into_iter().flatten() {
        for (name, schema) in map {
            if name != "v2" {
                defs.insert(name.clone(), shape_only(schema));
            }
        }
    }
    defs
}

/// `(method, params definition)` of every alternative of an envelope union.
fn envelope_entries(
    defs: &BTreeMap<String, Value>,
    envelope: &str,
) -> Vec<(String, Option<String>)> {
    let alts = defs
        .get(envelope)
        .and_then(|e| e.get("oneOf"))
        .and_then(Value::as_array);
    alts.into_iter()
        .flatten()
        .filter_map(|alt| {
            let props = alt.get("properties")?;
            let method = single_string(props.get("method")?)?;
            Some((method, props.get("params").and_then(params_ref)))
        })
        .collect()
}

/// The definition a params schema names: `{"$ref": X}` or a nullable `X`.
fn params_ref(p: &Value) -> Option<String> {
    if let Some(r) = p.get("$ref").and_then(Value::as_str) {
        return Some(r.to_owned());
    }
    let alts = p.get("anyOf").or_else(|| p.get("oneOf"))?.as_array()?;
    let mut refs = alts
        .iter()
        .filter_map(|a| a.get("$ref").and_then(Value::as_str));
    refs.next().map(str::to_owned)
}

/// The one string a schema allows (`{"enum": [s]}` or `{"const": s}`).
pub(crate) fn single_string(s: &Value) -> Option<String> {
    if let Some(c) = s.get("const").and_then(Value::as_str) {
        return Some(c.to_owned());
    }
    match s.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
        Some([Value::String(v)]) => Some(v.clone()),
        _ => None,
    }
}

/// What a definition is, for the comparison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A string enum: its values.
    Enum(BTreeSet<String>),
    /// A union whose members are told apart by a tag (a property like `type`, or the key of an
    /// externally tagged `{"tag": {...}}`): each member's schema without its tag.
    Union(BTreeMap<String, Value>),
    /// An object with properties: each field's schema and whether it is required.
    Object(BTreeMap<String, (bool, Value)>),
    /// Anything else (compared whole).
    Other,
}

impl Kind {
    /// The kind of a definition reduced to its shape.
    pub fn of(def: &Value) -> Kind {
        if let Some(values) = string_values(def) {
            return Kind::Enum(values);
        }
        if let Some(alts) = def
            .get("oneOf")
            .or_else(|| def.get("anyOf"))
            .and_then(Value::as_array)
        {
            if let Some(members) = tagged_members(alts).or_else(|| external_members(alts)) {
                return Kind::Union(members);
            }
        }
        match fields(def) {
            Some(f) => Kind::Object(f),
            None => Kind::Other,
        }
    }

    /// A union's members, or an enum's values as members without payload (`null`).
    pub fn members(self) -> Option<BTreeMap<String, Value>> {
        match self {
            Kind::Union(m) => Some(m),
            Kind::Enum(values) => Some(values.into_iter().map(|v| (v, Value::Null)).collect()),
            _ => None,
        }
    }
}

/// The values of a string enum (`enum`, or a `oneOf` of string enums).
fn string_values(def: &Value) -> Option<BTreeSet<String>> {
    if let Some(values) = def.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
    }
    let alts = def.get("oneOf").or_else(|| def.get("anyOf"))?.as_array()?;
    let mut out = BTreeSet::new();
    for alt in alts {
        out.extend(
            alt.get("enum")?
                .as_array()?
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()?,
        );
    }
    (!out.is_empty()).then_some(out)
}

/// The fields of an object schema (`None` without `properties`).
pub(crate) fn fields(def: &Value) -> Option<BTreeMap<String, (bool, Value)>> {
    let props = def.get("properties")?.as_object()?;
    let required: BTreeSet<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    Some(
        props
            .iter()
            .map(|(k, v)| (k.clone(), (required.contains(k.as_str()), v.clone())))
            .collect(),
    )
}

/// Members of a union of objects that share a tag property with one string value each
/// (`type` preferred): tag value -> the member without its tag.
fn tagged_members(alts: &[Value]) -> Option<BTreeMap<String, Value>> {
    let first = alts.first()?.get("properties")?.as_object()?;
    let mut candidates: Vec<&String> = first
        .keys()
        .filter(|k| {
            alts.iter().all(|a| {
                a.get("properties")
                    .and_then(|p| p.get(k.as_str()))
                    .and_then(single_string)
                    .is_some()
            })
        })
        .collect();
    candidates.sort_by_key(|k| (k.as_str() != "type", k.as_str()));
    let tag = candidates.first()?;
    let mut out = BTreeMap::new();
    for alt in alts {
        let value = single_string(&alt["properties"][tag.as_str()])?;
        let mut member = alt.clone();
        if let Some(p) = member.get_mut("properties").and_then(Value::as_object_mut) {
            p.remove(tag.as_str());
        }
        if let Some(r) = member.get_mut("required").and_then(Value::as_array_mut) {
            r.retain(|x| x.as_str() != Some(tag.as_str()));
        }
        out.insert(value, member);
    }
    Some(out)
}

/// Members of an externally tagged union: string constants (member `null`) and single-key
/// objects `{"tag": {...}}` (member: the inner schema).
fn external_members(alts: &[Value]) -> Option<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for alt in alts {
        if let Some(values) = string_values(alt) {
            out.extend(values.into_iter().map(|v| (v, Value::Null)));
            continue;
        }
        let props = alt.get("properties")?.as_object()?;
        let (key, inner) = props.iter().next().filter(|_| props.len() == 1)?;
        out.insert(key.clone(), inner.clone());
    }
    Some(out)
}

/// The definitions `node` refers to, directly.
pub(crate) fn refs(node: &Value, out: &mut BTreeSet<String>) {
    match node {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::String(r) if k == "$ref" => {
                        out.insert(r.clone());
                    }
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(list) => list.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shape_ignores_descriptions_titles_and_order_but_keeps_fields_named_description() {
        let a = json!({"type": "object", "description": "x", "required": ["b", "a"],
            "properties": {"description": {"type": "string", "title": "T"}, "a": {"$ref": "#/definitions/v2/A"}}});
        let b = json!({"properties": {"a": {"$ref": "A"}, "description": {"type": "string"}},
            "required": ["a", "b"], "type": "object"});
        assert_eq!(shape_only(&a), shape_only(&b));
        assert!(shape_only(&a)["properties"].get("description").is_some());
    }

    #[test]
    fn kinds_of_enums_unions_and_objects() {
        assert_eq!(
            Kind::of(&json!({"type": "string", "enum": ["a", "b"]})),
            Kind::Enum(["a".into(), "b".into()].into())
        );
        let tagged = json!({"oneOf": [
            {"type": "object", "properties": {"type": {"type": "string", "enum": ["text"]}, "text": {"type": "string"}}, "required": ["type", "text"]},
            {"type": "object", "properties": {"type": {"type": "string", "enum": ["image"]}}, "required": ["type"]}]});
        let Kind::Union(m) = Kind::of(&tagged) else {
            panic!()
        };
        assert_eq!(m.keys().collect::<Vec<_>>(), ["image", "text"]);
        assert_eq!(m["text"]["required"], json!(["text"]));
        let external = json!({"oneOf": [{"type": "string", "enum": ["accept", "decline"]},
            {"type": "object", "properties": {"amend": {"type": "object"}}, "required": ["amend"]}]});
        let Kind::Union(m) = Kind::of(&external) else {
            panic!()
        };
        assert_eq!(m.keys().collect::<Vec<_>>(), ["accept", "amend", "decline"]);
        let Kind::Object(f) = Kind::of(&json!({"properties": {"a": {}}, "required": ["a"]})) else {
            panic!()
        };
        assert!(f["a"].0);
    }
}
