//! Typed MCP messages (2025-11-25). Every struct keeps the fields it does not name in
//! `extra`, so nothing a newer server sends is lost.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Fields a type does not name, kept as they came.
pub type Extra = Map<String, Value>;

/// A tool offered by the server (`tools/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Name used in `tools/call`.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default)]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, when the tool declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (`readOnlyHint`, `destructiveHint`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of `tools/call`. A tool that failed answers with `is_error` set (its content
/// says why); protocol errors are `Err` instead.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Content blocks (`{"type":"text","text":…}`, images, audio, resource links, …).
    #[serde(default)]
    pub content: Vec<Value>,
    /// Structured result, for tools with an output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool reported a failure.
    #[serde(default)]
    pub is_error: bool,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CallToolResult {
    /// The `resource_link` content blocks, typed (blocks that do not parse are skipped; they
    /// stay in [`content`](Self::content)).
    pub fn resource_links(&self) -> Vec<ResourceLink> {
        self.content
            .iter()
            .filter(|c| c["type"] == "resource_link")
            .filter_map(|c| serde_json::from_value(c.clone()).ok())
            .collect()
    }

    /// The text of every `text` content block, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A resource (`resources/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A resource template (`resources/templates/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// RFC 6570 URI template.
    pub uri_template: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One part of a read resource (`resources/read`): `text` or base64 `blob`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceContents {
    /// Its URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Binary contents, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A prompt (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// Name used in `prompts/get`.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments (`{name, description, required}`).
    #[serde(default)]
    pub arguments: Vec<Value>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages (`{role, content}`).
    #[serde(default)]
    pub messages: Vec<Value>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// Suggested values.
    #[serde(default)]
    pub values: Vec<String>,
    /// Total number of matches, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent.
    #[serde(default)]
    pub has_more: bool,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One `notifications/progress` update of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Progress {
    /// The request's progress token.
    pub progress_token: Value,
    /// Progress so far (increases with each update).
    pub progress: f64,
    /// Total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is happening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A root the client exposes to the server (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// The root `uri` with an optional display name.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root {
            uri: uri.into(),
            name,
        }
    }
}

/// An icon of a tool, resource, prompt or implementation (2025-11-25): an `https:` or
/// `data:` URI with its MIME type, sizes and theme. The client never fetches it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// `https:` URL or `data:` URI of the image.
    pub src: String,
    /// MIME type (`image/png`, `image/svg+xml`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes (`"48x48"`, `"any"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// `"light"` or `"dark"`: the background it is made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `resource_link` content block of a tool result or prompt message: a resource the
/// server points at (read it with `resources/read`), not its contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// Its URI.
    pub uri: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else (`annotations`, `_meta`, …; the `type` member too).
    #[serde(flatten)]
    pub extra: Extra,
}

/// An MCP implementation's description (`serverInfo` of the `initialize` result,
/// `clientInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its web site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons to show for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The params of `notifications/elicitation/complete`: the server finished a URL-mode
/// elicitation out of band; requests that failed with
/// [`Error::UrlElicitationRequired`](crate::Error::UrlElicitationRequired) for it may be sent
/// again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationComplete {
    /// The `elicitationId` of the elicitation.
    pub elicitation_id: String,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A page of a paginated list, with the cursor of the next page.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Cursor for the next page (`None` on the last page).
    pub next_cursor: Option<String>,
}

/// What an MCP server offers (`initialize` result `capabilities`). Each present member is the
/// server's object for that feature (`{}` or with flags such as `listChanged`, `subscribe`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Tools (`listChanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// Resources (`subscribe`, `listChanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Value>,
    /// Prompts (`listChanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Value>,
    /// Log records (`logging/setLevel`, `notifications/message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Value>,
    /// Argument completion (`completion/complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Value>,
    /// Tasks (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Value>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ServerCapabilities {
    fn flag(v: &Option<Value>, name: &str) -> bool {
        v.as_ref()
            .and_then(|o| o.get(name))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
    /// Whether `resources/subscribe` is offered.
    pub fn resource_subscribe(&self) -> bool {
        Self::flag(&self.resources, "subscribe")
    }
    /// Whether the server announces `notifications/tools/list_changed`.
    pub fn tools_list_changed(&self) -> bool {
        Self::flag(&self.tools, "listChanged")
    }
}

/// What this client offers an MCP server (`initialize` params `capabilities`); build one and
/// pass [`to_value`](Self::to_value) to `ClientOptions::mcp_capabilities`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Roots (`listChanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Value>,
    /// Sampling (`sampling/createMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Value>,
    /// Elicitation (`form`, `url` modes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Value>,
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Value>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ClientCapabilities {
    /// Nothing offered.
    pub fn none() -> Self {
        Self::default()
    }
    /// Offer roots (with `listChanged`).
    pub fn roots(mut self) -> Self {
        self.roots = Some(serde_json::json!({"listChanged": true}));
        self
    }
    /// Offer sampling.
    pub fn sampling(mut self) -> Self {
        self.sampling = Some(serde_json::json!({}));
        self
    }
    /// Offer sampling with tools (`sampling.tools`, 2025-11-25): the server may pass `tools`
    /// and `toolChoice` in `sampling/createMessage`, and the handler answers `tool_use`
    /// blocks (see [`CreateMessageParams`](super::CreateMessageParams)).
    pub fn sampling_tools(mut self) -> Self {
        self.sampling = Some(serde_json::json!({"tools": {}}));
        self
    }
    /// Offer form and url elicitation.
    pub fn elicitation(mut self) -> Self {
        self.elicitation = Some(serde_json::json!({"form": {}, "url": {}}));
        self
    }
    /// As JSON, for `ClientOptions::mcp_capabilities`.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("capabilities serialize")
    }
}
