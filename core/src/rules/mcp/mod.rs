//! MCP's [`Rules`] and its per-connection state: JSON-RPC 2.0 lines, no overload retry
//! (-32001 means other things to MCP servers), `notifications/cancelled` for a request given
//! up, the `initialize` result's protocol version checked, `notifications/initialized`; the
//! reader's bookkeeping (a request withdrawn by `notifications/cancelled`, server log records,
//! `tools/list_changed`, completed URL elicitations, progress of the library's own calls);
//! `ping` and `roots/list` answered by the library; tool results checked against the listed
//! output schemas; in the 2026-07-28 era, the `_meta` envelope every request carries, the
//! results kept by their cache hints, and results that ask for input.

mod input_required;
pub(crate) mod log_level;
mod negotiate;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::any::Any;
use std::sync::{Arc, Mutex};

use super::handshake::client_info;
use super::{First, Handshake, Link, Negotiated, Opening, Outcome, Rounds, Route, Rules, Step};
use crate::error::{Error, Result};
use crate::message::request_id_param;
use crate::options::{ClientOptions, TransportKind, DEFAULT_INPUT_ROUNDS};
use crate::protocol::mcp::cache::Cache;
use crate::protocol::mcp::elicitation::{Completions, ELICITATION_COMPLETE};
use crate::protocol::mcp::era::{Envelope, EraMode, Prior};
use crate::protocol::mcp::output_schema::ToolSchemas;
use crate::protocol::mcp::{Root, TOOLS_LIST_CHANGED};

/// MCP on one connection: the rules, with the state the reader and the MCP client keep.
#[derive(Default)]
pub(crate) struct McpRules {
    /// Roots answered to `roots/list` (`None`: it is delivered, and refused when nobody
    /// answers): on the wire always; embedded in an input-required result, when no handler
    /// takes it (see `Rules::answers_itself`).
    roots: Option<Vec<Root>>,
    /// A progress update restarts its request's timeout (option `mcp_progress_resets_timeout`).
    progress_resets_timeout: bool,
    /// Tool results are checked against their output schemas (option `mcp_validate_output`).
    validate_output: bool,
    /// The output schemas of this connection's listed tools.
    pub(crate) tool_schemas: ToolSchemas,
    /// The URL-mode elicitations the server said are complete.
    pub(crate) elicitations: Completions,
    /// 2026-07-28: the `_meta` envelope every request carries (`None`: the handshake era).
    envelope: Mutex<Option<Arc<Envelope>>>,
    /// 2026-07-28: results kept by their cache hints (`None`: option `mcp_cache` off).
    cache: Option<Cache>,
    /// 2026-07-28: most rounds of a request whose results ask for input.
    input_rounds: usize,
    /// The params of `initialize` (and of the stateless envelope): the client's info and
    /// capabilities.
    init_params: Option<Box<RawValue>>,
    /// Which era to speak (option `mcp_protocol`).
    mode: EraMode,
    /// A remembered verdict (option `mcp_prior`).
    prior: Option<Prior>,
    /// Over stdio: a server that ended during the probe may be started again.
    over_stdio: bool,
    /// The server's program (stdio) or address, for the log (never its arguments).
    program: String,
}

impl McpRules {
    /// The rules of one connection with these options' values.
    pub(crate) fn from_options(opts: &ClientOptions) -> McpRules {
        let m = &opts.mcp;
        McpRules {
            roots: m.roots.clone(),
            progress_resets_timeout: m.progress_resets_timeout,
            validate_output: m.validate_output,
            cache: m.cache.then(Cache::default),
            input_rounds: match m.input_rounds {
                0 => DEFAULT_INPUT_ROUNDS,
                n => n,
            },
            init_params: Some(init_params(opts)),
            mode: m.protocol.clone(),
            prior: m.prior.clone(),
            over_stdio: matches!(opts.transport, TransportKind::McpStdio(_)),
            program: match &opts.transport {
                TransportKind::McpStdio(c) => c.program.display().to_string(),
                other => other.describe(),
            },
            ..McpRules::default()
        }
    }

    /// The params of `initialize`.
    pub(crate) fn init_params(&self) -> &RawValue {
        self.init_params.as_deref().expect("made by from_options")
    }

    /// Which era this connection speaks (option `mcp_protocol`).
    pub(crate) fn era_mode(&self) -> &EraMode {
        &self.mode
    }

    /// The remembered verdict (option `mcp_prior`).
    pub(crate) fn prior(&self) -> Option<&Prior> {
        self.prior.as_ref()
    }

    /// Whether the server is a program the library starts over stdio.
    pub(crate) fn restarts_over_stdio(&self) -> bool {
        self.over_stdio
    }

    /// The server's program or address, for the log.
    pub(crate) fn server_program(&self) -> &str {
        &self.program
    }

    /// Most rounds of a request whose results ask for input (option `mcp_input_rounds`).
    pub(crate) fn input_rounds(&self) -> usize {
        self.input_rounds
    }

    /// 2026-07-28: from now on every request carries `envelope` in `params._meta`.
    pub(crate) fn set_envelope(&self, envelope: Option<Envelope>) {
        *self.envelope.lock().unwrap() = envelope.map(Arc::new);
    }

    /// The `_meta` envelope requests carry (`None`: the handshake era).
    pub(crate) fn envelope(&self) -> Option<Arc<Envelope>> {
        self.envelope.lock().unwrap().clone()
    }

