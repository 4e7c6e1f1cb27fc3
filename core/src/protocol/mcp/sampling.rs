//! Sampling with tools (MCP 2025-11-25, `sampling.tools`): the typed params of
//! `sampling/createMessage` as a handler receives them and the result it answers, with the
//! `tool_use` / `tool_result` content blocks. Unknown members are kept in `extra`.
//! `ToolChoice`, `ToolUse` and `ToolResult` are generated from the schemas (`generated.rs`);
//! the rest is hand-written: the content unions (`SamplingContent`, `SamplingBlock`: one block
//! or several, a block tagged by `type` with the others kept as they came) and the structs
//! that hold them (the generator maps no union).

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::generated::{ToolChoice, ToolResult, ToolUse};
use super::{Extra, Tool};

/// The params of `sampling/createMessage` (read them with
/// [`ServerRequest::params_as`](crate::ServerRequest::params_as)).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageParams {
    /// The conversation so far.
    #[serde(default)]
    pub messages: Vec<SamplingMessage>,
    /// Tools the model may call (only when the client offers `sampling.tools`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// How the model should use the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// System prompt the server suggests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Most tokens to sample.
    #[serde(default)]
    pub max_tokens: u64,
    /// Model preferences (`hints`, priorities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// Everything else (`temperature`, `stopSequences`, `includeContext`, `_meta`, …).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One message of a sampling conversation: its role and one content block or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// `"user"` or `"assistant"`.
    pub role: String,
    /// One block or a list of blocks.
    pub content: SamplingContent,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A sampling message's content: one block or a list (2025-11-25 allows both).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// Several blocks.
    Many(Vec<SamplingBlock>),
    /// One block.
    One(SamplingBlock),
}

impl SamplingContent {
    /// The blocks, one or many alike.
    pub fn blocks(&self) -> Vec<&SamplingBlock> {
        match self {
            SamplingContent::Many(v) => v.iter().collect(),
            SamplingContent::One(b) => vec![b],
        }
    }
}

/// A content block of a sampling message or result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum SamplingBlock {
    /// Text.
    #[serde(rename = "text")]
    Text {
        /// The text.
        text: String,
        /// Everything else.
        #[serde(flatten)]
        extra: Extra,
    },
    /// The model calls a tool (in an assistant message or a result with stop reason
    /// `"toolUse"`).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUse),
    /// The result of a tool call, sent back in a user message.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResult),
    /// Any other block (images, audio, …) as it came.
    #[serde(untagged)]
    Other(Value),
}

impl ToolUse {
    /// A `tool_use` block.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ToolUse {
            id: id.into(),
            name: name.into(),
            input,
            extra: Extra::new(),
        }
    }
}

/// The answer to `sampling/createMessage`: serialize it with [`to_value`](Self::to_value) as
/// the handler's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// `"assistant"`.
    pub role: String,
    /// One block or several (a model that calls tools answers `tool_use` blocks).
    pub content: SamplingContent,
    /// The model that answered.
    pub model: String,
    /// `"endTurn"`, `"stopSequence"`, `"maxTokens"` or `"toolUse"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CreateMessageResult {
    /// An assistant's text answer from `model` (stop reason `"endTurn"`).
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        CreateMessageResult {
            role: "assistant".into(),
            content: SamplingContent::One(SamplingBlock::Text {
                text: text.into(),
                extra: Extra::new(),
            }),
            model: model.into(),
            stop_reason: Some("endTurn".into()),
            extra: Extra::new(),
        }
    }

    /// The model calls tools (stop reason `"toolUse"`).
    pub fn tool_use(model: impl Into<String>, calls: Vec<ToolUse>) -> Self {
        CreateMessageResult {
            role: "assistant".into(),
            content: SamplingContent::Many(calls.into_iter().map(SamplingBlock::ToolUse).collect()),
            model: model.into(),
            stop_reason: Some("toolUse".into()),
            extra: Extra::new(),
        }
    }

    /// As JSON, the handler's answer.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a sampling result serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_with_tools_and_tool_blocks_round_trip() {
        let v = json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "weather?"}},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Oslo"}}]},
                {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1",
                    "content": [{"type": "text", "text": "cold"}]}]},
                {"role": "user", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}
            ],
            "tools": [{"name": "weather", "inputSchema": {"type": "object"}, "x-new": 1}],
            "toolChoice": {"mode": "auto"},
            "maxTokens": 50,
            "temperature": 0.5
        });
        let p: CreateMessageParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.tools[0].name, "weather");
        assert_eq!(
            p.tool_choice.as_ref().unwrap().mode.as_deref(),
            Some("auto")
        );
        let blocks = p.messages[1].content.blocks();
        assert!(
            matches!(blocks[0], SamplingBlock::ToolUse(u) if u.name == "weather" && u.input["city"] == "Oslo")
        );
        let blocks = p.messages[2].content.blocks();
        assert!(matches!(blocks[0], SamplingBlock::ToolResult(r) if r.tool_use_id == "c1"));
        assert!(matches!(
            p.messages[3].content.blocks()[0],
            SamplingBlock::Other(_)
        ));
        assert_eq!(p.extra["temperature"], 0.5);
        // Nothing lost on the way back.
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }

    #[test]
    fn results_serialize_as_the_spec_spells_them() {
        let r = CreateMessageResult::tool_use("m", vec![ToolUse::new("c1", "weather", json!({}))]);
        assert_eq!(
            r.to_value(),
            json!({"role": "assistant", "model": "m", "stopReason": "toolUse",
                   "content": [{"type": "tool_use", "id": "c1", "name": "weather", "input": {}}]})
        );
        let t = CreateMessageResult::text("m", "hi").to_value();
        assert_eq!(t["content"], json!({"type": "text", "text": "hi"}));
    }
}
