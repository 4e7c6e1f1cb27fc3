//! The MCP clients a Codex client's turns take skills from, each under a label the program
//! chose (the API is `Client::add_skill_source` in `skills/mcp.rs`; this is only the store).

use std::sync::{Mutex, PoisonError};

use super::Client;

/// The MCP clients a Codex client takes skills from, by label, in the order added.
#[derive(Default)]
pub(crate) struct SkillSources(Mutex<Vec<(String, Client)>>);

impl SkillSources {
    /// Run `f` on the list (a poisoned lock is taken over: the list stays consistent).
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Vec<(String, Client)>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The client registered under `label`.
    pub(crate) fn get(&self, label: &str) -> Option<Client> {
        self.with(|v| v.iter().find(|(l, _)| l == label).map(|(_, c)| c.clone()))
    }
}
