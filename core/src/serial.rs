//! The serialisable forms of what a distributed program moves between processes (issue 40):
//! `serde` for [`Notification`], [`ServerRequest`] (as its [`RequestRef`], which parks it),
//! [`ConnectionEvent`] (its JSON view), [`Response`], [`Event`] and [`TurnResult`]. The forms
//! are JSON (params travel as raw JSON text, `serde_json`'s `RawValue`: use `serde_json`,
//! or a format that carries a string of JSON); every binding's form (Python's pickles, C's
//! `codex_event_to_json`) is this one. `docs/distributed.md` shows each shape.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::codex::turn::TurnResult;
use crate::error::{
    DisconnectInfo, Error, OutputSchemaMismatch, Result, RpcError, UnsupportedByVersion,
};
use crate::event::{
    null_raw, ConnectionEvent, Event, Notification, RequestRef, Response, ServerRequest,
};
use crate::skills::SkillInfo;

// -- notifications ---------------------------------------------------------------------------

#[derive(Serialize)]
struct NoteOut<'a> {
    method: &'a str,
    params: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    endpoint: Option<&'a str>,
}

#[derive(Deserialize)]
struct NoteIn {
    method: String,
    #[serde(default = "null_raw")]
    params: Box<RawValue>,
    #[serde(default)]
    endpoint: Option<String>,
}

/// `{"method", "params", "endpoint"}` (`endpoint` only when the client has a label).
impl Serialize for Notification {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        NoteOut {
            method: &self.method,
            params: &self.params,
            endpoint: self.endpoint(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Notification {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let n = NoteIn::deserialize(d)?;
        Ok(Notification::new(n.method, n.params).with_endpoint(n.endpoint.as_deref()))
    }
}

impl Notification {
    /// The notification as JSON text (see its `Serialize`).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a notification serialises")
    }
    /// A notification from [`to_json`](Self::to_json)'s text; [`Error::InvalidArgument`]
    /// when it is not one.
    pub fn from_json(json: &str) -> Result<Notification> {
        serde_json::from_str(json)
            .map_err(|e| Error::InvalidArgument(format!("not a notification: {e}")))
    }
}

// -- server requests -------------------------------------------------------------------------

/// The request's [`RequestRef`]; serialising **parks** the request (see
/// [`ServerRequest::park`]), so that its answer can come by reference from wherever the
/// serialised form goes.
impl Serialize for ServerRequest {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.park();
        self.reference().serialize(s)
    }
}

/// A detached request ([`ServerRequest::from_ref`]): answer it through the owning client.
impl<'de> Deserialize<'de> for ServerRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RequestRef::deserialize(d).map(ServerRequest::from_ref)
    }
}

impl ServerRequest {
    /// The request's reference as JSON text, parking the request (see its `Serialize`).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a server request serialises")
    }
}

// -- connection events -----------------------------------------------------------------------

/// Its JSON view ([`ConnectionEvent::to_json`]: `{"kind", "message", ...}`).
impl Serialize for ConnectionEvent {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ConnectionEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ConnectionEvent::from_json(&v).map_err(D::Error::custom)
    }
}

// -- responses and errors --------------------------------------------------------------------

#[derive(Serialize)]
struct ResponseOut<'a> {
    token: u64,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ResponseIn {
    token: u64,
    method: String,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<Value>,
}

/// `{"token", "method", "result"}` or `{"token", "method", "error": {"kind", "message",
/// ...}}` (see [`Error::to_json`]); the attachment stays in its process.
impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let (result, error) = match &self.result {
            Ok(r) => (Some(&**r), None),
            Err(e) => (None, Some(e.to_json())),
        };
        ResponseOut {
            token: self.token,
            method: &self.method,
            result,
            error,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let r = ResponseIn::deserialize(d)?;
        let result = match (r.result, r.error) {
            (_, Some(e)) => Err(Error::from_json(&e)),
            (Some(v), None) => Ok(v),
            (None, None) => Ok(null_raw()),
        };
        Ok(Response::new(r.token, r.method, result))
    }
}

