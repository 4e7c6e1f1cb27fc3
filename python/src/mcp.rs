//! MCP on the native client: the core's typed MCP results as Python objects ([`Tool`],
//! [`CallToolResult`], ...), the requests by the snake_case names of
//! [`codex_client::mcp::McpRequest`] ([`request`]) and a tool call that reports progress
//! ([`ToolCall`]). Method names, params and result fields are the core's; this module only
//! converts.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use codex_client::mcp::{self, McpRequest, Page, ProgressCall};
use codex_client::{Client, Error, RequestOptions};
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::IntoPyObjectExt;
use serde_json::Value;

use crate::errors::simple;
use crate::executor::{block_on, run, Aio, Outcome};

/// JSON as Python objects.
fn value_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    crate::json::loads(py, &v.to_string())
}

/// A field of a typed MCP result as a Python object (JSON values as Python objects).
trait Field {
    /// The Python object.
    fn py(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Field for Value {
    fn py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, self)
    }
}

impl Field for Option<Value> {
    fn py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.as_ref()
            .map_or_else(|| Ok(py.None()), |v| value_to_py(py, v))
    }
}

impl Field for Vec<Value> {
    fn py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = PyList::empty(py);
        for item in self {
            list.append(value_to_py(py, item)?)?;
        }
        Ok(list.into_any().unbind())
    }
}

/// `Field` for the types Python takes as they are.
macro_rules! plain_fields {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.clone().into_py_any(py)
            }
        }
    )*};
}

plain_fields!(
    String,
    Option<String>,
    bool,
    f64,
    Option<f64>,
    Option<u64>,
    Vec<String>
);

