//! Events delivered to the user: notifications, server requests and connection events.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::{Arc, Weak};

use crate::error::{DisconnectInfo, Error, Result, RpcError};
use crate::message::{response_line, RequestId};
use crate::params;
use crate::responder::{Responder, ResponderState};
use crate::scan;

/// A notification from the server (`{method, params}`), with `params` kept as raw JSON text
/// so nothing is lost and nothing is parsed until asked for.
///
/// Serialisable (`serde`, JSON): `{"method", "params", "endpoint"}` (`endpoint` absent when the
/// client has no label); see `docs/distributed.md`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Notification {
    /// Method name, for example `item/agentMessage/delta`. Unknown methods arrive unchanged.
    pub method: String,
    /// The `params` member as raw JSON (`null` when absent), shared: a notification delivered
    /// to several subscriptions is one copy of its text, not one per subscription.
    pub params: Arc<RawValue>,
    /// The label of the client that received it (option `label`), shared, not copied.
    pub(crate) endpoint: Option<Arc<str>>,
}

/// Ids that most thread-scoped payloads carry, parsed without building a full value.
#[derive(serde::Deserialize, Default)]
struct Scope<'a> {
    #[serde(default, rename = "threadId", borrow, deserialize_with = "str_or_none")]
    thread_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, rename = "turnId", borrow, deserialize_with = "str_or_none")]
    turn_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "str_or_none")]
    delta: Option<std::borrow::Cow<'a, str>>,
    /// `turn/started` and `turn/completed` carry the turn as `params.turn`.
    #[serde(default, borrow)]
    turn: Option<TurnId<'a>>,
}

#[derive(serde::Deserialize, Default)]
struct TurnId<'a> {
    #[serde(default, borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
}

/// `threadId` and `turnId` of a payload, parsed in one pass (the router's hot path). A member
/// that is not a string counts as absent (and does not hide the other one).
#[derive(serde::Deserialize, Default)]
pub(crate) struct Ids<'a> {
    #[serde(default, rename = "threadId", borrow, deserialize_with = "str_or_none")]
    pub thread_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, rename = "turnId", borrow, deserialize_with = "str_or_none")]
    pub turn_id: Option<std::borrow::Cow<'a, str>>,
}

/// A string member, or `None` for any other value (found by fuzzing: a numeric `turnId`
/// used to make the whole fallback parse fail and lose the `threadId`).
fn str_or_none<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<std::borrow::Cow<'de, str>>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum StrOr<'a> {
        Str(#[serde(borrow)] std::borrow::Cow<'a, str>),
        Other(serde::de::IgnoredAny),
    }
    Ok(match <StrOr as serde::Deserialize>::deserialize(d)? {
        StrOr::Str(s) => Some(s),
        StrOr::Other(_) => None,
    })
}

/// [`Ids`] of a params payload (empty when it is not an object).
pub(crate) fn ids(params: &RawValue) -> Ids<'_> {
    let json = params.get();
    fast_ids(json).unwrap_or_else(|| serde_json::from_str(json).unwrap_or_default())
}

#[cfg(test)]
mod ids_tests {
    use super::*;

    #[test]
    fn a_non_string_member_does_not_hide_the_other_id() {
        // The fuzzer's case: an escaped threadId sends the scan to serde, whose parse of the
        // numeric turnId used to fail the whole struct.
        let raw =
            RawValue::from_string(r#"{"threadId":"a\nb","turnId":  4444.5}"#.to_owned()).unwrap();
        let ids = ids(&raw);
        assert_eq!(ids.thread_id.as_deref(), Some("a\nb"));
        assert_eq!(ids.turn_id, None);
        let raw = RawValue::from_string(r#"{"threadId":"t\"x","turnId":null}"#.to_owned()).unwrap();
        assert_eq!(super::ids(&raw).thread_id.as_deref(), Some("t\"x"));
    }
}

/// Store a scanned string member in `slot`; an escaped string asks for the serde fallback.
fn take_str<'a>(raw: &'a str, slot: &mut Option<Cow<'a, str>>, escaped: &mut bool) {
    match scan::as_str(raw) {
        scan::Str::Plain(s) => *slot = Some(Cow::Borrowed(s)),
        scan::Str::Escaped => *escaped = true,
        scan::Str::NotString => {}
    }
}

/// [`Ids`] by the top-level scanner; `None` when serde must do it.
fn fast_ids(json: &str) -> Option<Ids<'_>> {
    let mut ids = Ids::default();
    let mut escaped = false;
    scan::members(json, id_members(&mut ids, &mut escaped))?;
    (!escaped).then_some(ids)
}

/// A notification line scanned without serde ([`scan::note_line`]), with the [`Ids`] of its
/// params when `want_ids` (routing needs them only while a turn stream is open); they are
/// `None` otherwise, or when an escape hides them ([`ids`] then asks serde).
pub(crate) fn scan_note_line(
    line: &str,
    want_ids: bool,
) -> Option<(scan::NoteLine<'_>, Option<Ids<'_>>)> {
    if !want_ids {
        return scan::note_line(line, |_, _| {}).map(|note| (note, None));
    }
    let mut ids = Ids::default();
    let (mut escaped, mut escaped_key) = (false, false);
    let mut visit = id_members(&mut ids, &mut escaped);
    let note = scan::note_line(line, |key, raw| match key {
        Some(key) => visit(key, raw),
        None => escaped_key = true,
    })?;
    drop(visit);
    Some((note, (!escaped && !escaped_key).then_some(ids)))
}

