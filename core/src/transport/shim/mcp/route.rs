//! What `codex mcp-server` sends, routed in the order it arrives (by the link's reader):
//! answers complete their request; `codex/event` notifications go to the turn whose
//! `tools/call` they belong to (by request id, else by Codex thread id), so every event sent
//! before a call's answer reaches the turn before the answer does; `elicitation/create`
//! requests go to the approval mapping; `ping` is answered; other server requests are refused
//! (fail closed); every other notification goes on to the engine (`notifications/<x>` as
//! `mcp/<x>`, log records also through `tracing`).

use serde_json::{json, Value};
use std::sync::Arc;

use super::approvals;
use super::link::Link;
use crate::error::Error;
use crate::protocol::mcp;
use crate::transport::shim::{response_outcome, ShimConn};

impl Link {
    /// One message of the server.
    pub(super) fn incoming(self: &Arc<Self>, conn: &Arc<ShimConn>, mut msg: Value) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = msg.get_mut("params").map(Value::take);
        match (msg.get("id").cloned(), method) {
            (Some(id), None) => {
                if let Some(n) = id.as_i64() {
                    self.complete(n, response_outcome(&msg).map_err(Error::Rpc));
                }
            }
            (Some(id), Some(method)) => self.server_request(conn, id, &method, params),
            (None, Some(method)) if method == "codex/event" => {
                self.codex_event(conn, params.unwrap_or(Value::Null))
            }
            (None, Some(method)) => {
                let params = params.unwrap_or(Value::Null);
                if method == "notifications/message" {
                    if let Ok(raw) = serde_json::value::to_raw_value(&params) {
                        mcp::log_server_message(&raw);
                    }
                }
                let (method, params) = forward(&method, params, |token| {
                    let calls = self.calls().lock().unwrap();
                    let mut turns = calls.values().map(|c| &c.turn);
                    turns.find(|(_, turn)| turn == token).cloned()
                });
                conn.notify(&method, params);
            }
            (None, None) => {
                tracing::debug!("codex mcp-server: a message with neither id nor method")
            }
        }
    }

    /// A request of the server: `ping` is answered, `elicitation/create` goes to the approval
    /// mapping, anything else is refused (fail closed).
    fn server_request(
        self: &Arc<Self>,
        conn: &Arc<ShimConn>,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) {
        match method {
            "ping" => self.send(json!({"id": id, "result": {}})),
            mcp::ELICITATION_REQUEST => self.elicitation(conn, id, params.unwrap_or(Value::Null)),
            other => match crate::event::fail_closed_answer(other) {
                Ok(result) => self.send(json!({"id": id, "result": result})),
                Err(e) => {
                    self.send(json!({"id": id, "error": {"code": e.code, "message": e.message}}))
                }
            },
        }
    }

    /// A `codex/event`: to the call it names (by request id, else by Codex thread), else on
    /// to the engine raw.
    fn codex_event(&self, conn: &Arc<ShimConn>, params: Value) {
        let msg = &params["msg"];
        let ty = match msg["type"].as_str() {
            Some(t) if !t.is_empty() => t.to_owned(),
            _ => "unknown".to_owned(),
        };
        if ty == "exec_approval_request" || ty == "apply_patch_approval_request" {
            if let Some(cid) = msg["call_id"].as_str() {
                self.approval_events()
                    .lock()
                    .unwrap()
                    .insert(cid.to_owned(), msg.clone());
            }
        }
        let call = {
            let calls = self.calls().lock().unwrap();
            let req = params["_meta"]["requestId"].as_i64();
            let call = req.and_then(|r| calls.get(&r)).or_else(|| {
                let real = params["_meta"]["threadId"].as_str()?;
                let r = *self.by_thread().lock().unwrap().get(real)?;
                calls.get(&r)
            });
            call.map(|c| c.events.clone())
        };
        let params = match call {
            Some(tx) => match tx.send(params) {
                Ok(()) => return,
                Err(unsent) => unsent.0,
            },
            None => params,
        };
        // An event of no running call: passed on raw, never dropped.
        conn.notify(&format!("codex/event/{ty}"), params);
    }

    /// An `elicitation/create` (exec or patch approval), answered on a task of its own.
    fn elicitation(self: &Arc<Self>, conn: &Arc<ShimConn>, id: Value, params: Value) {
        let call = &params["codex_mcp_tool_call_id"];
        let call: Option<i64> = call
            .as_str()
            .and_then(|s| s.parse().ok())
            .or_else(|| call.as_i64());
        let turn = call.and_then(|c| Some(self.calls().lock().unwrap().get(&c)?.turn.clone()));
        let event = params["codex_call_id"]
            .as_str()
            .and_then(|id| self.approval_events().lock().unwrap().remove(id))
            .unwrap_or(Value::Null);
        let (link, conn) = (self.clone(), conn.clone());
        crate::rt::spawn(async move {
            let result = approvals::answer(conn, params, turn, event).await;
            link.send(json!({"id": id, "result": result}));
        });
    }
}

/// The engine's notification for an MCP notification other than `codex/event`:
/// `notifications/<x>` becomes `mcp/<x>` (any other method keeps its name), with the MCP
/// params; progress whose token is a running turn's (`turn_of` finds its local thread and
/// turn ids) gets that turn's `threadId` and `turnId`.
fn forward(
    method: &str,
    mut params: Value,
    turn_of: impl Fn(&str) -> Option<(String, String)>,
) -> (String, Value) {
    let method = match method.strip_prefix("notifications/") {
        Some(rest) => format!("mcp/{rest}"),
        None => method.to_owned(),
    };
    if method == "mcp/progress" {
        let turn = params["progressToken"].as_str().and_then(&turn_of);
        if let (Some((thread, turn)), Some(o)) = (turn, params.as_object_mut()) {
            o.insert("threadId".into(), json!(thread));
            o.insert("turnId".into(), json!(turn));
        }
    }
    (method, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_turn(_: &str) -> Option<(String, String)> {
        None
    }

    #[test]
    fn server_notifications_are_forwarded_under_mcp() {
        let log = json!({"level": "warning", "logger": "codex", "data": "disk almost full"});
        assert_eq!(
            forward("notifications/message", log.clone(), no_turn),
            ("mcp/message".to_owned(), log)
        );
        let changed = forward("notifications/tools/list_changed", Value::Null, no_turn);
        assert_eq!(changed.0, "mcp/tools/list_changed");
        assert_eq!(forward("x/custom", json!({"a": 1}), no_turn).0, "x/custom");
    }

    #[test]
    fn progress_of_a_running_turn_is_scoped_to_it() {
        let turn_of = |t: &str| {
            (t == "mcp-turn-3").then(|| ("mcp-thread-1".to_owned(), "mcp-turn-3".to_owned()))
        };
        let p = json!({"progressToken": "mcp-turn-3", "progress": 1, "total": 4});
        let (m, v) = forward("notifications/progress", p, turn_of);
        assert_eq!(m, "mcp/progress");
        assert_eq!(v["threadId"], "mcp-thread-1");
        assert_eq!(v["turnId"], "mcp-turn-3");
        assert_eq!(v["progress"], 1);
        let other = json!({"progressToken": 7, "progress": 1});
        let (_, v) = forward("notifications/progress", other.clone(), turn_of);
        assert_eq!(v, other, "progress of no turn is passed on unchanged");
    }
}
