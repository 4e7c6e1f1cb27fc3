//! The shim's connection to `codex mcp-server`, on transport-level parts only: the process
//! ([`process`]: `codex [-c k=v]... mcp-server [args]...` in its own process group, the
//! stderr tail), newline framing ([`read_line`], the shim's line writer), a small pending
//! table of its own requests, and the MCP handshake of the `initialize` era (params and
//! version check from [`crate::protocol::mcp`]).
//!
//! One reader task hands what the server sends, in order, to the routing ([`super::route`]).

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::{DisconnectInfo, Error, Result};
use crate::options::ClientOptions;
use crate::protocol::mcp;
use crate::transport::lines::{read_line, LineRead};
use crate::transport::process::{self, EXIT_GRACE};
use crate::transport::shim::{write_lines, ShimConn};
use crate::transport::stderr::StderrTail;

/// The answer to one of the link's requests (the sender is dropped when the request is
/// given up).
pub(super) type Outcome = oneshot::Receiver<Result<Value>>;

/// Requests awaiting their answer, and why the connection ended once it has.
#[derive(Default)]
struct Pending {
    map: HashMap<i64, oneshot::Sender<Result<Value>>>,
    closed: Option<Error>,
}

/// The MCP connection and what routes its messages.
pub(super) struct Link {
    /// Lines to the server's stdin (`None` once it is being closed).
    out: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    next_id: AtomicI64,
    pending: Mutex<Pending>,
    /// The server process until it is stopped, and its process (group) id.
    child: tokio::sync::Mutex<Option<Child>>,
    pid: Option<u32>,
    stderr: Arc<StderrTail>,
    /// The writer, reader and stderr tasks, awaited (bounded) at disconnect.
    tasks: Mutex<Tasks>,
    /// The running `tools/call`s by request id.
    calls: Mutex<HashMap<i64, Call>>,
    /// The last approval event (`exec_approval_request`, `apply_patch_approval_request`) by
    /// call id, for the reason shown in the approval request.
    approval_events: Mutex<HashMap<String, Value>>,
    /// The running call of each Codex thread (real id → request id). 0.92.0 keeps the
    /// event forwarder of an interrupted call alive, so later events of the thread can arrive
    /// under the old request id: they are routed by thread to the call now running.
    by_thread: Mutex<HashMap<String, i64>>,
}

#[derive(Default)]
struct Tasks {
    writer: Option<JoinHandle<()>>,
    reader: Option<JoinHandle<()>>,
    stderr: Option<JoinHandle<()>>,
}

/// A running `tools/call`.
pub(super) struct Call {
    /// Where its `codex/event`s go.
    pub(super) events: mpsc::UnboundedSender<Value>,
    /// Its turn (for elicitations and progress): (local thread id, turn id).
    pub(super) turn: (String, String),
}

impl Link {
    /// Start `codex [-c k=v]... mcp-server [args]...` with the client's process settings;
    /// what it sends goes to `conn` or to the turns from now on. The handshake is
    /// [`handshake`](Self::handshake).
    pub(super) fn spawn(opts: &ClientOptions, conn: Arc<ShimConn>) -> Result<Arc<Link>> {
        let line = process::codex_command_line(opts, "mcp-server")?;
        let p = process::spawn_command(process::mcp_command(opts, &line))?;
        let stderr = Arc::new(StderrTail::new(opts.stderr_tail_bytes));
        let (out, out_rx) = mpsc::unbounded_channel();
        let link = Arc::new(Link {
            out: Mutex::new(Some(out)),
            next_id: AtomicI64::new(0),
            pending: Mutex::new(Pending::default()),
            pid: p.child.id(),
            child: tokio::sync::Mutex::new(Some(p.child)),
            stderr: stderr.clone(),
            tasks: Mutex::new(Tasks::default()),
            calls: Mutex::new(HashMap::new()),
            approval_events: Mutex::new(HashMap::new()),
            by_thread: Mutex::new(HashMap::new()),
        });
        let err = p.stderr;
        let mut tasks = link.tasks.lock().unwrap();
        tasks.writer = Some(crate::rt::spawn(write_lines(out_rx, p.stdin)));
        tasks.stderr = Some(crate::rt::spawn(async move { stderr.collect(err).await }));
        // Last, and with the others in place: at its end it waits for the stderr task.
        let reader = link.clone().read_all(p.stdout, conn, opts.max_line_bytes);
        tasks.reader = Some(crate::rt::spawn(reader));
        drop(tasks);
        Ok(link)
    }

