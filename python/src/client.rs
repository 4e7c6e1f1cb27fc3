//! `NativeClient`: the core `Client`, in callbacks mode (the sync `Client`: Python handlers
//! run on the core's dispatch thread) or in poll mode (the `AsyncClient`: the event loop
//! drains the events when the core's event descriptor is readable). Each call blocks (GIL
//! released) or, given `aio` (an executor and an asyncio future), runs on the loop.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use codex_client::mcp::{McpRequest, Root};
use codex_client::{
    Client, ClientOptions, Delivery, Event, Heartbeat, Helper, Input, McpCommand, ReconnectPolicy,
    Skill, TransportKind,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::errors::{simple, to_py, IntoPyResult};
use crate::executor::{request_options, run, run_spinning, Aio};
use crate::mcp::ToolCall;
use crate::stream::EventStream;
use crate::turn::Turn;

/// JSON text as a value (`InvalidArgumentError` when it is not JSON).
pub(crate) fn json_value(py: Python<'_>, text: &str) -> PyResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| simple(py, "InvalidArgumentError", format!("not valid JSON: {e}")))
}

fn raw_params(py: Python<'_>, params_json: &str) -> PyResult<Box<RawValue>> {
    let text = match params_json.trim() {
        "" | "null" => "{}".to_owned(),
        _ => params_json.to_owned(),
    };
    RawValue::from_string(text).map_err(|e| {
        simple(
            py,
            "InvalidArgumentError",
            format!("params are not valid JSON: {e}"),
        )
    })
}

/// Turn input (JSON: a string, an input item or a list of them) as the core's `Input`.
pub(crate) fn input(py: Python<'_>, input_json: &str) -> PyResult<Input> {
    Input::from_value(json_value(py, input_json)?).py(py)
}

fn text(py: Python<'_>, s: String) -> PyResult<Py<PyAny>> {
    s.into_py_any(py)
}

/// A `reconnect=` / `heartbeat=` option: `True` (the defaults) or `False` (off), or the
/// mapping `codexclient` checked (seconds as floats), each entry applied by `set`.
fn policy<T: Default>(
    v: &Bound<'_, PyAny>,
    set: impl Fn(&mut T, &str, f64) -> PyResult<()>,
) -> PyResult<Option<T>> {
    if let Ok(on) = v.extract::<bool>() {
        return Ok(on.then(T::default));
    }
    let mut p = T::default();
    for (key, x) in v.extract::<std::collections::HashMap<String, f64>>()? {
        set(&mut p, &key, x)?;
    }
    Ok(Some(p))
}

/// The native client: a thin layer over `codex_client::Client`.
#[pyclass(module = "codexclient._native", frozen)]
pub struct NativeClient {
    client: Client,
    /// Callbacks mode: whether notifications go to the Python handler.
    want_notifications: Arc<AtomicBool>,
}

#[pymethods]
impl NativeClient {
    /// Create a client from the options of `codexclient.Client` (keyword arguments; `None`
    /// keeps the default); nothing starts until `connect`. `callbacks`: handlers run on the
    /// core's dispatch thread (else events are polled).
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut o = ClientOptions::default();
        o.delivery = Delivery::Poll;
        let (mut transport, mut token) = (String::new(), None);
        let (mut command, mut headers) = (None::<Vec<String>>, Vec::<(String, String)>::new());
        let bad = |what: String| simple(py, "InvalidArgumentError", what);
        let secs = |t: f64, k: &str| -> PyResult<Duration> {
            match t.is_finite() && t >= 0.0 {
                true => Ok(Duration::from_secs_f64(t)),
                false => Err(bad(format!(
                    "{k} must be a number of seconds >= 0, not {t}"
                ))),
            }
        };
        let timeout = |v: &Bound<'_, PyAny>| -> PyResult<Duration> {
            Ok(request_options(py, Some(v.extract()?))?
                .timeout
                .expect("set"))
        };
        for (k, v) in options.into_iter().flatten() {
            let k: String = k.extract()?;
            if v.is_none() {
                continue;
            }
            match k.as_str() {
                "codex_bin" => o.codex_bin = Some(v.extract::<PathBuf>()?),
                "args" => o.args = v.extract()?,
                "config_overrides" => o.config_overrides = v.extract()?,
                "env" => o.env = v.extract()?,
                "clear_env" => o.clear_env = v.extract()?,
                "cwd" => o.cwd = Some(v.extract::<PathBuf>()?),
                "codex_home" => o.codex_home = Some(v.extract::<PathBuf>()?),
                "client_name" => o.client_name = v.extract()?,
                "client_title" => o.client_title = Some(v.extract()?),
                "client_version" => o.client_version = v.extract()?,
                "experimental_api" => o.experimental_api = v.extract()?,
                "opt_out_notification_methods" => o.opt_out_notification_methods = v.extract()?,
                "default_timeout" => o.default_timeout = timeout(&v)?,
                "connect_timeout" => o.connect_timeout = timeout(&v)?,
                "retry_max_attempts" => o.retry.max_attempts = v.extract::<u32>()?.max(1),
                "retry_base" => o.retry.base = secs(v.extract()?, &k)?,
                "retry_cap" => o.retry.cap = secs(v.extract()?, &k)?,
                "event_queue_capacity" => o.event_queue_capacity = v.extract::<usize>()?.max(1),
                "max_line_bytes" => o.max_line_bytes = v.extract()?,
                "read_ahead_bytes" => o.read_ahead_bytes = v.extract()?,
                "reply_spin" => {
                    o.reply_spin = secs(v.extract()?, &k)?;
                    if o.reply_spin > Duration::from_millis(10) {
                        return Err(bad(format!("{k} is at most 0.01 seconds")));
                    }
                }
                "dedicated_dispatch_thread" => o.dedicated_dispatch_thread = v.extract()?,
                "transport" => transport = v.extract()?,
                "token" => token = Some(v.extract()?),
                "command" => command = Some(v.extract()?),
                "headers" => headers = v.extract()?,
                "mcp_roots" => {
                    let roots: Vec<(String, Option<String>)> = v.extract()?;
                    o.mcp.roots = Some(roots.into_iter().map(|(u, n)| Root::new(u, n)).collect());
                }
                "mcp_capabilities" => {
                    o.mcp.capabilities = Some(json_value(py, &v.extract::<String>()?)?)
                }
                "reconnect" => {
                    o.reconnect = policy(&v, |p: &mut ReconnectPolicy, key, x| {
                        match key {
                            "max_attempts" => p.max_attempts = (x as u32).max(1),
                            "base" => p.base = secs(x, "reconnect base")?,
                            _ => p.cap = secs(x, "reconnect cap")?,
                        };
                        Ok(())
                    })?
                }
                "heartbeat" => {
                    let h = policy(&v, |h: &mut Heartbeat, key, x| {
                        match key {
                            "interval" => h.interval = secs(x, "heartbeat interval")?,
                            _ => h.timeout = secs(x, "heartbeat timeout")?,
                        };
                        Ok(())
                    })?;
                    o.heartbeat = h.filter(|h| !h.interval.is_zero());
                }
                "tls_ca_file" => o.tls.ca_file = Some(v.extract::<PathBuf>()?),
                "tls_client_cert" => o.tls.client_cert = Some(v.extract::<(PathBuf, PathBuf)>()?),
                "callbacks" if v.is_truthy()? => o.delivery = Delivery::Callbacks,
                "callbacks" => {}
                _ => return Err(bad(format!("unknown option {k}"))),
            }
        }
        // `stdio` (default), `exec`, `mcp`, `ws://…`/`wss://…` (token = bearer), `unix`,
        // `unix://PATH`, MCP servers: `mcp+stdio:COMMAND`, `http(s)://…` (token = bearer).
        // The token is never logged nor kept anywhere but the options.
        let kind = match command {
            Some(argv) => {
                if !(transport.is_empty() || transport == "mcp+stdio") || token.is_some() {
                    return Err(bad(
                        "command= starts an MCP server over stdio: use it with transport=\"mcp+stdio\" (or none) and no token".into(),
                    ));
                }
                let Some((program, args)) = argv.split_first() else {
                    return Err(bad("command= needs a program (a list: [PROGRAM, ARG…])".into()));
                };
                TransportKind::McpStdio(McpCommand::new(program).args(args.iter().cloned()))
            }
            None if transport == "mcp+stdio" => {
                return Err(bad(
                    "transport=\"mcp+stdio\" needs command=[PROGRAM, ARG…] (or the spec \"mcp+stdio:PROGRAM ARG…\")".into(),
                ))
            }
            None => TransportKind::parse(&transport, token).py(py)?,
        };
        let kind = match kind {
            TransportKind::McpHttp(mut http) => {
                for (k, v) in headers {
                    http = http.header(k, v);
                }
                TransportKind::McpHttp(http)
            }
            _ if !headers.is_empty() => return Err(bad(
                "headers= is for an MCP server over HTTP (transport=\"http://…\" or \"https://…\")"
                    .into(),
            )),
            other => other,
        };
        let o = o.transport(kind);
        Ok(NativeClient {
            client: Client::new(o),
            want_notifications: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Spawn the server and run the handshake. Returns (or resolves `aio`'s future with)
    /// `(raw_json, user_agent, codex_home, platform_family, platform_os, protocol_version,
    /// capabilities_json, server_info_json, instructions)` of the `initialize` result (the
    /// last four for an MCP server). Abandoned — the blocking wait interrupted by a signal
    /// (Ctrl-C), the asyncio future cancelled — the core's connect future is dropped, which
    /// aborts the connect as `disconnect` would (`Client::connect_async`).
    #[pyo3(signature = (aio = None))]
    fn connect(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let client = self.client.clone();
        run(
            py,
            aio,
            async move { client.connect_async().await },
            |py, init| {
                let t = (
                    init.raw.to_string(),
                    init.user_agent.clone(),
                    init.codex_home.clone(),
                    init.platform_family.clone(),
                    init.platform_os.clone(),
                    init.protocol_version().map(str::to_owned),
                    init.capabilities().map(Value::to_string),
                    init.server_info().map(Value::to_string),
                    init.instructions().map(str::to_owned),
                );
                t.into_py_any(py)
            },
        )
    }

    /// Stop the server (pending requests fail with `ConnectionClosedError`), or abort a
    /// connect in progress. Idempotent. With `aio` the loop goes on while the server exits;
    /// cancelling the wait does not stop the disconnect.
    #[pyo3(signature = (aio = None))]
    fn disconnect(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let client = self.client.clone();
        let fut = async move {
            client.disconnect_async().await;
            Ok(())
        };
        run(py, aio, fut, |py, ()| Ok(py.None()))
    }

    /// Whether the handshake is done and the server alive.
    #[getter]
    fn is_connected(&self) -> bool {
        self.client.is_connected()
    }

    /// Whether the connection dropped and the client is reconnecting.
    #[getter]
    fn is_reconnecting(&self) -> bool {
        self.client.is_reconnecting()
    }

    /// The last bytes the server wrote to stderr.
    #[getter]
    fn stderr_tail(&self) -> String {
        self.client.stderr_tail()
    }

    /// Process id of the running server (also of a connect in progress, once it runs).
    #[getter]
    fn server_pid(&self) -> Option<u32> {
        self.client.server_pid()
    }

    /// The default request timeout in seconds.
    #[getter]
    fn default_timeout(&self) -> f64 {
        self.client.options().default_timeout.as_secs_f64()
    }

    /// Send a request; its result as JSON text.
    #[pyo3(signature = (method, params_json, timeout = None, aio = None))]
    fn request(
        &self,
        py: Python<'_>,
        method: String,
        params_json: &str,
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let opts = request_options(py, timeout)?;
        let params = raw_params(py, params_json)?;
        let client = self.client.clone();
        let spin = self.client.reply_spin();
        let fut = async move { client.request_raw(&method, &params, opts).await };
        let conv =
            |py: Python<'_>, raw: Box<serde_json::value::RawValue>| text(py, raw.get().to_owned());
        run_spinning(py, aio, fut, conv, Some(&spin))
    }

    /// Send the request of the helper `name` (see `codex_client::Helper::from_name`) with
    /// `thread_id`, `arg` and more params, all JSON but the id. Returns (or resolves `aio`'s
    /// future with) `(result_json, thread_id)`, the id of the thread the result carries for
    /// the helpers that open one, else `None`.
    #[pyo3(signature = (name, thread_id, arg_json, params_json, timeout = None, aio = None))]
    #[allow(clippy::too_many_arguments)]
    fn helper(
        &self,
        py: Python<'_>,
        name: &str,
        thread_id: Option<&str>,
        arg_json: &str,
        params_json: &str,
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let helper = Helper::from_name(name)
            .ok_or_else(|| simple(py, "InvalidArgumentError", format!("no helper {name}")))?;
        let opts = request_options(py, timeout)?;
        let params = helper
            .params(
                thread_id,
                json_value(py, arg_json)?,
                json_value(py, params_json)?,
            )
            .py(py)?;
        let client = self.client.clone();
        let fut = async move {
            let r = client.request_with(helper.method(), params, opts).await?;
            let id = match helper.opens_thread() {
                true => Some(codex_client::thread_id_of(&r)?),
                false => None,
            };
            Ok((r.to_string(), id))
        };
        let spin = self.client.reply_spin();
        run_spinning(py, aio, fut, |py, r| r.into_py_any(py), Some(&spin))
    }

    /// Send the MCP request of the snake_case `name` (`codex_client::mcp::McpRequest`:
    /// `list_tools`, `call_tool`, `read_resource`, ...) through the core's typed helper, with
    /// `arg` (the tool or prompt name, resource URI, cursor, logging level, or the completed
    /// argument's name), `json` (tool or prompt arguments, or the completion reference, JSON)
    /// and `value` (the completion's partial value); `all_pages` makes a list request follow
    /// every cursor. Returns (or resolves `aio`'s future with) a list of result objects, a
    /// page `(items, next_cursor)`, one result object, or `None`.
    #[pyo3(signature = (name, arg = None, json = "null", value = None, all_pages = false, timeout = None, aio = None))]
    #[allow(clippy::too_many_arguments)]
    fn mcp(
        &self,
        py: Python<'_>,
        name: &str,
        arg: Option<String>,
        json: &str,
        value: Option<String>,
        all_pages: bool,
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let req = McpRequest::from_name(name)
            .ok_or_else(|| simple(py, "InvalidArgumentError", format!("no MCP request {name}")))?;
        let opts = request_options(py, timeout)?;
        let args = crate::mcp::Args {
            arg,
            json: json_value(py, json)?,
            value,
            all_pages,
        };
        let fut = crate::mcp::request(self.client.clone(), req, args, opts);
        let spin = self.client.reply_spin();
        run_spinning(py, aio, fut, |py, out| out(py), Some(&spin))
    }

    /// Start an MCP tool call that reports progress (sent before this returns): a `ToolCall`.
    #[pyo3(signature = (name, arguments_json, timeout = None))]
    fn call_tool_progress(
        &self,
        py: Python<'_>,
        name: &str,
        arguments_json: &str,
        timeout: Option<f64>,
    ) -> PyResult<ToolCall> {
        let opts = request_options(py, timeout)?;
        let arguments = json_value(py, arguments_json)?;
        let call = self
            .client
            .mcp_with(opts)
            .call_tool_progress(name, arguments)
            .py(py)?;
        Ok(ToolCall::new(call))
    }

    /// Send a client notification.
    fn notify(&self, py: Python<'_>, method: &str, params_json: &str) -> PyResult<()> {
        let params = json_value(py, params_json)?;
        self.client.notify(method, params).py(py)
    }

    /// Callbacks mode: call `handler(event)` for every event the core's dispatch thread
    /// delivers (server requests outside a streamed turn, connection events and, when
    /// wanted, notifications), with the GIL taken there. Set it once, before `connect`.
    fn set_event_handler(&self, py: Python<'_>, handler: Py<PyAny>) -> PyResult<()> {
        let want = self.want_notifications.clone();
        let r = self.client.on_event(move |ev: Event| {
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
        self.want_notifications.store(on, Ordering::Release);
    }

    /// Poll mode: a descriptor readable while events wait (watch it with `loop.add_reader`).
    fn event_fd(&self, py: Python<'_>) -> PyResult<i32> {
        self.client.event_fd().py(py)
    }

    /// Poll mode: up to `max` waiting events, without waiting (empty when none wait or the
    /// client never connected).
    #[pyo3(signature = (max = 256))]
    fn take_events<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Bound<'py, PyList>> {
        let mut out = Vec::new();
        match self.client.next_events(&mut out, max, Some(Duration::ZERO)) {
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
        Ok(EventStream::new(self.client.subscribe().py(py)?))
    }

    /// Start a turn on a thread with `input` and more `turn/start` params (both JSON) and
    /// stream it: returns (or resolves `aio`'s future with) a `Turn`. `handler` receives each
    /// server request of the turn before it is yielded. `skills`: names or paths of skills
    /// for the turn (the core's `Skill::parse`; resolved, natively or emulated, before
    /// `turn/start`).
    #[pyo3(signature = (thread_id, input_json, overrides_json, handler = None, aio = None, skills = None))]
    #[allow(clippy::too_many_arguments)]
    fn start_turn(
        &self,
        py: Python<'_>,
        thread_id: &str,
        input_json: &str,
        overrides_json: &str,
        handler: Option<Py<PyAny>>,
        aio: Aio,
        skills: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let skills = skills.unwrap_or_default();
        let input = input(py, input_json)?.and_skills(skills.iter().map(|s| Skill::parse(s)));
        let overrides = json_value(py, overrides_json)?;
        let thread = self.client.thread(thread_id);
        let fut = async move { thread.run_streamed_with_async(input, overrides).await };
        let client = self.client.clone();
        run(py, aio, fut, move |py, stream| {
            Ok(Py::new(py, Turn::new(client, stream, handler))?.into_any())
        })
    }

    /// A thread's status derived from `thread/status/changed` events (the core's
    /// `ThreadStatus` name: `unknown`, `idle`, `active`, ...).
    fn thread_status(&self, thread_id: &str) -> String {
        self.client.thread(thread_id).status().to_string()
    }
}

impl Drop for NativeClient {
    fn drop(&mut self) {
        // The dispatch thread may wait for the GIL to run a handler: release it meanwhile.
        let client = self.client.clone();
        Python::attach(|py| py.detach(move || client.disconnect()));
    }
}
