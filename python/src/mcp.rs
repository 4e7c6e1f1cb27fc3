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
use pyo3::{IntoPyObjectExt, PyClass, PyClassInitializer};
use serde_json::Value;

use crate::errors::simple;
use crate::executor::{block_on, run, Aio};

/// JSON as Python objects.
fn py_value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    crate::json::loads(py, &v.to_string())
}

fn py_opt(py: Python<'_>, v: &Option<Value>) -> PyResult<Py<PyAny>> {
    match v {
        Some(v) => py_value(py, v),
        None => Ok(py.None()),
    }
}

fn py_list(py: Python<'_>, v: &[Value]) -> PyResult<Py<PyAny>> {
    let list = PyList::empty(py);
    for item in v {
        list.append(py_value(py, item)?)?;
    }
    Ok(list.into_any().unbind())
}

/// A frozen Python class over one typed MCP result of the core: `raw` (everything the
/// server sent, fields this version does not name included), `==`, a short repr, and the
/// getters given.
macro_rules! result_class {
    ($(#[$doc:meta])* $name:ident($inner:ty), repr = $($field:ident),+; $($body:tt)*) => {
        $(#[$doc])*
        #[pyclass(module = "codexclient._native", frozen)]
        pub struct $name {
            pub(crate) inner: $inner,
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
                    let v = self.inner.$field.clone().into_pyobject(py)?;
                    fields.push(format!("{}={}", stringify!($field), v.repr()?));
                )+
                Ok(format!("{}({})", stringify!($name), fields.join(", ")))
            }
            $($body)*
        }
    };
}

result_class! {
    /// A tool the MCP server offers (`list_tools`).
    Tool(mcp::Tool), repr = name;
    /// Name to call it by.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Human-readable title.
    #[getter]
    fn title(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }
    /// What the tool does.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    /// JSON Schema of the arguments.
    #[getter]
    fn input_schema(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_value(py, &self.inner.input_schema)
    }
    /// JSON Schema of the structured result, when the tool declares one.
    #[getter]
    fn output_schema(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_opt(py, &self.inner.output_schema)
    }
    /// Behaviour hints (`readOnlyHint`, `destructiveHint`, ...).
    #[getter]
    fn annotations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_opt(py, &self.inner.annotations)
    }
}

result_class! {
    /// What a tool call returned. A tool that failed sets `is_error` (its content says why);
    /// protocol errors raise instead.
    CallToolResult(mcp::CallToolResult), repr = is_error;
    /// Content blocks (text, images, audio, resource links, embedded resources) as dicts.
    #[getter]
    fn content(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_list(py, &self.inner.content)
    }
    /// The structured result, for tools with an output schema.
    #[getter]
    fn structured_content(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_opt(py, &self.inner.structured_content)
    }
    /// Whether the tool reported a failure.
    #[getter]
    fn is_error(&self) -> bool {
        self.inner.is_error
    }
    /// The text of every text content block, joined by newlines.
    #[getter]
    fn text(&self) -> String {
        self.inner.text()
    }
}

result_class! {
    /// A resource of the MCP server (`list_resources`).
    Resource(mcp::Resource), repr = uri, name;
    /// Its URI.
    #[getter]
    fn uri(&self) -> &str {
        &self.inner.uri
    }
    /// Its name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Human-readable title.
    #[getter]
    fn title(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }
    /// Description.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    /// MIME type.
    #[getter]
    fn mime_type(&self) -> Option<&str> {
        self.inner.mime_type.as_deref()
    }
}

result_class! {
    /// A resource template (`list_resource_templates`): resources by URI template.
    ResourceTemplate(mcp::ResourceTemplate), repr = uri_template;
    /// The RFC 6570 URI template.
    #[getter]
    fn uri_template(&self) -> &str {
        &self.inner.uri_template
    }
    /// Its name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Description.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    /// MIME type.
    #[getter]
    fn mime_type(&self) -> Option<&str> {
        self.inner.mime_type.as_deref()
    }
}

