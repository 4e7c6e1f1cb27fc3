//! A fake OpenAI **Responses API** server for testing against the real Codex CLI.
//!
//! [`MockModel`] listens on `127.0.0.1` (never anything else), answers
//! `POST /v1/responses` with Server-Sent Events, and chooses what to answer
//! from *directives* written in the text of the last user message of the
//! request. Tests in any language therefore drive a real Codex turn (real
//! commands, real approvals, real user-input requests) just by choosing the
//! prompt. Point Codex at it with [`codex_config_toml`] or
//! [`MockModel::write_codex_home`].
//!
//! # Directive grammar
//!
//! The mock looks at the **last `role: "user"` message** in the request's
//! `input` array (all of its text parts, joined by newlines) and searches it for
//! the first occurrence of one of the directive names below. A name only counts
//! as a whole word: it must not be preceded by a letter, digit or `_`, and must
//! be followed by `:`, whitespace or the end of the text. The **argument** is
//! everything after the name (one optional `:` removed) up to the end of the
//! message, with surrounding whitespace trimmed. So `MOCK_TEXT: hi there`,
//! a prompt whose second line is `MOCK_TEXT: hi`, and a multi-line argument
//! all work.
//!
//! The *step* is the number of `function_call_output` items that come after
//! that user message in `input` (0 on the first request of a turn, 1 after
//! Codex has sent back the first tool result, ...).
//!
//! | Directive | Step 0 | Step ≥ 1 |
//! |---|---|---|
//! | *(none)* | streams `Hello from the mock model.` | same |
//! | `MOCK_TEXT: <text>` | streams exactly `<text>` in deltas of a few characters | same |
//! | `MOCK_EXEC: <cmd>` | `exec_command` call with `cmd`, `sandbox_permissions: "require_escalated"` and a `justification` (asks for approval under `on-request`) | message `command output: <output>` |
//! | `MOCK_EXEC_PLAIN: <cmd>` | `exec_command` call without escalation (no approval under `on-request`) | message `command output: <output>` |
//! | `MOCK_PATCH: <file> <content>` | `exec_command` running an `apply_patch <<'EOF'` heredoc that adds `<file>` with `<content>` (each content line becomes a `+` line) | message `patch result: <output>` |
//! | `MOCK_ASK: <question>` | `request_user_input` call with one question (id `answer`, header `Question`, two options `Yes`/`No`) | message `you answered: <answers>` |
//! | `MOCK_TOOL: <name> <json>` | a `function_call` of the tool `<name>` (a dynamic tool of the thread; `<namespace>/<name>` for a tool of a namespace, as Codex 0.169.0 offers MCP tools: `mcp__<server>/<tool>` with `-` in the tool's name as `_`) with the JSON object `<json>` as its arguments (`{}` when absent) | message `tool output: <output>` |
//! | `MOCK_SLOW: <n> <ms>` | streams `n` deltas `tick 0 `, `tick 1 `, … sleeping `ms` milliseconds before each one after the first, then finishes (defaults 10 and 200) | same |
//! | `MOCK_RATE_LIMITS: <p> <s>` | streams `rate limits: primary <p>%, secondary <s>%` with the rate-limit headers of a ChatGPT plan's reply: `x-codex-primary-used-percent: <p>`, `x-codex-primary-window-minutes: 300`, `x-codex-primary-reset-at: 1900000000`, `x-codex-secondary-used-percent: <s>`, `x-codex-secondary-window-minutes: 10080`, `x-codex-secondary-reset-at: 1900500000` (numbers; defaults 42 and 7) | same |
//! | `MOCK_FAIL` | HTTP 500 with an OpenAI-style JSON error body | same |
//! | `MOCK_FAIL: <status>` | that HTTP status (400–599) with the same body | same |
//! | `MOCK_FAIL: stream` | HTTP 200 whose stream is `response.created` then `response.failed` | same |
//!
//! `<output>` is the text of the last `function_call_output` in `input`. When
//! it has Codex's `exec_command` header (`Chunk ID:`, `Wall time:`, …,
//! `Output:`), only the part after the `Output:` line is used. It is trimmed
//! and cut to 2000 characters. `<answers>` are the answer strings found in a
//! `request_user_input` result (`{"answers":{"<id>":{"answers":[...]}}}`),
//! joined by `, `; the raw output text is used if it is not of that shape.
//!
//! Every `response.completed` carries `usage` (`input_tokens`,
//! `input_tokens_details.cached_tokens`, `output_tokens`,
//! `output_tokens_details.reasoning_tokens`, `total_tokens`); the numbers are
//! deterministic: `input_tokens` is the size of the request's `input` JSON
//! divided by 4, `output_tokens` the size of the produced text or arguments
//! divided by 4 (at least 1).
//!
//! # What Codex 0.169.0 does with these (measured)
//!
//! * `MOCK_EXEC` under `approval_policy = "on-request"` (the config written
//!   here) makes the app-server send `item/commandExecution/requestApproval`;
//!   `codex exec` runs with approval policy `never` and rejects it without
//!   asking (the reply is then `command output: approval policy is Never; ...`).
//!   Use `MOCK_EXEC_PLAIN` with `codex exec`.
//! * `MOCK_PATCH` asks `item/fileChange/requestApproval` only on a thread
//!   started with `approvalPolicy: "untrusted"`.
//! * `MOCK_ASK`: Codex only accepts `request_user_input` in Plan mode. Either
//!   start the turn with `collaborationMode: {"mode": "plan", "settings":
//!   {"model": "mock-model"}}` (needs the `experimentalApi` capability), or run
//!   Codex with `-c features.default_mode_request_user_input=true` (adds an
//!   "Under-development features enabled" `warning` notification). Otherwise
//!   the tool result is `request_user_input is unavailable in Default mode` and
//!   the reply is `you answered: request_user_input is unavailable in Default mode`.
//! * `MOCK_RATE_LIMITS` (Codex 0.171.0): after the model's reply the app-server sends
//!   `account/rateLimits/updated` with `limitId: "codex"` and both windows
//!   (`usedPercent` rounded to an integer, `windowDurationMins`, `resetsAt`), after
//!   `thread/tokenUsage/updated` and before `turn/completed`.
//! * `MOCK_FAIL` (HTTP 500) ends the turn within tens of milliseconds with an
//!   `error` notification (`willRetry: false`, `codexErrorInfo:
//!   "internalServerError"`, a generic "high demand" message) and
//!   `turn/completed` with status `failed`. `MOCK_FAIL: stream` gives
//!   `codexErrorInfo: "other"` and the message `stream disconnected before
//!   completion: MOCK_FAIL: ...`.
//! * Exec commands are sent with `"login": false` so the user's login-shell
//!   profile cannot add noise to the output.
//!
//! # Example
//!
//! ```no_run
//! let mock = codex_mock_model::MockModel::start()?;
//! let home = std::path::Path::new("target/tmp-codex-home");
//! mock.write_codex_home(home)?;
//! // spawn `codex exec --json --skip-git-repo-check "MOCK_TEXT: hi"` with
//! // CODEX_HOME=home and stdin closed; its last agent message is "hi".
//! assert!(mock.requests().is_empty()); // bodies of /v1/responses POSTs so far
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Other endpoints
//!
//! * `GET /v1/models` (and `/models`): `{"object":"list","data":[],"models":[]}`.
//! * `GET /_mock/requests`: JSON array of every recorded `/v1/responses` body.
//! * `POST /_mock/reset`: forgets the recorded bodies.
//! * anything else: 404 with a JSON error body (logged).
//!
//! Request bodies are read as plain JSON; a request with a `content-encoding`
//! other than `identity` gets 415 (Codex 0.169.0 with this config does not
//! compress). Set `MOCK_MODEL_LOG=1` to log every request (with its headers)
//! and the `tools` of the first request to stderr.
#![warn(missing_docs)]

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdTcpListener};
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

