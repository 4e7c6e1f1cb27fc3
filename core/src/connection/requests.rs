//! Requests and notifications to the server: awaited, blocking (spinning first as
//! [`reply_spin`](crate::ClientOptions::reply_spin) allows) or answered as an event
//! ([`Client::send_request`]).

use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::Arc;

use super::Client;
use crate::delivery::Spin;
use crate::error::{Error, Result};
use crate::options::RequestOptions;
use crate::rules::{Rounds, Step};
use crate::session::SessionShared;

impl Client {
    /// Send a request with raw JSON params and await the raw JSON result.
    ///
    /// # Cancellation
    /// Dropping the future before the answer gives the request up: an MCP server is sent
    /// `notifications/cancelled`; a Codex app-server has no request cancellation, so the
    /// pending entry is dropped and its late answer discarded (no error event), while the
    /// server still carries the request out (a `thread/start` given up may still create the
    /// thread). The same holds for every async request built on this one.
    ///
    /// # MCP 2026-07-28
    /// `logging/setLevel` is not sent (the revision has none): its level goes into the `_meta`
    /// envelope of the later requests. A list or read result whose `ttlMs` hint says it is
    /// still fresh is answered from the client's cache (option `mcp_cache`). A result with `resultType: "input_required"` is not returned: its embedded requests are
    /// answered through the handlers and the request is sent again until the final result
    /// (see [`input_required`](crate::mcp)), as for the typed helpers.
    pub async fn request_raw(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        if let Some(answer) = self.answered_locally(method, params) {
            return answer;
        }
        if let Some(hit) = self.cached(method, params) {
            return Ok(hit);
        }
        let raw = self.request_once(method, params, opts).await?;
        let raw = match self.input_required(&raw) {
            Some(first) => self.finish_rounds(method, params, first, opts).await?,
            None => raw,
        };
        self.keep(method, params, &raw);
        Ok(raw)
    }

    /// One request and its answer as it came (no input-required rounds).
    pub(crate) async fn request_once(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let session = self.live_session()?;
        let (id, rx) = session.start_tracked(method, params, opts, false)?;
        // Dropped before the answer (the caller's future was cancelled): give the request up.
        let mut guard = AbandonOnDrop(Some((session.clone(), id)));
        let outcome = rx.await;
        // Answered: disarm (not `mem::forget`, which would leak the session it holds).
        guard.0 = None;
        let result = outcome.unwrap_or_else(|_| Err(session.disconnect_error()))?;
        self.check_tool_output(&session, method, params, &result)?;
        Ok(result)
    }

    /// MCP `tools/call`: the result against the tool's `outputSchema` (option
    /// `mcp_validate_output`).
    fn check_tool_output(
        &self,
        session: &crate::session::SessionShared,
        method: &str,
        params: &RawValue,
        result: &RawValue,
    ) -> Result<()> {
        session.rules.check_result(method, params, result)
    }

    /// Blocking form of [`request_raw`](Self::request_raw): that request run on this thread,
    /// spinning first as [`reply_spin`](Self::reply_spin) allows.
    pub fn request_raw_blocking(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        self.block_on(self.request_raw(method, params, opts))
    }

    /// A request the protocol answers without sending it, if this is one.
    fn answered_locally(&self, method: &str, params: &RawValue) -> Option<Result<Box<RawValue>>> {
        self.session()?.rules.answered_locally(method, params)
    }

    /// A fresh result the protocol kept for the request (the MCP cache), if any.
    fn cached(&self, method: &str, params: &RawValue) -> Option<Box<RawValue>> {
        self.session()?.rules.cached(method, params)
    }

    /// Let the protocol keep a result for later requests, as its hints allow.
    fn keep(&self, method: &str, params: &RawValue, result: &RawValue) {
        if let Some(session) = self.session() {
            session.rules.keep(method, params, result);
        }
    }

    /// A result that asks for input before the final one, parsed.
    fn input_required(&self, raw: &RawValue) -> Option<Value> {
        self.session()?.rules.input_required(raw)
    }

    /// Drive the rounds of a request answered `first` (input required) to its final result,
    /// as the protocol's rules say.
    async fn finish_rounds(
        &self,
        method: &str,
        params: &RawValue,
        first: Value,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let params: Value = serde_json::from_str(params.get())
            .map_err(|e| Error::InvalidArgument(format!("params: {e}")))?;
        let session = self.live_session()?;
        let link = RoundsOf { client: self, opts };
        let done = session
            .rules
            .finish_rounds(&link, method, params, first)
            .await?;
        serde_json::value::to_raw_value(&done).map_err(|e| Error::Protocol(e.to_string()))
    }

    /// Run `fut` (an async call of this client) on this thread, spinning first as
    /// [`reply_spin`](crate::ClientOptions::reply_spin) allows: the one body of every blocking form
    /// of a request (see [`block_on`](crate::delivery::block_on)).
    pub(crate) fn block_on<F: std::future::Future>(&self, fut: F) -> F::Output {
        crate::delivery::block_on(fut, Some(&self.inner.spin))
    }

