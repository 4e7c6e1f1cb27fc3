//! The typed MCP requests on [`McpClient`] and on [`Mcp`] (per-request options), each
//! written once in `mcp_requests!`.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::{
    call_params, cursor_params, decode, decode_call_tool, split_page, CallToolResult, Completion,
    GetPromptResult, McpRequest, Page, Progress, ProgressCall, Prompt, Resource, ResourceContents,
    ResourceTemplate, Tool,
};
use crate::connection::Client;
use crate::error::{Error, Result};
use crate::mcp::McpClient;
use crate::options::RequestOptions;
use crate::rules::mcp::McpRules;

/// Most pages a `list_all_*` helper follows before giving up on a server whose cursors never end.
const MAX_PAGES: usize = 10_000;

/// The typed MCP requests with per-request options ([`McpClient::mcp_with`]): the same helpers
/// as on [`McpClient`] (which use the default options), each sent with these options (timeout,
/// retry).
#[derive(Clone, Copy)]
pub struct Mcp<'a> {
    client: &'a Client,
    opts: RequestOptions,
}

impl McpClient {
    /// The typed MCP requests with per-request options:
    /// `client.mcp_with(RequestOptions::timeout(d)).call_tool(…)`. A request that times out
    /// (or whose future is dropped) is cancelled: the server gets `notifications/cancelled`.
    pub fn mcp_with(&self, opts: RequestOptions) -> Mcp<'_> {
        Mcp {
            client: self.connection(),
            opts,
        }
    }

    fn mcp_default(&self) -> Mcp<'_> {
        self.mcp_with(RequestOptions::default())
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
}

