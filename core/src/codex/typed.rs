//! The typed layer over the raw client: typed calls ([`Client::call`]), typed views of
//! notifications and server requests, and typed server-request handlers.
//!
//! Everything here is built on the raw API (`request`, `on_server_request`); both stay
//! available. Types come from [`crate::protocol`], generated from the Codex schema.

use serde::Serialize;
use serde_json::value::RawValue;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::codex::CodexClient;
use crate::delivery::dispatch::ServerRequestHandler;
use crate::error::{Error, Result};
use crate::event::{Notification, ServerRequest};
use crate::options::RequestOptions;
use crate::protocol::{
    experimental_reason, server_requests, ClientMethod, CommandExecutionApprovalDecision,
    CommandExecutionRequestApprovalParams, CommandExecutionRequestApprovalResponse,
    FileChangeApprovalDecision, FileChangeRequestApprovalParams, FileChangeRequestApprovalResponse,
    NetworkPolicyAmendment, NetworkPolicyRuleAction, ReviewDecision, ServerNotification,
    ServerRequestKind, ServerRequestMethod,
};

impl CodexClient {
    fn typed_params<M: ClientMethod>(&self, params: &M::Params) -> Result<Box<RawValue>> {
        if !self.options().experimental_api {
            if let Some(what) = experimental_reason::<M>(params) {
                return Err(Error::InvalidState(format!(
                    "{what} requires the experimentalApi capability; set \
                     ClientOptions::experimental_api(true) to use experimental methods and fields"
                )));
            }
        }
        serde_json::value::to_raw_value(params).map_err(|e| Error::InvalidArgument(e.to_string()))
    }

    fn typed_result<M: ClientMethod>(raw: &RawValue) -> Result<M::Response> {
        serde_json::from_str(raw.get()).map_err(|e| {
            Error::Protocol(format!(
                "`{}` result does not match the schema: {e}",
                M::NAME
            ))
        })
    }

    /// Typed call of method `M` (a marker from [`crate::protocol::methods`]), blocking.
    ///
    /// ```no_run
    /// # use codex_client::{ClientOptions, CodexClient, protocol::{methods, ModelListParams}};
    /// # let client = CodexClient::new(ClientOptions::default());
    /// let models = client.call::<methods::ModelList>(ModelListParams::default())?;
    /// # Ok::<(), codex_client::Error>(())
    /// ```
    ///
    /// An experimental method, or a params value with experimental fields set, is refused with
    /// [`Error::InvalidState`] (no round trip) unless the client was created with
    /// `experimental_api(true)`, which negotiates the `experimentalApi` capability.
    pub fn call<M: ClientMethod>(&self, params: M::Params) -> Result<M::Response> {
        self.call_with::<M>(params, RequestOptions::default())
    }

    /// [`call`](Self::call) with per-request options (timeout, retry).
    pub fn call_with<M: ClientMethod>(
        &self,
        params: M::Params,
        opts: RequestOptions,
    ) -> Result<M::Response> {
        let raw = self.typed_params::<M>(&params)?;
        let result = self.request_raw_blocking(M::NAME, &raw, opts)?;
        Self::typed_result::<M>(&result)
    }

    /// Async form of [`call`](Self::call). Works on any executor.
    pub async fn call_async<M: ClientMethod>(&self, params: M::Params) -> Result<M::Response> {
        self.call_async_with::<M>(params, RequestOptions::default())
            .await
    }

    /// Async form of [`call_with`](Self::call_with).
    pub async fn call_async_with<M: ClientMethod>(
        &self,
        params: M::Params,
        opts: RequestOptions,
    ) -> Result<M::Response> {
        let raw = self.typed_params::<M>(&params)?;
        let result = self.request_raw(M::NAME, &raw, opts).await?;
        Self::typed_result::<M>(&result)
    }

