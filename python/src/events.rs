//! Event objects handed to Python: cheap to build (the core's event is moved in, nothing is
//! parsed), with the common fields read on access and `params` parsed once, on first access.

use codex_client::{
    Client, ConnectionEvent as CoreConnection, Decision, Event, RequestId, RpcError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use pyo3::{IntoPyObjectExt, PyClassInitializer};

use serde_json::Value;

use crate::args::py_to_value;
use crate::errors::IntoPyResult;

fn params_of<'py>(
    py: Python<'py>,
    cache: &PyOnceLock<Py<PyAny>>,
    json: &str,
) -> PyResult<Bound<'py, PyAny>> {
    cache
        .get_or_try_init(py, || crate::json::loads(py, json))
        .map(|v| v.bind(py).clone())
}

/// A member's raw JSON (absent: `None`) as Python objects.
fn loads_opt(py: Python<'_>, json: Option<&str>) -> PyResult<Option<Py<PyAny>>> {
    json.map(|j| crate::json::loads(py, j)).transpose()
}

/// A server notification (`{method, params}`). Unknown methods arrive unchanged.
#[pyclass(module = "codexclient._native", subclass, frozen)]
pub struct Notification {
    inner: codex_client::Notification,
    params: PyOnceLock<Py<PyAny>>,
}

/// The `#[pymethods]` of an event class: the getters every message (notification, server
/// request) has, and the class's own `$extra` items.
macro_rules! message_class {
    ($class:ident { $($extra:tt)* }) => {
        #[pymethods]
        impl $class {
            /// The method name, for example `item/agentMessage/delta`.
            #[getter]
            fn method(&self) -> &str {
                &self.inner.method
            }
            /// `params` as Python objects (parsed on first access, then cached).
            #[getter]
            fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                params_of(py, &self.params, self.inner.params_json())
            }
            /// `params` as the server's JSON text.
            #[getter]
            fn params_json(&self) -> &str {
                self.inner.params_json()
            }
            /// `params.threadId`, when present.
            #[getter]
            fn thread_id(&self) -> Option<String> {
                self.inner.thread_id()
            }
            /// `params.turnId`, when present (for notifications that carry the whole turn,
            /// `params.turn.id`).
            #[getter]
            fn turn_id(&self) -> Option<String> {
                self.inner.turn_id()
            }
            /// `params.item`, when present.
            #[getter]
            fn item(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
                loads_opt(py, self.inner.item_json())
            }
            /// `params.itemId` (or `params.item.id`), when present.
            #[getter]
            fn item_id(&self) -> Option<String> {
                self.inner.item_id()
            }
            /// The label of the client that received it (option `label`; in a pool, the
            /// endpoint's name), or `None`.
            #[getter]
            fn endpoint(&self) -> Option<&str> {
                self.inner.endpoint()
            }
            /// `Class[Method, Params, ...]`: the typed events of `codexclient.protocol`
            /// (`Notification[Literal["turn/started"], TurnStartedNotification]`) are generic
            /// aliases of the class at run time too (`types.GenericAlias`).
            #[classmethod]
            fn __class_getitem__<'py>(
                cls: &Bound<'py, PyType>,
                item: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let py = cls.py();
                py.import("types")?.getattr("GenericAlias")?.call1((cls, item))
            }
            $($extra)*
        }
    };
}

message_class!(Notification {
    /// `params.delta` (text of `item/*/delta` notifications), when present.
    #[getter]
    fn delta(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.inner.delta_str()
    }
    /// Pickling: the core's serialised form (`EventView`), rebuilt as the same class by
    /// `event_from_json`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = codex_client::EventView::Notification(&self.inner).to_json();
        Ok((rebuild(py)?, (json,)))
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let name = slf.get_type().name()?;
        let me = slf.get();
        let mut params = me.inner.params_json().to_owned();
        if params.len() > 200 {
            let mut cut = 200;
            while !params.is_char_boundary(cut) {
                cut -= 1;
            }
            params.truncate(cut);
            params.push('…');
        }
        Ok(format!("<{name} {} {params}>", me.inner.method))
    }
});

/// `item/agentMessage/delta`: a piece of the agent's reply (`delta`).
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct AgentMessageDelta;

/// `item/started`: an item (message, command, file change, ...) began (`item`).
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct ItemStarted;

/// `item/completed`: an item finished (`item`).
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct ItemCompleted;

