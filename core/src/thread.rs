//! The `Thread` handle: the common path of starting, resuming and running turns.

use serde_json::{json, Value};
use std::path::Path;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::turn::{TurnResult, TurnStream};

/// User input of a turn: a list of input items (text, image URL, local image, ...).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input(pub Vec<Value>);

impl Input {
    /// Input made of one text item.
    pub fn text(text: impl Into<String>) -> Input {
        Input::default().and_text(text)
    }
    /// Append a text item.
    pub fn and_text(mut self, text: impl Into<String>) -> Input {
        self.0
            .push(json!({"type": "text", "text": text.into(), "text_elements": []}));
        self
    }
    /// Append an image given by URL (`https://` or `data:` URL).
    pub fn and_image_url(mut self, url: impl Into<String>) -> Input {
        self.0.push(json!({"type": "image", "url": url.into()}));
        self
    }
    /// Append a local image file.
    pub fn and_local_image(mut self, path: impl AsRef<Path>) -> Input {
        self.0
            .push(json!({"type": "localImage", "path": path.as_ref().to_string_lossy()}));
        self
    }
    /// The JSON array sent as `input`.
    pub fn to_value(&self) -> Value {
        Value::Array(self.0.clone())
    }
}

impl From<&str> for Input {
    fn from(s: &str) -> Input {
        Input::text(s)
    }
}

impl From<String> for Input {
    fn from(s: String) -> Input {
        Input::text(s)
    }
}

/// The status of a thread, derived from the server's `thread/status/changed` events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadStatus {
    /// No status event seen yet for this thread on this connection.
    Unknown,
    /// Loaded, no turn running.
    Idle,
    /// A turn is running.
    Active,
    /// A turn waits for an approval answer.
    WaitingForApproval,
    /// A turn waits for user input.
    WaitingForInput,
    /// The thread hit an unrecovered error.
    Error,
    /// The thread is not loaded on the server.
    NotLoaded,
    /// A status this version does not know (raw JSON kept).
    Other(String),
}

impl ThreadStatus {
    /// Map the server's status object (`{"type": ..., "activeFlags": [...]}`).
    pub fn from_server(status: &Value) -> ThreadStatus {
        let flags: Vec<&str> = status["activeFlags"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match status["type"].as_str() {
            Some("idle") => ThreadStatus::Idle,
            Some("active") if flags.contains(&"waitingOnApproval") => {
                ThreadStatus::WaitingForApproval
            }
            Some("active") if flags.contains(&"waitingOnUserInput") => {
                ThreadStatus::WaitingForInput
            }
            Some("active") => ThreadStatus::Active,
            Some("systemError") => ThreadStatus::Error,
            Some("notLoaded") => ThreadStatus::NotLoaded,
            _ => ThreadStatus::Other(status.to_string()),
        }
    }
}

/// A conversation on the server. Cheap to clone; holds the client.
#[derive(Clone)]
pub struct Thread {
    client: Client,
    id: String,
    info: Value,
}

impl std::fmt::Debug for Thread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Thread").field("id", &self.id).finish()
    }
}

fn thread_from(client: &Client, v: Value) -> Result<Thread> {
    let info = v.get("thread").cloned().unwrap_or(Value::Null);
    let id = info["id"]
        .as_str()
        .ok_or_else(|| Error::Protocol(format!("result has no thread id: {v}")))?
        .to_owned();
    Ok(Thread {
        client: client.clone(),
        id,
        info,
    })
}

fn with_thread_id(thread_id: &str, params: Value) -> Result<Value> {
    let mut params = if params.is_null() { json!({}) } else { params };
    params
        .as_object_mut()
        .ok_or_else(|| Error::InvalidArgument("params must be a JSON object".into()))?
        .insert("threadId".into(), Value::String(thread_id.to_owned()));
    Ok(params)
}

impl Client {
    /// `thread/start` with the given params (`{}` for defaults) and a handle to the thread.
    pub fn thread_start(&self, params: Value) -> Result<Thread> {
        thread_from(self, self.request_blocking("thread/start", params)?)
    }
    /// Async form of [`thread_start`](Self::thread_start).
    pub async fn thread_start_async(&self, params: Value) -> Result<Thread> {
        thread_from(self, self.request("thread/start", params).await?)
    }
    /// `thread/resume` of an existing thread (for example after a server restart).
    pub fn thread_resume(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let p = with_thread_id(thread_id, params)?;
        thread_from(self, self.request_blocking("thread/resume", p)?)
    }
    /// Async form of [`thread_resume`](Self::thread_resume).
    pub async fn thread_resume_async(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let p = with_thread_id(thread_id, params)?;
        thread_from(self, self.request("thread/resume", p).await?)
    }
    /// `thread/fork`: a new thread with a copy of this one's history.
    pub fn thread_fork(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let p = with_thread_id(thread_id, params)?;
        thread_from(self, self.request_blocking("thread/fork", p)?)
    }
    /// A handle to a thread known by id, without a round trip.
    pub fn thread(&self, thread_id: &str) -> Thread {
        Thread {
            client: self.clone(),
            id: thread_id.to_owned(),
            info: Value::Null,
        }
    }
}

