//! Threads as the shim keeps them: `thread/start`, `thread/resume`, `thread/read`, and the
//! thread and turn settings as `codex` tool arguments.

use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;

use super::{err, McpShim, ThreadRec, TRANSPORT};
use crate::error::RpcError;
use crate::options::ClientOptions;
use crate::transport::shim::now_ms;

impl McpShim {
    fn thread_json(&self, id: &str, rec: &ThreadRec) -> Value {
        let cwd = rec.args.get("cwd").cloned().unwrap_or_else(|| {
            json!(self
                .opts
                .cwd
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .map(|p| p.display().to_string())
                .unwrap_or_default())
        });
        json!({
            "id": id,
            "sessionId": rec.real_id.clone().unwrap_or_else(|| id.to_owned()),
            "mcpThreadId": rec.real_id,
            "preview": "",
            "ephemeral": false,
            "modelProvider": "",
            "createdAt": rec.created_at,
            "updatedAt": rec.created_at,
            "status": {"type": if rec.active.is_some() { "active" } else { "idle" }},
            "path": null,
            "cwd": cwd,
            "cliVersion": "",
            "source": "appServer",
            "turns": [],
        })
    }

    fn thread_response(&self, id: &str, rec: &ThreadRec) -> Value {
        json!({
            "thread": self.thread_json(id, rec),
            "model": rec.args.get("model").cloned().unwrap_or(json!("")),
            "modelProvider": "",
            "cwd": self.thread_json(id, rec)["cwd"],
            "approvalPolicy": rec.args.get("approval-policy").cloned().unwrap_or(json!("on-request")),
            "approvalsReviewer": "user",
            "sandbox": {"type": match rec.args.get("sandbox").and_then(Value::as_str) {
                Some("workspace-write") => "workspaceWrite",
                Some("danger-full-access") => "dangerFullAccess",
                // Codex's own default unless config.toml says otherwise.
                _ => "readOnly",
            }},
            "reasoningEffort": null,
        })
    }

