//! Turns: `turn/start` runs one `tools/call` (`codex` for a thread's first turn,
//! `codex-reply` after) and turns its events and result into the turn's notifications;
//! `turn/interrupt` gives the call up.

use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

use super::events::{codex_thread_ids, Ending, TurnEvents};
use super::link::{Link, Outcome};
use super::threads::{apply_settings, reject_unknown};
use super::{err, McpShim, TRANSPORT};
use crate::error::{Error, RpcError};
use crate::transport::shim::{now_ms, ShimConn};

/// The `turn/start` params that set how the turn runs (besides `threadId` and `input`).
const TURN_SETTINGS: [&str; 9] = [
    "model",
    "cwd",
    "approvalPolicy",
    "sandboxPolicy",
    "effort",
    "summary",
    "config",
    "profile",
    "compactPrompt",
];
/// How long an interrupted turn waits for Codex's `turn_aborted` before ending anyway.
const ABORT_GRACE: Duration = Duration::from_secs(5);

impl McpShim {
    pub(super) fn turn_interrupt(&self, params: &Value) -> Result<Value, RpcError> {
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
        let Some((turn_id, signal)) = active else {
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
        signal.notify_one();
        Ok(json!({}))
    }

    pub(super) fn turn_start(
        self: &Arc<Self>,
        conn: Arc<ShimConn>,
        params: Value,
    ) -> Result<Value, RpcError> {
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
        let link = self.link()?;
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
            rec.active = Some((turn_id.clone(), signal.clone()));
            (tool, args)
        };
        let started = now_ms() as i64;
        let turn = json!({"id": turn_id, "items": [], "status": "inProgress", "error": null,
            "startedAt": started / 1000, "completedAt": null, "durationMs": null});
        let run = TurnRun {
            shim: self.clone(),
            link,
            events: TurnEvents::new(conn, thread_id, turn_id),
            call_id: None,
            started_ms: started,
            interrupted: false,
        };
        crate::rt::spawn(run.run(tool, Value::Object(args), signal));
        Ok(json!({"turn": turn}))
    }
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

/// How a turn's call ended.
enum End {
    Result(crate::error::Result<Value>),
    /// `task_complete` (the call's result, if it still comes, adds nothing).
    Complete(Option<String>),
    Aborted,
    Closed,
}

/// One running turn: the `tools/call` and the translation of its events.
struct TurnRun {
    shim: Arc<McpShim>,
    link: Arc<Link>,
    events: TurnEvents,
    /// The `tools/call` request id, once sent.
    call_id: Option<i64>,
    started_ms: i64,
    /// The call was given up (interrupt).
    interrupted: bool,
}

impl TurnRun {
    /// Learn Codex's id of this thread; its events that name no running call come here.
    fn set_real_id(&self, real: &str) {
        if real.is_empty() {
            return;
        }
        if let Some(rec) = self
            .shim
            .threads
            .lock()
            .unwrap()
            .get_mut(&self.events.thread_id)
        {
            if rec.real_id.is_none() {
                rec.real_id = Some(real.to_owned());
            }
        }
        if let Some(id) = self.call_id {
            self.link.route_thread(real, id);
        }
    }

    /// Handle one `codex/event`; `Some` when it ends the turn.
    fn event(&mut self, params: Value) -> Option<Ending> {
        for real in codex_thread_ids(&params) {
            self.set_real_id(real);
        }
        self.events.translate(params)
    }

    async fn run(mut self, tool: &'static str, args: Value, interrupt: Arc<Notify>) {
        let (tid, turn) = self.events.ids();
        let conn = self.events.conn.clone();
        conn.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": "active", "activeFlags": []}}),
        );
        conn.notify(
            "turn/started",
            json!({"threadId": tid, "turn": {"id": turn, "items": [], "status": "inProgress",
                "error": null, "startedAt": self.started_ms / 1000}}),
        );
        let (tx, rx) = mpsc::unbounded_channel();
        // The progress token names the turn, so that progress reaches its stream.
        let params = json!({"name": tool, "arguments": args,
            "_meta": {"progressToken": self.events.turn_id}});
        let (thread, turn) = (&self.events.thread_id, &self.events.turn_id);
        let started = self.link.start_call(&params, thread, turn, tx);
        let end = match started {
            Err(e) => End::Result(Err(e)),
            Ok((id, call)) => {
                self.call_id = Some(id);
                if let Some(real) = args["threadId"].as_str() {
                    self.set_real_id(real);
                }
                let end = self.wait(call, rx, &interrupt).await;
                // A call Codex ended itself (`turn_aborted` after a `cancel` decision) is
                // never answered; it stays pending until the connection ends (cancelling it
                // would send Codex an interrupt for a turn that is already over).
                self.link.end_call(id);
                end
            }
        };
        self.finish(end);
    }