/// A member visitor that notes `threadId` and `turnId` in `ids`.
fn id_members<'a, 'b>(
    ids: &'b mut Ids<'a>,
    escaped: &'b mut bool,
) -> impl FnMut(&'a str, &'a str) + 'b {
    move |key, raw| match key {
        "threadId" => take_str(raw, &mut ids.thread_id, escaped),
        "turnId" => take_str(raw, &mut ids.turn_id, escaped),
        _ => {}
    }
}

fn scope(params: &RawValue) -> Scope<'_> {
    let json = params.get();
    fast_scope(json).unwrap_or_else(|| serde_json::from_str(json).unwrap_or_default())
}

/// [`Scope`] by the top-level scanner; `None` when serde must do it.
fn fast_scope(json: &str) -> Option<Scope<'_>> {
    let mut sc = Scope::default();
    let mut escaped = false;
    let mut turn_raw = None;
    scan::members(json, |key, raw| match key {
        "threadId" => take_str(raw, &mut sc.thread_id, &mut escaped),
        "turnId" => take_str(raw, &mut sc.turn_id, &mut escaped),
        "delta" => take_str(raw, &mut sc.delta, &mut escaped),
        "turn" => turn_raw = Some(raw),
        _ => {}
    })?;
    if let Some(raw) = turn_raw.filter(|r| r.starts_with('{')) {
        let mut id = None;
        scan::members(raw, |key, raw| {
            if key == "id" {
                take_str(raw, &mut id, &mut escaped)
            }
        })?;
        sc.turn = Some(TurnId { id });
    }
    (!escaped).then_some(sc)
}

pub(crate) fn null_raw() -> Box<RawValue> {
    RawValue::from_string("null".into()).expect("null is valid JSON")
}

/// `null` as shared raw JSON (a notification's absent `params`).
pub(crate) fn null_shared() -> Arc<RawValue> {
    // SAFETY: `null` is one well-formed JSON value.
    unsafe { shared_raw_unchecked("null") }
}

/// `json` as shared raw JSON, in one allocation (as `RawValue::from_string_unchecked` makes a
/// box): what a notification's `params` is, so that every queue it reaches shares the text.
///
/// # Safety
/// `json` is one well-formed JSON value without whitespace around it, as for
/// [`RawValue::from_string_unchecked`].
pub(crate) unsafe fn shared_raw_unchecked(json: &str) -> Arc<RawValue> {
    let text: Arc<str> = Arc::from(json);
    // SAFETY: `RawValue` is `#[repr(transparent)]` over `str` (serde_json's own `&str` and
    // `Box<str>` casts rely on it), so the pointer keeps its layout and length metadata; the
    // caller vouches for the text.
    unsafe { Arc::from_raw(Arc::into_raw(text) as *const RawValue) }
}

/// The accessors every message with `method` and `params` has ([`Notification`],
/// [`ServerRequest`]), written once.
macro_rules! params_accessors {
    () => {
        /// The raw JSON text of `params`.
        pub fn params_json(&self) -> &str {
            self.params.get()
        }
        /// Deserialize `params` into `T`.
        pub fn params_as<T: DeserializeOwned>(&self) -> Result<T> {
            serde_json::from_str(self.params.get())
                .map_err(|e| Error::Protocol(format!("{}: {e}", self.method)))
        }
        /// `params` as a `serde_json::Value`.
        pub fn params_value(&self) -> serde_json::Value {
            serde_json::from_str(self.params.get()).unwrap_or(serde_json::Value::Null)
        }
        /// `params.threadId`, when present.
        pub fn thread_id(&self) -> Option<String> {
            scope(&self.params).thread_id.map(|s| s.into_owned())
        }
        /// `params.item` as raw JSON (`item/started`, `item/completed`, approvals), when
        /// present.
        pub fn item_json(&self) -> Option<&str> {
            params::item(self.params.get())
        }
        /// `params.itemId`, or `params.item.id`, when present.
        pub fn item_id(&self) -> Option<String> {
            params::item_id(self.params.get())
        }
    };
}

impl Notification {
    /// A notification of `method` with `params` (raw JSON), of no endpoint.
    pub fn new(method: impl Into<String>, params: Box<RawValue>) -> Self {
        Notification {
            method: method.into(),
            params: params.into(),
            endpoint: None,
        }
    }
    /// This notification tagged with `endpoint` (`None`: untagged).
    pub fn with_endpoint(mut self, endpoint: Option<&str>) -> Self {
        self.endpoint = endpoint.map(Arc::from);
        self
    }
    /// The label (option `label`) of the client that received it: in a pool, the endpoint's
    /// name. `None` when the client has no label.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }
    params_accessors!();
    /// `params.turnId`, or `params.turn.id` (`turn/started`, `turn/completed`), when present.
    pub fn turn_id(&self) -> Option<String> {
        let sc = scope(&self.params);
        sc.turn_id
            .or_else(|| sc.turn.and_then(|t| t.id))
            .map(|s| s.into_owned())
    }
    /// `params.delta` (the text of an `item/*/delta` notification), when present.
    pub fn delta(&self) -> Option<String> {
        self.delta_str().map(|s| s.into_owned())
    }
    /// [`delta`](Self::delta) borrowed from the params when it has no escapes (no copy).
    pub fn delta_str(&self) -> Option<std::borrow::Cow<'_, str>> {
        scope(&self.params).delta
    }
    /// `params.turn` as raw JSON (`turn/started`, `turn/completed`), when present.
    pub fn turn_json(&self) -> Option<&str> {
        params::turn(self.params.get())
    }
    /// `params.turn.status` (`completed`, `interrupted`, `failed`, ...), when present.
    pub fn turn_status(&self) -> Option<String> {
        params::turn_status(self.params.get())
    }
    /// `params.turn.error` as raw JSON, when present.
    pub fn turn_error_json(&self) -> Option<&str> {
        params::turn_error(self.params.get())
    }
}

