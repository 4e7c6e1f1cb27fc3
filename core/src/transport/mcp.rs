//! The mcp transport shim: an MCP client (NDJSON over the stdio of a spawned
//! `codex mcp-server`, Codex 0.92.0 and older) that serves the app-server protocol to the
//! engine.
//!
//! * `initialize` spawns the server, negotiates the MCP protocol version (offers
//!   [`OFFERED_VERSION`]; the server's answer must be one of [`SUPPORTED_VERSIONS`], else the
//!   connection fails with a clear error), sends `notifications/initialized` and checks with
//!   `tools/list` that the `codex` tool exists.
//! * `thread/start` creates a local thread record (id `mcp-thread-N`). Its first `turn/start`
//!   calls tool `codex` (prompt, approval-policy, sandbox, cwd, model, config); later turns
//!   call `codex-reply` with the Codex `threadId` learnt from the first call (from `codex/event`
//!   `_meta.threadId`, `session_configured` or the result's `structuredContent.threadId`).
//!   `thread/read` and `turn/completed` show the Codex id as `mcpThreadId`; `thread/resume`
//!   accepts the local or the Codex id of a thread of this connection. 0.92.0's `codex-reply`
//!   only knows sessions alive in its process ("Session not found for thread_id") and the
//!   `codex` tool cannot load a rollout, so resuming a thread of another connection is an
//!   "unsupported" error. Thread/turn params the tool cannot take are "unsupported" errors,
//!   as are per-turn overrides after the first turn (`codex-reply` takes only a prompt).
//! * `ClientOptions::config_overrides` go both to the command line (`-c`) and into the
//!   `codex` tool's `config` argument: 0.92.0 does not apply `-c` to tool sessions.
//! * 0.92.0 facts worth knowing: without `OPENAI_BASE_URL` pointing somewhere local it
//!   fetches `https://chatgpt.com/backend-api/codex/models` at start-up; for an unknown model
//!   it offers the `shell` tool unless `features.unified_exec` is on (then `exec_command`).
//! * `codex/event` notifications of a call become `turn/started`, `item/started`,
//!   `item/agentMessage/delta`, `item/completed`, `thread/tokenUsage/updated` and
//!   `turn/completed`; every event type that is not translated is passed on unchanged as
//!   `codex/event/<type>` (params: the full `codex/event` params plus `threadId`/`turnId`).
//! * `elicitation/create` requests (exec and patch approvals) become
//!   `item/commandExecution/requestApproval` / `item/fileChange/requestApproval`; the answer
//!   is mapped to 0.92.0's review decisions; anything but an explicit accept is a denial.
//! * `turn/interrupt` sends `notifications/cancelled` for the `tools/call`; Codex then ends
//!   the task with `turn_aborted` (and never answers the call) and the turn completes as
//!   `interrupted`. A control request (initialize, tools/list) that times out is cancelled
//!   with `notifications/cancelled` too.

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot, Notify};

use super::process;
use super::shim::{now_ms, response_outcome, write_lines, Shim, ShimConn, ShimFuture};
use crate::error::{Result, RpcError};
use crate::options::ClientOptions;

/// The MCP protocol version this client offers.
pub const OFFERED_VERSION: &str = "2025-11-25";
/// MCP protocol versions this client accepts in the server's `initialize` answer.
pub const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const TRANSPORT: &str = "mcp";
/// The `turn/start` params that set how the turn runs (besides `threadId` and `input`).
const TURN_SETTINGS: [&str; 7] = [
    "model",
    "cwd",
    "approvalPolicy",
    "sandboxPolicy",
    "effort",
    "summary",
    "config",
];
/// How long an interrupted turn waits for Codex's `turn_aborted` before ending anyway.
const ABORT_GRACE: Duration = Duration::from_secs(5);

fn err(code: i64, message: impl Into<String>) -> RpcError {
    RpcError {
        code,
        message: message.into(),
        data: None,
    }
}

/// What one `tools/call` streams to its turn task.
enum CallMsg {
    Event(Value),
    /// The MCP connection closed.
    Closed,
}

type Pending = Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>;