    /// Translate the call's events until it ends: its result, an event that ends the task,
    /// the end of the connection, or (after an interrupt) [`ABORT_GRACE`].
    async fn wait(
        &mut self,
        mut call: Outcome,
        mut events: mpsc::UnboundedReceiver<Value>,
        interrupt: &Notify,
    ) -> End {
        let mut call_open = true;
        let mut deadline: Option<tokio::time::Instant> = None;
        loop {
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                ev = events.recv() => match ev {
                    Some(p) => match self.event(p) {
                        Some(Ending::Aborted) => return End::Aborted,
                        Some(Ending::Complete(last)) => return End::Complete(last),
                        None => {}
                    },
                    None => return End::Closed,
                },
                r = &mut call, if call_open => {
                    call_open = false;
                    let Ok(r) = r else {
                        // Given up (interrupt, shutdown): Codex ends the task with
                        // `turn_aborted`.
                        deadline.get_or_insert(tokio::time::Instant::now() + ABORT_GRACE);
                        continue;
                    };
                    // The link hands on the call's events in the order the server sent them,
                    // all before the answer: they are in the channel now.
                    while let Ok(p) = events.try_recv() {
                        self.event(p);
                    }
                    return End::Result(r);
                }
                _ = interrupt.notified(), if !self.interrupted => {
                    self.interrupted = true;
                    if let Some(id) = self.call_id {
                        self.link.cancel(id);
                    }
                    deadline = Some(tokio::time::Instant::now() + ABORT_GRACE);
                }
                _ = sleep => return End::Aborted,
            }
        }
    }

    /// Complete the turn: `thread/status/changed` to idle and `turn/completed`.
    fn finish(mut self, end: End) {
        let status = match end {
            End::Aborted => "interrupted",
            End::Closed => {
                let why = self
                    .link
                    .closed_error()
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| "codex mcp-server closed the connection".into());
                self.events.error = Some(json!({ "message": why }));
                "failed"
            }
            End::Result(Err(_)) if self.interrupted => "interrupted",
            End::Result(Err(e)) => {
                let (code, message) = match &e {
                    Error::Rpc(r) => (r.code, r.message.clone()),
                    other => (-32603, other.to_string()),
                };
                self.events.error = Some(json!({"message": message, "code": code}));
                "failed"
            }
            End::Result(Ok(v)) => {
                if let Some(real) = v["structuredContent"]["threadId"].as_str() {
                    self.set_real_id(real);
                }
                self.events.absorb_result(&v)
            }
            End::Complete(last) => {
                let text = last.unwrap_or_default();
                self.events
                    .absorb_result(&json!({"content": [{"type": "text", "text": text}]}))
            }
        };
        let real = {
            let mut threads = self.shim.threads.lock().unwrap();
            let rec = threads.get_mut(&self.events.thread_id);
            rec.and_then(|r| {
                r.active = None;
                r.real_id.clone()
            })
        };
        let now = now_ms() as i64;
        let (tid, turn) = self.events.ids();
        let conn = &self.events.conn;
        conn.notify(
            "thread/status/changed",
            json!({"threadId": tid, "status": {"type": "idle"}}),
        );
        conn.notify(
            "turn/completed",
            json!({"threadId": tid, "mcpThreadId": real, "turn": {
                "id": turn, "items": [], "status": status, "error": self.events.error,
                "startedAt": self.started_ms / 1000, "completedAt": now / 1000,
                "durationMs": now - self.started_ms,
            }}),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_joins_text_and_rejects_images() {
        let p = json!({"input": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(prompt_of(&p).unwrap(), "a\nb");
        let p = json!({"input": [{"type": "image", "url": "x"}]});
        assert!(prompt_of(&p).unwrap_err().data.is_some());
    }
}
