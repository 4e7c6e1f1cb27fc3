//! URL-mode elicitations finished out of band: the ids of a connection's
//! `notifications/elicitation/complete`, so that a caller who got
//! [`Error::UrlElicitationRequired`] can wait for them
//! (however early they came) and then retry.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::value::RawValue;

use super::ElicitationComplete;
use crate::error::{Error, Result};

/// The method of the server's notification that a URL-mode elicitation finished.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// Most completed ids a connection remembers (the oldest are forgotten first).
const KEPT: usize = 1024;

/// The completed elicitation ids of one connection.
#[derive(Default)]
pub(crate) struct Completions {
    done: Mutex<VecDeque<String>>,
    changed: tokio::sync::Notify,
}

impl Completions {
    /// A `notifications/elicitation/complete` came with `params`.
    pub(crate) fn note(&self, params: &RawValue) {
        let Ok(c) = serde_json::from_str::<ElicitationComplete>(params.get()) else {
            tracing::debug!("MCP: elicitation/complete without an elicitationId");
            return;
        };
        let mut done = self.done.lock().unwrap();
        if done.len() == KEPT {
            done.pop_front();
        }
        done.push_back(c.elicitation_id);
        drop(done);
        self.changed.notify_waiters();
    }

    fn missing(&self, ids: &[String]) -> Vec<String> {
        let done = self.done.lock().unwrap();
        ids.iter()
            .filter(|id| !done.contains(id))
            .cloned()
            .collect()
    }

    /// Wait until every id in `ids` completed (those that already did count), at most
    /// `timeout`.
    pub(crate) async fn wait(&self, ids: &[String], timeout: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let missing = self.missing(ids);
            if missing.is_empty() {
                return Ok(());
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return Err(Error::Timeout {
                    method: format!("{ELICITATION_COMPLETE} for {}", missing.join(", ")),
                    after: timeout,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn waits_for_every_id_and_counts_early_ones() {
        let c = std::sync::Arc::new(Completions::default());
        c.note(&raw(r#"{"elicitationId":"a"}"#));
        let ids = vec!["a".to_owned(), "b".to_owned()];
        let e = c.wait(&ids, Duration::from_millis(20)).await.unwrap_err();
        assert!(
            e.to_string().contains('b') && !e.to_string().contains("a,"),
            "{e}"
        );
        let c2 = c.clone();
        let waiter = tokio::spawn(async move { c2.wait(&ids, Duration::from_secs(5)).await });
        tokio::task::yield_now().await;
        c.note(&raw(r#"{"elicitationId":"b"}"#));
        waiter.await.unwrap().unwrap();
    }
}
