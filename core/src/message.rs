//! JSON-RPC message shapes as they travel over the wire (one JSON object per line).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

use crate::error::RpcError;

/// A JSON-RPC request id: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum RequestId {
    /// Integer id (what this library generates, and what the app-server uses for its requests).
    Int(i64),
    /// String id.
    Str(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(i) => write!(f, "{i}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(v: i64) -> Self {
        RequestId::Int(v)
    }
}

impl From<&str> for RequestId {
    fn from(v: &str) -> Self {
        RequestId::Str(v.to_owned())
    }
}

/// Borrowed view of one incoming line, before it is classified.
#[derive(Deserialize)]
pub(crate) struct Incoming<'a> {
    #[serde(default)]
    pub id: Option<RequestId>,
    #[serde(default, borrow)]
    pub method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    pub params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub result: Option<&'a RawValue>,
    #[serde(default)]
    pub error: Option<WireError>,
}

/// The `error` member of a JSON-RPC response.
#[derive(Deserialize, Serialize)]
pub(crate) struct WireError {
    pub code: i64,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl From<WireError> for RpcError {
    fn from(e: WireError) -> Self {
        RpcError {
            code: e.code,
            message: e.message,
            data: e.data,
        }
    }
}

/// What one incoming line turned out to be.
pub(crate) enum Classified<'a> {
    Response {
        id: RequestId,
        outcome: Result<&'a RawValue, RpcError>,
    },
    Request {
        id: RequestId,
        method: String,
        params: Option<&'a RawValue>,
    },
    Notification {
        method: String,
        params: Option<&'a RawValue>,
    },
}

/// Classify a parsed line. Errors describe lines that are JSON but not JSON-RPC.
pub(crate) fn classify(msg: Incoming<'_>) -> Result<Classified<'_>, String> {
    match (msg.id, msg.method) {
        (Some(id), Some(method)) => Ok(Classified::Request {
            id,
            method: method.into_owned(),
            params: msg.params,
        }),
        (None, Some(method)) => Ok(Classified::Notification {
            method: method.into_owned(),
            params: msg.params,
        }),
        (Some(id), None) => {
            let outcome = match (msg.result, msg.error) {
                (_, Some(e)) => Err(e.into()),
                (Some(r), None) => Ok(r),
                (None, None) => return Err(format!("response {id} has neither result nor error")),
            };
            Ok(Classified::Response { id, outcome })
        }
        (None, None) => Err("message has neither id nor method".into()),
    }
}

/// Append caller-supplied JSON text so that it stays on one line. The text is valid JSON (a
/// `RawValue`), where a raw CR or LF can only be insignificant whitespace (inside strings
/// they must be escaped), so each becomes a space: pretty-printed params keep their meaning
/// and the framing holds.
fn push_json(out: &mut Vec<u8>, json: &str) {
    let start = out.len();
    out.extend_from_slice(json.as_bytes());
    if memchr::memchr2(b'\n', b'\r', json.as_bytes()).is_some() {
        for b in &mut out[start..] {
            if *b == b'\n' || *b == b'\r' {
                *b = b' ';
            }
        }
    }
}

/// The `requestId` member of a notification's params (`serverRequest/resolved`, MCP
/// `notifications/cancelled`), when it names one.
pub(crate) fn request_id_param(params: &RawValue) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    serde_json::from_str::<Named>(params.get())
        .ok()
        .map(|n| n.request_id)
}

/// The same message line with `"jsonrpc":"2.0"` as its first member (every line this
/// library writes is a JSON object, starting with `{`).
pub(crate) fn with_jsonrpc_member(line: &[u8]) -> bytes::Bytes {
    const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",";
    let mut out = Vec::with_capacity(line.len() + HEAD.len());
    out.extend_from_slice(HEAD);
    out.extend_from_slice(line.strip_prefix(b"{").unwrap_or(line));
    bytes::Bytes::from(out)
}

/// Serialize a client request line (with trailing newline).
pub(crate) fn request_line(id: i64, method: &str, params: &RawValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + method.len() + params.get().len());
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(b",\"method\":");
    serde_json::to_writer(&mut out, method).expect("string serialization cannot fail");
    out.extend_from_slice(b",\"params\":");
    push_json(&mut out, params.get());
    out.extend_from_slice(b"}\n");
    out
}

/// Serialize a client notification line (with trailing newline).
pub(crate) fn notification_line(method: &str, params: Option<&RawValue>) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + method.len());
    out.extend_from_slice(b"{\"method\":");
    serde_json::to_writer(&mut out, method).expect("string serialization cannot fail");
    if let Some(p) = params {
        out.extend_from_slice(b",\"params\":");
        push_json(&mut out, p.get());
    }
    out.extend_from_slice(b"}\n");
    out
}

