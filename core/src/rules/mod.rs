//! The seam between the engine below the two clients (`session/`, `connection/`, `delivery/`)
//! and the protocol a connection speaks. The engine asks a connection's [`Rules`] wherever the
//! two protocols differ, so that it names neither: [`AppServerRules`](app_server::AppServerRules)
//! (the Codex app-server's JSON-RPC v2, and the exec and `codex mcp-server` shims, which
//! present its semantics) and [`McpRules`](mcp::McpRules) implement it, each
//! with its per-connection state. [`for_options`] makes a connection's rules from its options.
//!
//! What a protocol brings here: the line format (`"jsonrpc"` member), whether an overload error
//! is retried, how the server hears of a cancelled request, the handshake's result check and
//! its `initialized` notification (first connect and every reconnect), whether a reconnect
//! rejoins threads, the reader's bookkeeping of notifications, the server requests it answers
//! itself, the progress tokens that restart a request's timeout, and the checks of a result.
//! It also brings what a request carries and what comes back: params as sent (MCP 2026-07-28:
//! the `_meta` envelope), whether the handshake was its own (a stateless era), results kept
//! and served again (the MCP cache) and results that ask for input first.
//! And a connect's opening and negotiation (MCP: the `server/discover` probe, its fallback
//! and a restart), requests it answers without sending them (the MCP 2026-07-28 log level),
//! the rounds of a request whose results ask for input, and what a reconnect rejoins.

pub(crate) mod app_server;
pub(crate) mod handshake;
pub(crate) mod mcp;

use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;
use std::sync::Arc;

use crate::options::{ClientOptions, Protocol};
use std::future::Future;
use std::pin::Pin;

use crate::error::Result;
use crate::event::Notification;
use crate::message::RequestId;

/// What a connection lets its protocol's rules do while its reader handles a line.
pub(crate) trait Link {
    /// The server withdrew or resolved its own request `id`: no answer goes out for it.
    fn request_withdrawn(&self, id: &RequestId);
    /// A progress update for the client's request that carries `token`: it restarts that
    /// request's timeout (and reaches a call waiting for its progress).
    fn request_progressed(&self, token: &str);
    /// Report an event of the connection (the server's version outside the window, ...).
    fn connection_event(&self, event: crate::event::ConnectionEvent);
}

/// A protocol's async step behind `dyn Rules`, awaited by the engine.
pub(crate) type Step<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a connection lets its protocol's rules do to finish a request whose result asked
/// for input first ([`Rules::finish_rounds`]).
pub(crate) trait Rounds: Sync {
    /// Answer a request the server embedded in a result through the client's handlers (or
    /// its event loop), bounded by the request's timeout.
    fn answer<'a>(&'a self, method: &'a str, params: Value) -> Step<'a, Result<Value>>;
    /// Send one request and await its answer as it came (no rounds).
    fn send_once<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> Step<'a, Result<Box<RawValue>>>;
}

/// The answer to a request of the handshake (`Err(_)`: the connection ended before it).
pub(crate) type Outcome =
    std::result::Result<Result<Box<RawValue>>, tokio::sync::oneshot::error::RecvError>;