result_class! {
    /// One part of a read resource (`read_resource`): `text`, or `blob` (base64).
    ResourceContents(mcp::ResourceContents), repr = uri, mime_type;
    /// Its URI.
    #[getter]
    fn uri(&self) -> &str {
        &self.inner.uri
    }
    /// MIME type.
    #[getter]
    fn mime_type(&self) -> Option<&str> {
        self.inner.mime_type.as_deref()
    }
    /// Text contents.
    #[getter]
    fn text(&self) -> Option<&str> {
        self.inner.text.as_deref()
    }
    /// Binary contents, base64.
    #[getter]
    fn blob(&self) -> Option<&str> {
        self.inner.blob.as_deref()
    }
}

result_class! {
    /// A prompt the MCP server offers (`list_prompts`).
    Prompt(mcp::Prompt), repr = name;
    /// Name to get it by.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Human-readable title.
    #[getter]
    fn title(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }
    /// Description.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    /// Its arguments, as dicts (name, description, whether required).
    #[getter]
    fn arguments(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_list(py, &self.inner.arguments)
    }
}

result_class! {
    /// A prompt filled in (`get_prompt`).
    GetPromptResult(mcp::GetPromptResult), repr = description;
    /// Description.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    /// The messages (dicts with a role and content).
    #[getter]
    fn messages(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        py_list(py, &self.inner.messages)
    }
}

result_class! {
    /// Completions of an argument value (`complete`).
    Completion(mcp::Completion), repr = values, has_more;
    /// Suggested values.
    #[getter]
    fn values(&self) -> Vec<String> {
        self.inner.values.clone()
    }
    /// Total number of matches, when known.
    #[getter]
    fn total(&self) -> Option<u64> {
        self.inner.total
    }
    /// Whether more values exist than were sent.
    #[getter]
    fn has_more(&self) -> bool {
        self.inner.has_more
    }
}