impl Mcp<'_> {
    async fn send(&self, req: McpRequest, params: Value) -> Result<Value> {
        // Input-required rounds (2026-07-28) are driven by the request itself.
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
        let (mut items, next_cursor) =
            split_page(key, self.send(req, cursor_params(cursor)).await?)?;
        if req == McpRequest::ListTools
            && matches!(
                self.client.options().transport,
                crate::options::TransportKind::McpHttp(_)
            )
        {
            items.retain(valid_tool_headers);
        }
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

    /// The tools were listed on this connection and the server said they changed since:
    /// list them again, so that a result is checked against the tool's current
    /// `outputSchema` (option `mcp_validate_output`).
    async fn relist_changed_tools(&self) -> Result<()> {
        let session = self.client.live_session()?;
        let relist = session
            .rules_of::<McpRules>()
            .is_some_and(|mcp| mcp.validates_output() && mcp.tool_schemas.needs_relist());
        if relist {
            self.list_all_tools().await?;
        }
        Ok(())
    }

    /// MCP `tools/call` that asks for progress, as a [`ProgressCall`] (sent before this
    /// returns): pull its updates, then [`decode_call_tool`] its result.
    pub fn call_tool_progress(&self, name: &str, arguments: Value) -> Result<ProgressCall> {
        McpClient::from_connection(self.client).start_with_progress(
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
        self.relist_changed_tools().await?;
        let mut call = self.call_tool_progress(name, arguments)?;
        while let Some(p) = call.next().await {
            on_progress(p);
        }
        decode_call_tool(call.result().await?)
    }
}

/// Each typed MCP request, written once: from one entry (its doc, signature and body, the
/// body on [`Mcp`], whose `self` carries the request options) come
/// - the method on [`Mcp`] (per-request options; `$s` is its `self`),
/// - the method of the same name on [`McpClient`] (the default options: it forwards to
///   `self.mcp_default()`).
///
/// Nothing of it is on the connection, [`Client`]: the deprecated forwards that were there
/// before 0.2.0 shipped are removed (issue 42).
///
/// The idea of rmcp's `method!`. Requests of another shape (`call_tool_with_progress`, whose
/// `McpClient` form takes the options as an argument; `call_tool_progress`, on `Mcp` only)
/// are written by hand above.
macro_rules! mcp_requests {
    ($(
        $(#[doc = $doc:expr])*
        async fn $name:ident(&$s:tt $(, $arg:ident: $ty:ty)* $(,)?) -> Result<$ret:ty> $body:block
    )*) => {
        impl Mcp<'_> {
            $(
                $(#[doc = $doc])*
                pub async fn $name(&$s $(, $arg: $ty)*) -> Result<$ret> $body
            )*
        }

        impl McpClient {
            $(
                $(#[doc = $doc])*
                pub async fn $name(&self $(, $arg: $ty)*) -> Result<$ret> {
                    self.mcp_default().$name($($arg),*).await
                }
            )*
        }
    };
}

mcp_requests! {
    /// MCP `tools/list`: one page.
    async fn list_tools(&self, cursor: Option<&str>) -> Result<Page<Tool>> {
        self.page(McpRequest::ListTools, cursor).await
    }
    /// MCP `tools/list`, following every cursor.
    async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.all(McpRequest::ListTools).await
    }
    /// MCP `tools/call`. A tool failure is `Ok` with [`CallToolResult::is_error`] set.
    /// A tool listed on this connection with an `outputSchema` must answer matching
    /// `structuredContent`, else [`Error::OutputSchemaMismatch`] (option
    /// `mcp_validate_output`); a server that needs URL-mode elicitations first answers
    /// [`Error::UrlElicitationRequired`].
    async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.relist_changed_tools().await?;
        let v = self
            .send(McpRequest::CallTool, call_params(name, arguments))
            .await?;
        decode_call_tool(v)
    }
    /// MCP `resources/list`: one page.
    async fn list_resources(&self, cursor: Option<&str>) -> Result<Page<Resource>> {
        self.page(McpRequest::ListResources, cursor).await
    }
    /// MCP `resources/list`, following every cursor.
    async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.all(McpRequest::ListResources).await
    }
    /// MCP `resources/templates/list`: one page.
    async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>> {
        self.page(McpRequest::ListResourceTemplates, cursor).await
    }
    /// MCP `resources/templates/list`, following every cursor.
    async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.all(McpRequest::ListResourceTemplates).await
    }
    /// MCP `resources/read`: the contents.
    async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>> {
        let mut v = self
            .send(McpRequest::ReadResource, json!({ "uri": uri }))
            .await?;
        decode("resources/read", v["contents"].take())
    }
    /// MCP `resources/subscribe`: `notifications/resources/updated` follow for `uri`.
    async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.send(McpRequest::SubscribeResource, json!({ "uri": uri }))
            .await
            .map(drop)
    }
    /// MCP `resources/unsubscribe`.
    async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.send(McpRequest::UnsubscribeResource, json!({ "uri": uri }))
            .await
            .map(drop)
    }
    /// MCP `prompts/list`: one page.
    async fn list_prompts(&self, cursor: Option<&str>) -> Result<Page<Prompt>> {
        self.page(McpRequest::ListPrompts, cursor).await
    }
    /// MCP `prompts/list`, following every cursor.
    async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.all(McpRequest::ListPrompts).await
    }
    /// MCP `prompts/get` with string arguments (`{}` for none).
    async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult> {
        let v = self
            .send(McpRequest::GetPrompt, call_params(name, arguments))
            .await?;
        decode("prompts/get", v)
    }
    /// MCP `completion/complete`: `reference` is `{"type":"ref/prompt","name":…}` or
    /// `{"type":"ref/resource","uri":…}`; completes argument `argument` from `value`.
    async fn complete(&self, reference: Value, argument: &str, value: &str) -> Result<Completion> {
        let mut v = self
            .send(
                McpRequest::Complete,
                json!({"ref": reference, "argument": {"name": argument, "value": value}}),
            )
            .await?;
        decode("completion/complete", v["completion"].take())
    }
    /// MCP `logging/setLevel` (`debug`, `info`, `notice`, `warning`, `error`, `critical`,
    /// `alert`, `emergency`). The server's `notifications/message` records are logged through
    /// `tracing` (target [`SERVER_LOG_TARGET`](crate::protocol::mcp::SERVER_LOG_TARGET)) and delivered.
    /// In the 2026-07-28 era, which has no `logging/setLevel`, the level goes into the `_meta`
    /// envelope of every later request (`io.modelcontextprotocol/logLevel`) instead: nothing
    /// is sent now, and a server sends records only for requests that carry a level.
    async fn set_logging_level(&self, level: &str) -> Result<()> {
        // A bad level is the caller's error whatever the connection's state.
        crate::rules::mcp::log_level::check_level(level)?;
        let session = self.client.live_session()?;
        let rules = session.rules_of::<crate::rules::mcp::McpRules>();
        if rules.map_or(Ok(false), |r| r.set_log_level(level))? {
            return Ok(());
        }
        self.send(McpRequest::SetLoggingLevel, json!({ "level": level }))
            .await
            .map(drop)
    }
    /// MCP `ping`.
    async fn ping(&self) -> Result<()> {
        self.send(McpRequest::Ping, json!({})).await.map(drop)
    }
}

/// Streamable HTTP: a tool whose `x-mcp-header` annotations break the rules is left out of
/// `tools/list` (the others stay), with a warning naming it and why.
fn valid_tool_headers(tool: &Value) -> bool {
    let Some(schema) = tool.get("inputSchema") else {
        return true;
    };
    match crate::protocol::mcp::headers::param_headers(schema) {
        Ok(_) => true,
        Err(why) => {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            tracing::warn!(tool = name, "MCP: tool left out of tools/list: {why}");
            false
        }
    }
}
