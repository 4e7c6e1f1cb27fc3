//! The protocol loop: reads client messages from stdin, writes replies,
//! notifications and server requests to stdout.

use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, BufWriter, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::schema;

/// JSON-RPC error code for invalid requests (used for init-state errors).
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC error code for params that do not match the schema.
const INVALID_PARAMS: i64 = -32602;
/// Error code the real server uses when it is overloaded.
const OVERLOADED: i64 = -32001;
/// Capacity of the stdout buffer (large so `flood` writes in big chunks).
const OUT_BUF: usize = 1 << 20;

/// A fault-injection mode; see the crate docs for what each one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Never answer `test/hang`.
    Hang,
    /// Answer `test/slow` after a delay, on another thread.
    Slow,
    /// Exit with code 3 on `test/die`.
    Die,
    /// Fail `test/overload` K times with -32001.
    Overload,
    /// Emit non-JSON and non-object lines on `test/garbage`.
    Garbage,
    /// Emit a huge notification on `test/bigline`.
    Bigline,
    /// Emit unknown notification/server request on `test/unknown`.
    Unknown,
    /// Emit an approval server request on `test/approval`.
    Approval,
    /// Emit N notifications as fast as possible on `test/flood`.
    Flood,
    /// Exit 0 on stdin EOF (always the case; accepted for clarity).
    ExitOnEof,
    /// Keep running after stdin EOF (until killed).
    IgnoreEof,
    /// Close stdout on `test/close`.
    CloseStdout,
    /// Never answer `initialize` (not part of `all`).
    NoInit,
    /// On `test/orphanDie`, leave a `sleep` holding stdout and stderr, then exit with code 4.
    Orphan,
    /// On `test/stray`, answer twice and send responses with ids nobody used.
    Stray,
    /// Answer `initialize` as an MCP server; echo each `notifications/cancelled` back as
    /// `test/sawCancelled`; on `test/ping` send the client a `ping` request; on
    /// `test/elicitThenCancel` send `elicitation/create` and then cancel it (not in `all`).
    Mcp,
    /// Like `mcp`, but answer `initialize` with protocol version 2099-01-01 (not in `all`).
    McpFuture,
    /// `test/stopReading` answers, then the server never reads its stdin again (it stays
    /// alive): a hung server whose pipe fills up.
    StopReading,
    /// Threads and turns as a pool sees them (not in `all`): `thread/start` answers a thread
    /// id unique across processes (`thr_<pid>_<n>`); `turn/start` answers a turn and then
    /// streams `turn/started`, agent-message deltas, the completed message and
    /// `turn/completed` (see [`fake_turn`]).
    Turns,
    /// Every `thread/start` is answered `-32001` overloaded (not in `all`); `test/attempts`
    /// says how many came.
    OverloadStart,
    /// `test/rateLimitsUpdated` sends the notification `account/rateLimits/updated` (a full
    /// `RateLimitSnapshot`, as Codex sends after a model reply with rate-limit headers).
    RateLimits,
    /// `test/requestPermissions` sends the server request `item/permissions/requestApproval`
    /// and answers with what the client granted (checked against the schema).
    Permissions,
    /// `test/attest` sends the server request `attestation/generate` and answers with the
    /// token the client gave (checked against the schema).
    Attestation,
}

