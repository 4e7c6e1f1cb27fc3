//! The `Thread` handle: the common path of starting, resuming and running turns.

use serde_json::{json, Value};
use std::path::Path;

use crate::codex::thread_ref::ThreadRef;
use crate::codex::turn::{TurnResult, TurnStream};
use crate::codex::CodexClient;
use crate::connection::Client;
use crate::error::{Error, Result};
use crate::protocol::{methods, ClientMethod};
use crate::skills::{PreparedInput, Skill, SkillPlan};

/// User input of a turn: a list of input items (text, image URL, local image, ...).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
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
    /// Append a skill (app-server `skill` input item, Codex 0.169.0+): `name` and the path of
    /// its `SKILL.md`, as `skills/list` reports them. Codex injects the skill's instructions
    /// into the turn.
    pub fn and_skill(mut self, name: impl Into<String>, path: impl AsRef<Path>) -> Input {
        self.0.push(json!({
            "type": "skill",
            "name": name.into(),
            "path": path.as_ref().to_string_lossy(),
        }));
        self
    }
    /// Select a skill by name for the turn: resolved when the turn starts (through
    /// `skills/list`, or in the folders Codex searches when emulating); an unknown name fails
    /// the run with [`Error::InvalidArgument`] before anything is sent.
    pub fn and_skill_named(self, name: impl Into<String>) -> Input {
        self.and_skills([Skill::Name(name.into())])
    }
    /// Select a skill by path (a `SKILL.md` or its folder), read when the turn starts.
    pub fn and_skill_at(self, path: impl AsRef<Path>) -> Input {
        self.and_skills([Skill::Path(path.as_ref().to_path_buf())])
    }
    /// Select skills (by name or path, see [`Skill`]) for the turn. On an app-server that
    /// takes the `skill` input item they go natively (before the user's text) when Codex
    /// lists them (`skills/list`); elsewhere (exec, mcp, older servers, a path outside
    /// Codex's skill folders) each `SKILL.md` is injected before the user's text as a
    /// `<skill name=".." path=".." description=".." emulated="true">` block and listed in
    /// [`TurnResult::emulated_skills`]. A skill from an MCP server ([`Skill::Mcp`], text
    /// `name@label`) is loaded and verified when the turn starts and always goes as a block
    /// naming its server (`<skill name=".." server=".." uri=".." …>`). A missing or
    /// unreadable skill, or an unknown name,
    /// fails the run with [`Error::InvalidArgument`] before anything is sent.
    pub fn and_skills<S: Into<Skill>>(mut self, skills: impl IntoIterator<Item = S>) -> Input {
        self.0
            .extend(skills.into_iter().map(|s| s.into().to_item()));
        self
    }
    /// The JSON array sent as `input`.
    pub fn to_value(&self) -> Value {
        Value::Array(self.0.clone())
    }
    /// Input from JSON as bindings take it: a string (one text item), one input item (an
    /// object), or an array of strings and items. Anything else is
    /// [`Error::InvalidArgument`].
    pub fn from_value(value: Value) -> Result<Input> {
        let bad = |what: &str| {
            Error::InvalidArgument(format!(
                "turn input must be a string, an input item or a list of them, not {what}"
            ))
        };
        match value {
            Value::String(s) => Ok(Input::text(s)),
            Value::Object(_) => Ok(Input(vec![value])),
            Value::Array(items) => {
                items
                    .into_iter()
                    .try_fold(Input::default(), |input, item| match item {
                        Value::String(s) => Ok(input.and_text(s)),
                        Value::Object(_) => {
                            let mut input = input;
                            input.0.push(item);
                            Ok(input)
                        }
                        other => Err(bad(&format!("a list holding {other}"))),
                    })
            }
            other => Err(bad(&other.to_string())),
        }
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
#[non_exhaustive]
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

    /// The status's name: `unknown`, `idle`, `active`, `waitingForApproval`,
    /// `waitingForInput`, `systemError`, `notLoaded`, or the raw status JSON for a status this
    /// version does not know.
    pub fn name(&self) -> &str {
        match self {
            ThreadStatus::Unknown => "unknown",
            ThreadStatus::Idle => "idle",
            ThreadStatus::Active => "active",
            ThreadStatus::WaitingForApproval => "waitingForApproval",
            ThreadStatus::WaitingForInput => "waitingForInput",
            ThreadStatus::Error => "systemError",
            ThreadStatus::NotLoaded => "notLoaded",
            ThreadStatus::Other(raw) => raw,
        }
    }
}