/// Text streamed when the last user message has no directive.
pub const DEFAULT_REPLY: &str = "Hello from the mock model.";

/// Largest number of characters of a tool output echoed back in a reply.
const MAX_ECHO_CHARS: usize = 2000;

/// A running mock Responses API server.
///
/// The server runs on its own thread with its own single-threaded tokio
/// runtime, so it can be used from plain `#[test]` functions as well as from
/// inside other tokio runtimes. Dropping the value stops the server.
pub struct MockModel {
    port: u16,
    state: Arc<State>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

struct State {
    requests: Mutex<Vec<Value>>,
    next_id: AtomicU64,
    tools_logged: AtomicBool,
}

impl MockModel {
    /// Starts a server on `127.0.0.1` with an ephemeral port.
    pub fn start() -> std::io::Result<MockModel> {
        MockModel::start_on_port(0)
    }

    /// Starts a server on `127.0.0.1:port` (`0` picks an ephemeral port).
    pub fn start_on_port(port: u16) -> std::io::Result<MockModel> {
        let listener = StdTcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let state = Arc::new(State {
            requests: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
            tools_logged: AtomicBool::new(false),
        });
        let (tx, rx) = oneshot::channel();
        let thread_state = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mock-model-{port}"))
            .spawn(move || {
                runtime.block_on(serve(listener, thread_state, rx));
                // Dropping the runtime here cancels every open connection.
                drop(runtime);
            })?;
        log(&format!("listening on 127.0.0.1:{port}"));
        Ok(MockModel {
            port,
            state,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// The TCP port the server listens on (always on `127.0.0.1`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The provider base URL to give Codex: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every JSON body POSTed to `/v1/responses` so far, oldest first.
    ///
    /// A body that is not valid JSON is recorded as a JSON string.
    pub fn requests(&self) -> Vec<Value> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Forgets the recorded request bodies.
    pub fn reset(&self) {
        self.state.requests.lock().unwrap().clear();
    }

    /// Creates `dir` (and its parents) and writes `dir/config.toml` with
    /// [`codex_config_toml`] for this server's port, making a `CODEX_HOME`
    /// that keeps Codex on this machine.
    pub fn write_codex_home(&self, dir: &Path) -> std::io::Result<()> {
        write_codex_home(dir, self.port)
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for MockModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockModel")
            .field("port", &self.port)
            .finish()
    }
}

/// The `config.toml` that makes Codex 0.169.0 use the mock at
/// `http://127.0.0.1:PORT/v1` with `wire_api = "responses"`, no retries, and
/// the `[features]` switches that keep it from contacting any other host.
pub fn codex_config_toml(port: u16) -> String {
    format!(
        r#"model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
in_app_updates = false
shell_snapshot = false
"#
    )
}

/// Creates `dir` (and its parents) and writes `dir/config.toml` with
/// [`codex_config_toml`] for `port`.
pub fn write_codex_home(dir: &Path, port: u16) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("config.toml"), codex_config_toml(port))
}

fn log_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("MOCK_MODEL_LOG").is_ok_and(|v| v == "1"))
}

