//! A tiny HTTP/1.1 server for fault injection: every request is recorded and answered by the
//! test's handler with hand-written response bytes, then the connection closes (or stays open
//! when the reply says so, until the server is dropped).

use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// A request the server received.
#[derive(Debug, Clone)]
pub(super) struct Req {
    /// The HTTP method.
    pub(super) method: String,
    /// Header names in lowercase.
    pub(super) headers: HashMap<String, String>,
    /// The JSON body (`Null` when none).
    pub(super) body: Value,
    /// When its head arrived.
    pub(super) at: Instant,
}

impl Req {
    /// A header's value.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The JSON-RPC method of the body.
    pub(super) fn rpc(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }
}

/// What the server saw.
#[derive(Debug)]
pub(super) enum Seen {
    Request(Req),
    /// The reply to a request (its method, JSON-RPC method) was written and the connection
    /// closed.
    Closed {
        method: String,
        rpc: String,
        at: Instant,
    },
}

/// The bytes to answer with.
pub(super) struct Reply {
    bytes: Vec<u8>,
    /// Keep the connection open after the bytes (an endless stream).
    hang: bool,
}

/// A reply with a `Content-Length` body.
pub(super) fn reply(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    Reply { bytes, hang: false }
}

/// A JSON reply.
pub(super) fn json(status: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut h = vec![("Content-Type", "application/json")];
    h.extend_from_slice(headers);
    reply(status, &h, body.as_bytes())
}

/// 202 Accepted, no body.
pub(super) fn accepted() -> Reply {
    reply("202 Accepted", &[], b"")
}

/// An SSE stream (body delimited by the connection's end), left open if `hang`.
pub(super) fn sse(events: &str, hang: bool) -> Reply {
    let mut bytes = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".to_vec();
    bytes.extend_from_slice(events.as_bytes());
    Reply { bytes, hang }
}

/// The answer to `initialize` with session id `s1` and protocol version 2025-11-25.
pub(super) fn init_answer(req: &Req) -> Reply {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": req.body["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "faults", "version": "0"}}});
    json("200 OK", &[("Mcp-Session-Id", "s1")], &body.to_string())
}

/// The running server; stops (with every open connection) when dropped.
pub(super) struct FaultServer {
    /// The MCP endpoint (`http://127.0.0.1:PORT/mcp`).
    pub(super) url: String,
    seen: mpsc::Receiver<Seen>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Handler = Arc<dyn Fn(&Req) -> Reply + Send + Sync>;

impl FaultServer {
    /// Listen on 127.0.0.1 (the MCP endpoint is `/mcp`), answering with `handler`.
    pub(super) async fn start(handler: impl Fn(&Req) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let (tx, seen) = mpsc::channel(256);
        let handler: Handler = Arc::new(handler);
        let task = tokio::spawn(async move {
            let mut conns = JoinSet::new();
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                conns.spawn(serve(sock, handler.clone(), tx.clone()));
                while conns.try_join_next().is_some() {}
            }
        });
        FaultServer { url, seen, task }
    }

    /// The next thing seen (at most 5 s).
    pub(super) async fn seen(&mut self) -> Seen {
        tokio::time::timeout(Duration::from_secs(5), self.seen.recv())
            .await
            .expect("the fault server saw nothing within 5 s")
            .expect("the fault server stopped")
    }

    /// The next request with this HTTP method and JSON-RPC method (`""`: any), skipping
    /// everything else.
    pub(super) async fn request(&mut self, method: &str, rpc: &str) -> Req {
        loop {
            if let Seen::Request(r) = self.seen().await {
                if r.method == method && (rpc.is_empty() || r.rpc() == rpc) {
                    return r;
                }
            }
        }
    }

    /// When the reply to this request was written and its connection closed.
    pub(super) async fn closed(&mut self, method: &str, rpc: &str) -> Instant {
        loop {
            if let Seen::Closed {
                method: m,
                rpc: r,
                at,
            } = self.seen().await
            {
                if m == method && r == rpc {
                    return at;
                }
            }
        }
    }

    /// What was seen so far and not taken yet.
    pub(super) fn drain(&mut self) -> Vec<Seen> {
        std::iter::from_fn(|| self.seen.try_recv().ok()).collect()
    }
}

/// Serve one connection: one request, one reply.
async fn serve(mut sock: TcpStream, handler: Handler, seen: mpsc::Sender<Seen>) {
    let Some(req) = read_request(&mut sock).await else {
        return;
    };
    let (method, rpc) = (req.method.clone(), req.rpc().to_owned());
    let reply = handler(&req);
    let _ = seen.send(Seen::Request(req)).await;
    if sock.write_all(&reply.bytes).await.is_err() {
        return;
    }
    if reply.hang {
        std::future::pending::<()>().await;
    }
    let _ = sock.shutdown().await;
    drop(sock);
    let _ = seen
        .send(Seen::Closed {
            method,
            rpc,
            at: Instant::now(),
        })
        .await;
}

/// Read a request head and its `Content-Length` body.
async fn read_request(sock: &mut TcpStream) -> Option<Req> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let at = Instant::now();
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let method = lines.next()?.split(' ').next()?.to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Req {
        method,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        at,
    })
}