    /// Whether tool results are checked against their output schemas.
    pub(crate) fn validates_output(&self) -> bool {
        self.validate_output
    }
}

/// The params of MCP `initialize` with these options: the client's info and capabilities.
fn init_params(opts: &ClientOptions) -> Box<RawValue> {
    let params = crate::protocol::mcp::initialize_params(
        client_info(opts),
        opts.mcp.capabilities.clone(),
        opts.mcp.sampling_tools,
    );
    serde_json::value::to_raw_value(&params).expect("initialize params serialize")
}

impl Rules for McpRules {
    fn jsonrpc_member(&self) -> bool {
        true
    }
    fn retries_overload(&self) -> bool {
        false
    }
    fn cancelled(&self, id: i64, reason: &str) -> Option<(&'static str, Box<RawValue>)> {
        Some((
            "notifications/cancelled",
            crate::protocol::mcp::cancelled_params(id, reason),
        ))
    }
    fn check_handshake(&self, result: &Value) -> Result<()> {
        crate::protocol::mcp::check_initialize(result)
    }
    fn initialized_method(&self) -> &'static str {
        "notifications/initialized"
    }
    fn notified(&self, method: &str, params: &RawValue, link: &dyn Link) -> Route {
        if let Some(cache) = &self.cache {
            cache.notified(method, params);
        }
        match method {
            // The server withdrew a request of its own: an answer is no longer sent.
            "notifications/cancelled" => {
                if let Some(id) = request_id_param(params) {
                    link.request_withdrawn(&id);
                }
            }
            "notifications/message" => crate::protocol::mcp::log_server_message(params),
            // Delivered as well: the library only keeps what it needs.
            TOOLS_LIST_CHANGED => self.tool_schemas.invalidate(),
            ELICITATION_COMPLETE => self.elicitations.note(params),
            // Progress of a call made with a library token goes to that call only, and
            // restarts its timeout.
            "notifications/progress" => {
                if let Some(token) = crate::protocol::mcp::library_progress_token(params) {
                    link.request_progressed(&token);
                    return Route::CallOnly;
                }
                if let Some(token) = crate::protocol::mcp::progress_token(params) {
                    // A caller's own token (a raw request with `_meta.progressToken`): the
                    // update is the caller's, and restarts its request's timeout too.
                    link.request_progressed(&token);
                }
            }
            _ => {}
        }
        Route::Deliver
    }
    fn answers_itself(&self, method: &str, handled: bool) -> Option<Value> {
        match method {
            "ping" => Some(json!({})),
            "roots/list" if !handled => self.roots.as_ref().map(|roots| json!({ "roots": roots })),
            _ => None,
        }
    }
    fn progress_token(&self, params: &RawValue) -> Option<String> {
        if self.progress_resets_timeout {
            crate::protocol::mcp::request_progress_token(params)
        } else {
            None
        }
    }
    fn check_result(&self, method: &str, params: &RawValue, result: &RawValue) -> Result<()> {
        if !self.validate_output {
            return Ok(());
        }
        self.tool_schemas.check_raw(method, params, result)
    }
    fn params_to_send(&self, params: &RawValue) -> Result<Option<Box<RawValue>>> {
        let Some(env) = self.envelope() else {
            return Ok(None);
        };
        let mut v: Value = serde_json::from_str(params.get())
            .map_err(|e| Error::InvalidArgument(format!("params: {e}")))?;
        env.apply(&mut v);
        serde_json::value::to_raw_value(&v)
            .map(Some)
            .map_err(|e| Error::InvalidArgument(e.to_string()))
    }
    fn stateless(&self) -> bool {
        self.envelope.lock().unwrap().is_some()
    }
    fn answered_locally(&self, method: &str, params: &RawValue) -> Option<Result<Box<RawValue>>> {
        self.set_level_locally(method, params)
    }
    fn cached(&self, method: &str, params: &RawValue) -> Option<Box<RawValue>> {
        if !self.stateless() {
            return None;
        }
        self.cache.as_ref()?.get(method, params)
    }
    fn keep(&self, method: &str, params: &RawValue, result: &RawValue) {
        if let (Some(cache), true) = (&self.cache, self.stateless()) {
            cache.put(method, params, result);
        }
    }
    fn input_required(&self, raw: &RawValue) -> Option<Value> {
        if !raw.get().contains("input_required") || !self.stateless() {
            return None;
        }
        let v: Value = serde_json::from_str(raw.get()).ok()?;
        (crate::protocol::mcp::era::result_type(&v) == "input_required").then_some(v)
    }
    fn initialize_params(&self) -> &RawValue {
        self.init_params()
    }
    fn opening(&self, restarted: bool) -> Opening {
        self.opening_of(restarted)
    }
    fn negotiate<'a>(&'a self, h: &'a dyn Handshake, first: First) -> Step<'a, Negotiated> {
        Box::pin(self.negotiate_era(h, first))
    }
    fn restarting(&self, why: &str) {
        self.log_restart(why);
    }
    fn after_restart(&self, h: &dyn Handshake, outcome: Outcome, why: &str) -> Outcome {
        McpRules::outcome_after_restart(h, outcome, why)
    }
    fn finish_rounds<'a>(
        &'a self,
        link: &'a dyn Rounds,
        method: &'a str,
        params: Value,
        first: Value,
    ) -> Step<'a, Result<Value>> {
        Box::pin(self.continue_rounds(link, method, params, first))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
