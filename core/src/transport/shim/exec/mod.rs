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
//!
//! Files: `threads.rs` (thread records and settings; `thread/*`), `turn.rs` (`turn/start`,
//! `turn/interrupt`), `command.rs` (a turn's command line), `process.rs` (a turn's process,
//! from the prompt to `turn/completed`), `events.rs` (exec's JSONL events → notifications),
//! `map.rs` (exec's items → app-server items, usage, TOML values).

mod command;
mod events;
mod map;
mod process;
mod threads;
mod turn;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::task::JoinHandle;

use super::{Shim, ShimConn, ShimFuture};
use crate::error::{Result, RpcError};
use crate::options::{ClientOptions, ExecOptions};
use threads::{Settings, ThreadState};

const TRANSPORT: &str = "exec";

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

/// Seconds since the Unix epoch.
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

/// An invalid-params error (`-32602`).
fn invalid(message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32602,
        message: message.into(),
        data: None,
    }
}

/// An invalid-request error (`-32600`).
fn bad_request(message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32600,
        message: message.into(),
        data: None,
    }
}

/// A string member of the params.
fn str_param(params: &Value, key: &str) -> Option<String> {
    params.get(key).and_then(Value::as_str).map(str::to_owned)
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