impl Mode {
    /// Every mode, for `--mode all` (not `ignore-eof`, which would slow every shutdown).
    pub const ALL: &'static [Mode] = &[
        Mode::Hang,
        Mode::Slow,
        Mode::Die,
        Mode::Overload,
        Mode::Garbage,
        Mode::Bigline,
        Mode::Unknown,
        Mode::Approval,
        Mode::Flood,
        Mode::ExitOnEof,
        Mode::CloseStdout,
        Mode::Orphan,
        Mode::Stray,
        Mode::RateLimits,
        Mode::Permissions,
        Mode::Attestation,
    ];

    /// Parses a mode from its command-line name.
    pub fn parse(name: &str) -> Option<Mode> {
        Some(match name {
            "hang" => Mode::Hang,
            "slow" => Mode::Slow,
            "die" => Mode::Die,
            "overload" => Mode::Overload,
            "garbage" => Mode::Garbage,
            "bigline" => Mode::Bigline,
            "unknown" => Mode::Unknown,
            "approval" => Mode::Approval,
            "flood" => Mode::Flood,
            "exit-on-eof" => Mode::ExitOnEof,
            "ignore-eof" => Mode::IgnoreEof,
            "close-stdout" => Mode::CloseStdout,
            "no-init" => Mode::NoInit,
            "orphan" => Mode::Orphan,
            "stray" => Mode::Stray,
            "mcp" => Mode::Mcp,
            "mcp-future" => Mode::McpFuture,
            "stop-reading" => Mode::StopReading,
            "turns" => Mode::Turns,
            "overload-start" => Mode::OverloadStart,
            "rate-limits" => Mode::RateLimits,
            "permissions" => Mode::Permissions,
            "attestation" => Mode::Attestation,
            _ => return None,
        })
    }
}

/// Milliseconds since the Unix epoch, for `emittedAtMs`.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Opens fd 1 as an owned writer so that dropping it really closes stdout.
#[cfg(unix)]
fn raw_stdout() -> Box<dyn Write + Send> {
    use std::os::fd::FromRawFd;
    // SAFETY: fd 1 is open for the whole process and nothing else in this
    // program writes to it (std's `stdout()` is never used after start-up),
    // so taking ownership of it is sound.
    Box::new(unsafe { std::fs::File::from_raw_fd(1) })
}

/// Fallback for non-unix targets: std's stdout (cannot really be closed).
#[cfg(not(unix))]
fn raw_stdout() -> Box<dyn Write + Send> {
    Box::new(io::stdout())
}

/// Thread-safe stdout; `None` once closed by `test/close`.
pub struct Output {
    inner: Mutex<Option<BufWriter<Box<dyn Write + Send>>>>,
}

impl Output {
    /// Wraps the process's stdout.
    pub fn stdout() -> Output {
        Output {
            inner: Mutex::new(Some(BufWriter::with_capacity(OUT_BUF, raw_stdout()))),
        }
    }

    /// Locks the writer (tolerating poisoning).
    fn lock(&self) -> MutexGuard<'_, Option<BufWriter<Box<dyn Write + Send>>>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line (a `\n` is appended) and flushes. Silently dropped
    /// after stdout was closed.
    pub fn line(&self, line: &str) {
        let mut guard = self.lock();
        if let Some(w) = guard.as_mut() {
            let res = w
                .write_all(line.as_bytes())
                .and_then(|_| w.write_all(b"\n"))
                .and_then(|_| w.flush());
            if let Err(e) = res {
                eprintln!("fake-app-server: write to stdout failed: {e}");
            }
        }
    }

    /// Serializes `msg` and writes it as one line.
    pub fn send(&self, msg: &Value) {
        self.line(&msg.to_string());
    }

    /// Writes the same pre-rendered line `count` times (flushing only when
    /// the buffer fills and at the end); returns how many were written.
    pub fn repeat(&self, line: &str, count: u64) -> u64 {
        let mut rendered = String::with_capacity(line.len() + 1);
        rendered.push_str(line);
        rendered.push('\n');
        let mut guard = self.lock();
        let Some(w) = guard.as_mut() else { return 0 };
        let mut sent = 0;
        while sent < count {
            if let Err(e) = w.write_all(rendered.as_bytes()) {
                eprintln!("fake-app-server: flood write failed after {sent} lines: {e}");
                return sent;
            }
            sent += 1;
        }
        if let Err(e) = w.flush() {
            eprintln!("fake-app-server: flood flush failed: {e}");
        }
        sent
    }

    /// Flushes and closes stdout; later writes are discarded.
    pub fn close(&self) {
        if let Some(mut w) = self.lock().take() {
            let _ = w.flush();
        }
    }
}