impl std::fmt::Display for ThreadStatus {
    /// [`ThreadStatus::name`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The requests behind the convenience helpers that clients and bindings offer
/// (`thread_start`, `thread_read`, `model_list`, ...): each knows its method and builds its
/// params, so that a binding spells no method name nor field. The app-server twin of
/// [`McpRequest`](crate::mcp::McpRequest): one names the Codex client's requests, the other
/// the MCP client's, each by the snake_case name the bindings use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Helper {
    /// `thread/start`.
    ThreadStart,
    /// `thread/resume` (thread id).
    ThreadResume,
    /// `thread/fork` (thread id).
    ThreadFork,
    /// `thread/list`.
    ThreadList,
    /// `thread/read` (thread id; `arg`: include the turns, a bool).
    ThreadRead,
    /// `thread/archive` (thread id).
    ThreadArchive,
    /// `thread/unarchive` (thread id).
    ThreadUnarchive,
    /// `thread/compact/start` (thread id).
    ThreadCompactStart,
    /// `thread/name/set` (thread id; `arg`: the name).
    ThreadSetName,
    /// `command/exec` (`arg`: the argv list).
    CommandExec,
    /// `account/read`.
    AccountRead,
    /// `skills/list`.
    SkillsList,
    /// `model/list`.
    ModelList,
    /// `config/read`.
    ConfigRead,
    /// `config/batchWrite` (`arg`: the edits, `[{"keyPath", "value", "mergeStrategy"}…]`).
    ConfigBatchWrite,
    /// `review/start` (thread id; `arg`: the target, e.g. `{"type": "uncommittedChanges"}`).
    ReviewStart,
    /// `account/rateLimits/read`.
    AccountRateLimitsRead,
    /// `account/logout`.
    AccountLogout,
    /// `mcpServerStatus/list`.
    McpServerStatusList,
    /// `mcpServer/oauth/login` (`arg`: the MCP server's name in the config).
    McpServerOauthLogin,
    /// `feedback/upload` (`arg`: the classification, e.g. `"bug"`).
    FeedbackUpload,
}