/// The MCP client side of the connection to `codex mcp-server`.
struct McpClient {
    out: mpsc::UnboundedSender<Vec<u8>>,
    next_id: AtomicI64,
    pending: Pending,
    /// `codex/event` subscribers by the `tools/call` request id.
    calls: Mutex<HashMap<i64, mpsc::UnboundedSender<CallMsg>>>,
    /// Turn context of each running `tools/call` (for elicitations): request id → (local
    /// thread id, turn id).
    call_ctx: Mutex<HashMap<i64, (String, String)>>,
    /// The last approval event (`exec_approval_request`, `apply_patch_approval_request`) by
    /// call id, for the reason shown in the approval request.
    approval_events: Mutex<HashMap<String, Value>>,
    /// The running call of each Codex thread (real id → request id). 0.92.0 keeps the
    /// event forwarder of an interrupted call alive, so later events of the thread can arrive
    /// under the old request id: they are routed by thread to the call now running.
    by_thread: Mutex<HashMap<String, i64>>,
    closed: AtomicBool,
    close_reason: Mutex<Option<String>>,
    stderr_tail: Mutex<String>,
}

impl McpClient {
    fn send(&self, v: &Value) {
        let mut line = serde_json::to_vec(v).expect("JSON serializes");
        line.push(b'\n');
        let _ = self.out.send(line);
    }

    fn closed_error(&self) -> RpcError {
        let reason = self
            .close_reason
            .lock()
            .unwrap()
            .clone()
            .unwrap_or_else(|| "codex mcp-server closed the connection".into());
        let tail = self.stderr_tail.lock().unwrap().clone();
        if tail.is_empty() {
            err(-32603, reason)
        } else {
            err(-32603, format!("{reason}; stderr: {tail}"))
        }
    }

    fn alloc_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Send a request with a known id and wait for its answer, at most `timeout` (`None`: no
    /// limit). On timeout `notifications/cancelled` is sent and an error returned.
    async fn request_with_id(
        &self,
        id: i64,
        method: &str,
        params: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, RpcError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let outcome = match timeout {
            None => rx.await,
            Some(t) => match tokio::time::timeout(t, rx).await {
                Ok(r) => r,
                Err(_) => {
                    self.pending.lock().unwrap().remove(&id);
                    self.cancel(id, "request timed out");
                    return Err(err(
                        -32603,
                        format!(
                            "codex mcp-server did not answer `{method}` within {t:?} (request cancelled)"
                        ),
                    ));
                }
            },
        };
        outcome.unwrap_or_else(|_| Err(self.closed_error()))
    }

    /// A control request that must be answered before `deadline`.
    async fn request(
        &self,
        method: &str,
        params: Value,
        deadline: tokio::time::Instant,
    ) -> Result<Value, RpcError> {
        let id = self.alloc_id();
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        self.request_with_id(id, method, params, Some(left)).await
    }

    /// `notifications/cancelled` for one of our requests.
    fn cancel(&self, id: i64, reason: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": reason}}),
        );
    }

    fn close(&self, reason: String) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        *self.close_reason.lock().unwrap() = Some(reason.clone());
        let pending: Vec<_> = self.pending.lock().unwrap().drain().collect();
        for (_, tx) in pending {
            let _ = tx.send(Err(self.closed_error()));
        }
        let calls: Vec<_> = self.calls.lock().unwrap().drain().collect();
        for (_, tx) in calls {
            let _ = tx.send(CallMsg::Closed);
        }
    }
}

/// A thread as this shim knows it.
#[derive(Clone, Default)]
struct ThreadRec {
    /// Codex's thread id once known.
    real_id: Option<String>,
    /// Arguments of the `codex` tool from `thread/start`.
    args: Map<String, Value>,
    created_at: i64,
    /// The running turn: (turn id, tools/call request id, interrupt signal).
    active: Option<(String, i64, Arc<Notify>)>,
}

struct Inner {
    client: Arc<McpClient>,
    child: tokio::process::Child,
}

/// Shim of the mcp transport.
pub(crate) struct McpShim {
    opts: ClientOptions,
    inner: Mutex<Option<Arc<McpClient>>>,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    threads: Mutex<HashMap<String, ThreadRec>>,
    counter: AtomicU64,
}