/// What the server does with a client's answer to its request.
#[derive(Clone, Copy, Debug)]
enum Then {
    /// `account/chatgptAuthTokens/refresh`: check the answer against the schema's
    /// `ChatgptAuthTokensRefreshResponse` and answer the waiting request with the account and
    /// the length of the token it now uses (never the token itself).
    UseTokens,
    /// `item/permissions/requestApproval`: check the answer against
    /// `PermissionsRequestApprovalResponse` and answer the waiting request with
    /// `{"granted": <the client's result>}`.
    GrantPermissions,
    /// `attestation/generate`: check the answer against `AttestationGenerateResponse` and
    /// answer the waiting request with `{"token": <the client's token>}`.
    UseAttestation,
}

impl Then {
    /// The answer to the waiting request `id`, given the client's answer `msg`.
    fn answer(self, id: &Value, msg: &Value) -> Value {
        match self {
            Then::UseTokens => {
                let Some(result) = msg.get("result") else {
                    return err(
                        id,
                        INVALID_REQUEST,
                        &format!("token refresh refused: {msg}"),
                    );
                };
                match schema::check("ChatgptAuthTokensRefreshResponse", result) {
                    Ok(()) => ok(
                        id,
                        json!({
                            "usingAccountId": result["chatgptAccountId"],
                            "accessTokenLen": result["accessToken"].as_str().map_or(0, str::len),
                            "planType": result.get("chatgptPlanType").cloned().unwrap_or(Value::Null),
                        }),
                    ),
                    Err(why) => err(
                        id,
                        INVALID_PARAMS,
                        &format!("bad token refresh answer: {why}"),
                    ),
                }
            }
            Then::GrantPermissions => checked_answer(
                id,
                msg,
                "PermissionsRequestApprovalResponse",
                "permissions",
                |r| json!({ "granted": r }),
            ),
            Then::UseAttestation => checked_answer(
                id,
                msg,
                "AttestationGenerateResponse",
                "attestation",
                |r| json!({ "token": r["token"] }),
            ),
        }
    }
}

/// The answer to a waiting request from the client's answer `msg` to a server request: an
/// error naming `what` when the client refused or its result does not pass the schema's
/// `definition`, else `ok(id, result(client's result))`.
fn checked_answer(
    id: &Value,
    msg: &Value,
    definition: &str,
    what: &str,
    result: impl FnOnce(&Value) -> Value,
) -> Value {
    let Some(answer) = msg.get("result") else {
        return err(id, INVALID_REQUEST, &format!("{what} refused: {msg}"));
    };
    match schema::check(definition, answer) {
        Ok(()) => ok(id, result(answer)),
        Err(why) => err(id, INVALID_PARAMS, &format!("bad {what} answer: {why}")),
    }
}

/// `account/rateLimits/updated` params (`AccountRateLimitsUpdatedNotification`): a ChatGPT
/// plan's snapshot with both windows, credits and the limit's name, as Codex 0.171.0 builds it
/// from a model reply's `x-codex-*` rate-limit headers.
fn rate_limits_updated() -> Value {
    json!({
        "rateLimits": {
            "limitId": "codex",
            "limitName": "Codex",
            "planType": "pro",
            "primary": { "usedPercent": 87, "windowDurationMins": 300, "resetsAt": 1_900_000_300 },
            "secondary": { "usedPercent": 12, "windowDurationMins": 10_080, "resetsAt": 1_900_600_000 },
            "credits": { "hasCredits": true, "unlimited": false, "balance": "12.50" },
            "rateLimitReachedType": null,
            "spendControlReached": false,
        }
    })
}