fn rpc_json(e: &RpcError) -> Value {
    json!({"code": e.code, "message": e.message, "data": e.data})
}

fn rpc_of(v: &Value) -> RpcError {
    RpcError::new(
        v["code"].as_i64().unwrap_or(-32603),
        v["message"].as_str().unwrap_or_default(),
        v.get("data").filter(|d| !d.is_null()).cloned(),
    )
}

impl Error {
    /// The error as JSON: `{"kind", "message"}` (its [`ErrorKind::name`](crate::ErrorKind::name)
    /// and text) and what rebuilds it — `rpc` (`{code, message, data}`), `attempts`,
    /// `method` and `after_ms`, `reason` and `stderr_tail`, `detail`, and the members of a
    /// schema mismatch or a version refusal. [`from_json`](Self::from_json) reads it back.
    pub fn to_json(&self) -> Value {
        let mut v = json!({"kind": self.kind().name(), "message": self.to_string()});
        match self {
            Error::Timeout { method, after } => {
                v["method"] = json!(method);
                v["after_ms"] = json!(after.as_millis() as u64);
            }
            Error::Rpc(r) => v["rpc"] = rpc_json(r),
            Error::Overloaded { attempts, last } => {
                v["attempts"] = json!(attempts);
                v["rpc"] = rpc_json(last);
            }
            Error::Disconnected(i) | Error::ConnectionLost(i) => {
                v["reason"] = json!(i.reason);
                v["stderr_tail"] = json!(i.stderr_tail);
            }
            Error::Transport(m)
            | Error::Protocol(m)
            | Error::InvalidArgument(m)
            | Error::InvalidState(m)
            | Error::Unsupported(m)
            | Error::Cancelled(m)
            | Error::Unavailable(m) => v["detail"] = json!(m),
            Error::UrlElicitationRequired(u) => v["rpc"] = rpc_json(&u.rpc),
            Error::OutputSchemaMismatch(m) => {
                v["tool"] = json!(m.tool);
                v["path"] = json!(m.path);
                v["detail"] = json!(m.message);
                v["result"] = m.result.clone();
            }
            Error::UnsupportedByVersion(u) => {
                v["method"] = json!(u.method);
                v["server_version"] = json!(u.server_version);
                v["versions"] = json!(u.versions);
            }
            Error::NotConnected | Error::AlreadyConnected | Error::AlreadyResponded => {}
        }
        v
    }

    /// The error [`to_json`](Self::to_json) wrote, of the same kind and details. A value of
    /// no kind this library knows becomes [`Error::Protocol`] with its kind and message.
    pub fn from_json(v: &Value) -> Error {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        let info = || DisconnectInfo::new(s("reason"), s("stderr_tail"));
        match v["kind"].as_str().unwrap_or_default() {
            "not_connected" => Error::NotConnected,
            "already_connected" => Error::AlreadyConnected,
            "already_responded" => Error::AlreadyResponded,
            "timeout" => Error::Timeout {
                method: s("method"),
                after: std::time::Duration::from_millis(v["after_ms"].as_u64().unwrap_or(0)),
            },
            "rpc" | "url_elicitation_required" => rpc_of(&v["rpc"]).into_error(),
            "overloaded" => Error::Overloaded {
                attempts: v["attempts"].as_u64().unwrap_or(0) as u32,
                last: rpc_of(&v["rpc"]),
            },
            "disconnected" => Error::Disconnected(info()),
            "connection_lost" => Error::ConnectionLost(info()),
            "transport" => Error::Transport(s("detail")),
            "protocol" => Error::Protocol(s("detail")),
            "invalid_argument" => Error::InvalidArgument(s("detail")),
            "invalid_state" => Error::InvalidState(s("detail")),
            "unsupported" => Error::Unsupported(s("detail")),
            "cancelled" => Error::Cancelled(s("detail")),
            "unavailable" => Error::Unavailable(s("detail")),
            "output_schema_mismatch" => {
                Error::OutputSchemaMismatch(Box::new(OutputSchemaMismatch {
                    tool: s("tool"),
                    path: s("path"),
                    message: s("detail"),
                    result: v["result"].clone(),
                }))
            }
            "unsupported_by_version" => {
                Error::UnsupportedByVersion(Box::new(UnsupportedByVersion {
                    method: s("method"),
                    server_version: s("server_version"),
                    versions: serde_json::from_value(v["versions"].clone()).unwrap_or_default(),
                }))
            }
            other => Error::Protocol(format!("{other}: {}", s("message"))),
        }
    }
}

