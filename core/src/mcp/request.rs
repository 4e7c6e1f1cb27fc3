//! The MCP requests by the snake_case names bindings use: method, params, list key.

use serde_json::{json, Value};

use super::{call_params, cursor_params};
use crate::error::{Error, Result};

/// The MCP requests behind the typed helpers, by the snake_case name bindings use: each
/// knows its method; the params are the MCP params as documented per variant. The MCP twin
/// of [`Helper`](crate::Helper) (the Codex client's requests by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpRequest {
    /// `tools/list` (`{cursor?}`).
    ListTools,
    /// `tools/call` (`{name, arguments?}`).
    CallTool,
    /// `resources/list` (`{cursor?}`).
    ListResources,
    /// `resources/templates/list` (`{cursor?}`).
    ListResourceTemplates,
    /// `resources/read` (`{uri}`).
    ReadResource,
    /// `resources/subscribe` (`{uri}`).
    SubscribeResource,
    /// `resources/unsubscribe` (`{uri}`).
    UnsubscribeResource,
    /// `prompts/list` (`{cursor?}`).
    ListPrompts,
    /// `prompts/get` (`{name, arguments?}`).
    GetPrompt,
    /// `completion/complete` (`{ref, argument: {name, value}, context?}`).
    Complete,
    /// `logging/setLevel` (`{level}`).
    SetLoggingLevel,
    /// `ping` (`{}`).
    Ping,
    /// `tools/call` as a task (`{name, arguments?, task: {}}`, 2025-11-25): answered at once
    /// with `{task}`.
    CallToolAsTask,
    /// `tasks/get` (`{taskId}`).
    GetTask,
    /// `tasks/list` (`{cursor?}`).
    ListTasks,
    /// `tasks/cancel` (`{taskId}`).
    CancelTask,
    /// `tasks/result` (`{taskId}`): waits until the task ended.
    TaskResult,
}

impl McpRequest {
    const ALL: [(&'static str, &'static str, McpRequest); 17] = [
        ("list_tools", "tools/list", McpRequest::ListTools),
        ("call_tool", "tools/call", McpRequest::CallTool),
        (
            "list_resources",
            "resources/list",
            McpRequest::ListResources,
        ),
        (
            "list_resource_templates",
            "resources/templates/list",
            McpRequest::ListResourceTemplates,
        ),
        ("read_resource", "resources/read", McpRequest::ReadResource),
        (
            "subscribe_resource",
            "resources/subscribe",
            McpRequest::SubscribeResource,
        ),
        (
            "unsubscribe_resource",
            "resources/unsubscribe",
            McpRequest::UnsubscribeResource,
        ),
        ("list_prompts", "prompts/list", McpRequest::ListPrompts),
        ("get_prompt", "prompts/get", McpRequest::GetPrompt),
        ("complete", "completion/complete", McpRequest::Complete),
        (
            "set_logging_level",
            "logging/setLevel",
            McpRequest::SetLoggingLevel,
        ),
        ("ping", "ping", McpRequest::Ping),
        (
            "call_tool_as_task",
            "tools/call",
            McpRequest::CallToolAsTask,
        ),
        ("get_task", "tasks/get", McpRequest::GetTask),
        ("list_tasks", "tasks/list", McpRequest::ListTasks),
        ("cancel_task", "tasks/cancel", McpRequest::CancelTask),
        ("task_result", "tasks/result", McpRequest::TaskResult),
    ];

