//! A tool result's `structuredContent` checked against the tool's `outputSchema` (as the
//! official SDKs do): the schemas come from this connection's `tools/list` answers, kept as
//! the server sent them and compiled on first use; `notifications/tools/list_changed` drops
//! them. `$ref`s are resolved within the schema only: a remote or file `$ref` is never
//! fetched (the schema is then not checked, with a warning).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::error::{Error, OutputSchemaMismatch, Result};

/// Refuses every external `$ref`: nothing is fetched, ever.
struct NoFetch;

impl jsonschema::Retrieve for NoFetch {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> std::result::Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external $ref `{uri}` is not fetched").into())
    }
}

/// One tool's output schema: as sent, then compiled (or why it could not be).
enum Schema {
    Raw(Value),
    Compiled(Arc<jsonschema::Validator>),
    Unusable,
}

#[derive(Default)]
struct State {
    /// Output schemas by tool name (tools without one are absent).
    schemas: HashMap<String, Schema>,
    /// A `tools/list` answer was recorded since the connection began.
    listed: bool,
    /// `notifications/tools/list_changed` came after the last listing.
    stale: bool,
}

/// The output schemas of one connection's tools.
#[derive(Default)]
pub(crate) struct ToolSchemas {
    state: Mutex<State>,
}

impl ToolSchemas {
    /// Keep the output schemas of the tools of one `tools/list` page (raw JSON, as sent).
    /// The first page after a `list_changed` replaces what was kept.
    pub(crate) fn record(&self, tools: &[Value], first_page: bool) {
        let mut st = self.state.lock().unwrap();
        if first_page || st.stale {
            st.schemas.clear();
            st.stale = false;
        }
        st.listed = true;
        for t in tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            match t.get("outputSchema") {
                Some(s) if s.is_object() || s.is_boolean() => {
                    st.schemas.insert(name.to_owned(), Schema::Raw(s.clone()));
                }
                _ => {
                    st.schemas.remove(name);
                }
            }
        }
    }

    /// Keep the schemas of a `tools/list` answer, however it was asked for (typed helper or
    /// raw request).
    fn record_raw(
        &self,
        params: &serde_json::value::RawValue,
        result: &serde_json::value::RawValue,
    ) {
        #[derive(serde::Deserialize)]
        struct List {
            #[serde(default)]
            tools: Vec<Value>,
        }
        #[derive(serde::Deserialize)]
        struct Params {
            cursor: Option<serde::de::IgnoredAny>,
        }
        let first_page =
            serde_json::from_str::<Params>(params.get()).map_or(true, |p| p.cursor.is_none());
        if let Ok(list) = serde_json::from_str::<List>(result.get()) {
            self.record(&list.tools, first_page);
        }
    }

    /// The server changed its tools (`notifications/tools/list_changed`): the schemas kept
    /// are no longer trusted.
    pub(crate) fn invalidate(&self) {
        let mut st = self.state.lock().unwrap();
        st.schemas.clear();
        st.stale = st.listed;
    }

    /// Whether the tools were listed on this connection and changed since: a call should
    /// list them again before its result is checked.
    pub(crate) fn needs_relist(&self) -> bool {
        let st = self.state.lock().unwrap();
        st.listed && st.stale
    }

    /// The validator of `tool`'s output schema, when it has one that compiles.
    fn validator(&self, tool: &str) -> Option<Arc<jsonschema::Validator>> {
        let mut st = self.state.lock().unwrap();
        let slot = st.schemas.get_mut(tool)?;
        if let Schema::Raw(raw) = slot {
            *slot = match jsonschema::options().with_retriever(NoFetch).build(raw) {
                Ok(v) => Schema::Compiled(Arc::new(v)),
                Err(e) => {
                    tracing::warn!(
                        tool,
                        "MCP: the outputSchema of tool `{tool}` cannot be used, its results are not checked: {e}"
                    );
                    Schema::Unusable
                }
            };
        }
        match slot {
            Schema::Compiled(v) => Some(v.clone()),
            _ => None,
        }
    }

    /// Check the answer to a request: for `tools/call` of a tool with an output schema, the
    /// result must match it (see [`check`](Self::check)); a task-augmented call (its params
    /// carry `task`) is not checked. Anything else passes untouched.
    pub(crate) fn check_raw(
        &self,
        method: &str,
        params: &serde_json::value::RawValue,
        result: &serde_json::value::RawValue,
    ) -> Result<()> {
        if method == "tools/list" {
            self.record_raw(params, result);
            return Ok(());
        }
        if method != "tools/call" || self.state.lock().unwrap().schemas.is_empty() {
            return Ok(());
        }
        #[derive(serde::Deserialize)]
        struct Call<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
            task: Option<serde::de::IgnoredAny>,
        }
        let Ok(call) = serde_json::from_str::<Call<'_>>(params.get()) else {
            return Ok(());
        };
        if call.task.is_some() || !self.state.lock().unwrap().schemas.contains_key(&*call.name) {
            return Ok(());
        }
        let Ok(v) = serde_json::from_str::<Value>(result.get()) else {
            return Ok(());
        };
        self.check(&call.name, &v)
    }

    /// Check a `tools/call` result of `tool` against its output schema: a result that is
    /// not an error must carry `structuredContent` matching it. Tools not listed on this
    /// connection, or without a usable schema, pass, and so do MCP 2026-07-28
    /// input-required answers (not a result yet).
    pub(crate) fn check(&self, tool: &str, result: &Value) -> Result<()> {
        if result.get("isError").and_then(Value::as_bool) == Some(true)
            || super::era::result_type(result) == "input_required"
        {
            return Ok(());
        }
        let Some(validator) = self.validator(tool) else {
            return Ok(());
        };
        let mismatch = |path: String, message: String| {
            Err(Error::OutputSchemaMismatch(Box::new(
                OutputSchemaMismatch {
                    tool: tool.to_owned(),
                    path,
                    message,
                    result: result.clone(),
                },
            )))
        };
        let Some(structured) = result.get("structuredContent") else {
            return mismatch(
                String::new(),
                "the tool declares an outputSchema but its result has no structuredContent".into(),
            );
        };
        let first = validator
            .iter_errors(structured)
            .next()
            .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()));
        match first {
            None => Ok(()),
            Some((path, message)) => mismatch(path, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(schema: Value) -> ToolSchemas {
        let s = ToolSchemas::default();
        s.record(
            &[
                json!({"name": "t", "outputSchema": schema}),
                json!({"name": "plain"}),
            ],
            true,
        );
        s
    }

    #[test]
    fn a_mismatch_names_the_tool_and_the_failing_path() {
        let s = listed(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
            "required": ["items"],
            "$defs": {"item": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        }));
        let ok = json!({"structuredContent": {"items": [{"n": 1}]}});
        s.check("t", &ok).unwrap();
        let bad = json!({"structuredContent": {"items": [{"n": 1}, {"n": "two"}]}});
        match s.check("t", &bad) {
            Err(Error::OutputSchemaMismatch(m)) => {
                assert_eq!(m.tool, "t");
                assert_eq!(m.path, "/items/1/n");
                assert!(m.message.contains("integer"), "{}", m.message);
                assert_eq!(m.result, bad);
            }
            other => panic!("not a mismatch: {other:?}"),
        }
        let missing = json!({"content": []});
        assert!(
            matches!(s.check("t", &missing), Err(Error::OutputSchemaMismatch(m)) if m.path.is_empty())
        );
        // Errors, tools without a schema and unknown tools pass.
        s.check("t", &json!({"isError": true})).unwrap();
        s.check("plain", &json!({"structuredContent": 5})).unwrap();
        s.check("other", &json!({"structuredContent": 5})).unwrap();
    }

    #[test]
    fn a_remote_ref_is_never_fetched_and_the_schema_is_skipped() {
        let s = listed(json!({"$ref": "https://127.0.0.1:9/never.json"}));
        s.check("t", &json!({"structuredContent": {"any": 1}}))
            .unwrap();
    }

    #[test]
    fn list_changed_drops_the_schemas_until_the_next_listing() {
        let s = listed(json!({"type": "object", "required": ["x"]}));
        assert!(!s.needs_relist());
        s.invalidate();
        assert!(s.needs_relist());
        s.check("t", &json!({"structuredContent": {}})).unwrap();
        s.record(
            &[json!({"name": "t", "outputSchema": {"type": "object", "required": ["y"]}})],
            true,
        );
        assert!(!s.needs_relist());
        assert!(s
            .check("t", &json!({"structuredContent": {"x": 1}}))
            .is_err());
        s.check("t", &json!({"structuredContent": {"y": 1}}))
            .unwrap();
    }
}
