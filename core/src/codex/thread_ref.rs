//! Thread references (issue 40): what a thread is without its client — the endpoint it lives
//! on, its id, and the `thread/resume` params that reattach it with the settings it was
//! started with — serialisable, so a thread can be handed to another process (or endpoint of
//! the same `CODEX_HOME`) and resumed there
//! ([`CodexClient::thread_resume_ref`](crate::CodexClient::thread_resume_ref), in
//! `thread.rs` with `Thread::reference`). Also [`thread_id_of`].

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::protocol::ThreadResumeParams;

/// A thread without its client: the endpoint (the label of the client that opened it), the
/// thread id, and the `thread/resume` params that reattach it with what it was started with
/// (`cwd`, `model`, `modelProvider`, `approvalPolicy`, `sandbox`, instructions, config, …:
/// the opening request's params that `thread/resume` takes, completed by the settings the
/// server answered). Serialisable (`serde`, JSON): `{"endpoint", "thread_id", "resume"}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ThreadRef {
    /// The label of the client that opened the thread (option `label`): in a pool, the
    /// endpoint's name. `None` when the client has no label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The thread id.
    pub thread_id: String,
    /// The `thread/resume` params (without `threadId`) that reattach it.
    #[serde(default)]
    pub resume: Map<String, Value>,
}

/// The thread id in a result that carries a thread (`{"thread": {"id": ...}}`, the result of
/// `thread/start`, `thread/resume` and `thread/fork`).
pub fn thread_id_of(result: &Value) -> Result<String> {
    result["thread"]["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::Protocol(format!("result has no thread id: {result}")))
}

/// `thread/resume` params that say how to resume rather than what the thread is: not kept.
const HOW_TO_RESUME: [&str; 4] = ["history", "initialTurnsPage", "excludeTurns", "path"];

/// The settings of an opening request's result that complete the resume params when the
/// request did not give them.
const FROM_RESULT: [&str; 4] = ["cwd", "model", "modelProvider", "approvalPolicy"];

impl ThreadRef {
    /// A reference to thread `thread_id` on `endpoint`, resumed with `resume`.
    pub fn new(
        endpoint: Option<&str>,
        thread_id: impl Into<String>,
        resume: Map<String, Value>,
    ) -> ThreadRef {
        ThreadRef {
            endpoint: endpoint.map(str::to_owned),
            thread_id: thread_id.into(),
            resume,
        }
    }

    /// The reference of the thread a `thread/start`, `thread/resume` or `thread/fork` sent
    /// with `params` opened, answered with `result`, on the client labelled `endpoint`: the
    /// members of `params` that `thread/resume` takes (by the generated
    /// [`ThreadResumeParams`]; `history`, `path`, `excludeTurns` and `initialTurnsPage` left
    /// out), then `cwd`, `model`, `modelProvider`, `approvalPolicy` and the sandbox mode
    /// from `result` where `params` has none. [`Error::Protocol`] when `result` carries no
    /// thread id.
    pub fn of_open(endpoint: Option<&str>, params: &Value, result: &Value) -> Result<ThreadRef> {
        let thread_id = thread_id_of(result)?;
        let mut given = params.as_object().cloned().unwrap_or_default();
        given.insert("threadId".into(), Value::String(thread_id.clone()));
        let mut resume = serde_json::from_value::<ThreadResumeParams>(Value::Object(given))
            .ok()
            .and_then(|mut p| {
                p.extra.clear();
                match serde_json::to_value(p) {
                    Ok(Value::Object(m)) => Some(m),
                    _ => None,
                }
            })
            .unwrap_or_default();
        resume.remove("threadId");
        for k in HOW_TO_RESUME {
            resume.remove(k);
        }
        for k in FROM_RESULT {
            match result.get(k) {
                Some(v) if !v.is_null() && !resume.contains_key(k) => {
                    resume.insert(k.into(), v.clone());
                }
                _ => {}
            }
        }
        if !resume.contains_key("sandbox") && !resume.contains_key("permissions") {
            if let Some(mode) = sandbox_mode(&result["sandbox"]) {
                resume.insert("sandbox".into(), Value::from(mode));
            }
        }
        Ok(ThreadRef::new(endpoint, thread_id, resume))
    }

    /// The `thread/resume` params: [`resume`](Self::resume) with `overrides` (an object, or
    /// `null` for none) on top, and `threadId`. [`Error::InvalidArgument`] when `overrides`
    /// is neither.
    pub fn resume_params(&self, overrides: &Value) -> Result<Value> {
        let mut p = self.resume.clone();
        match overrides {
            Value::Null => {}
            Value::Object(o) => p.extend(o.clone()),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "thread/resume overrides must be a JSON object, not {other}"
                )))
            }
        }
        p.insert("threadId".into(), Value::String(self.thread_id.clone()));
        Ok(Value::Object(p))
    }

    /// The reference as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a thread reference serialises")
    }

    /// A reference from its JSON text; [`Error::InvalidArgument`] when it is not one.
    pub fn from_json(json: &str) -> Result<ThreadRef> {
        serde_json::from_str(json)
            .map_err(|e| Error::InvalidArgument(format!("not a thread reference: {e}")))
    }
}

/// The `thread/resume` sandbox mode of a result's sandbox policy (`{"type": "readOnly"}`,
/// ...); `None` for a policy with no mode (`externalSandbox`, an unknown one).
fn sandbox_mode(policy: &Value) -> Option<&'static str> {
    Some(match policy.get("type")?.as_str()? {
        "readOnly" => "read-only",
        "workspaceWrite" => "workspace-write",
        "dangerFullAccess" => "danger-full-access",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reference_keeps_what_resume_takes_and_fills_in_the_answer() {
        let params = json!({
            "model": "m1", "approvalPolicy": "untrusted", "ephemeral": false,
            "developerInstructions": "be brief", "dynamicTools": [], "cwd": "/w",
        });
        let result = json!({
            "thread": {"id": "t1"}, "cwd": "/abs/w", "model": "m1", "modelProvider": "mock",
            "approvalPolicy": "untrusted", "sandbox": {"type": "workspaceWrite"},
        });
        let r = ThreadRef::of_open(Some("a"), &params, &result).unwrap();
        assert_eq!(r.thread_id, "t1");
        assert_eq!(r.endpoint.as_deref(), Some("a"));
        assert_eq!(
            Value::Object(r.resume.clone()),
            json!({"model": "m1", "approvalPolicy": "untrusted", "cwd": "/w",
                   "developerInstructions": "be brief", "modelProvider": "mock",
                   "sandbox": "workspace-write"})
        );
        let p = r.resume_params(&json!({"model": "m2"})).unwrap();
        assert_eq!(p["model"], "m2");
        assert_eq!(p["threadId"], "t1");
        assert!(r.resume_params(&json!([1])).is_err());
        let back = ThreadRef::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
        assert!(ThreadRef::from_json("{}").is_err());
        // No thread in the answer: a protocol error.
        assert!(ThreadRef::of_open(None, &params, &json!({})).is_err());
        // `permissions` given: no sandbox mode added (they do not combine).
        let r = ThreadRef::of_open(None, &json!({"permissions": "p"}), &result).unwrap();
        assert!(!r.resume.contains_key("sandbox"));
    }
}