    /// The request of a snake_case name: `list_tools`, `call_tool`, `list_resources`,
    /// `list_resource_templates`, `read_resource`, `subscribe_resource`,
    /// `unsubscribe_resource`, `list_prompts`, `get_prompt`, `complete`,
    /// `set_logging_level`, `ping`, and the tasks: `call_tool_as_task`, `get_task`,
    /// `list_tasks`, `cancel_task`, `task_result`.
    pub fn from_name(name: &str) -> Option<McpRequest> {
        Self::ALL.iter().find(|e| e.0 == name).map(|e| e.2)
    }

    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|e| e.2 == self)
            .map(|e| e.1)
            .expect("every request is in the table")
    }

    /// Every snake_case name [`from_name`](Self::from_name) knows, in a fixed order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::ALL.iter().map(|e| e.0)
    }

    /// The params of this request from the two arguments a binding takes, so that no binding
    /// spells a field. `subject` is the one string the request is about: the `cursor` of a
    /// list request (optional), the `name` of the tool (`call_tool`) or prompt
    /// (`get_prompt`) or of the tool run as a task (`call_tool_as_task`), the `uri` of
    /// `read_resource` / `subscribe_resource` / `unsubscribe_resource`, the `level` of
    /// `set_logging_level`, the task id of `get_task` / `cancel_task` / `task_result`; `ping` and `complete`
    /// take none. `arguments` is the JSON object of a tool's or prompt's arguments (`null`:
    /// none), and for `complete` the whole params (`{ref, argument: {name, value},
    /// context?}`); the other requests take none (`null`). Errors: `InvalidArgument` when a
    /// required argument is missing, an argument is given that the request does not take, or
    /// `arguments` is not an object.
    pub fn params(self, subject: Option<&str>, arguments: Value) -> Result<Value> {
        use McpRequest::*;
        let bad = |m: String| Err(Error::InvalidArgument(m));
        let name = Self::ALL
            .iter()
            .find(|e| e.2 == self)
            .map_or("request", |e| e.0);
        let takes_arguments = matches!(self, CallTool | CallToolAsTask | GetPrompt | Complete);
        if !arguments.is_null() && !takes_arguments {
            return bad(format!("`{name}` takes no arguments object"));
        }
        if !arguments.is_null() && !arguments.is_object() {
            return bad(format!("the arguments of `{name}` must be a JSON object"));
        }
        let field = match self {
            ListTools | ListResources | ListResourceTemplates | ListPrompts | ListTasks => "cursor",
            CallTool | GetPrompt | CallToolAsTask => "name",
            GetTask | CancelTask | TaskResult => "taskId",
            ReadResource | SubscribeResource | UnsubscribeResource => "uri",
            SetLoggingLevel => "level",
            Ping | Complete => {
                if subject.is_some() {
                    return bad(format!("`{name}` takes no subject string"));
                }
                return Ok(match self {
                    Complete if arguments.is_null() => {
                        return bad("`complete` needs its params object as arguments".into())
                    }
                    Complete => arguments,
                    _ => json!({}),
                });
            }
        };
        match (field, subject) {
            ("cursor", cursor) => Ok(cursor_params(cursor)),
            (_, None) => bad(format!("`{name}` needs its {field}")),
            ("name", Some(n)) if self == CallToolAsTask => {
                Ok(super::task_call_params(n, arguments, None))
            }
            ("name", Some(n)) => Ok(call_params(n, arguments)),
            (field, Some(s)) => Ok(json!({ field: s })),
        }
    }

    /// The key of the list in a paginated result (`tools`, `resources`, …), for the list
    /// requests.
    pub fn list_key(self) -> Option<&'static str> {
        match self {
            McpRequest::ListTools => Some("tools"),
            McpRequest::ListResources => Some("resources"),
            McpRequest::ListResourceTemplates => Some("resourceTemplates"),
            McpRequest::ListPrompts => Some("prompts"),
            McpRequest::ListTasks => Some("tasks"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_builds_its_params() {
        for name in McpRequest::names() {
            let req = McpRequest::from_name(name).expect("a known name");
            assert!(!req.method().is_empty());
        }
        assert_eq!(McpRequest::names().count(), McpRequest::ALL.len());
        let p = |n: &str, s: Option<&str>, a: Value| McpRequest::from_name(n).unwrap().params(s, a);
        assert_eq!(p("list_tools", None, Value::Null).unwrap(), json!({}));
        assert_eq!(
            p("list_prompts", Some("c2"), Value::Null).unwrap(),
            json!({"cursor": "c2"})
        );
        assert_eq!(
            p("call_tool", Some("echo"), json!({"message": "hi"})).unwrap(),
            json!({"name": "echo", "arguments": {"message": "hi"}})
        );
        assert_eq!(
            p("get_prompt", Some("simple"), Value::Null).unwrap(),
            json!({"name": "simple"})
        );
        assert_eq!(
            p("read_resource", Some("demo://r/1"), Value::Null).unwrap(),
            json!({"uri": "demo://r/1"})
        );
        assert_eq!(
            p("set_logging_level", Some("debug"), Value::Null).unwrap(),
            json!({"level": "debug"})
        );
        assert_eq!(p("ping", None, Value::Null).unwrap(), json!({}));
        assert_eq!(
            p("call_tool_as_task", Some("job"), json!({"ms": 5})).unwrap(),
            json!({"name": "job", "arguments": {"ms": 5}, "task": {}})
        );
        assert_eq!(
            p("cancel_task", Some("t1"), Value::Null).unwrap(),
            json!({"taskId": "t1"})
        );
        assert_eq!(p("list_tasks", None, Value::Null).unwrap(), json!({}));
        let c = json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}});
        assert_eq!(p("complete", None, c.clone()).unwrap(), c);
    }

    #[test]
    fn params_refuse_what_the_request_does_not_take() {
        let p = |n: &str, s: Option<&str>, a: Value| McpRequest::from_name(n).unwrap().params(s, a);
        let msg = |r: Result<Value>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("not an invalid argument: {other:?}"),
        };
        assert!(msg(p("call_tool", None, Value::Null)).contains("needs its name"));
        assert!(msg(p("read_resource", None, Value::Null)).contains("needs its uri"));
        assert!(msg(p("call_tool", Some("echo"), json!([1]))).contains("JSON object"));
        assert!(msg(p("list_tools", None, json!({}))).contains("takes no arguments"));
        assert!(msg(p("ping", Some("x"), Value::Null)).contains("takes no subject"));
        assert!(msg(p("complete", None, Value::Null)).contains("params object"));
    }
}
