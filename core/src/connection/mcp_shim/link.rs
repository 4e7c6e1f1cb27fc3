//! The shim's connection to `codex mcp-server`: an internal [`Client`] over
//! [`TransportKind::McpStdio`] with poll delivery, and the task that routes what the server
//! sends: `codex/event` notifications to the turn whose `tools/call` they belong to,
//! `elicitation/create` requests to the approval mapping, every other notification on to the
//! engine.

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use super::approvals;
use crate::connection::{Client, InitializeResult};
use crate::correlation::Outcome;
use crate::delivery::EventReceiver;
use crate::error::{Error, Result};
use crate::event::{ConnectionEvent, Event, ServerRequest};
use crate::options::{ClientOptions, Delivery, McpOptions, RequestOptions, TransportKind};
use crate::session::SessionShared;
use crate::transport::process;
use crate::transport::shim::ShimConn;

/// The timeout of a `tools/call`: a turn runs as long as it runs.
const NO_LIMIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// The MCP connection and what routes its events.
pub(super) struct Link {
    client: Client,
    session: Arc<SessionShared>,
    /// The running `tools/call`s by request id.
    calls: Mutex<HashMap<i64, Call>>,
    /// The last approval event (`exec_approval_request`, `apply_patch_approval_request`) by
    /// call id, for the reason shown in the approval request.
    approval_events: Mutex<HashMap<String, Value>>,
    /// The running call of each Codex thread (real id → request id). 0.92.0 keeps the
    /// event forwarder of an interrupted call alive, so later events of the thread can arrive
    /// under the old request id: they are routed by thread to the call now running.
    by_thread: Mutex<HashMap<String, i64>>,
    /// Asks the router to hand on every event already received (see [`flush`](Self::flush)).
    flush: mpsc::UnboundedSender<oneshot::Sender<()>>,
}

/// The options of the internal client: `codex [-c k=v]... mcp-server [args]...` with the
/// client's process settings, poll delivery, `connect_timeout` = `budget`.
fn inner_options(opts: &ClientOptions, budget: Duration) -> Result<ClientOptions> {
    let mut o = opts.clone();
    o.transport = TransportKind::McpStdio(process::codex_command_line(opts, "mcp-server")?);
    o.delivery = Delivery::Poll;
    o.connect_timeout = budget;
    o.mcp = McpOptions {
        capabilities: Some(json!({"elicitation": {}})),
        roots: None,
        // `codex mcp-server` speaks the handshake era: no `server/discover` probe.
        protocol: crate::protocol::mcp::era::EraMode::Legacy,
        input_rounds: crate::options::DEFAULT_INPUT_ROUNDS,
        cache: false,
        ..McpOptions::default()
    };
    Ok(o)
}

/// Requests of the shim: never read ahead (the router drains the queue on its own task).
fn request_options(timeout: Duration) -> RequestOptions {
    RequestOptions {
        timeout: Some(timeout),
        retry: None,
        read_ahead: Some(false),
    }
}

impl Link {
    /// Start `codex mcp-server` and run the MCP handshake within `budget`; events go to
    /// `conn` or to the turns from now on.
    pub(super) async fn connect(
        opts: &ClientOptions,
        budget: Duration,
        conn: Arc<ShimConn>,
    ) -> Result<(Arc<Link>, InitializeResult)> {
        let client = Client::new(inner_options(opts, budget)?);
        // A connect that fails stops its server before it returns (about a second at most);
        // one in progress when the runtime goes away is dropped with it.
        let init = client.connect_async().await?;
        let session = client.live_session()?;
        let events = client.events()?;
        let (flush, flush_rx) = mpsc::unbounded_channel();
        let link = Arc::new(Link {
            client,
            session,
            calls: Mutex::new(HashMap::new()),
            approval_events: Mutex::new(HashMap::new()),
            by_thread: Mutex::new(HashMap::new()),
            flush,
        });
        crate::rt::spawn(link.clone().route_all(conn, events, flush_rx));
        Ok((link, init))
    }

    /// A control request with a timeout.
    pub(super) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        self.client
            .request_with(method, params, request_options(timeout))
            .await
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
        let raw = serde_json::value::to_raw_value(params)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        // Held while the call is sent, so that its first events find it registered.
        let mut calls = self.calls.lock().unwrap();
        let (id, outcome) =
            self.session
                .start_tracked("tools/call", &raw, request_options(NO_LIMIT), false)?;
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
        self.session.abandon(id);
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