fn log(msg: &str) {
    if log_enabled() {
        eprintln!("[mock-model] {msg}");
    }
}

async fn serve(listener: StdTcpListener, state: Arc<State>, mut shutdown: oneshot::Receiver<()>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("[mock-model] cannot register listener: {e}");
            return;
        }
    };
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        log(&format!("accept failed: {e}"));
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                log(&format!("connection from {peer}"));
                let state = state.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| handle(req, state.clone()));
                    let conn = hyper::server::conn::http1::Builder::new()
                        .keep_alive(true)
                        .serve_connection(TokioIo::new(stream), service);
                    if let Err(e) = conn.await {
                        log(&format!("connection from {peer} ended: {e}"));
                    }
                });
            }
        }
    }
}

type RespBody = BoxBody<Bytes, Infallible>;

fn full(status: StatusCode, body: Value) -> Response<RespBody> {
    let mut resp = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

fn error_body(message: &str, kind: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<RespBody>, Infallible> {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    if log_enabled() {
        let headers: Vec<String> = req
            .headers()
            .iter()
            .map(|(k, v)| format!("{k}: {}", String::from_utf8_lossy(v.as_bytes())))
            .collect();
        log(&format!(
            "{method} {} headers [{}]",
            req.uri(),
            headers.join("; ")
        ));
    }
    let encoding = req
        .headers()
        .get(hyper::header::CONTENT_ENCODING)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).to_ascii_lowercase());
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            log(&format!("reading body of {method} {path} failed: {e}"));
            return Ok(full(
                StatusCode::BAD_REQUEST,
                error_body("unreadable body", "invalid_request_error"),
            ));
        }
    };
    let resp = match (&method, path.as_str()) {
        (&Method::POST, "/v1/responses") | (&Method::POST, "/responses") => {
            if let Some(enc) = encoding.filter(|e| e != "identity") {
                log(&format!("unsupported content-encoding {enc}"));
                return Ok(full(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    error_body(
                        &format!("content-encoding {enc} not supported by the mock"),
                        "invalid_request_error",
                    ),
                ));
            }
            responses(&body, &state)
        }
        (&Method::GET, "/v1/models") | (&Method::GET, "/models") => full(
            StatusCode::OK,
            json!({"object": "list", "data": [], "models": []}),
        ),
        (&Method::GET, "/_mock/requests") => full(
            StatusCode::OK,
            Value::Array(state.requests.lock().unwrap().clone()),
        ),
        (&Method::POST, "/_mock/reset") => {
            state.requests.lock().unwrap().clear();
            full(StatusCode::OK, json!({"ok": true}))
        }
        _ => {
            log(&format!("unhandled {method} {path}"));
            full(
                StatusCode::NOT_FOUND,
                error_body(&format!("no route for {method} {path}"), "not_found"),
            )
        }
    };
    Ok(resp)
}

