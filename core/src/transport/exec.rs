//! The exec transport: one `codex exec --json` process per turn, driven through the shim so
//! the engine sees an app-server.
//!
//! * `thread/start` makes a thread record with an id generated here: exec's own session id
//!   only exists once the first process printed `thread.started`. The shim keeps the mapping;
//!   later turns run `codex exec resume <session id>`, and `thread/read` reports the session id
//!   as `thread.sessionId`. `thread/resume` with a Codex session id (for example from an
//!   earlier exec or app-server run) makes that id the thread id and resumes it.
//! * `turn/start` spawns the process (own process group, prompt on stdin, stdin closed),
//!   answers with an `inProgress` turn, then translates exec's JSONL into `turn/started`,
//!   `item/started`, `item/completed`, `thread/tokenUsage/updated` and `turn/completed`.
//!   exec prints whole agent messages only, so each message gets exactly one
//!   `item/agentMessage/delta` carrying its full text. exec's `item.updated` events become
//!   `turn/plan/updated` (to-do lists) or an `item/updated` notification (other kinds; not an
//!   app-server method).
//! * `turn/interrupt` kills the process group; the turn ends `interrupted`. A non-zero exit,
//!   a crash, or output without `turn.completed` ends the turn `failed` with the last 4 KiB of
//!   stderr in the error.
//! * Everything else is answered with the "unsupported by this transport" error, which the
//!   engine turns into `Error::Unsupported`: thread list/fork/archive/name, steer, review,
//!   command/exec, config, models, account, approvals (exec runs with approval policy
//!   `never`: Codex refuses escalations itself and never asks), `thread/read` with turns.
//!   `thread/start` / `turn/start` params exec cannot honour are refused the same way, never
//!   ignored.
//!
//! Command line per turn: `codex exec --json [-c k=v (ClientOptions::config_overrides, then
//! thread `config`)] [--skip-git-repo-check] [--model] [--sandbox] [--cd] [--add-dir]...
//! [-c model_reasoning_effort / model_reasoning_summary / sandbox_workspace_write.network_access
//! / web_search / approval_policy] [--ephemeral] [--output-schema FILE] [--image FILE]...
//! [ClientOptions::args] [resume SESSION] -`, with `ClientOptions::env` merged into the
//! inherited environment (or alone with `clear_env`) and `CODEX_HOME` from the options.
//!
//! Differences from the app-server's notifications, all from what exec prints: item ids are
//! `<turnId>-item_N`; `commandExecution` has no `processId`, `commandActions`, `durationMs`
//! and its `cwd` is the thread's; `fileChange` has no diffs (and there is no
//! `turn/diff/updated`); one `thread/tokenUsage/updated` per turn (`total` counts the turns
//! this client ran, `modelContextWindow` is null); errors carry no `codexErrorInfo`; there
//! are no rate-limit, config-warning or command-output-delta notifications.

mod map;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::task::JoinHandle;

use super::shim::{now_ms, Shim, ShimConn, ShimFuture};
use crate::error::{Result, RpcError};
use crate::options::{ClientOptions, ExecOptions};
use crate::transport::lines::{read_line, LineRead};
use map::{map_item, plan_update, toml_value, Mapped, Usage};

/// Bytes of stderr kept for a failed turn's error.
const STDERR_TAIL: usize = 4096;
const TRANSPORT: &str = "exec";

/// Per-thread settings: `thread/start` params over [`ExecOptions`]; `turn/start` overrides
/// of model, effort, cwd, sandbox and approval policy persist (as on the app-server).
#[derive(Debug, Clone, Default)]
struct Settings {
    model: Option<String>,
    sandbox: Option<String>,
    cwd: Option<PathBuf>,
    add_dirs: Vec<PathBuf>,
    effort: Option<String>,
    summary: Option<String>,
    network_access: Option<bool>,
    approval_policy: Option<String>,
    /// `-c` overrides from `config` params (already TOML).
    config: Vec<(String, String)>,
    ephemeral: bool,
}

struct ActiveTurn {
    turn_id: String,
    pid: u32,
    interrupted: Arc<AtomicBool>,
}

struct ThreadState {
    id: String,
    /// exec's session id, once known.
    session_id: Mutex<Option<String>>,
    settings: Mutex<Settings>,
    active: Mutex<Option<ActiveTurn>>,
    usage: Mutex<Usage>,
    created_at: i64,
    preview: Mutex<String>,
}