/// `turn/started`.
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct TurnStarted;

/// `turn/completed`: the last event of a turn (`turn`, `status`, `error`).
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct TurnCompleted;

#[pymethods]
impl TurnCompleted {
    /// `params.turn`.
    #[getter]
    fn turn(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        loads_opt(slf.py(), slf.as_super().get().inner.turn_json())
    }
    /// `params.turn.status` (`completed`, `interrupted`, `failed`, ...).
    #[getter]
    fn status(slf: &Bound<'_, Self>) -> Option<String> {
        slf.as_super().get().inner.turn_status()
    }
    /// `params.turn.error`, when the turn failed.
    #[getter]
    fn error(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        loads_opt(slf.py(), slf.as_super().get().inner.turn_error_json())
    }
}

/// `thread/tokenUsage/updated` (`params.tokenUsage`).
#[pyclass(module = "codexclient._native", extends = Notification, frozen)]
pub struct TokenUsageUpdated;

/// A request from the server that expects an answer (approvals, user input, ...).
///
/// Answer it now or later, from any thread. Garbage-collected unanswered, it is answered
/// fail-closed (approvals declined).
#[pyclass(module = "codexclient._native", frozen)]
pub struct ServerRequest {
    inner: codex_client::ServerRequest,
    params: PyOnceLock<Py<PyAny>>,
}

impl ServerRequest {
    fn decide(&self, py: Python<'_>, decision: Decision) -> PyResult<()> {
        let r = py.detach(|| self.inner.respond_decision(decision));
        r.py(py)
    }

    /// Send an answer after the core's check (approvals: a decision of the method's type).
    fn respond_checked(&self, py: Python<'_>, result_json: &str) -> PyResult<()> {
        self.inner.check_answer_json(result_json).py(py)?;
        let r = py.detach(|| self.inner.respond_json(result_json));
        r.py(py)
    }
}

message_class!(ServerRequest {
    /// The server's request id (int or str).
    #[getter]
    fn id(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.inner.id {
            RequestId::Int(i) => i.into_py_any(py),
            other => other.to_string().into_py_any(py),
        }
    }
    /// Always `None` (requests carry no text delta); here so every event has the attribute.
    #[getter]
    fn delta(&self) -> Option<String> {
        None
    }
    /// Whether the request can still be answered through this object (never for a detached
    /// one: answer it by reference, `client.respond(request, answer)`).
    #[getter]
    fn is_open(&self) -> bool {
        self.inner.is_open()
    }
    /// Whether it was unpickled (rebuilt from its reference): it has no connection; answer it
    /// through the client that owns it, `client.respond(request, answer)`.
    #[getter]
    fn detached(&self) -> bool {
        self.inner.is_detached()
    }
    /// The request's reference as the core's JSON text (`{"owner", "connection",
    /// "endpoint", "id", "method", "params"}`); does not park it.
    #[getter]
    fn reference_json(&self) -> String {
        self.inner.reference().to_json()
    }
    /// Park the request: the client keeps it until the answer comes by reference (or
    /// through this object), the server resolves it, the connection ends or option
    /// `parked_request_timeout` passes (then it is declined). Pickling parks it too. Whether
    /// it is parked.
    fn park(&self, py: Python<'_>) -> bool {
        py.detach(|| self.inner.park())
    }
    /// Pickling: parks the request and writes its reference (the core's serialised form);
    /// unpickled, it is a detached request.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = codex_client::EventView::ServerRequest(&self.inner).to_json();
        Ok((rebuild(py)?, (json,)))
    }
    /// Answer with a result (any JSON-serializable object). Raises `InvalidArgumentError`
    /// (the request stays open) when it is not JSON, or for an approval when its `decision`
    /// is not one of the method's decisions.
    fn respond(&self, py: Python<'_>, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let json = py_to_value(py, result, None)?.to_string();
        self.respond_checked(py, &json)
    }
    /// Answer with a result given as JSON text (checked as by `respond`).
    fn respond_json(&self, py: Python<'_>, result_json: &str) -> PyResult<()> {
        self.respond_checked(py, result_json)
    }
    /// Answer with what a handler returned (checked as by `respond`): for approvals a bare
    /// decision (`"accept"`, `"decline"`, `"acceptForSession"`, `"cancel"`, `True`/`False`,
    /// or any decision of the method) is worded for the method and wrapped as
    /// `{"decision": ...}`; other requests take the whole result.
    fn answer(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = py_to_value(py, value, None)?;
        let answer = codex_client::approval_answer(&self.inner.method, value);
        self.respond_checked(py, &answer.to_string())
    }
    /// Answer with a JSON-RPC error.
    #[pyo3(signature = (code, message, data = None))]
    fn respond_error(
        &self,
        py: Python<'_>,
        code: i64,
        message: String,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let data = match data {
            Some(d) if !d.is_none() => Some(py_to_value(py, d, None)?),
            _ => None,
        };
        let err = RpcError::new(code, message, data);
        let r = py.detach(|| self.inner.respond_error(&err));
        r.py(py)
    }
    /// Approve (`{"decision": "accept"}`; `approved` for v1 approval methods).
    fn accept(&self, py: Python<'_>) -> PyResult<()> {
        self.decide(py, Decision::Accept)
    }
    /// Approve this and similar requests for the session (`acceptForSession`).
    fn accept_for_session(&self, py: Python<'_>) -> PyResult<()> {
        self.decide(py, Decision::AcceptForSession)
    }
    /// Decline (`{"decision": "decline"}`; `denied` for v1 approval methods).
    fn decline(&self, py: Python<'_>) -> PyResult<()> {
        self.decide(py, Decision::Decline)
    }
    /// Decline and interrupt the turn (`{"decision": "cancel"}`; `abort` for v1).
    fn cancel(&self, py: Python<'_>) -> PyResult<()> {
        self.decide(py, Decision::Cancel)
    }
    /// Answer exactly as if no handler existed: approvals declined, other requests refused.
    fn fail_closed(&self, py: Python<'_>) -> PyResult<()> {
        let r = py.detach(|| self.inner.respond_fail_closed());
        r.py(py)
    }
    fn __repr__(&self) -> String {
        format!(
            "<ServerRequest {} id={} open={}>",
            self.inner.method,
            self.inner.id,
            self.inner.is_open()
        )
    }
});