impl Thread {
    /// The thread id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The `thread` object the server returned when this handle was made (`Null` for
    /// [`Client::thread`]).
    pub fn info(&self) -> &Value {
        &self.info
    }
    /// The client this thread belongs to.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Start a turn and stream its events. `overrides` are extra `turn/start` params (model,
    /// effort, sandboxPolicy, approvalPolicy, cwd, outputSchema, ...; `Null` for none).
    pub fn run_streamed_with(
        &self,
        input: impl Into<Input>,
        overrides: Value,
    ) -> Result<TurnStream> {
        let mut params = if overrides.is_null() {
            json!({})
        } else {
            overrides
        };
        params
            .as_object_mut()
            .ok_or_else(|| Error::InvalidArgument("turn overrides must be a JSON object".into()))?
            .insert("input".into(), input.into().to_value());
        TurnStream::start(&self.client, &self.id, params)
    }
    /// Start a turn and stream its events.
    pub fn run_streamed(&self, input: impl Into<Input>) -> Result<TurnStream> {
        self.run_streamed_with(input, Value::Null)
    }
    /// Async form of [`run_streamed_with`](Self::run_streamed_with).
    pub async fn run_streamed_with_async(
        &self,
        input: impl Into<Input>,
        overrides: Value,
    ) -> Result<TurnStream> {
        let mut params = if overrides.is_null() {
            json!({})
        } else {
            overrides
        };
        params
            .as_object_mut()
            .ok_or_else(|| Error::InvalidArgument("turn overrides must be a JSON object".into()))?
            .insert("input".into(), input.into().to_value());
        TurnStream::start_async(&self.client, &self.id, params).await
    }
    /// Run a turn to its end and return the result. Server requests of the turn go to the
    /// handlers registered on the client; without one they are declined.
    pub fn run(&self, input: impl Into<Input>) -> Result<TurnResult> {
        self.run_streamed(input)?.finish()
    }
    /// [`run`](Self::run) with `turn/start` overrides.
    pub fn run_with(&self, input: impl Into<Input>, overrides: Value) -> Result<TurnResult> {
        self.run_streamed_with(input, overrides)?.finish()
    }
    /// Async form of [`run_with`](Self::run_with).
    pub async fn run_async(&self, input: impl Into<Input>, overrides: Value) -> Result<TurnResult> {
        use futures_util::StreamExt;
        let mut stream = self.run_streamed_with_async(input, overrides).await?;
        while let Some(ev) = stream.next().await {
            drop(ev);
        }
        stream.into_result()
    }

    /// The thread's status, derived from the server's `thread/status/changed` events.
    pub fn status(&self) -> ThreadStatus {
        match self
            .client
            .live_session()
            .ok()
            .and_then(|s| s.router.status(&self.id))
        {
            Some(v) => ThreadStatus::from_server(&v),
            None => ThreadStatus::Unknown,
        }
    }

    fn call(&self, method: &str, params: Value) -> Result<Value> {
        self.client
            .request_blocking(method, with_thread_id(&self.id, params)?)
    }
    /// `thread/read` (with `includeTurns`).
    pub fn read(&self, include_turns: bool) -> Result<Value> {
        self.call("thread/read", json!({"includeTurns": include_turns}))
    }
    /// `thread/archive`.
    pub fn archive(&self) -> Result<()> {
        self.call("thread/archive", json!({})).map(|_| ())
    }
    /// `thread/unarchive`.
    pub fn unarchive(&self) -> Result<()> {
        self.call("thread/unarchive", json!({})).map(|_| ())
    }
    /// `thread/name/set`.
    pub fn set_name(&self, name: &str) -> Result<()> {
        self.call("thread/name/set", json!({"name": name}))
            .map(|_| ())
    }
    /// `thread/compact/start`: ask the server to compact the history.
    pub fn compact_start(&self) -> Result<()> {
        self.call("thread/compact/start", json!({})).map(|_| ())
    }
    /// `thread/fork` of this thread.
    pub fn fork(&self, params: Value) -> Result<Thread> {
        self.client.thread_fork(&self.id, params)
    }
}
