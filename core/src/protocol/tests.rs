//! Unit tests of the generated protocol: coverage, forward compatibility, wire encodings and
//! the generated-code drift check.

use super::*;
use serde_json::json;

#[test]
fn coverage_matches_the_window() {
    assert_eq!(SCHEMA_CODEX_VERSION, "0.171.0");
    assert_eq!(
        CODEX_WINDOW,
        &["0.163.0", "0.164.0", "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0", "0.171.0"]
    );
    assert_eq!(CODEX_WINDOW.last(), Some(&SCHEMA_CODEX_VERSION));
    // The union of the window: a method is stable when any version's stable schema has it.
    let stable = CLIENT_METHODS.iter().filter(|(_, exp)| !exp).count();
    let experimental = CLIENT_METHODS.iter().filter(|(_, exp)| *exp).count();
    assert_eq!(stable, 110, "stable client methods");
    assert_eq!(experimental, 79, "experimental-only client methods");
    assert_eq!(SERVER_NOTIFICATION_METHODS.len(), 87);
    let stable_requests = SERVER_REQUEST_METHODS.iter().filter(|(_, e)| !e).count();
    assert_eq!(stable_requests, 10);
    assert_eq!(CLIENT_NOTIFICATION_METHODS, &["initialized"]);
    // The table is sorted (lookups binary-search it).
    assert!(CLIENT_METHODS.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(client_method_is_experimental("thread/start"), Some(false));
    assert_eq!(client_method_is_experimental("no/such/method"), None);
}

#[test]
fn version_tables_name_the_versions_that_have_each_method() {
    assert_eq!(client_method_versions("thread/start"), Some(CODEX_WINDOW));
    assert_eq!(
        client_method_versions("thread/search/stream"),
        Some(&["0.171.0"][..])
    );
    assert_eq!(
        client_method_versions("modelProvider/default/set"),
        Some(&["0.171.0"][..])
    );
    assert_eq!(client_method_versions("no/such/method"), None);
    assert_eq!(
        notification_versions("thread/search/partial"),
        Some(&["0.171.0"][..])
    );
    assert_eq!(notification_versions("turn/started"), Some(CODEX_WINDOW));
    // Removed in 0.171.0, still typed for the versions that send it.
    assert_eq!(
        server_request_versions("currentTime/read"),
        Some(&["0.163.0", "0.164.0", "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0"][..])
    );
    assert_eq!(server_request_versions("no/such/request"), None);
    // Every method of every table is in a version of the window, listed in ascending order.
    for (method, _) in CLIENT_METHODS {
        let versions = client_method_versions(method).expect(method);
        assert!(!versions.is_empty() && versions.iter().all(|v| CODEX_WINDOW.contains(v)));
        let pos: Vec<usize> = versions
            .iter()
            .map(|v| CODEX_WINDOW.iter().position(|w| w == v).unwrap())
            .collect();
        assert!(
            pos.windows(2).all(|w| w[0] < w[1]),
            "{method}: {versions:?}"
        );
    }
    for method in SERVER_NOTIFICATION_METHODS {
        assert!(notification_versions(method).is_some(), "{method}");
    }
    for (method, _) in SERVER_REQUEST_METHODS {
        assert!(server_request_versions(method).is_some(), "{method}");
    }
    // A method without a named response type in the schema (the override table).
    let result = json!({"status": "ok", "version": "v1", "filePath": "/tmp/config.toml", "overriddenMetadata": null});
    let typed = ClientResponse::from_value("modelProvider/default/set", result.clone());
    assert!(
        matches!(typed, ClientResponse::ModelProviderDefaultSet(_)),
        "{typed:?}"
    );
    assert_eq!(typed.result_value(), result);
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

/// `v` without object members that are `null` (an absent optional field of a server-sent type
/// is written back as `null`: the wire rule of the module docs).
fn without_nulls(v: &serde_json::Value) -> serde_json::Value {
    roundtrip_props::without_null_members(v)
}

/// `value` serialised, without its `null` members.
fn reserialised<T: serde::Serialize>(value: &T) -> serde_json::Value {
    without_nulls(&serde_json::to_value(value).unwrap())
}

/// Decodes `raw` as a `T` under the drift watch: the value and what fell back.
fn decode_watched<T: serde::de::DeserializeOwned>(
    raw: &serde_json::Value,
) -> (T, Vec<drift::Fallback>) {
    let (v, fallbacks) = drift::watch(|| T::deserialize(raw));
    (v.expect("decodes"), fallbacks)
}

#[test]
fn moderated_agent_message_of_0_171_0_is_an_agent_message() {
    // 0.171.0: `AgentMessageDisplay` is a union tagged by `mode` (show / hide / block).
    let displays = [
        json!({"mode": "show", "version": 1, "trustedContacts": "check",
               "annotation": {"kind": "wellbeingHelpline", "subject": "answer"}}),
        json!({"mode": "hide", "version": 1, "replacement": {"kind": "wellbeingPromptHelpline"}}),
        json!({"mode": "block", "version": 1, "reason": {"kind": "cyber", "trustedAccess": true}}),
        json!({"mode": "block", "version": 1, "reason": {"kind": "protection", "protectionType": "bio"}}),
    ];
    for display in displays {
        let raw = json!({
            "type": "agentMessage", "id": "msg_1", "text": "I can't help with that.",
            "phase": "final_answer", "startedAtMs": 1, "completedAtMs": 2,
            "moderation": {"moderated": true, "display": display.clone()},
        });
        let (item, fallbacks): (ThreadItem, _) = decode_watched(&raw);
        assert!(fallbacks.is_empty(), "{fallbacks:?}");
        let ThreadItem::AgentMessage(message) = &item else {
            panic!("not an agent message: {item:?}")
        };
        let display = message
            .moderation
            .as_ref()
            .unwrap()
            .display
            .as_ref()
            .unwrap();
        let AgentMessageDisplay::Mode(mode) = display else {
            panic!("not the 0.171 shape: {display:?}")
        };
        match (mode, raw["moderation"]["display"]["mode"].as_str().unwrap()) {
            (ModeAgentMessageDisplay::Show(show), "show") => {
                assert_eq!(show.version, ShowModeAgentMessageDisplayVersion::V1);
                assert_eq!(show.trusted_contacts, TrustedContacts::Check);
            }
            (ModeAgentMessageDisplay::Hide(_), "hide")
            | (ModeAgentMessageDisplay::Block(_), "block") => {}
            other => panic!("wrong variant: {other:?}"),
        }
        assert_eq!(reserialised(&item), without_nulls(&raw));
    }
}

#[test]
fn moderated_agent_message_of_0_169_0_decodes_too() {
    // 0.169.0: `AgentMessageDisplay` is an object with a required `action`.
    let raw = json!({
        "type": "agentMessage", "id": "msg_1", "text": "...",
        "moderation": {"moderated": true, "display": {"action": "hide", "blockType": null,
                       "checkTrustedContacts": true, "cyberTrustedAccess": null}},
    });
    let (item, fallbacks): (ThreadItem, _) = decode_watched(&raw);
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    let ThreadItem::AgentMessage(message) = &item else {
        panic!("not an agent message: {item:?}")
    };
    let display = message
        .moderation
        .as_ref()
        .unwrap()
        .display
        .as_ref()
        .unwrap();
    let AgentMessageDisplay::Action(old) = display else {
        panic!("not the 0.169 shape: {display:?}")
    };
    assert_eq!(old.action, "hide");
    assert_eq!(old.check_trusted_contacts, Some(true));
    // An unknown future display shape is kept raw at the display, not the item.
    let raw = json!({"type": "agentMessage", "id": "m", "text": "t",
                     "moderation": {"moderated": true, "display": {"mode": "blur", "version": 2}}});
    let (item, fallbacks): (ThreadItem, _) = decode_watched(&raw);
    let ThreadItem::AgentMessage(message) = &item else {
        panic!("the whole item was lost: {item:?}")
    };
    assert!(matches!(
        message.moderation.as_ref().unwrap().display,
        Some(AgentMessageDisplay::Unknown(_))
    ));
    assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
    assert_eq!(fallbacks[0].type_name, "AgentMessageDisplay");
    assert_eq!(reserialised(&item), without_nulls(&raw));
}

#[test]
fn project_list_of_0_171_0_decodes() {
    // 0.171.0 removed `Project.position`; 0.169.0 still sends it.
    let project_171 = json!({"id": "p1", "name": "Site", "createdAt": 1, "updatedAt": 2,
                             "recencyAt": null, "metadata": {"team": "web"},
                             "roots": [{"path": "/work/site"}]});
    let mut project_169 = project_171.clone();
    project_169["position"] = json!(3);
    for (project, position) in [(project_171, None), (project_169, Some(3))] {
        let result = json!({"data": [project], "nextCursor": null});
        let (typed, fallbacks) =
            drift::watch(|| ClientResponse::from_value("project/list", result.clone()));
        assert!(fallbacks.is_empty(), "{fallbacks:?}");
        let ClientResponse::ProjectList(list) = &typed else {
            panic!("not typed: {typed:?}")
        };
        assert_eq!(list.data[0].name, "Site");
        assert_eq!(list.data[0].position, position);
        assert_eq!(without_nulls(&typed.result_value()), without_nulls(&result));
    }
}

#[test]
fn elicitation_form_fields_decode_to_their_own_variants() {
    let params = json!({
        "serverName": "s", "threadId": "t", "mode": "form", "message": "m",
        "requestedSchema": {"type": "object", "required": ["ok"], "properties": {
            "ok": {"type": "boolean"},
            "name": {"type": "string", "minLength": 1, "format": "email"},
            "age": {"type": "number", "minimum": 0.0},
            "color": {"type": "string", "enum": ["red", "green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["X", "Y"]},
        }},
    });
    let (request, fallbacks) = drift::watch(|| {
        ServerRequestKind::from_value("mcpServer/elicitation/request", params.clone())
    });
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    let ServerRequestKind::McpServerElicitationRequest(McpServerElicitationRequestParams::Form(
        form,
    )) = &request
    else {
        panic!("not a form elicitation: {request:?}")
    };
    use McpElicitationEnumSchema as E;
    use McpElicitationPrimitiveSchema as P;
    let fields = &form.requested_schema.properties;
    assert!(
        matches!(fields["ok"], P::McpElicitationBooleanSchema(_)),
        "{:?}",
        fields["ok"]
    );
    assert!(
        matches!(fields["name"], P::McpElicitationStringSchema(_)),
        "{:?}",
        fields["name"]
    );
    assert!(
        matches!(fields["age"], P::McpElicitationNumberSchema(_)),
        "{:?}",
        fields["age"]
    );
    assert!(
        matches!(
            &fields["color"],
            P::McpElicitationEnumSchema(E::McpElicitationSingleSelectEnumSchema(
                McpElicitationSingleSelectEnumSchema::McpElicitationUntitledSingleSelectEnumSchema(
                    _
                )
            ))
        ),
        "{:?}",
        fields["color"]
    );
    assert!(
        matches!(
            &fields["size"],
            P::McpElicitationEnumSchema(E::McpElicitationSingleSelectEnumSchema(
                McpElicitationSingleSelectEnumSchema::McpElicitationTitledSingleSelectEnumSchema(_)
            ))
        ),
        "{:?}",
        fields["size"]
    );
    assert!(
        matches!(
            &fields["tags"],
            P::McpElicitationEnumSchema(E::McpElicitationMultiSelectEnumSchema(_))
        ),
        "{:?}",
        fields["tags"]
    );
    assert!(
        matches!(
            &fields["legacy"],
            P::McpElicitationEnumSchema(E::McpElicitationLegacyTitledEnumSchema(_))
        ),
        "{:?}",
        fields["legacy"]
    );
    assert_eq!(
        without_nulls(&request.params_value()),
        without_nulls(&params)
    );
    // A field schema no version knows is Unknown at that field only.
    let mut odd = params.clone();
    odd["requestedSchema"]["properties"]["when"] = json!({"type": "date"});
    let (request, fallbacks) = drift::watch(|| {
        ServerRequestKind::from_value("mcpServer/elicitation/request", odd.clone())
    });
    let ServerRequestKind::McpServerElicitationRequest(McpServerElicitationRequestParams::Form(
        form,
    )) = &request
    else {
        panic!("the request was lost: {request:?}")
    };
    assert!(matches!(
        form.requested_schema.properties["when"],
        P::Unknown(_)
    ));
    assert!(matches!(
        form.requested_schema.properties["ok"],
        P::McpElicitationBooleanSchema(_)
    ));
    assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
    assert_eq!(fallbacks[0].type_name, "McpElicitationPrimitiveSchema");
    assert_eq!(without_nulls(&request.params_value()), without_nulls(&odd));
}

#[test]
fn fields_of_inline_alternatives_are_typed_not_extra() {
    // 0.171.0: an image generation item carries either `result` or `fileId`.
    for raw in [
        json!({"type": "imageGeneration", "id": "i", "status": "completed", "fileId": "file_1"}),
        json!({"type": "imageGeneration", "id": "i", "status": "completed", "result": "aGVsbG8="}),
    ] {
        let (item, fallbacks): (ThreadItem, _) = decode_watched(&raw);
        assert!(fallbacks.is_empty(), "{fallbacks:?}");
        let ThreadItem::ImageGeneration(image) = &item else {
            panic!("{item:?}")
        };
        assert!(image.extra.is_empty());
        assert!(image.file_id.is_some() || image.result.is_some());
        assert_eq!(reserialised(&item), without_nulls(&raw));
    }
    let (input, fallbacks): (UserInput, _) =
        decode_watched(&json!({"type": "image", "fileId": "file_2"}));
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    let UserInput::Image(image) = input else {
        panic!("{input:?}")
    };
    assert_eq!(image.file_id.as_deref(), Some("file_2"));
}

#[test]
fn unknown_fields_are_reported_and_round_trip() {
    let raw = json!({"type": "agentMessage", "id": "m", "text": "t", "newField": {"x": [1, 2]}});
    let (item, fallbacks): (ThreadItem, _) = decode_watched(&raw);
    let ThreadItem::AgentMessage(message) = &item else {
        panic!("{item:?}")
    };
    assert_eq!(message.extra.get("newField"), Some(&json!({"x": [1, 2]})));
    // the tag is the union's, not an extra field of the payload
    assert!(!message.extra.contains_key("type"));
    assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
    assert_eq!(fallbacks[0].type_name, "AgentMessageThreadItem");
    assert!(
        matches!(&fallbacks[0].kind, drift::FallbackKind::ExtraFields { keys } if keys == &["newField"])
    );
    assert_eq!(reserialised(&item), without_nulls(&raw));
}

#[test]
fn generated_code_is_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The option table for python/codexclient/_option_keywords.py (scripts/gen-options.sh),
    // from this build of the core rather than a nested cargo build of the CLI.
    let table = std::env::temp_dir().join(format!("codex-options-{}.json", std::process::id()));
    std::fs::write(&table, crate::options::keys_json()).expect("write the option table");
    let out = std::process::Command::new("bash")
        .arg(root.join("scripts/check-generated.sh"))
        .env("OPTIONS_JSON", &table)
        .output()
        .expect("run scripts/check-generated.sh (needs bash, python3 and rustfmt)");
    let _ = std::fs::remove_file(&table);
    assert!(
        out.status.success(),
        "generated code (generated.rs, protocol.py, _requests.py, _keywords.py, _option_keywords.py) differs from a fresh generation: {}{}",
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

    /// The definitions of one version of the window (its experimental bundle).
    fn defs(version: &str) -> HashMap<String, Value> {
        let path = format!(
            "{}/../schema/codex-{version}/experimental/codex_app_server_protocol.schemas.json",
            env!("CARGO_MANIFEST_DIR")
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
            // one version of the window per case, each definition that version has
            let version = super::CODEX_WINDOW[(seed % super::CODEX_WINDOW.len() as u64) as usize];
            let defs = defs(version);
            let mut g = Gen { defs: &defs, rng: fastrand::Rng::with_seed(seed), extra: 0 };
            for (name, roundtrip) in ROUNDTRIP {
                let Some(schema) = defs.get(*name) else { continue };
                let value = g.value(schema, 0);
                let text = value.to_string();
                let back = roundtrip(&text).map_err(|e| TestCaseError::fail(format!("{version} {name}: {e}\n  value: {text}")))?;
                let back: Value = serde_json::from_str(&back).unwrap();
                prop_assert_eq!(without_null_members(&back), without_null_members(&value),
                    "{} {} changed in a round trip\n  in:  {}\n  out: {}", version, name, text, back);
            }
        }
    }

    /// `v` with every object member whose value is `null` removed (absent and `null` are
    /// the same `None`).
    pub(super) fn without_null_members(v: &Value) -> Value {
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
        assert_eq!(ROUNDTRIP.len(), 941);
    }
}

/// Found by the window property test: a newer server adds unknown members to the options of a
/// titled single-select. The alternative that understands `oneOf` (leaving two small unknown
/// members deeper down) must win over the plain string schema that would keep the whole
/// `oneOf` in its `extra` map.
#[test]
fn unknown_members_inside_options_do_not_push_the_options_into_extra() {
    let field = json!({"type": "string", "oneOf": [
        {"const": "a", "title": "A", "zz_unknown_1": 0},
        {"const": "b", "title": "B", "zz_unknown_2": "x"},
    ]});
    let (decoded, fallbacks) = drift::watch(|| {
        serde_json::from_value::<McpElicitationPrimitiveSchema>(field.clone()).unwrap()
    });
    assert!(
        matches!(
            decoded,
            McpElicitationPrimitiveSchema::McpElicitationEnumSchema(
                McpElicitationEnumSchema::McpElicitationSingleSelectEnumSchema(
                    McpElicitationSingleSelectEnumSchema::McpElicitationTitledSingleSelectEnumSchema(_)
                )
            )
        ),
        "{decoded:?}"
    );
    let kept: Vec<String> = fallbacks
        .iter()
        .flat_map(|f| match &f.kind {
            drift::FallbackKind::ExtraFields { keys } => keys.clone(),
            other => panic!("unexpected fallback {other:?}"),
        })
        .collect();
    assert_eq!(kept, ["zz_unknown_1", "zz_unknown_2"]);
    assert_eq!(reserialised(&decoded), field);
}