/// Something the connection reports: `kind` is `"error"` (a malformed line, a callback
/// failure), `"overflow"` (`dropped` notifications were shed) or `"disconnected"` (the last
/// event of a connection; `reason`, `stderr_tail`). Kind, message and details are the core's
/// view of the event (`to_json`, `Display`).
#[pyclass(module = "codexclient._native", frozen)]
pub struct ConnectionEvent {
    /// The core's event (its serialised form, for pickling).
    inner: CoreConnection,
    /// The core's JSON view: `{"kind", "message", ...details}`.
    view: Value,
    /// Always `None`: the attributes every event has.
    #[pyo3(get)]
    method: Option<String>,
    /// Always `None`.
    #[pyo3(get)]
    thread_id: Option<String>,
    /// Always `None`.
    #[pyo3(get)]
    turn_id: Option<String>,
    /// Always `None`.
    #[pyo3(get)]
    delta: Option<String>,
    /// Always `None`.
    #[pyo3(get)]
    item: Option<String>,
}

impl ConnectionEvent {
    fn new(inner: &CoreConnection) -> ConnectionEvent {
        let (method, thread_id, turn_id, delta, item) = Default::default();
        ConnectionEvent {
            inner: inner.clone(),
            view: inner.to_json(),
            method,
            thread_id,
            turn_id,
            delta,
            item,
        }
    }

    fn str_of(&self, key: &str) -> Option<String> {
        self.view.get(key)?.as_str().map(str::to_owned)
    }

    fn u64_of(&self, key: &str) -> Option<u64> {
        self.view.get(key)?.as_u64()
    }

