//! The requests a stateless-era (MCP 2026-07-28) server embeds in an `InputRequiredResult`
//! (elicitation, sampling, roots), answered as if the server had sent them: the same event,
//! the same handlers (or the user's own `next_event` loop), the same fail-closed answer when
//! nobody answers — but the answer comes back here instead of going on the wire.

use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

use super::SessionShared;
use crate::error::{Error, Result, RpcError};
use crate::event::{Event, ServerRequest};
use crate::message::RequestId;
use crate::responder::{OpenRequests, Responder};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// Where the answer to one embedded request goes.
struct Local {
    tx: Mutex<Option<oneshot::Sender<Vec<u8>>>>,
}

impl Responder for Local {
    fn send_response(&self, line: Vec<u8>) -> Result<()> {
        if let Some(tx) = self.tx.lock().unwrap().take() {
            let _ = tx.send(line);
        }
        Ok(())
    }
    fn forget_request(&self, _: &RequestId) {}
    fn disconnect_error(&self) -> Error {
        Error::NotConnected
    }
}

impl SessionShared {
    /// Answer an embedded request `method` with `params` through the client's delivery; its
    /// result (an error answer fails with that error), within `timeout`.
    pub(crate) async fn answer_embedded(
        &self,
        method: &str,
        params: &Value,
        timeout: Duration,
    ) -> Result<Value> {
        if let Some(result) = self.rules.answers_itself(method, self.handles(method)) {
            return Ok(result);
        }
        let (tx, rx) = oneshot::channel();
        let local: Arc<dyn Responder> = Arc::new(Local {
            tx: Mutex::new(Some(tx)),
        });
        let id = RequestId::Str(format!(
            "codex-client-input-{}",
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let state = OpenRequests::default().open(id.clone(), method);
        let raw = serde_json::value::to_raw_value(params)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let local_weak = Arc::downgrade(&local);
        let req = ServerRequest::new(
            id.clone(),
            method.to_owned(),
            raw,
            state,
            local_weak,
            self.origin(),
        );
        // Dropped at once when the queue is closed: answered fail-closed.
        drop(self.queue.push_response(Event::ServerRequest(req)));
        // The timer runs on the library's runtime: the caller may be on any executor.
        let waited =
            crate::rt::spawn_anywhere(async move { tokio::time::timeout(timeout, rx).await })?
                .await;
        // Answered (or given up): a parked handle of it is no longer kept.
        self.unpark(&id);
        let line = match waited.map_err(|_| Error::NotConnected)? {
            Ok(Ok(line)) => line,
            Ok(Err(_)) => return Err(Error::NotConnected),
            Err(_) => {
                return Err(Error::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                })
            }
        };
        let v: Value = serde_json::from_slice(&line)
            .map_err(|e| Error::Protocol(format!("bad answer line: {e}")))?;
        if let Some(e) = v.get("error") {
            return Err(Error::Rpc(RpcError {
                code: e.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                message: e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                data: e.get("data").cloned(),
            }));
        }
        Ok(v.get("result").cloned().unwrap_or(Value::Null))
    }

    fn handles(&self, method: &str) -> bool {
        self.handlers
            .as_ref()
            .is_some_and(|h| h.handles(method, None))
    }
}