/// `item/permissions/requestApproval` params (`PermissionsRequestApprovalParams`): a turn's
/// command asks to write one folder and to use the network.
fn permissions_request() -> Value {
    json!({
        "threadId": "thr_fake_1",
        "turnId": "turn_1",
        "itemId": "item_perm_1",
        "cwd": "/tmp/proj",
        "reason": "write the build output and fetch dependencies",
        "startedAtMs": 1_900_000_000_000_u64,
        "permissions": {
            "fileSystem": {
                "entries": [{ "access": "write", "path": { "type": "path", "path": "/tmp/proj/out" } }],
                "write": ["/tmp/proj/out"],
            },
            "network": { "enabled": true },
        },
    })
}

/// A ChatGPT account's rate limits as the real server answers `account/rateLimits/read`
/// (`GetAccountRateLimitsResponse`; the real one needs an OpenAI account).
fn rate_limits() -> Value {
    let snapshot = json!({
        "limitId": "codex",
        "planType": "plus",
        "primary": { "usedPercent": 42, "windowDurationMins": 300, "resetsAt": 1_900_000_000 },
        "secondary": { "usedPercent": 7, "windowDurationMins": 10_080, "resetsAt": 1_900_500_000 },
    });
    json!({
        "accountId": "acc_fake_1",
        "rateLimits": snapshot.clone(),
        "rateLimitsByLimitId": { "codex": snapshot },
    })
}

/// Builds a success response.
fn ok(id: &Value, result: Value) -> Value {
    json!({ "id": id, "result": result })
}

/// Builds an error response.
fn err(id: &Value, code: i64, message: &str) -> Value {
    json!({ "id": id, "error": { "code": code, "message": message } })
}

/// Reads an unsigned integer param, defaulting to `default`.
fn param_u64(params: &Value, key: &str, default: u64) -> u64 {
    params.get(key).and_then(Value::as_u64).unwrap_or(default)
}

/// Reads a string param, defaulting to `default`.
fn param_str<'a>(params: &'a Value, key: &str, default: &'a str) -> &'a str {
    params.get(key).and_then(Value::as_str).unwrap_or(default)
}

/// One connection's state; lives on the stdin-reading thread.
pub struct Server {
    modes: HashSet<Mode>,
    out: Arc<Output>,
    initialized: bool,
    /// Whether the client's `initialized` (MCP: `notifications/initialized`) notification
    /// arrived; until it does, every request but `initialize` is refused.
    saw_initialized: bool,
    /// Requests waiting for the client's answer to a server request: server request id →
    /// (the waiting request's id, what to do with the answer).
    waiting: HashMap<String, (Value, Then)>,
    opt_out: HashSet<String>,
    next_server_id: u64,
    /// Pending server→client requests: rendered id → method.
    pending: HashMap<String, String>,
    /// Client answers to server requests, in arrival order.
    answers: Vec<Value>,
    /// Attempts seen per method (for `overload`).
    attempts: HashMap<String, u64>,
}

impl Server {
    /// Creates a server writing to the process's stdout.
    pub fn new(modes: Vec<Mode>) -> Server {
        Server {
            modes: modes.into_iter().collect(),
            out: Arc::new(Output::stdout()),
            initialized: false,
            saw_initialized: false,
            waiting: HashMap::new(),
            opt_out: HashSet::new(),
            next_server_id: 0,
            pending: HashMap::new(),
            answers: Vec::new(),
            attempts: HashMap::new(),
        }
    }