/// A frozen Python class over one typed MCP result of the core: `raw` (everything the
/// server sent, fields this version does not name included), `==`, a short repr, and a
/// getter per field named (`field;` reads the result's field, `name: |r| EXPR;` computes it
/// from the result), each with its doc comment.
macro_rules! result_class {
    ($(#[$doc:meta])* $name:ident($inner:ty), repr = $($field:ident),+;
        $($(#[$fdoc:meta])* $getter:ident $(: |$r:ident| $computed:expr)?;)*) => {
        $(#[$doc])*
        #[pyclass(module = "codexclient._native", frozen)]
        pub struct $name {
            pub(crate) inner: $inner,
        }

        impl Obj for $inner {
            fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(Py::new(py, $name { inner: self })?.into_any())
            }
        }

        #[pymethods]
        impl $name {
            /// Everything the server sent, as Python objects (with the fields this version
            /// does not name).
            #[getter]
            fn raw(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                let text = serde_json::to_string(&self.inner)
                    .map_err(|e| simple(py, "ProtocolError", e.to_string()))?;
                crate::json::loads(py, &text)
            }
            fn __eq__(&self, other: &Bound<'_, Self>) -> bool {
                self.inner == other.get().inner
            }
            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                let mut fields = Vec::new();
                $(
                    let v = self.inner.$field.py(py)?;
                    fields.push(format!("{}={}", stringify!($field), v.bind(py).repr()?));
                )+
                Ok(format!("{}({})", stringify!($name), fields.join(", ")))
            }
            $(
                $(#[$fdoc])*
                #[getter]
                fn $getter(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    result_class!(@get self, py, $getter $(, |$r| $computed)?)
                }
            )*
        }
    };
    (@get $s:ident, $py:ident, $field:ident) => { $s.inner.$field.py($py) };
    (@get $s:ident, $py:ident, $field:ident, |$r:ident| $computed:expr) => {{
        let $r = &$s.inner;
        $computed.py($py)
    }};
}

result_class! {
    /// A tool the MCP server offers (`list_tools`).
    Tool(mcp::Tool), repr = name;
    /// Name to call it by.
    name;
    /// Human-readable title.
    title;
    /// What the tool does.
    description;
    /// JSON Schema of the arguments.
    input_schema;
    /// JSON Schema of the structured result, when the tool declares one.
    output_schema;
    /// Behaviour hints (`readOnlyHint`, `destructiveHint`, ...).
    annotations;
    /// Icons (dicts: `src`, `mimeType`, `sizes`, `theme`), empty when none.
    icons: |r| serde_json::to_value(&r.icons).unwrap_or_default();
}

result_class! {
    /// What a tool call returned. A tool that failed sets `is_error` (its content says why);
    /// protocol errors raise instead.
    CallToolResult(mcp::CallToolResult), repr = is_error;
    /// Content blocks (text, images, audio, resource links, embedded resources) as dicts.
    content;
    /// The structured result, for tools with an output schema.
    structured_content;
    /// Whether the tool reported a failure.
    is_error;
    /// The text of every text content block, joined by newlines.
    text: |r| r.text();
    /// The `resource_link` content blocks (dicts: `uri`, `name`, `mimeType`, `icons`, ...).
    resource_links: |r| serde_json::to_value(r.resource_links()).unwrap_or_default();
}

result_class! {
    /// A resource of the MCP server (`list_resources`).
    Resource(mcp::Resource), repr = uri, name;
    /// Its URI.
    uri;
    /// Its name.
    name;
    /// Human-readable title.
    title;
    /// Description.
    description;
    /// MIME type.
    mime_type;
    /// Icons (dicts: `src`, `mimeType`, `sizes`, `theme`), empty when none.
    icons: |r| serde_json::to_value(&r.icons).unwrap_or_default();
}

result_class! {
    /// A resource template (`list_resource_templates`): resources by URI template.
    ResourceTemplate(mcp::ResourceTemplate), repr = uri_template;
    /// The RFC 6570 URI template.
    uri_template;
    /// Its name.
    name;
    /// Description.
    description;
    /// MIME type.
    mime_type;
    /// Icons (dicts: `src`, `mimeType`, `sizes`, `theme`), empty when none.
    icons: |r| serde_json::to_value(&r.icons).unwrap_or_default();
}

result_class! {
    /// One part of a read resource (`read_resource`): `text`, or `blob` (base64).
    ResourceContents(mcp::ResourceContents), repr = uri, mime_type;
    /// Its URI.
    uri;
    /// MIME type.
    mime_type;
    /// Text contents.
    text;
    /// Binary contents, base64.
    blob;
}

result_class! {
    /// A prompt the MCP server offers (`list_prompts`).
    Prompt(mcp::Prompt), repr = name;
    /// Name to get it by.
    name;
    /// Human-readable title.
    title;
    /// Description.
    description;
    /// Its arguments, as dicts (name, description, whether required).
    arguments;
    /// Icons (dicts: `src`, `mimeType`, `sizes`, `theme`), empty when none.
    icons: |r| serde_json::to_value(&r.icons).unwrap_or_default();
}

result_class! {
    /// A prompt filled in (`get_prompt`).
    GetPromptResult(mcp::GetPromptResult), repr = description;
    /// Description.
    description;
    /// The messages (dicts with a role and content).
    messages;
}

result_class! {
    /// Completions of an argument value (`complete`).
    Completion(mcp::Completion), repr = values, has_more;
    /// Suggested values.
    values;
    /// Total number of matches, when known.
    total;
    /// Whether more values exist than were sent.
    has_more;
}

result_class! {
    /// One progress update of a tool call (`call_tool_progress`, `on_progress`).
    Progress(mcp::Progress), repr = progress, total, message;
    /// Progress so far (increases with each update).
    progress;
    /// Total, when known.
    total;
    /// What is happening, when the server says.
    message;
}

result_class! {
    /// A task the MCP server runs in the background (2025-11-25 tasks: `call_tool_as_task`,
    /// `get_task`, `list_tasks`, `cancel_task`, `wait_task`).
    Task(mcp::Task), repr = task_id, status;
    /// The task's id, chosen by the server.
    task_id;
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    status;
    /// What the server says about the status.
    status_message;
    /// When the task was created (ISO 8601).
    created_at;
    /// When its status last changed (ISO 8601).
    last_updated_at;
    /// How long (ms) the server keeps the task after it was created (`None`: unlimited).
    ttl;
    /// The poll interval (ms) the server suggests.
    poll_interval;
    /// Whether the task ended (`completed`, `failed` or `cancelled`).
    is_terminal: |r| r.is_terminal();
}

impl Obj for Value {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self)
    }
}

impl Obj for mcp::TaskCall {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            mcp::TaskCall::Task(t) => t.obj(py),
            mcp::TaskCall::Done(r) => r.obj(py),
            other => Err(simple(py, "ProtocolError", format!("{other:?}"))),
        }
    }
}

