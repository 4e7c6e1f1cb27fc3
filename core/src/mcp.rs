//! The MCP client: typed requests on [`Client`] (tools, resources, prompts, completion,
//! logging, ping) and requests that report progress ([`ProgressCall`]). Each is a thin layer
//! over [`Client::request`]; the method names live in [`McpRequest`]. Connect to an MCP server
//! with [`TransportKind::McpStdio`](crate::TransportKind::McpStdio) or
//! [`TransportKind::McpHttp`](crate::TransportKind::McpHttp); the handshake, cancellation,
//! progress routing, `ping` and fail-closed answers are the engine's (see the README's MCP
//! section).

pub use crate::protocol::mcp::{
    default_capabilities, CallToolResult, ClientCapabilities, Completion, Extra, GetPromptResult,
    Page, Progress, Prompt, Resource, ResourceContents, ResourceTemplate, Root, ServerCapabilities,
    Tool, ELICITATION_REQUEST, OFFERED_VERSION, ROOTS_REQUEST, SAMPLING_REQUEST, SERVER_LOG_TARGET,
    SUPPORTED_VERSIONS,
};

use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::client::Client;
use crate::correlation::Outcome;
use crate::delivery::EventReceiver;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::options::RequestOptions;
use crate::session::SessionShared;

/// The MCP requests behind the typed helpers, by the snake_case name bindings use: each
/// knows its method; the params are the MCP params as documented per variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpRequest {
    /// `tools/list` (`{cursor?}`).
    ListTools,
    /// `tools/call` (`{name, arguments?}`).
    CallTool,
    /// `resources/list` (`{cursor?}`).
    ListResources,
    /// `resources/templates/list` (`{cursor?}`).
    ListResourceTemplates,
    /// `resources/read` (`{uri}`).
    ReadResource,
    /// `resources/subscribe` (`{uri}`).
    SubscribeResource,
    /// `resources/unsubscribe` (`{uri}`).
    UnsubscribeResource,
    /// `prompts/list` (`{cursor?}`).
    ListPrompts,
    /// `prompts/get` (`{name, arguments?}`).
    GetPrompt,
    /// `completion/complete` (`{ref, argument: {name, value}, context?}`).
    Complete,
    /// `logging/setLevel` (`{level}`).
    SetLoggingLevel,
    /// `ping` (`{}`).
    Ping,
}

impl McpRequest {
    const ALL: [(&'static str, &'static str, McpRequest); 12] = [
        ("list_tools", "tools/list", McpRequest::ListTools),
        ("call_tool", "tools/call", McpRequest::CallTool),
        (
            "list_resources",
            "resources/list",
            McpRequest::ListResources,
        ),
        (
            "list_resource_templates",
            "resources/templates/list",
            McpRequest::ListResourceTemplates,
        ),
        ("read_resource", "resources/read", McpRequest::ReadResource),
        (
            "subscribe_resource",
            "resources/subscribe",
            McpRequest::SubscribeResource,
        ),
        (
            "unsubscribe_resource",
            "resources/unsubscribe",
            McpRequest::UnsubscribeResource,
        ),
        ("list_prompts", "prompts/list", McpRequest::ListPrompts),
        ("get_prompt", "prompts/get", McpRequest::GetPrompt),
        ("complete", "completion/complete", McpRequest::Complete),
        (
            "set_logging_level",
            "logging/setLevel",
            McpRequest::SetLoggingLevel,
        ),
        ("ping", "ping", McpRequest::Ping),
    ];