/// Shim of the exec transport.
pub(crate) struct ExecShim {
    opts: ClientOptions,
    base: Settings,
    skip_git_repo_check: bool,
    web_search: Option<bool>,
    bin: PathBuf,
    threads: Mutex<HashMap<String, Arc<ThreadState>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    closed: AtomicBool,
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A random UUID (version 4 layout).
fn new_id() -> String {
    let a = fastrand::u64(..);
    let b = fastrand::u64(..);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        ((b >> 48) & 0x3fff) | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32602,
        message: message.into(),
        data: None,
    }
}

fn bad_request(message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32600,
        message: message.into(),
        data: None,
    }
}

fn str_param(params: &Value, key: &str) -> Option<String> {
    params.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Kills the turn's process group when dropped before the process was reaped (the runtime
/// went away mid-turn).
struct GroupGuard {
    pid: Option<u32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            crate::transport::process::kill_group(Some(pid));
        }
    }
}

/// Best-effort read of the top-level `model` and `model_provider` of `config.toml`.
fn config_model(home: Option<&Path>) -> (Option<String>, Option<String>) {
    let home = match home {
        Some(h) => h.to_path_buf(),
        None => match std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
            Some(h) => PathBuf::from(h),
            None => match std::env::var_os("HOME") {
                Some(h) => PathBuf::from(h).join(".codex"),
                None => return (None, None),
            },
        },
    };
    let Ok(text) = std::fs::read_to_string(home.join("config.toml")) else {
        return (None, None);
    };
    let (mut model, mut provider) = (None, None);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            break;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = v.trim().trim_matches('"').to_owned();
        match k.trim() {
            "model" => model = Some(v),
            "model_provider" => provider = Some(v),
            _ => {}
        }
    }
    (model, provider)
}

/// The app-server's `SandboxPolicy` object for a sandbox mode name.
fn sandbox_policy(mode: Option<&str>, network: Option<bool>) -> Value {
    match mode {
        Some("danger-full-access") => json!({"type": "dangerFullAccess"}),
        Some("workspace-write") => json!({
            "type": "workspaceWrite",
            "writableRoots": [],
            "networkAccess": network.unwrap_or(false),
            "excludeTmpdirEnvVar": false,
            "excludeSlashTmp": false,
        }),
        _ => json!({"type": "readOnly", "networkAccess": network.unwrap_or(false)}),
    }
}

impl ExecShim {
    pub(crate) fn create(opts: &ClientOptions, exec: &ExecOptions) -> Result<Arc<dyn Shim>> {
        let bin = crate::transport::binary::resolve_codex_bin(opts.codex_bin.as_deref())?;
        let base = Settings {
            model: exec.model.clone(),
            sandbox: exec.sandbox_mode.clone(),
            cwd: exec.working_directory.clone(),
            add_dirs: exec.additional_directories.clone(),
            effort: exec.reasoning_effort.clone(),
            summary: None,
            network_access: exec.network_access,
            approval_policy: exec.approval_policy.clone(),
            config: Vec::new(),
            ephemeral: false,
        };
        Ok(Arc::new(ExecShim {
            opts: opts.clone(),
            base,
            skip_git_repo_check: exec.skip_git_repo_check,
            web_search: exec.web_search,
            bin,
            threads: Mutex::new(HashMap::new()),
            tasks: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }))
    }

