//! `NativeClient`: the core `Client`, in callbacks mode (the sync `Client`: Python handlers
//! run on the core's dispatch thread) or in poll mode (the `AsyncClient`: the event loop
//! drains the events when the core's event descriptor is readable).

use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use codex_client::{
    Client, ClientOptions, Delivery, Event, Input, RequestOptions, RetryPolicy, ThreadStatus,
    TransportKind,
};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::errors::{simple, to_py, IntoPyResult};
use crate::executor::{Executor, Outcome};
use crate::stream::{EventStream, SIGNAL_SLICE};
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
            let waker = thread_waker();
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

struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// A waker that unparks the current thread.
pub(crate) fn thread_waker() -> Waker {
    Waker::from(Arc::new(ThreadWaker(std::thread::current())))
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
    /// Callbacks mode: whether notifications go to the Python handler.
    want_notifications: Arc<AtomicBool>,
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
        callbacks = false,
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
        callbacks: bool,
    ) -> PyResult<Self> {
        // `stdio` (default), `exec`, `mcp`, `ws://…`/`wss://…` (token = bearer), `unix`,
        // `unix://PATH`. The token is never logged nor kept anywhere but the options.
        let kind = TransportKind::parse(transport.as_deref().unwrap_or(""), token).py(py)?;
        let mut o = ClientOptions::default().transport(kind);
        o.delivery = if callbacks {
            Delivery::Callbacks
        } else {
            Delivery::Poll
        };
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
        Ok(NativeClient {
            inner: Arc::new(Inner {
                client: Client::new(o.clone()),
                want_notifications: Arc::new(AtomicBool::new(false)),
            }),
            options: Mutex::new(o),
        })
    }

    /// Spawn the server and run the handshake (blocking). Returns the `initialize` result as
    /// JSON text.
    fn connect(&self, py: Python<'_>) -> PyResult<String> {
        let client = self.inner.client.clone();
        let init = block_on(py, async move { client.connect_async().await })?.py(py)?;
        Ok(init.raw.to_string())
    }

    /// Async `connect`: resolves `fut` with the `initialize` result as JSON text.
    fn connect_async(&self, py: Python<'_>, executor: &Executor, fut: Py<PyAny>) -> u64 {
        let client = self.inner.client.clone();
        let f = async move {
            let r = client.connect_async().await;
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

    /// Callbacks mode: call `handler(event)` for every event the core's dispatch thread
    /// delivers (server requests outside a streamed turn, connection events and, when
    /// wanted, notifications), with the GIL taken there. Set it once, before `connect`.
    fn set_event_handler(&self, py: Python<'_>, handler: Py<PyAny>) -> PyResult<()> {
        let want = self.inner.want_notifications.clone();
        let r = self.inner.client.on_event(move |ev: Event| {
            if matches!(ev, Event::Notification(_)) && !want.load(Ordering::Acquire) {
                return;
            }
            Python::attach(|py| {
                let r = crate::events::to_object(py, ev)
                    .and_then(|(obj, _)| handler.call1(py, (obj,)).map(drop));
                if let Err(e) = r {
                    e.write_unraisable(py, Some(handler.bind(py)));
                }
            })
        });
        r.py(py)
    }

    /// Callbacks mode: also deliver notifications to the event handler.
    fn set_want_notifications(&self, on: bool) {
        self.inner.want_notifications.store(on, Ordering::Release);
    }

    /// Poll mode: a descriptor readable while events wait (watch it with `loop.add_reader`).
    fn event_fd(&self, py: Python<'_>) -> PyResult<i32> {
        self.inner.client.event_fd().py(py)
    }

    /// Poll mode: up to `max` waiting events, without waiting (empty when none wait or the
    /// client never connected).
    #[pyo3(signature = (max = 256))]
    fn take_events<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Bound<'py, PyList>> {
        let mut out = Vec::new();
        match self
            .inner
            .client
            .next_events(&mut out, max, Some(Duration::ZERO))
        {
            Ok(_) | Err(codex_client::Error::NotConnected) => {}
            Err(e) => return Err(to_py(py, e)),
        }
        let list = PyList::empty(py);
        crate::events::extend_list(py, &list, out, None)?;
        Ok(list)
    }

    /// A new stream of this connection's notifications and connection events (those not
    /// routed to a turn), beside the client's own delivery.
    fn events(&self, py: Python<'_>) -> PyResult<EventStream> {
        Ok(EventStream::new(self.inner.client.subscribe().py(py)?))
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
        // The dispatch thread may wait for the GIL to run a handler: release it meanwhile.
        let client = self.inner.client.clone();
        Python::attach(|py| py.detach(move || client.disconnect()));
    }
}