impl McpShim {
    pub(crate) fn create(opts: &ClientOptions) -> Result<Arc<dyn Shim>> {
        Ok(Arc::new(McpShim {
            opts: opts.clone(),
            inner: Mutex::new(None),
            child: tokio::sync::Mutex::new(None),
            threads: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(1),
        }))
    }

    fn client(&self) -> Result<Arc<McpClient>, RpcError> {
        self.inner
            .lock()
            .unwrap()
            .clone()
            .ok_or_else(|| err(-32603, "codex mcp-server is not running"))
    }

    fn spawn(&self, conn: Arc<ShimConn>) -> Result<Inner, RpcError> {
        let opts = &self.opts;
        let mut cmd =
            process::subcommand(opts, "mcp-server").map_err(|e| err(-32603, e.to_string()))?;
        let mut child = cmd.spawn().map_err(|e| {
            err(
                -32603,
                format!(
                    "could not start {:?} mcp-server: {e}",
                    cmd.as_std().get_program()
                ),
            )
        })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (out_tx, out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let client = Arc::new(McpClient {
            out: out_tx,
            next_id: AtomicI64::new(1),
            pending: Mutex::new(HashMap::new()),
            calls: Mutex::new(HashMap::new()),
            call_ctx: Mutex::new(HashMap::new()),
            approval_events: Mutex::new(HashMap::new()),
            by_thread: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            close_reason: Mutex::new(None),
            stderr_tail: Mutex::new(String::new()),
        });
        // An empty line (stop()) or the channel's end (shutdown) ends the writer: dropping
        // stdin closes it.
        tokio::spawn(write_lines(out_rx, stdin));
        let c2 = client.clone();
        let stderr_task = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(target: "codex_client::server_stderr", "{line}");
                let mut tail = c2.stderr_tail.lock().unwrap();
                tail.push_str(&line);
                tail.push('\n');
                if tail.len() > 8192 {
                    let cut = tail.len() - 8192;
                    let cut = (cut..tail.len())
                        .find(|i| tail.is_char_boundary(*i))
                        .unwrap_or(0);
                    tail.drain(..cut);
                }
            }
        });
        let c3 = client.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            let reason = loop {
                match lines.next_line().await {
                    Ok(Some(line)) => handle_server_line(&c3, &conn, &line),
                    Ok(None) => break "codex mcp-server closed its output".to_owned(),
                    Err(e) => break format!("reading from codex mcp-server failed: {e}"),
                }
            };
            // The last stderr lines usually say why.
            let _ = tokio::time::timeout(Duration::from_millis(300), stderr_task).await;
            c3.close(reason);
        });
        Ok(Inner { client, child })
    }

    async fn do_initialize(self: Arc<Self>, conn: Arc<ShimConn>) -> Result<Value, RpcError> {
        // The whole handshake must fail before the engine's own timeout of `initialize`, so
        // that the client sees why.
        let deadline = tokio::time::Instant::now() + self.opts.default_timeout.mul_f64(0.75);
        let Inner { client, child } = self.spawn(conn)?;
        *self.child.lock().await = Some(child);
        *self.inner.lock().unwrap() = Some(client.clone());
        let answer = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": OFFERED_VERSION,
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {
                        "name": self.opts.client_name,
                        "title": self.opts.client_title,
                        "version": self.opts.client_version,
                    },
                }),
                deadline,
            )
            .await;
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                self.stop_later();
                return Err(err(e.code, format!("MCP initialize failed: {}", e.message)));
            }
        };
        let version = answer["protocolVersion"].as_str().unwrap_or("").to_owned();
        if !SUPPORTED_VERSIONS.contains(&version.as_str()) {
            self.stop_later();
            return Err(RpcError {
                code: -32603,
                message: format!(
                    "codex mcp-server answered MCP protocol version {version:?}, which this client \
                     does not support (supported: {}); disconnected",
                    SUPPORTED_VERSIONS.join(", ")
                ),
                data: Some(json!({"mcpProtocolVersion": version})),
            });
        }
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let tools = match client.request("tools/list", json!({}), deadline).await {
            Ok(t) => t,
            Err(e) => {
                self.stop_later();
                return Err(err(e.code, format!("MCP tools/list failed: {}", e.message)));
            }
        };
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default();
        if !names.contains(&"codex") {
            self.stop_later();
            return Err(err(
                -32603,
                format!("codex mcp-server offers no `codex` tool (tools: {names:?})"),
            ));
        }
        let info = &answer["serverInfo"];
        let user_agent = info["user_agent"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| {
                format!(
                    "{}/{}",
                    info["name"].as_str().unwrap_or("codex-mcp-server"),
                    info["version"].as_str().unwrap_or("unknown")
                )
            });
        Ok(json!({
            "userAgent": user_agent,
            "codexHome": self.opts.codex_home.as_ref().map(|p| p.display().to_string()),
            "platformFamily": if cfg!(unix) { "unix" } else { "windows" },
            "platformOs": std::env::consts::OS,
            "mcp": {
                "protocolVersion": version,
                "serverInfo": answer["serverInfo"],
                "capabilities": answer["capabilities"],
                "tools": names,
            },
        }))
    }

    /// Stop the server in the background (the handshake failed; its error goes out now).
    fn stop_later(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move { me.stop().await });
    }

    async fn stop(&self) {
        let client = self.inner.lock().unwrap().take();
        if let Some(c) = &client {
            c.close("disconnected by the client".into());
            // An empty line tells the writer to close the server's stdin.
            let _ = c.out.send(Vec::new());
        }
        drop(client);
        // The lock is held while the child stops, so a concurrent `stop` (the background one
        // after a failed handshake, and the shutdown one) returns only once it is gone.
        let mut child = self.child.lock().await;
        if let Some(mut c) = child.take() {
            let pid = c.id();
            process::stop(&mut c, pid, process::EXIT_GRACE).await;
        }
    }

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

    fn thread_start(&self, params: &Value) -> Result<Value, RpcError> {
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

    fn thread_resume(&self, params: &Value) -> Result<Value, RpcError> {
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

    fn thread_read(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params["threadId"]
            .as_str()
            .ok_or_else(|| err(-32602, "thread/read needs `threadId`"))?;
        let threads = self.threads.lock().unwrap();
        let rec = threads
            .get(id)
            .ok_or_else(|| err(-32600, format!("thread not found: {id}")))?;
        Ok(json!({"thread": self.thread_json(id, rec)}))
    }

    async fn turn_interrupt(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params["threadId"]
            .as_str()
            .ok_or_else(|| err(-32602, "turn/interrupt needs `threadId`"))?;
        let active = {
            let threads = self.threads.lock().unwrap();
            let rec = threads
                .get(id)
                .ok_or_else(|| err(-32600, format!("thread not found: {id}")))?;
            rec.active.clone()
        };
        let Some((turn_id, call_id, signal)) = active else {
            return Err(err(-32600, format!("no active turn on thread {id}")));
        };
        if let Some(want) = params["turnId"].as_str() {
            if want != turn_id {
                return Err(err(
                    -32600,
                    format!("turn {want} is not the active turn ({turn_id})"),
                ));
            }
        }
        let client = self.client()?;
        client.cancel(call_id, "interrupted by the client");
        signal.notify_one();
        Ok(json!({}))
    }

    fn turn_start(self: &Arc<Self>, conn: Arc<ShimConn>, params: Value) -> Result<Value, RpcError> {
        let thread_id = params["threadId"]
            .as_str()
            .ok_or_else(|| err(-32602, "turn/start needs `threadId`"))?
            .to_owned();
        let prompt = prompt_of(&params)?;
        reject_unknown(
            "turn/start",
            &params,
            &[["threadId", "input"].as_slice(), &TURN_SETTINGS].concat(),
        )?;
        let client = self.client()?;
        let call_id = client.alloc_id();
        let signal = Arc::new(Notify::new());
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let turn_id = format!("mcp-turn-{n}");
        let (tool, args) = {
            let mut threads = self.threads.lock().unwrap();
            let rec = threads
                .get_mut(&thread_id)
                .ok_or_else(|| err(-32600, format!("thread not found: {thread_id}")))?;
            if rec.active.is_some() {
                return Err(err(
                    -32600,
                    format!("a turn is already running on thread {thread_id}"),
                ));
            }
            let (tool, args) = match &rec.real_id {
                None => {
                    let mut args = rec.args.clone();
                    apply_settings(&mut args, &params, &Default::default())?;
                    args.insert("prompt".into(), Value::String(prompt));
                    ("codex", args)
                }
                Some(real) => {
                    for k in TURN_SETTINGS {
                        if params.get(k).is_some_and(|v| !v.is_null()) {
                            return Err(RpcError::unsupported(
                                TRANSPORT,
                                &format!("turn/start `{k}` after a thread's first turn"),
                            ));
                        }
                    }
                    let mut args = Map::new();
                    args.insert("prompt".into(), Value::String(prompt));
                    args.insert("threadId".into(), Value::String(real.clone()));
                    ("codex-reply", args)
                }
            };
            rec.active = Some((turn_id.clone(), call_id, signal.clone()));
            (tool, args)
        };
        let (tx, rx) = mpsc::unbounded_channel();
        client.calls.lock().unwrap().insert(call_id, tx);
        client
            .call_ctx
            .lock()
            .unwrap()
            .insert(call_id, (thread_id.clone(), turn_id.clone()));
        let started = now_ms() as i64;
        let turn = json!({"id": turn_id, "items": [], "status": "inProgress", "error": null,
            "startedAt": started / 1000, "completedAt": null, "durationMs": null});
        let me = self.clone();
        let run = TurnRun {
            shim: me,
            conn,
            client,
            thread_id,
            turn_id,
            call_id,
            started_ms: started,
            agent_message_seen: false,
            error: None,
        };
        tokio::spawn(run.run(tool, Value::Object(args), rx, signal));
        Ok(json!({"turn": turn}))
    }
}

/// Copy thread/turn settings (`model`, `cwd`, `approvalPolicy`, `sandbox`/`sandboxPolicy`,
/// `config`) into `codex` tool arguments; `opts` config overrides go first.
fn apply_settings(
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
fn reject_unknown(method: &str, params: &Value, known: &[&str]) -> Result<(), RpcError> {
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

/// The prompt of a `turn/start`: its text inputs joined by newlines.
fn prompt_of(params: &Value) -> Result<String, RpcError> {
    let items = params["input"]
        .as_array()
        .ok_or_else(|| err(-32602, "turn/start needs `input`"))?;
    let mut parts = Vec::new();
    for it in items {
        match it["type"].as_str() {
            Some("text") => parts.push(it["text"].as_str().unwrap_or("").to_owned()),
            Some(other) => {
                return Err(RpcError::unsupported(
                    TRANSPORT,
                    &format!("turn/start input {other}"),
                ))
            }
            None => return Err(err(-32602, "input item without `type`")),
        }
    }
    Ok(parts.join("\n"))
}

/// One line from the server.
fn handle_server_line(client: &Arc<McpClient>, conn: &Arc<ShimConn>, line: &str) {
    let Ok(msg) = serde_json::from_str::<Value>(line) else {
        tracing::debug!("malformed line from codex mcp-server: {line}");
        return;
    };
    let method = msg.get("method").and_then(Value::as_str);
    let id = msg.get("id").filter(|v| !v.is_null()).cloned();
    match (method, id) {
        (None, Some(id)) => {
            let Some(n) = id.as_i64() else { return };
            let Some(tx) = client.pending.lock().unwrap().remove(&n) else {
                return;
            };
            let _ = tx.send(response_outcome(&msg));
        }
        (Some("ping"), Some(id)) => {
            client.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}}));
        }
        (Some("elicitation/create"), Some(id)) => {
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            tokio::spawn(answer_elicitation(client.clone(), conn.clone(), id, params));
        }
        (Some(m), Some(id)) => {
            client.send(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("method not found: {m}")}}));
        }
        (Some("codex/event"), None) => {
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            let msg_ty = params["msg"]["type"].as_str().unwrap_or("");
            if msg_ty == "exec_approval_request" || msg_ty == "apply_patch_approval_request" {
                if let Some(cid) = params["msg"]["call_id"].as_str() {
                    client
                        .approval_events
                        .lock()
                        .unwrap()
                        .insert(cid.to_owned(), params["msg"].clone());
                }
            }
            let req = params["_meta"]["requestId"].as_i64();
            let sub = {
                let calls = client.calls.lock().unwrap();
                req.and_then(|r| calls.get(&r).cloned()).or_else(|| {
                    let real = params["_meta"]["threadId"].as_str()?;
                    let r = *client.by_thread.lock().unwrap().get(real)?;
                    calls.get(&r).cloned()
                })
            };
            match sub {
                Some(tx) => {
                    let _ = tx.send(CallMsg::Event(params));
                }
                None => {
                    // An event of no running call: passed on raw, never dropped.
                    let ty = if msg_ty.is_empty() { "unknown" } else { msg_ty };
                    conn.notify(&format!("codex/event/{ty}"), params);
                }
            }
        }
        (Some(_), None) => {} // other notifications (logging, list changes) need nothing
        (None, None) => {}
    }
}

