//! One turn's `codex exec` process: the prompt on stdin, the tail of stderr, stdout's JSONL
//! lines to the event translation, and from the exit the turn's end (`turn/completed`).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};

use super::events::{Outcome, Turn};
use super::{new_id, now_secs};
use crate::transport::lines::{read_line, LineRead};

/// Bytes of stderr kept for a failed turn's error.
const STDERR_TAIL: usize = 4096;

/// Kills the turn's process group when dropped before the process was reaped (the runtime
/// went away mid-turn).
pub(super) struct GroupGuard {
    pub(super) pid: Option<u32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            crate::transport::process::kill_group(Some(pid));
        }
    }
}

impl Turn {
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn run(
        self,
        mut child: tokio::process::Child,
        mut guard: GroupGuard,
        prompt: String,
        stdin: Option<tokio::process::ChildStdin>,
        stdout: Option<tokio::process::ChildStdout>,
        stderr: Option<tokio::process::ChildStderr>,
        schema_file: Option<PathBuf>,
        interrupted: Arc<AtomicBool>,
        max_line: usize,
    ) {
        let t0 = Instant::now();
        let tid = self.thread.id.clone();
        self.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": "active", "activeFlags": []}}),
        );
        self.notify(
            "turn/started",
            json!({"threadId": tid, "turn": {
                "id": self.id, "items": [], "itemsView": "notLoaded", "status": "inProgress",
                "error": null, "startedAt": self.started_at, "completedAt": null, "durationMs": null,
            }}),
        );
        let user_item = json!({
            "type": "userMessage",
            "id": new_id(),
            "clientId": null,
            "content": self.content,
        });
        let mut started = HashMap::new();
        self.item_started(user_item.clone(), &mut started);
        self.item_completed(user_item, &started);

        // Prompt on stdin, then EOF.
        if let Some(mut stdin) = stdin {
            crate::rt::spawn(async move {
                let _ = stdin.write_all(prompt.as_bytes()).await;
                let _ = stdin.shutdown().await;
            });
        }
        let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
        let stderr_task = stderr.map(|mut e| {
            let tail = tail.clone();
            crate::rt::spawn(async move {
                let mut buf = [0u8; 4096];
                loop {
                    match e.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            let mut t = tail.lock().unwrap();
                            t.extend_from_slice(&buf[..n]);
                            if t.len() > STDERR_TAIL {
                                let cut = t.len() - STDERR_TAIL;
                                t.drain(..cut);
                            }
                        }
                    }
                }
            })
        });

        let mut outcome = Outcome::default();
        if let Some(out) = stdout {
            let mut reader = BufReader::new(out);
            let mut buf = Vec::with_capacity(8192);
            loop {
                match read_line(&mut reader, &mut buf, max_line).await {
                    Ok(LineRead::Line) => {
                        let Ok(ev) = serde_json::from_slice::<Value>(&buf) else {
                            let text = String::from_utf8_lossy(&buf);
                            if !text.trim().is_empty() {
                                tracing::debug!("non-JSON line from codex exec: {text}");
                            }
                            continue;
                        };
                        self.event(ev, &mut started, &mut outcome);
                    }
                    Ok(LineRead::TooLong(n)) => {
                        tracing::warn!("skipped a {n}-byte line from codex exec")
                    }
                    Ok(LineRead::Eof) | Err(_) => break,
                }
            }
        }
        let status = child.wait().await;
        guard.pid = None;
        if let Some(t) = stderr_task {
            let _ = tokio::time::timeout(Duration::from_millis(300), t).await;
        }
        if let Some(f) = &schema_file {
            let _ = std::fs::remove_file(f);
        }
        let stderr_tail = String::from_utf8_lossy(&tail.lock().unwrap()).into_owned();
        let exit = match &status {
            Ok(s) => {
                crate::transport::process::describe(*s).replace("server process", "codex exec")
            }
            Err(e) => crate::transport::process::describe_wait_error("codex exec", e),
        };
        // A status the system reaped (SIGCHLD ignored by the host process) is unknown: the
        // JSON stream decides (a completed turn with no failure is completed).
        let reaped = status
            .as_ref()
            .is_err_and(crate::transport::process::reaped_elsewhere);
        if reaped {
            tracing::debug!("{exit}");
        }
        let success = status.as_ref().is_ok_and(|s| s.success()) || reaped;

        let interrupted = interrupted.load(Ordering::Acquire);
        let (turn_status, error) = if outcome.completed
            && outcome.failure.is_none()
            && (success || interrupted)
        {
            // Done (possibly just before an interrupt could stop it).
            ("completed", Value::Null)
        } else if interrupted {
            ("interrupted", Value::Null)
        } else if let Some(msg) = outcome.failure.clone() {
            let details = if stderr_tail.trim().is_empty() {
                Value::Null
            } else {
                json!(stderr_tail)
            };
            (
                "failed",
                json!({"message": msg, "codexErrorInfo": null, "additionalDetails": details}),
            )
        } else {
            let why = if outcome.completed {
                exit.clone()
            } else {
                format!("{exit} before the turn completed")
            };
            let message = if stderr_tail.trim().is_empty() {
                why
            } else {
                format!("{why}; stderr:\n{}", stderr_tail.trim_end())
            };
            (
                "failed",
                json!({"message": message, "codexErrorInfo": null,
                       "additionalDetails": if stderr_tail.is_empty() { Value::Null } else { json!(stderr_tail) }}),
            )
        };
        // The turn is over: free the thread before telling the client.
        *self.thread.active.lock().unwrap() = None;
        self.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": if turn_status == "failed" { "systemError" } else { "idle" }}}),
        );
        let (items, view) = match outcome.last_message {
            Some(m) => (json!([m]), "summary"),
            None => (json!([]), "notLoaded"),
        };
        self.notify(
            "turn/completed",
            json!({"threadId": tid, "turn": {
                "id": self.id, "items": items, "itemsView": view, "status": turn_status,
                "error": error, "startedAt": self.started_at, "completedAt": now_secs(),
                "durationMs": t0.elapsed().as_millis() as u64,
            }}),
        );
    }
}