    /// Register a typed handler for server requests of method `M` (a marker from
    /// [`crate::protocol::server_requests`]). It replaces an earlier handler for `M` and takes
    /// precedence over [`on_server_request`](crate::Client::on_server_request) for that method.
    ///
    /// The handler owns the [`TypedRequest`]: it answers now with
    /// [`respond`](TypedRequest::respond), or keeps it and answers later from any thread.
    /// Dropped unanswered (also when the handler panics), the request is answered fail-closed
    /// (approvals declined). Params that do not match the schema are reported as a connection
    /// error event and the request is answered fail-closed. Runs on the dispatch thread (poll
    /// mode: in [`dispatch_events`](crate::Client::dispatch_events)).
    pub fn on_request<M>(&self, f: impl Fn(TypedRequest<M>) + Send + Sync + 'static) -> Result<()>
    where
        M: ServerRequestMethod + 'static,
    {
        let h = self.typed_handler::<M>(f);
        self.connection()
            .handlers()
            .by_method
            .write()
            .unwrap()
            .insert(M::NAME.to_owned(), h);
        Ok(())
    }

    /// Wrap a typed handler into the raw handler the dispatcher calls.
    fn typed_handler<M>(
        &self,
        f: impl Fn(TypedRequest<M>) + Send + Sync + 'static,
    ) -> ServerRequestHandler
    where
        M: ServerRequestMethod + 'static,
    {
        let handlers = Arc::downgrade(self.connection().handlers());
        Arc::new(
            move |req: ServerRequest| match req.params_as::<M::Params>() {
                Ok(params) => f(TypedRequest {
                    params,
                    request: req,
                    _method: PhantomData,
                }),
                Err(e) => {
                    if let Some(h) = handlers.upgrade() {
                        h.report_error(format!(
                            "server request `{}` does not match the schema ({e}); answered \
                         fail-closed",
                            M::NAME
                        ));
                    }
                    let _ = req.respond_fail_closed();
                }
            },
        )
    }

    /// Register a typed handler for server requests of method `M` on one thread only. It takes
    /// precedence over the client-wide handlers for that thread. See
    /// [`Thread::on_request`](crate::Thread::on_request).
    pub fn on_thread_request<M>(
        &self,
        thread_id: &str,
        f: impl Fn(TypedRequest<M>) + Send + Sync + 'static,
    ) -> Result<()>
    where
        M: ServerRequestMethod + 'static,
    {
        let h = self.typed_handler::<M>(f);
        self.connection()
            .handlers()
            .by_thread
            .write()
            .unwrap()
            .insert((thread_id.to_owned(), M::NAME.to_owned()), h);
        Ok(())
    }

    /// Remove every per-thread handler of `thread_id`.
    pub fn clear_thread_handlers(&self, thread_id: &str) {
        self.connection()
            .handlers()
            .by_thread
            .write()
            .unwrap()
            .retain(|(t, _), _| t != thread_id);
    }

    /// Answer command approvals (`item/commandExecution/requestApproval`) with the decision
    /// `f` returns. A panic in `f` declines. For an answer given later, use
    /// [`on_request`](Self::on_request)`::<server_requests::ItemCommandExecutionRequestApproval>`.
    pub fn on_command_approval(
        &self,
        f: impl Fn(&CommandExecutionRequestApprovalParams) -> CommandExecutionApprovalDecision
            + Send
            + Sync
            + 'static,
    ) -> Result<()> {
        self.on_request::<server_requests::ItemCommandExecutionRequestApproval>(
            command_approval_handler(f),
        )
    }

    /// Answer file-change approvals (`item/fileChange/requestApproval`) with the decision `f`
    /// returns. A panic in `f` declines.
    pub fn on_file_change_approval(
        &self,
        f: impl Fn(&FileChangeRequestApprovalParams) -> FileChangeApprovalDecision
            + Send
            + Sync
            + 'static,
    ) -> Result<()> {
        self.on_request::<server_requests::ItemFileChangeRequestApproval>(move |req| {
            let decision = f(&req.params);
            req.respond_logged(FileChangeRequestApprovalResponse {
                decision,
                extra: Default::default(),
            });
        })
    }
}

/// A server request of method `M` with parsed params and its responder.
///
/// Answer it with [`respond`](Self::respond) (typed) now or later, from any thread; dropped
/// unanswered it is answered fail-closed.
pub struct TypedRequest<M: ServerRequestMethod> {
    /// The parsed params.
    pub params: M::Params,
    request: ServerRequest,
    _method: PhantomData<fn() -> M>,
}

impl<M: ServerRequestMethod> std::fmt::Debug for TypedRequest<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedRequest")
            .field("method", &M::NAME)
            .field("id", &self.request.id)
            .finish()
    }
}

