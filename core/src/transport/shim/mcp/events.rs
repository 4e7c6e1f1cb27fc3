//! The app-server view of one turn: the notifications its `codex/event`s (Codex 0.92.0's
//! event stream) and its `tools/call` result become.

use serde_json::{json, Value};
use std::sync::Arc;

use crate::transport::shim::{now_ms, ShimConn};

/// How an event ends the turn.
pub(super) enum Ending {
    /// `turn_aborted`.
    Aborted,
    /// `task_complete` with its `last_agent_message`.
    Complete(Option<String>),
}

/// The Codex thread ids an event names: `_meta.threadId`, and the `session_id` of
/// `session_configured`.
pub(super) fn codex_thread_ids(params: &Value) -> impl Iterator<Item = &str> {
    let configured = (params["msg"]["type"] == "session_configured")
        .then(|| params["msg"]["session_id"].as_str())
        .flatten();
    [params["_meta"]["threadId"].as_str(), configured]
        .into_iter()
        .flatten()
}

/// The notifications of one turn, scoped to its local thread and turn ids.
pub(super) struct TurnEvents {
    pub(super) conn: Arc<ShimConn>,
    pub(super) thread_id: String,
    pub(super) turn_id: String,
    /// An `agentMessage` item was completed.
    agent_message_seen: bool,
    /// The turn's error, once one is known.
    pub(super) error: Option<Value>,
}

impl TurnEvents {
    pub(super) fn new(conn: Arc<ShimConn>, thread_id: String, turn_id: String) -> TurnEvents {
        TurnEvents {
            conn,
            thread_id,
            turn_id,
            agent_message_seen: false,
            error: None,
        }
    }

    pub(super) fn ids(&self) -> (Value, Value) {
        (json!(self.thread_id), json!(self.turn_id))
    }