impl Helper {
    pub(crate) const ALL: [(&'static str, Helper); 21] = [
        ("thread_start", Helper::ThreadStart),
        ("thread_resume", Helper::ThreadResume),
        ("thread_fork", Helper::ThreadFork),
        ("thread_list", Helper::ThreadList),
        ("thread_read", Helper::ThreadRead),
        ("thread_archive", Helper::ThreadArchive),
        ("thread_unarchive", Helper::ThreadUnarchive),
        ("thread_compact", Helper::ThreadCompactStart),
        ("thread_set_name", Helper::ThreadSetName),
        ("command_exec", Helper::CommandExec),
        ("account_read", Helper::AccountRead),
        ("skills_list", Helper::SkillsList),
        ("model_list", Helper::ModelList),
        ("config_read", Helper::ConfigRead),
        ("config_batch_write", Helper::ConfigBatchWrite),
        ("review_start", Helper::ReviewStart),
        ("account_rate_limits", Helper::AccountRateLimitsRead),
        ("account_logout", Helper::AccountLogout),
        ("mcp_server_status_list", Helper::McpServerStatusList),
        ("mcp_server_oauth_login", Helper::McpServerOauthLogin),
        ("feedback_upload", Helper::FeedbackUpload),
    ];

    /// The helper of a snake_case helper name: `thread_start`, `thread_resume`,
    /// `thread_fork`, `thread_list`, `thread_read`, `thread_archive`, `thread_unarchive`,
    /// `thread_compact`, `thread_set_name`, `command_exec`, `account_read`, `skills_list`,
    /// `model_list`, `config_read`, `config_batch_write`, `review_start`,
    /// `account_rate_limits`, `account_logout`, `mcp_server_status_list`,
    /// `mcp_server_oauth_login`, `feedback_upload`.
    pub fn from_name(name: &str) -> Option<Helper> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
    }

    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            Helper::ThreadStart => methods::ThreadStart::NAME,
            Helper::ThreadResume => methods::ThreadResume::NAME,
            Helper::ThreadFork => methods::ThreadFork::NAME,
            Helper::ThreadList => methods::ThreadList::NAME,
            Helper::ThreadRead => methods::ThreadRead::NAME,
            Helper::ThreadArchive => methods::ThreadArchive::NAME,
            Helper::ThreadUnarchive => methods::ThreadUnarchive::NAME,
            Helper::ThreadCompactStart => methods::ThreadCompactStart::NAME,
            Helper::ThreadSetName => methods::ThreadNameSet::NAME,
            Helper::CommandExec => methods::CommandExec::NAME,
            Helper::AccountRead => methods::AccountRead::NAME,
            Helper::SkillsList => methods::SkillsList::NAME,
            Helper::ModelList => methods::ModelList::NAME,
            Helper::ConfigRead => methods::ConfigRead::NAME,
            Helper::ConfigBatchWrite => methods::ConfigBatchWrite::NAME,
            Helper::ReviewStart => methods::ReviewStart::NAME,
            Helper::AccountRateLimitsRead => methods::AccountRateLimitsRead::NAME,
            Helper::AccountLogout => methods::AccountLogout::NAME,
            Helper::McpServerStatusList => methods::McpServerStatusList::NAME,
            Helper::McpServerOauthLogin => methods::McpServerOauthLogin::NAME,
            Helper::FeedbackUpload => methods::FeedbackUpload::NAME,
        }
    }

    /// Whether the helper acts on one thread (then [`params`](Self::params) needs its id).
    pub fn takes_thread(self) -> bool {
        matches!(
            self,
            Helper::ThreadResume
                | Helper::ThreadFork
                | Helper::ThreadRead
                | Helper::ThreadArchive
                | Helper::ThreadUnarchive
                | Helper::ThreadCompactStart
                | Helper::ThreadSetName
                | Helper::ReviewStart
        )
    }

    /// Whether the result carries a thread (`thread/start`, `resume`, `fork`): its id is
    /// [`thread_id_of`](crate::thread_id_of).
    pub fn opens_thread(self) -> bool {
        matches!(
            self,
            Helper::ThreadStart | Helper::ThreadResume | Helper::ThreadFork
        )
    }

    /// The params: `extra` (more params, an object or `Null`) with the helper's own
    /// arguments set over it: the thread id ([`takes_thread`](Self::takes_thread)) and `arg`
    /// where the helper takes one (see the variants; ignored by the others).
    pub fn params(self, thread_id: Option<&str>, arg: Value, extra: Value) -> Result<Value> {
        let mut params = if extra.is_null() { json!({}) } else { extra };
        let obj = params
            .as_object_mut()
            .ok_or_else(|| Error::InvalidArgument("params must be a JSON object".into()))?;
        if self.takes_thread() {
            let id = thread_id.ok_or_else(|| {
                Error::InvalidArgument(format!("{} needs a thread id", self.method()))
            })?;
            obj.insert("threadId".into(), Value::String(id.to_owned()));
        }
        let key = match self {
            Helper::ThreadRead => "includeTurns",
            Helper::ThreadSetName => "name",
            Helper::CommandExec => "command",
            Helper::ConfigBatchWrite => "edits",
            Helper::ReviewStart => "target",
            Helper::McpServerOauthLogin => "name",
            Helper::FeedbackUpload => "classification",
            _ => return Ok(params),
        };
        obj.insert(key.into(), arg);
        Ok(params)
    }
}

/// A conversation on the server. Cheap to clone; holds the client.
#[derive(Clone)]
pub struct Thread {
    client: Client,
    id: String,
    info: Value,
    /// The `thread/resume` params of its reference ([`Thread::reference`]).
    resume: serde_json::Map<String, Value>,
}

impl std::fmt::Debug for Thread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Thread").field("id", &self.id).finish()
    }
}

/// The thread the request with `params` opened, answered with `v`.
pub(crate) fn thread_from(client: &Client, params: &Value, v: Value) -> Result<Thread> {
    let r = ThreadRef::of_open(client.label(), params, &v)?;
    let info = v.get("thread").cloned().unwrap_or(Value::Null);
    Ok(Thread {
        client: client.clone(),
        id: r.thread_id,
        info,
        resume: r.resume,
    })
}