/// Map an `elicitation/create` (exec or patch approval) to an app-server approval request and
/// the client's decision back. Anything but an explicit accept denies.
async fn answer_elicitation(client: Arc<McpClient>, conn: Arc<ShimConn>, id: Value, params: Value) {
    let kind = params["codex_elicitation"].as_str().unwrap_or("");
    let call_req: Option<i64> = params["codex_mcp_tool_call_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .or_else(|| params["codex_mcp_tool_call_id"].as_i64());
    let ctx = call_req.and_then(|r| client.call_ctx.lock().unwrap().get(&r).cloned());
    let item_id = params["codex_call_id"].as_str().unwrap_or("").to_owned();
    let event = client
        .approval_events
        .lock()
        .unwrap()
        .remove(&item_id)
        .unwrap_or(Value::Null);
    let (thread_id, turn_id) = ctx.unwrap_or_else(|| {
        (
            params["threadId"].as_str().unwrap_or("").to_owned(),
            String::new(),
        )
    });
    let request = match kind {
        "exec-approval" => {
            let command = argv_string(&params["codex_command"]);
            Some((
                "item/commandExecution/requestApproval",
                json!({
                    "threadId": thread_id,
                    "turnId": turn_id,
                    "itemId": item_id,
                    "command": command,
                    "cwd": params["codex_cwd"],
                    "reason": event.get("reason").cloned().unwrap_or(Value::Null),
                    "proposedExecpolicyAmendment": event.get("proposed_execpolicy_amendment").cloned().unwrap_or(Value::Null),
                    "startedAtMs": now_ms(),
                    "mcpElicitation": params,
                }),
            ))
        }
        "patch-approval" => Some((
            "item/fileChange/requestApproval",
            json!({
                "threadId": thread_id,
                "turnId": turn_id,
                "itemId": item_id,
                "reason": params.get("codex_reason").cloned().or_else(|| event.get("reason").cloned()).unwrap_or(Value::Null),
                "grantRoot": params.get("codex_grant_root").cloned().unwrap_or(Value::Null),
                "startedAtMs": now_ms(),
                "mcpElicitation": params,
            }),
        )),
        _ => None,
    };
    let decision = match request {
        None => {
            // An elicitation this shim does not know: declined (fail closed).
            client.send(&json!({"jsonrpc": "2.0", "id": id,
                "result": {"action": "decline", "decision": "denied"}}));
            return;
        }
        Some((method, p)) => map_decision(conn.request(method, p).await),
    };
    let action = if decision == "approved" || decision == "approved_for_session" {
        "accept"
    } else {
        "decline"
    };
    client.send(&json!({"jsonrpc": "2.0", "id": id,
        "result": {"action": action, "decision": decision}}));
}

/// The 0.92.0 review decision for the client's approval answer.
fn map_decision(answer: Result<Value, RpcError>) -> &'static str {
    let Ok(v) = answer else { return "denied" };
    match &v["decision"] {
        Value::String(s) => match s.as_str() {
            "accept" => "approved",
            "acceptForSession" => "approved_for_session",
            "cancel" => "abort",
            _ => "denied",
        },
        // `acceptWithExecpolicyAmendment`: approved once; the amendment is not forwarded.
        Value::Object(o) if o.contains_key("acceptWithExecpolicyAmendment") => "approved",
        _ => "denied",
    }
}

