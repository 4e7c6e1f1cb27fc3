//! `NativeClient`: the core `Client` (poll delivery) plus the pump of its events.

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use codex_client::{
    Client, ClientOptions, Delivery, Input, RequestOptions, RetryPolicy, ThreadStatus,
    TransportKind,
};
use pyo3::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::errors::{simple, to_py, IntoPyResult};
use crate::executor::{Executor, Outcome};
use crate::stream::{spawn_pump, EventStream, Hub, SIGNAL_SLICE};
use crate::turn::Turn;

/// Run `fut` to completion on this thread with the GIL released, checking for Python signals
/// (Ctrl-C) every 100 ms. Dropping the future on a signal cancels the wait.
pub(crate) fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let mut fut = Box::pin(fut);
    loop {
        let r = py.detach(|| {
            let waker = crate::stream::thread_waker();
            let mut cx = Context::from_waker(&waker);
            let deadline = Instant::now() + SIGNAL_SLICE;
            loop {
                if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                    return Some(v);
                }
                let now = Instant::now();
                if now >= deadline {
                    return None;
                }
                std::thread::park_timeout(deadline - now);
            }
        });
        match r {
            Some(v) => return Ok(v),
            None => py.check_signals()?,
        }
    }
}

/// Per-request options from a Python timeout in seconds.
pub(crate) fn request_options(py: Python<'_>, timeout: Option<f64>) -> PyResult<RequestOptions> {
    match timeout {
        None => Ok(RequestOptions::default()),
        Some(t) if t.is_finite() && t > 0.0 => {
            Ok(RequestOptions::timeout(Duration::from_secs_f64(t)))
        }
        Some(t) => Err(simple(
            py,
            "InvalidArgumentError",
            format!("timeout must be a positive number of seconds, not {t}"),
        )),
    }
}

fn raw_params(py: Python<'_>, params_json: &str) -> PyResult<Box<RawValue>> {
    let text = if params_json.trim().is_empty() || params_json.trim() == "null" {
        "{}".to_owned()
    } else {
        params_json.to_owned()
    };
    RawValue::from_string(text).map_err(|e| {
        simple(
            py,
            "InvalidArgumentError",
            format!("params are not valid JSON: {e}"),
        )
    })
}

fn json_value(py: Python<'_>, text: &str) -> PyResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| simple(py, "InvalidArgumentError", format!("not valid JSON: {e}")))
}

fn status_name(s: ThreadStatus) -> String {
    match s {
        ThreadStatus::Unknown => "unknown".into(),
        ThreadStatus::Idle => "idle".into(),
        ThreadStatus::Active => "active".into(),
        ThreadStatus::WaitingForApproval => "waitingForApproval".into(),
        ThreadStatus::WaitingForInput => "waitingForInput".into(),
        ThreadStatus::Error => "systemError".into(),
        ThreadStatus::NotLoaded => "notLoaded".into(),
        ThreadStatus::Other(raw) => raw,
        #[allow(unreachable_patterns)]
        _ => "unknown".into(),
    }
}

struct Inner {
    client: Client,
    hub: Arc<Hub>,
}

impl Inner {
    /// Start delivering the new connection's events (right after the handshake).
    fn start_pump(&self) -> codex_client::Result<()> {
        let stream = self.client.events()?;
        let generation = self.hub.new_generation();
        spawn_pump(stream, generation).map_err(|e| {
            self.client.disconnect();
            codex_client::Error::Transport(format!("could not start the pump thread: {e}"))
        })?;
        Ok(())
    }
}

/// Split `turn/start` params (with `input`) into the core's input and overrides.
fn turn_params(py: Python<'_>, params_json: &str) -> PyResult<(Input, Value)> {
    let mut params = json_value(py, params_json)?;
    let obj = params.as_object_mut().ok_or_else(|| {
        simple(
            py,
            "InvalidArgumentError",
            "turn params must be a JSON object",
        )
    })?;
    let input = match obj.remove("input") {
        Some(Value::Array(items)) => Input(items),
        Some(Value::String(s)) => Input::text(s),
        _ => {
            return Err(simple(
                py,
                "InvalidArgumentError",
                "turn params need an `input` list",
            ))
        }
    };
    Ok((input, params))
}