result_class! {
    /// One progress update of a tool call (`call_tool_progress`, `on_progress`).
    Progress(mcp::Progress), repr = progress, total, message;
    /// Progress so far (increases with each update).
    #[getter]
    fn progress(&self) -> f64 {
        self.inner.progress
    }
    /// Total, when known.
    #[getter]
    fn total(&self) -> Option<f64> {
        self.inner.total
    }
    /// What is happening, when the server says.
    #[getter]
    fn message(&self) -> Option<&str> {
        self.inner.message.as_deref()
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

/// What an MCP request produced, to become Python objects on the caller's thread.
pub(crate) enum Out {
    Tools(Vec<mcp::Tool>),
    ToolPage(Page<mcp::Tool>),
    Call(mcp::CallToolResult),
    Resources(Vec<mcp::Resource>),
    ResourcePage(Page<mcp::Resource>),
    Templates(Vec<mcp::ResourceTemplate>),
    TemplatePage(Page<mcp::ResourceTemplate>),
    Contents(Vec<mcp::ResourceContents>),
    Prompts(Vec<mcp::Prompt>),
    PromptPage(Page<mcp::Prompt>),
    Prompt(mcp::GetPromptResult),
    Completion(mcp::Completion),
    Unit,
}

/// Send `req` with `args` through the core's typed helper.
pub(crate) async fn request(
    client: Client,
    req: McpRequest,
    args: Args,
    opts: RequestOptions,
) -> codex_client::Result<Out> {
    let Args {
        arg,
        json,
        value,
        all_pages,
    } = args;
    let m = client.mcp_with(opts);
    let cursor = arg.as_deref();
    let need = |what: &str| {
        arg.as_deref()
            .ok_or_else(|| Error::InvalidArgument(format!("`{}` needs {what}", req.method())))
    };
    Ok(match req {
        McpRequest::ListTools if all_pages => Out::Tools(m.list_all_tools().await?),
        McpRequest::ListTools => Out::ToolPage(m.list_tools(cursor).await?),
        McpRequest::CallTool => Out::Call(m.call_tool(need("a tool name")?, json).await?),
        McpRequest::ListResources if all_pages => Out::Resources(m.list_all_resources().await?),
        McpRequest::ListResources => Out::ResourcePage(m.list_resources(cursor).await?),
        McpRequest::ListResourceTemplates if all_pages => {
            Out::Templates(m.list_all_resource_templates().await?)
        }
        McpRequest::ListResourceTemplates => {
            Out::TemplatePage(m.list_resource_templates(cursor).await?)
        }
        McpRequest::ReadResource => Out::Contents(m.read_resource(need("a URI")?).await?),
        McpRequest::SubscribeResource => {
            m.subscribe_resource(need("a URI")?).await?;
            Out::Unit
        }
        McpRequest::UnsubscribeResource => {
            m.unsubscribe_resource(need("a URI")?).await?;
            Out::Unit
        }
        McpRequest::ListPrompts if all_pages => Out::Prompts(m.list_all_prompts().await?),
        McpRequest::ListPrompts => Out::PromptPage(m.list_prompts(cursor).await?),
        McpRequest::GetPrompt => Out::Prompt(m.get_prompt(need("a prompt name")?, json).await?),
        McpRequest::Complete => Out::Completion(
            m.complete(
                json,
                need("an argument name")?,
                value.as_deref().unwrap_or(""),
            )
            .await?,
        ),
        McpRequest::SetLoggingLevel => {
            m.set_logging_level(need("a level")?).await?;
            Out::Unit
        }
        McpRequest::Ping => {
            m.ping().await?;
            Out::Unit
        }
        other => {
            return Err(Error::Unsupported(format!(
                "`{}` has no Python form yet",
                other.method()
            )))
        }
    })
}

fn objects<T, C: PyClass + Into<PyClassInitializer<C>>>(
    py: Python<'_>,
    items: Vec<T>,
    wrap: impl Fn(T) -> C,
) -> PyResult<Py<PyAny>> {
    let list = PyList::empty(py);
    for item in items {
        list.append(Py::new(py, wrap(item))?)?;
    }
    Ok(list.into_any().unbind())
}

fn page<T, C: PyClass + Into<PyClassInitializer<C>>>(
    py: Python<'_>,
    page: Page<T>,
    wrap: impl Fn(T) -> C,
) -> PyResult<Py<PyAny>> {
    (objects(py, page.items, wrap)?, page.next_cursor).into_py_any(py)
}

impl Out {
    /// The Python form: a list of result objects, a page as `(items, next_cursor)`, one
    /// result object, or `None`.
    pub(crate) fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Out::Tools(v) => objects(py, v, |inner| Tool { inner }),
            Out::ToolPage(p) => page(py, p, |inner| Tool { inner }),
            Out::Call(inner) => Ok(Py::new(py, CallToolResult { inner })?.into_any()),
            Out::Resources(v) => objects(py, v, |inner| Resource { inner }),
            Out::ResourcePage(p) => page(py, p, |inner| Resource { inner }),
            Out::Templates(v) => objects(py, v, |inner| ResourceTemplate { inner }),
            Out::TemplatePage(p) => page(py, p, |inner| ResourceTemplate { inner }),
            Out::Contents(v) => objects(py, v, |inner| ResourceContents { inner }),
            Out::Prompts(v) => objects(py, v, |inner| Prompt { inner }),
            Out::PromptPage(p) => page(py, p, |inner| Prompt { inner }),
            Out::Prompt(inner) => Ok(Py::new(py, GetPromptResult { inner })?.into_any()),
            Out::Completion(inner) => Ok(Py::new(py, Completion { inner })?.into_any()),
            Out::Unit => Ok(py.None()),
        }
    }
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

fn progress_object(py: Python<'_>, p: Option<mcp::Progress>) -> PyResult<Py<PyAny>> {
    match p {
        Some(inner) => Ok(Py::new(py, Progress { inner })?.into_any()),
        None => Ok(py.None()),
    }
}

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
        py_value(py, &self.token)
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
        progress_object(py, p)
    }

    /// `next` on the loop: resolves `aio`'s future; returns the executor task id (cancelling
    /// the wait loses no update).
    fn next_async(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let fut = async move { Ok(poll_fn(move |cx| state.lock().unwrap().poll_next(cx)).await) };
        run(py, aio, fut, progress_object)
    }

    /// The call's result (a `CallToolResult`), skipping the updates not pulled; blocking, or
    /// resolving `aio`'s future. Raises what the call failed with (`RequestCancelledError`
    /// after `cancel`).
    #[pyo3(signature = (aio = None))]
    fn result(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let fut = poll_fn(move |cx| state.lock().unwrap().poll_result(cx));
        run(py, aio, fut, |py, inner| {
            Ok(Py::new(py, CallToolResult { inner })?.into_any())
        })
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
