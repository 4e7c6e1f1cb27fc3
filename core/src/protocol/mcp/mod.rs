//! The Model Context Protocol (2025-11-25) as data: typed messages (`types`), the
//! `initialize` params and version negotiation, `notifications/cancelled` params,
//! elicitation defaults (SEP-1034), server log records bridged to `tracing`. The engine uses
//! these (session, client); the typed requests on `Client` are in `crate::mcp`.

pub(crate) mod cache;
pub mod elicitation;
pub mod era;
mod generated;
#[cfg(test)]
mod generated_tests;
pub mod headers;
pub(crate) mod output_schema;
mod sampling;
mod types;

pub use elicitation::ELICITATION_COMPLETE;
pub use generated::SCHEMA_VERSIONS;
pub use sampling::{
    CreateMessageParams, CreateMessageResult, SamplingBlock, SamplingContent, SamplingMessage,
    ToolChoice, ToolResult, ToolUse,
};
pub use types::{
    CallToolResult, ClientCapabilities, Completion, ElicitationComplete, Extra, GetPromptResult,
    Icon, Implementation, Page, Progress, Prompt, Resource, ResourceContents, ResourceLink,
    ResourceTemplate, Root, ServerCapabilities, Tool,
};

/// The server's notification that its tool list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

/// The MCP protocol version this client offers in `initialize`.
pub const OFFERED_VERSION: &str = "2025-11-25";
/// MCP protocol versions accepted in a server's `initialize` answer (newest first).
pub const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The server-to-client request asking the client to sample an LLM.
pub const SAMPLING_REQUEST: &str = "sampling/createMessage";
/// The server-to-client request asking the user for input (form or URL mode).
pub const ELICITATION_REQUEST: &str = "elicitation/create";
/// The server-to-client request for the client's roots.
pub const ROOTS_REQUEST: &str = "roots/list";

/// Log target of an MCP server's `notifications/message` records.
pub const SERVER_LOG_TARGET: &str = "codex_client::mcp_server_log";

/// The client capabilities sent when [`McpOptions::capabilities`](crate::McpOptions) is unset:
/// roots (with `listChanged`), sampling, elicitation (form and url modes).
pub fn default_capabilities() -> Value {
    ClientCapabilities::none()
        .roots()
        .sampling()
        .elicitation()
        .to_value()
}

/// The params of MCP `initialize`: `client_info` (`name`, `title`, `version`) and the
/// capabilities (`None`: [`default_capabilities`]); with `sampling_tools` the `sampling`
/// member gets `tools` (option `mcp_sampling_tools`).
pub(crate) fn initialize_params(
    client_info: Map<String, Value>,
    capabilities: Option<Value>,
    sampling_tools: bool,
) -> Value {
    let mut caps = capabilities.unwrap_or_else(default_capabilities);
    if sampling_tools {
        if let Some(obj) = caps.as_object_mut() {
            let sampling = obj.entry("sampling").or_insert_with(|| json!({}));
            if let Some(s) = sampling.as_object_mut() {
                s.entry("tools").or_insert_with(|| json!({}));
            }
        }
    }
    json!({
        "protocolVersion": OFFERED_VERSION,
        "capabilities": caps,
        "clientInfo": client_info,
    })
}

/// Check a server's `initialize` result: its protocol version must be one we speak.
pub(crate) fn check_initialize(result: &Value) -> Result<()> {
    match result.get("protocolVersion").and_then(Value::as_str) {
        Some(v) if SUPPORTED_VERSIONS.contains(&v) => Ok(()),
        Some(v) => Err(Error::Protocol(format!(
            "the MCP server answered protocol version {v}, which this client does not support (supported: {})",
            SUPPORTED_VERSIONS.join(", ")
        ))),
        None => Err(Error::Protocol(format!(
            "the MCP server's initialize result has no protocolVersion: {result}"
        ))),
    }
}

/// The params of `notifications/cancelled` for our request `id`.
pub(crate) fn cancelled_params(id: i64, reason: &str) -> Box<RawValue> {
    serde_json::value::to_raw_value(&json!({"requestId": id, "reason": reason}))
        .expect("cancel params serialize")
}