impl CodexClient {
    /// Send `helper`'s request (blocking).
    fn helper(&self, helper: Helper, thread_id: Option<&str>, params: Value) -> Result<Value> {
        let p = helper.params(thread_id, Value::Null, params)?;
        self.request_blocking(helper.method(), p)
    }
    /// Send `helper`'s request.
    async fn helper_async(
        &self,
        helper: Helper,
        thread_id: Option<&str>,
        params: Value,
    ) -> Result<Value> {
        let p = helper.params(thread_id, Value::Null, params)?;
        self.request(helper.method(), p).await
    }
    /// `thread/start` with the given params (`{}` for defaults) and a handle to the thread.
    pub fn thread_start(&self, params: Value) -> Result<Thread> {
        let r = self.helper(Helper::ThreadStart, None, params.clone())?;
        thread_from(self.connection(), &params, r)
    }
    /// Async form of [`thread_start`](Self::thread_start).
    pub async fn thread_start_async(&self, params: Value) -> Result<Thread> {
        let r = self
            .helper_async(Helper::ThreadStart, None, params.clone())
            .await?;
        thread_from(self.connection(), &params, r)
    }
    /// `thread/resume` of an existing thread (for example after a server restart).
    pub fn thread_resume(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let r = self.helper(Helper::ThreadResume, Some(thread_id), params.clone())?;
        thread_from(self.connection(), &params, r)
    }
    /// Async form of [`thread_resume`](Self::thread_resume).
    pub async fn thread_resume_async(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let r = self
            .helper_async(Helper::ThreadResume, Some(thread_id), params.clone())
            .await?;
        thread_from(self.connection(), &params, r)
    }
    /// `thread/fork`: a new thread with a copy of this one's history.
    pub fn thread_fork(&self, thread_id: &str, params: Value) -> Result<Thread> {
        let r = self.helper(Helper::ThreadFork, Some(thread_id), params.clone())?;
        thread_from(self.connection(), &params, r)
    }
    /// `config/batchWrite`: apply `edits` (`[{"keyPath", "value", "mergeStrategy"}…]`) to
    /// the server's `config.toml` (more params, such as `reloadUserConfig`, in `params`).
    pub fn config_batch_write(&self, edits: Value, params: Value) -> Result<Value> {
        let h = Helper::ConfigBatchWrite;
        self.request_blocking(h.method(), h.params(None, edits, params)?)
    }
    /// `mcpServerStatus/list`: the MCP servers configured in Codex and their state.
    pub fn mcp_server_status(&self, params: Value) -> Result<Value> {
        self.helper(Helper::McpServerStatusList, None, params)
    }
    /// `mcpServer/oauth/login`: start the OAuth login of the configured MCP server `name`
    /// (the result holds the `authorizationUrl` to open).
    pub fn mcp_server_oauth_login(&self, name: &str, params: Value) -> Result<Value> {
        let h = Helper::McpServerOauthLogin;
        self.request_blocking(h.method(), h.params(None, name.into(), params)?)
    }
    /// `feedback/upload`: send feedback of `classification` (`"bug"`, `"good_result"`, …)
    /// to OpenAI, with `params` such as `reason`, `threadId`, `includeLogs`.
    pub fn feedback_upload(&self, classification: &str, params: Value) -> Result<Value> {
        let h = Helper::FeedbackUpload;
        self.request_blocking(h.method(), h.params(None, classification.into(), params)?)
    }
    /// A handle to a thread known by id, without a round trip.
    pub fn thread(&self, thread_id: &str) -> Thread {
        Thread {
            client: self.connection().clone(),
            id: thread_id.to_owned(),
            info: Value::Null,
            resume: serde_json::Map::new(),
        }
    }
}

impl Thread {
    /// The thread id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The `thread` object the server returned when this handle was made (`Null` for
    /// [`CodexClient::thread`](crate::CodexClient::thread)).
    pub fn info(&self) -> &Value {
        &self.info
    }
    /// The client this thread belongs to.
    pub fn client(&self) -> &Client {
        &self.client
    }
    /// The `thread/resume` params of this thread's reference.
    pub(crate) fn resume_settings(&self) -> &serde_json::Map<String, Value> {
        &self.resume
    }

