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
        "generated.rs differs from a fresh generation: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
