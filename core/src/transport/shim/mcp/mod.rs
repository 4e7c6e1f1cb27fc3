//! The codex-mcp-server transport shim: serves the app-server protocol to the engine on top
//! of `codex mcp-server` (Codex 0.92.0 and older). It drives the server with transport-level
//! parts only ([`link`]: the process, line framing, its own small pending table, the MCP
//! handshake of the `initialize` era), so it is a transport like the exec shim and the
//! transport layer builds it itself ([`for_transport`](super::for_transport)).
//!
//! Files: `mod.rs` (the shim: handshake, dispatch, stop), `link.rs` (the MCP connection:
//! process, handshake, requests), `route.rs` (what the server sends), `threads.rs`, `turn.rs`, `events.rs` (`codex/event`
//! → turn notifications), `approvals.rs` (elicitation → approval requests).
//!
//! * `initialize` starts `codex [-c k=v]... mcp-server [args]...` (the client's binary, env,
//!   `CODEX_HOME` and cwd) and runs the MCP handshake, offering
//!   [`OFFERED_VERSION`](crate::mcp::OFFERED_VERSION) with capabilities `{elicitation: {}}`; an
//!   answer outside [`SUPPORTED_VERSIONS`](crate::mcp::SUPPORTED_VERSIONS) fails the connect
//!   before `notifications/initialized`. Then `tools/list` must show the `codex` tool. The
//!   handshake and `tools/list` together get 3/4 of `default_timeout`; a request that times
//!   out is cancelled with `notifications/cancelled`.
//! * `thread/start` creates a local thread record (id `mcp-thread-N`). Its first `turn/start`
//!   calls tool `codex` (prompt, approval-policy, sandbox, cwd, model, config, profile,
//!   compact-prompt, base- and developer-instructions); later turns
//!   call `codex-reply` with the Codex `threadId` learnt from the first call (from `codex/event`
//!   `_meta.threadId`, `session_configured` or the result's `structuredContent.threadId`).
//!   `thread/read` and `turn/completed` show the Codex id as `mcpThreadId`; `thread/resume`
//!   accepts the local or the Codex id of a thread of this connection. 0.92.0's `codex-reply`
//!   only knows sessions alive in its process ("Session not found for thread_id") and the
//!   `codex` tool cannot load a rollout, so resuming a thread of another connection is an
//!   "unsupported" error. Thread/turn params the tool cannot take are "unsupported" errors,
//!   as are per-turn overrides after the first turn (`codex-reply` takes only a prompt).
//! * The tool's `profile` (a `[profiles.NAME]` of `config.toml`) and `compact-prompt` are set
//!   by the `thread/start` (or first `turn/start`) params `profile` and `compactPrompt`, which
//!   the app-server protocol does not have, or by the `config` keys `profile` and
//!   `compact_prompt` (those settings' names in `config.toml`); the params win.
//! * `ClientOptions::config_overrides` go both to the command line (`-c`) and into the
//!   `codex` tool's `config` argument: 0.92.0 does not apply `-c` to tool sessions.
//! * 0.92.0 facts worth knowing: without `OPENAI_BASE_URL` pointing somewhere local it
//!   fetches `https://chatgpt.com/backend-api/codex/models` at start-up; for an unknown model
//!   it offers the `shell` tool unless `features.unified_exec` is on (then `exec_command`).
//! * `codex/event` notifications of a call become `turn/started`, `item/started`,
//!   `item/agentMessage/delta`, `item/completed`, `thread/tokenUsage/updated` and
//!   `turn/completed`; every event type that is not translated is passed on unchanged as
//!   `codex/event/<type>` (params: the full `codex/event` params plus `threadId`/`turnId`).
//! * Every other notification of the server is forwarded, never dropped: `notifications/<x>`
//!   as `mcp/<x>` with the MCP params (`mcp/message`: the server's log records, which the
//!   shim also logs through `tracing`, target `codex_client::mcp_server_log`; `mcp/progress`: progress of a turn's `tools/call`,
//!   whose progress token is the turn id, gets that turn's `threadId`/`turnId` so its stream
//!   sees it), any other method under its own name. 0.92.0 itself sends neither log records
//!   nor progress (it advertises no `logging` capability, never answers `logging/setLevel`,
//!   ignores the progress token); other servers behind the same command line may.
//! * `elicitation/create` requests (exec and patch approvals) become
//!   `item/commandExecution/requestApproval` / `item/fileChange/requestApproval`; the answer
//!   is mapped to 0.92.0's review decisions; anything but an explicit accept is a denial.
//!   The server's `ping` is answered; other server requests are refused (fail closed).
//! * `turn/interrupt` gives the `tools/call` up, which sends `notifications/cancelled`; Codex
//!   then ends the task with `turn_aborted` (and never answers the call) and the turn
//!   completes as `interrupted`.

mod approvals;
mod events;
mod link;
mod route;
mod threads;
mod turn;

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

