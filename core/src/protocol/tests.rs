//! Unit tests of the generated protocol: coverage, forward compatibility, wire encodings and
//! the generated-code drift check.

use super::*;
use serde_json::json;

#[test]
fn coverage_matches_codex_0_169_0() {
    assert_eq!(SCHEMA_CODEX_VERSION, "0.169.0");
    let stable = CLIENT_METHODS.iter().filter(|(_, exp)| !exp).count();
    let experimental = CLIENT_METHODS.iter().filter(|(_, exp)| *exp).count();
    assert_eq!(stable, 109, "stable client methods");
    assert_eq!(experimental, 75, "experimental-only client methods");
    assert_eq!(SERVER_NOTIFICATION_METHODS.len(), 86);
    let stable_requests = SERVER_REQUEST_METHODS.iter().filter(|(_, e)| !e).count();
    assert_eq!(stable_requests, 10);
    assert_eq!(CLIENT_NOTIFICATION_METHODS, &["initialized"]);
    // The table is sorted (lookups binary-search it).
    assert!(CLIENT_METHODS.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(client_method_is_experimental("thread/start"), Some(false));
    assert_eq!(client_method_is_experimental("no/such/method"), None);
}

#[test]
fn method_markers_carry_names_and_types() {
    fn name<M: ClientMethod>() -> (&'static str, bool) {
        (M::NAME, M::EXPERIMENTAL)
    }
    assert_eq!(name::<methods::ThreadStart>(), ("thread/start", false));
    assert_eq!(name::<methods::TurnStart>(), ("turn/start", false));
    assert_eq!(name::<methods::ThreadNameSet>(), ("thread/name/set", false));
    assert_eq!(name::<methods::ModelList>(), ("model/list", false));
    assert_eq!(
        <server_requests::ItemCommandExecutionRequestApproval as ServerRequestMethod>::NAME,
        "item/commandExecution/requestApproval"
    );
}

#[test]
fn known_notification_parses_typed() {
    let n = ServerNotification::parse(
        "item/agentMessage/delta",
        r#"{"threadId":"t","turnId":"u","itemId":"i","delta":"hel"}"#,
    );
    match n {
        ServerNotification::ItemAgentMessageDelta(d) => {
            assert_eq!(d.delta, "hel");
            assert_eq!(d.thread_id, "t");
        }
        other => panic!("expected a delta, got {other:?}"),
    }
}

#[test]
fn unknown_notification_and_mismatched_params_are_kept_raw() {
    match ServerNotification::parse("brand/new/thing", r#"{"a":[1,2]}"#) {
        ServerNotification::Unknown { method, params } => {
            assert_eq!(method, "brand/new/thing");
            assert_eq!(params, json!({"a": [1, 2]}));
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
    // A known method whose params break the schema is not an error either.
    match ServerNotification::parse("item/agentMessage/delta", r#"{"delta": 5}"#) {
        ServerNotification::Unknown { method, params } => {
            assert_eq!(method, "item/agentMessage/delta");
            assert_eq!(params["delta"], 5);
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
    match ServerRequestKind::parse("tool/newKind", r#"{"x":1}"#) {
        ServerRequestKind::Unknown { method, params } => {
            assert_eq!(method, "tool/newKind");
            assert_eq!(params["x"], 1);
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
}

#[test]
fn unknown_item_type_is_kept_and_reserialised_unchanged() {
    let raw = json!({"type": "hologram", "id": "x", "beams": 3});
    let item: ThreadItem = serde_json::from_value(raw.clone()).unwrap();
    assert!(matches!(item, ThreadItem::Unknown(ref v) if *v == raw));
    assert_eq!(serde_json::to_value(&item).unwrap(), raw);
}

#[test]
fn unknown_fields_of_known_types_survive_a_round_trip() {
    let raw = json!({
        "type": "agentMessage", "id": "m1", "text": "hi",
        "futureField": {"nested": true}
    });
    let item: ThreadItem = serde_json::from_value(raw.clone()).unwrap();
    match &item {
        ThreadItem::AgentMessage(m) => {
            assert_eq!(m.text, "hi");
            assert_eq!(m.extra["futureField"], json!({"nested": true}));
        }
        other => panic!("expected agentMessage, got {other:?}"),
    }
    let back = serde_json::to_value(&item).unwrap();
    assert_eq!(back["futureField"], raw["futureField"]);
    assert_eq!(back["type"], "agentMessage");
    assert_eq!(back["text"], "hi");
}

#[test]
fn unknown_string_enum_value_is_kept_verbatim() {
    let s: CommandExecutionStatus = serde_json::from_value(json!("teleported")).unwrap();
    assert_eq!(s, CommandExecutionStatus::Unknown("teleported".into()));
    assert_eq!(serde_json::to_value(&s).unwrap(), json!("teleported"));
    let k: CommandExecutionStatus = serde_json::from_value(json!("completed")).unwrap();
    assert_eq!(k, CommandExecutionStatus::Completed);
}

#[test]
fn approval_decisions_encode_as_the_server_expects() {
    use CommandExecutionApprovalDecision as D;
    assert_eq!(serde_json::to_value(D::Accept).unwrap(), json!("accept"));
    assert_eq!(
        serde_json::to_value(D::AcceptForSession).unwrap(),
        json!("acceptForSession")
    );
    assert_eq!(serde_json::to_value(D::Decline).unwrap(), json!("decline"));
    assert_eq!(serde_json::to_value(D::Cancel).unwrap(), json!("cancel"));
    // The inner key is snake_case: 0.169.0 rejects a camelCase one.
    assert_eq!(
        serde_json::to_value(D::accept_with_execpolicy_amendment(["git", "status"])).unwrap(),
        json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["git", "status"]}})
    );
    assert_eq!(
        serde_json::to_value(D::apply_network_policy_amendment(
            "example.test",
            NetworkPolicyRuleAction::Allow
        ))
        .unwrap(),
        json!({"applyNetworkPolicyAmendment":
            {"network_policy_amendment": {"host": "example.test", "action": "allow"}}})
    );
    let back: D = serde_json::from_value(
        json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}),
    )
    .unwrap();
    assert_eq!(back, D::accept_with_execpolicy_amendment(["ls"]));
    let odd: D = serde_json::from_value(json!({"somethingNew": 1})).unwrap();
    assert!(matches!(odd, D::Unknown(_)));
    assert_eq!(
        serde_json::to_value(FileChangeApprovalDecision::AcceptForSession).unwrap(),
        json!("acceptForSession")
    );
}

#[test]
fn client_params_omit_unset_optional_fields() {
    let p = ThreadStartParams::default();
    assert_eq!(serde_json::to_value(&p).unwrap(), json!({}));
    assert_eq!(serde_json::to_value(NoParams {}).unwrap(), json!({}));
}

#[test]
fn experimental_methods_and_fields_are_reported() {
    let p = ThreadStartParams::default();
    assert_eq!(experimental_reason::<methods::ThreadStart>(&p), None);
    let p = ThreadStartParams {
        dynamic_tools: Some(Vec::new()),
        ..Default::default()
    };
    assert_eq!(
        experimental_reason::<methods::ThreadStart>(&p).as_deref(),
        Some("thread/start.dynamicTools")
    );
    let (name, _) = CLIENT_METHODS
        .iter()
        .find(|(_, exp)| *exp)
        .expect("some experimental method");
    assert_eq!(client_method_is_experimental(name), Some(true));
}

#[test]
fn generated_code_is_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new("bash")
        .arg(root.join("scripts/check-generated.sh"))
        .output()
        .expect("run scripts/check-generated.sh (needs bash, python3 and rustfmt)");
    assert!(
        out.status.success(),
        "generated code (generated.rs, protocol.py, _requests.py) differs from a fresh generation: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Property: every generated type (each schema definition that is not an alias) round-trips
/// losslessly through serde, unknown fields included. Values are drawn from the vendored JSON
/// Schema itself (a random instance of the definition, plus unknown members on every object
/// with properties and unknown values in string enums), from a seed proptest chooses. The one
/// difference allowed is the wire rule for optional members: a member that is absent and one
/// that is `null` are the same `None` (server-sent types write it back as `null`).
mod roundtrip_props {
    use super::super::generated::ROUNDTRIP;
    use proptest::prelude::*;
    use serde_json::{Map, Value};
    use std::collections::HashMap;

    const MAX_DEPTH: u32 = 7;

    fn defs() -> HashMap<String, Value> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schema/codex-0.169.0/experimental/codex_app_server_protocol.schemas.json"
        );
        let bundle: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let top = bundle["definitions"].as_object().unwrap();
        let mut out = HashMap::new();
        for (k, v) in top.iter().chain(top["v2"].as_object().unwrap().iter()) {
            if k != "v2" {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    struct Gen<'a> {
        defs: &'a HashMap<String, Value>,
        rng: fastrand::Rng,
        extra: u32,
    }

    impl Gen<'_> {
        fn string(&mut self) -> String {
            let n = self.rng.usize(0..6);
            (0..n).map(|_| self.rng.alphanumeric()).collect()
        }

        fn primitive(&mut self) -> Value {
            match self.rng.u8(0..4) {
                0 => Value::Bool(self.rng.bool()),
                1 => Value::from(self.rng.i64(-50..50)),
                2 => Value::from(self.string()),
                _ => serde_json::json!([self.string()]),
            }
        }

        /// A value that is not null, or `None` when the schema only allows null.
        fn non_null(&mut self, schema: &Value, depth: u32) -> Option<Value> {
            (0..8)
                .map(|_| self.value(schema, depth))
                .find(|v| !v.is_null())
        }

        fn value(&mut self, schema: &Value, depth: u32) -> Value {
            if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap();
                let def = self
                    .defs
                    .get(name)
                    .unwrap_or_else(|| panic!("no definition {name}"));
                return self.value(def, depth + 1);
            }
            if let Some(c) = schema.get("const") {
                return c.clone();
            }
            if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                if values.iter().all(Value::is_string) && self.rng.u8(0..8) == 0 {
                    // A value this version does not know: kept as `Unknown(String)`.
                    return Value::from(format!("futureValue{}", self.rng.u8(0..9)));
                }
                return values[self.rng.usize(0..values.len())].clone();
            }
            for key in ["oneOf", "anyOf"] {
                if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                    let b = &branches[self.rng.usize(0..branches.len())];
                    let mut v = self.value(b, depth + 1);
                    // Siblings of the union (a shared `properties` list) apply too.
                    if let (Some(props), Value::Object(_)) = (schema.get("properties"), &v) {
                        let extra = self.object(schema, props, depth);
                        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
                            for (k, x) in e {
                                m.entry(k).or_insert(x);
                            }
                        }
                    }
                    return v;
                }
            }
            if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
                let mut merged = Map::new();
                for p in parts {
                    match self.value(p, depth + 1) {
                        Value::Object(m) => merged.extend(m),
                        other => return other,
                    }
                }
                return Value::Object(merged);
            }
            let ty = match schema.get("type") {
                Some(Value::Array(types)) => {
                    let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    if non_null.is_empty()
                        || (types.len() > non_null.len() && self.rng.u8(0..4) == 0)
                    {
                        "null".to_owned()
                    } else {
                        non_null[self.rng.usize(0..non_null.len())]
                            .as_str()
                            .unwrap()
                            .to_owned()
                    }
                }
                Some(Value::String(t)) => t.clone(),
                _ if schema.get("properties").is_some() => "object".into(),
                _ => return self.primitive(),
            };
            match ty.as_str() {
                "null" => Value::Null,
                "boolean" => Value::Bool(self.rng.bool()),
                "integer" => {
                    let unsigned = schema
                        .get("minimum")
                        .and_then(Value::as_f64)
                        .is_some_and(|m| m >= 0.0)
                        || schema
                            .get("format")
                            .and_then(Value::as_str)
                            .is_some_and(|f| f.starts_with('u'));
                    Value::from(if unsigned {
                        self.rng.i64(0..100)
                    } else {
                        self.rng.i64(-100..100)
                    })
                }
                // Not a whole number: an integer written as a float would not compare equal.
                "number" => Value::from(self.rng.i32(-100..100) as f64 + 0.5),
                "string" => Value::from(self.string()),
                "array" => {
                    let n = if depth >= MAX_DEPTH {
                        0
                    } else {
                        self.rng.usize(0..3)
                    };
                    let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                    Value::Array((0..n).map(|_| self.value(&items, depth + 1)).collect())
                }
                "object" => {
                    let empty = Value::Object(Map::new());
                    let props = schema.get("properties").unwrap_or(&empty).clone();
                    self.object(schema, &props, depth)
                }
                other => panic!("schema type {other}"),
            }
        }

        fn object(&mut self, schema: &Value, props: &Value, depth: u32) -> Value {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            let props = props.as_object().cloned().unwrap_or_default();
            for (k, s) in &props {
                if required.contains(&k.as_str()) {
                    out.insert(k.clone(), self.value(s, depth + 1));
                } else if depth < MAX_DEPTH && self.rng.bool() {
                    // Optional members are written only with a value (an explicit null of an
                    // optional member is not kept by every type; see the wire rules).
                    if let Some(v) = self.non_null(s, depth + 1) {
                        out.insert(k.clone(), v);
                    }
                }
            }
            if let Some(add) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for _ in 0..self.rng.usize(0..3) {
                    let key = format!("key{}", self.string());
                    out.insert(key, self.value(add, depth + 1));
                }
            } else if !props.is_empty() {
                // An unknown member: it must survive the round trip.
                self.extra += 1;
                out.insert(format!("zzUnknown{}", self.extra), self.primitive());
            }
            Value::Object(out)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn every_generated_type_round_trips_losslessly(seed in any::<u64>()) {
            let defs = defs();
            let mut g = Gen { defs: &defs, rng: fastrand::Rng::with_seed(seed), extra: 0 };
            for (name, roundtrip) in ROUNDTRIP {
                let schema = &defs[*name];
                let value = g.value(schema, 0);
                let text = value.to_string();
                let back = roundtrip(&text).map_err(|e| TestCaseError::fail(format!("{name}: {e}\n  value: {text}")))?;
                let back: Value = serde_json::from_str(&back).unwrap();
                prop_assert_eq!(without_null_members(&back), without_null_members(&value),
                    "{} changed in a round trip\n  in:  {}\n  out: {}", name, text, back);
            }
        }
    }

    /// `v` with every object member whose value is `null` removed (absent and `null` are
    /// the same `None`).
    fn without_null_members(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(_, x)| !x.is_null())
                    .map(|(k, x)| (k.clone(), without_null_members(x)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(without_null_members).collect()),
            other => other.clone(),
        }
    }

    #[test]
    fn the_table_covers_every_non_alias_definition() {
        assert_eq!(ROUNDTRIP.len(), 922);
    }
}