    /// Reads messages from `input` until EOF.
    pub fn run(mut self, mut input: impl BufRead) {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("fake-app-server: stdin read error: {e}");
                    return;
                }
            }
            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(msg) if msg.is_object() => self.handle(msg),
                Ok(other) => eprintln!("fake-app-server: ignoring non-object message: {other}"),
                Err(e) => eprintln!(
                    "fake-app-server: ignoring malformed line ({e}): {}",
                    String::from_utf8_lossy(line)
                ),
            }
        }
    }

    /// Dispatches one JSON object from the client.
    fn handle(&mut self, msg: Value) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned();
        match (id, method) {
            (Some(id), Some(method)) => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                self.request(id, &method, params);
            }
            (None, Some(method)) if method == "notifications/cancelled" && self.mcp() => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                self.notify("test/sawCancelled", params);
            }
            (None, Some(method))
                if method == "initialized" || method == "notifications/initialized" =>
            {
                self.saw_initialized = self.initialized;
            }
            (None, Some(_)) => {} // another client notification: ignore
            (Some(id), None) if msg.get("result").is_some() || msg.get("error").is_some() => {
                let method = self
                    .pending
                    .remove(&id.to_string())
                    .unwrap_or_else(|| "<unknown request>".into());
                eprintln!("client answered {method}: {msg}");
                if let Some((waiting, then)) = self.waiting.remove(&id.to_string()) {
                    self.out.send(&then.answer(&waiting, &msg));
                }
                self.answers.push(msg);
            }
            _ => eprintln!("fake-app-server: ignoring unrecognised message: {msg}"),
        }
    }

    /// Whether an MCP mode is enabled.
    fn mcp(&self) -> bool {
        self.on(Mode::Mcp) || self.on(Mode::McpFuture)
    }

    /// Whether `mode` is enabled.
    fn on(&self, mode: Mode) -> bool {
        self.modes.contains(&mode)
    }

    /// Sends a notification unless the client opted out of its method.
    fn notify(&self, method: &str, params: Value) {
        if !self.opt_out.contains(method) {
            self.out
                .send(&json!({ "method": method, "params": params, "emittedAtMs": now_ms() }));
        }
    }

    /// Sends a server→client request and remembers it for its answer.
    fn server_request(&mut self, method: &str, params: Value) {
        let id = self.next_server_id;
        self.next_server_id += 1;
        self.pending.insert(id.to_string(), method.to_owned());
        self.out
            .send(&json!({ "id": id, "method": method, "params": params }));
    }

    /// Handles one client request.
    fn request(&mut self, id: Value, method: &str, params: Value) {
        if method == "initialize" && self.on(Mode::NoInit) {
            eprintln!("fake-app-server: received initialize (never answered)");
            return;
        }
        if method == "initialize" {
            if self.initialized {
                self.out
                    .send(&err(&id, INVALID_REQUEST, "Already initialized"));
                return;
            }
            self.initialized = true;
            if let Some(list) = params
                .pointer("/capabilities/optOutNotificationMethods")
                .and_then(Value::as_array)
            {
                self.opt_out = list
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
            }
            if self.mcp() {
                let version = if self.on(Mode::McpFuture) {
                    "2099-01-01"
                } else {
                    param_str(&params, "protocolVersion", "2025-11-25")
                };
                self.out.send(&ok(
                    &id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": { "tools": {} },
                        "serverInfo": { "name": "fake-mcp", "version": "0.0.0" },
                    }),
                ));
                return;
            }
            self.out.send(&ok(
                &id,
                json!({
                    "userAgent": format!("fake/{}", crate::schema::window_version()),
                    "codexHome": "/fake",
                    "platformFamily": "unix",
                    "platformOs": "linux",
                }),
            ));
            return;
        }
        if !self.initialized {
            self.out.send(&err(&id, INVALID_REQUEST, "Not initialized"));
            return;
        }
        if !self.saw_initialized {
            let note = if self.mcp() {
                "notifications/initialized"
            } else {
                "initialized"
            };
            let why = format!("Not initialized: no `{note}` notification before {method}");
            eprintln!("fake-app-server: {why}");
            self.out.send(&err(&id, INVALID_REQUEST, &why));
            return;
        }
        let out = Arc::clone(&self.out);
        match method {
            "thread/start" if self.on(Mode::OverloadStart) => {
                *self.attempts.entry(method.to_owned()).or_insert(0) += 1;
                out.send(&err(&id, OVERLOADED, "Server overloaded; retry later."));
            }
            "test/attempts" => {
                let seen = self.attempts.get(param_str(&params, "method", "")).copied();
                out.send(&ok(&id, json!({ "attempts": seen.unwrap_or(0) })));
            }
            "thread/start" if self.on(Mode::Turns) => {
                let n = self.attempts.entry(method.to_owned()).or_insert(0);
                *n += 1;
                let thread = json!({
                    "id": format!("thr_{}_{}", std::process::id(), n),
                    "status": { "type": "idle" },
                });
                out.send(&ok(&id, json!({ "thread": thread.clone() })));
                self.notify("thread/started", json!({ "thread": thread }));
            }
            "turn/start" if self.on(Mode::Turns) => {
                let n = self.attempts.entry(method.to_owned()).or_insert(0);
                *n += 1;
                let turn_id = format!("turn_{n}");
                let thread = param_str(&params, "threadId", "").to_owned();
                let text = params["input"][0]["text"].as_str().unwrap_or("").to_owned();
                let turn = json!({ "id": turn_id, "status": "inProgress", "items": [] });
                out.send(&ok(&id, json!({ "turn": turn })));
                let lines = fake_turn(&thread, &turn_id, &text, &self.opt_out);
                let sleep_ms = word_value(&text, "sleep").unwrap_or(0);
                std::thread::spawn(move || {
                    let (first, rest) = lines.split_at(1);
                    out.line(&first[0]);
                    std::thread::sleep(Duration::from_millis(sleep_ms));
                    for l in rest {
                        out.line(l);
                    }
                });
            }
            "thread/start" => {
                let thread = json!({ "id": "thr_fake_1", "status": { "type": "idle" } });
                out.send(&ok(&id, json!({ "thread": thread.clone() })));
                self.notify("thread/started", json!({ "thread": thread }));
            }
            "test/lastAnswers" => out.send(&ok(&id, json!({ "answers": self.answers }))),
            "account/rateLimits/read" => out.send(&ok(&id, rate_limits())),
            "feedback/upload" => match schema::check("FeedbackUploadParams", &params) {
                Ok(()) => out.send(&ok(
                    &id,
                    json!({ "threadId": params["threadId"].as_str().unwrap_or("thr_feedback_1") }),
                )),
                Err(why) => out.send(&err(&id, INVALID_PARAMS, &format!("Invalid params: {why}"))),
            },
            "test/refreshTokens" => {
                // Ask the client for fresh ChatGPT tokens; this request is answered with what
                // the client's answer held once it arrives (`Then::UseTokens`).
                let sid = self.next_server_id;
                self.server_request(
                    "account/chatgptAuthTokens/refresh",
                    json!({ "reason": "unauthorized", "previousAccountId": "acc_fake_1" }),
                );
                self.waiting.insert(sid.to_string(), (id, Then::UseTokens));
            }
            "test/rateLimitsUpdated" if self.on(Mode::RateLimits) => {
                self.notify("account/rateLimits/updated", rate_limits_updated());
                out.send(&ok(&id, json!({})));
            }
            "test/requestPermissions" if self.on(Mode::Permissions) => {
                // Answered once the client answers (`Then::GrantPermissions`).
                let sid = self.next_server_id;
                self.server_request("item/permissions/requestApproval", permissions_request());
                self.waiting
                    .insert(sid.to_string(), (id, Then::GrantPermissions));
            }
            "test/attest" if self.on(Mode::Attestation) => {
                // Answered once the client answers (`Then::UseAttestation`).
                let sid = self.next_server_id;
                self.server_request("attestation/generate", json!({}));
                self.waiting
                    .insert(sid.to_string(), (id, Then::UseAttestation));
            }
            "test/ping" if self.mcp() => {
                self.server_request("ping", json!({}));
                out.send(&ok(&id, json!({})));
            }
            "test/elicitThenCancel" if self.mcp() => {
                let elicit_id = self.next_server_id;
                self.server_request(
                    "elicitation/create",
                    json!({ "message": "name?", "requestedSchema": { "type": "object", "properties": {} } }),
                );
                self.notify(
                    "notifications/cancelled",
                    json!({ "requestId": elicit_id, "reason": "changed my mind" }),
                );
                out.send(&ok(&id, json!({ "elicitationId": elicit_id })));
            }
            "test/stopReading" if self.on(Mode::StopReading) => {
                out.send(&ok(&id, json!({})));
                eprintln!("fake-app-server: no longer reading stdin");
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            "test/hang" if self.on(Mode::Hang) => {
                eprintln!(
                    "fake-app-server: received test/hang, hanging on test/hang (request {id})"
                );
            }
            "test/orphanDie" if self.on(Mode::Orphan) => {
                let orphan = std::process::Command::new("sleep").arg("30").spawn();
                match orphan {
                    Ok(child) => eprintln!("fake-app-server: orphan pid {}", child.id()),
                    Err(e) => eprintln!("fake-app-server: could not start the orphan: {e}"),
                }
                eprintln!("fatal: fake server dying, its orphan holds stdout");
                let _ = io::stderr().flush();
                std::process::exit(4);
            }
            "test/stray" if self.on(Mode::Stray) => {
                out.send(&ok(&id, json!({ "first": true })));
                out.send(&ok(&id, json!({ "second": true })));
                out.send(&ok(&json!(987_654_321), json!({})));
                out.send(&ok(&json!("nobody"), json!({})));
            }
            "test/slow" if self.on(Mode::Slow) => {
                let ms = param_u64(&params, "ms", 0);
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(ms));
                    out.send(&ok(&id, json!({ "sleptMs": ms })));
                });
            }
            "test/die" if self.on(Mode::Die) => {
                eprintln!("fake-app-server: received test/die");
                eprintln!("fatal: fake server dying on purpose");
                eprintln!("note: exiting with code 3 without answering request {id}");
                let _ = io::stderr().flush();
                std::process::exit(3);
            }
            "test/overload" if self.on(Mode::Overload) => {
                let failures = param_u64(&params, "failures", 0);
                let seen = self.attempts.entry(method.to_owned()).or_insert(0);
                *seen += 1;
                if *seen <= failures {
                    out.send(&err(&id, OVERLOADED, "Server overloaded; retry later."));
                } else {
                    out.send(&ok(&id, json!({ "attempts": *seen })));
                }
            }
            "test/garbage" if self.on(Mode::Garbage) => {
                out.line("this is not json {{{");
                out.line("[1,2,3]");
                out.send(&ok(&id, json!({ "ok": true })));
            }
            "test/emitRaw" if self.on(Mode::Garbage) => {
                // One line exactly as given (a notification whose JSON a client must read as
                // written: big integers, exponents, escapes), then the answer.
                out.line(param_str(&params, "line", ""));
                out.send(&ok(&id, json!({})));
            }
            "test/bigline" if self.on(Mode::Bigline) => {
                let n = param_u64(&params, "bytes", 0);
                self.notify("test/big", json!({ "data": "x".repeat(n as usize) }));
                out.send(&ok(&id, json!({ "len": n })));
            }
            "test/unknown" if self.on(Mode::Unknown) => {
                self.notify(
                    "brand/newThing",
                    json!({ "threadId": "thr_fake_1", "futureField": { "a": [1, 2] } }),
                );
                self.server_request("brand/newRequest", json!({ "x": 1 }));
                out.send(&ok(&id, json!({})));
            }
            "test/approval" if self.on(Mode::Approval) => {
                let req = param_str(&params, "method", "item/commandExecution/requestApproval")
                    .to_owned();
                self.server_request(
                    &req,
                    json!({
                        "threadId": "thr_fake_1",
                        "turnId": "turn_1",
                        "itemId": "item_1",
                        "command": "echo hi",
                        "cwd": "/tmp",
                        "reason": "test",
                    }),
                );
                out.send(&ok(&id, json!({})));
            }
            "test/resolve" if self.on(Mode::Approval) => {
                // The server withdraws its request itself, as Codex does when the turn
                // moves on without the answer.
                let rid = params.get("requestId").cloned().unwrap_or(json!(0));
                self.notify(
                    "serverRequest/resolved",
                    json!({ "threadId": "thr_fake_1", "requestId": rid }),
                );
                out.send(&ok(&id, json!({})));
            }
            "test/flood" if self.on(Mode::Flood) => {
                let count = param_u64(&params, "count", 0);
                let note = param_str(&params, "method", "item/agentMessage/delta");
                let sent = if self.opt_out.contains(note) {
                    0
                } else {
                    let line = json!({
                        "method": note,
                        "params": { "threadId": "thr_fake_1", "turnId": "turn_1", "itemId": "msg_1", "delta": "x" },
                        "emittedAtMs": now_ms(),
                    })
                    .to_string();
                    out.repeat(&line, count)
                };
                out.send(&ok(&id, json!({ "sent": sent })));
            }
            "test/close" if self.on(Mode::CloseStdout) => {
                eprintln!("fake-app-server: closing stdout on purpose (request {id} unanswered)");
                out.close();
            }
            _ => out.send(&ok(&id, json!({ "method": method, "params": params }))),
        }
    }
}

