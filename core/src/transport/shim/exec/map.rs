//! Translation of `codex exec --json` output (snake_case JSONL events and items) into the
//! app-server protocol's camelCase shapes, and of JSON config values into `-c` TOML.

use serde_json::{json, Map, Value};

/// Status words of exec (`in_progress`) to the app-server's (`inProgress`).
fn camel_status(s: &Value) -> Value {
    match s.as_str() {
        Some(s) => Value::String(snake_to_camel(s)),
        None => s.clone(),
    }
}

/// `in_progress` → `inProgress`, `command_execution` → `commandExecution`.
pub(crate) fn snake_to_camel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut up = false;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// An exec item mapped to the app-server's thread item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mapped {
    /// A thread item (`type` is camelCase for known kinds; unknown kinds keep exec's raw JSON).
    Item(Value),
    /// exec's `error` item (a non-fatal warning such as "Model metadata ... not found"); the
    /// app-server reports these as a `warning` notification, not an item.
    Warning(String),
}

/// Map one exec item. `id` is the id the client sees (unique per thread); `cwd` fills
/// `commandExecution.cwd`, which exec does not report.
pub(crate) fn map_item(raw: &Value, id: &str, cwd: &str) -> Mapped {
    let kind = raw["type"].as_str().unwrap_or("");
    let item = match kind {
        "agent_message" => json!({
            "type": "agentMessage",
            "id": id,
            "text": raw["text"].as_str().unwrap_or(""),
            "phase": null,
            "memoryCitation": null,
        }),
        "reasoning" => json!({
            "type": "reasoning",
            "id": id,
            "summary": [raw["text"].as_str().unwrap_or("")],
            "content": [],
        }),
        "command_execution" => json!({
            "type": "commandExecution",
            "id": id,
            "command": raw["command"].as_str().unwrap_or(""),
            "cwd": cwd,
            "processId": null,
            "status": camel_status(&raw["status"]),
            "commandActions": [],
            "aggregatedOutput": raw.get("aggregated_output").cloned().unwrap_or(Value::Null),
            "exitCode": raw.get("exit_code").cloned().unwrap_or(Value::Null),
            "durationMs": null,
        }),
        "file_change" => {
            let changes: Vec<Value> = raw["changes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|c| {
                            json!({
                                "path": c["path"].as_str().unwrap_or(""),
                                "kind": {"type": c["kind"].as_str().unwrap_or("update")},
                                "diff": "",
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            json!({
                "type": "fileChange",
                "id": id,
                "changes": changes,
                "status": camel_status(&raw["status"]),
            })
        }
        "mcp_tool_call" => {
            let result = match &raw["result"] {
                Value::Object(r) => json!({
                    "content": r.get("content").cloned().unwrap_or(json!([])),
                    "structuredContent": r.get("structured_content").cloned().unwrap_or(Value::Null),
                }),
                _ => Value::Null,
            };
            let error = match &raw["error"] {
                Value::Object(e) => {
                    json!({"message": e.get("message").cloned().unwrap_or(json!(""))})
                }
                _ => Value::Null,
            };
            json!({
                "type": "mcpToolCall",
                "id": id,
                "server": raw["server"].as_str().unwrap_or(""),
                "tool": raw["tool"].as_str().unwrap_or(""),
                "status": camel_status(&raw["status"]),
                "arguments": raw.get("arguments").cloned().unwrap_or(Value::Null),
                "result": result,
                "error": error,
                "durationMs": null,
            })
        }
        "web_search" => {
            let mut v = json!({
                "type": "webSearch",
                "id": id,
                "query": raw["query"].as_str().unwrap_or(""),
            });
            if let Some(a) = raw.get("action") {
                v["action"] = camel_keys(a);
            }
            v
        }
        // No app-server item carries a to-do list (it sends `turn/plan/updated`, which the
        // shim also emits); the item keeps exec's fields under a camelCase type.
        "todo_list" => json!({
            "type": "todoList",
            "id": id,
            "items": raw.get("items").cloned().unwrap_or(json!([])),
        }),
        "error" => return Mapped::Warning(raw["message"].as_str().unwrap_or("").to_owned()),
        _ => {
            // Unknown kind: exec's JSON as it came, with the client-visible id.
            let mut v = raw.clone();
            if let Some(o) = v.as_object_mut() {
                o.insert("id".into(), Value::String(id.to_owned()));
            }
            v
        }
    };
    Mapped::Item(item)
}

/// `turn/plan/updated` params for an exec `todo_list` item.
pub(crate) fn plan_update(raw: &Value, thread_id: &str, turn_id: &str) -> Option<Value> {
    if raw["type"] != "todo_list" {
        return None;
    }
    let plan: Vec<Value> = raw["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| {
                    json!({
                        "step": i["text"].as_str().unwrap_or(""),
                        "status": if i["completed"].as_bool() == Some(true) { "completed" } else { "pending" },
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(json!({"threadId": thread_id, "turnId": turn_id, "explanation": null, "plan": plan}))
}

/// Recursively rename object keys from snake_case to camelCase.
fn camel_keys(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (snake_to_camel(k), camel_keys(v)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(camel_keys).collect()),
        other => other.clone(),
    }
}

/// Token counts of one exec turn (`turn.completed.usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub input: i64,
    pub cached_input: i64,
    pub cache_write_input: i64,
    pub output: i64,
    pub reasoning_output: i64,
}

impl Usage {
    pub(crate) fn from_exec(u: &Value) -> Usage {
        let n = |k: &str| u[k].as_i64().unwrap_or(0);
        Usage {
            input: n("input_tokens"),
            cached_input: n("cached_input_tokens"),
            cache_write_input: n("cache_write_input_tokens"),
            output: n("output_tokens"),
            reasoning_output: n("reasoning_output_tokens"),
        }
    }

    pub(crate) fn add(&mut self, o: &Usage) {
        self.input += o.input;
        self.cached_input += o.cached_input;
        self.cache_write_input += o.cache_write_input;
        self.output += o.output;
        self.reasoning_output += o.reasoning_output;
    }

    /// The app-server's `TokenUsageBreakdown`.
    pub(crate) fn breakdown(&self) -> Value {
        json!({
            "totalTokens": self.input + self.output,
            "inputTokens": self.input,
            "cachedInputTokens": self.cached_input,
            "cacheWriteInputTokens": self.cache_write_input,
            "outputTokens": self.output,
            "reasoningOutputTokens": self.reasoning_output,
        })
    }
}

/// A JSON value written as a TOML value for `-c key=value`.
pub(crate) fn toml_value(v: &Value) -> String {
    match v {
        // A JSON string literal is a valid TOML basic string (same escapes).
        Value::String(_) | Value::Number(_) | Value::Bool(_) => v.to_string(),
        Value::Null => "\"\"".into(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{} = {}", toml_key(k), toml_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_owned()
    } else {
        Value::String(k.to_owned()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_map_to_app_server_shapes() {
        let cmd = json!({"id":"item_1","type":"command_execution","command":"/bin/bash -c 'echo hi'",
            "aggregated_output":"hi\n","exit_code":0,"status":"completed"});
        let Mapped::Item(v) = map_item(&cmd, "t-item_1", "/w") else {
            panic!()
        };
        assert_eq!(v["type"], "commandExecution");
        assert_eq!(v["aggregatedOutput"], "hi\n");
        assert_eq!(v["exitCode"], 0);
        assert_eq!(v["status"], "completed");
        assert_eq!(v["id"], "t-item_1");
        let typed: crate::protocol::ThreadItem = serde_json::from_value(v).unwrap();
        assert!(matches!(
            typed,
            crate::protocol::ThreadItem::CommandExecution(_)
        ));

        let fc = json!({"id":"item_2","type":"file_change","changes":[{"path":"a.txt","kind":"add"}],"status":"completed"});
        let Mapped::Item(v) = map_item(&fc, "x", "/w") else {
            panic!()
        };
        let typed: crate::protocol::ThreadItem = serde_json::from_value(v).unwrap();
        assert!(
            matches!(typed, crate::protocol::ThreadItem::FileChange(_)),
            "{typed:?}"
        );

        let msg = json!({"id":"item_3","type":"agent_message","text":"hello"});
        let Mapped::Item(v) = map_item(&msg, "y", "/w") else {
            panic!()
        };
        let typed: crate::protocol::ThreadItem = serde_json::from_value(v).unwrap();
        assert!(matches!(
            typed,
            crate::protocol::ThreadItem::AgentMessage(ref m) if m.text == "hello"
        ));

        let mcp = json!({"id":"i","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":1},
            "result":{"content":[],"structured_content":{"x":1}},"error":null,"status":"completed"});
        let Mapped::Item(v) = map_item(&mcp, "z", "/w") else {
            panic!()
        };
        assert_eq!(v["result"]["structuredContent"]["x"], 1);
        let typed: crate::protocol::ThreadItem = serde_json::from_value(v).unwrap();
        assert!(matches!(typed, crate::protocol::ThreadItem::McpToolCall(_)));

        let ws = json!({"id":"i","type":"web_search","query":"rust"});
        let Mapped::Item(v) = map_item(&ws, "w", "/w") else {
            panic!()
        };
        assert_eq!(v["type"], "webSearch");
        let r = json!({"id":"i","type":"reasoning","text":"thinking"});
        let Mapped::Item(v) = map_item(&r, "r", "/w") else {
            panic!()
        };
        assert_eq!(v["summary"][0], "thinking");

        let warn = json!({"id":"item_0","type":"error","message":"careful"});
        assert_eq!(
            map_item(&warn, "e", "/w"),
            Mapped::Warning("careful".into())
        );

        let unknown = json!({"id":"item_9","type":"brand_new_kind","payload":{"k":1}});
        let Mapped::Item(v) = map_item(&unknown, "u", "/w") else {
            panic!()
        };
        assert_eq!(v["type"], "brand_new_kind");
        assert_eq!(v["payload"]["k"], 1);
        assert_eq!(v["id"], "u");
    }

    #[test]
    fn todo_list_becomes_a_plan_update() {
        let t = json!({"id":"i","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":false}]});
        let p = plan_update(&t, "th", "tu").unwrap();
        assert_eq!(p["plan"][0], json!({"step":"a","status":"completed"}));
        assert_eq!(p["plan"][1]["status"], "pending");
        assert!(plan_update(&json!({"type":"agent_message"}), "th", "tu").is_none());
    }

    #[test]
    fn usage_adds_up_and_breaks_down() {
        let mut total = Usage::default();
        let u = Usage::from_exec(
            &json!({"input_tokens":10,"cached_input_tokens":2,"output_tokens":3,"reasoning_output_tokens":1}),
        );
        total.add(&u);
        total.add(&u);
        let b = total.breakdown();
        assert_eq!(b["totalTokens"], 26);
        assert_eq!(b["cachedInputTokens"], 4);
    }

    #[test]
    fn json_values_become_toml() {
        assert_eq!(toml_value(&json!("a\"b")), r#""a\"b""#);
        assert_eq!(toml_value(&json!(true)), "true");
        assert_eq!(toml_value(&json!([1, "x"])), r#"[1, "x"]"#);
        assert_eq!(
            toml_value(&json!({"a": 1, "b c": "d"})),
            r#"{a = 1, "b c" = "d"}"#
        );
        assert_eq!(snake_to_camel("in_progress"), "inProgress");
    }
}