use crate::error::{Error, Result, RpcError};
use crate::options::ClientOptions;
use crate::transport::shim::{Shim, ShimConn, ShimFuture};
use link::Link;

const TRANSPORT: &str = "mcp";

fn err(code: i64, message: impl Into<String>) -> RpcError {
    RpcError {
        code,
        message: message.into(),
        data: None,
    }
}

/// A failure of the MCP connection as the answer to an engine request: a server's JSON-RPC
/// error keeps its code.
fn failed(what: &str, e: Error) -> RpcError {
    match e {
        Error::Rpc(r) => err(r.code, format!("{what} failed: {}", r.message)),
        other => err(-32603, format!("{what} failed: {other}")),
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
    /// The running turn: its id and interrupt signal.
    active: Option<(String, Arc<Notify>)>,
}

/// Shim of the codex-mcp-server transport.
pub(crate) struct McpShim {
    opts: ClientOptions,
    link: Mutex<Option<Arc<Link>>>,
    /// The engine has gone: a server started after that is stopped at once.
    down: AtomicBool,
    /// Held while the server stops, so that a second `stop` returns only once it is gone.
    stopping: tokio::sync::Mutex<()>,
    threads: Mutex<HashMap<String, ThreadRec>>,
    counter: AtomicU64,
}

impl McpShim {
    /// The shim for a client's options (the server starts at `initialize`).
    pub(crate) fn create(opts: &ClientOptions) -> Result<Arc<dyn Shim>> {
        Ok(Arc::new(McpShim {
            opts: opts.clone(),
            link: Mutex::new(None),
            down: AtomicBool::new(false),
            stopping: tokio::sync::Mutex::new(()),
            threads: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(1),
        }))
    }

    fn link(&self) -> Result<Arc<Link>, RpcError> {
        self.link
            .lock()
            .unwrap()
            .clone()
            .ok_or_else(|| err(-32603, "codex mcp-server is not running"))
    }

    async fn do_initialize(self: Arc<Self>, conn: Arc<ShimConn>) -> Result<Value, RpcError> {
        // The whole handshake must fail before the engine's own timeout of `initialize`, so
        // that the client sees why.
        let budget = self.opts.default_timeout.mul_f64(0.75);
        let deadline = tokio::time::Instant::now() + budget;
        let link = Link::spawn(&self.opts, conn).map_err(|e| failed("MCP initialize", e))?;
        *self.link.lock().unwrap() = Some(link.clone());
        if self.down.load(Ordering::SeqCst) {
            // The engine went away while the server started: `shutdown` saw no link.
            self.stop().await;
            return Err(err(-32603, "the client disconnected"));
        }
        let handshake = tokio::time::timeout(budget, link.handshake(&self.opts)).await;
        let init = match handshake.unwrap_or_else(|_| {
            Err(Error::Timeout {
                method: "initialize".into(),
                after: budget,
            })
        }) {
            Ok(init) => init,
            Err(e) => {
                // A connect that fails stops its server before it answers.
                self.stop().await;
                return Err(failed("MCP initialize", e));
            }
        };
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let tools = match link.request("tools/list", json!({}), left).await {
            Ok(t) => t,
            Err(e) => {
                self.stop_later();
                return Err(failed("MCP tools/list", e));
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
        let info = &init["serverInfo"];
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
                "protocolVersion": init["protocolVersion"],
                "serverInfo": info,
                "capabilities": init.get("capabilities"),
                "tools": names,
            },
        }))
    }

    /// Stop the server in the background (the handshake failed; its error goes out now).
    fn stop_later(self: &Arc<Self>) {
        let me = self.clone();
        crate::rt::spawn(async move { me.stop().await });
    }

    async fn stop(&self) {
        let _serial = self.stopping.lock().await;
        let link = self.link.lock().unwrap().take();
        if let Some(link) = link {
            link.disconnect().await;
        }
    }
}

impl Shim for McpShim {
    fn initialize(self: Arc<Self>, conn: Arc<ShimConn>, _params: Value) -> ShimFuture {
        Box::pin(self.do_initialize(conn))
    }

    fn handle(self: Arc<Self>, conn: Arc<ShimConn>, method: String, params: Value) -> ShimFuture {
        Box::pin(async move {
            // A dead server fails every request with the reason (and its stderr tail).
            if let Some(e) = self.link().ok().and_then(|l| l.closed_error()) {
                return Err(err(-32603, e.to_string()));
            }
            match method.as_str() {
                "thread/start" => self.thread_start(&params),
                "thread/resume" => self.thread_resume(&params),
                "thread/read" => self.thread_read(&params),
                "turn/start" => self.turn_start(conn, params),
                "turn/interrupt" => self.turn_interrupt(&params),
                _ => Err(RpcError::unsupported(TRANSPORT, &method)),
            }
        })
    }

    fn shutdown(
        self: Arc<Self>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            self.down.store(true, Ordering::SeqCst);
            // Running calls are cancelled before the server goes away.
            if let Ok(link) = self.link() {
                link.cancel_all();
            }
            self.stop().await;
        })
    }
}