/// The notifications that bindings give an event class of their own: the common events of a
/// turn ([`Notification::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotificationKind {
    /// `item/agentMessage/delta`: a piece of the agent's reply.
    AgentMessageDelta,
    /// `item/started`.
    ItemStarted,
    /// `item/completed`.
    ItemCompleted,
    /// `turn/started`.
    TurnStarted,
    /// `turn/completed`: the last event of a turn.
    TurnCompleted,
    /// `thread/tokenUsage/updated`.
    TokenUsageUpdated,
}

impl Notification {
    /// The notification's [`NotificationKind`]; `None` for every other method.
    pub fn kind(&self) -> Option<NotificationKind> {
        Some(match self.method.as_str() {
            "item/agentMessage/delta" => NotificationKind::AgentMessageDelta,
            "item/started" => NotificationKind::ItemStarted,
            "item/completed" => NotificationKind::ItemCompleted,
            "turn/started" => NotificationKind::TurnStarted,
            "turn/completed" => NotificationKind::TurnCompleted,
            "thread/tokenUsage/updated" => NotificationKind::TokenUsageUpdated,
            _ => return None,
        })
    }
}

/// Where a server request came from: the client that owns it, the connection (link) it came
/// on, the client's label, and the table that parks it.
#[derive(Clone)]
pub(crate) struct Origin {
    /// The owning client's id ([`Client::id`](crate::Client::id)).
    pub(crate) owner: Arc<str>,
    /// The link it came on (a number unique in the process; a reconnect makes a new one).
    pub(crate) connection: u64,
    /// The owning client's label.
    pub(crate) endpoint: Option<Arc<str>>,
    /// The connection's table of parked requests.
    pub(crate) parking: Weak<dyn Parking>,
}

impl std::fmt::Debug for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Origin")
            .field("owner", &self.owner)
            .field("connection", &self.connection)
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl Origin {
    /// The origin a deserialised reference names (nothing parks it).
    fn of_ref(r: &RequestRef) -> Origin {
        Origin {
            owner: Arc::from(r.owner.as_str()),
            connection: r.connection,
            endpoint: r.endpoint.as_deref().map(Arc::from),
            parking: Weak::<Detached>::new(),
        }
    }
}

/// The connection of a detached request (deserialised from its reference): none. Only its
/// type is used, for the dangling `Weak`s of such a request.
struct Detached;

impl Responder for Detached {
    fn send_response(&self, _: Vec<u8>) -> Result<()> {
        Err(Error::NotConnected)
    }
    fn forget_request(&self, _: &RequestId) {}
    fn disconnect_error(&self) -> Error {
        Error::NotConnected
    }
}

impl Parking for Detached {
    fn park(&self, _: ServerRequest) -> bool {
        false
    }
}

/// What parks a server request: its connection's table ([`ServerRequest::park`]).
pub(crate) trait Parking: Send + Sync {
    /// Keep `request` (a second handle of it) until it is answered, resolved, its connection
    /// ends or the bound passes (then it is answered fail-closed). Whether it is parked
    /// (false when parking is off or the request is no longer open).
    fn park(&self, request: ServerRequest) -> bool;
}

/// A request sent by the server that expects an answer (approvals, user input, ...).
///
/// Answer it with [`respond`](Self::respond) or [`respond_error`](Self::respond_error), now or
/// later, from any thread. A request dropped without an answer is answered **fail-closed**:
/// approvals are declined, every other method gets a JSON-RPC error.
///
/// # Moving it to another process
/// A server request serialises (`serde`, JSON) as its reference, a [`RequestRef`] (owner
/// client, connection, endpoint, id, method, params). Serialising it **parks** it (as
/// [`park`](Self::park) does): the client keeps a handle until the answer comes by reference
/// ([`Client::respond_ref`](crate::Client::respond_ref) on the owning client), the server
/// resolves it, the connection ends, or option `parked_request_timeout` passes, when it is
/// answered fail-closed. Deserialised, it is *detached*: it has no connection, and answering
/// it directly is [`Error::InvalidState`] naming the way (the owning client's `respond_ref`).
#[derive(Debug)]
pub struct ServerRequest {
    /// The server's request id.
    pub id: RequestId,
    /// Method name, for example `item/commandExecution/requestApproval`.
    pub method: String,
    /// The `params` member as raw JSON.
    pub params: Box<RawValue>,
    state: Arc<ResponderState>,
    conn: Weak<dyn Responder>,
    origin: Origin,
    /// Deserialised from a reference: no connection behind it.
    detached: bool,
}