/// One thing the streaming task does.
enum Step {
    Event(&'static str, Value),
    Sleep(u64),
}

/// What a request is answered with.
enum Reply {
    /// The SSE steps, and extra response headers (the rate-limit headers of `MOCK_RATE_LIMITS`).
    Stream(Vec<Step>, Vec<(&'static str, String)>),
    HttpError(StatusCode, Value),
}

fn responses(body: &Bytes, state: &State) -> Response<RespBody> {
    let parsed: Value = serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
    state.requests.lock().unwrap().push(parsed.clone());
    if !state.tools_logged.swap(true, Ordering::SeqCst) {
        if let Some(tools) = parsed.get("tools") {
            log(&format!("tools offered: {tools}"));
        }
    }
    let reply = plan(&parsed, state);
    match reply {
        Reply::HttpError(status, body) => full(status, body),
        Reply::Stream(steps, headers) => {
            let (tx, rx) = mpsc::channel::<Bytes>(16);
            tokio::spawn(async move {
                for step in steps {
                    match step {
                        Step::Sleep(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                        Step::Event(kind, data) => {
                            let frame = format!("event: {kind}\ndata: {data}\n\n");
                            if tx.send(Bytes::from(frame)).await.is_err() {
                                log("client went away mid-stream");
                                return;
                            }
                        }
                    }
                }
            });
            let mut resp = Response::new(ChannelBody { rx }.boxed());
            for (name, value) in headers {
                if let Ok(v) = HeaderValue::from_str(&value) {
                    resp.headers_mut().insert(name, v);
                }
            }
            resp.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
            resp.headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            resp
        }
    }
}

/// Response body fed by the streaming task; ends when the task drops its sender.
struct ChannelBody {
    rx: mpsc::Receiver<Bytes>,
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
    }
}

// ---------------------------------------------------------------------------
// Request analysis

/// Text of a message's `content` (string, or array of parts with `text`).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                _ => p.get("text").and_then(Value::as_str).map(str::to_string),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn is_user_message(item: &Value) -> bool {
    item.get("role").and_then(Value::as_str) == Some("user")
        && item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message")
            == "message"
}

/// Last user message text, and the items after it.
fn last_user_turn(body: &Value) -> (String, &[Value]) {
    let items: &[Value] = body
        .get("input")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    match items.iter().rposition(is_user_message) {
        Some(i) => (
            content_text(items[i].get("content").unwrap_or(&Value::Null)),
            &items[i + 1..],
        ),
        None => (String::new(), items),
    }
}

fn output_text(item: &Value) -> String {
    match item.get("output") {
        Some(Value::String(s)) => s.clone(),
        Some(v @ Value::Array(_)) => content_text(v),
        Some(Value::Object(o)) => o
            .get("content")
            .map(content_text)
            .unwrap_or_else(|| Value::Object(o.clone()).to_string()),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The directives, longest first where one is a prefix of another.
const DIRECTIVES: [&str; 9] = [
    "MOCK_EXEC_PLAIN",
    "MOCK_RATE_LIMITS",
    "MOCK_TOOL",
    "MOCK_EXEC",
    "MOCK_TEXT",
    "MOCK_PATCH",
    "MOCK_ASK",
    "MOCK_SLOW",
    "MOCK_FAIL",
];

/// Finds the first directive in `text`: its name and its argument.
fn find_directive(text: &str) -> Option<(&'static str, String)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(off) = text[from..].find("MOCK_") {
        let at = from + off;
        let boundary_before =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if boundary_before {
            for name in DIRECTIVES {
                if text[at..].starts_with(name) {
                    let rest = &text[at + name.len()..];
                    let boundary_after = match rest.chars().next() {
                        None => true,
                        Some(c) => c == ':' || c.is_whitespace(),
                    };
                    if boundary_after {
                        let arg = rest.strip_prefix(':').unwrap_or(rest).trim();
                        return Some((name, arg.to_string()));
                    }
                }
            }
        }
        from = at + "MOCK_".len();
    }
    None
}

/// The useful part of an `exec_command` result: what follows the `Output:`
/// line of Codex's header (`Chunk ID:`, `Wall time:`, `Process exited with
/// code`, ...). Nested headers (as `apply_patch` results have) are all removed.
fn command_output(raw: &str) -> String {
    const HEADER_KEYS: [&str; 6] = [
        "Chunk ID:",
        "Wall time:",
        "Process exited with code",
        "Process running with session ID",
        "Original token count:",
        "Exit code:",
    ];
    let mut body = raw;
    loop {
        let mut rest = body;
        let mut stripped = None;
        while let Some((line, tail)) = rest.split_once('\n') {
            if line == "Output:" {
                stripped = Some(tail);
                break;
            }
            if !HEADER_KEYS.iter().any(|k| line.starts_with(k)) {
                break;
            }
            rest = tail;
        }
        match stripped {
            Some(tail) => body = tail,
            None => break,
        }
    }
    truncate(body.trim())
}

fn truncate(s: &str) -> String {
    s.chars().take(MAX_ECHO_CHARS).collect()
}

/// Answer strings in a `request_user_input` result, joined by `, `.
fn user_answers(raw: &str) -> String {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            Value::Object(o) => {
                if let Some(a) = o.get("answers") {
                    collect(a, out)
                } else {
                    o.values().for_each(|x| collect(x, out))
                }
            }
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => {
            let mut out = Vec::new();
            collect(&v, &mut out);
            if out.is_empty() {
                truncate(raw.trim())
            } else {
                truncate(&out.join(", "))
            }
        }
        _ => truncate(raw.trim()),
    }
}

// ---------------------------------------------------------------------------
// Reply planning

struct Planner<'a> {
    state: &'a State,
    input_tokens: u64,
    response_id: String,
    steps: Vec<Step>,
}

impl Planner<'_> {
    fn id(&self, prefix: &str) -> String {
        format!(
            "{prefix}_mock_{}",
            self.state.next_id.fetch_add(1, Ordering::SeqCst)
        )
    }