    fn strs<const N: usize>(v: &Value, keys: [&str; N]) -> [String; N] {
        keys.map(|k| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
    }
}

#[pymethods]
impl ConnectionEvent {
    /// `"error"`, `"overflow"`, `"disconnected"`, `"reconnecting"`, `"reconnected"`,
    /// `"outside_window"` (the server's Codex is outside the supported window),
    /// `"version_mismatch"` (the app-server behind the control socket is another Codex
    /// version than the installed CLI) or `"auth"` (MCP authorization).
    #[getter]
    fn kind(&self) -> String {
        self.str_of("kind").unwrap_or_default()
    }
    /// Human-readable description.
    #[getter]
    fn message(&self) -> String {
        self.str_of("message").unwrap_or_default()
    }
    /// Notifications dropped (`overflow` only).
    #[getter]
    fn dropped(&self) -> Option<u64> {
        self.u64_of("dropped")
    }
    /// Why the connection ended (`disconnected`), or why authorization started or failed
    /// (`auth` `started`: `unauthorized`, `insufficient_scope`, `expired`; `failed`: in words).
    #[getter]
    fn reason(&self) -> Option<String> {
        self.str_of("reason")
    }
    /// The server's last stderr output (`disconnected` only).
    #[getter]
    fn stderr_tail(&self) -> Option<String> {
        self.str_of("stderrTail")
    }
    /// `reconnecting`: the attempt about to be made (1 for the first); `reconnected`: the
    /// attempts it took; `None` otherwise.
    #[getter]
    fn attempt(&self) -> Option<u64> {
        self.u64_of("attempt").or_else(|| self.u64_of("attempts"))
    }
    /// `reconnecting`: the attempts the policy allows.
    #[getter]
    fn max_attempts(&self) -> Option<u64> {
        self.u64_of("maxAttempts")
    }
    /// `reconnecting`: seconds the client waits before this attempt.
    #[getter]
    fn delay(&self) -> Option<f64> {
        self.u64_of("delayMs").map(|ms| ms as f64 / 1000.0)
    }
    /// `reconnecting`: why the connection dropped (or why the last attempt failed).
    #[getter]
    fn cause(&self) -> Option<String> {
        self.str_of("cause")
    }
    /// `reconnected`: the threads resumed.
    #[getter]
    fn threads(&self) -> Option<Vec<String>> {
        let list = self.view.get("threads")?.as_array()?;
        Some(
            list.iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
        )
    }
    /// `reconnected`: the threads that could not be resumed, as `(thread_id, error)`.
    #[getter]
    fn failed_threads(&self) -> Option<Vec<(String, String)>> {
        let list = self.view.get("failedThreads")?.as_array()?;
        let pairs = list.iter().map(|f| Self::strs(f, ["threadId", "error"]));
        Some(pairs.map(|[t, e]| (t, e)).collect())
    }
    /// `reconnected`: requests that were in flight when the connection dropped (each raised
    /// `ConnectionLostError`).
    #[getter]
    fn requests_failed(&self) -> Option<u64> {
        self.u64_of("requestsFailed")
    }
    /// `reconnected`: server requests of the lost connection (the server asks again for those
    /// it still needs).
    #[getter]
    fn server_requests_dropped(&self) -> Option<u64> {
        self.u64_of("serverRequestsDropped")
    }
    /// `reconnected`: turns that ended while the connection was down, as `(thread_id,
    /// turn_id, status)` (their `turn/completed` was delivered first).
    #[getter]
    fn turns_ended(&self) -> Option<Vec<(String, String, String)>> {
        let list = self.view.get("turnsEnded")?.as_array()?;
        let ended = list
            .iter()
            .map(|t| Self::strs(t, ["threadId", "turnId", "status"]));
        Some(ended.map(|[t, u, s]| (t, u, s)).collect())
    }
    /// `auth`: the step, `"started"`, `"succeeded"`, `"refreshed"` or `"failed"` (the core's
    /// `AuthEvent`; never a token or secret).
    #[getter]
    fn auth(&self) -> Option<String> {
        self.str_of("auth")
    }
    /// `auth` `started`: the grant (`authorization_code`, `client_credentials`, ...).
    #[getter]
    fn grant(&self) -> Option<String> {
        self.str_of("grant")
    }
    /// `auth` `succeeded` or `refreshed`: the authorization server (issuer).
    #[getter]
    fn issuer(&self) -> Option<String> {
        self.str_of("issuer")
    }
    /// `auth` `succeeded`: the scopes granted (or asked for, when the server did not say).
    #[getter]
    fn scope(&self) -> Option<String> {
        self.str_of("scope")
    }
    /// `outside_window`, `version_mismatch`: the server's Codex version (`None` when it said
    /// none).
    #[getter]
    fn server_version(&self) -> Option<String> {
        self.str_of("version")
    }
    /// `version_mismatch`: the installed CLI's Codex version (`codex --version` of the binary
    /// the options name).
    #[getter]
    fn cli_version(&self) -> Option<String> {
        self.str_of("cli_version")
    }
    /// `outside_window`, `version_mismatch`: where that version stands (`"inside"`,
    /// `"older"`, `"newer"` or `"unknown"`).
    #[getter]
    fn position(&self) -> Option<String> {
        self.str_of("position")
    }
    /// An empty dict.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> Bound<'py, PyDict> {
        PyDict::new(py)
    }
    /// Always `None`: connection events carry no endpoint (the attribute every event has).
    #[getter]
    fn endpoint(&self) -> Option<String> {
        None
    }
    /// Pickling: the core's serialised form, rebuilt by `event_from_json`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = codex_client::EventView::Connection(&self.inner).to_json();
        Ok((rebuild(py)?, (json,)))
    }
    fn __repr__(&self) -> String {
        format!("<ConnectionEvent {}: {}>", self.kind(), self.message())
    }
}