/// The native client: a thin layer over `codex_client::Client` in poll delivery mode.
#[pyclass(module = "codexclient._native", frozen)]
pub struct NativeClient {
    inner: Arc<Inner>,
    options: Mutex<ClientOptions>,
}

#[pymethods]
impl NativeClient {
    /// Create a client; nothing starts until `connect`.
    #[new]
    #[pyo3(signature = (
        *,
        codex_bin = None,
        args = Vec::new(),
        config_overrides = Vec::new(),
        env = Vec::new(),
        clear_env = false,
        cwd = None,
        codex_home = None,
        client_name = None,
        client_title = None,
        client_version = None,
        experimental_api = false,
        opt_out_notification_methods = Vec::new(),
        default_timeout = None,
        retry_max_attempts = None,
        retry_base = None,
        retry_cap = None,
        event_queue_capacity = None,
        max_line_bytes = None,
        connect_timeout = None,
        read_ahead_bytes = None,
        transport = None,
        token = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        codex_bin: Option<PathBuf>,
        args: Vec<String>,
        config_overrides: Vec<(String, String)>,
        env: Vec<(String, String)>,
        clear_env: bool,
        cwd: Option<PathBuf>,
        codex_home: Option<PathBuf>,
        client_name: Option<String>,
        client_title: Option<String>,
        client_version: Option<String>,
        experimental_api: bool,
        opt_out_notification_methods: Vec<String>,
        default_timeout: Option<f64>,
        retry_max_attempts: Option<u32>,
        retry_base: Option<f64>,
        retry_cap: Option<f64>,
        event_queue_capacity: Option<usize>,
        max_line_bytes: Option<usize>,
        connect_timeout: Option<f64>,
        read_ahead_bytes: Option<usize>,
        transport: Option<String>,
        token: Option<String>,
    ) -> PyResult<Self> {
        // `stdio` (default), `exec`, `mcp`, `ws://…`/`wss://…` (token = bearer), `unix`,
        // `unix://PATH`. The token is never logged nor kept anywhere but the options.
        let kind = TransportKind::parse(transport.as_deref().unwrap_or(""), token).py(py)?;
        let mut o = ClientOptions::default().transport(kind);
        o.delivery = Delivery::Poll;
        o.codex_bin = codex_bin;
        o.args = args;
        o.config_overrides = config_overrides;
        o.env = env;
        o.clear_env = clear_env;
        o.cwd = cwd;
        o.codex_home = codex_home;
        if let Some(n) = client_name {
            o.client_name = n;
        }
        o.client_title = client_title;
        if let Some(v) = client_version {
            o.client_version = v;
        }
        o.experimental_api = experimental_api;
        o.opt_out_notification_methods = opt_out_notification_methods;
        if let Some(t) = default_timeout {
            o.default_timeout = request_options(py, Some(t))?.timeout.expect("set");
        }
        let secs = |v: f64, what: &str| {
            if v.is_finite() && v >= 0.0 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(simple(
                    py,
                    "InvalidArgumentError",
                    format!("{what} must be >= 0"),
                ))
            }
        };
        let mut retry = RetryPolicy::default();
        if let Some(n) = retry_max_attempts {
            retry.max_attempts = n.max(1);
        }
        if let Some(b) = retry_base {
            retry.base = secs(b, "retry_base")?;
        }
        if let Some(c) = retry_cap {
            retry.cap = secs(c, "retry_cap")?;
        }
        o.retry = retry;
        if let Some(c) = event_queue_capacity {
            o.event_queue_capacity = c.max(1);
        }
        if let Some(m) = max_line_bytes {
            o.max_line_bytes = m;
        }
        if let Some(t) = connect_timeout {
            o.connect_timeout = request_options(py, Some(t))?.timeout.expect("set");
        }
        if let Some(b) = read_ahead_bytes {
            o.read_ahead_bytes = b;
        }
        let cap = o.event_queue_capacity;
        Ok(NativeClient {
            inner: Arc::new(Inner {
                client: Client::new(o.clone()),
                hub: Hub::new(cap),
            }),
            options: Mutex::new(o),
        })
    }

    /// Spawn the server and run the handshake (blocking). Returns the `initialize` result as
    /// JSON text.
    fn connect(&self, py: Python<'_>) -> PyResult<String> {
        let client = self.inner.client.clone();
        let init = block_on(py, async move { client.connect_async().await })?.py(py)?;
        self.inner.start_pump().py(py)?;
        Ok(init.raw.to_string())
    }

    /// Async `connect`: resolves `fut` with the `initialize` result as JSON text.
    fn connect_async(&self, py: Python<'_>, executor: &Executor, fut: Py<PyAny>) -> u64 {
        let inner = self.inner.clone();
        let f = async move {
            let r = inner.client.connect_async().await;
            let r = r.and_then(|init| inner.start_pump().map(|_| init));
            Box::new(move |py: Python<'_>| match r {
                Ok(init) => Ok(init.raw.to_string().into_pyobject(py)?.into_any().unbind()),
                Err(e) => Err(to_py(py, e)),
            }) as Outcome
        };
        executor.spawn(py, f, Some(fut))
    }

    /// Stop the server. Pending requests fail with `ConnectionClosedError`. Idempotent.
    fn disconnect(&self, py: Python<'_>) {
        let client = self.inner.client.clone();
        py.detach(move || client.disconnect());
    }

    /// Async `disconnect`: the core stops the server without blocking the event loop (the
    /// server may take its exit grace to go) and `fut` resolves with `None` once it is gone.
    /// Cancelling the wait does not stop the disconnect.
    fn disconnect_async(&self, py: Python<'_>, executor: &Executor, fut: Py<PyAny>) -> u64 {
        let client = self.inner.client.clone();
        let f = async move {
            client.disconnect_async().await;
            Box::new(|py: Python<'_>| Ok(py.None())) as Outcome
        };
        executor.spawn(py, f, Some(fut))
    }

    /// Whether the handshake is done and the server alive.
    #[getter]
    fn is_connected(&self) -> bool {
        self.inner.client.is_connected()
    }

    /// The last bytes the server wrote to stderr.
    #[getter]
    fn stderr_tail(&self) -> String {
        self.inner.client.stderr_tail()
    }

    /// Process id of the running server.
    #[getter]
    fn server_pid(&self) -> Option<u32> {
        self.inner.client.server_pid()
    }

    /// The `initialize` result of the current connection, as JSON text.
    #[getter]
    fn initialize_json(&self) -> Option<String> {
        self.inner
            .client
            .initialize_result()
            .map(|r| r.raw.to_string())
    }

    /// The default request timeout in seconds.
    #[getter]
    fn default_timeout(&self) -> f64 {
        self.options.lock().unwrap().default_timeout.as_secs_f64()
    }

    /// Send a request and wait (GIL released) for its result, returned as JSON text.
    #[pyo3(signature = (method, params_json, timeout = None))]
    fn request(
        &self,
        py: Python<'_>,
        method: &str,
        params_json: &str,
        timeout: Option<f64>,
    ) -> PyResult<String> {
        let opts = request_options(py, timeout)?;
        let params = raw_params(py, params_json)?;
        let client = &self.inner.client;
        let r = block_on(py, client.request_raw(method, &params, opts))?;
        r.map(|raw| raw.get().to_owned()).py(py)
    }

    /// Async request: resolves `fut` with the result as JSON text. Returns the executor task id.
    #[pyo3(signature = (executor, fut, method, params_json, timeout = None))]
    fn request_async(
        &self,
        py: Python<'_>,
        executor: &Executor,
        fut: Py<PyAny>,
        method: String,
        params_json: &str,
        timeout: Option<f64>,
    ) -> PyResult<u64> {
        let opts = request_options(py, timeout)?;
        let params = raw_params(py, params_json)?;
        let client = self.inner.client.clone();
        let f = async move {
            let r = client.request_raw(&method, &params, opts).await;
            Box::new(move |py: Python<'_>| match r {
                Ok(raw) => Ok(raw.get().into_pyobject(py)?.into_any().unbind()),
                Err(e) => Err(to_py(py, e)),
            }) as Outcome
        };
        Ok(executor.spawn(py, f, Some(fut)))
    }

    /// Send a client notification.
    fn notify(&self, py: Python<'_>, method: &str, params_json: &str) -> PyResult<()> {
        let params = json_value(py, params_json)?;
        self.inner.client.notify(method, params).py(py)
    }

    /// Also deliver notifications to the inbox (for an `on_notification` callback).
    fn set_want_notifications(&self, on: bool) {
        self.inner
            .hub
            .want_notifications
            .store(on, std::sync::atomic::Ordering::Release);
    }

    /// The inbox of the current connection: server requests, connection events and (when
    /// wanted) notifications, for the Python dispatcher.
    fn inbox(&self) -> EventStream {
        EventStream::inbox(&self.inner.hub.current())
    }

    /// A new stream of this connection's notifications and connection events (those not
    /// routed to a turn).
    fn events(&self, py: Python<'_>) -> PyResult<EventStream> {
        if !self.inner.client.is_connected() {
            return Err(to_py(py, codex_client::Error::NotConnected));
        }
        Ok(EventStream::subscribe(&self.inner.hub.current()))
    }

    /// Start a turn (`turn/start` with `params_json`, which includes `input`) on a thread and
    /// stream it. `handler` receives each server request of the turn before it is yielded.
    #[pyo3(signature = (thread_id, params_json, handler = None))]
    fn start_turn(
        &self,
        py: Python<'_>,
        thread_id: &str,
        params_json: &str,
        handler: Option<Py<PyAny>>,
    ) -> PyResult<Turn> {
        let (input, overrides) = turn_params(py, params_json)?;
        let thread = self.inner.client.thread(thread_id);
        let stream = block_on(py, async move {
            thread.run_streamed_with_async(input, overrides).await
        })?
        .py(py)?;
        Ok(Turn::new(self.inner.client.clone(), stream, handler))
    }

    /// Async `start_turn`: resolves `fut` with a `Turn`.
    #[pyo3(signature = (executor, fut, thread_id, params_json, handler = None))]
    fn start_turn_async(
        &self,
        py: Python<'_>,
        executor: &Executor,
        fut: Py<PyAny>,
        thread_id: &str,
        params_json: &str,
        handler: Option<Py<PyAny>>,
    ) -> PyResult<u64> {
        let (input, overrides) = turn_params(py, params_json)?;
        let thread = self.inner.client.thread(thread_id);
        let client = self.inner.client.clone();
        let f = async move {
            let r = thread.run_streamed_with_async(input, overrides).await;
            Box::new(move |py: Python<'_>| match r {
                Ok(stream) => Ok(Py::new(py, Turn::new(client, stream, handler))?.into_any()),
                Err(e) => Err(to_py(py, e)),
            }) as Outcome
        };
        Ok(executor.spawn(py, f, Some(fut)))
    }

    /// A thread's status derived from `thread/status/changed` events: `unknown`, `idle`,
    /// `active`, `waitingForApproval`, `waitingForInput`, `systemError`, `notLoaded`, or the
    /// raw status JSON for statuses this version does not know.
    fn thread_status(&self, thread_id: &str) -> String {
        status_name(self.inner.client.thread(thread_id).status())
    }
}

impl Drop for NativeClient {
    fn drop(&mut self) {
        self.inner.client.disconnect();
    }
}