    fn codex_home(&self) -> Option<PathBuf> {
        self.opts.codex_home.clone().or_else(|| {
            self.opts
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == "CODEX_HOME")
                .map(|(_, v)| PathBuf::from(v))
        })
    }

    fn thread(&self, params: &Value) -> Result<Arc<ThreadState>, RpcError> {
        let id = str_param(params, "threadId").ok_or_else(|| invalid("missing threadId"))?;
        self.threads
            .lock()
            .unwrap()
            .get(&id)
            .cloned()
            .ok_or_else(|| bad_request(format!("thread not found: {id}")))
    }

    fn effective_cwd(&self, s: &Settings) -> PathBuf {
        s.cwd
            .clone()
            .or_else(|| self.opts.cwd.clone())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The `thread` object the client sees.
    fn thread_record(&self, t: &ThreadState) -> Value {
        let s = t.settings.lock().unwrap().clone();
        let (cfg_model, cfg_provider) = config_model(self.codex_home().as_deref());
        let session = t.session_id.lock().unwrap().clone();
        let status = if t.active.lock().unwrap().is_some() {
            json!({"type": "active", "activeFlags": []})
        } else {
            json!({"type": "idle"})
        };
        json!({
            "id": t.id,
            // exec's session id once the first turn printed it ("" until then).
            "sessionId": session.unwrap_or_default(),
            "forkedFromId": null,
            "preview": *t.preview.lock().unwrap(),
            "ephemeral": s.ephemeral,
            "modelProvider": cfg_provider.unwrap_or_default(),
            "model": s.model.clone().or(cfg_model),
            "createdAt": t.created_at,
            "updatedAt": now_secs(),
            "status": status,
            "path": null,
            "cwd": self.effective_cwd(&s).to_string_lossy(),
            "cliVersion": "",
            "source": "exec",
            "gitInfo": null,
            "name": null,
            "extra": null,
            "turns": [],
        })
    }

    /// `thread/start` / `thread/resume` result.
    fn thread_response(&self, t: &ThreadState) -> Value {
        let s = t.settings.lock().unwrap().clone();
        let (cfg_model, cfg_provider) = config_model(self.codex_home().as_deref());
        json!({
            "thread": self.thread_record(t),
            "model": s.model.clone().or(cfg_model).unwrap_or_default(),
            "modelProvider": cfg_provider.unwrap_or_default(),
            "serviceTier": null,
            "cwd": self.effective_cwd(&s).to_string_lossy(),
            "approvalPolicy": s.approval_policy.clone().unwrap_or_else(|| "never".into()),
            "approvalsReviewer": "user",
            "sandbox": sandbox_policy(s.sandbox.as_deref(), s.network_access),
            "reasoningEffort": s.effort,
        })
    }

    /// Apply `thread/start` (or `thread/resume`) params to settings.
    fn apply_thread_params(s: &mut Settings, params: &Value, method: &str) -> Result<(), RpcError> {
        let Some(obj) = params.as_object() else {
            return Ok(());
        };
        for (k, v) in obj {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "threadId" | "experimentalRawEvents" | "persistExtendedHistory" => {}
                "model" => s.model = v.as_str().map(str::to_owned),
                "cwd" => s.cwd = v.as_str().map(PathBuf::from),
                "sandbox" => s.sandbox = v.as_str().map(str::to_owned),
                "approvalPolicy" => match v.as_str() {
                    Some(p) => s.approval_policy = Some(p.to_owned()),
                    None => {
                        return Err(RpcError::unsupported(
                            TRANSPORT,
                            &format!("{method} with a granular approvalPolicy"),
                        ))
                    }
                },
                "config" => {
                    let Some(map) = v.as_object() else {
                        return Err(invalid("config must be an object"));
                    };
                    for (ck, cv) in map {
                        // A config key that is also a setting replaces the setting (the
                        // settings' flags come last on the command line and would win).
                        match ck.as_str() {
                            "model" => s.model = None,
                            "sandbox_mode" => s.sandbox = None,
                            "model_reasoning_effort" => s.effort = None,
                            "model_reasoning_summary" => s.summary = None,
                            "approval_policy" => s.approval_policy = None,
                            "sandbox_workspace_write.network_access" => s.network_access = None,
                            _ => {}
                        }
                        s.config.push((ck.clone(), toml_value(cv)));
                    }
                }
                "ephemeral" => s.ephemeral = v.as_bool().unwrap_or(false),
                "modelProvider" => s.config.push(("model_provider".into(), toml_value(v))),
                "baseInstructions" => s.config.push(("instructions".into(), toml_value(v))),
                "developerInstructions" => s
                    .config
                    .push(("developer_instructions".into(), toml_value(v))),
                other => {
                    return Err(RpcError::unsupported(
                        TRANSPORT,
                        &format!("{method} parameter `{other}`"),
                    ))
                }
            }
        }
        Ok(())
    }

    fn new_thread(
        &self,
        id: String,
        session: Option<String>,
        settings: Settings,
    ) -> Arc<ThreadState> {
        let t = Arc::new(ThreadState {
            id: id.clone(),
            session_id: Mutex::new(session),
            settings: Mutex::new(settings),
            active: Mutex::new(None),
            usage: Mutex::new(Usage::default()),
            created_at: now_secs(),
            preview: Mutex::new(String::new()),
        });
        self.threads.lock().unwrap().insert(id, t.clone());
        t
    }

    fn thread_start(&self, conn: Arc<ShimConn>, params: &Value) -> Result<Value, RpcError> {
        let mut s = self.base.clone();
        Self::apply_thread_params(&mut s, params, "thread/start")?;
        let t = self.new_thread(new_id(), None, s);
        let result = self.thread_response(&t);
        // Spawned: on the current-thread runtime it runs after the answer is queued, so the
        // notification follows the response as on the app-server.
        let thread = result["thread"].clone();
        crate::rt::spawn(async move { conn.notify("thread/started", json!({"thread": thread})) });
        Ok(result)
    }

    fn thread_resume(&self, params: &Value) -> Result<Value, RpcError> {
        let id = str_param(params, "threadId").ok_or_else(|| invalid("missing threadId"))?;
        if params.get("history").is_some_and(|h| !h.is_null())
            || params.get("path").is_some_and(|h| !h.is_null())
        {
            return Err(RpcError::unsupported(
                TRANSPORT,
                "thread/resume from history or path",
            ));
        }
        let existing = self.threads.lock().unwrap().get(&id).cloned();
        let t = match existing {
            Some(t) => {
                let mut s = t.settings.lock().unwrap().clone();
                Self::apply_thread_params(&mut s, params, "thread/resume")?;
                *t.settings.lock().unwrap() = s;
                t
            }
            None => {
                // A Codex session id. Only UUIDs: `codex exec resume <name>` with a name it
                // does not know silently starts a new session, losing the history.
                if !is_uuid(&id) {
                    return Err(invalid(format!(
                        "the exec transport resumes Codex sessions by id (a UUID), got `{id}`"
                    )));
                }
                let mut s = self.base.clone();
                Self::apply_thread_params(&mut s, params, "thread/resume")?;
                self.new_thread(id.clone(), Some(id), s)
            }
        };
        Ok(self.thread_response(&t))
    }

    fn thread_read(&self, params: &Value) -> Result<Value, RpcError> {
        if params["includeTurns"].as_bool() == Some(true) {
            return Err(RpcError::unsupported(
                TRANSPORT,
                "thread/read with includeTurns",
            ));
        }
        let t = self.thread(params)?;
        Ok(json!({"thread": self.thread_record(&t)}))
    }

    /// Build the `codex exec` command for one turn. Returns the command and the temporary
    /// output-schema file, if any.
    fn command(
        &self,
        t: &ThreadState,
        s: &Settings,
        images: &[String],
        schema: Option<&Path>,
    ) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.arg("exec").arg("--json");
        for (k, v) in &self.opts.config_overrides {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        for (k, v) in &s.config {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        if self.skip_git_repo_check {
            cmd.arg("--skip-git-repo-check");
        }
        if let Some(m) = &s.model {
            cmd.arg("--model").arg(m);
        }
        if let Some(m) = &s.sandbox {
            cmd.arg("--sandbox").arg(m);
        }
        if let Some(d) = &s.cwd {
            cmd.arg("--cd").arg(d);
        }
        for d in &s.add_dirs {
            cmd.arg("--add-dir").arg(d);
        }
        if let Some(e) = &s.effort {
            cmd.arg("-c")
                .arg(format!("model_reasoning_effort={}", toml_value(&json!(e))));
        }
        if let Some(e) = &s.summary {
            cmd.arg("-c")
                .arg(format!("model_reasoning_summary={}", toml_value(&json!(e))));
        }
        if let Some(n) = s.network_access {
            cmd.arg("-c")
                .arg(format!("sandbox_workspace_write.network_access={n}"));
        }
        if let Some(w) = self.web_search {
            cmd.arg("-c").arg(format!(
                "web_search={}",
                if w { "\"live\"" } else { "\"disabled\"" }
            ));
        }
        if let Some(p) = &s.approval_policy {
            cmd.arg("-c")
                .arg(format!("approval_policy={}", toml_value(&json!(p))));
        }
        if s.ephemeral {
            cmd.arg("--ephemeral");
        }
        if let Some(f) = schema {
            cmd.arg("--output-schema").arg(f);
        }
        for i in images {
            cmd.arg("--image").arg(i);
        }
        cmd.args(&self.opts.args);
        if let Some(session) = t.session_id.lock().unwrap().as_ref() {
            cmd.arg("resume").arg(session);
        }
        cmd.arg("-");
        crate::transport::process::configure(
            &mut cmd,
            &self.opts,
            s.cwd.as_deref().or(self.opts.cwd.as_deref()),
        );
        cmd
    }

    fn turn_start(self: &Arc<Self>, conn: Arc<ShimConn>, params: Value) -> Result<Value, RpcError> {
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

    fn turn_interrupt(&self, params: &Value) -> Result<Value, RpcError> {
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

/// One running turn's context.
struct Turn {
    conn: Arc<ShimConn>,
    thread: Arc<ThreadState>,
    id: String,
    cwd: String,
    content: Vec<Value>,
    started_at: i64,
}

/// What the JSONL stream said about the end of the turn.
#[derive(Default)]
struct Outcome {
    completed: bool,
    failure: Option<String>,
    last_message: Option<Value>,
}

impl Turn {
    fn notify(&self, method: &str, params: Value) {
        self.conn.notify(method, params);
    }

    fn item_params(&self, item: Value) -> Value {
        json!({"item": item, "threadId": self.thread.id, "turnId": self.id})
    }

    /// `item/started`, remembering when (items and params carry `startedAtMs`).
    fn item_started(&self, mut item: Value, started: &mut HashMap<String, u64>) {
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
    fn item_completed(&self, mut item: Value, started: &HashMap<String, u64>) {
        let at = now_ms();
        let id = item["id"].as_str().unwrap_or("");
        item["startedAtMs"] = json!(started.get(id).copied().unwrap_or(at));
        item["completedAtMs"] = json!(at);
        let mut p = self.item_params(item);
        p["completedAtMs"] = json!(at);
        self.notify("item/completed", p);
    }

    #[allow(clippy::too_many_arguments)]
    async fn run(
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
            Err(e) => format!("could not wait for codex exec: {e}"),
        };
        let success = status.as_ref().is_ok_and(|s| s.success());

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

    /// The client-visible id of an exec item: exec restarts its numbering in every process.
    fn item_id(&self, raw: &Value) -> String {
        format!("{}-{}", self.id, raw["id"].as_str().unwrap_or("item"))
    }

    fn event(&self, ev: Value, started: &mut HashMap<String, u64>, outcome: &mut Outcome) {
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

impl Shim for ExecShim {
    fn initialize(self: Arc<Self>, _conn: Arc<ShimConn>, _params: Value) -> ShimFuture {
        Box::pin(async move {
            let home = self
                .codex_home()
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")));
            Ok(json!({
                "userAgent": format!("codex-client-exec/{}", env!("CARGO_PKG_VERSION")),
                "codexHome": home.map(|h| h.to_string_lossy().into_owned()).unwrap_or_default(),
                "platformFamily": if cfg!(unix) { "unix" } else { "windows" },
                "platformOs": std::env::consts::OS,
            }))
        })
    }

    fn handle(self: Arc<Self>, conn: Arc<ShimConn>, method: String, params: Value) -> ShimFuture {
        Box::pin(async move {
            match method.as_str() {
                "thread/start" => self.thread_start(conn, &params),
                "thread/resume" => self.thread_resume(&params),
                "thread/read" => self.thread_read(&params),
                "turn/start" => self.turn_start(conn, params),
                "turn/interrupt" => self.turn_interrupt(&params),
                _ => Err(RpcError::unsupported(TRANSPORT, &method)),
            }
        })
    }

    fn shutdown(self: Arc<Self>) -> Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            self.closed.store(true, Ordering::Release);
            let threads: Vec<_> = self.threads.lock().unwrap().values().cloned().collect();
            for t in threads {
                if let Some(a) = t.active.lock().unwrap().as_ref() {
                    a.interrupted.store(true, Ordering::Release);
                    crate::transport::process::kill_group(Some(a.pid));
                }
            }
            let tasks = std::mem::take(&mut *self.tasks.lock().unwrap());
            for task in tasks {
                let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
            }
        })
    }
}