impl ServerRequest {
    pub(crate) fn new(
        id: RequestId,
        method: String,
        params: Box<RawValue>,
        state: Arc<ResponderState>,
        conn: Weak<dyn Responder>,
        origin: Origin,
    ) -> Self {
        ServerRequest {
            id,
            method,
            params,
            state,
            conn,
            origin,
            detached: false,
        }
    }

    /// The detached request a reference stands for (deserialised: no connection).
    pub fn from_ref(r: RequestRef) -> ServerRequest {
        ServerRequest {
            origin: Origin::of_ref(&r),
            id: r.id,
            method: r.method,
            params: r.params,
            state: ResponderState::detached(),
            conn: Weak::<Detached>::new(),
            detached: true,
        }
    }

    params_accessors!();
    /// `params.turnId`, when present.
    pub fn turn_id(&self) -> Option<String> {
        scope(&self.params).turn_id.map(|s| s.into_owned())
    }
    /// Whether the request can still be answered through this handle (not answered, resolved
    /// or disconnected; a detached request never can: answer it by reference).
    pub fn is_open(&self) -> bool {
        !self.detached && self.state.is_open()
    }
    /// The label (option `label`) of the client that received it: in a pool, the endpoint's
    /// name. `None` when the client has no label.
    pub fn endpoint(&self) -> Option<&str> {
        self.origin.endpoint.as_deref()
    }
    /// Whether this request was deserialised from its reference (see "Moving it to another
    /// process"): it has no connection; answer it through the owning client by reference.
    pub fn is_detached(&self) -> bool {
        self.detached
    }
    /// The request's reference: what answers it from elsewhere through the client that owns
    /// it ([`Client::respond_ref`](crate::Client::respond_ref)). Does not park it: a request
    /// whose every handle is dropped is still answered fail-closed; serialise it or call
    /// [`park`](Self::park) when the answer comes later from another process.
    pub fn reference(&self) -> RequestRef {
        RequestRef {
            owner: self.origin.owner.to_string(),
            connection: self.origin.connection,
            endpoint: self.origin.endpoint.as_deref().map(str::to_owned),
            id: self.id.clone(),
            method: self.method.clone(),
            params: self.params.clone(),
        }
    }
    /// Park the request: the client keeps a handle of it until the answer comes (through any
    /// handle, or by reference: [`Client::respond_ref`](crate::Client::respond_ref)), the
    /// server resolves it, the connection ends, or option `parked_request_timeout` passes —
    /// then it is answered fail-closed (approvals declined) with a WARNING log line. Dropping
    /// every other handle no longer answers it. Idempotent (the bound counts from the first
    /// park). Whether it is parked: false for a detached request, one no longer open, or with
    /// `parked_request_timeout` 0 (off).
    pub fn park(&self) -> bool {
        if self.detached || !self.state.is_open() {
            return false;
        }
        self.origin
            .parking
            .upgrade()
            .is_some_and(|p| p.park(self.share()))
    }

    /// Another handle to the same request, for a second owner (a binding hands one to the
    /// handler and keeps one to show): answering through either answers the request, once;
    /// it is answered fail-closed only when the last handle is dropped unanswered.
    pub fn share(&self) -> ServerRequest {
        self.state.add_handle();
        ServerRequest {
            id: self.id.clone(),
            method: self.method.clone(),
            params: self.params.clone(),
            state: self.state.clone(),
            conn: self.conn.clone(),
            origin: self.origin.clone(),
            detached: self.detached,
        }
    }

    /// Answer with a result. An accepted MCP `elicitation/create` gets the requested
    /// schema's defaults for the fields it leaves out (SEP-1034).
    pub fn respond(&self, result: &serde_json::Value) -> Result<()> {
        let raw = if self.method == "elicitation/create" {
            let mut answer = result.clone();
            crate::protocol::mcp::apply_elicitation_defaults(&self.params_value(), &mut answer);
            serde_json::value::to_raw_value(&answer)
        } else {
            serde_json::value::to_raw_value(result)
        }
        .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        self.send(Ok(&raw))
    }
    /// Answer with a result given as JSON text (see [`respond`](Self::respond)).
    pub fn respond_json(&self, result_json: &str) -> Result<()> {
        if self.method == "elicitation/create" {
            let v: serde_json::Value = serde_json::from_str(result_json)
                .map_err(|e| Error::InvalidArgument(format!("result is not valid JSON: {e}")))?;
            return self.respond(&v);
        }
        let raw: &RawValue = serde_json::from_str(result_json)
            .map_err(|e| Error::InvalidArgument(format!("result is not valid JSON: {e}")))?;
        self.send(Ok(raw))
    }
    /// Answer with a JSON-RPC error.
    pub fn respond_error(&self, error: &RpcError) -> Result<()> {
        self.send(Err(error))
    }
    /// Answer fail-closed, exactly as if no handler existed (approvals declined).
    pub fn respond_fail_closed(&self) -> Result<()> {
        match fail_closed_answer(&self.method) {
            Ok(v) => self.respond(&v),
            Err(e) => self.respond_error(&e),
        }
    }

    /// The error for answering a detached request directly.
    fn detached_error(&self) -> Error {
        let endpoint = self
            .origin
            .endpoint
            .as_deref()
            .map_or(String::new(), |e| format!(", endpoint `{e}`"));
        Error::InvalidState(format!(
            "server request `{}` (id {}) was deserialised from its reference and is detached \
             from its connection: answer it through the client that owns it (client {}{endpoint}) \
             by reference: `Client::respond_ref` (Python `client.respond(request, answer)`, C \
             `codex_client_respond_ref`)",
            self.method, self.id, self.origin.owner
        ))
    }

