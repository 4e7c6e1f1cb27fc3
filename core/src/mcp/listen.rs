//! `subscriptions/listen` (MCP 2026-07-28), which replaces `resources/subscribe` and the
//! unsolicited list-changed notifications of the handshake era: one long-lived request whose
//! answer is a stream of the notifications its filter asks for. [`Client::listen`] opens it
//! and waits for the server's `notifications/subscriptions/acknowledged` (the filter the
//! server honours); the notifications then reach the usual handlers and subscriptions (and
//! make the cache's entries stale); dropping the [`Listen`] ends the stream (the server is sent
//! `notifications/cancelled`).

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::options::RequestOptions;

/// The request that opens a subscription stream.
pub const LISTEN: &str = "subscriptions/listen";
/// The server's first message on a subscription stream.
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// How long a subscription stream may stay open (the request's timeout).
const OPEN_FOR: Duration = Duration::from_secs(365 * 24 * 3600);

/// An open `subscriptions/listen` stream; dropping it closes the stream.
#[derive(Debug)]
pub struct Listen {
    acknowledged: Value,
    task: tokio::task::JoinHandle<Result<Value>>,
}

impl Listen {
    /// The filter the server acknowledged (`{"toolsListChanged": true, ...}`): the subset of
    /// the requested one it honours.
    pub fn acknowledged(&self) -> &Value {
        &self.acknowledged
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        // Dropping the request's future gives it up: an MCP server gets notifications/cancelled.
        self.task.abort();
    }
}

impl Client {
    /// MCP 2026-07-28 `subscriptions/listen` with `filter` (`toolsListChanged`,
    /// `promptsListChanged`, `resourcesListChanged`, `resourceSubscriptions`: a list of URIs),
    /// once the server acknowledged it (at most `within`). Errors: `Unsupported` in the
    /// handshake era (there `subscribe_resource` and the list-changed notifications do this),
    /// `Timeout` without an acknowledgment, `NotConnected` when the connection ends first.
    pub async fn listen(&self, filter: Value, within: Duration) -> Result<Listen> {
        if self.live_session()?.envelope().is_none() {
            return Err(Error::Unsupported(
                "subscriptions/listen is MCP 2026-07-28; in the handshake era use subscribe_resource"
                    .into(),
            ));
        }
        let mut events = self.subscribe()?;
        let c = self.clone();
        let params = json!({ "notifications": filter });
        let task = crate::rt::spawn_anywhere(async move {
            c.request_with(LISTEN, params, RequestOptions::timeout(OPEN_FOR))
                .await
        })?;
        let ack = crate::rt::spawn_anywhere(async move {
            tokio::time::timeout(within, async move {
                while let Some(ev) = events.next().await {
                    if let Event::Notification(n) = ev {
                        if n.method == ACKNOWLEDGED {
                            return Some(n.params_value());
                        }
                    }
                }
                None
            })
            .await
        })?
        .await
        .map_err(|_| Error::NotConnected)?;
        match ack {
            Ok(Some(params)) => Ok(Listen {
                acknowledged: params.get("notifications").cloned().unwrap_or(Value::Null),
                task,
            }),
            other => {
                task.abort();
                Err(match other {
                    Err(_) => Error::Timeout {
                        method: LISTEN.into(),
                        after: within,
                    },
                    _ => Error::NotConnected,
                })
            }
        }
    }
}