    /// The request of a snake_case name: `list_tools`, `call_tool`, `list_resources`,
    /// `list_resource_templates`, `read_resource`, `subscribe_resource`,
    /// `unsubscribe_resource`, `list_prompts`, `get_prompt`, `complete`,
    /// `set_logging_level`, `ping`.
    pub fn from_name(name: &str) -> Option<McpRequest> {
        Self::ALL.iter().find(|e| e.0 == name).map(|e| e.2)
    }

    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|e| e.2 == self)
            .map(|e| e.1)
            .expect("every request is in the table")
    }

    /// Every snake_case name [`from_name`](Self::from_name) knows, in a fixed order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::ALL.iter().map(|e| e.0)
    }

    /// The params of this request from the two arguments a binding takes, so that no binding
    /// spells a field. `subject` is the one string the request is about: the `cursor` of a
    /// list request (optional), the `name` of the tool (`call_tool`) or prompt
    /// (`get_prompt`), the `uri` of `read_resource` / `subscribe_resource` /
    /// `unsubscribe_resource`, the `level` of `set_logging_level`; `ping` and `complete`
    /// take none. `arguments` is the JSON object of a tool's or prompt's arguments (`null`:
    /// none), and for `complete` the whole params (`{ref, argument: {name, value},
    /// context?}`); the other requests take none (`null`). Errors: `InvalidArgument` when a
    /// required argument is missing, an argument is given that the request does not take, or
    /// `arguments` is not an object.
    pub fn params(self, subject: Option<&str>, arguments: Value) -> Result<Value> {
        use McpRequest::*;
        let bad = |m: String| Err(Error::InvalidArgument(m));
        let name = Self::ALL
            .iter()
            .find(|e| e.2 == self)
            .map_or("request", |e| e.0);
        let takes_arguments = matches!(self, CallTool | GetPrompt | Complete);
        if !arguments.is_null() && !takes_arguments {
            return bad(format!("`{name}` takes no arguments object"));
        }
        if !arguments.is_null() && !arguments.is_object() {
            return bad(format!("the arguments of `{name}` must be a JSON object"));
        }
        let field = match self {
            ListTools | ListResources | ListResourceTemplates | ListPrompts => "cursor",
            CallTool | GetPrompt => "name",
            ReadResource | SubscribeResource | UnsubscribeResource => "uri",
            SetLoggingLevel => "level",
            Ping | Complete => {
                if subject.is_some() {
                    return bad(format!("`{name}` takes no subject string"));
                }
                return Ok(match self {
                    Complete if arguments.is_null() => {
                        return bad("`complete` needs its params object as arguments".into())
                    }
                    Complete => arguments,
                    _ => json!({}),
                });
            }
        };
        match (field, subject) {
            ("cursor", cursor) => Ok(cursor_params(cursor)),
            (_, None) => bad(format!("`{name}` needs its {field}")),
            ("name", Some(n)) => Ok(call_params(n, arguments)),
            (field, Some(s)) => Ok(json!({ field: s })),
        }
    }

    /// The key of the list in a paginated result (`tools`, `resources`, …), for the list
    /// requests.
    pub fn list_key(self) -> Option<&'static str> {
        match self {
            McpRequest::ListTools => Some("tools"),
            McpRequest::ListResources => Some("resources"),
            McpRequest::ListResourceTemplates => Some("resourceTemplates"),
            McpRequest::ListPrompts => Some("prompts"),
            _ => None,
        }
    }
}

/// The params of a list request for one page.
fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({ "cursor": c }),
        None => json!({}),
    }
}

fn decode<T: DeserializeOwned>(what: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::Protocol(format!("bad {what} result: {e}")))
}

/// Split a list result into its items (under `key`) and the next cursor.
pub fn split_page(key: &str, mut result: Value) -> Result<(Vec<Value>, Option<String>)> {
    let next = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match result.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => Ok((items, next)),
        _ => Err(Error::Protocol(format!(
            "list result has no `{key}` array: {result}"
        ))),
    }
}

/// Most pages a `list_all_*` helper follows before giving up on a server whose cursors never end.
const MAX_PAGES: usize = 10_000;

static NEXT_PROGRESS: AtomicU64 = AtomicU64::new(1);