    fn send(&self, outcome: std::result::Result<&RawValue, &RpcError>) -> Result<()> {
        if self.detached {
            return Err(self.detached_error());
        }
        let conn = self.conn.upgrade().ok_or_else(|| {
            Error::Disconnected(DisconnectInfo {
                reason: "connection closed before the server request was answered".into(),
                stderr_tail: String::new(),
            })
        })?;
        self.state.claim(&*conn)?;
        conn.forget_request(&self.id);
        conn.send_response(response_line(&self.id, outcome))
    }
}

/// The reference of a server request ([`ServerRequest::reference`]): what a process that
/// does not hold the request gives back to answer it, through the client that owns it
/// ([`Client::respond_ref`](crate::Client::respond_ref)). Serialisable (`serde`, JSON):
/// `{"owner", "connection", "endpoint", "id", "method", "params"}`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct RequestRef {
    /// The id of the client that owns the request ([`Client::id`](crate::Client::id)):
    /// random, so a reference from another process never matches by accident.
    pub owner: String,
    /// The connection (link) the request came on: a number unique in the owning process; a
    /// reconnect or a new `connect()` makes a new one, and the requests of an earlier one can
    /// no longer be answered.
    pub connection: u64,
    /// The owning client's label (option `label`): in a pool, the endpoint's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The server's request id.
    pub id: RequestId,
    /// Method name, for example `item/commandExecution/requestApproval`.
    pub method: String,
    /// The `params` member as raw JSON.
    #[serde(default = "null_raw")]
    pub params: Box<RawValue>,
}

impl RequestRef {
    params_accessors!();
    /// `params.turnId`, when present.
    pub fn turn_id(&self) -> Option<String> {
        scope(&self.params).turn_id.map(|s| s.into_owned())
    }
    /// The reference as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a request reference serialises")
    }
    /// A reference from its JSON text ([`to_json`](Self::to_json), or a serialised
    /// [`ServerRequest`]); [`Error::InvalidArgument`] when it is not one.
    pub fn from_json(json: &str) -> Result<RequestRef> {
        serde_json::from_str(json)
            .map_err(|e| Error::InvalidArgument(format!("not a server request reference: {e}")))
    }
}

impl Drop for ServerRequest {
    fn drop(&mut self) {
        if self.detached {
            return;
        }
        if self.state.drop_handle() && self.state.is_open() {
            tracing::warn!(method = %self.method, id = %self.id, endpoint = self.endpoint().unwrap_or(""), "server request dropped unanswered; answering fail-closed");
            let _ = self.respond_fail_closed();
        }
    }
}

/// A decision on an approval request, worded for each approval method by
/// [`wording`](Self::wording): the v2 methods (`item/commandExecution/requestApproval`,
/// `item/fileChange/requestApproval`) say `accept`/`acceptForSession`/`decline`/`cancel`, the
/// v1 ones (`execCommandApproval`, `applyPatchApproval`)
/// `approved`/`approved_for_session`/`denied`/`abort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Approve.
    Accept,
    /// Approve this and similar requests for the rest of the session.
    AcceptForSession,
    /// Decline; the turn goes on.
    Decline,
    /// Decline and interrupt the turn.
    Cancel,
}

/// Whether `method` is a v1 approval (`execCommandApproval`, `applyPatchApproval`).
fn is_v1_approval(method: &str) -> bool {
    matches!(method, "execCommandApproval" | "applyPatchApproval")
}

/// Whether `method` is an approval request answered with `{"decision": ...}` (v1 or v2).
pub fn is_approval(method: &str) -> bool {
    is_v1_approval(method)
        || matches!(
            method,
            "item/commandExecution/requestApproval" | "item/fileChange/requestApproval"
        )
}

impl Decision {
    /// The decision named by its generic (v2) word: `accept`, `acceptForSession`, `decline`,
    /// `cancel`.
    pub fn parse(word: &str) -> Option<Decision> {
        Some(match word {
            "accept" => Decision::Accept,
            "acceptForSession" => Decision::AcceptForSession,
            "decline" => Decision::Decline,
            "cancel" => Decision::Cancel,
            _ => return None,
        })
    }

    /// The word `method` takes for this decision (v1 wording for the v1 approvals, v2 for
    /// every other method).
    pub fn wording(self, method: &str) -> &'static str {
        let v1 = is_v1_approval(method);
        match self {
            Decision::Accept if v1 => "approved",
            Decision::AcceptForSession if v1 => "approved_for_session",
            Decision::Decline if v1 => "denied",
            Decision::Cancel if v1 => "abort",
            Decision::Accept => "accept",
            Decision::AcceptForSession => "acceptForSession",
            Decision::Decline => "decline",
            Decision::Cancel => "cancel",
        }
    }

    /// The whole answer: `{"decision": <wording>}`.
    pub fn answer(self, method: &str) -> serde_json::Value {
        serde_json::json!({ "decision": self.wording(method) })
    }
}