impl<M: ServerRequestMethod> TypedRequest<M> {
    /// The untyped request (id, method, raw params, raw responder).
    pub fn raw(&self) -> &ServerRequest {
        &self.request
    }
    /// Whether the request can still be answered.
    pub fn is_open(&self) -> bool {
        self.request.is_open()
    }
    /// Answer with a typed response.
    pub fn respond(&self, response: M::Response) -> Result<()> {
        respond_typed(&self.request, &response)
    }
    /// Answer fail-closed (approvals declined; other methods get a JSON-RPC error).
    pub fn respond_fail_closed(&self) -> Result<()> {
        self.request.respond_fail_closed()
    }
    /// Answer, logging (not returning) a failure: the request may have been resolved by the
    /// server meanwhile, or the connection closed.
    fn respond_logged(&self, response: M::Response) {
        if let Err(e) = self.respond(response) {
            tracing::warn!(method = M::NAME, %e, "could not answer the server request");
        }
    }
}

fn respond_typed<T: Serialize>(request: &ServerRequest, response: &T) -> Result<()> {
    let v = serde_json::to_value(response).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    request.respond(&v)
}

impl Notification {
    /// The notification as the typed [`ServerNotification`]. Never fails: an unknown method or
    /// params that do not match the schema give [`ServerNotification::Unknown`] with the raw
    /// JSON.
    pub fn typed(&self) -> ServerNotification {
        ServerNotification::parse(&self.method, self.params.get())
    }
}

impl ServerRequest {
    /// The request's params as the typed [`ServerRequestKind`]. Never fails: unknown methods
    /// and mismatched params give [`ServerRequestKind::Unknown`] with the raw JSON.
    pub fn typed(&self) -> ServerRequestKind {
        ServerRequestKind::parse(&self.method, self.params.get())
    }
    /// Answer with a typed response (any `Serialize` value, for example a generated
    /// `*Response` struct).
    pub fn respond_typed<T: Serialize>(&self, response: &T) -> Result<()> {
        respond_typed(self, response)
    }
}

impl crate::event::RequestRef {
    /// The referenced request's params as the typed [`ServerRequestKind`], as
    /// [`ServerRequest::typed`] gives them for the live request.
    pub fn typed(&self) -> ServerRequestKind {
        ServerRequestKind::parse(&self.method, self.params.get())
    }
}

impl ServerRequest {
    /// Check an answer before it is sent: for the approval methods, `decision` must be one of
    /// the method's decisions ([`CommandExecutionApprovalDecision`],
    /// [`FileChangeApprovalDecision`], [`ReviewDecision`] for the v1 `execCommandApproval` and
    /// `applyPatchApproval`, where the library's own `"denied"` is accepted too). Answers to
    /// other methods are not checked. A bad answer is [`Error::InvalidArgument`].
    pub fn check_answer_json(&self, result_json: &str) -> Result<()> {
        check_answer_json(&self.method, result_json)
    }
}

