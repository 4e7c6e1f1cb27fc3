//! `NativeClient`: the core `Client`, in callbacks mode (the sync `Client`: Python handlers
//! run on the core's dispatch thread) or in poll mode (the `AsyncClient`: the event loop
//! drains the events when the core's event descriptor is readable). Each call blocks (GIL
//! released) or, given `aio` (an executor and an asyncio future), runs on the loop.

use codex_client::mcp::McpRequest;
use codex_client::{Client, Helper, OptionsBuilder, Skill};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::args::{input, json_value, py_to_value, raw_params};
use crate::errors::{simple, IntoPyResult};
use crate::executor::{request_options, run, run_spinning, Aio};
use crate::mcp::ToolCall;
use crate::stream::EventStream;
use crate::turn::Turn;

fn text(py: Python<'_>, s: String) -> PyResult<Py<PyAny>> {
    s.into_py_any(py)
}

/// The core's options builder with every keyword argument set (JSON `null` for `None`: the
/// default).
pub(crate) fn builder(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<OptionsBuilder> {
    builder_onto(py, OptionsBuilder::new(), options)
}

/// [`builder`] onto `b`.
fn builder_onto(
    py: Python<'_>,
    mut b: OptionsBuilder,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<OptionsBuilder> {
    for (k, v) in options.into_iter().flatten() {
        let key: String = k.extract()?;
        let value = py_to_value(py, &v, Some(&format!("option `{key}`")))?;
        b.set(&key, value).py(py)?;
    }
    Ok(b)
}

/// The core's option keys as JSON: `[{"name", "kind", "list", "secret", "doc"}…]`.
#[pyfunction]
pub fn option_keys() -> String {
    codex_client::options::keys_json()
}

/// The core's edge cases of every option as JSON: `[{"key", "value", "ok", "effective",
/// "builds"}…]` (what the core makes of each value; the bindings' tests check they agree).
#[pyfunction]
pub fn option_cases() -> String {
    codex_client::options::cases_json()
}

/// The value option `key` has once set to `value` (a Python object, converted as
/// `NativeClient(**options)` converts it), as JSON text; raises as the constructor would.
#[pyfunction]
pub fn effective_option(py: Python<'_>, key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let d = PyDict::new(py);
    d.set_item(key, value)?;
    let b = builder(py, Some(&d))?;
    Ok(b.get(key).py(py)?.to_string())
}

/// The kind of client options `transport` and `command` make, by the core's rule
/// (`OptionsBuilder::client_kind`): `"app-server"`, `"exec"`, `"codex-mcp-server"` or
/// `"mcp"` (any MCP server); raises as the constructor would for a value the core refuses.
#[pyfunction]
#[pyo3(signature = (transport=None, command=None))]
pub fn client_kind(
    py: Python<'_>,
    transport: Option<&Bound<'_, PyAny>>,
    command: Option<&Bound<'_, PyAny>>,
) -> PyResult<&'static str> {
    let d = PyDict::new(py);
    for (key, value) in [("transport", transport), ("command", command)] {
        if let Some(v) = value {
            d.set_item(key, v)?;
        }
    }
    let kind = builder(py, Some(&d))?.client_kind().py(py)?;
    Ok(kind.names().first().copied().unwrap_or_default())
}

/// The native client: a thin layer over `codex_client::Client`.
#[pyclass(module = "codexclient._native", frozen)]
pub struct NativeClient {
    client: Client,
    /// Made by `codex_client_new`-style construction: dropping it disconnects. A pool's
    /// endpoint (or its handler client) belongs to the pool instead.
    owned: bool,
}

impl NativeClient {
    /// The core client.
    pub(crate) fn core(&self) -> &Client {
        &self.client
    }

    /// The delivery this binding wants of a core client (see `new`). `handlers`: also the
    /// handler table's (a pool's endpoints share the pool's: adapting one must not undo
    /// what a handler registered on the pool asked for).
    fn adapt(client: &Client, handlers: bool) {
        // Notifications reach the client's own delivery only for a notification handler
        // (`on_notification`); iterators read them from subscriptions.
        if handlers {
            client.queue_notifications(false);
        }
        // A turn's server requests are yielded by its iterator: they stay in its stream, which
        // hands each to the handler table as it converts it (`Turn`).
        client.turn_streams_keep_requests(true);
    }

    /// A client of a pool (`handlers`: the pool's handler client, made once with the pool;
    /// else an endpoint's, sharing its table): the pool owns the connection, so dropping
    /// this does not disconnect.
    pub(crate) fn of_pool(client: Client, handlers: bool) -> NativeClient {
        Self::adapt(&client, handlers);
        NativeClient {
            client,
            owned: false,
        }
    }
}

#[pymethods]
impl NativeClient {
    /// Create a client from the options of `codexclient.Client` (keyword arguments named as
    /// the core's option keys, see `option_keys()`; each value is converted to JSON and set
    /// by the core, `None` keeping the default); nothing starts until `connect`.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        // `authorize` and `token_store` are MCP authorization's callbacks, not option keys.
        let mut b = OptionsBuilder::new();
        let callbacks = crate::auth::Callbacks::take(py, options, &mut b)?;
        let b = builder_onto(py, b, options)?;
        let o = b.build().py(py)?;
        // The core's deprecation notes, raised where the caller made the client (its
        // `codexclient` class's `__init__` is one frame up, the caller's line two).
        for note in b.deprecations() {
            let msg = std::ffi::CString::new(note.as_str()).unwrap_or_default();
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
                &msg,
                3,
            )?;
        }
        let client = Client::new(o);
        callbacks.keep(&client);
        Self::adapt(&client, true);
        Ok(NativeClient {
            client,
            owned: true,
        })
    }

    /// Spawn the server and run the handshake. Returns (or resolves `aio`'s future with) the
    /// core's view of the `initialize` result as JSON text (`{"raw", "user_agent",
    /// "codex_home", "platform_family", "platform_os", "codex_version", "protocol_version",
    /// "capabilities", "server_info", "instructions"}`). Abandoned — the blocking wait
    /// interrupted by a signal (Ctrl-C), the asyncio future cancelled — the core's connect
    /// future is dropped, which aborts the connect as `disconnect` would
    /// (`Client::connect_async`).
    #[pyo3(signature = (aio = None))]
    fn connect(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let client = self.client.clone();
        run(
            py,
            aio,
            async move { client.connect_async().await },
            |py, init| init.to_json().to_string().into_py_any(py),
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

    /// The connected app-server's Codex version in the supported window as JSON text
    /// (`{"version", "position", "matches", "window"}`); `None` when not connected or not a
    /// Codex app-server (`CodexClient::server_version`).
    #[getter]
    fn server_version(&self) -> Option<String> {
        codex_client::CodexClient::from_connection(&self.client)
            .server_version()
            .map(|v| v.to_json().to_string())
    }

    /// Whether the connected app-server has client method `method`, by the window's method
    /// table (`CodexClient::supports`).
    fn supports(&self, py: Python<'_>, method: &str) -> PyResult<bool> {
        codex_client::CodexClient::from_connection(&self.client)
            .supports(method)
            .py(py)
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
        self.client.options().get_default_timeout().as_secs_f64()
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
    /// future with) `(result_json, thread_id, thread_ref_json)`: for the helpers that open a
    /// thread its id and the core's `ThreadRef` as JSON, else `None` twice.
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
        let sent = params.clone();
        let fut = async move {
            let r = client.request_with(helper.method(), params, opts).await?;
            let (id, reference) = match helper.opens_thread() {
                true => {
                    let t = codex_client::ThreadRef::of_open(client.label(), &sent, &r)?;
                    (Some(t.thread_id.clone()), Some(t.to_json()))
                }
                false => (None, None),
            };
            Ok((r.to_string(), id, reference))
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

    /// Skills over MCP: `skills/list` (one page at `cursor`, or every page with
    /// `all_pages`) through the core; returns (or resolves `aio`'s future with) the core's
    /// JSON text `{"skills": [...], "nextCursor": ...}`.
    #[pyo3(signature = (cursor = None, all_pages = false, aio = None))]
    fn skills_list(
        &self,
        py: Python<'_>,
        cursor: Option<String>,
        all_pages: bool,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let client = self.client.clone();
        let fut = async move {
            let v = codex_client::McpClient::from_connection(&client)
                .list_skills_json(cursor.as_deref(), all_pages)
                .await?;
            Ok(v.to_string())
        };
        run(py, aio, fut, |py, r| r.into_py_any(py))
    }

    /// Skills over MCP: find the skill `skill` (name or SKILL.md URI) and load it, checked by
    /// the core; returns (or resolves `aio`'s future with) the JSON text
    /// `{"entry": ..., "text": ..., "body": ...}`.
    #[pyo3(signature = (skill, aio = None))]
    fn skill_load(&self, py: Python<'_>, skill: String, aio: Aio) -> PyResult<Py<PyAny>> {
        let client = self.client.clone();
        let fut = async move {
            Ok(codex_client::McpClient::from_connection(&client)
                .load_skill_json(&skill)
                .await?
                .to_string())
        };
        run(py, aio, fut, |py, r| r.into_py_any(py))
    }

    /// Let this (Codex) client's turns use the skills of the MCP client `server` under
    /// `label` (`Client::add_skill_source`).
    fn add_skill_source(&self, py: Python<'_>, label: &str, server: &NativeClient) -> PyResult<()> {
        codex_client::CodexClient::from_connection(&self.client)
            .add_skill_source(label, &server.client)
            .py(py)
    }

    /// Forget the skill source `label`; whether there was one.
    fn remove_skill_source(&self, label: &str) -> bool {
        codex_client::CodexClient::from_connection(&self.client).remove_skill_source(label)
    }

    /// Poll an MCP task until it ends or waits for input, at most `within` seconds: its
    /// `Task` (`RequestTimeoutError` past it).
    #[pyo3(signature = (task_id, within, aio = None))]
    fn wait_task(
        &self,
        py: Python<'_>,
        task_id: String,
        within: f64,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        if !(within.is_finite() && within > 0.0) {
            let msg = format!("within must be a positive number of seconds, not {within}");
            return Err(simple(py, "InvalidArgumentError", msg));
        }
        let within = std::time::Duration::from_secs_f64(within);
        let fut = crate::mcp::wait_task(self.client.clone(), task_id, within);
        let spin = self.client.reply_spin();
        run_spinning(py, aio, fut, |py, out| out(py), Some(&spin))
    }

    /// MCP 2026-07-28 `subscriptions/listen` with the filter `filter_json` (checked by the
    /// core: the protocol's names or their snake_case names), once the server acknowledged
    /// it within `timeout` seconds (`None`: the default timeout): a `Listen` (or `aio`'s
    /// future resolved with it). `UnsupportedError` in the handshake era.
    #[pyo3(signature = (filter_json, timeout = None, aio = None))]
    fn listen(
        &self,
        py: Python<'_>,
        filter_json: &str,
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let within = request_options(py, timeout)?.timeout;
        let filter = json_value(py, filter_json)?;
        let fut = crate::mcp::listen(self.client.clone(), filter, within);
        run(py, aio, fut, |py, out| out(py))
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
        let call = codex_client::McpClient::from_connection(&self.client)
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

    /// Register `handler(request)` in the core's handler table for server requests of
    /// `method` (`None`: the fallback, for every method without a handler of its own), or
    /// with `handler` `None` remove it. The core decides which handler takes a request (and
    /// answers fail-closed when none does); it runs on the dispatch thread (callbacks mode),
    /// in `dispatch_events` (poll mode) or where a turn hands it over (`Turn`).
    #[pyo3(signature = (method, handler))]
    fn on_request(
        &self,
        py: Python<'_>,
        method: Option<&str>,
        handler: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        crate::handlers::on_request(&self.client, method, handler).py(py)
    }

    /// Register `handler(notification)` for the notifications of the client's own delivery
    /// (those not routed to a turn; `None` removes it). Only while one is set do
    /// notifications reach that delivery: nothing converts one nobody asked for.
    fn on_notification(&self, py: Python<'_>, handler: Option<Py<PyAny>>) -> PyResult<()> {
        crate::handlers::on_notification(&self.client, handler).py(py)
    }

    /// Register `handler(event)` for connection events (`None` removes it).
    fn on_connection_event(&self, py: Python<'_>, handler: Option<Py<PyAny>>) -> PyResult<()> {
        crate::handlers::on_connection_event(&self.client, handler).py(py)
    }

    /// Poll mode: a descriptor readable while events wait (watch it with `loop.add_reader`).
    fn event_fd(&self, py: Python<'_>) -> PyResult<i32> {
        self.client.event_fd().py(py)
    }

    /// Poll mode: run the registered handlers for the events waiting now, on this thread
    /// (`Client::dispatch_events`); how many there were (0 when none wait or the client
    /// never connected).
    fn dispatch_events(&self, py: Python<'_>) -> PyResult<usize> {
        self.client.dispatch_events().py(py)
    }

    /// A new stream of this connection's notifications and connection events (those not
    /// routed to a turn), beside the client's own delivery.
    fn events(&self, py: Python<'_>) -> PyResult<EventStream> {
        Ok(EventStream::new(self.client.subscribe().py(py)?))
    }

    /// Start a turn on a thread with `input` and more `turn/start` params (both JSON) and
    /// stream it: returns (or resolves `aio`'s future with) a `Turn`, which hands each server
    /// request of the turn to the client's handler table before it yields it. `skills`: names or paths of skills
    /// for the turn (the core's `Skill::parse`; resolved, natively or emulated, before
    /// `turn/start`).
    #[pyo3(signature = (thread_id, input_json, overrides_json, aio = None, skills = None))]
    #[allow(clippy::too_many_arguments)]
    fn start_turn(
        &self,
        py: Python<'_>,
        thread_id: &str,
        input_json: &str,
        overrides_json: &str,
        aio: Aio,
        skills: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let skills = skills.unwrap_or_default();
        let input = input(py, input_json)?.and_skills(skills.iter().map(|s| Skill::parse(s)));
        let overrides = json_value(py, overrides_json)?;
        let thread = codex_client::CodexClient::from_connection(&self.client).thread(thread_id);
        let fut = async move { thread.run_streamed_with_async(input, overrides).await };
        let client = self.client.clone();
        run(py, aio, fut, move |py, stream| {
            Ok(Py::new(py, Turn::new(client, stream))?.into_any())
        })
    }

    /// A handle on the same core client for the finalizer and the loop's reader, which must
    /// not keep the handlers' callables reachable (this object shows them to the cycle
    /// collector; the handle does not).
    fn handle(&self) -> ClientHandle {
        ClientHandle {
            client: self.client.clone(),
        }
    }

    /// Show the Python callables registered in the core's handler table to the cycle
    /// collector (a handler that refers back to its client would otherwise keep it alive
    /// unseen).
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        crate::handlers::traverse(&self.client, &visit)
    }

    /// The client's random id (`Client::id`): the owner of its server requests.
    #[getter]
    fn id(&self) -> &str {
        self.client.id()
    }

    /// The client's label (option `label`), or `None`.
    #[getter]
    fn label(&self) -> Option<&str> {
        self.client.label()
    }

    /// Answer the server request a reference names (`ref_json`: the core's `RequestRef` JSON)
    /// with what a handler would return (`answer_json`: for an approval a bare decision is
    /// worded for its method, checked by the core), on this client, which must own it
    /// (`Client::request_by_ref`: `InvalidArgumentError` for another client's,
    /// `ConnectionLostError`/`ConnectionClosedError` for a lost or ended connection,
    /// `AlreadyRespondedError` when answered or resolved). Never blocks.
    fn respond_ref(&self, py: Python<'_>, ref_json: &str, answer_json: &str) -> PyResult<()> {
        let r = codex_client::RequestRef::from_json(ref_json).py(py)?;
        let answer = json_value(py, answer_json)?;
        let client = self.client.clone();
        let res = py.detach(move || {
            let req = client.request_by_ref(&r)?;
            let answer = codex_client::approval_answer(&req.method, answer).to_string();
            req.check_answer_json(&answer)?;
            req.respond_json(&answer)
        });
        res.py(py)
    }

    /// Answer the server request a reference names with a JSON-RPC error (`data_json`:
    /// `"null"` for none); errors as `respond_ref`.
    fn respond_ref_error(
        &self,
        py: Python<'_>,
        ref_json: &str,
        code: i64,
        message: String,
        data_json: &str,
    ) -> PyResult<()> {
        let r = codex_client::RequestRef::from_json(ref_json).py(py)?;
        let data = Some(json_value(py, data_json)?).filter(|d| !d.is_null());
        let err = codex_client::RpcError::new(code, message, data);
        let client = self.client.clone();
        let res = py.detach(move || client.respond_ref_error(&r, &err));
        res.py(py)
    }

    /// A thread's status derived from `thread/status/changed` events (the core's
    /// `ThreadStatus` name: `unknown`, `idle`, `active`, ...).
    fn thread_status(&self, thread_id: &str) -> String {
        codex_client::CodexClient::from_connection(&self.client)
            .thread(thread_id)
            .status()
            .to_string()
    }
}

/// A handle on a native client's core client (`NativeClient.handle()`): what its finalizer
/// and the asyncio loop's reader need, without the handler callables.
#[pyclass(module = "codexclient._native", frozen)]
pub struct ClientHandle {
    client: Client,
}

#[pymethods]
impl ClientHandle {
    /// Stop the server (blocking, GIL released). Idempotent.
    fn disconnect(&self, py: Python<'_>) {
        let client = self.client.clone();
        py.detach(move || client.disconnect());
    }

    /// Poll mode: run the handlers of the events waiting now (see
    /// `NativeClient.dispatch_events`).
    fn dispatch_events(&self, py: Python<'_>) -> PyResult<usize> {
        self.client.dispatch_events().py(py)
    }
}

impl Drop for NativeClient {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // The dispatch thread may wait for the GIL to run a handler: release it meanwhile.
        let client = self.client.clone();
        Python::attach(|py| py.detach(move || client.disconnect()));
    }
}