/// `key=N` in a turn's text, if there.
fn word_value(text: &str, key: &str) -> Option<u64> {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

/// The lines of one fake turn (mode `turns`) on `thread`: `turn/started`, then (after the
/// `sleep=MS` of the text, if any) `deltas=N` agent-message deltas (default 3) that spell
/// `echo: <text>`, the completed agent message and `turn/completed`; methods the client
/// opted out of are left out.
fn fake_turn(thread: &str, turn: &str, text: &str, opt_out: &HashSet<String>) -> Vec<String> {
    let answer = format!("echo: {text}");
    let n = word_value(text, "deltas").unwrap_or(3).max(1) as usize;
    let chars: Vec<char> = answer.chars().collect();
    let per = chars.len().div_ceil(n).max(1);
    let item = format!("msg_{turn}");
    let mut notes = vec![(
        "turn/started",
        json!({ "threadId": thread, "turn": { "id": turn, "status": "inProgress", "items": [] } }),
    )];
    for i in 0..n {
        let piece: String = chars.iter().skip(i * per).take(per).collect();
        notes.push((
            "item/agentMessage/delta",
            json!({ "threadId": thread, "turnId": turn, "itemId": item, "delta": piece }),
        ));
    }
    notes.push((
        "item/completed",
        json!({ "threadId": thread, "turnId": turn,
                "item": { "type": "agentMessage", "id": item, "text": answer } }),
    ));
    notes.push((
        "turn/completed",
        json!({ "threadId": thread, "turn": { "id": turn, "status": "completed", "items": [] } }),
    ));
    notes
        .into_iter()
        .filter(|(m, _)| !opt_out.contains(*m))
        .map(|(m, p)| json!({ "method": m, "params": p, "emittedAtMs": now_ms() }).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{permissions_request, rate_limits_updated};
    use crate::schema::check;

    /// What the new modes send has the vendored schema's shape, member by member.
    #[test]
    fn rate_limits_and_permission_params_match_the_schema() {
        let n = rate_limits_updated();
        check("AccountRateLimitsUpdatedNotification", &n).unwrap();
        let snap = &n["rateLimits"];
        check("RateLimitSnapshot", snap).unwrap();
        check("RateLimitWindow", &snap["primary"]).unwrap();
        check("RateLimitWindow", &snap["secondary"]).unwrap();
        check("CreditsSnapshot", &snap["credits"]).unwrap();

        let p = permissions_request();
        check("PermissionsRequestApprovalParams", &p).unwrap();
        check("RequestPermissionProfile", &p["permissions"]).unwrap();
        let fs = &p["permissions"]["fileSystem"];
        check("AdditionalFileSystemPermissions", fs).unwrap();
        check("FileSystemSandboxEntry", &fs["entries"][0]).unwrap();
        check("AdditionalNetworkPermissions", &p["permissions"]["network"]).unwrap();
    }
}