fn check_answer_json(method: &str, result_json: &str) -> Result<()> {
    use serde::Deserialize;
    use serde_json::Value;
    let (valid, expected): (fn(&Value) -> bool, &str) = match method {
        "item/commandExecution/requestApproval" => (
            |d| {
                CommandExecutionApprovalDecision::deserialize(d)
                    .is_ok_and(|d| !matches!(d, CommandExecutionApprovalDecision::Unknown(_)))
            },
            r#""accept", "acceptForSession", "decline", "cancel", {"acceptWithExecpolicyAmendment": {...}}, {"applyNetworkPolicyAmendment": {...}}"#,
        ),
        "item/fileChange/requestApproval" => (
            |d| {
                FileChangeApprovalDecision::deserialize(d)
                    .is_ok_and(|d| !matches!(d, FileChangeApprovalDecision::Unknown(_)))
            },
            r#""accept", "acceptForSession", "decline", "cancel""#,
        ),
        "execCommandApproval" | "applyPatchApproval" => (
            |d| {
                *d == "denied"
                    || ReviewDecision::deserialize(d)
                        .is_ok_and(|d| !matches!(d, ReviewDecision::Unknown(_)))
            },
            r#""approved", "approved_for_session", "denied", "abort", {"denied": {...}}, ..."#,
        ),
        _ => return Ok(()),
    };
    let result: Value = serde_json::from_str(result_json).map_err(|e| {
        Error::InvalidArgument(format!("the answer to {method} is not valid JSON: {e}"))
    })?;
    match result.get("decision") {
        Some(d) if valid(d) => Ok(()),
        Some(d) => Err(Error::InvalidArgument(format!(
            "{d} is not a decision of {method} (expected {expected})"
        ))),
        None => Err(Error::InvalidArgument(format!(
            "the answer to {method} has no `decision`: {result}"
        ))),
    }
}

impl CommandExecutionApprovalDecision {
    /// `acceptWithExecpolicyAmendment`: accept, and allow commands starting with `argv` from
    /// now on. Encoded with the snake_case inner key the server requires.
    pub fn accept_with_execpolicy_amendment<S: Into<String>>(
        argv: impl IntoIterator<Item = S>,
    ) -> Self {
        Self::AcceptWithExecpolicyAmendment(
            crate::protocol::AcceptWithExecpolicyAmendmentCommandExecutionApprovalDecision {
                execpolicy_amendment: argv.into_iter().map(Into::into).collect(),
                extra: Default::default(),
            },
        )
    }

    /// `applyNetworkPolicyAmendment`: a persistent allow/deny rule for `host`.
    pub fn apply_network_policy_amendment(
        host: impl Into<String>,
        action: NetworkPolicyRuleAction,
    ) -> Self {
        Self::ApplyNetworkPolicyAmendment(
            crate::protocol::ApplyNetworkPolicyAmendmentCommandExecutionApprovalDecision {
                network_policy_amendment: NetworkPolicyAmendment {
                    action,
                    host: host.into(),
                    extra: Default::default(),
                },
                extra: Default::default(),
            },
        )
    }
}

/// The handler of `on_command_approval` (client-wide or one thread's): answer with the
/// decision `f` returns.
fn command_approval_handler(
    f: impl Fn(&CommandExecutionRequestApprovalParams) -> CommandExecutionApprovalDecision
        + Send
        + Sync
        + 'static,
) -> impl Fn(TypedRequest<server_requests::ItemCommandExecutionRequestApproval>) + Send + Sync + 'static
{
    move |req| {
        let decision = f(&req.params);
        req.respond_logged(CommandExecutionRequestApprovalResponse {
            decision,
            extra: Default::default(),
        });
    }
}