/// The answer to send for what a binding's handler returned for a request of `method`. For an
/// approval a bare decision is wrapped as `{"decision": ...}`: `true`/`false` become
/// [`Decision::Accept`]/[`Decision::Decline`] worded for the method (v1 or v2); any other
/// value is the decision as the method words it (`"accept"`, `"approved"`,
/// `{"acceptWithExecpolicyAmendment": {...}}`; checked by
/// [`ServerRequest::check_answer_json`]); an object that has a `decision` is the whole answer
/// already. Other methods' answers are returned unchanged.
pub fn approval_answer(method: &str, answer: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    if !is_approval(method) || answer.get("decision").is_some() {
        return answer;
    }
    match answer {
        Value::Bool(true) => Decision::Accept.answer(method),
        Value::Bool(false) => Decision::Decline.answer(method),
        _ => serde_json::json!({ "decision": answer }),
    }
}

impl ServerRequest {
    /// Answer an approval with `decision`, worded for this request's method (v1 or v2).
    pub fn respond_decision(&self, decision: Decision) -> Result<()> {
        self.respond(&decision.answer(&self.method))
    }

    /// Approve a command approval and add an exec-policy rule allowing commands that start
    /// with `prefix` from now on; an empty `prefix` takes the amendment the server proposed
    /// (`proposedExecpolicyAmendment`). See [`execpolicy_amendment_answer`].
    pub fn respond_execpolicy_amendment(&self, prefix: &[String]) -> Result<()> {
        self.respond(&execpolicy_amendment_answer(
            &self.method,
            &self.params_value(),
            prefix,
        )?)
    }
}

/// The answer approving a command approval of `method` (with `params`) together with an
/// exec-policy amendment: `{"decision": {"acceptWithExecpolicyAmendment":
/// {"execpolicy_amendment": prefix}}}` for `item/commandExecution/requestApproval`, the v1
/// wording (`approved_execpolicy_amendment`) for `execCommandApproval`. An empty `prefix`
/// takes the request's `proposedExecpolicyAmendment`. [`Error::InvalidArgument`] for another
/// method, or an empty `prefix` when the server proposed none.
pub fn execpolicy_amendment_answer(
    method: &str,
    params: &serde_json::Value,
    prefix: &[String],
) -> Result<serde_json::Value> {
    use serde_json::json;
    let prefix: Vec<String> = if prefix.is_empty() {
        serde_json::from_value(params["proposedExecpolicyAmendment"].clone())
            .ok()
            .filter(|p: &Vec<String>| !p.is_empty())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "`{method}` proposes no exec-policy amendment: give the command prefix"
                ))
            })?
    } else {
        prefix.to_vec()
    };
    match method {
        "item/commandExecution/requestApproval" => Ok(json!({"decision": {
            "acceptWithExecpolicyAmendment": {"execpolicy_amendment": prefix}}})),
        "execCommandApproval" => Ok(json!({"decision": {
            "approved_execpolicy_amendment": {"proposed_execpolicy_amendment": prefix}}})),
        _ => Err(Error::InvalidArgument(format!(
            "an exec-policy amendment answers a command approval, not `{method}`"
        ))),
    }
}

/// The answer given to a server request nobody handles: approvals are declined, permission
/// requests grant nothing, elicitations (app-server and MCP `elicitation/create`) are
/// declined, everything else (MCP `sampling/createMessage`, `roots/list`, …) gets a JSON-RPC
/// error.
pub fn fail_closed_answer(method: &str) -> std::result::Result<serde_json::Value, RpcError> {
    use serde_json::json;
    if is_approval(method) {
        return Ok(Decision::Decline.answer(method));
    }
    match method {
        "item/permissions/requestApproval" => Ok(json!({"permissions": {}, "scope": "turn"})),
        "mcpServer/elicitation/request" | "elicitation/create" => Ok(json!({"action": "decline"})),
        _ => Err(RpcError {
            code: -32601,
            message: format!("no handler for server request `{method}` (declined by codex-client)"),
            data: None,
        }),
    }
}

/// Something the connection reports that is neither a notification nor a server request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConnectionEvent {
    /// A line that is not valid JSON-RPC, a line over the size cap, or a callback that panicked.
    /// The connection keeps going.
    Error(String),
    /// Notifications were shed because the consumer fell far behind; `dropped` says how many.
    Overflow {
        /// Number of notifications dropped since the last overflow event.
        dropped: u64,
    },
    /// The connection ended. This is the last event of a connection.
    Disconnected(DisconnectInfo),
    /// The connection dropped and the client is about to try again
    /// ([`ClientOptions::reconnect`](crate::ClientOptions::reconnect)).
    Reconnecting(ReconnectAttempt),
    /// The client reconnected: the handshake is done and the threads are resumed.
    Reconnected(Rejoined),
    /// The app-server's Codex version is outside the supported window (or it did not say
    /// one): the connection goes on (with one WARNING log line); methods, fields and variants
    /// the library does not know are kept raw, and no call is refused by version.
    OutsideWindow(crate::version::ServerVersion),
    /// The app-server behind the local control socket (`codex app-server daemon`'s) runs
    /// another Codex version than the installed CLI (its
    /// [`cli_version`](crate::ServerVersion::cli_version)): the connection goes on with the
    /// server's version (one WARNING log line); the daemon needs updating.
    VersionMismatch(crate::version::ServerVersion),
    /// MCP authorization started, succeeded, refreshed a token or failed
    /// ([`crate::auth`]).
    #[cfg(feature = "mcp-http")]
    Auth(crate::auth::AuthEvent),
}

