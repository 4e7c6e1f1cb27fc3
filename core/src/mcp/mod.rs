//! The MCP client, [`McpClient`]: typed requests on one connection (tools, resources, prompts,
//! completion, logging, ping, tasks, listen, elicitation, skills over MCP) and requests that report progress ([`ProgressCall`]). Each is a thin layer
//! over [`Client::request`](crate::Client::request); the method names live in [`McpRequest`]. Connect to an MCP server
//! with [`TransportKind::McpStdio`](crate::TransportKind::McpStdio) or
//! [`TransportKind::McpHttp`](crate::TransportKind::McpHttp); the handshake, cancellation,
//! progress routing, `ping` and fail-closed answers are the engine's (see the README's MCP
//! section).

pub use crate::protocol::mcp::{
    default_capabilities, CallToolResult, ClientCapabilities, Completion, CreateMessageParams,
    CreateMessageResult, ElicitationComplete, Extra, GetPromptResult, Icon, Implementation, Page,
    Progress, Prompt, Resource, ResourceContents, ResourceLink, ResourceTemplate, Root,
    SamplingBlock, SamplingContent, SamplingMessage, ServerCapabilities, Tool, ToolChoice,
    ToolResult, ToolUse, ELICITATION_COMPLETE, ELICITATION_REQUEST, OFFERED_VERSION, ROOTS_REQUEST,
    SAMPLING_REQUEST, SERVER_LOG_TARGET, SUPPORTED_VERSIONS, TOOLS_LIST_CHANGED,
};

mod client;
mod elicitation;
mod listen;
pub use crate::rules::mcp::log_level::LOG_LEVELS;
mod progress;
mod request;
mod skill_verify;
mod skills;
mod tasks;
mod typed;

pub use client::McpClient;
pub use listen::{listen_filter, Listen, ACKNOWLEDGED, LISTEN, LISTEN_FILTER_KEYS};
pub use progress::ProgressCall;
pub use request::McpRequest;
pub use skill_verify::{sha256_digest, MAX_SKILL_BYTES, MAX_SKILL_FILES};
pub use skills::{LoadedSkill, SkillEntry, SkillResource, SkillResources, SKILLS_EXTENSION};
pub use tasks::{decode_task_call, task_call_params, Task, TaskCall, RELATED_TASK_META};
pub use typed::Mcp;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The params of a list request for one page.
pub(crate) fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({ "cursor": c }),
        None => json!({}),
    }
}

pub(crate) fn decode<T: DeserializeOwned>(what: &str, v: Value) -> Result<T> {
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

/// The `ref` of a completion of a prompt's argument ([`McpClient::complete`](crate::McpClient::complete)).
pub fn prompt_ref(name: &str) -> Value {
    json!({ "type": "ref/prompt", "name": name })
}

/// The `ref` of a completion of a resource template's argument ([`McpClient::complete`](crate::McpClient::complete)).
pub fn resource_ref(uri_template: &str) -> Value {
    json!({ "type": "ref/resource", "uri": uri_template })
}

/// The typed form of a `tools/call` result (for [`Mcp::call_tool_progress`]'s
/// [`ProgressCall::result`]).
pub fn decode_call_tool(result: Value) -> Result<CallToolResult> {
    decode("tools/call", result)
}

pub(crate) fn call_params(name: &str, arguments: Value) -> Value {
    if arguments.is_null() {
        json!({ "name": name })
    } else {
        json!({ "name": name, "arguments": arguments })
    }
}