    /// Wait until every event received so far has been handed on. A call's answer arrives
    /// beside the events, which the server sent before it: a turn flushes before it ends.
    pub(super) async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.flush.send(tx).is_ok() {
            let _ = rx.await;
        }
    }

    /// Why the connection ended, once it has.
    pub(super) fn closed_error(&self) -> Option<Error> {
        self.session
            .is_closed()
            .then(|| self.session.disconnect_error())
    }

    /// Stop the server (gracefully: queued lines go out first).
    pub(super) async fn disconnect(&self) {
        self.client.disconnect_async().await;
    }

    /// Hand on every event of the connection until it ends; then the turns still waiting
    /// for events see the end.
    async fn route_all(
        self: Arc<Self>,
        conn: Arc<ShimConn>,
        mut events: EventReceiver,
        mut flush: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    ) {
        loop {
            tokio::select! {
                biased;
                Some(done) = flush.recv() => {
                    // Events queued but not yet woken for are taken too.
                    for ev in events.take_ready() {
                        self.route(&conn, ev);
                    }
                    let _ = done.send(());
                }
                ev = events.next() => match ev {
                    Some(ev) => self.route(&conn, ev),
                    None => break,
                },
            }
        }
        self.calls.lock().unwrap().clear();
    }

    fn route(&self, conn: &Arc<ShimConn>, ev: Event) {
        match ev {
            Event::Notification(n) if n.method == "codex/event" => {
                self.codex_event(conn, n.params_value())
            }
            Event::Notification(n) => {
                let (method, params) = forward(&n.method, n.params_value(), |token| {
                    let calls = self.calls.lock().unwrap();
                    let mut turns = calls.values().map(|c| &c.turn);
                    turns.find(|(_, turn)| turn == token).cloned()
                });
                conn.notify(&method, params);
            }
            Event::ServerRequest(req) if req.method == "elicitation/create" => {
                self.elicitation(conn, req)
            }
            // Anything else the server asks (`ping` is answered by the core) is refused.
            Event::ServerRequest(req) => {
                let _ = req.respond_fail_closed();
            }
            Event::Connection(ConnectionEvent::Error(e)) => {
                tracing::debug!("codex mcp-server connection: {e}");
            }
            _ => {}
        }
    }

    /// A `codex/event`: to the call it names (by request id, else by Codex thread), else on
    /// to the engine raw.
    fn codex_event(&self, conn: &Arc<ShimConn>, params: Value) {
        let msg = &params["msg"];
        let ty = match msg["type"].as_str() {
            Some(t) if !t.is_empty() => t.to_owned(),
            _ => "unknown".to_owned(),
        };
        if ty == "exec_approval_request" || ty == "apply_patch_approval_request" {
            if let Some(cid) = msg["call_id"].as_str() {
                self.approval_events
                    .lock()
                    .unwrap()
                    .insert(cid.to_owned(), msg.clone());
            }
        }
        let call = {
            let calls = self.calls.lock().unwrap();
            let req = params["_meta"]["requestId"].as_i64();
            let call = req.and_then(|r| calls.get(&r)).or_else(|| {
                let real = params["_meta"]["threadId"].as_str()?;
                let r = *self.by_thread.lock().unwrap().get(real)?;
                calls.get(&r)
            });
            call.map(|c| c.events.clone())
        };
        let params = match call {
            Some(tx) => match tx.send(params) {
                Ok(()) => return,
                Err(unsent) => unsent.0,
            },
            None => params,
        };
        // An event of no running call: passed on raw, never dropped.
        conn.notify(&format!("codex/event/{ty}"), params);
    }

    /// An `elicitation/create` (exec or patch approval), answered on a task of its own.
    fn elicitation(&self, conn: &Arc<ShimConn>, req: ServerRequest) {
        let params = req.params_value();
        let call = &params["codex_mcp_tool_call_id"];
        let call: Option<i64> = call
            .as_str()
            .and_then(|s| s.parse().ok())
            .or_else(|| call.as_i64());
        let turn = call.and_then(|c| Some(self.calls.lock().unwrap().get(&c)?.turn.clone()));
        let event = params["codex_call_id"]
            .as_str()
            .and_then(|id| self.approval_events.lock().unwrap().remove(id))
            .unwrap_or(Value::Null);
        crate::rt::spawn(approvals::answer(conn.clone(), req, params, turn, event));
    }
}

/// A running `tools/call`.
struct Call {
    /// Where its `codex/event`s go.
    events: mpsc::UnboundedSender<Value>,
    /// Its turn (for elicitations and progress): (local thread id, turn id).
    turn: (String, String),
}

/// The engine's notification for an MCP notification other than `codex/event`:
/// `notifications/<x>` becomes `mcp/<x>` (any other method keeps its name), with the MCP
/// params; progress whose token is a running turn's (`turn_of` finds its local thread and
/// turn ids) gets that turn's `threadId` and `turnId`.
fn forward(
    method: &str,
    mut params: Value,
    turn_of: impl Fn(&str) -> Option<(String, String)>,
) -> (String, Value) {
    let method = match method.strip_prefix("notifications/") {
        Some(rest) => format!("mcp/{rest}"),
        None => method.to_owned(),
    };
    if method == "mcp/progress" {
        let turn = params["progressToken"].as_str().and_then(&turn_of);
        if let (Some((thread, turn)), Some(o)) = (turn, params.as_object_mut()) {
            o.insert("threadId".into(), json!(thread));
            o.insert("turnId".into(), json!(turn));
        }
    }
    (method, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_turn(_: &str) -> Option<(String, String)> {
        None
    }

    #[test]
    fn server_notifications_are_forwarded_under_mcp() {
        let log = json!({"level": "warning", "logger": "codex", "data": "disk almost full"});
        assert_eq!(
            forward("notifications/message", log.clone(), no_turn),
            ("mcp/message".to_owned(), log)
        );
        let changed = forward("notifications/tools/list_changed", Value::Null, no_turn);
        assert_eq!(changed.0, "mcp/tools/list_changed");
        assert_eq!(forward("x/custom", json!({"a": 1}), no_turn).0, "x/custom");
    }

    #[test]
    fn progress_of_a_running_turn_is_scoped_to_it() {
        let turn_of = |t: &str| {
            (t == "mcp-turn-3").then(|| ("mcp-thread-1".to_owned(), "mcp-turn-3".to_owned()))
        };
        let p = json!({"progressToken": "mcp-turn-3", "progress": 1, "total": 4});
        let (m, v) = forward("notifications/progress", p, turn_of);
        assert_eq!(m, "mcp/progress");
        assert_eq!(v["threadId"], "mcp-thread-1");
        assert_eq!(v["turnId"], "mcp-turn-3");
        assert_eq!(v["progress"], 1);
        let other = json!({"progressToken": 7, "progress": 1});
        let (_, v) = forward("notifications/progress", other.clone(), turn_of);
        assert_eq!(v, other, "progress of no turn is passed on unchanged");
    }
}