impl crate::codex::thread::Thread {
    /// Register a typed handler for server requests of method `M` on this thread only (it wins
    /// over handlers registered on the client). Same contract as
    /// [`CodexClient::on_request`](crate::CodexClient::on_request): answer now or later; dropped unanswered means fail-closed.
    pub fn on_request<M>(&self, f: impl Fn(TypedRequest<M>) + Send + Sync + 'static) -> Result<()>
    where
        M: ServerRequestMethod + 'static,
    {
        CodexClient::from_connection(self.client()).on_thread_request::<M>(self.id(), f)
    }

    /// Answer this thread's command approvals with the decision `f` returns.
    pub fn on_command_approval(
        &self,
        f: impl Fn(&CommandExecutionRequestApprovalParams) -> CommandExecutionApprovalDecision
            + Send
            + Sync
            + 'static,
    ) -> Result<()> {
        self.on_request::<server_requests::ItemCommandExecutionRequestApproval>(
            command_approval_handler(f),
        )
    }

    /// Remove this thread's own handlers (client-wide ones apply again).
    pub fn clear_handlers(&self) {
        CodexClient::from_connection(self.client()).clear_thread_handlers(self.id());
    }
}

impl crate::event::Event {
    /// For a notification, its typed form ([`Notification::typed`]); `None` for server
    /// requests and connection events.
    pub fn typed_notification(&self) -> Option<ServerNotification> {
        match self {
            crate::event::Event::Notification(n) => Some(n.typed()),
            _ => None,
        }
    }
}

impl crate::codex::turn::TurnResult {
    /// The completed items as typed [`ThreadItem`](crate::protocol::ThreadItem)s (an item type
    /// this version does not know is `ThreadItem::Unknown` with its JSON).
    pub fn thread_items(&self) -> Vec<crate::protocol::ThreadItem> {
        self.items
            .iter()
            .map(|v| {
                serde_json::from_value(v.clone())
                    .unwrap_or_else(|_| crate::protocol::ThreadItem::Unknown(v.clone()))
            })
            .collect()
    }
    /// The last token usage as the typed [`ThreadTokenUsage`](crate::protocol::ThreadTokenUsage),
    /// when reported and matching the schema.
    pub fn token_usage(&self) -> Option<crate::protocol::ThreadTokenUsage> {
        self.usage
            .as_ref()
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }
    /// The `turn` object of `turn/completed` as the typed [`Turn`](crate::protocol::Turn).
    pub fn typed_turn(&self) -> Option<crate::protocol::Turn> {
        serde_json::from_value(self.turn.clone()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::check_answer_json;

    #[test]
    fn approval_answers_are_checked_against_the_decision_types() {
        let cmd = "item/commandExecution/requestApproval";
        for ok in [
            r#"{"decision":"accept"}"#,
            r#"{"decision":"cancel"}"#,
            r#"{"decision":{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["ls"]}}}"#,
            r#"{"decision":{"applyNetworkPolicyAmendment":{"network_policy_amendment":{"host":"h","action":"deny"}}}}"#,
        ] {
            assert!(check_answer_json(cmd, ok).is_ok(), "{ok}");
        }
        for bad in [
            r#"{"decision":"bogus-decision"}"#,
            r#"{"decision":"approved"}"#,
            r#"{"decision":{"acceptWithExecpolicyAmendment":{}}}"#,
            r#"{"decision":7}"#,
            r#"{"verdict":"accept"}"#,
            r#""accept""#,
            "not json",
        ] {
            let e = check_answer_json(cmd, bad).unwrap_err();
            assert!(
                matches!(e, crate::error::Error::InvalidArgument(_)),
                "{bad}: {e}"
            );
        }
        let e = check_answer_json(cmd, r#"{"decision":"bogus-decision"}"#).unwrap_err();
        assert!(e.to_string().contains("\"bogus-decision\"") && e.to_string().contains(cmd));

        let file = "item/fileChange/requestApproval";
        assert!(check_answer_json(file, r#"{"decision":"acceptForSession"}"#).is_ok());
        assert!(check_answer_json(
            file,
            r#"{"decision":{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":[]}}}"#
        )
        .is_err());

        for v1 in ["execCommandApproval", "applyPatchApproval"] {
            assert!(check_answer_json(v1, r#"{"decision":"approved_for_session"}"#).is_ok());
            assert!(check_answer_json(v1, r#"{"decision":"denied"}"#).is_ok());
            assert!(check_answer_json(v1, r#"{"decision":{"denied":{"rejection":"no"}}}"#).is_ok());
            assert!(check_answer_json(v1, r#"{"decision":"accept"}"#).is_err());
        }
        // Other methods are not checked.
        assert!(check_answer_json("item/tool/requestUserInput", r#"{"anything":1}"#).is_ok());
        assert!(check_answer_json("brand/new", "not even json").is_ok());
    }
}