/// What a connect starts with ([`Rules::opening`]).
pub(crate) enum Opening {
    /// Send this request (method and params) first.
    Send(&'static str, Box<RawValue>),
    /// Send nothing: the protocol adopts a verdict it remembers.
    Adopt,
}

/// A connect's first step, as the engine took it ([`Rules::negotiate`]).
pub(crate) enum First {
    /// The opening's request (its method) went out; its answer comes on the receiver.
    Sent(
        &'static str,
        tokio::sync::oneshot::Receiver<Result<Box<RawValue>>>,
    ),
    /// Nothing was sent ([`Opening::Adopt`]).
    Adopted,
}

/// What a connect's first step came to.
pub(crate) enum Negotiated {
    /// The handshake's outcome (the result the connection's initialize view is made of).
    Done(Outcome),
    /// The server ended during the first step (why): start it again and open with
    /// `opening(true)`.
    Restart(String),
}

/// What a connect lets its protocol's handshake do on the connection being opened.
pub(crate) trait Handshake: Sync {
    /// Send a request of the handshake (bounded by the connect timeout, no retry).
    fn request(
        &self,
        method: &'static str,
        params: &RawValue,
    ) -> Result<tokio::sync::oneshot::Receiver<Result<Box<RawValue>>>>;
    /// Wait until the transport is open.
    fn opened(&self) -> Step<'_, Result<()>>;
    /// Whether the transport opened (a server that could not be started did not).
    fn link_opened(&self) -> bool;
    /// Whether the connection ended.
    fn is_closed(&self) -> bool;
    /// Why the connection ended, as an error.
    fn disconnect_error(&self) -> crate::error::Error;
    /// The last lines the server wrote to stderr.
    fn stderr_tail(&self) -> String;
}

/// One request a reconnect sends to re-establish something of the old link.
pub(crate) struct Resumption {
    /// What it resumes (the app-server: a thread id), as the report names it.
    pub(crate) what: String,
    /// The request's method.
    pub(crate) method: &'static str,
    /// Its params.
    pub(crate) params: Box<RawValue>,
}

/// What the answer to a [`Resumption`] came to.
#[derive(Default)]
pub(crate) struct Resumed {
    /// Events that fill the gap the reconnect left, delivered before the live ones.
    pub(crate) events: Vec<Notification>,
    /// The turns these events end: `(thread, turn, status)`.
    pub(crate) ended: Vec<(String, String, String)>,
}

/// The handshake request of both protocols.
pub(crate) const INITIALIZE: &str = "initialize";

/// Where a notification goes after the rules' bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// To its turn stream, or to every subscription and the client's delivery.
    Deliver,
    /// Only to the call it belongs to (already handed over by the rules): subscriptions get
    /// it, the client's own delivery does not.
    CallOnly,
}