    /// The plan of `input`'s skills for a turn with `overrides` (their `cwd`, else the
    /// thread's, else the client's).
    fn skill_plan(&self, input: Input, overrides: &Value) -> Result<SkillPlan> {
        let cwd = [&overrides["cwd"], &self.info["cwd"]]
            .into_iter()
            .find_map(|v| v.as_str().map(std::path::PathBuf::from))
            .or_else(|| self.client.options().cwd.clone());
        SkillPlan::new(&self.client, input.0, cwd)
    }
    /// `input` ready for `turn/start` on this thread with `overrides`: skills checked and
    /// resolved (see [`Input::and_skills`]), natively or emulated. For callers that send
    /// `turn/start` themselves ([`TurnStream::start_request`]). Blocking (one `skills/list`
    /// round trip when the input selects skills on a native server; the requests to an MCP
    /// server that loads a skill of it).
    pub fn prepare_input(
        &self,
        input: impl Into<Input>,
        overrides: &Value,
    ) -> Result<PreparedInput> {
        self.client
            .block_on(self.prepare_input_async(input, overrides))
    }
    /// Async form of [`prepare_input`](Self::prepare_input).
    pub async fn prepare_input_async(
        &self,
        input: impl Into<Input>,
        overrides: &Value,
    ) -> Result<PreparedInput> {
        let mut plan = self.skill_plan(input.into(), overrides)?;
        plan.load_mcp(&self.client).await?;
        let listing = match plan.listing_request() {
            Some((method, params)) => Some(self.client.request(method, params).await?),
            None => None,
        };
        plan.finish(listing.as_ref())
    }

    /// Start a turn and stream its events. `overrides` are extra `turn/start` params (model,
    /// effort, sandboxPolicy, approvalPolicy, cwd, outputSchema, ...; `Null` for none).
    /// Skills in `input` are resolved first (see [`Input::and_skills`]).
    pub fn run_streamed_with(
        &self,
        input: impl Into<Input>,
        overrides: Value,
    ) -> Result<TurnStream> {
        let prepared = self.prepare_input(input, &overrides)?;
        let (_, params) =
            TurnStream::start_request(&self.id, Value::Array(prepared.items), overrides)?;
        let mut stream = TurnStream::start(&self.client, &self.id, params)?;
        stream.set_emulated_skills(prepared.emulated_skills);
        Ok(stream)
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
        let prepared = self.prepare_input_async(input, &overrides).await?;
        let (_, params) =
            TurnStream::start_request(&self.id, Value::Array(prepared.items), overrides)?;
        let mut stream = TurnStream::start_async(&self.client, &self.id, params).await?;
        stream.set_emulated_skills(prepared.emulated_skills);
        Ok(stream)
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
        match self.client.live_session().ok().and_then(|s| {
            s.rules_of::<crate::rules::app_server::AppServerRules>()?
                .thread_status(&self.id)
        }) {
            Some(v) => ThreadStatus::from_server(&v),
            None => ThreadStatus::Unknown,
        }
    }

    fn call(&self, helper: Helper, arg: Value) -> Result<Value> {
        let params = helper.params(Some(&self.id), arg, Value::Null)?;
        self.client.request_blocking(helper.method(), params)
    }
    /// `thread/read` (with `includeTurns`).
    pub fn read(&self, include_turns: bool) -> Result<Value> {
        self.call(Helper::ThreadRead, include_turns.into())
    }
    /// `thread/archive`.
    pub fn archive(&self) -> Result<()> {
        self.call(Helper::ThreadArchive, Value::Null).map(|_| ())
    }
    /// `thread/unarchive`.
    pub fn unarchive(&self) -> Result<()> {
        self.call(Helper::ThreadUnarchive, Value::Null).map(|_| ())
    }
    /// `thread/name/set`.
    pub fn set_name(&self, name: &str) -> Result<()> {
        self.call(Helper::ThreadSetName, name.into()).map(|_| ())
    }
    /// `thread/compact/start`: ask the server to compact the history.
    pub fn compact_start(&self) -> Result<()> {
        self.call(Helper::ThreadCompactStart, Value::Null)
            .map(|_| ())
    }
    /// `review/start` on this thread: a review turn of `target` (for example
    /// `{"type": "uncommittedChanges"}`, `{"type": "baseBranch", "branch": "main"}`); returns
    /// the result (`turn`, `reviewThreadId`). Follow the turn like any other.
    pub fn review_start(&self, target: Value) -> Result<Value> {
        self.call(Helper::ReviewStart, target)
    }
    /// `thread/fork` of this thread.
    pub fn fork(&self, params: Value) -> Result<Thread> {
        CodexClient::from_connection(&self.client).thread_fork(&self.id, params)
    }
}

impl Thread {
    /// This thread's reference: its client's label, its id and the `thread/resume` params
    /// that reattach it as it was opened (see [`ThreadRef::of_open`]; a handle made by
    /// [`CodexClient::thread`] has none). Serialise it to hand the thread to another process;
    /// resume it there with [`CodexClient::thread_resume_ref`].
    pub fn reference(&self) -> ThreadRef {
        ThreadRef::new(
            self.client().label(),
            self.id(),
            self.resume_settings().clone(),
        )
    }
}

