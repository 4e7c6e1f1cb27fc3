//! The Codex app-server's [`Rules`]: JSON-RPC v2 without the `"jsonrpc"` member, overload
//! retried, no cancel notification, `initialized` after `initialize`, threads rejoined on a
//! reconnect (`continuity`), and `serverRequest/resolved` closing a server request. Also the rules of the
//! exec and `codex mcp-server` shims, which present the app-server's semantics.

use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;

mod continuity;

use super::handshake::client_info;
use super::{Link, Resumed, Resumption, Route, Rules};
use crate::error::{Error, Result};
use crate::event::ConnectionEvent;
use crate::event::Notification;
use crate::message::request_id_param;
use crate::options::{ClientOptions, TransportKind};
use crate::version::{check_server_version, ServerVersion, VersionSource};
use continuity::{Continuity, WithTurn, TURN_COMPLETED};
use std::collections::HashMap;
use std::sync::Mutex;

/// The app-server's rules on one connection.
pub(crate) struct AppServerRules {
    /// The params of `initialize`: the client's info and capabilities.
    init_params: Box<RawValue>,
    /// Loaded threads and running turns, kept for the rejoin (option `reconnect` only).
    continuity: Option<Continuity>,
    /// Whether the transport reaches a real app-server (the exec and `codex mcp-server`
    /// shims have no version).
    real: bool,
    /// Which server the transport reaches (for [`ServerVersion::source`]).
    source: VersionSource,
    /// The installed CLI's version, learned as the link opened (the control socket only).
    cli_version: Mutex<Option<String>>,
    /// The real app-server's Codex version in the window (`None`: the shims, or the
    /// handshake is not done); requests for methods it lacks are refused before sending.
    version: Mutex<Option<ServerVersion>>,
    /// Each thread's `status` as the server last reported it (`thread/status/changed`).
    statuses: Mutex<HashMap<String, Value>>,
}

impl AppServerRules {
    /// The rules of one connection with these options' values.
    pub(crate) fn from_options(opts: &ClientOptions) -> AppServerRules {
        let mut caps = serde_json::Map::new();
        caps.insert("experimentalApi".into(), Value::Bool(opts.experimental_api));
        if !opts.opt_out_notification_methods.is_empty() {
            caps.insert(
                "optOutNotificationMethods".into(),
                opts.opt_out_notification_methods.clone().into(),
            );
        }
        let params = serde_json::json!({ "clientInfo": client_info(opts), "capabilities": caps });
        AppServerRules {
            init_params: serde_json::value::to_raw_value(&params)
                .expect("initialize params serialize"),
            continuity: opts.reconnect.map(|_| Continuity::default()),
            real: opts.transport.reaches_app_server(),
            source: match opts.transport {
                TransportKind::WebSocket { .. } => VersionSource::Remote,
                TransportKind::Unix { .. } => VersionSource::ControlSocket,
                _ => VersionSource::Spawned,
            },
            cli_version: Mutex::new(None),
            version: Mutex::new(None),
            statuses: Mutex::new(HashMap::new()),
        }
    }

    /// The last `status` object the server reported for a thread.
    pub(crate) fn thread_status(&self, thread_id: &str) -> Option<Value> {
        self.statuses.lock().unwrap().get(thread_id).cloned()
    }

    /// The real app-server's Codex version (`None`: a shim, or not yet known).
    pub(crate) fn server_version(&self) -> Option<ServerVersion> {
        self.version.lock().unwrap().clone()
    }
}

/// The notification by which the server says it resolved a request of its own.
const SERVER_REQUEST_RESOLVED: &str = "serverRequest/resolved";
/// The notification that reports a thread's status.
const THREAD_STATUS_CHANGED: &str = "thread/status/changed";

#[derive(serde::Deserialize)]
struct StatusChanged {
    #[serde(rename = "threadId")]
    thread_id: String,
    status: Value,
}