/// Serialize a response to a server request (with trailing newline).
pub(crate) fn response_line(id: &RequestId, outcome: Result<&RawValue, &RpcError>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(b"{\"id\":");
    serde_json::to_writer(&mut out, id).expect("id serialization cannot fail");
    match outcome {
        Ok(result) => {
            out.extend_from_slice(b",\"result\":");
            push_json(&mut out, result.get());
        }
        Err(e) => {
            out.extend_from_slice(b",\"error\":");
            let wire = WireError {
                code: e.code,
                message: e.message.clone(),
                data: e.data.clone(),
            };
            serde_json::to_writer(&mut out, &wire).expect("error serialization cannot fail");
        }
    }
    out.extend_from_slice(b"}\n");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_jsonrpc_member_goes_first() {
        let line = notification_line("notifications/initialized", None);
        assert_eq!(
            &with_jsonrpc_member(&line)[..],
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        );
    }

    use super::*;

    fn parse(line: &str) -> Result<Classified<'_>, String> {
        classify(serde_json::from_str(line).unwrap())
    }

    #[test]
    fn classifies_all_shapes() {
        assert!(matches!(
            parse(r#"{"id":1,"result":{}}"#),
            Ok(Classified::Response {
                id: RequestId::Int(1),
                outcome: Ok(_)
            })
        ));
        match parse(r#"{"id":"a","error":{"code":-32001,"message":"busy"}}"#) {
            Ok(Classified::Response {
                id: RequestId::Str(s),
                outcome: Err(e),
            }) => {
                assert_eq!(s, "a");
                assert_eq!(e.code, -32001);
            }
            _ => panic!("not an error response"),
        }
        assert!(matches!(
            parse(r#"{"id":0,"method":"x/y","params":{}}"#),
            Ok(Classified::Request { .. })
        ));
        assert!(matches!(
            parse(r#"{"method":"x/y","params":{"a":1},"emittedAtMs":5}"#),
            Ok(Classified::Notification { .. })
        ));
        assert!(parse(r#"{"foo":1}"#).is_err());
        assert!(parse(r#"{"id":3}"#).is_err());
    }

    #[test]
    fn pretty_printed_json_stays_on_one_line() {
        let pretty = "{\n  \"text\": \"a\\nb\",\r\n  \"k\": [\n    1,\n    2\n  ]\n}";
        let raw = RawValue::from_string(pretty.into()).unwrap();
        let want: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let e = RpcError {
            code: 1,
            message: "m".into(),
            data: None,
        };
        let lines = [
            request_line(1, "m", &raw),
            notification_line("m", Some(&raw)),
            response_line(&RequestId::Int(1), Ok(&raw)),
            response_line(&RequestId::Int(1), Err(&e)),
        ];
        for (i, l) in lines.iter().enumerate() {
            let body = &l[..l.len() - 1];
            assert!(
                !body.contains(&b'\n') && !body.contains(&b'\r'),
                "line {i} is split"
            );
            let v: serde_json::Value = serde_json::from_slice(body).unwrap();
            let got = v.get("params").or_else(|| v.get("result"));
            if i < 3 {
                assert_eq!(got, Some(&want), "line {i} changed the JSON");
            }
        }
    }

    #[test]
    fn escaped_method_names_are_unescaped() {
        match parse(r#"{"method":"a\/b"}"#) {
            Ok(Classified::Notification { method, .. }) => assert_eq!(method, "a/b"),
            _ => panic!(),
        }
    }

    #[test]
    fn lines_are_valid_json() {
        let p = RawValue::from_string("{\"k\":[1]}".into()).unwrap();
        let l = request_line(7, "thread/start", &p);
        let v: serde_json::Value = serde_json::from_slice(&l).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["method"], "thread/start");
        assert_eq!(v["params"]["k"][0], 1);
        assert_eq!(*l.last().unwrap(), b'\n');
        let e = RpcError {
            code: -1,
            message: "no".into(),
            data: None,
        };
        let l = response_line(&RequestId::Str("z".into()), Err(&e));
        let v: serde_json::Value = serde_json::from_slice(&l).unwrap();
        assert_eq!(v["id"], "z");
        assert_eq!(v["error"]["code"], -1);
        let l = notification_line("initialized", None);
        assert_eq!(l, b"{\"method\":\"initialized\"}\n");
    }
}