/// The typed MCP requests with per-request options ([`Client::mcp_with`]): the same helpers
/// as on [`Client`] (which use the default options), each sent with these options (timeout,
/// retry).
#[derive(Clone, Copy)]
pub struct Mcp<'a> {
    client: &'a Client,
    opts: RequestOptions,
}

impl Client {
    /// The typed MCP requests with per-request options:
    /// `client.mcp_with(RequestOptions::timeout(d)).call_tool(…)`. A request that times out
    /// (or whose future is dropped) is cancelled: the server gets `notifications/cancelled`.
    pub fn mcp_with(&self, opts: RequestOptions) -> Mcp<'_> {
        Mcp { client: self, opts }
    }

    fn mcp_default(&self) -> Mcp<'_> {
        self.mcp_with(RequestOptions::default())
    }

    /// MCP `tools/list`: one page.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<Page<Tool>> {
        self.mcp_default().list_tools(cursor).await
    }
    /// MCP `tools/list`, following every cursor.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.mcp_default().list_all_tools().await
    }
    /// MCP `tools/call`. A tool failure is `Ok` with [`CallToolResult::is_error`] set.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.mcp_default().call_tool(name, arguments).await
    }
    /// MCP `tools/call` that asks for progress: `on_progress` sees each
    /// `notifications/progress` of this call, on the calling task, before the result.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
        on_progress: impl FnMut(Progress) + Send,
    ) -> Result<CallToolResult> {
        self.mcp_with(opts)
            .call_tool_with_progress(name, arguments, on_progress)
            .await
    }
    /// MCP `resources/list`: one page.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<Page<Resource>> {
        self.mcp_default().list_resources(cursor).await
    }
    /// MCP `resources/list`, following every cursor.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.mcp_default().list_all_resources().await
    }
    /// MCP `resources/templates/list`: one page.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>> {
        self.mcp_default().list_resource_templates(cursor).await
    }
    /// MCP `resources/templates/list`, following every cursor.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.mcp_default().list_all_resource_templates().await
    }
    /// MCP `resources/read`: the contents.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>> {
        self.mcp_default().read_resource(uri).await
    }
    /// MCP `resources/subscribe`: `notifications/resources/updated` follow for `uri`.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.mcp_default().subscribe_resource(uri).await
    }
    /// MCP `resources/unsubscribe`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.mcp_default().unsubscribe_resource(uri).await
    }
    /// MCP `prompts/list`: one page.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<Page<Prompt>> {
        self.mcp_default().list_prompts(cursor).await
    }
    /// MCP `prompts/list`, following every cursor.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.mcp_default().list_all_prompts().await
    }
    /// MCP `prompts/get` with string arguments (`{}` for none).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult> {
        self.mcp_default().get_prompt(name, arguments).await
    }
    /// MCP `completion/complete`: `reference` is `{"type":"ref/prompt","name":…}` or
    /// `{"type":"ref/resource","uri":…}`; completes argument `argument` from `value`.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<Completion> {
        self.mcp_default()
            .complete(reference, argument, value)
            .await
    }
    /// MCP `logging/setLevel` (`debug`, `info`, `notice`, `warning`, `error`, `critical`,
    /// `alert`, `emergency`). The server's `notifications/message` records are logged through
    /// `tracing` (target [`SERVER_LOG_TARGET`]) and delivered.
    pub async fn set_logging_level(&self, level: &str) -> Result<()> {
        self.mcp_default().set_logging_level(level).await
    }
    /// MCP `ping`.
    pub async fn ping(&self) -> Result<()> {
        self.mcp_default().ping().await
    }
}