/// Fill what an accepted form elicitation left out with the defaults of the requested
/// schema (SEP-1034): for `elicitation/create` answered `{"action":"accept"}`, every property
/// of `requestedSchema` that has a `default` and is missing from `content` gets it.
pub(crate) fn apply_elicitation_defaults(params: &Value, answer: &mut Value) {
    if answer.get("action").and_then(Value::as_str) != Some("accept") {
        return;
    }
    let Some(props) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    else {
        return;
    };
    let Some(obj) = answer.as_object_mut() else {
        return;
    };
    let content = obj
        .entry("content")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, schema) in props {
        if let Some(d) = schema.get("default") {
            content.entry(name.clone()).or_insert_with(|| d.clone());
        }
    }
}

/// Log an MCP server's `notifications/message` through `tracing` at its level (target
/// [`SERVER_LOG_TARGET`]); the notification is delivered as well.
pub(crate) fn log_server_message(params: &RawValue) {
    let v: Value = serde_json::from_str(params.get()).unwrap_or(Value::Null);
    let logger = v.get("logger").and_then(Value::as_str).unwrap_or("");
    let data = match v.get("data") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let level = v.get("level").and_then(Value::as_str).unwrap_or("info");
    macro_rules! emit {
        ($lvl:ident) => {
            tracing::$lvl!(target: "codex_client::mcp_server_log", logger, level, "{data}")
        };
    }
    match level {
        "debug" => emit!(debug),
        "info" | "notice" => emit!(info),
        "warning" => emit!(warn),
        _ => emit!(error),
    }
}

/// Prefix of the progress tokens `Client::start_with_progress` sends.
pub(crate) const PROGRESS_PREFIX: &str = "codex-client-progress-";

/// The token of a `notifications/progress` when it is one of the library's own.
pub(crate) fn library_progress_token(params: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P<'a> {
        #[serde(rename = "progressToken", borrow)]
        token: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_str::<P<'_>>(params.get())
        .ok()
        .and_then(|p| p.token)
        .filter(|t| t.starts_with(PROGRESS_PREFIX))
        .map(|t| t.into_owned())
}

/// The `progressToken` of a `notifications/progress` (a string, or a number as its text).
pub(crate) fn progress_token(params: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "progressToken")]
        token: Option<Value>,
    }
    token_text(serde_json::from_str::<P>(params.get()).ok()?.token?)
}

/// The `_meta.progressToken` a request's params carry (a caller's own token), as
/// [`progress_token`] reads it from the progress notifications.
pub(crate) fn request_progress_token(params: &RawValue) -> Option<String> {
    if !params.get().contains("\"progressToken\"") {
        return None;
    }
    let v: Value = serde_json::from_str(params.get()).ok()?;
    token_text(v.pointer("/_meta/progressToken")?.clone())
}

fn token_text(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elicitation_defaults_fill_only_missing_fields_of_an_accept() {
        let params = json!({"requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "note": {"type": "string"}
        }}});
        let mut a = json!({"action": "accept", "content": {"name": "Grace"}});
        apply_elicitation_defaults(&params, &mut a);
        assert_eq!(a["content"], json!({"name": "Grace", "age": 36}));
        let mut empty = json!({"action": "accept"});
        apply_elicitation_defaults(&params, &mut empty);
        assert_eq!(empty["content"], json!({"name": "Ada", "age": 36}));
        let mut d = json!({"action": "decline"});
        apply_elicitation_defaults(&params, &mut d);
        assert_eq!(d, json!({"action": "decline"}));
    }

    #[test]
    fn sampling_tools_joins_the_sampling_capability() {
        let p = initialize_params(Map::new(), None, true);
        assert_eq!(p["capabilities"]["sampling"], json!({"tools": {}}));
        assert!(p["capabilities"]["elicitation"].is_object());
        let p = initialize_params(Map::new(), Some(json!({"roots": {}})), true);
        assert_eq!(
            p["capabilities"],
            json!({"roots": {}, "sampling": {"tools": {}}})
        );
        let p = initialize_params(Map::new(), None, false);
        assert_eq!(p["capabilities"]["sampling"], json!({}));
    }

    #[test]
    fn only_spoken_versions_are_accepted() {
        assert!(check_initialize(&json!({"protocolVersion": "2025-06-18"})).is_ok());
        let e = check_initialize(&json!({"protocolVersion": "2099-01-01"})).unwrap_err();
        assert!(e.to_string().contains("2099-01-01"), "{e}");
        assert!(check_initialize(&json!({})).is_err());
    }
}
