//! The few things the HTTP transport must know about the messages it moves, because HTTP
//! ties a request to its response: an outgoing message's `id` and `method` (a request's POST
//! carries its answer; an HTTP failure must answer that request; the standalone stream opens
//! after `notifications/initialized`), whether an incoming message answers a given request,
//! and the protocol version the `initialize` result names (sent as a header afterwards).
//! Nothing else looks inside a message.

use bytes::Bytes;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};

/// The JSON-RPC error code of the answers this transport makes up for failed HTTP requests.
pub(super) const TRANSPORT_ERROR: i64 = -32000;
/// How much of an HTTP error body is quoted in the error message.
const QUOTED_CHARS: usize = 200;

/// What the transport knows of an outgoing message.
#[derive(Debug, Clone, Default)]
pub(super) struct Head {
    /// Its `id` (requests and responses).
    pub(super) id: Option<Value>,
    /// Its `method` (requests and notifications).
    pub(super) method: Option<String>,
}

#[derive(Deserialize)]
struct RawHead {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<IgnoredOr<String>>,
}

/// A field whose value is kept when it has the expected type and ignored otherwise.
#[derive(Deserialize)]
#[serde(untagged)]
enum IgnoredOr<T> {
    Value(T),
    #[allow(dead_code)]
    Other(IgnoredAny),
}

impl Head {
    /// Read the head of a message (`None` when it is not a JSON object).
    pub(super) fn parse(msg: &[u8]) -> Option<Head> {
        let h = serde_json::from_slice::<RawHead>(msg).ok()?;
        Some(Head {
            id: h.id.filter(|v| !v.is_null()),
            method: match h.method {
                Some(IgnoredOr::Value(m)) => Some(m),
                _ => None,
            },
        })
    }

    /// Read the head of a message (an empty head when it is not a JSON object).
    pub(super) fn of(msg: &[u8]) -> Head {
        Head::parse(msg).unwrap_or_default()
    }

    /// A request: it has an `id` and a `method`, and expects an answer.
    pub(super) fn request_id(&self) -> Option<&Value> {
        self.method.as_ref().and(self.id.as_ref())
    }

    /// Whether the message's method is `method`.
    pub(super) fn is(&self, method: &str) -> bool {
        self.method.as_deref() == Some(method)
    }

    /// Whether an incoming message is the answer to this request.
    pub(super) fn answered_by(&self, incoming: &[u8]) -> bool {
        self.request_id().is_some() && self.answered_by_head(&Head::of(incoming))
    }

    /// Whether an incoming message (its head) is the answer to this request.
    pub(super) fn answered_by_head(&self, incoming: &Head) -> bool {
        incoming.method.is_none()
            && incoming.id.is_some()
            && incoming.id.as_ref() == self.request_id()
    }
}

/// The `result.protocolVersion` of an `initialize` answer.
pub(super) fn protocol_version(msg: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Answer {
        result: InitResult,
    }
    #[derive(Deserialize)]
    struct InitResult {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    serde_json::from_slice::<Answer>(msg)
        .ok()
        .map(|a| a.result.protocol_version)
}

/// The error answer for request `id` that failed at the HTTP level.
pub(super) fn error_answer(id: &Value, http_status: Option<u16>, message: &str) -> Bytes {
    let mut error = json!({"code": TRANSPORT_ERROR, "message": message});
    if let Some(s) = http_status {
        error["data"] = json!({ "httpStatus": s });
    }
    let v = json!({"jsonrpc": "2.0", "id": id, "error": error});
    Bytes::from(v.to_string())
}

/// The start of a body, fit for a one-line message: at most [`QUOTED_CHARS`] characters, line
/// breaks and other control characters as spaces.
pub(super) fn quote(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out: String = text
        .chars()
        .take(QUOTED_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.trim_start().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_and_answers() {
        let req =
            Head::of(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":[1,2]}}"#);
        assert_eq!(req.request_id(), Some(&json!(7)));
        assert!(req.is("tools/call"));
        assert!(req.answered_by(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#));
        assert!(!req.answered_by(br#"{"jsonrpc":"2.0","id":8,"result":{}}"#));
        assert!(!req.answered_by(br#"{"jsonrpc":"2.0","id":7,"method":"x"}"#));
        assert!(!req.answered_by(b"not json"));
        let note = Head::of(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(note.request_id(), None);
        let answer = Head::of(br#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#);
        assert_eq!(answer.request_id(), None);
        assert_eq!(Head::of(b"[1]").method, None);
        assert_eq!(Head::of(br#"{"id":1,"method":5}"#).request_id(), None);
    }

    #[test]
    fn version_errors_and_quotes() {
        let init = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
        assert_eq!(protocol_version(init).as_deref(), Some("2025-11-25"));
        assert_eq!(protocol_version(br#"{"id":1,"error":{}}"#), None);
        let e: Value =
            serde_json::from_slice(&error_answer(&json!(3), Some(500), "HTTP 500: x")).unwrap();
        assert_eq!(e["id"], 3);
        assert_eq!(e["error"]["code"], TRANSPORT_ERROR);
        assert_eq!(e["error"]["data"]["httpStatus"], 500);
        assert_eq!(quote(b"  <html>\r\n<b>oops</b>\n"), "<html>  <b>oops</b>");
        assert_eq!(quote("é".repeat(300).as_bytes()).chars().count(), 200);
    }
}