impl Mcp<'_> {
    async fn send(&self, req: McpRequest, params: Value) -> Result<Value> {
        self.client
            .request_with(req.method(), params, self.opts)
            .await
    }

    async fn page<T: DeserializeOwned>(
        &self,
        req: McpRequest,
        cursor: Option<&str>,
    ) -> Result<Page<T>> {
        let key = req.list_key().expect("a list request");
        let (items, next_cursor) = split_page(key, self.send(req, cursor_params(cursor)).await?)?;
        let items = decode(key, Value::Array(items))?;
        Ok(Page { items, next_cursor })
    }

    async fn all<T: DeserializeOwned>(&self, req: McpRequest) -> Result<Vec<T>> {
        let mut out = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let page: Page<T> = self.page(req, cursor.as_deref()).await?;
            out.extend(page.items);
            match page.next_cursor {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                _ => return Ok(out),
            }
        }
        Err(Error::Protocol(format!(
            "{} kept returning a next cursor after {MAX_PAGES} pages",
            req.method()
        )))
    }

    /// MCP `tools/list`: one page.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<Page<Tool>> {
        self.page(McpRequest::ListTools, cursor).await
    }
    /// MCP `tools/list`, following every cursor.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.all(McpRequest::ListTools).await
    }
    /// MCP `tools/call`. A tool failure is `Ok` with [`CallToolResult::is_error`] set.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        let v = self
            .send(McpRequest::CallTool, call_params(name, arguments))
            .await?;
        decode_call_tool(v)
    }
    /// MCP `tools/call` that asks for progress, as a [`ProgressCall`] (sent before this
    /// returns): pull its updates, then [`decode_call_tool`] its result.
    pub fn call_tool_progress(&self, name: &str, arguments: Value) -> Result<ProgressCall> {
        self.client.start_with_progress(
            McpRequest::CallTool.method(),
            call_params(name, arguments),
            self.opts,
        )
    }
    /// MCP `tools/call` that asks for progress: `on_progress` sees each
    /// `notifications/progress` of this call, on the calling task, before the result.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        mut on_progress: impl FnMut(Progress) + Send,
    ) -> Result<CallToolResult> {
        let mut call = self.call_tool_progress(name, arguments)?;
        while let Some(p) = call.next().await {
            on_progress(p);
        }
        decode_call_tool(call.result().await?)
    }
    /// MCP `resources/list`: one page.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<Page<Resource>> {
        self.page(McpRequest::ListResources, cursor).await
    }
    /// MCP `resources/list`, following every cursor.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.all(McpRequest::ListResources).await
    }
    /// MCP `resources/templates/list`: one page.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>> {
        self.page(McpRequest::ListResourceTemplates, cursor).await
    }
    /// MCP `resources/templates/list`, following every cursor.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.all(McpRequest::ListResourceTemplates).await
    }
    /// MCP `resources/read`: the contents.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>> {
        let mut v = self
            .send(McpRequest::ReadResource, json!({ "uri": uri }))
            .await?;
        decode("resources/read", v["contents"].take())
    }
    /// MCP `resources/subscribe`: `notifications/resources/updated` follow for `uri`.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.send(McpRequest::SubscribeResource, json!({ "uri": uri }))
            .await
            .map(drop)
    }
    /// MCP `resources/unsubscribe`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.send(McpRequest::UnsubscribeResource, json!({ "uri": uri }))
            .await
            .map(drop)
    }
    /// MCP `prompts/list`: one page.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<Page<Prompt>> {
        self.page(McpRequest::ListPrompts, cursor).await
    }
    /// MCP `prompts/list`, following every cursor.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.all(McpRequest::ListPrompts).await
    }
    /// MCP `prompts/get` with string arguments (`{}` for none).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult> {
        let v = self
            .send(McpRequest::GetPrompt, call_params(name, arguments))
            .await?;
        decode("prompts/get", v)
    }
    /// MCP `completion/complete`: `reference` is `{"type":"ref/prompt","name":…}` or
    /// `{"type":"ref/resource","uri":…}`; completes argument `argument` from `value`.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<Completion> {
        let mut v = self
            .send(
                McpRequest::Complete,
                json!({"ref": reference, "argument": {"name": argument, "value": value}}),
            )
            .await?;
        decode("completion/complete", v["completion"].take())
    }
    /// MCP `logging/setLevel` (see [`Client::set_logging_level`]).
    pub async fn set_logging_level(&self, level: &str) -> Result<()> {
        self.send(McpRequest::SetLoggingLevel, json!({ "level": level }))
            .await
            .map(drop)
    }
    /// MCP `ping`.
    pub async fn ping(&self) -> Result<()> {
        self.send(McpRequest::Ping, json!({})).await.map(drop)
    }
}