/// The arguments of one MCP request (see [`crate::client::NativeClient`]'s `mcp`).
pub(crate) struct Args {
    /// Tool or prompt name, resource URI, cursor, logging level, or the completed argument.
    pub(crate) arg: Option<String>,
    /// Tool or prompt arguments, or the completion reference.
    pub(crate) json: Value,
    /// The partial value of a completion.
    pub(crate) value: Option<String>,
    /// A list request follows every cursor.
    pub(crate) all_pages: bool,
}

/// A core MCP value that becomes a Python object (a result class, a list or page of them).
trait Obj: Send + 'static {
    /// The Python object.
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Obj for () {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
}

impl<T: Obj> Obj for Option<T> {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.map_or_else(|| Ok(py.None()), |v| v.obj(py))
    }
}

impl<T: Obj> Obj for Vec<T> {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = PyList::empty(py);
        for item in self {
            list.append(item.obj(py)?)?;
        }
        Ok(list.into_any().unbind())
    }
}

impl<T: Obj> Obj for Page<T> {
    fn obj(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        (self.items.obj(py)?, self.next_cursor).into_py_any(py)
    }
}

/// `v` as the outcome of a request: made Python objects on the caller's thread (a list of
/// result objects, a page as `(items, next_cursor)`, one result object, or `None`).
fn out(v: impl Obj) -> Outcome {
    Box::new(move |py| v.obj(py))
}

/// Send `req` with `args` through the core's typed helper.
pub(crate) async fn request(
    client: Client,
    req: McpRequest,
    args: Args,
    opts: RequestOptions,
) -> codex_client::Result<Outcome> {
    let Args {
        arg,
        json,
        value,
        all_pages,
    } = args;
    let m = codex_client::McpClient::from_connection(&client).mcp_with(opts);
    let cursor = arg.as_deref();
    let need = |what: &str| {
        arg.as_deref()
            .ok_or_else(|| Error::InvalidArgument(format!("`{}` needs {what}", req.method())))
    };
    Ok(match req {
        McpRequest::ListTools if all_pages => out(m.list_all_tools().await?),
        McpRequest::ListTools => out(m.list_tools(cursor).await?),
        McpRequest::CallTool => out(m.call_tool(need("a tool name")?, json).await?),
        McpRequest::ListResources if all_pages => out(m.list_all_resources().await?),
        McpRequest::ListResources => out(m.list_resources(cursor).await?),
        McpRequest::ListResourceTemplates if all_pages => {
            out(m.list_all_resource_templates().await?)
        }
        McpRequest::ListResourceTemplates => out(m.list_resource_templates(cursor).await?),
        McpRequest::ReadResource => out(m.read_resource(need("a URI")?).await?),
        McpRequest::SubscribeResource => out(m.subscribe_resource(need("a URI")?).await?),
        McpRequest::UnsubscribeResource => out(m.unsubscribe_resource(need("a URI")?).await?),
        McpRequest::ListPrompts if all_pages => out(m.list_all_prompts().await?),
        McpRequest::ListPrompts => out(m.list_prompts(cursor).await?),
        McpRequest::GetPrompt => out(m.get_prompt(need("a prompt name")?, json).await?),
        McpRequest::Complete => out(m
            .complete(
                json,
                need("an argument name")?,
                value.as_deref().unwrap_or(""),
            )
            .await?),
        McpRequest::SetLoggingLevel => out(m.set_logging_level(need("a level")?).await?),
        McpRequest::Ping => out(m.ping().await?),
        McpRequest::CallToolAsTask => {
            let ttl = value
                .as_deref()
                .map(|v| v.parse::<u64>().map(std::time::Duration::from_millis))
                .transpose()
                .map_err(|e| Error::InvalidArgument(format!("ttl: {e}")))?;
            out(codex_client::McpClient::from_connection(&client)
                .call_tool_as_task(need("a tool name")?, json, ttl)
                .await?)
        }
        McpRequest::GetTask => out(codex_client::McpClient::from_connection(&client)
            .get_task(need("a task id")?)
            .await?),
        McpRequest::ListTasks => out(codex_client::McpClient::from_connection(&client)
            .list_tasks(cursor)
            .await?),
        McpRequest::CancelTask => out(codex_client::McpClient::from_connection(&client)
            .cancel_task(need("a task id")?)
            .await?),
        McpRequest::TaskResult => out(codex_client::McpClient::from_connection(&client)
            .task_result(need("a task id")?)
            .await?),
        other => {
            return Err(Error::Unsupported(format!(
                "`{}` has no Python form yet",
                other.method()
            )))
        }
    })
}