impl CodexClient {
    /// `thread/resume` of the thread `r` names, with its resume params and `overrides` (an
    /// object, or `Null`) on top: on this client, whatever endpoint `r` names (a thread
    /// lives in its `CODEX_HOME`: any server of that home can resume it). Blocking.
    pub fn thread_resume_ref(&self, r: &ThreadRef, overrides: Value) -> Result<Thread> {
        let params = r.resume_params(&overrides)?;
        self.thread_resume(&r.thread_id, params)
    }

    /// Async form of [`thread_resume_ref`](Self::thread_resume_ref).
    pub async fn thread_resume_ref_async(&self, r: &ThreadRef, overrides: Value) -> Result<Thread> {
        let params = r.resume_params(&overrides)?;
        self.thread_resume_async(&r.thread_id, params).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codex::thread_ref::thread_id_of;

    #[test]
    fn helpers_build_their_method_and_params() {
        let read = Helper::from_name("thread_read").unwrap();
        assert_eq!(read.method(), "thread/read");
        assert_eq!(
            read.params(Some("t1"), true.into(), json!({"x": 1}))
                .unwrap(),
            json!({"threadId": "t1", "includeTurns": true, "x": 1})
        );
        assert!(read.params(None, true.into(), Value::Null).is_err());
        let name = Helper::from_name("thread_set_name").unwrap();
        assert_eq!(name.method(), "thread/name/set");
        assert_eq!(
            name.params(Some("t1"), "n".into(), Value::Null).unwrap(),
            json!({"threadId": "t1", "name": "n"})
        );
        let exec = Helper::from_name("command_exec").unwrap();
        assert_eq!(
            exec.params(None, json!(["ls"]), json!({"cwd": "/"}))
                .unwrap(),
            json!({"command": ["ls"], "cwd": "/"})
        );
        let start = Helper::from_name("thread_start").unwrap();
        assert!(start.opens_thread() && !start.takes_thread());
        assert_eq!(
            start
                .params(Some("ignored"), Value::Null, Value::Null)
                .unwrap(),
            json!({})
        );
        assert!(start.params(None, Value::Null, json!([1])).is_err());
        assert_eq!(
            Helper::from_name("thread_compact").unwrap().method(),
            "thread/compact/start"
        );
        for (n, h) in Helper::ALL {
            assert_eq!(Helper::from_name(n), Some(h));
            assert!(!h.method().is_empty());
        }
        assert_eq!(Helper::from_name("thread/start"), None);
        assert_eq!(
            thread_id_of(&json!({"thread": {"id": "t9"}})).unwrap(),
            "t9"
        );
        assert!(matches!(
            thread_id_of(&json!({"thread": {}})),
            Err(Error::Protocol(_))
        ));
    }

    #[test]
    fn status_names_and_input_from_json() {
        let names: Vec<String> = [
            json!({"type": "idle"}),
            json!({"type": "active", "activeFlags": []}),
            json!({"type": "active", "activeFlags": ["waitingOnApproval"]}),
            json!({"type": "active", "activeFlags": ["waitingOnUserInput"]}),
            json!({"type": "systemError"}),
            json!({"type": "notLoaded"}),
            json!({"type": "new"}),
        ]
        .iter()
        .map(|v| ThreadStatus::from_server(v).to_string())
        .collect();
        assert_eq!(
            names,
            [
                "idle",
                "active",
                "waitingForApproval",
                "waitingForInput",
                "systemError",
                "notLoaded",
                r#"{"type":"new"}"#
            ]
        );
        assert_eq!(ThreadStatus::Unknown.name(), "unknown");

        assert_eq!(Input::from_value(json!("hi")).unwrap(), Input::text("hi"));
        let img = json!({"type": "image", "url": "u"});
        assert_eq!(
            Input::from_value(img.clone()).unwrap(),
            Input(vec![img.clone()])
        );
        assert_eq!(
            Input::from_value(json!(["a", img])).unwrap(),
            Input::text("a").and_image_url("u")
        );
        for bad in [json!(1), json!(null), json!(["a", 2])] {
            assert!(matches!(
                Input::from_value(bad),
                Err(Error::InvalidArgument(_))
            ));
        }
    }
}
