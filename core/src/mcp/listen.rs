//! `subscriptions/listen` (MCP 2026-07-28), which replaces `resources/subscribe` and the
//! unsolicited list-changed notifications of the handshake era: one long-lived request whose
//! answer is a stream of the notifications its filter asks for. [`Client::listen`] opens it
//! and waits for the server's `notifications/subscriptions/acknowledged` (the filter the
//! server honours); the notifications then reach the usual handlers and subscriptions (and
//! make the cache's entries stale); dropping the [`Listen`] ends the stream (the server is sent
//! `notifications/cancelled`). The filter's keys are checked here, for every binding
//! ([`listen_filter`]: the protocol's names or their snake_case names).

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::event::Event;
use crate::mcp::McpClient;
use crate::options::RequestOptions;

/// The request that opens a subscription stream.
pub const LISTEN: &str = "subscriptions/listen";
/// The server's first message on a subscription stream.
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// How long a subscription stream may stay open (the request's timeout).
const OPEN_FOR: Duration = Duration::from_secs(365 * 24 * 3600);

/// The keys of a `subscriptions/listen` filter: the name bindings use (snake_case, a Python
/// keyword) and the protocol's name, and whether the value is a list of URIs (else a boolean).
pub const LISTEN_FILTER_KEYS: [(&str, &str, bool); 4] = [
    ("tools_list_changed", "toolsListChanged", false),
    ("prompts_list_changed", "promptsListChanged", false),
    ("resources_list_changed", "resourcesListChanged", false),
    ("resource_subscriptions", "resourceSubscriptions", true),
];

/// The `subscriptions/listen` filter of `given`: a JSON object whose keys are the protocol's
/// names (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`,
/// `resourceSubscriptions`) or their snake_case names (`tools_list_changed`, ...), as the
/// protocol's object; `null` is the empty filter, and a `null` member is left out. Errors
/// (`InvalidArgument`): not an object, an unknown key (the message lists the known ones), a
/// key given under both names, a flag that is not a boolean, `resourceSubscriptions` not a
/// list of strings.
///
/// ```
/// use codex_client::mcp::listen_filter;
/// use serde_json::json;
/// let f = listen_filter(&json!({"tools_list_changed": true, "resourceSubscriptions": ["demo://a"]}));
/// assert_eq!(f.unwrap(), json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://a"]}));
/// assert!(listen_filter(&json!({"tools": true})).is_err());
/// ```
pub fn listen_filter(given: &Value) -> Result<Value> {
    let bad = |m: String| Error::InvalidArgument(format!("subscriptions/listen filter: {m}"));
    let given = match given {
        Value::Null => return Ok(json!({})),
        Value::Object(o) => o,
        other => return Err(bad(format!("not a JSON object: {other}"))),
    };
    let mut out = serde_json::Map::new();
    for (key, value) in given {
        let Some(&(snake, wire, uris)) = LISTEN_FILTER_KEYS
            .iter()
            .find(|(s, w, _)| key == s || key == w)
        else {
            let known: Vec<String> = LISTEN_FILTER_KEYS
                .iter()
                .map(|(s, w, _)| format!("{s} ({w})"))
                .collect();
            return Err(bad(format!(
                "unknown key `{key}` (known: {})",
                known.join(", ")
            )));
        };
        if given.contains_key(snake) && given.contains_key(wire) {
            return Err(bad(format!("`{snake}` and `{wire}` are the same key")));
        }
        let ok = match value {
            Value::Null => continue,
            Value::Bool(_) => !uris,
            Value::Array(a) => uris && a.iter().all(Value::is_string),
            _ => false,
        };
        if !ok {
            let want = if uris {
                "a list of URI strings"
            } else {
                "a boolean"
            };
            return Err(bad(format!("`{key}` must be {want}, not {value}")));
        }
        out.insert(wire.to_string(), value.clone());
    }
    Ok(Value::Object(out))
}

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

impl McpClient {
    /// MCP 2026-07-28 `subscriptions/listen` with `filter` (`toolsListChanged`,
    /// `promptsListChanged`, `resourcesListChanged`, `resourceSubscriptions`: a list of URIs;
    /// or their snake_case names, see [`listen_filter`]), once the server acknowledged it (at
    /// most `within`). Errors: `InvalidArgument` for a filter [`listen_filter`] refuses,
    /// `Unsupported` in the handshake era (there `subscribe_resource` and the list-changed
    /// notifications do this), `Timeout` without an acknowledgment, `NotConnected` when the
    /// connection ends first.
    pub async fn listen(&self, filter: Value, within: Duration) -> Result<Listen> {
        let filter = listen_filter(&filter)?;
        if !self.connection().live_session()?.rules.stateless() {
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

impl McpClient {
    /// For bindings: [`listen`](Self::listen) bounded by `within`, or by the client's
    /// `default_timeout` when `None`.
    pub async fn listen_within(&self, filter: Value, within: Option<Duration>) -> Result<Listen> {
        let within = within.unwrap_or(self.options().default_timeout);
        self.listen(filter, within).await
    }

    /// Blocking form of [`listen_within`](Self::listen_within) (a plain thread).
    pub fn listen_blocking(&self, filter: Value, within: Option<Duration>) -> Result<Listen> {
        self.connection()
            .block_on(self.listen_within(filter, within))
    }
}
