//! One running turn's context and the translation of exec's JSONL events into app-server
//! notifications (`item/*`, `turn/plan/updated`, `thread/tokenUsage/updated`, `error`, …).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

use super::map::{map_item, plan_update, Mapped, Usage};
use super::threads::ThreadState;
use crate::transport::shim::{now_ms, ShimConn};

/// One running turn's context.
pub(super) struct Turn {
    pub(super) conn: Arc<ShimConn>,
    pub(super) thread: Arc<ThreadState>,
    pub(super) id: String,
    pub(super) cwd: String,
    pub(super) content: Vec<Value>,
    pub(super) started_at: i64,
}

/// What the JSONL stream said about the end of the turn.
#[derive(Default)]
pub(super) struct Outcome {
    pub(super) completed: bool,
    pub(super) failure: Option<String>,
    pub(super) last_message: Option<Value>,
}

impl Turn {
    pub(super) fn notify(&self, method: &str, params: Value) {
        self.conn.notify(method, params);
    }

    pub(super) fn item_params(&self, item: Value) -> Value {
        json!({"item": item, "threadId": self.thread.id, "turnId": self.id})
    }

    /// `item/started`, remembering when (items and params carry `startedAtMs`).
    pub(super) fn item_started(&self, mut item: Value, started: &mut HashMap<String, u64>) {
        let id = item["id"].as_str().unwrap_or("").to_owned();
        let at = now_ms();
        started.insert(id, at);
        item["startedAtMs"] = json!(at);
        item["completedAtMs"] = Value::Null;
        let mut p = self.item_params(item);
        p["startedAtMs"] = json!(at);
        self.notify("item/started", p);
    }

    /// `item/completed` with `completedAtMs`.
    pub(super) fn item_completed(&self, mut item: Value, started: &HashMap<String, u64>) {
        let at = now_ms();
        let id = item["id"].as_str().unwrap_or("");
        item["startedAtMs"] = json!(started.get(id).copied().unwrap_or(at));
        item["completedAtMs"] = json!(at);
        let mut p = self.item_params(item);
        p["completedAtMs"] = json!(at);
        self.notify("item/completed", p);
    }

    /// The client-visible id of an exec item: exec restarts its numbering in every process.
    pub(super) fn item_id(&self, raw: &Value) -> String {
        format!("{}-{}", self.id, raw["id"].as_str().unwrap_or("item"))
    }

    pub(super) fn event(
        &self,
        ev: Value,
        started: &mut HashMap<String, u64>,
        outcome: &mut Outcome,
    ) {
        let tid = self.thread.id.as_str();
        match ev["type"].as_str().unwrap_or("") {
            "thread.started" => {
                if let Some(s) = ev["thread_id"].as_str() {
                    *self.thread.session_id.lock().unwrap() = Some(s.to_owned());
                }
            }
            "turn.started" => {}
            "item.started" | "item.updated" | "item.completed" => {
                let raw = &ev["item"];
                let id = self.item_id(raw);
                if let Some(p) = plan_update(raw, tid, &self.id) {
                    self.notify("turn/plan/updated", p);
                }
                let item = match map_item(raw, &id, &self.cwd) {
                    Mapped::Warning(message) => {
                        self.notify("warning", json!({"threadId": tid, "message": message}));
                        return;
                    }
                    Mapped::Item(i) => i,
                };
                match ev["type"].as_str() {
                    Some("item.started") => self.item_started(item, started),
                    Some("item.updated") => {
                        if !started.contains_key(&id) {
                            self.item_started(item.clone(), started);
                        }
                        if raw["type"] != "todo_list" {
                            self.notify("item/updated", self.item_params(item));
                        }
                    }
                    _ => {
                        if !started.contains_key(&id) {
                            let mut first = item.clone();
                            if first["type"] == "agentMessage" {
                                first["text"] = json!("");
                            }
                            self.item_started(first, started);
                        }
                        if item["type"] == "agentMessage" {
                            self.notify(
                                "item/agentMessage/delta",
                                json!({"threadId": tid, "turnId": self.id, "itemId": id,
                                       "delta": item["text"]}),
                            );
                            outcome.last_message = Some(item.clone());
                        }
                        self.item_completed(item, started);
                    }
                }
            }
            "turn.completed" => {
                outcome.completed = true;
                let last = Usage::from_exec(&ev["usage"]);
                let total = {
                    let mut u = self.thread.usage.lock().unwrap();
                    u.add(&last);
                    *u
                };
                self.notify(
                    "thread/tokenUsage/updated",
                    json!({"threadId": tid, "turnId": self.id, "tokenUsage": {
                        "total": total.breakdown(), "last": last.breakdown(),
                        "modelContextWindow": null,
                    }}),
                );
            }
            "turn.failed" => {
                let msg = ev["error"]["message"].as_str().unwrap_or("turn failed");
                outcome.failure = Some(msg.to_owned());
            }
            "error" => {
                let msg = ev["message"].as_str().unwrap_or("").to_owned();
                self.notify(
                    "error",
                    json!({"error": {"message": msg, "codexErrorInfo": null, "additionalDetails": null},
                           "willRetry": false, "threadId": tid, "turnId": self.id}),
                );
                if outcome.failure.is_none() {
                    outcome.failure = Some(msg);
                }
            }
            _ => {
                // An event kind this shim does not know: passed on raw.
                self.notify(
                    "exec/event",
                    json!({"threadId": tid, "turnId": self.id, "event": ev}),
                );
            }
        }
    }
}