/// The `ref` of a completion of a prompt's argument ([`Client::complete`]).
pub fn prompt_ref(name: &str) -> Value {
    json!({ "type": "ref/prompt", "name": name })
}

/// The `ref` of a completion of a resource template's argument ([`Client::complete`]).
pub fn resource_ref(uri_template: &str) -> Value {
    json!({ "type": "ref/resource", "uri": uri_template })
}

/// The typed form of a `tools/call` result (for [`Mcp::call_tool_progress`]'s
/// [`ProgressCall::result`]).
pub fn decode_call_tool(result: Value) -> Result<CallToolResult> {
    decode("tools/call", result)
}

impl Client {
    /// Send a request that reports progress: `params._meta.progressToken` is set to a token
    /// of the library's, and the server's `notifications/progress` with that token come out
    /// of the returned call (and go nowhere else) until its result arrives.
    pub fn start_with_progress(
        &self,
        method: &str,
        mut params: Value,
        opts: RequestOptions,
    ) -> Result<ProgressCall> {
        let token = json!(format!(
            "{}{}",
            crate::protocol::mcp::PROGRESS_PREFIX,
            NEXT_PROGRESS.fetch_add(1, Ordering::Relaxed)
        ));
        if params.is_null() {
            params = json!({});
        }
        let Some(obj) = params.as_object_mut() else {
            return Err(Error::InvalidArgument("params must be an object".into()));
        };
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        let Some(meta) = meta.as_object_mut() else {
            return Err(Error::InvalidArgument(
                "params._meta must be an object".into(),
            ));
        };
        meta.insert("progressToken".into(), token.clone());
        let session = self.live_session()?;
        let events = self.subscribe()?;
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let (id, outcome) = session.start_tracked(method, &raw, opts, false)?;
        Ok(ProgressCall {
            token,
            events,
            outcome: Some(outcome),
            late: Default::default(),
            result: None,
            session,
            id,
        })
    }
}

fn call_params(name: &str, arguments: Value) -> Value {
    if arguments.is_null() {
        json!({ "name": name })
    } else {
        json!({ "name": name, "arguments": arguments })
    }
}

/// A request that reports progress ([`Client::start_with_progress`]): pull its progress
/// updates with [`next`](Self::next) until `None` (the answer came), then take
/// [`result`](Self::result). Dropping it before the answer cancels the request (an MCP server
/// gets `notifications/cancelled`).
pub struct ProgressCall {
    token: Value,
    /// Updates taken after the answer came (sent before it), still to be returned.
    late: std::collections::VecDeque<Progress>,
    events: EventReceiver,
    outcome: Option<Outcome>,
    result: Option<Result<Value>>,
    session: Arc<SessionShared>,
    id: i64,
}

impl ProgressCall {
    /// The progress token sent with the request.
    pub fn token(&self) -> &Value {
        &self.token
    }

    /// The next progress update; `None` once the answer arrived (updates sent before it
    /// come first).
    pub async fn next(&mut self) -> Option<Progress> {
        loop {
            let Some(outcome) = self.outcome.as_mut() else {
                return self.late.pop_front();
            };
            tokio::select! {
                biased;
                ev = self.events.next() => match ev {
                    Some(ev) => match self.progress_of(ev) {
                        Some(p) => return Some(p),
                        None => continue,
                    },
                    None => {
                        // The connection ended: the outcome says how.
                        let r = self.outcome.as_mut().expect("pending").await;
                        self.settle(r);
                    }
                },
                r = outcome => self.settle(r),
            }
        }
    }

