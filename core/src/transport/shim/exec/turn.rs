//! `turn/start` (turn params over the thread's settings, input, the output schema file,
//! spawning the process and the turn's task) and `turn/interrupt`.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::events::Turn;
use super::process::GroupGuard;
use super::threads::ActiveTurn;
use super::{bad_request, invalid, new_id, now_secs, str_param, ExecShim, TRANSPORT};
use crate::error::RpcError;
use crate::transport::shim::ShimConn;

impl ExecShim {
    pub(super) fn turn_start(
        self: &Arc<Self>,
        conn: Arc<ShimConn>,
        params: Value,
    ) -> Result<Value, RpcError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(bad_request("the client is disconnecting"));
        }
        let t = self.thread(&params)?;
        let mut s = t.settings.lock().unwrap().clone();
        let mut schema: Option<Value> = None;
        for (k, v) in params.as_object().into_iter().flatten() {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "threadId" | "input" | "clientId" => {}
                "model" => s.model = v.as_str().map(str::to_owned),
                "effort" => s.effort = v.as_str().map(str::to_owned),
                "summary" => s.summary = v.as_str().map(str::to_owned),
                "cwd" => s.cwd = v.as_str().map(PathBuf::from),
                "approvalPolicy" => match v.as_str() {
                    Some(p) => s.approval_policy = Some(p.to_owned()),
                    None => {
                        return Err(RpcError::unsupported(
                            TRANSPORT,
                            "turn/start with a granular approvalPolicy",
                        ))
                    }
                },
                "sandboxPolicy" => match v["type"].as_str() {
                    Some("readOnly") => s.sandbox = Some("read-only".into()),
                    Some("dangerFullAccess") => s.sandbox = Some("danger-full-access".into()),
                    Some("workspaceWrite") => {
                        s.sandbox = Some("workspace-write".into());
                        if let Some(n) = v["networkAccess"].as_bool() {
                            s.network_access = Some(n);
                        }
                        for r in v["writableRoots"].as_array().into_iter().flatten() {
                            if let Some(r) = r.as_str() {
                                let r = PathBuf::from(r);
                                if !s.add_dirs.contains(&r) {
                                    s.add_dirs.push(r);
                                }
                            }
                        }
                    }
                    _ => {
                        return Err(RpcError::unsupported(
                            TRANSPORT,
                            &format!("turn/start sandboxPolicy {v}"),
                        ))
                    }
                },
                "outputSchema" => schema = Some(v.clone()),
                other => {
                    return Err(RpcError::unsupported(
                        TRANSPORT,
                        &format!("turn/start parameter `{other}`"),
                    ))
                }
            }
        }
        // Input: text parts become the prompt, local images `--image`.
        let mut prompt = Vec::new();
        let mut images = Vec::new();
        let mut content = Vec::new();
        for item in params["input"].as_array().into_iter().flatten() {
            match item["type"].as_str() {
                Some("text") => {
                    let text = item["text"].as_str().unwrap_or("");
                    prompt.push(text.to_owned());
                    content.push(json!({"type": "text", "text": text, "text_elements": []}));
                }
                Some("localImage") => {
                    let p = item["path"]
                        .as_str()
                        .ok_or_else(|| invalid("localImage input without a path"))?;
                    images.push(p.to_owned());
                    content.push(json!({"type": "localImage", "path": p}));
                }
                other => {
                    return Err(RpcError::unsupported(
                        TRANSPORT,
                        &format!("turn/start input of type {}", other.unwrap_or("?")),
                    ))
                }
            }
        }
        if prompt.is_empty() && images.is_empty() {
            return Err(invalid("turn/start needs input"));
        }
        let prompt = prompt.join("\n\n");

        let mut active = t.active.lock().unwrap();
        if active.is_some() {
            return Err(bad_request(format!(
                "a turn is already running on thread {}",
                t.id
            )));
        }
        let schema_file = match &schema {
            Some(v) => {
                let path =
                    std::env::temp_dir().join(format!("codex-exec-schema-{}.json", new_id()));
                std::fs::write(&path, serde_json::to_vec(v).unwrap_or_default()).map_err(|e| {
                    RpcError {
                        code: -32603,
                        message: format!("could not write the output schema file: {e}"),
                        data: None,
                    }
                })?;
                Some(path)
            }
            None => None,
        };
        let mut cmd = self.command(&t, &s, &images, schema_file.as_deref());
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                if let Some(f) = &schema_file {
                    let _ = std::fs::remove_file(f);
                }
                return Err(RpcError {
                    code: -32603,
                    message: format!("could not start {}: {e}", self.bin.display()),
                    data: None,
                });
            }
        };
        let pid = child.id().unwrap_or(0);
        let guard = GroupGuard { pid: Some(pid) };
        let turn_id = new_id();
        let interrupted = Arc::new(AtomicBool::new(false));
        *active = Some(ActiveTurn {
            turn_id: turn_id.clone(),
            pid,
            interrupted: interrupted.clone(),
        });
        drop(active);
        // Settings overrides persist for later turns (output schema and images do not).
        *t.settings.lock().unwrap() = s.clone();
        {
            let mut preview = t.preview.lock().unwrap();
            if preview.is_empty() {
                *preview = prompt.chars().take(200).collect();
            }
        }

        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let started_at = now_secs();
        let turn = Turn {
            conn,
            thread: t,
            id: turn_id.clone(),
            cwd: self.effective_cwd(&s).to_string_lossy().into_owned(),
            content,
            started_at,
        };
        let max_line = self.opts.max_line_bytes;
        // The runtime is current-thread: this task cannot run before the `turn/start` answer
        // (sent right after this function returns) is queued, so it always comes first.
        let task = crate::rt::spawn(async move {
            turn.run(
                child,
                guard,
                prompt,
                stdin,
                stdout,
                stderr,
                schema_file,
                interrupted,
                max_line,
            )
            .await;
        });
        let mut tasks = self.tasks.lock().unwrap();
        tasks.retain(|h| !h.is_finished());
        tasks.push(task);
        Ok(json!({"turn": {
            "id": turn_id,
            "items": [],
            "itemsView": "notLoaded",
            "status": "inProgress",
            "error": null,
            "startedAt": null,
            "completedAt": null,
            "durationMs": null,
        }}))
    }

    pub(super) fn turn_interrupt(&self, params: &Value) -> Result<Value, RpcError> {
        let t = self.thread(params)?;
        let want = str_param(params, "turnId");
        let active = t.active.lock().unwrap();
        match active.as_ref() {
            Some(a) if want.as_deref().is_none_or(|w| w == a.turn_id) => {
                a.interrupted.store(true, Ordering::Release);
                crate::transport::process::kill_group(Some(a.pid));
                Ok(json!({}))
            }
            _ => Err(bad_request(format!(
                "no running turn {} on thread {}",
                want.unwrap_or_default(),
                t.id
            ))),
        }
    }
}