// -- events ----------------------------------------------------------------------------------

/// An event borrowed, to serialise it (what [`Event`]'s `Serialize` writes; for a binding
/// that keeps an event's parts apart): externally tagged, `{"notification": {...}}`,
/// `{"server_request": {...}}` (the [`RequestRef`]; serialising parks the request),
/// `{"connection": {...}}` (the connection event's JSON view) or `{"response": {...}}`.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventView<'a> {
    /// A server notification.
    Notification(&'a Notification),
    /// A server request (as its reference; serialising parks it).
    ServerRequest(&'a ServerRequest),
    /// A connection event.
    Connection(&'a ConnectionEvent),
    /// A response to a request sent with `send_request`.
    Response(&'a Response),
}

impl EventView<'_> {
    /// The event as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an event serialises")
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum EventIn {
    Notification(Notification),
    ServerRequest(ServerRequest),
    Connection(ConnectionEvent),
    Response(Response),
}

impl Event {
    /// The event borrowed for serialising ([`EventView`]).
    pub fn view(&self) -> EventView<'_> {
        match self {
            Event::Notification(n) => EventView::Notification(n),
            Event::ServerRequest(r) => EventView::ServerRequest(r),
            Event::Connection(c) => EventView::Connection(c),
            Event::Response(r) => EventView::Response(r),
        }
    }
    /// The event as JSON text ([`EventView`]; a server request is parked).
    pub fn to_json(&self) -> String {
        self.view().to_json()
    }
    /// An event from [`to_json`](Self::to_json)'s text (a server request comes back
    /// detached); [`Error::InvalidArgument`] when it is not one.
    pub fn from_json(json: &str) -> Result<Event> {
        serde_json::from_str(json).map_err(|e| Error::InvalidArgument(format!("not an event: {e}")))
    }
}

/// Tagged by kind, as [`EventView`].
impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.view().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(match EventIn::deserialize(d)? {
            EventIn::Notification(n) => Event::Notification(n),
            EventIn::ServerRequest(r) => Event::ServerRequest(r),
            EventIn::Connection(c) => Event::Connection(c),
            EventIn::Response(r) => Event::Response(r),
        })
    }
}

// -- turn results ----------------------------------------------------------------------------

#[derive(Deserialize)]
struct SkillIn {
    name: String,
    #[serde(default)]
    description: String,
    path: String,
    #[serde(default)]
    server: Option<String>,
}

#[derive(Deserialize)]
struct TurnIn {
    thread_id: String,
    turn_id: String,
    status: String,
    #[serde(default)]
    final_response: Option<String>,
    #[serde(default)]
    items: Vec<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    diff: Option<String>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    turn: Value,
    #[serde(default)]
    emulated_skills: Vec<SkillIn>,
}

/// Its JSON view ([`TurnResult::to_json`]).
impl Serialize for TurnResult {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for TurnResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let t = TurnIn::deserialize(d)?;
        Ok(TurnResult {
            thread_id: t.thread_id,
            turn_id: t.turn_id,
            status: t.status,
            final_response: t.final_response,
            items: t.items,
            usage: t.usage.filter(|u| !u.is_null()),
            diff: t.diff,
            error: t.error.filter(|e| !e.is_null()),
            turn: t.turn,
            emulated_skills: t
                .emulated_skills
                .into_iter()
                .map(|s| SkillInfo {
                    name: s.name,
                    description: s.description,
                    path: s.path.into(),
                    server: s.server,
                })
                .collect(),
        })
    }
}

