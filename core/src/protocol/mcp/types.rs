//! The MCP types' hand-written side. The types themselves (`Tool`, `CallToolResult`, …) are
//! generated from the vendored MCP schemas into `generated.rs` (tools/protocol-gen/gen_mcp.py,
//! whose `OVERRIDES` table says where the library keeps a field looser than the schema and
//! why) and re-exported from here; what stays here is what the schema cannot express: the
//! `Page<T>` (the library's shape of a paginated list) and the helper methods.
//! Every struct keeps the fields it does not name in `extra`, so nothing a newer server sends
//! is lost.

use serde_json::Value;

pub use super::generated::{
    CallToolResult, ClientCapabilities, Completion, ElicitationComplete, Extra, GetPromptResult,
    Icon, Implementation, Progress, Prompt, Resource, ResourceContents, ResourceLink,
    ResourceTemplate, Root, ServerCapabilities, Tool,
};

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

impl Root {
    /// The root `uri` with an optional display name.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root {
            uri: uri.into(),
            name,
            extra: Extra::new(),
        }
    }
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
