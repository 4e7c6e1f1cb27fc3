//! Codex 0.92.0's approvals: an `elicitation/create` (exec or patch approval) becomes the
//! app-server approval request, and the client's decision goes back as a 0.92.0 review
//! decision. Anything but an explicit accept denies.

use serde_json::{json, Value};
use std::sync::Arc;

use super::events::argv_string;
use crate::error::RpcError;
use crate::transport::shim::{now_ms, ShimConn};

/// Ask the client about an elicitation (its `params`, the local `(thread, turn)` of the call
/// it belongs to, the approval `event` Codex sent before it): the elicitation's result.
pub(super) async fn answer(
    conn: Arc<ShimConn>,
    params: Value,
    turn: Option<(String, String)>,
    event: Value,
) -> Value {
    let (thread_id, turn_id) = turn.unwrap_or_else(|| {
        (
            params["threadId"].as_str().unwrap_or("").to_owned(),
            String::new(),
        )
    });
    let decision = match approval_request(params, &thread_id, &turn_id, &event) {
        Some((method, p)) => map_decision(conn.request(method, p).await),
        // An elicitation this shim does not know: declined (fail closed).
        None => "denied",
    };
    let action = if decision == "approved" || decision == "approved_for_session" {
        "accept"
    } else {
        "decline"
    };
    json!({"action": action, "decision": decision})
}

/// The app-server approval request for an elicitation: method and params.
fn approval_request(
    params: Value,
    thread_id: &str,
    turn_id: &str,
    event: &Value,
) -> Option<(&'static str, Value)> {
    let item_id = params["codex_call_id"].as_str().unwrap_or("").to_owned();
    match params["codex_elicitation"].as_str()? {
        "exec-approval" => Some((
            "item/commandExecution/requestApproval",
            json!({
                "threadId": thread_id,
                "turnId": turn_id,
                "itemId": item_id,
                "command": argv_string(&params["codex_command"]),
                "cwd": params["codex_cwd"],
                "reason": event.get("reason").cloned().unwrap_or(Value::Null),
                "proposedExecpolicyAmendment": event.get("proposed_execpolicy_amendment").cloned().unwrap_or(Value::Null),
                "startedAtMs": now_ms(),
                "mcpElicitation": params,
            }),
        )),
        "patch-approval" => Some((
            "item/fileChange/requestApproval",
            json!({
                "threadId": thread_id,
                "turnId": turn_id,
                "itemId": item_id,
                "reason": params.get("codex_reason").cloned().or_else(|| event.get("reason").cloned()).unwrap_or(Value::Null),
                "grantRoot": params.get("codex_grant_root").cloned().unwrap_or(Value::Null),
                "startedAtMs": now_ms(),
                "mcpElicitation": params,
            }),
        )),
        _ => None,
    }
}

/// The 0.92.0 review decision for the client's approval answer.
fn map_decision(answer: Result<Value, RpcError>) -> &'static str {
    let Ok(v) = answer else { return "denied" };
    match &v["decision"] {
        Value::String(s) => match s.as_str() {
            "accept" => "approved",
            "acceptForSession" => "approved_for_session",
            "cancel" => "abort",
            _ => "denied",
        },
        // `acceptWithExecpolicyAmendment`: approved once; the amendment is not forwarded.
        Value::Object(o) if o.contains_key("acceptWithExecpolicyAmendment") => "approved",
        _ => "denied",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_fail_closed() {
        assert_eq!(map_decision(Ok(json!({"decision": "accept"}))), "approved");
        assert_eq!(
            map_decision(Ok(json!({"decision": "acceptForSession"}))),
            "approved_for_session"
        );
        assert_eq!(map_decision(Ok(json!({"decision": "decline"}))), "denied");
        assert_eq!(map_decision(Ok(json!({"decision": "cancel"}))), "abort");
        assert_eq!(map_decision(Ok(json!({"decision": "yes"}))), "denied");
        assert_eq!(map_decision(Ok(json!({}))), "denied");
        assert_eq!(map_decision(Ok(Value::Null)), "denied");
        let boom = RpcError {
            code: -1,
            message: "boom".into(),
            data: None,
        };
        assert_eq!(map_decision(Err(boom)), "denied");
    }

    #[test]
    fn exec_and_patch_elicitations_become_approval_requests() {
        let exec = json!({"codex_elicitation": "exec-approval", "codex_call_id": "c1",
            "codex_command": ["touch", "a b"], "codex_cwd": "/w"});
        let event = json!({"reason": "needs write"});
        let (m, p) = approval_request(exec, "t", "u", &event).unwrap();
        assert_eq!(m, "item/commandExecution/requestApproval");
        assert_eq!(p["command"], "touch 'a b'");
        assert_eq!(p["itemId"], "c1");
        assert_eq!(p["reason"], "needs write");
        let patch = json!({"codex_elicitation": "patch-approval", "codex_reason": "why"});
        let (m, p) = approval_request(patch, "t", "u", &Value::Null).unwrap();
        assert_eq!(m, "item/fileChange/requestApproval");
        assert_eq!(p["reason"], "why");
        assert!(approval_request(json!({"message": "?"}), "t", "u", &Value::Null).is_none());
    }
}