    fn progress_of(&self, ev: Event) -> Option<Progress> {
        match ev {
            Event::Notification(n) if n.method == "notifications/progress" => n
                .params_as::<Progress>()
                .ok()
                .filter(|p| p.progress_token == self.token),
            _ => None,
        }
    }

    /// The answer came: keep the updates queued before it (the reader may not have woken
    /// this call for them yet), then the result.
    fn settle(
        &mut self,
        r: std::result::Result<
            Result<Box<serde_json::value::RawValue>>,
            tokio::sync::oneshot::error::RecvError,
        >,
    ) {
        self.outcome = None;
        let ready = self.events.take_ready();
        let late: Vec<Progress> = ready
            .into_iter()
            .filter_map(|e| self.progress_of(e))
            .collect();
        self.late.extend(late);
        self.result = Some(match r {
            Ok(Ok(raw)) => serde_json::from_str(raw.get())
                .map_err(|e| Error::Protocol(format!("bad result JSON: {e}"))),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(self.session.disconnect_error()),
        });
    }

    /// Blocking form of [`next`](Self::next).
    pub fn next_blocking(&mut self) -> Option<Progress> {
        futures_executor::block_on(self.next())
    }

    /// The request's result (progress updates not yet pulled are skipped).
    pub async fn result(mut self) -> Result<Value> {
        while self.next().await.is_some() {}
        self.result
            .take()
            .expect("settled once next() returned None")
    }

    /// Blocking form of [`result`](Self::result).
    pub fn result_blocking(self) -> Result<Value> {
        futures_executor::block_on(self.result())
    }
}

impl Drop for ProgressCall {
    fn drop(&mut self) {
        if self.outcome.is_some() {
            self.session.abandon(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_builds_its_params() {
        for name in McpRequest::names() {
            let req = McpRequest::from_name(name).expect("a known name");
            assert!(!req.method().is_empty());
        }
        assert_eq!(McpRequest::names().count(), McpRequest::ALL.len());
        let p = |n: &str, s: Option<&str>, a: Value| McpRequest::from_name(n).unwrap().params(s, a);
        assert_eq!(p("list_tools", None, Value::Null).unwrap(), json!({}));
        assert_eq!(
            p("list_prompts", Some("c2"), Value::Null).unwrap(),
            json!({"cursor": "c2"})
        );
        assert_eq!(
            p("call_tool", Some("echo"), json!({"message": "hi"})).unwrap(),
            json!({"name": "echo", "arguments": {"message": "hi"}})
        );
        assert_eq!(
            p("get_prompt", Some("simple"), Value::Null).unwrap(),
            json!({"name": "simple"})
        );
        assert_eq!(
            p("read_resource", Some("demo://r/1"), Value::Null).unwrap(),
            json!({"uri": "demo://r/1"})
        );
        assert_eq!(
            p("set_logging_level", Some("debug"), Value::Null).unwrap(),
            json!({"level": "debug"})
        );
        assert_eq!(p("ping", None, Value::Null).unwrap(), json!({}));
        let c = json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}});
        assert_eq!(p("complete", None, c.clone()).unwrap(), c);
    }

    #[test]
    fn params_refuse_what_the_request_does_not_take() {
        let p = |n: &str, s: Option<&str>, a: Value| McpRequest::from_name(n).unwrap().params(s, a);
        let msg = |r: Result<Value>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("not an invalid argument: {other:?}"),
        };
        assert!(msg(p("call_tool", None, Value::Null)).contains("needs its name"));
        assert!(msg(p("read_resource", None, Value::Null)).contains("needs its uri"));
        assert!(msg(p("call_tool", Some("echo"), json!([1]))).contains("JSON object"));
        assert!(msg(p("list_tools", None, json!({}))).contains("takes no arguments"));
        assert!(msg(p("ping", Some("x"), Value::Null)).contains("takes no subject"));
        assert!(msg(p("complete", None, Value::Null)).contains("params object"));
    }
}