    /// The MCP handshake: `initialize` offering [`mcp::OFFERED_VERSION`] with capabilities
    /// `{elicitation: {}}`; an answer outside [`mcp::SUPPORTED_VERSIONS`] fails before
    /// `notifications/initialized` is sent. The server's `initialize` result.
    pub(super) async fn handshake(&self, opts: &ClientOptions) -> Result<Value> {
        let mut info = Map::new();
        info.insert("name".into(), json!(opts.client_name));
        if let Some(t) = &opts.client_title {
            info.insert("title".into(), json!(t));
        }
        info.insert("version".into(), json!(opts.client_version));
        let params = mcp::initialize_params(info, Some(json!({"elicitation": {}})), false);
        let (_, answer) = self.send_request("initialize", &params)?;
        let result = self.outcome(answer).await?;
        mcp::check_initialize(&result)?;
        self.send(json!({"method": "notifications/initialized"}));
        Ok(result)
    }

    /// A request with a timeout; one that times out is cancelled (`notifications/cancelled`).
    pub(super) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let (id, answer) = self.send_request(method, &params)?;
        match tokio::time::timeout(timeout, self.outcome(answer)).await {
            Ok(r) => r,
            Err(_) => {
                self.cancel_with(id, "timed out");
                Err(Error::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                })
            }
        }
    }

    /// Send a `tools/call` for turn `turn` of local thread `thread`, with no time limit: its
    /// `codex/event`s go to `events`. Its request id and outcome.
    pub(super) fn start_call(
        &self,
        params: &Value,
        thread: &str,
        turn: &str,
        events: mpsc::UnboundedSender<Value>,
    ) -> Result<(i64, Outcome)> {
        // Held while the call is sent, so that its first events find it registered.
        let mut calls = self.calls.lock().unwrap();
        let (id, outcome) = self.send_request("tools/call", params)?;
        let turn = (thread.to_owned(), turn.to_owned());
        calls.insert(id, Call { events, turn });
        Ok((id, outcome))
    }

    /// The call ended: its events go nowhere now (the server may still answer it).
    pub(super) fn end_call(&self, id: i64) {
        self.calls.lock().unwrap().remove(&id);
        self.by_thread.lock().unwrap().retain(|_, c| *c != id);
    }

    /// Give call `id` up: the server gets `notifications/cancelled` and the call's outcome
    /// ends without a result.
    pub(super) fn cancel(&self, id: i64) {
        self.cancel_with(id, "the client stopped waiting for the request");
    }

    /// Give every running call up.
    pub(super) fn cancel_all(&self) {
        let ids: Vec<i64> = self.calls.lock().unwrap().keys().copied().collect();
        for id in ids {
            self.cancel(id);
        }
    }

    /// Events of Codex thread `real` that name no running call go to call `id`.
    pub(super) fn route_thread(&self, real: &str, id: i64) {
        self.by_thread.lock().unwrap().insert(real.to_owned(), id);
    }

    /// Why the connection ended, once it has.
    pub(super) fn closed_error(&self) -> Option<Error> {
        self.pending.lock().unwrap().closed.clone()
    }

    /// Stop the server gracefully: queued lines go out first, then stdin closes and the
    /// process gets [`EXIT_GRACE`] to exit before its process group is killed. Every task of
    /// the link has ended (or was aborted) when this returns.
    pub(super) async fn disconnect(&self) {
        drop(self.out.lock().unwrap().take());
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap());
        join_within(tasks.writer).await;
        let child = self.child.lock().await.take();
        if let Some(mut child) = child {
            let how = process::stop(&mut child, self.pid, EXIT_GRACE).await;
            let how = how.replace("server process", "codex mcp-server");
            self.close(Error::Disconnected(DisconnectInfo::new(
                format!("{how} (stopped by the client)"),
                self.stderr.tail(),
            )));
        }
        join_within(tasks.reader).await;
        join_within(tasks.stderr).await;
    }

    /// Register a request and send it: its id and answer.
    fn send_request(&self, method: &str, params: &Value) -> Result<(i64, Outcome)> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.pending.lock().unwrap();
            if let Some(e) = &pending.closed {
                return Err(e.clone());
            }
            pending.map.insert(id, tx);
        }
        self.send(json!({"id": id, "method": method, "params": params}));
        Ok((id, rx))
    }

    /// Request `id` was answered (nothing when it was given up).
    pub(super) fn complete(&self, id: i64, outcome: Result<Value>) {
        let sender = self.pending.lock().unwrap().map.remove(&id);
        if let Some(tx) = sender {
            let _ = tx.send(outcome);
        }
    }

    /// The running `tools/call`s by request id.
    pub(super) fn calls(&self) -> &Mutex<HashMap<i64, Call>> {
        &self.calls
    }

    /// The last approval event of each call id.
    pub(super) fn approval_events(&self) -> &Mutex<HashMap<String, Value>> {
        &self.approval_events
    }

    /// The running call of each Codex thread.
    pub(super) fn by_thread(&self) -> &Mutex<HashMap<String, i64>> {
        &self.by_thread
    }

    /// The answer of a request (the connection's end when it was dropped unanswered).
    async fn outcome(&self, answer: Outcome) -> Result<Value> {
        answer.await.unwrap_or_else(|_| Err(self.gone()))
    }

    fn gone(&self) -> Error {
        self.closed_error().unwrap_or_else(|| {
            Error::Disconnected(DisconnectInfo::new(
                "codex mcp-server connection closed",
                self.stderr.tail(),
            ))
        })
    }

    /// Forget request `id` and, if it was still waiting, send `notifications/cancelled`.
    fn cancel_with(&self, id: i64, reason: &str) {
        if self.pending.lock().unwrap().map.remove(&id).is_some() {
            let params = mcp::cancelled_params(id, reason);
            self.send(json!({"method": "notifications/cancelled", "params": params}));
        }
    }

    /// Queue one message for the server (dropped once the link is closing).
    pub(super) fn send(&self, mut msg: Value) {
        msg["jsonrpc"] = json!("2.0");
        let mut line = serde_json::to_vec(&msg).expect("JSON serializes");
        line.push(b'\n');
        if let Some(out) = &*self.out.lock().unwrap() {
            let _ = out.send(line);
        }
    }

    /// The connection ended with `error`: every waiting request fails with it, the turns
    /// waiting for events see the end.
    fn close(&self, error: Error) {
        let waiting = {
            let mut pending = self.pending.lock().unwrap();
            if pending.closed.is_some() {
                return;
            }
            pending.closed = Some(error.clone());
            std::mem::take(&mut pending.map)
        };
        for (_, tx) in waiting {
            let _ = tx.send(Err(error.clone()));
        }
        self.calls.lock().unwrap().clear();
        drop(self.out.lock().unwrap().take());
    }

    /// Read and route the server's messages until its stdout ends; then close with why.
    async fn read_all(self: Arc<Self>, stdout: ChildStdout, conn: Arc<ShimConn>, cap: usize) {
        let mut reader = BufReader::new(stdout);
        let mut buf = Vec::with_capacity(8192);
        loop {
            match read_line(&mut reader, &mut buf, cap).await {
                Ok(LineRead::Line) => match serde_json::from_slice::<Value>(&buf) {
                    Ok(msg) => self.incoming(&conn, msg),
                    Err(e) => tracing::debug!("codex mcp-server: a line that is not JSON: {e}"),
                },
                Ok(LineRead::TooLong(n)) => {
                    tracing::warn!("codex mcp-server: skipped a {n}-byte line (max_line_bytes)")
                }
                Ok(LineRead::Eof) | Err(_) => break,
            }
        }
        let reason = {
            let mut child = self.child.lock().await;
            match child.as_mut() {
                Some(c) => match tokio::time::timeout(EXIT_GRACE, c.wait()).await {
                    Ok(Ok(status)) => {
                        process::describe(status).replace("server process", "codex mcp-server")
                    }
                    _ => "codex mcp-server closed its output".to_owned(),
                },
                None => "codex mcp-server stopped".to_owned(),
            }
        };
        // The last stderr lines name the cause: let the tail catch up (bounded).
        let stderr = self.tasks.lock().unwrap().stderr.take();
        join_within(stderr).await;
        self.close(Error::Disconnected(DisconnectInfo::new(
            reason,
            self.stderr.tail(),
        )));
    }
}

impl Drop for Link {
    /// A link dropped without [`disconnect`](Link::disconnect) (its runtime went away) still
    /// takes the server's process group with it.
    fn drop(&mut self) {
        if self.child.get_mut().take().is_some() {
            process::kill_group(self.pid);
        }
    }
}

/// Wait for a task of the link, at most [`EXIT_GRACE`]; abort it after that.
async fn join_within(task: Option<JoinHandle<()>>) {
    if let Some(mut task) = task {
        if tokio::time::timeout(EXIT_GRACE, &mut task).await.is_err() {
            task.abort();
        }
    }
}
