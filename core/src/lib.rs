//! `codex-client`: a native client for OpenAI Codex's agent runtime.
//!
//! It spawns `codex app-server`, speaks its JSON-RPC protocol (one JSON object per line),
//! correlates responses, delivers notifications and server-to-client requests, and keeps
//! every call bounded: requests time out (default 300 s), overload errors (`-32001`) are
//! retried with jittered exponential backoff, and a dead server fails every pending request
//! at once with the tail of its stderr.
//!
//! [`Client`] is the protocol-neutral connection (connect, raw requests, handlers, events,
//! subscriptions, reconnect); [`CodexClient`] (threads, turns, approvals, login, typed
//! app-server calls) and [`McpClient`] (tools, resources, prompts, tasks, skills over MCP) are
//! the two protocols' views of one connection.
//!
//! ```no_run
//! use codex_client::{Client, ClientOptions};
//! let client = Client::new(ClientOptions::default().codex_home("/tmp/codex-home"));
//! client.on_notification(|n| println!("{} {}", n.method, n.params_json())).unwrap();
//! let init = client.connect().unwrap();
//! println!("connected to {:?}", init.user_agent);
//! let thread = client.request_blocking("thread/start", serde_json::json!({})).unwrap();
//! println!("{thread}");
//! client.disconnect();
//! ```
#![warn(missing_docs)]

#[cfg(feature = "mcp-http")]
pub mod auth;
pub mod codex;
pub use codex::account;
pub mod compat;
mod connection;
mod correlation;
/// Delivery internals the bindings build on (their executors, bounded waits); not part of
/// the stable API: [`EventReceiver`] and the handler types are re-exported at the root.
#[doc(hidden)]
pub mod delivery;
mod error;
mod event;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod log;
pub mod mcp;
mod message;
pub mod options;
mod params;
pub mod pool;
pub mod protocol;
mod responder;
/// The library's runtime (its task counter and panic text for the bindings and the leak
/// tests); not part of the stable API.
#[doc(hidden)]
pub mod rt;
mod rules;
mod scan;
mod secret;
pub use secret::Secret;
mod serial;
mod session;
mod skills;
mod transport;
pub mod version;
mod views;

pub use codex::thread::{Helper, Input, Thread, ThreadStatus};
pub use codex::thread_ref::{thread_id_of, ThreadRef};
pub use codex::turn::{turn_id_of, TurnBounds, TurnIter, TurnResult, TurnStream};
pub use codex::typed::TypedRequest;
pub use codex::CodexClient;
pub use connection::{Client, HandlerSlot, InitializeResult, WeakClient};
pub use delivery::dispatch::{
    on_dispatch_thread, ConnectionHandler, EventHandler, Kept, NotificationHandler,
    ResponseHandler, ServerRequestHandler,
};
pub use delivery::{mark_event_delivery_thread, EventReceiver};
pub use error::{
    DisconnectInfo, Error, ErrorKind, ErrorKindMap, OutputSchemaMismatch, Result, RpcError,
    UnsupportedByVersion, UrlElicitationRequired, OVERLOADED_CODE, URL_ELICITATION_REQUIRED_CODE,
};
pub use event::{
    approval_answer, execpolicy_amendment_answer, fail_closed_answer, is_approval, Attachment,
    ConnectionEvent, Decision, Event, Notification, NotificationKind, ReconnectAttempt, Rejoined,
    RequestRef, Response, ServerRequest,
};
pub use mcp::McpClient;
pub use message::RequestId;
pub use options::{
    ClientOptions, Delivery, ExecOptions, Heartbeat, McpCommand, McpHttp, McpOptions,
    OptionsBuilder, Protocol, ReconnectPolicy, RequestOptions, RetryPolicy, SignedBearerToken,
    SkillEmulation, TlsOptions, TransportKind, WsAuth, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_EVENT_QUEUE_CAPACITY, DEFAULT_MAX_LINE_BYTES, DEFAULT_PARKED_REQUEST_TIMEOUT,
    DEFAULT_READ_AHEAD_BYTES, DEFAULT_TIMEOUT, DEFAULT_WS_TOKEN_LIFETIME,
};
pub use pool::{EndpointOptions, EndpointStatus, Pool, PoolEvent, PoolEvents, PoolOptions};
pub use serial::EventView;
pub use skills::{
    native_skill_input, PreparedInput, Skill, SkillInfo, SkillPlan, NATIVE_SKILL_INPUT_SINCE,
};
pub use version::{ServerVersion, VersionSource, WindowPosition};

/// The old name of [`EventReceiver`].
#[deprecated(since = "0.1.0", note = "renamed to `EventReceiver`")]
pub type EventStream = EventReceiver;
