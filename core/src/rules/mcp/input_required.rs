//! The multi-round-trip requests of MCP 2026-07-28: a server that needs input answers
//! `resultType: "input_required"` with `inputRequests` (elicitation, sampling, roots requests)
//! and maybe a `requestState`; the client answers each through the handlers users already
//! register for server requests, and sends the request again — a new JSON-RPC id — with
//! `inputResponses` and the `requestState` echoed unchanged (omitted when the server sent
//! none). Each call keeps its own state, so parallel calls never mix. Bounded by the option
//! `mcp_input_rounds`.

use serde_json::{Map, Value};

use super::McpRules;
use crate::error::{Error, Result};
use crate::protocol::mcp::era::result_type;
use crate::rules::Rounds;

impl McpRules {
    /// Continue a request `method` sent with `params` and answered `result` (input
    /// required): answer the embedded requests, send it again, until the final result. Each
    /// round is one plain request ([`Rounds::send_once`]); the first counts as a round.
    pub(crate) async fn continue_rounds(
        &self,
        link: &dyn Rounds,
        method: &str,
        mut params: Value,
        mut result: Value,
    ) -> Result<Value> {
        let rounds = self.input_rounds();
        for _ in 1..rounds {
            let mut responses = Map::new();
            if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
                for (key, req) in requests {
                    let m = req.get("method").and_then(Value::as_str).ok_or_else(|| {
                        Error::Protocol(format!("input request `{key}` has no method: {req}"))
                    })?;
                    let p = req.get("params").cloned().unwrap_or(Value::Null);
                    let answer = link.answer(m, p).await?;
                    responses.insert(key.clone(), answer);
                }
            }
            let Some(obj) = params.as_object_mut() else {
                return Err(Error::InvalidArgument("params must be an object".into()));
            };
            obj.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => obj.insert("requestState".into(), state.clone()),
                None => obj.remove("requestState"),
            };
            let raw = serde_json::value::to_raw_value(&params)
                .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            let answer = link.send_once(method, raw).await?;
            result = serde_json::from_str(answer.get())
                .map_err(|e| Error::Protocol(format!("bad result JSON: {e}")))?;
            if result_type(&result) != "input_required" {
                return Ok(result);
            }
        }
        Err(Error::Protocol(format!(
            "{method}: the server still asked for input after {rounds} rounds (option mcp_input_rounds)"
        )))
    }
}