impl Rules for AppServerRules {
    fn jsonrpc_member(&self) -> bool {
        false
    }
    fn retries_overload(&self) -> bool {
        true
    }
    fn cancelled(&self, _id: i64, _reason: &str) -> Option<(&'static str, Box<RawValue>)> {
        None
    }
    fn initialize_params(&self) -> &RawValue {
        &self.init_params
    }
    fn check_handshake(&self, _result: &Value) -> Result<()> {
        Ok(())
    }
    /// A real app-server answered `initialize` (the first connect's or a reconnect's): its
    /// version (`userAgent`) is placed in the window, next to the installed CLI's through the
    /// control socket; an `OutsideWindow` event when it is outside, a `VersionMismatch` one
    /// when it is not the CLI's (each with its WARNING line); it decides from now on.
    fn handshaken(&self, result: &Value, link: &dyn Link) {
        if !self.real {
            return;
        }
        let user_agent = result.get("userAgent").and_then(Value::as_str);
        let cli = self.cli_version.lock().unwrap().clone();
        let version = check_server_version(user_agent, Some(self.source), cli);
        if !version.in_window() {
            link.connection_event(ConnectionEvent::OutsideWindow(version.clone()));
        }
        if version.differs_from_cli() {
            link.connection_event(ConnectionEvent::VersionMismatch(version.clone()));
        }
        *self.version.lock().unwrap() = Some(version);
    }
    fn link_opened(&self, cli_version: Option<String>) {
        *self.cli_version.lock().unwrap() = cli_version;
    }
    fn refusal(&self, method: &str) -> Option<Error> {
        let refusal = self.version.lock().unwrap().as_ref()?.refusal(method)?;
        Some(Error::UnsupportedByVersion(Box::new(refusal)))
    }
    fn initialized_method(&self) -> &'static str {
        crate::protocol::INITIALIZED_NOTIFICATION
    }
    fn observe_result(&self, method: &str, request_line: &[u8], result: &RawValue) {
        if let Some(c) = &self.continuity {
            c.observe_result(method, request_line, result);
        }
    }
    fn admit(&self, n: &Notification) -> bool {
        self.continuity.as_ref().is_none_or(|c| c.admit(n))
    }
    fn resumptions(&self) -> Vec<Resumption> {
        self.continuity
            .as_ref()
            .map(Continuity::resumptions)
            .unwrap_or_default()
    }
    fn resumed(
        &self,
        what: &str,
        outcome: std::result::Result<&Value, &str>,
        restarted: bool,
    ) -> Resumed {
        match &self.continuity {
            Some(c) => c.resumed(what, outcome, restarted),
            None => Resumed::default(),
        }
    }
    fn resume_failed(&self, what: &str) {
        if let Some(c) = &self.continuity {
            c.forget_thread(what);
        }
    }
    /// `thread/status/changed` records the thread's status; `turn/completed` ends the stream
    /// of its thread's turn (of the turn it names; any turn when its params name none).
    fn delivering(&self, n: &Notification) -> Option<Option<String>> {
        match n.method.as_str() {
            THREAD_STATUS_CHANGED => {
                if let Ok(s) = serde_json::from_str::<StatusChanged>(n.params.get()) {
                    self.statuses.lock().unwrap().insert(s.thread_id, s.status);
                }
                None
            }
            TURN_COMPLETED => Some(
                serde_json::from_str::<WithTurn>(n.params.get())
                    .ok()
                    .map(|d| d.turn.id.into_owned()),
            ),
            _ => None,
        }
    }
    fn notified(&self, method: &str, params: &RawValue, link: &dyn Link) -> Route {
        if method == SERVER_REQUEST_RESOLVED {
            if let Some(id) = request_id_param(params) {
                link.request_withdrawn(&id);
            }
        }
        Route::Deliver
    }
    fn answers_itself(&self, _method: &str, _handled: bool) -> Option<Value> {
        None
    }
    fn progress_token(&self, _params: &RawValue) -> Option<String> {
        None
    }
    fn check_result(&self, _method: &str, _params: &RawValue, _result: &RawValue) -> Result<()> {
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
