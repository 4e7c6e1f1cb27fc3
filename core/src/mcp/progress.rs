//! Requests that report progress: the token, the call's own progress stream, its result.

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Progress;
use crate::correlation::Outcome;
use crate::delivery::EventReceiver;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::mcp::McpClient;
use crate::options::RequestOptions;
use crate::session::SessionShared;

static NEXT_PROGRESS: AtomicU64 = AtomicU64::new(1);

impl McpClient {
    /// Send a request that reports progress: `params._meta.progressToken` is set to a token
    /// of the library's, and the server's `notifications/progress` with that token come out
    /// of the returned call (and go nowhere else) until its result arrives. Each update
    /// restarts the request's timeout unless option `mcp_progress_resets_timeout` is off.
    pub fn start_with_progress(
        &self,
        method: &str,
        mut params: Value,
        opts: RequestOptions,
    ) -> Result<ProgressCall> {
        let token = json!(format!(
            "{}{}",
            crate::protocol::mcp::PROGRESS_PREFIX,
            NEXT_PROGRESS.fetch_add(1, Ordering::Relaxed)
        ));
        if params.is_null() {
            params = json!({});
        }
        let Some(obj) = params.as_object_mut() else {
            return Err(Error::InvalidArgument("params must be an object".into()));
        };
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        let Some(meta) = meta.as_object_mut() else {
            return Err(Error::InvalidArgument(
                "params._meta must be an object".into(),
            ));
        };
        meta.insert("progressToken".into(), token.clone());
        let session = self.connection().live_session()?;
        let events = self.subscribe()?;
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let (id, outcome) = session.start_tracked(method, &raw, opts, false)?;
        // A tool's result is checked against its outputSchema (option mcp_validate_output).
        let check = (session.protocol == crate::options::Protocol::Mcp
            && self.options().mcp.validate_output)
            .then(|| (method.to_owned(), raw));
        // Each update restarts the call's timeout (option `mcp_progress_resets_timeout`).
        if let Some(t) = token
            .as_str()
            .filter(|_| self.options().mcp.progress_resets_timeout)
        {
            session.watch_progress(t.to_owned(), id);
        }
        Ok(ProgressCall {
            token,
            events,
            outcome: Some(outcome),
            late: Default::default(),
            result: None,
            session,
            id,
            check,
        })
    }
}

/// A request that reports progress ([`McpClient::start_with_progress`](crate::McpClient::start_with_progress)): pull its progress
/// updates with [`next`](Self::next) until `None` (the answer came), then take
/// [`result`](Self::result). Dropping it before the answer cancels the request (an MCP server
/// gets `notifications/cancelled`).
pub struct ProgressCall {
    token: Value,
    /// Updates taken after the answer came (sent before it), still to be returned.
    late: std::collections::VecDeque<Progress>,
    events: EventReceiver,
    outcome: Option<Outcome>,
    result: Option<Result<Value>>,
    session: Arc<SessionShared>,
    id: i64,
    /// The method and params, when the result is checked against a tool's outputSchema.
    check: Option<(String, Box<serde_json::value::RawValue>)>,
}

impl ProgressCall {
    /// The progress token sent with the request.
    pub fn token(&self) -> &Value {
        &self.token
    }

    /// The next progress update; `None` once the answer arrived (updates sent before it
    /// come first).
    pub async fn next(&mut self) -> Option<Progress> {
        loop {
            let Some(outcome) = self.outcome.as_mut() else {
                return self.late.pop_front();
            };
            tokio::select! {
                biased;
                ev = self.events.next() => match ev {
                    Some(ev) => match self.progress_of(ev) {
                        Some(p) => return Some(p),
                        None => continue,
                    },
                    None => {
                        // The connection ended: the outcome says how.
                        let r = self.outcome.as_mut().expect("pending").await;
                        self.settle(r);
                    }
                },
                r = outcome => self.settle(r),
            }
        }
    }

    fn progress_of(&self, ev: Event) -> Option<Progress> {
        match ev {
            Event::Notification(n) if n.method == "notifications/progress" => n
                .params_as::<Progress>()
                .ok()
                .filter(|p| p.progress_token == self.token),
            _ => None,
        }
    }

    /// The answer came: keep the updates queued before it (the reader may not have woken
    /// this call for them yet), then the result.
    fn settle(
        &mut self,
        r: std::result::Result<
            Result<Box<serde_json::value::RawValue>>,
            tokio::sync::oneshot::error::RecvError,
        >,
    ) {
        self.outcome = None;
        let ready = self.events.take_ready();
        let late: Vec<Progress> = ready
            .into_iter()
            .filter_map(|e| self.progress_of(e))
            .collect();
        self.late.extend(late);
        let checked = |raw: &serde_json::value::RawValue| match &self.check {
            Some((method, params)) => self.session.rules.check_result(method, params, raw),
            None => Ok(()),
        };
        self.result = Some(match r {
            Ok(Ok(raw)) => checked(&raw).and_then(|()| {
                serde_json::from_str(raw.get())
                    .map_err(|e| Error::Protocol(format!("bad result JSON: {e}")))
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(self.session.disconnect_error()),
        });
    }

    /// Blocking form of [`next`](Self::next).
    pub fn next_blocking(&mut self) -> Option<Progress> {
        crate::delivery::block_on(self.next(), None)
    }

    /// The request's result (progress updates not yet pulled are skipped).
    pub async fn result(mut self) -> Result<Value> {
        while self.next().await.is_some() {}
        self.result
            .take()
            .expect("settled once next() returned None")
    }

    /// Blocking form of [`result`](Self::result).
    pub fn result_blocking(self) -> Result<Value> {
        crate::delivery::block_on(self.result(), None)
    }
}

impl Drop for ProgressCall {
    fn drop(&mut self) {
        if let Some(t) = self.token.as_str() {
            self.session.unwatch_progress(t);
        }
        if self.outcome.is_some() {
            self.session.abandon(self.id);
        }
    }
}
