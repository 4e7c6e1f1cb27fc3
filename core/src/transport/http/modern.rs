//! The headers of MCP 2026-07-28 on each POST: `MCP-Protocol-Version` from the body's `_meta`
//! envelope (the last one seen for bodies without one: notifications, answers), `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-{Name}` headers the called tool designates (learnt from the
//! `tools/list` answers that pass by). The rules are `protocol::mcp::headers`'; a handshake-era
//! body (no envelope) gets none of these.

use reqwest::header::{HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

use crate::protocol::mcp::era::META_PROTOCOL_VERSION;
use crate::protocol::mcp::headers::{self, ParamHeader};

/// What the connection learnt: the stateless version in use, each tool's designated headers.
#[derive(Default)]
pub(super) struct Modern {
    version: Mutex<Option<HeaderValue>>,
    tools: Mutex<HashMap<String, Vec<ParamHeader>>>,
}

#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    params: Option<Value>,
}

fn pair(name: &str, value: &str) -> Option<(HeaderName, HeaderValue)> {
    Some((
        HeaderName::from_bytes(name.as_bytes()).ok()?,
        HeaderValue::from_str(value).ok()?,
    ))
}

impl Modern {
    /// The stateless-era headers of one message body (empty in the handshake era).
    pub(super) fn headers(&self, body: &[u8]) -> Vec<(HeaderName, HeaderValue)> {
        let parsed: Option<Body<'_>> = serde_json::from_slice(body).ok();
        let method = parsed.as_ref().and_then(|b| b.method.as_deref());
        if method == Some("initialize") {
            // The handshake era after all (the probe was refused).
            *self.version.lock().unwrap() = None;
            return Vec::new();
        }
        let params = parsed.as_ref().and_then(|b| b.params.as_ref());
        let carried = params
            .and_then(|p| p.pointer("/_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(|v| HeaderValue::from_str(v).ok());
        let version = match carried {
            Some(v) => {
                // A probe's version holds for the probe only, until the server took it.
                if method != Some(crate::protocol::mcp::era::DISCOVER) {
                    *self.version.lock().unwrap() = Some(v.clone());
                }
                v
            }
            None => match self.version.lock().unwrap().clone() {
                Some(v) => v,
                None => return Vec::new(),
            },
        };
        let mut out = vec![(HeaderName::from_static("mcp-protocol-version"), version)];
        let Some(method) = method else {
            return out;
        };
        out.extend(
            headers::standard(method, params)
                .into_iter()
                .filter_map(|(n, v)| pair(n, &v)),
        );
        if method == "tools/call" {
            let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            if let Some(hs) = name.and_then(|n| self.tools.lock().unwrap().get(n).cloned()) {
                let args = params.and_then(|p| p.get("arguments"));
                out.extend(
                    headers::param_values(&hs, args)
                        .iter()
                        .filter_map(|(n, v)| pair(n, v)),
                );
            }
        }
        out
    }

    /// A `tools/list` answer passed by: remember each valid tool's designated headers.
    pub(super) fn learn_tools(&self, answer: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(answer) else {
            return;
        };
        let Some(tools) = v.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        let mut table = self.tools.lock().unwrap();
        for t in tools {
            let (Some(name), Some(schema)) =
                (t.get("name").and_then(Value::as_str), t.get("inputSchema"))
            else {
                continue;
            };
            match headers::param_headers(schema) {
                Ok(hs) if !hs.is_empty() => {
                    table.insert(name.to_owned(), hs);
                }
                _ => {
                    table.remove(name);
                }
            }
        }
    }
}
