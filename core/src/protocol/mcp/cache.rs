//! The client-side cache of MCP 2026-07-28 results (option `mcp_cache`, on by default, as the
//! official Python SDK does): a `tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list` or `resources/read` result with a positive `ttlMs` hint is
//! served again, without a request, while fresh (`now < received + ttlMs`). The key is the
//! method with the params that decide the result (`cursor`, `uri`); a retried input-required
//! request (`inputResponses`, `requestState`) is neither served nor stored, nor is an
//! `input_required` result. A change notification makes its entries stale at once
//! (`notifications/tools/list_changed`, `…/prompts/…`, `…/resources/list_changed` — the
//! resource lists and templates —, `notifications/resources/updated` of a URI). One cache per
//! connection (one authorization context: `private` and `public` results alike); a new session
//! starts empty. The handshake era has no hints: nothing is cached there.

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The methods whose results carry cache hints.
const CACHEABLE: [&str; 5] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// Cached results by key (method and the params that decide the result).
#[derive(Default)]
pub(crate) struct Cache {
    entries: Mutex<HashMap<String, (Instant, Box<RawValue>)>>,
}

/// The cache key of a request, or `None` when it is not cacheable.
fn key(method: &str, params: &RawValue) -> Option<String> {
    if !CACHEABLE.contains(&method) {
        return None;
    }
    let p: Value = serde_json::from_str(params.get()).ok()?;
    if p.get("inputResponses").is_some() || p.get("requestState").is_some() {
        return None;
    }
    let arg = |k: &str| {
        p.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(format!("{method}\n{}\n{}", arg("cursor"), arg("uri")))
}

impl Cache {
    /// A fresh result for the request, if one is cached.
    pub(crate) fn get(&self, method: &str, params: &RawValue) -> Option<Box<RawValue>> {
        let k = key(method, params)?;
        let mut entries = self.entries.lock().unwrap();
        match entries.get(&k) {
            Some((until, v)) if Instant::now() < *until => Some(v.clone()),
            Some(_) => {
                entries.remove(&k);
                None
            }
            None => None,
        }
    }

    /// Keep `result` of the request while its `ttlMs` says it is fresh.
    pub(crate) fn put(&self, method: &str, params: &RawValue, result: &RawValue) {
        let Some(k) = key(method, params) else {
            return;
        };
        #[derive(serde::Deserialize)]
        struct Hints {
            #[serde(rename = "ttlMs")]
            ttl: Option<i64>,
            #[serde(rename = "resultType")]
            result_type: Option<String>,
        }
        let Ok(h) = serde_json::from_str::<Hints>(result.get()) else {
            return;
        };
        let ttl = h.ttl.unwrap_or(0);
        if ttl <= 0 || h.result_type.is_some_and(|t| t != "complete") {
            return;
        }
        let until = Instant::now() + Duration::from_millis(ttl as u64);
        self.entries
            .lock()
            .unwrap()
            .insert(k, (until, result.to_owned()));
    }

    /// A notification arrived: its entries are stale.
    pub(crate) fn notified(&self, method: &str, params: &RawValue) {
        let prefixes: &[&str] = match method {
            "notifications/tools/list_changed" => &["tools/list\n"],
            "notifications/prompts/list_changed" => &["prompts/list\n"],
            "notifications/resources/list_changed" => {
                &["resources/list\n", "resources/templates/list\n"]
            }
            "notifications/resources/updated" => {
                let uri = serde_json::from_str::<Value>(params.get())
                    .ok()
                    .and_then(|p| p.get("uri")?.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let k = format!("resources/read\n\n{uri}");
                self.entries.lock().unwrap().remove(&k);
                return;
            }
            _ => return,
        };
        self.entries
            .lock()
            .unwrap()
            .retain(|k, _| !prefixes.iter().any(|p| k.starts_with(p)));
    }

    /// How many entries are kept (fresh or not yet found stale).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    #[test]
    fn fresh_results_are_served_until_their_ttl_or_a_notification() {
        let c = Cache::default();
        let p = raw(serde_json::json!({"_meta": {"x": 1}}));
        let r = raw(serde_json::json!({"tools": [], "ttlMs": 60_000, "cacheScope": "public"}));
        assert!(c.get("tools/list", &p).is_none());
        c.put("tools/list", &p, &r);
        assert_eq!(c.get("tools/list", &p).unwrap().get(), r.get());
        // Another cursor is another key.
        assert!(c
            .get("tools/list", &raw(serde_json::json!({"cursor": "2"})))
            .is_none());
        c.notified(
            "notifications/prompts/list_changed",
            &raw(serde_json::json!({})),
        );
        assert!(c.get("tools/list", &p).is_some());
        c.notified(
            "notifications/tools/list_changed",
            &raw(serde_json::json!({})),
        );
        assert!(c.get("tools/list", &p).is_none());
    }

    #[test]
    fn what_is_never_cached() {
        let c = Cache::default();
        let p = raw(serde_json::json!({"uri": "a://b"}));
        for r in [
            serde_json::json!({"contents": [], "ttlMs": 0}),
            serde_json::json!({"contents": []}),
            serde_json::json!({"contents": [], "ttlMs": -5}),
            serde_json::json!({"resultType": "input_required", "ttlMs": 9000}),
        ] {
            c.put("resources/read", &p, &raw(r));
        }
        c.put(
            "resources/read",
            &raw(serde_json::json!({"uri": "a://b", "requestState": "s"})),
            &raw(serde_json::json!({"contents": [], "ttlMs": 9000})),
        );
        c.put(
            "tools/call",
            &p,
            &raw(serde_json::json!({"content": [], "ttlMs": 9000})),
        );
        assert_eq!(c.len(), 0);
        c.put(
            "resources/read",
            &p,
            &raw(serde_json::json!({"contents": [], "ttlMs": 9000})),
        );
        assert!(c.get("resources/read", &p).is_some());
        c.notified(
            "notifications/resources/updated",
            &raw(serde_json::json!({"uri": "a://b"})),
        );
        assert!(c.get("resources/read", &p).is_none());
    }
}