    fn created(&mut self) {
        let response = json!({
            "id": self.response_id, "object": "response", "status": "in_progress",
            "model": "mock-model", "output": [],
        });
        self.steps.push(Step::Event(
            "response.created",
            json!({"type": "response.created", "response": response}),
        ));
    }

    fn completed(&mut self, output_len: usize) {
        let output_tokens = (output_len as u64 / 4).max(1);
        let usage = json!({
            "input_tokens": self.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": self.input_tokens + output_tokens,
        });
        let response = json!({
            "id": self.response_id, "object": "response", "status": "completed",
            "model": "mock-model", "output": [], "usage": usage,
        });
        self.steps.push(Step::Event(
            "response.completed",
            json!({"type": "response.completed", "response": response}),
        ));
    }

    /// A streamed assistant message made of `chunks`, with `pause_ms` between them.
    fn message(&mut self, chunks: &[String], pause_ms: u64) {
        let item_id = self.id("msg");
        let text: String = chunks.concat();
        self.created();
        self.steps.push(Step::Event(
            "response.output_item.added",
            json!({
                "type": "response.output_item.added", "output_index": 0,
                "item": {"type": "message", "id": item_id, "role": "assistant",
                         "status": "in_progress", "content": []},
            }),
        ));
        self.steps.push(Step::Event(
            "response.content_part.added",
            json!({
                "type": "response.content_part.added", "item_id": item_id,
                "output_index": 0, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []},
            }),
        ));
        for (i, chunk) in chunks.iter().enumerate() {
            if i > 0 && pause_ms > 0 {
                self.steps.push(Step::Sleep(pause_ms));
            }
            self.steps.push(Step::Event(
                "response.output_text.delta",
                json!({
                    "type": "response.output_text.delta", "item_id": item_id,
                    "output_index": 0, "content_index": 0, "delta": chunk,
                }),
            ));
        }
        self.steps.push(Step::Event(
            "response.output_text.done",
            json!({
                "type": "response.output_text.done", "item_id": item_id,
                "output_index": 0, "content_index": 0, "text": text,
            }),
        ));
        self.steps.push(Step::Event(
            "response.output_item.done",
            json!({
                "type": "response.output_item.done", "output_index": 0,
                "item": {"type": "message", "id": item_id, "role": "assistant",
                         "status": "completed",
                         "content": [{"type": "output_text", "text": text, "annotations": []}]},
            }),
        ));
        self.completed(text.len());
    }

    /// A function call to tool `name` with JSON `arguments`.
    fn function_call(&mut self, name: &str, arguments: Value) {
        // `namespace/name`: a tool of a namespace (Codex offers MCP tools that way).
        let (namespace, name) = match name.split_once('/') {
            Some((ns, n)) => (Some(ns), n),
            None => (None, name),
        };
        let item_id = self.id("fc");
        let call_id = self.id("call");
        let args = arguments.to_string();
        let item = |arguments: &str, status: &str| {
            let mut item = json!({"type": "function_call", "id": item_id, "call_id": call_id,
                                  "name": name, "arguments": arguments, "status": status});
            if let Some(ns) = namespace {
                item["namespace"] = json!(ns);
            }
            item
        };
        self.created();
        self.steps.push(Step::Event(
            "response.output_item.added",
            json!({
                "type": "response.output_item.added", "output_index": 0,
                "item": item("", "in_progress"),
            }),
        ));
        self.steps.push(Step::Event(
            "response.function_call_arguments.done",
            json!({
                "type": "response.function_call_arguments.done", "item_id": item_id,
                "output_index": 0, "arguments": args,
            }),
        ));
        self.steps.push(Step::Event(
            "response.output_item.done",
            json!({
                "type": "response.output_item.done", "output_index": 0,
                "item": item(&args, "completed"),
            }),
        ));
        self.completed(args.len());
    }
}

