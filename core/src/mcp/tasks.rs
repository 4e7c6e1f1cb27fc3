//! MCP tasks (2025-11-25, experimental): a request the server runs in the background. A
//! task-augmented `tools/call` ([`Client::call_tool_as_task`]) is answered at once with a
//! [`Task`]; the task is then polled ([`Client::get_task`], [`Client::wait_task`]), its result
//! taken ([`Client::task_result`], which waits for the end), listed or cancelled. A server that
//! does not run the call as a task answers it plainly ([`TaskCall::Done`]).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

use super::{cursor_params, decode, split_page, CallToolResult, Extra, Page};
use crate::error::{Error, Result};
use crate::mcp::McpClient;

/// The `_meta` key that ties a message to a task.
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";
/// How often [`Client::wait_task`] polls when the server suggests no interval.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// The shortest poll interval honoured.
const MIN_POLL: Duration = Duration::from_millis(10);

/// A task's state (`tasks/get`, `tasks/cancel`, `notifications/tasks/status`, the answer to a
/// task-augmented request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task's id, chosen by the server.
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// What the server says about the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (ISO 8601).
    #[serde(default)]
    pub created_at: String,
    /// When its status last changed (ISO 8601).
    #[serde(default)]
    pub last_updated_at: String,
    /// How long (ms) the server keeps the task after it was created (`None`: unlimited).
    #[serde(default)]
    pub ttl: Option<u64>,
    /// The poll interval (ms) the server suggests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Task {
    /// Whether the task ended (`completed`, `failed` or `cancelled`): its status no longer
    /// changes.
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }

    /// Whether the task waits for input (answer the server's requests tied to it).
    pub fn needs_input(&self) -> bool {
        self.status == "input_required"
    }
}

/// The answer to a task-augmented `tools/call`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskCall {
    /// The server runs the call as this task.
    Task(Task),
    /// The server ran the call at once (it does not run this tool as a task).
    Done(CallToolResult),
}

/// The params of a task-augmented `tools/call`.
pub fn task_call_params(name: &str, arguments: Value, ttl: Option<Duration>) -> Value {
    let mut task = json!({});
    if let Some(ttl) = ttl {
        task["ttl"] = json!(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
    }
    let mut p = json!({ "name": name, "task": task });
    if !arguments.is_null() {
        p["arguments"] = arguments;
    }
    p
}

/// Read the answer to a task-augmented request: `{task}` or a plain result.
pub fn decode_task_call(mut result: Value) -> Result<TaskCall> {
    match result.get_mut("task").map(Value::take) {
        Some(task) if task.is_object() => Ok(TaskCall::Task(decode("task", task)?)),
        _ => Ok(TaskCall::Done(decode("tools/call", result)?)),
    }
}

impl McpClient {
    /// MCP `tools/call` as a task (`params.task`, with `ttl` if given): answered at once with
    /// the [`Task`], or with the result when the server runs the call plainly.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<Duration>,
    ) -> Result<TaskCall> {
        let v = self
            .request("tools/call", task_call_params(name, arguments, ttl))
            .await?;
        decode_task_call(v)
    }

    /// MCP `tasks/get`: the task's state now.
    pub async fn get_task(&self, task_id: &str) -> Result<Task> {
        let v = self
            .request("tasks/get", json!({ "taskId": task_id }))
            .await?;
        decode("tasks/get", v)
    }

    /// MCP `tasks/list`: one page of the tasks the server keeps for this client.
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<Page<Task>> {
        let v = self.request("tasks/list", cursor_params(cursor)).await?;
        let (items, next_cursor) = split_page("tasks", v)?;
        Ok(Page {
            items: decode("tasks/list", Value::Array(items))?,
            next_cursor,
        })
    }

    /// MCP `tasks/cancel`: the task's state after the cancellation (a task that already ended
    /// cannot be cancelled: the server answers an error).
    pub async fn cancel_task(&self, task_id: &str) -> Result<Task> {
        let v = self
            .request("tasks/cancel", json!({ "taskId": task_id }))
            .await?;
        decode("tasks/cancel", v)
    }

    /// MCP `tasks/result`: the result of the task's request, as the request would have been
    /// answered. The server holds its answer until the task ended, so this waits that long
    /// (bounded by the default timeout; [`Client::request_with`](crate::Client::request_with) takes another).
    pub async fn task_result(&self, task_id: &str) -> Result<Value> {
        self.request("tasks/result", json!({ "taskId": task_id }))
            .await
    }

    /// [`task_result`](Self::task_result) of a task-augmented `tools/call`, typed.
    pub async fn task_tool_result(&self, task_id: &str) -> Result<CallToolResult> {
        decode("tasks/result", self.task_result(task_id).await?)
    }

    /// Poll `tasks/get` (at the server's suggested interval) until the task ends or waits for
    /// input; fails with [`Error::Timeout`] after `within`.
    pub async fn wait_task(&self, task_id: &str, within: Duration) -> Result<Task> {
        let end = Instant::now() + within;
        loop {
            let task = self.get_task(task_id).await?;
            if task.is_terminal() || task.needs_input() {
                return Ok(task);
            }
            let every = task
                .poll_interval
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .max(MIN_POLL);
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Timeout {
                    method: "tasks/get".into(),
                    after: within,
                });
            }
            crate::rt::sleep(every.min(left)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_and_answers() {
        assert_eq!(
            task_call_params("job", json!({"ms": 5}), Some(Duration::from_secs(2))),
            json!({"name": "job", "arguments": {"ms": 5}, "task": {"ttl": 2000}})
        );
        assert_eq!(
            task_call_params("job", Value::Null, None),
            json!({"name": "job", "task": {}})
        );
        let t = json!({"task": {"taskId": "t1", "status": "working", "createdAt": "x",
            "lastUpdatedAt": "x", "ttl": null, "pollInterval": 50}});
        match decode_task_call(t).unwrap() {
            TaskCall::Task(t) => {
                assert_eq!(
                    (t.task_id.as_str(), t.ttl, t.poll_interval),
                    ("t1", None, Some(50))
                );
                assert!(!t.is_terminal() && !t.needs_input());
            }
            other => panic!("{other:?}"),
        }
        let plain = json!({"content": [{"type": "text", "text": "hi"}]});
        assert!(matches!(decode_task_call(plain).unwrap(), TaskCall::Done(r) if r.text() == "hi"));
    }
}
