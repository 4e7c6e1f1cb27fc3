//! The exec shim's threads: per-thread settings (`thread/start` params over
//! [`ExecOptions`](crate::ExecOptions)), the thread records the client sees, and
//! `thread/start`, `thread/resume`, `thread/read`.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::map::{toml_value, Usage};
use super::{bad_request, invalid, new_id, now_secs, str_param, ExecShim, TRANSPORT};
use crate::error::RpcError;
use crate::transport::shim::ShimConn;

/// Per-thread settings: `thread/start` params over [`ExecOptions`](crate::ExecOptions);
/// `turn/start` overrides of model, effort, cwd, sandbox and approval policy persist (as on
/// the app-server).
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    pub(super) model: Option<String>,
    pub(super) sandbox: Option<String>,
    pub(super) cwd: Option<PathBuf>,
    pub(super) add_dirs: Vec<PathBuf>,
    pub(super) effort: Option<String>,
    pub(super) summary: Option<String>,
    pub(super) network_access: Option<bool>,
    pub(super) approval_policy: Option<String>,
    /// `-c` overrides from `config` params (already TOML).
    pub(super) config: Vec<(String, String)>,
    pub(super) ephemeral: bool,
}

/// The running turn of a thread.
pub(super) struct ActiveTurn {
    pub(super) turn_id: String,
    pub(super) pid: u32,
    pub(super) interrupted: Arc<AtomicBool>,
}

/// A thread of this shim.
pub(super) struct ThreadState {
    pub(super) id: String,
    /// exec's session id, once known.
    pub(super) session_id: Mutex<Option<String>>,
    pub(super) settings: Mutex<Settings>,
    pub(super) active: Mutex<Option<ActiveTurn>>,
    pub(super) usage: Mutex<Usage>,
    pub(super) created_at: i64,
    pub(super) preview: Mutex<String>,
}

/// Whether `s` is a UUID (a Codex session id).
fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
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
    pub(super) fn codex_home(&self) -> Option<PathBuf> {
        self.opts.codex_home.clone().or_else(|| {
            self.opts
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == "CODEX_HOME")
                .map(|(_, v)| PathBuf::from(v))
        })
    }

    pub(super) fn thread(&self, params: &Value) -> Result<Arc<ThreadState>, RpcError> {
        let id = str_param(params, "threadId").ok_or_else(|| invalid("missing threadId"))?;
        self.threads
            .lock()
            .unwrap()
            .get(&id)
            .cloned()
            .ok_or_else(|| bad_request(format!("thread not found: {id}")))
    }

    pub(super) fn effective_cwd(&self, s: &Settings) -> PathBuf {
        s.cwd
            .clone()
            .or_else(|| self.opts.cwd.clone())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The `thread` object the client sees.
    pub(super) fn thread_record(&self, t: &ThreadState) -> Value {
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
    pub(super) fn thread_response(&self, t: &ThreadState) -> Value {
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
    pub(super) fn apply_thread_params(
        s: &mut Settings,
        params: &Value,
        method: &str,
    ) -> Result<(), RpcError> {
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

    pub(super) fn new_thread(
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

    pub(super) fn thread_start(
        &self,
        conn: Arc<ShimConn>,
        params: &Value,
    ) -> Result<Value, RpcError> {
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

    pub(super) fn thread_resume(&self, params: &Value) -> Result<Value, RpcError> {
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

    pub(super) fn thread_read(&self, params: &Value) -> Result<Value, RpcError> {
        if params["includeTurns"].as_bool() == Some(true) {
            return Err(RpcError::unsupported(
                TRANSPORT,
                "thread/read with includeTurns",
            ));
        }
        let t = self.thread(params)?;
        Ok(json!({"thread": self.thread_record(&t)}))
    }
}