/// One protocol's rules on one connection (its state included).
pub(crate) trait Rules: Send + Sync + 'static {
    /// Whether every line carries `"jsonrpc":"2.0"`.
    fn jsonrpc_member(&self) -> bool;
    /// Whether an overload error (-32001) is retried (option `retry_*`).
    fn retries_overload(&self) -> bool;
    /// The notification (method and params) that tells the server the client gave up on its
    /// request `id` for `reason`; `None`: the protocol has none.
    fn cancelled(&self, id: i64, reason: &str) -> Option<(&'static str, Box<RawValue>)>;
    /// The params of the handshake request (the client's info and capabilities), sent on the
    /// first connect and every reconnect.
    fn initialize_params(&self) -> &RawValue;
    /// What a connect starts with; `restarted`: the server was started again after it
    /// ended during the first step ([`Negotiated::Restart`]).
    fn opening(&self, _restarted: bool) -> Opening {
        Opening::Send(INITIALIZE, self.initialize_params().to_owned())
    }
    /// Turn the connect's first step into the handshake's outcome (the protocol may send more
    /// requests through `h`, or ask for a restart).
    fn negotiate<'a>(&'a self, _h: &'a dyn Handshake, first: First) -> Step<'a, Negotiated> {
        Box::pin(async move {
            match first {
                First::Sent(_, rx) => Negotiated::Done(rx.await),
                First::Adopted => Negotiated::Done(Ok(Err(crate::error::Error::Protocol(
                    "nothing to adopt".into(),
                )))),
            }
        })
    }
    /// A server is started again ([`Negotiated::Restart`] with `why`): the log says so.
    fn restarting(&self, _why: &str) {}
    /// The outcome of the handshake after a restart (a failure may say why there was one).
    fn after_restart(&self, _h: &dyn Handshake, outcome: Outcome, _why: &str) -> Outcome {
        outcome
    }
    /// Check the handshake's result (first connect and every reconnect).
    fn check_handshake(&self, result: &Value) -> Result<()>;
    /// The handshake's result was checked (first connect and every reconnect): take note of
    /// what it says of the server (the app-server: its Codex version), reporting through
    /// `link`.
    fn handshaken(&self, _result: &Value, _link: &dyn Link) {}
    /// The transport opened a link; `cli_version`: the installed CLI's version, when the
    /// transport learned it (the Codex daemon's control socket).
    fn link_opened(&self, _cli_version: Option<String>) {}
    /// Why a request for `method` is refused before it is sent (the app-server: a method its
    /// version lacks), or `None`.
    fn refusal(&self, _method: &str) -> Option<crate::error::Error> {
        None
    }
    /// The notification that ends the handshake.
    fn initialized_method(&self) -> &'static str;
    /// Take note of a successful result of the client's request (`request_line`: the
    /// request as sent), for what a reconnect re-establishes.
    fn observe_result(&self, _method: &str, _request_line: &[u8], _result: &RawValue) {}
    /// Whether a notification about to be delivered is new: false when it repeats one
    /// delivered before a rejoin (it is dropped).
    fn admit(&self, _n: &Notification) -> bool {
        true
    }
    /// The requests a reconnect sends after its handshake to re-establish what the old link
    /// had (the app-server: resume each loaded thread).
    fn resumptions(&self) -> Vec<Resumption> {
        Vec::new()
    }
    /// What the answer to a resumption (what it resumed; `Err`: why it failed) came to:
    /// the events that fill the gap and what they end. `restarted`: the server is a new
    /// process. Runs on the reader, as the answer comes.
    fn resumed(
        &self,
        _what: &str,
        _outcome: std::result::Result<&Value, &str>,
        _restarted: bool,
    ) -> Resumed {
        Resumed::default()
    }
    /// A resumption failed: stop following what it resumed.
    fn resume_failed(&self, _what: &str) {}
    /// A notification about to be delivered (new, and after [`notified`](Self::notified)):
    /// the protocol's bookkeeping of what it reports, and whether it ends the stream open on
    /// its thread — `Some(unit)`, with the id of the unit of work it ends when it names one
    /// (a stream of another unit keeps its route); `None` (the default): it ends none.
    fn delivering(&self, _n: &Notification) -> Option<Option<String>> {
        None
    }
    /// The library's bookkeeping of a notification from the server, before it is delivered.
    fn notified(&self, method: &str, params: &RawValue, link: &dyn Link) -> Route;
    /// The result of a server request the library answers itself, or `None`: it is
    /// delivered. `handled`: whether a handler of the client takes it (the reader passes
    /// false: what the protocol answers on the wire, it answers before any handler).
    fn answers_itself(&self, method: &str, handled: bool) -> Option<Value>;
    /// A token in a request's params whose progress updates restart its timeout.
    fn progress_token(&self, params: &RawValue) -> Option<String>;
    /// Check (and take note of) a result of a request sent raw.
    fn check_result(&self, method: &str, params: &RawValue, result: &RawValue) -> Result<()>;
    /// The params of a request as sent, when the protocol adds to them (MCP 2026-07-28: the
    /// `_meta` envelope); `None`: as given.
    fn params_to_send(&self, _params: &RawValue) -> Result<Option<Box<RawValue>>> {
        Ok(None)
    }
    /// Whether the connection's handshake was the protocol's own instead of `initialize` (a
    /// stateless era): its result is not checked as an `initialize` result, and no
    /// `initialized` follows.
    fn stateless(&self) -> bool {
        false
    }
    /// The answer to a request the protocol answers without sending it (MCP 2026-07-28:
    /// `logging/setLevel` sets the envelope's level), or `None`: it is sent.
    fn answered_locally(&self, _method: &str, _params: &RawValue) -> Option<Result<Box<RawValue>>> {
        None
    }
    /// A fresh result kept for this request (served without sending it), if any.
    fn cached(&self, _method: &str, _params: &RawValue) -> Option<Box<RawValue>> {
        None
    }
    /// Keep a result for later requests, as its hints allow.
    fn keep(&self, _method: &str, _params: &RawValue, _result: &RawValue) {}
    /// A result that asks for input before the final one (parsed), or `None`: it is final.
    fn input_required(&self, _raw: &RawValue) -> Option<Value> {
        None
    }
    /// Drive a request `method` sent with `params` and answered `first` (a result that asked
    /// for input, see [`input_required`](Self::input_required)) to its final result.
    fn finish_rounds<'a>(
        &'a self,
        _link: &'a dyn Rounds,
        _method: &'a str,
        _params: Value,
        first: Value,
    ) -> Step<'a, Result<Value>> {
        Box::pin(async move { Ok(first) })
    }
    /// These rules as `Any`: a client reaches its own protocol's state through
    /// `SessionShared::rules_of`.
    fn as_any(&self) -> &dyn Any;
}

/// The rules of one connection with `opts`: the protocol its transport speaks, with these
/// options' values.
pub(crate) fn for_options(opts: &ClientOptions) -> Arc<dyn Rules> {
    match opts.transport.protocol() {
        Protocol::AppServer => Arc::new(app_server::AppServerRules::from_options(opts)),
        Protocol::Mcp => Arc::new(mcp::McpRules::from_options(opts)),
    }
}