/// Splits `text` into chunks of a few characters (on char boundaries).
fn chunk_text(text: &str) -> Vec<String> {
    const CHUNK: usize = 4;
    if text.is_empty() {
        return vec![String::new()];
    }
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(CHUNK).map(|c| c.iter().collect()).collect()
}

fn patch_command(arg: &str) -> String {
    let (name, content) = match arg.split_once(char::is_whitespace) {
        Some((n, c)) => (n, c.trim_start()),
        None => (arg, ""),
    };
    let mut cmd = String::from("apply_patch <<'EOF'\n*** Begin Patch\n");
    cmd.push_str(&format!("*** Add File: {name}\n"));
    for line in content.lines() {
        cmd.push('+');
        cmd.push_str(line);
        cmd.push('\n');
    }
    cmd.push_str("*** End Patch\nEOF\n");
    cmd
}

fn plan(body: &Value, state: &State) -> Reply {
    let (text, after) = last_user_turn(body);
    let outputs: Vec<&Value> = after
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call_output"))
        .collect();
    let step = outputs.len();
    let last_output = outputs.last().map(|i| output_text(i)).unwrap_or_default();
    let input_len = body.get("input").map(|i| i.to_string().len()).unwrap_or(0);
    let mut p = Planner {
        state,
        input_tokens: input_len as u64 / 4,
        response_id: String::new(),
        steps: Vec::new(),
    };
    p.response_id = p.id("resp");
    let directive = find_directive(&text);
    let mut headers = Vec::new();
    log(&format!(
        "responses request: step {step}, directive {:?}",
        directive
            .as_ref()
            .map(|(n, a)| (n, a.chars().take(80).collect::<String>()))
    ));
    match directive {
        None => p.message(&chunk_text(DEFAULT_REPLY), 0),
        Some(("MOCK_TEXT", arg)) => p.message(&chunk_text(&arg), 0),
        Some((name @ ("MOCK_EXEC" | "MOCK_EXEC_PLAIN" | "MOCK_PATCH"), arg)) => {
            if step == 0 {
                let args = match name {
                    "MOCK_EXEC" => json!({
                        "cmd": arg,
                        "login": false,
                        "sandbox_permissions": "require_escalated",
                        "justification": "The mock model's test asks to run this command.",
                    }),
                    "MOCK_EXEC_PLAIN" => json!({"cmd": arg, "login": false}),
                    _ => json!({"cmd": patch_command(&arg), "login": false}),
                };
                p.function_call("exec_command", args);
            } else {
                let prefix = if name == "MOCK_PATCH" {
                    "patch result"
                } else {
                    "command output"
                };
                let out = command_output(&last_output);
                p.message(&chunk_text(&format!("{prefix}: {out}")), 0);
            }
        }
        Some(("MOCK_ASK", arg)) => {
            if step == 0 {
                p.function_call(
                    "request_user_input",
                    json!({"questions": [{
                        "id": "answer",
                        "header": "Question",
                        "question": arg,
                        "options": [
                            {"label": "Yes", "description": "Answer yes."},
                            {"label": "No", "description": "Answer no."},
                        ],
                    }]}),
                );
            } else {
                let answers = user_answers(&last_output);
                p.message(&chunk_text(&format!("you answered: {answers}")), 0);
            }
        }
        Some(("MOCK_TOOL", arg)) => {
            if step == 0 {
                let (name, args) = arg.split_once(char::is_whitespace).unwrap_or((&arg, "{}"));
                let args = serde_json::from_str::<Value>(args.trim()).unwrap_or_else(
                    |e| json!({ "mockError": format!("bad MOCK_TOOL arguments: {e}") }),
                );
                p.function_call(name, args);
            } else {
                let out = command_output(&last_output);
                p.message(&chunk_text(&format!("tool output: {out}")), 0);
            }
        }
        Some(("MOCK_SLOW", arg)) => {
            let mut nums = arg.split_whitespace().map(|s| s.parse::<u64>().ok());
            let n = nums.next().flatten().unwrap_or(10);
            let ms = nums.next().flatten().unwrap_or(200);
            let chunks: Vec<String> = (0..n).map(|i| format!("tick {i} ")).collect();
            p.message(&chunks, ms);
        }
        Some(("MOCK_RATE_LIMITS", arg)) => {
            let mut nums = arg.split_whitespace().map(|s| s.parse::<f64>().ok());
            let primary = nums.next().flatten().unwrap_or(42.0);
            let secondary = nums.next().flatten().unwrap_or(7.0);
            headers = vec![
                ("x-codex-primary-used-percent", primary.to_string()),
                ("x-codex-primary-window-minutes", "300".into()),
                ("x-codex-primary-reset-at", "1900000000".into()),
                ("x-codex-secondary-used-percent", secondary.to_string()),
                ("x-codex-secondary-window-minutes", "10080".into()),
                ("x-codex-secondary-reset-at", "1900500000".into()),
            ];
            let text = format!("rate limits: primary {primary}%, secondary {secondary}%");
            p.message(&chunk_text(&text), 0);
        }
        Some(("MOCK_FAIL", arg)) => {
            if arg.eq_ignore_ascii_case("stream") {
                p.created();
                let response = json!({
                    "id": p.response_id, "object": "response", "status": "failed",
                    "error": {"code": "server_error", "message": "MOCK_FAIL: the mock model failed this response"},
                });
                p.steps.push(Step::Event(
                    "response.failed",
                    json!({"type": "response.failed", "response": response}),
                ));
            } else {
                let status = arg
                    .split_whitespace()
                    .next()
                    .and_then(|s| s.parse::<u16>().ok())
                    .filter(|s| (400..600).contains(s))
                    .and_then(|s| StatusCode::from_u16(s).ok())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let kind = if status.is_server_error() {
                    "server_error"
                } else {
                    "invalid_request_error"
                };
                return Reply::HttpError(
                    status,
                    error_body("MOCK_FAIL: the mock model failed this request", kind),
                );
            }
        }
        Some((_, _)) => p.message(&chunk_text(DEFAULT_REPLY), 0),
    }
    Reply::Stream(p.steps, headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directive_parsing() {
        assert_eq!(
            find_directive("MOCK_TEXT: hi there"),
            Some(("MOCK_TEXT", "hi there".into()))
        );
        assert_eq!(
            find_directive("please\nMOCK_EXEC: echo hi\n"),
            Some(("MOCK_EXEC", "echo hi".into()))
        );
        assert_eq!(
            find_directive("MOCK_EXEC_PLAIN: ls"),
            Some(("MOCK_EXEC_PLAIN", "ls".into()))
        );
        assert_eq!(find_directive("MOCK_FAIL"), Some(("MOCK_FAIL", "".into())));
        assert_eq!(
            find_directive("MOCK_RATE_LIMITS: 87 12"),
            Some(("MOCK_RATE_LIMITS", "87 12".into()))
        );
        assert_eq!(find_directive("XMOCK_FAIL MOCK_EXECX"), None);
        assert_eq!(
            find_directive("say MOCK_SLOW 3 10"),
            Some(("MOCK_SLOW", "3 10".into()))
        );
        assert_eq!(find_directive("nothing here"), None);
    }

    #[test]
    fn exec_output_header_is_stripped() {
        let raw =
            "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nhello\n";
        assert_eq!(command_output(raw), "hello");
        assert_eq!(command_output("  plain  "), "plain");
        let patch = "Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA hello.txt\n";
        assert_eq!(
            command_output(patch),
            "Success. Updated the following files:\nA hello.txt"
        );
        assert_eq!(command_output("Output:\nx\nOutput:\ny"), "x\nOutput:\ny");
    }

    #[test]
    fn answers_are_extracted() {
        assert_eq!(
            user_answers(r#"{"answers":{"answer":{"answers":["Yes"]}}}"#),
            "Yes"
        );
        assert_eq!(user_answers("free text"), "free text");
    }

    #[test]
    fn patch_heredoc() {
        assert_eq!(
            patch_command("a.txt hello\nworld"),
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hello\n+world\n*** End Patch\nEOF\n"
        );
    }
}