/// One reconnect attempt ([`ConnectionEvent::Reconnecting`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReconnectAttempt {
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The attempts the policy allows.
    pub max_attempts: u32,
    /// How long the client waits before this attempt.
    pub delay: std::time::Duration,
    /// Why the connection dropped (the first attempt), or why the last attempt failed.
    pub cause: String,
}

/// What a reconnect restored and what it could not ([`ConnectionEvent::Reconnected`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Rejoined {
    /// Attempts it took.
    pub attempts: u32,
    /// Threads resumed (`thread/resume`) on the new connection.
    pub threads: Vec<String>,
    /// Threads that could not be resumed, with the error.
    pub failed_threads: Vec<(String, String)>,
    /// Requests that were in flight when the connection dropped; each failed with
    /// [`Error::ConnectionLost`](crate::Error::ConnectionLost).
    pub requests_failed: u64,
    /// Server requests that were open when the connection dropped (the server asks again
    /// for those it still needs).
    pub server_requests_dropped: u64,
    /// Turns that were running and ended while the connection was down, as `(thread, turn,
    /// status)`: their `turn/completed` was delivered from the resumed history (status
    /// `interrupted` when the server restarted and lost them).
    pub turns_ended: Vec<(String, String, String)>,
}

/// A value a binding attaches to a request sent with
/// [`Client::send_request_with`](crate::Client::send_request_with) (a C program's callback
/// and userdata, say); it comes back untouched in the request's [`Response`], so the binding
/// keeps no table of its own requests.
pub type Attachment = Box<dyn std::any::Any + Send>;

/// The outcome of a request sent with [`Client::send_request`](crate::Client::send_request),
/// delivered as an event.
#[derive(Debug)]
#[non_exhaustive]
pub struct Response {
    /// The token the request was sent with.
    pub token: u64,
    /// The request's method.
    pub method: String,
    /// The result, or why there is none (an RPC error, the timeout, the disconnect).
    pub result: Result<Box<RawValue>>,
    /// What the sender attached ([`Client::send_request_with`](crate::Client::send_request_with));
    /// `None` for [`Client::send_request`](crate::Client::send_request).
    pub attachment: Option<Attachment>,
}

impl Response {
    /// A response event's parts (a binding that keeps them apart builds one to serialise it).
    pub fn new(token: u64, method: impl Into<String>, result: Result<Box<RawValue>>) -> Response {
        Response {
            token,
            method: method.into(),
            result,
            attachment: None,
        }
    }
}

/// One event of a connection, in arrival order (responses go ahead of waiting events).
/// New kinds may be added (match with a wildcard arm).
#[derive(Debug)]
#[non_exhaustive]
pub enum Event {
    /// A server notification.
    Notification(Notification),
    /// A server-to-client request awaiting an answer.
    ServerRequest(ServerRequest),
    /// An error report, an overflow report or the disconnect.
    Connection(ConnectionEvent),
    /// The outcome of a request sent with [`Client::send_request`](crate::Client::send_request).
    /// Every such request produces exactly one, before the connection's `Disconnected`.
    Response(Response),
}

impl Event {
    /// What the event costs in a queue, for the read-ahead budget: its JSON text plus a fixed
    /// allowance for the structure around it.
    pub(crate) fn queued_bytes(&self) -> usize {
        const OVERHEAD: usize = 128;
        OVERHEAD
            + match self {
                Event::Notification(n) => n.method.len() + n.params.get().len(),
                Event::ServerRequest(r) => r.method.len() + r.params.get().len(),
                Event::Connection(_) | Event::Response(_) => 0,
            }
    }