/// `event_from_json` of this module, kept when the module is made (`set_rebuild`): what
/// pickles of events are rebuilt with.
static REBUILD: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Keep the module's `event_from_json` for the events' `__reduce__`.
pub(crate) fn set_rebuild(py: Python<'_>, f: Bound<'_, PyAny>) {
    let _ = REBUILD.set(py, f.unbind());
}

/// The function pickles of events are rebuilt with (`codexclient._native.event_from_json`).
fn rebuild(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    REBUILD
        .get(py)
        .map(|f| f.bind(py).clone())
        .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("event_from_json is not set"))
}

/// An event from the core's serialised form (`Event::from_json`): a notification as its
/// class (`AgentMessageDelta`, `TurnCompleted`, ... or `Notification`), a server request as
/// a detached `ServerRequest` (answer it with `client.respond(request, answer)` on the
/// client that owns it), a connection event as `ConnectionEvent`.
#[pyfunction]
pub fn event_from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    let ev = codex_client::Event::from_json(json).py(py)?;
    to_object(py, ev)
}

fn note_object(py: Python<'_>, n: codex_client::Notification) -> PyResult<Py<PyAny>> {
    use codex_client::NotificationKind as K;
    let kind = n.kind();
    let base = PyClassInitializer::from(Notification {
        inner: n,
        params: PyOnceLock::new(),
    });
    Ok(match kind {
        Some(K::AgentMessageDelta) => Py::new(py, base.add_subclass(AgentMessageDelta))?.into_any(),
        Some(K::ItemStarted) => Py::new(py, base.add_subclass(ItemStarted))?.into_any(),
        Some(K::ItemCompleted) => Py::new(py, base.add_subclass(ItemCompleted))?.into_any(),
        Some(K::TurnStarted) => Py::new(py, base.add_subclass(TurnStarted))?.into_any(),
        Some(K::TurnCompleted) => Py::new(py, base.add_subclass(TurnCompleted))?.into_any(),
        Some(K::TokenUsageUpdated) => Py::new(py, base.add_subclass(TokenUsageUpdated))?.into_any(),
        _ => Py::new(py, base)?.into_any(),
    })
}

/// A core server request as a Python `ServerRequest`.
pub(crate) fn request_object(
    py: Python<'_>,
    r: codex_client::ServerRequest,
) -> PyResult<Py<PyAny>> {
    let obj = ServerRequest {
        inner: r,
        params: PyOnceLock::new(),
    };
    Ok(Py::new(py, obj)?.into_any())
}

/// Move a core event into a Python object.
pub(crate) fn to_object(py: Python<'_>, ev: Event) -> PyResult<Py<PyAny>> {
    Ok(match ev {
        Event::Notification(n) => note_object(py, n)?,
        Event::ServerRequest(r) => request_object(py, r)?,
        Event::Connection(inner) => Py::new(py, ConnectionEvent::new(&inner))?.into_any(),
        // This binding never sends requests as events (`send_request`); nothing else is
        // known yet.
        other => {
            return Err(crate::errors::simple(
                py,
                "ProtocolError",
                format!("unexpected event {:?}", other.method()),
            ))
        }
    })
}

/// Convert one event. With `table` (a turn's client, which keeps its turns' requests in their
/// streams), a server request is first handed to the client's handler table
/// (`Client::handle_request`: its handler runs now, on this thread, or it is answered
/// fail-closed), then shown as it is (a second handle of the same request).
pub(crate) fn convert_one(
    py: Python<'_>,
    ev: Event,
    table: Option<&Client>,
) -> PyResult<Py<PyAny>> {
    if let (Event::ServerRequest(r), Some(client)) = (&ev, table) {
        let handed = r.share();
        py.detach(|| client.handle_request(handed));
    }
    to_object(py, ev)
}