impl TurnResult {
    /// A result from its JSON view ([`to_json`](Self::to_json)); [`Error::InvalidArgument`]
    /// when it is not one.
    pub fn from_json(json: &str) -> Result<TurnResult> {
        serde_json::from_str(json)
            .map_err(|e| Error::InvalidArgument(format!("not a turn result: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Origin;
    use crate::message::RequestId;
    use crate::responder::OpenRequests;
    use std::sync::Arc;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.into()).unwrap()
    }

    #[test]
    fn notifications_keep_their_params_byte_for_byte() {
        let params = r#"{"threadId":"t","n":1.50,"big":123456789012345678901234567890}"#;
        let n = Notification::new("item/agentMessage/delta", raw(params)).with_endpoint(Some("a"));
        let json = n.to_json();
        assert!(json.contains(params), "{json}");
        let back = Notification::from_json(&json).unwrap();
        assert_eq!(back.params_json(), params);
        assert_eq!(back.endpoint(), Some("a"));
        assert_eq!(back.method, n.method);
        // No label: no endpoint member.
        let plain = Notification::new("x/y", raw("{}")).to_json();
        assert_eq!(plain, r#"{"method":"x/y","params":{}}"#);
        let ev = Event::from_json(&Event::Notification(back).to_json()).unwrap();
        assert!(matches!(ev, Event::Notification(n) if n.params_json() == params));
    }

    #[test]
    fn a_deserialised_request_is_detached_and_says_how_to_answer() {
        let state = OpenRequests::default().open(RequestId::Int(3), "m");
        let origin = Origin {
            owner: Arc::from("c0ffee"),
            connection: 7,
            endpoint: Some(Arc::from("east")),
            parking: std::sync::Weak::<SessionLess>::new(),
        };
        let conn: std::sync::Weak<dyn crate::responder::Responder> =
            std::sync::Weak::<SessionLess>::new();
        let live = ServerRequest::new(
            RequestId::Int(3),
            "item/commandExecution/requestApproval".into(),
            raw(r#"{"threadId":"t","turnId":"u"}"#),
            state,
            conn,
            origin,
        );
        let json = serde_json::to_string(&Event::ServerRequest(live.share())).unwrap();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            v,
            json!({"server_request": {"owner": "c0ffee", "connection": 7, "endpoint": "east",
                "id": 3, "method": "item/commandExecution/requestApproval",
                "params": {"threadId": "t", "turnId": "u"}}})
        );
        let Event::ServerRequest(detached) = Event::from_json(&json).unwrap() else {
            panic!("not a request");
        };
        assert!(detached.is_detached() && !detached.is_open());
        assert_eq!(detached.thread_id().as_deref(), Some("t"));
        assert_eq!(detached.turn_id().as_deref(), Some("u"));
        assert_eq!(detached.endpoint(), Some("east"));
        let e = detached
            .respond_json(r#"{"decision":"accept"}"#)
            .unwrap_err();
        assert!(matches!(e, Error::InvalidState(_)), "{e}");
        let m = e.to_string();
        assert!(
            m.contains("respond_ref") && m.contains("c0ffee") && m.contains("east"),
            "{m}"
        );
        let r = detached.reference();
        assert_eq!(r.owner, "c0ffee");
        assert_eq!(r.connection, 7);
        assert_eq!(
            RequestRef::from_json(&r.to_json()).unwrap().id,
            RequestId::Int(3)
        );
        drop(detached); // no answer attempted
        let _ = live.respond_fail_closed();
    }

    /// A connection that is not there (the tests' dangling `Weak`s).
    struct SessionLess;
    impl crate::responder::Responder for SessionLess {
        fn send_response(&self, _: Vec<u8>) -> Result<()> {
            Ok(())
        }
        fn forget_request(&self, _: &RequestId) {}
        fn disconnect_error(&self) -> Error {
            Error::NotConnected
        }
    }
    impl crate::event::Parking for SessionLess {
        fn park(&self, _: ServerRequest) -> bool {
            false
        }
    }

    #[test]
    fn connection_events_responses_and_errors_come_back_as_they_were() {
        use crate::event::{ReconnectAttempt, Rejoined};
        use std::time::Duration;
        let events = [
            ConnectionEvent::Error("bad line".into()),
            ConnectionEvent::Overflow { dropped: 4 },
            ConnectionEvent::Disconnected(DisconnectInfo::new("EOF", "tail")),
            ConnectionEvent::Reconnecting(ReconnectAttempt {
                attempt: 2,
                max_attempts: 5,
                delay: Duration::from_millis(1500),
                cause: "EOF".into(),
            }),
            ConnectionEvent::Reconnected(Rejoined {
                attempts: 1,
                threads: vec!["t1".into()],
                failed_threads: vec![("t2".into(), "gone".into())],
                requests_failed: 3,
                server_requests_dropped: 1,
                turns_ended: vec![("t1".into(), "u1".into(), "interrupted".into())],
            }),
            ConnectionEvent::OutsideWindow(crate::version::ServerVersion::of(Some("0.1.0"))),
            #[cfg(feature = "mcp-http")]
            ConnectionEvent::Auth(crate::auth::AuthEvent::Succeeded {
                issuer: "https://as".into(),
                scope: None,
            }),
        ];
        for ev in events {
            let json = Event::Connection(ev.clone()).to_json();
            let Event::Connection(back) = Event::from_json(&json).unwrap() else {
                panic!("{json}");
            };
            assert_eq!(back, ev, "{json}");
        }
        assert!(Event::from_json(r#"{"connection":{"kind":"brand_new"}}"#).is_err());
        assert!(Event::from_json(r#"{"nope":{}}"#).is_err());

        let errors = [
            Error::NotConnected,
            Error::AlreadyResponded,
            Error::Timeout {
                method: "m".into(),
                after: Duration::from_millis(250),
            },
            Error::Rpc(RpcError::new(-32600, "bad", Some(json!({"x": 1})))),
            Error::Overloaded {
                attempts: 3,
                last: RpcError::new(-32001, "busy", None),
            },
            Error::ConnectionLost(DisconnectInfo::new("EOF", "t")),
            Error::InvalidArgument("no".into()),
            Error::Cancelled("by you".into()),
        ];
        for e in errors {
            let back = Error::from_json(&e.to_json());
            assert_eq!(back.kind(), e.kind());
            assert_eq!(back.to_string(), e.to_string());
        }
        let r = Response::new(9, "config/read", Err(Error::Protocol("x".into())));
        let Event::Response(back) = Event::from_json(&Event::Response(r).to_json()).unwrap() else {
            panic!()
        };
        assert_eq!(back.token, 9);
        assert!(matches!(back.result, Err(Error::Protocol(m)) if m == "x"));
        let ok = Response::new(1, "a/b", Ok(raw(r#"{"v":[1,2]}"#)));
        let Event::Response(back) = Event::from_json(&Event::Response(ok).to_json()).unwrap()
        else {
            panic!()
        };
        assert_eq!(back.result.unwrap().get(), r#"{"v":[1,2]}"#);
    }

    #[test]
    fn turn_results_come_back_equal() {
        let t = TurnResult {
            thread_id: "t".into(),
            turn_id: "u".into(),
            status: "completed".into(),
            final_response: Some("hi".into()),
            items: vec![json!({"type": "agentMessage", "text": "hi"})],
            usage: Some(json!({"total": 3})),
            diff: None,
            error: None,
            turn: json!({"id": "u", "status": "completed"}),
            emulated_skills: vec![SkillInfo {
                name: "s".into(),
                description: "d".into(),
                path: "/p/SKILL.md".into(),
                server: Some("docs".into()),
            }],
        };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(TurnResult::from_json(&json).unwrap(), t);
        assert!(TurnResult::from_json("[]").is_err());
    }
}