    /// The method name of a notification, a server request or a response.
    pub fn method(&self) -> Option<&str> {
        match self {
            Event::Notification(n) => Some(&n.method),
            Event::ServerRequest(r) => Some(&r.method),
            Event::Response(r) => Some(&r.method),
            Event::Connection(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execpolicy_amendments_are_worded_per_method() {
        let m = "item/commandExecution/requestApproval";
        let proposed = serde_json::json!({"proposedExecpolicyAmendment": ["npm", "test"]});
        let a = execpolicy_amendment_answer(m, &proposed, &[]).unwrap();
        assert_eq!(
            a["decision"]["acceptWithExecpolicyAmendment"]["execpolicy_amendment"],
            serde_json::json!(["npm", "test"])
        );
        let a = execpolicy_amendment_answer(m, &proposed, &["ls".into()]).unwrap();
        assert_eq!(
            a["decision"]["acceptWithExecpolicyAmendment"]["execpolicy_amendment"],
            serde_json::json!(["ls"])
        );
        let a = execpolicy_amendment_answer("execCommandApproval", &proposed, &[]).unwrap();
        assert_eq!(
            a["decision"]["approved_execpolicy_amendment"]["proposed_execpolicy_amendment"],
            serde_json::json!(["npm", "test"])
        );
        let e = execpolicy_amendment_answer(m, &serde_json::json!({}), &[]).unwrap_err();
        assert!(
            e.to_string().contains("proposes no exec-policy amendment"),
            "{e}"
        );
        let e = execpolicy_amendment_answer("item/fileChange/requestApproval", &proposed, &[])
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }

    #[test]
    fn fail_closed_never_accepts() {
        for m in [
            "item/commandExecution/requestApproval",
            "item/fileChange/requestApproval",
        ] {
            assert_eq!(fail_closed_answer(m).unwrap()["decision"], "decline");
        }
        assert_eq!(
            fail_closed_answer("applyPatchApproval").unwrap()["decision"],
            "denied"
        );
        assert_eq!(
            fail_closed_answer("mcpServer/elicitation/request").unwrap()["action"],
            "decline"
        );
        assert_eq!(
            fail_closed_answer("item/permissions/requestApproval").unwrap()["permissions"],
            serde_json::json!({})
        );
        assert!(fail_closed_answer("item/tool/requestUserInput").is_err());
        assert!(fail_closed_answer("brand/new").is_err());
    }

    #[test]
    fn decisions_are_worded_for_the_method() {
        use serde_json::json;
        let (v2, v1) = ("item/fileChange/requestApproval", "execCommandApproval");
        let words = |m: &str| {
            [
                Decision::Accept,
                Decision::AcceptForSession,
                Decision::Decline,
                Decision::Cancel,
            ]
            .map(|d| d.wording(m))
        };
        assert_eq!(
            words(v2),
            ["accept", "acceptForSession", "decline", "cancel"]
        );
        assert_eq!(
            words(v1),
            ["approved", "approved_for_session", "denied", "abort"]
        );
        for w in words(v2) {
            assert_eq!(Decision::parse(w).unwrap().wording(v2), w);
        }
        assert_eq!(Decision::parse("approved"), None);
        // A handler's value, for approvals of both versions and for other methods.
        assert_eq!(
            approval_answer(v2, json!(true)),
            json!({"decision": "accept"})
        );
        assert_eq!(
            approval_answer(v1, json!(false)),
            json!({"decision": "denied"})
        );
        // Words are the method's own: a v2 word for a v1 method is kept (and refused later).
        assert_eq!(
            approval_answer(v1, json!("cancel")),
            json!({"decision": "cancel"})
        );
        assert_eq!(
            approval_answer(v1, json!("approved_for_session")),
            json!({"decision": "approved_for_session"})
        );
        let amend = json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}});
        assert_eq!(
            approval_answer("item/commandExecution/requestApproval", amend.clone()),
            json!({ "decision": amend })
        );
        let whole = json!({"decision": "decline"});
        assert_eq!(approval_answer(v2, whole.clone()), whole);
        assert_eq!(
            approval_answer("item/tool/requestUserInput", json!(true)),
            json!(true)
        );
        assert!(is_approval(v1) && is_approval(v2));
        assert!(!is_approval("item/permissions/requestApproval"));
    }

    #[test]
    fn notification_kinds() {
        let n = |m: &str| Notification::new(m, null_raw());
        assert_eq!(
            n("item/agentMessage/delta").kind(),
            Some(NotificationKind::AgentMessageDelta)
        );
        assert_eq!(
            n("turn/completed").kind(),
            Some(NotificationKind::TurnCompleted)
        );
        assert_eq!(
            n("thread/tokenUsage/updated").kind(),
            Some(NotificationKind::TokenUsageUpdated)
        );
        assert_eq!(n("item/reasoning/delta").kind(), None);
    }

    #[test]
    fn scope_fields_parse_lazily() {
        let n = Notification::new(
            "item/agentMessage/delta",
            RawValue::from_string(
                r#"{"threadId":"t1","turnId":"u1","itemId":"i","delta":"he\"llo"}"#.into(),
            )
            .unwrap(),
        );
        assert_eq!(n.thread_id().as_deref(), Some("t1"));
        assert_eq!(n.turn_id().as_deref(), Some("u1"));
        assert_eq!(n.delta().as_deref(), Some("he\"llo"));
        let done = Notification::new(
            "turn/completed",
            RawValue::from_string(
                r#"{"threadId":"t1","turn":{"id":"u9","status":"completed"}}"#.into(),
            )
            .unwrap(),
        );
        assert_eq!(done.turn_id().as_deref(), Some("u9"));
    }

    #[test]
    fn scanner_agrees_with_serde() {
        let cases = [
            r#"{"threadId":"t1","turnId":"u1","itemId":"i","delta":"plain"}"#,
            r#"{"delta":"a\nb","threadId":"t\u0031","turn":{"items":[{"id":"x"}],"id":"u2"}}"#,
            r#"{"nested":{"threadId":"no"},"threadId":"yes","turn":{"id":"u\"3"}}"#,
            r#"{"threadId":null,"turnId":7}"#,
            r#"[1,2]"#,
            r#"{}"#,
        ];
        for c in cases {
            let raw = RawValue::from_string(c.into()).unwrap();
            let slow: Scope = serde_json::from_str(c).unwrap_or_default();
            let fast = scope(&raw);
            assert_eq!(fast.thread_id, slow.thread_id, "{c}");
            assert_eq!(fast.turn_id, slow.turn_id, "{c}");
            assert_eq!(fast.delta, slow.delta, "{c}");
            assert_eq!(
                fast.turn.and_then(|t| t.id),
                slow.turn.and_then(|t| t.id),
                "{c}"
            );
            let slow_ids: Ids = serde_json::from_str(c).unwrap_or_default();
            let fast_ids = ids(&raw);
            assert_eq!(fast_ids.thread_id, slow_ids.thread_id, "{c}");
            assert_eq!(fast_ids.turn_id, slow_ids.turn_id, "{c}");
        }
    }
}