    /// Fold the final `tools/call` result in (whatever its advertised schema says). Returns
    /// the turn status.
    pub(super) fn absorb_result(&mut self, v: &Value) -> &'static str {
        let text: String = v["content"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|c| c["type"] == "text")
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .or_else(|| {
                v["structuredContent"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        if v["isError"].as_bool() == Some(true) {
            if self.error.is_none() {
                self.error = Some(json!({"message": text}));
            }
            return "failed";
        }
        if self.error.is_some() {
            return "failed";
        }
        if !self.agent_message_seen && !text.is_empty() {
            // No agentMessage item was streamed: the result text is the final message.
            let (tid, turn) = self.ids();
            let item = json!({"type": "agentMessage", "id": format!("{}-result", self.turn_id), "text": text});
            self.conn.notify(
                "item/started",
                json!({"threadId": tid, "turnId": turn, "item": {"type": "agentMessage", "id": item["id"], "text": ""}, "startedAtMs": now_ms()}),
            );
            self.conn.notify(
                "item/completed",
                json!({"threadId": tid, "turnId": turn, "item": item, "completedAtMs": now_ms()}),
            );
        }
        "completed"
    }

    /// Translate one `codex/event`; `Some` when it ends the turn.
    pub(super) fn translate(&mut self, params: Value) -> Option<Ending> {
        let msg = &params["msg"];
        let ty = msg["type"].as_str().unwrap_or("unknown").to_owned();
        let (tid, turn) = self.ids();
        let note = |m: &str, p: Value| self.conn.notify(m, p);
        // `item/started` or `item/completed`.
        let item_note = |started: bool, item: Value| {
            let (m, ts) = if started {
                ("item/started", "startedAtMs")
            } else {
                ("item/completed", "completedAtMs")
            };
            note(
                m,
                json!({"threadId": tid, "turnId": turn, "item": item, ts: now_ms()}),
            );
        };
        match ty.as_str() {
            "item_started" | "item_completed" => match convert_item(&msg["item"]) {
                Some(item) => {
                    let started = ty == "item_started";
                    if !started && item["type"] == "agentMessage" {
                        self.agent_message_seen = true;
                    }
                    item_note(started, item);
                }
                None => self.raw(&ty, params),
            },
            "agent_message_content_delta" => note(
                "item/agentMessage/delta",
                json!({"threadId": tid, "turnId": turn, "itemId": msg["item_id"], "delta": msg["delta"]}),
            ),
            "token_count" if !msg["info"].is_null() => {
                let info = &msg["info"];
                note(
                    "thread/tokenUsage/updated",
                    json!({"threadId": tid, "turnId": turn, "tokenUsage": {
                        "total": usage(&info["total_token_usage"]),
                        "last": usage(&info["last_token_usage"]),
                        "modelContextWindow": info["model_context_window"],
                    }}),
                );
            }
            "exec_command_begin" | "exec_command_end" => {
                let end = ty == "exec_command_end";
                let command = argv_string(&msg["command"]);
                let exit = msg["exit_code"].as_i64();
                let status = if !end {
                    "inProgress"
                } else if exit == Some(0) {
                    "completed"
                } else {
                    "failed"
                };
                let dur = msg["duration"]["secs"]
                    .as_i64()
                    .map(|s| s * 1000 + msg["duration"]["nanos"].as_i64().unwrap_or(0) / 1_000_000);
                let item = json!({
                    "type": "commandExecution", "id": msg["call_id"], "command": command,
                    "cwd": msg["cwd"], "processId": msg["process_id"], "status": status,
                    "commandActions": [], "aggregatedOutput": if end { msg["aggregated_output"].clone() } else { Value::Null },
                    "exitCode": exit, "durationMs": dur,
                });
                item_note(!end, item);
            }
            "error" | "stream_error" => {
                let retry = ty == "stream_error";
                let error = json!({"message": msg["message"], "codexErrorInfo": msg.get("codex_error_info")});
                if !retry {
                    self.error = Some(error.clone());
                }
                note(
                    "error",
                    json!({"threadId": tid, "turnId": turn, "willRetry": retry, "error": error}),
                );
                self.raw(&ty, params);
            }
            "turn_aborted" => {
                self.raw(&ty, params);
                return Some(Ending::Aborted);
            }
            "task_complete" => {
                let last = msg["last_agent_message"].as_str().map(str::to_owned);
                self.raw(&ty, params);
                return Some(Ending::Complete(last));
            }
            _ => self.raw(&ty, params),
        }
        None
    }

    /// Pass an event on unchanged as `codex/event/<type>`, scoped to this turn.
    fn raw(&self, ty: &str, mut params: Value) {
        if let Some(o) = params.as_object_mut() {
            o.insert("threadId".into(), json!(self.thread_id));
            o.insert("turnId".into(), json!(self.turn_id));
        }
        self.conn.notify(&format!("codex/event/{ty}"), params);
    }
}

fn usage(u: &Value) -> Value {
    let n = |k: &str| u[k].as_i64().unwrap_or(0);
    json!({
        "inputTokens": n("input_tokens"),
        "cachedInputTokens": n("cached_input_tokens"),
        "outputTokens": n("output_tokens"),
        "reasoningOutputTokens": n("reasoning_output_tokens"),
        "totalTokens": n("total_tokens"),
    })
}

/// A 0.92.0 `TurnItem` (`UserMessage`, `AgentMessage`) as an app-server `ThreadItem`.
fn convert_item(item: &Value) -> Option<Value> {
    let id = item["id"].clone();
    match item["type"].as_str()? {
        "UserMessage" => {
            let content: Vec<Value> = item["content"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|c| c["type"] == "text")
                        .map(|c| json!({"type": "text", "text": c["text"], "text_elements": []}))
                        .collect()
                })
                .unwrap_or_default();
            Some(json!({"type": "userMessage", "id": id, "content": content}))
        }
        "AgentMessage" => {
            let text: String = item["content"]
                .as_array()
                .map(|a| a.iter().filter_map(|c| c["text"].as_str()).collect())
                .unwrap_or_default();
            Some(json!({"type": "agentMessage", "id": id, "text": text}))
        }
        _ => None,
    }
}

/// A JSON argv array as one shell-quoted command line (empty when it is not an array).
pub(super) fn argv_string(argv: &Value) -> String {
    argv.as_array()
        .map(|a| {
            shell_join(
                &a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
            )
        })
        .unwrap_or_default()
}

fn shell_join(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_join_quotes() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shell_join(&v(&["/bin/bash", "-c", "echo hi"])),
            "/bin/bash -c 'echo hi'"
        );
        assert_eq!(shell_join(&v(&["it's"])), "'it'\\''s'");
    }

    #[test]
    fn thread_ids_of_events() {
        let p = json!({"_meta": {"threadId": "a"}, "msg": {"type": "session_configured", "session_id": "b"}});
        assert_eq!(codex_thread_ids(&p).collect::<Vec<_>>(), ["a", "b"]);
        let p = json!({"msg": {"type": "task_complete", "session_id": "b"}});
        assert_eq!(codex_thread_ids(&p).count(), 0);
    }
}