/// A JSON argv array as one shell-quoted command line (empty when it is not an array).
fn argv_string(argv: &Value) -> String {
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

/// One running turn: the `tools/call` and the translation of its events.
struct TurnRun {
    shim: Arc<McpShim>,
    conn: Arc<ShimConn>,
    client: Arc<McpClient>,
    thread_id: String,
    turn_id: String,
    call_id: i64,
    started_ms: i64,
    agent_message_seen: bool,
    error: Option<Value>,
}

/// How an event ends the turn.
enum Ending {
    /// `turn_aborted`.
    Aborted,
    /// `task_complete` with its `last_agent_message`.
    Complete(Option<String>),
}

enum End {
    Result(Result<Value, RpcError>),
    /// `task_complete` (the call's result, if it still comes, adds nothing).
    Complete(Option<String>),
    Aborted,
    Closed,
}

impl TurnRun {
    fn ids(&self) -> (Value, Value) {
        (json!(self.thread_id), json!(self.turn_id))
    }

    fn set_real_id(&self, real: &str) {
        if real.is_empty() {
            return;
        }
        if let Some(rec) = self.shim.threads.lock().unwrap().get_mut(&self.thread_id) {
            if rec.real_id.is_none() {
                rec.real_id = Some(real.to_owned());
            }
        }
        self.client
            .by_thread
            .lock()
            .unwrap()
            .insert(real.to_owned(), self.call_id);
    }

    async fn run(
        mut self,
        tool: &'static str,
        args: Value,
        mut events: mpsc::UnboundedReceiver<CallMsg>,
        interrupt: Arc<Notify>,
    ) {
        let (tid, turn) = self.ids();
        self.conn.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": "active", "activeFlags": []}}),
        );
        self.conn.notify(
            "turn/started",
            json!({"threadId": tid, "turn": {"id": turn, "items": [], "status": "inProgress",
                "error": null, "startedAt": self.started_ms / 1000}}),
        );
        let client = self.client.clone();
        let call_id = self.call_id;
        if tool == "codex-reply" {
            if let Some(real) = args["threadId"].as_str() {
                self.set_real_id(real);
            }
        }
        let call = client.request_with_id(
            call_id,
            "tools/call",
            json!({"name": tool, "arguments": args}),
            None,
        );
        tokio::pin!(call);
        let mut interrupted = false;
        let mut deadline: Option<tokio::time::Instant> = None;
        let end = loop {
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                ev = events.recv() => match ev {
                    Some(CallMsg::Event(p)) => match self.translate(p) {
                        Some(Ending::Aborted) => break End::Aborted,
                        Some(Ending::Complete(last)) => break End::Complete(last),
                        None => {}
                    },
                    Some(CallMsg::Closed) => break End::Closed,
                    None => break End::Closed,
                },
                r = &mut call => {
                    // Events sent before the result are already queued: handle them first.
                    while let Ok(CallMsg::Event(p)) = events.try_recv() {
                        self.translate(p);
                    }
                    break End::Result(r);
                }
                _ = interrupt.notified(), if !interrupted => {
                    interrupted = true;
                    deadline = Some(tokio::time::Instant::now() + ABORT_GRACE);
                }
                _ = sleep => break End::Aborted,
            }
        };
        client.calls.lock().unwrap().remove(&call_id);
        client
            .by_thread
            .lock()
            .unwrap()
            .retain(|_, c| *c != call_id);
        client.call_ctx.lock().unwrap().remove(&call_id);
        client.pending.lock().unwrap().remove(&call_id);
        let status = match end {
            End::Aborted => "interrupted",
            End::Closed => {
                self.error = Some(json!({"message": self.client.closed_error().message}));
                "failed"
            }
            End::Result(Err(e)) => {
                if interrupted {
                    "interrupted"
                } else {
                    self.error = Some(json!({"message": e.message, "code": e.code}));
                    "failed"
                }
            }
            End::Result(Ok(v)) => self.absorb_result(&v),
            End::Complete(last) => {
                let text = last.unwrap_or_default();
                self.absorb_result(&json!({"content": [{"type": "text", "text": text}]}))
            }
        };
        if let Some(rec) = self.shim.threads.lock().unwrap().get_mut(&self.thread_id) {
            rec.active = None;
        }
        let real = self
            .shim
            .threads
            .lock()
            .unwrap()
            .get(&self.thread_id)
            .and_then(|r| r.real_id.clone());
        let now = now_ms() as i64;
        let (tid, turn) = self.ids();
        self.conn.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": "idle"}}),
        );
        self.conn.notify(
            "turn/completed",
            json!({"threadId": tid, "mcpThreadId": real, "turn": {
                "id": turn, "items": [], "status": status, "error": self.error,
                "startedAt": self.started_ms / 1000, "completedAt": now / 1000,
                "durationMs": now - self.started_ms,
            }}),
        );
    }

    /// Fold the final `tools/call` result in (whatever its advertised schema says). Returns
    /// the turn status.
    fn absorb_result(&mut self, v: &Value) -> &'static str {
        if let Some(real) = v["structuredContent"]["threadId"].as_str() {
            self.set_real_id(real);
        }
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
    fn translate(&mut self, params: Value) -> Option<Ending> {
        if let Some(real) = params["_meta"]["threadId"].as_str() {
            self.set_real_id(real);
        }
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
            "session_configured" => {
                if let Some(s) = msg["session_id"].as_str() {
                    self.set_real_id(s);
                }
                self.raw(&ty, params);
            }
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

impl Shim for McpShim {
    fn initialize(self: Arc<Self>, conn: Arc<ShimConn>, _params: Value) -> ShimFuture {
        Box::pin(self.do_initialize(conn))
    }

    fn handle(self: Arc<Self>, conn: Arc<ShimConn>, method: String, params: Value) -> ShimFuture {
        Box::pin(async move {
            // A dead server fails every request with the reason (and its stderr tail).
            if let Ok(c) = self.client() {
                if c.closed.load(Ordering::Acquire) {
                    return Err(c.closed_error());
                }
            }
            match method.as_str() {
                "thread/start" => self.thread_start(&params),
                "thread/resume" => self.thread_resume(&params),
                "thread/read" => self.thread_read(&params),
                "turn/start" => self.turn_start(conn, params),
                "turn/interrupt" => self.turn_interrupt(&params).await,
                _ => Err(RpcError::unsupported(TRANSPORT, &method)),
            }
        })
    }

    fn shutdown(
        self: Arc<Self>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            // Running calls are cancelled before the server goes away.
            if let Ok(c) = self.client() {
                let ids: Vec<i64> = c.pending.lock().unwrap().keys().copied().collect();
                for id in ids {
                    c.cancel(id, "client disconnected");
                }
            }
            self.stop().await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_fail_closed() {
        assert_eq!(map_decision(Ok(json!({"decision": "accept"}))), "approved");
        assert_eq!(
            map_decision(Ok(json!({"decision": "acceptForSession"}))),
            "approved_for_session"
        );
        assert_eq!(map_decision(Ok(json!({"decision": "decline"}))), "denied");
        assert_eq!(map_decision(Ok(json!({"decision": "cancel"}))), "abort");
        assert_eq!(map_decision(Ok(json!({"decision": "yes"}))), "denied");
        assert_eq!(map_decision(Ok(json!({}))), "denied");
        assert_eq!(map_decision(Ok(Value::Null)), "denied");
        assert_eq!(map_decision(Err(err(-1, "boom"))), "denied");
    }

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
    fn prompt_joins_text_and_rejects_images() {
        let p = json!({"input": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(prompt_of(&p).unwrap(), "a\nb");
        let p = json!({"input": [{"type": "image", "url": "x"}]});
        assert!(prompt_of(&p).unwrap_err().data.is_some());
    }
}
