//! The in-process protocol shims: transports that are not an app-server, each driven by a
//! small JSON-RPC server living on the library's runtime that speaks the app-server protocol
//! to the engine. Everything above the engine (`Client`, `Thread`, turn streams, handlers,
//! the C and Python bindings) works unchanged; what a shim cannot do is answered with an
//! "unsupported by this transport" error.
//!
//! * this file: the plumbing both share: the [`Shim`] trait, the in-memory pipe and the
//!   JSON-RPC server on it ([`start`]), the shim's side of the connection ([`ShimConn`]), and
//!   which shim serves a transport ([`for_transport`]).
//! * [`exec`]: `codex exec --json` (transport `Exec`): one process per turn.
//! * [`mcp`]: `codex mcp-server` (transport `CodexMcpServer`, Codex 0.92.0): one MCP
//!   connection, a `tools/call` per turn. It drives the server with transport-level parts
//!   only (process, line framing, a small pending table), so both shims sit on this floor.

pub(crate) mod exec;
pub(crate) mod mcp;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::{Error, Result, RpcError};
use crate::options::{ClientOptions, TransportKind};
use crate::transport::io::{line_halves, MessageReader, MessageWriter};

/// The shim that serves a client's transport (`Exec` or `CodexMcpServer`).
pub(crate) fn for_transport(opts: &ClientOptions) -> Result<Arc<dyn Shim>> {
    match &opts.transport {
        TransportKind::Exec(exec) => exec::ExecShim::create(opts, exec),
        TransportKind::CodexMcpServer => mcp::McpShim::create(opts),
        other => Err(Error::InvalidArgument(format!(
            "{other:?} is not a shim transport"
        ))),
    }
}

/// Boxed future returned by shim handlers.
pub(crate) type ShimFuture = Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send>>;

/// A protocol shim: answers client requests; may send notifications and server requests
/// through the [`ShimConn`].
pub(crate) trait Shim: Send + Sync + 'static {
    /// Answer `initialize` (the result object the client sees).
    fn initialize(self: Arc<Self>, conn: Arc<ShimConn>, params: Value) -> ShimFuture;
    /// Answer any other request. Requests are handled concurrently.
    fn handle(self: Arc<Self>, conn: Arc<ShimConn>, method: String, params: Value) -> ShimFuture;
    /// The client disconnected: stop every process.
    fn shutdown(self: Arc<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// The shim's side of the connection.
pub(crate) struct ShimConn {
    out: mpsc::UnboundedSender<Vec<u8>>,
    next_id: AtomicI64,
    pending: Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>,
    opt_out: Mutex<Vec<String>>,
}

/// Milliseconds since the Unix epoch (the `emittedAtMs` of notifications).
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl ShimConn {
    fn send(&self, v: &Value) {
        let mut line = serde_json::to_vec(v).expect("JSON serializes");
        line.push(b'\n');
        let _ = self.out.send(line);
    }

    /// Send a notification (unless the client opted out of it).
    pub(crate) fn notify(&self, method: &str, params: Value) {
        if self.opt_out.lock().unwrap().iter().any(|m| m == method) {
            return;
        }
        self.send(&json!({"method": method, "params": params, "emittedAtMs": now_ms()}));
    }

    /// Send a server request and wait for the client's answer.
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(&json!({"id": id, "method": method, "params": params}));
        rx.await.unwrap_or_else(|_| {
            Err(RpcError {
                code: -32603,
                message: "client went away".into(),
                data: None,
            })
        })
    }
}

/// The outcome a JSON-RPC response line carries: its `result`, or its `error` as an
/// [`RpcError`].
fn response_outcome(msg: &Value) -> Result<Value, RpcError> {
    match msg.get("error") {
        Some(e) => Err(RpcError {
            code: e["code"].as_i64().unwrap_or(-32603),
            message: e["message"].as_str().unwrap_or("").to_owned(),
            data: e.get("data").cloned(),
        }),
        None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
    }
}

/// Write the lines from `rx` to `write`, flushing after each burst, until the channel ends or
/// a write fails.
async fn write_lines(mut rx: mpsc::UnboundedReceiver<Vec<u8>>, mut write: impl AsyncWrite + Unpin) {
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(line) = next.take() {
            if write.write_all(&line).await.is_err() {
                return;
            }
            next = rx.try_recv().ok();
        }
        if write.flush().await.is_err() {
            return;
        }
    }
}

/// Start `shim` on the runtime behind an in-memory pipe: the engine's halves of the pipe and
/// the shim's task (which ends once the engine closed its side and the shim shut down).
pub(crate) fn start(shim: Arc<dyn Shim>) -> (MessageReader, MessageWriter, JoinHandle<()>) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (their_read, their_write) = tokio::io::split(theirs);
    let task = crate::rt::spawn(serve(shim, their_read, their_write));
    let (read, write) = tokio::io::split(ours);
    let (reader, writer) = line_halves(read, write);
    (reader, writer, task)
}

/// Run `shim` over a byte pipe until the client side closes.
async fn serve(
    shim: Arc<dyn Shim>,
    read: impl AsyncRead + Unpin + Send + 'static,
    write: impl AsyncWrite + Unpin + Send + 'static,
) {
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let conn = Arc::new(ShimConn {
        out: out_tx,
        next_id: AtomicI64::new(0),
        pending: Mutex::new(HashMap::new()),
        opt_out: Mutex::new(Vec::new()),
    });
    let writer = crate::rt::spawn(write_lines(out_rx, write));
    let mut lines = BufReader::new(read).lines();
    let mut initialized = false;
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = msg.get("id").cloned();
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = msg.get("params").cloned().unwrap_or(json!({}));
        match (id, method) {
            (Some(id), Some(method)) => {
                let conn2 = conn.clone();
                let shim2 = shim.clone();
                if method == "initialize" {
                    if initialized {
                        conn.send(&json!({"id": id, "error": {"code": -32600, "message": "Already initialized"}}));
                        continue;
                    }
                    initialized = true;
                    if let Some(list) =
                        params["capabilities"]["optOutNotificationMethods"].as_array()
                    {
                        *conn.opt_out.lock().unwrap() = list
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect();
                    }
                }
                if !initialized {
                    conn.send(
                        &json!({"id": id, "error": {"code": -32600, "message": "Not initialized"}}),
                    );
                    continue;
                }
                crate::rt::spawn(async move {
                    let outcome = if method == "initialize" {
                        shim2.initialize(conn2.clone(), params).await
                    } else {
                        shim2.handle(conn2.clone(), method, params).await
                    };
                    let reply = match outcome {
                        Ok(result) => json!({"id": id, "result": result}),
                        Err(e) => {
                            let mut err = json!({"code": e.code, "message": e.message});
                            if let Some(d) = e.data {
                                err["data"] = d;
                            }
                            json!({"id": id, "error": err})
                        }
                    };
                    conn2.send(&reply);
                });
            }
            (Some(id), None) => {
                // The client's answer to one of our server requests.
                let Some(n) = id.as_i64() else { continue };
                if let Some(tx) = conn.pending.lock().unwrap().remove(&n) {
                    let _ = tx.send(response_outcome(&msg));
                }
            }
            _ => {} // client notifications (`initialized`) need nothing
        }
    }
    // Server requests still waiting for the client fail ("client went away"): an approval
    // in flight ends declined instead of holding its task.
    conn.pending.lock().unwrap().clear();
    shim.shutdown().await;
    writer.abort();
}