    /// The spin of this client's blocking waits for replies, for a binding's own blocking
    /// waits (see [`wait_spinning`](crate::delivery::wait_spinning)).
    pub fn reply_spin(&self) -> Arc<Spin> {
        self.inner.spin.clone()
    }

    /// Send a request and await its result. `Value::Null` params are sent as `{}`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value> {
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    /// [`request`](Self::request) with per-request options (timeout, retry).
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<Value> {
        let raw = self.request_raw(method, &to_params(params)?, opts).await?;
        parse_result(&raw)
    }

    /// Blocking form of [`request`](Self::request).
    pub fn request_blocking(&self, method: &str, params: Value) -> Result<Value> {
        self.block_on(self.request(method, params))
    }

    /// Blocking form of [`request_with`](Self::request_with).
    pub fn request_blocking_with(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<Value> {
        self.block_on(self.request_with(method, params, opts))
    }

    /// Send a client notification (no response).
    pub fn notify(&self, method: &str, params: Value) -> Result<()> {
        let session = self.live_session()?;
        if !session.is_open() && !session.is_reconnecting() {
            return Err(if session.is_closed() {
                session.disconnect_error()
            } else {
                Error::NotConnected
            });
        }
        session.notify(method, Some(&to_params(params)?))
    }

    /// Send a request without waiting: its outcome arrives as one [`Event::Response`](crate::Event::Response)
    /// carrying `token` (callbacks: the [`on_event`](Self::on_event) handler on the dispatch
    /// thread; poll: `next_event`/`events()`). Responses go ahead of waiting events and every
    /// such request gets exactly one (the result, an RPC error, the timeout or the
    /// disconnect), before the connection's `Disconnected` event. Errors (not connected, bad
    /// arguments) are returned at once and produce no event.
    pub fn send_request(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        token: u64,
    ) -> Result<()> {
        let session = self.live_session()?;
        session
            .send_request(
                method,
                params,
                opts,
                false,
                crate::correlation::Reply::Event(token, None),
            )
            .map(drop)
    }

    /// [`send_request`](Self::send_request) with a token the client picks (unique in the
    /// process, never 0; returned) and a value of the caller's, `attachment`, that comes back
    /// untouched in the request's [`Response`](crate::Response) (callbacks: the
    /// [`on_response`](Self::on_response) handler; poll: `next_event`), so that a binding
    /// keeps no table of its requests. Exactly one response comes per request sent; an error
    /// returned here means nothing was sent and `attachment` is dropped. Cancel it with
    /// [`cancel_request`](Self::cancel_request) and the returned token.
    pub fn send_request_with(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        attachment: crate::event::Attachment,
    ) -> Result<u64> {
        static NEXT_TOKEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let token = NEXT_TOKEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let session = self.live_session()?;
        session.send_request(
            method,
            params,
            opts,
            false,
            crate::correlation::Reply::Event(token, Some(attachment)),
        )?;
        Ok(token)
    }

    /// Cancel a request sent with [`send_request`](Self::send_request) that has not been
    /// answered: its [`Event::Response`](crate::Event::Response) comes at once with [`Error::Cancelled`], and an MCP
    /// server is told (`notifications/cancelled`). False when no request with `token` is
    /// pending.
    pub fn cancel_request(&self, token: u64) -> bool {
        self.session().is_some_and(|s| s.cancel_token(token))
    }
}

/// Gives a request up when the future awaiting it is dropped before the answer.
struct AbandonOnDrop(Option<(Arc<SessionShared>, i64)>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        if let Some((session, id)) = self.0.take() {
            session.abandon(id);
        }
    }
}

fn to_params(params: Value) -> Result<Box<RawValue>> {
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    serde_json::value::to_raw_value(&params).map_err(|e| Error::InvalidArgument(e.to_string()))
}

fn parse_result(raw: &RawValue) -> Result<Value> {
    serde_json::from_str(raw.get()).map_err(|e| Error::Protocol(format!("bad result JSON: {e}")))
}

/// The rounds of one request of `client`, sent with `opts` (see [`Rounds`]).
struct RoundsOf<'c> {
    client: &'c Client,
    opts: RequestOptions,
}

impl Rounds for RoundsOf<'_> {
    fn answer<'a>(&'a self, method: &'a str, params: Value) -> Step<'a, Result<Value>> {
        Box::pin(async move {
            let timeout = self
                .opts
                .timeout
                .unwrap_or(self.client.options().default_timeout);
            self.client
                .live_session()?
                .answer_embedded(method, &params, timeout)
                .await
        })
    }
    fn send_once<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> Step<'a, Result<Box<RawValue>>> {
        Box::pin(async move { self.client.request_once(method, &params, self.opts).await })
    }
}
