//! [`EndpointStatus`]: what a pool reports of one endpoint (the view every binding shows).

use serde::Serialize;

/// One endpoint of a pool as it is now ([`Pool::endpoints`](super::Pool::endpoints)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct EndpointStatus {
    /// Its name.
    pub name: String,
    /// Where it is (the transport's description: a URL, a socket path, `codex app-server
    /// over stdio`); never a token.
    pub target: String,
    /// `ready` (takes threads), `reconnecting`, `lost` (its connection ended; see `lost`),
    /// `draining` (takes no new thread, closes when idle) or `drained`.
    pub state: String,
    /// Turns running on it (as its server reports them: `turn/started` without
    /// `turn/completed`).
    pub running_turns: usize,
    /// Threads placed on it that have not started a turn yet (they count as load).
    pub waiting_threads: usize,
    /// Threads the pool placed on it or resumed on it, in all.
    pub threads_placed: usize,
    /// Its limit on running turns (0: none).
    pub max_running_turns: usize,
    /// The CODEX_HOME it shares with other endpoints, if it does.
    pub shared_home: Option<String>,
    /// Why its connection ended, when it did.
    pub lost: Option<String>,
    /// The Codex version its server reported (`initialize`), if connected.
    pub codex_version: Option<String>,
}

impl EndpointStatus {
    /// As JSON (the bindings' form).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a status serializes")
    }
}