    pub(super) fn thread_start(&self, params: &Value) -> Result<Value, RpcError> {
        reject_unknown(
            "thread/start",
            params,
            &[
                "model",
                "modelProvider",
                "cwd",
                "approvalPolicy",
                "sandbox",
                "config",
                "baseInstructions",
                "developerInstructions",
                "profile",
                "compactPrompt",
            ],
        )?;
        let mut args = Map::new();
        apply_settings(&mut args, params, &self.opts)?;
        for (key, tool_key) in [
            ("baseInstructions", "base-instructions"),
            ("developerInstructions", "developer-instructions"),
        ] {
            if let Some(v) = params.get(key).filter(|v| v.is_string()) {
                args.insert(tool_key.into(), v.clone());
            }
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = format!("mcp-thread-{n}");
        let rec = ThreadRec {
            real_id: None,
            args,
            created_at: (now_ms() / 1000) as i64,
            active: None,
        };
        let resp = self.thread_response(&id, &rec);
        self.threads.lock().unwrap().insert(id, rec);
        Ok(resp)
    }

    pub(super) fn thread_resume(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params["threadId"]
            .as_str()
            .ok_or_else(|| err(-32602, "thread/resume needs `threadId`"))?
            .to_owned();
        if params.get("history").is_some_and(|h| !h.is_null()) {
            return Err(RpcError::unsupported(
                TRANSPORT,
                "thread/resume with history",
            ));
        }
        let threads = self.threads.lock().unwrap();
        // A local id (or a real id we already know) resumes that record.
        let known = threads
            .iter()
            .find(|(k, r)| **k == id || r.real_id.as_deref() == Some(id.as_str()))
            .map(|(k, _)| k.clone());
        if let Some(k) = known {
            let rec = threads.get(&k).unwrap().clone();
            return Ok(self.thread_response(&k, &rec));
        }
        if id.starts_with("mcp-thread-") {
            return Err(err(-32600, format!("thread not found: {id}")));
        }
        // 0.92.0's `codex-reply` only knows sessions alive in this server process ("Session not
        // found for thread_id"), and its `codex` tool cannot load a rollout.
        Err(RpcError::unsupported(
            TRANSPORT,
            "thread/resume of a thread not started on this connection",
        ))
    }

    pub(super) fn thread_read(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params["threadId"]
            .as_str()
            .ok_or_else(|| err(-32602, "thread/read needs `threadId`"))?;
        let threads = self.threads.lock().unwrap();
        let rec = threads
            .get(id)
            .ok_or_else(|| err(-32600, format!("thread not found: {id}")))?;
        Ok(json!({"thread": self.thread_json(id, rec)}))
    }
}

/// Copy thread/turn settings (`model`, `cwd`, `approvalPolicy`, `sandbox`/`sandboxPolicy`,
/// `config`, `profile`, `compactPrompt`) into `codex` tool arguments; `opts` config overrides
/// go first. The tool's `profile` (a profile of `config.toml`) and `compact-prompt` (the prompt
/// used when compacting) come from the params of those names or from the `config` keys
/// `profile` and `compact_prompt` (taken out of `config`: 0.92.0 selects a profile only by its
/// own argument); the params win.
pub(super) fn apply_settings(
    args: &mut Map<String, Value>,
    params: &Value,
    opts: &ClientOptions,
) -> Result<(), RpcError> {
    let mut config = args
        .get("config")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (k, v) in &opts.config_overrides {
        config.insert(k.clone(), parse_override(v));
    }
    if let Some(obj) = params.get("config").and_then(Value::as_object) {
        for (k, v) in obj {
            config.insert(k.clone(), v.clone());
        }
    }
    for (key, cfg) in [
        ("modelProvider", "model_provider"),
        ("effort", "model_reasoning_effort"),
        ("summary", "model_reasoning_summary"),
    ] {
        if let Some(v) = params.get(key).filter(|v| v.is_string()) {
            config.insert(cfg.into(), v.clone());
        }
    }
    for (param, cfg, tool) in [
        ("profile", "profile", "profile"),
        ("compactPrompt", "compact_prompt", "compact-prompt"),
    ] {
        let from_config = config.remove(cfg);
        match params
            .get(param)
            .filter(|v| !v.is_null())
            .or(from_config.as_ref())
        {
            None => {}
            Some(Value::String(v)) => {
                args.insert(tool.into(), json!(v));
            }
            Some(other) => {
                return Err(err(
                    -32602,
                    format!("`{param}` must be a string, not {other}"),
                ))
            }
        }
    }
    if !config.is_empty() {
        args.insert("config".into(), Value::Object(config));
    }
    if let Some(m) = params["model"].as_str() {
        args.insert("model".into(), json!(m));
    }
    if let Some(c) = params["cwd"].as_str() {
        args.insert("cwd".into(), json!(c));
    }
    match &params["approvalPolicy"] {
        Value::Null => {}
        Value::String(s) => {
            args.insert("approval-policy".into(), json!(s));
        }
        _ => return Err(RpcError::unsupported(TRANSPORT, "granular approvalPolicy")),
    }
    if let Some(s) = params["sandbox"].as_str() {
        args.insert("sandbox".into(), json!(s));
    }
    if let Some(t) = params["sandboxPolicy"]["type"].as_str() {
        let mode = match t {
            "readOnly" => "read-only",
            "workspaceWrite" => "workspace-write",
            "dangerFullAccess" => "danger-full-access",
            other => {
                return Err(RpcError::unsupported(
                    TRANSPORT,
                    &format!("sandboxPolicy type {other}"),
                ))
            }
        };
        args.insert("sandbox".into(), json!(mode));
    }
    Ok(())
}

/// Params this transport cannot honour are an error, never silently dropped (`null` counts
/// as absent).
pub(super) fn reject_unknown(method: &str, params: &Value, known: &[&str]) -> Result<(), RpcError> {
    if let Some(obj) = params.as_object() {
        for (k, v) in obj {
            if !v.is_null() && !known.contains(&k.as_str()) {
                return Err(RpcError::unsupported(TRANSPORT, &format!("{method} `{k}`")));
            }
        }
    }
    Ok(())
}

/// A `-c` value as JSON: TOML scalars that are valid JSON (numbers, booleans, quoted
/// strings, arrays) parse as such; anything else is a string.
fn parse_override(v: &str) -> Value {
    serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned()))
}