/// Poll task `task_id` (the core's `wait_task`) until it ends or waits for input, at most
/// `within`.
pub(crate) async fn wait_task(
    client: Client,
    task_id: String,
    within: std::time::Duration,
) -> codex_client::Result<Outcome> {
    Ok(out(codex_client::McpClient::from_connection(&client)
        .wait_task(&task_id, within)
        .await?))
}

/// A tool call's state: the core's call until its answer came, then the result.
struct CallState {
    call: Option<ProgressCall>,
    result: Option<codex_client::Result<mcp::CallToolResult>>,
}

impl CallState {
    /// The next progress update, or `None` once the answer came (then `result` is set).
    /// Every piece of state lives in the core's call, so polling a fresh `next()` each time
    /// loses nothing.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<mcp::Progress>> {
        let Some(call) = self.call.as_mut() else {
            return Poll::Ready(None);
        };
        let next = pin!(call.next()).poll(cx);
        if let Poll::Ready(None) = next {
            let call = self.call.take().expect("checked above");
            // The answer is in: this does not wait.
            let r = call.result_blocking().and_then(mcp::decode_call_tool);
            self.result = Some(r);
        }
        next
    }

    /// The result, once every update is skipped.
    fn poll_result(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<codex_client::Result<mcp::CallToolResult>> {
        loop {
            match self.poll_next(cx) {
                Poll::Ready(Some(_)) => continue,
                Poll::Ready(None) => {
                    return Poll::Ready(self.result.clone().expect("set at the end"));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

type Shared = Arc<Mutex<CallState>>;

/// An MCP tool call that reports progress (`call_tool_progress`): its progress updates,
/// then its result. Cancelled (the server told) when closed or dropped before the answer.
#[pyclass(module = "codexclient._native", frozen)]
pub struct ToolCall {
    state: Shared,
    token: Value,
}

impl ToolCall {
    pub(crate) fn new(call: ProgressCall) -> ToolCall {
        ToolCall {
            token: call.token().clone(),
            state: Arc::new(Mutex::new(CallState {
                call: Some(call),
                result: None,
            })),
        }
    }
}

#[pymethods]
impl ToolCall {
    /// The progress token sent with the request.
    #[getter]
    fn token(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.token)
    }

    /// Whether the answer came (or the call was cancelled): no update follows.
    #[getter]
    fn done(&self) -> bool {
        self.state.lock().unwrap().call.is_none()
    }

    /// The next progress update (a `Progress`), or `None` once the answer came; blocks with
    /// the GIL released (Ctrl-C checked).
    fn next(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let p = block_on(py, poll_fn(move |cx| state.lock().unwrap().poll_next(cx)))?;
        p.obj(py)
    }

    /// `next` on the loop: resolves `aio`'s future; returns the executor task id (cancelling
    /// the wait loses no update).
    fn next_async(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let fut = async move { Ok(poll_fn(move |cx| state.lock().unwrap().poll_next(cx)).await) };
        run(py, aio, fut, |py, p| p.obj(py))
    }

    /// The call's result (a `CallToolResult`), skipping the updates not pulled; blocking, or
    /// resolving `aio`'s future. Raises what the call failed with (`RequestCancelledError`
    /// after `cancel`).
    #[pyo3(signature = (aio = None))]
    fn result(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let fut = poll_fn(move |cx| state.lock().unwrap().poll_result(cx));
        run(py, aio, fut, |py, r| r.obj(py))
    }

    /// Cancel the call unless its answer came: the server gets `notifications/cancelled` and
    /// `result` raises `RequestCancelledError`. Returns whether it was still running.
    fn cancel(&self, py: Python<'_>) -> bool {
        let call = {
            let mut st = self.state.lock().unwrap();
            let call = st.call.take();
            if call.is_some() {
                st.result = Some(Err(Error::Cancelled(
                    "the tool call was cancelled before its answer came".into(),
                )));
            }
            call
        };
        let running = call.is_some();
        py.detach(move || drop(call));
        running
    }
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        // Dropping the core's call cancels it when unanswered; nothing here needs the GIL.
        let call = self.state.lock().unwrap().call.take();
        drop(call);
    }
}

/// An open MCP subscription stream (2026-07-28 `subscriptions/listen`, the core's
/// `mcp::Listen`): the filter the server acknowledged; closed (the server told) by `close`
/// or when dropped.
#[pyclass(module = "codexclient._native", frozen)]
pub struct Listen {
    listen: Mutex<Option<mcp::Listen>>,
    acknowledged: String,
}

impl Listen {
    fn new(listen: mcp::Listen) -> Listen {
        Listen {
            acknowledged: listen.acknowledged().to_string(),
            listen: Mutex::new(Some(listen)),
        }
    }
}

#[pymethods]
impl Listen {
    /// The filter the server acknowledged, as JSON text (the subset of the requested filter
    /// it honours, by the protocol's names).
    #[getter]
    fn acknowledged_json(&self) -> &str {
        &self.acknowledged
    }

    /// Whether the stream was closed.
    #[getter]
    fn closed(&self) -> bool {
        self.listen.lock().unwrap().is_none()
    }

    /// Close the stream (the server gets `notifications/cancelled`); whether it was open.
    /// Not blocking.
    fn close(&self, py: Python<'_>) -> bool {
        let listen = self.listen.lock().unwrap().take();
        let open = listen.is_some();
        py.detach(move || drop(listen));
        open
    }
}

/// Open a subscription stream with `filter` (checked by the core), acknowledged within
/// `within` (`None`: the client's default timeout): a [`Listen`].
pub(crate) async fn listen(
    client: Client,
    filter: Value,
    within: Option<std::time::Duration>,
) -> codex_client::Result<Outcome> {
    let l = codex_client::McpClient::from_connection(&client)
        .listen_within(filter, within)
        .await?;
    Ok(Box::new(move |py| {
        Ok(Py::new(py, Listen::new(l))?.into_any())
    }))
}

/// The JSON text of a completion reference built by the core: `kind` is `prompt` (`name`: a
/// prompt name) or `resource` (`name`: a resource template URI).
#[pyfunction]
pub fn completion_ref(py: Python<'_>, kind: &str, name: &str) -> PyResult<String> {
    let r = match kind {
        "prompt" => mcp::prompt_ref(name),
        "resource" => mcp::resource_ref(name),
        _ => {
            let msg = format!("no completion reference kind {kind}");
            return Err(simple(py, "InvalidArgumentError", msg));
        }
    };
    Ok(r.to_string())
}
