//! The pool's own options ([`PoolOptions`]) and each endpoint's placement settings
//! ([`EndpointOptions`]), one row each in [`POOL_KEYS`] / [`ENDPOINT_KEYS`] (name, default,
//! meaning), set by name from JSON the way the bindings give them. An endpoint's connection
//! options are ordinary [`ClientOptions`](crate::ClientOptions).

use serde_json::Value;
use std::time::Duration;

use crate::error::{Error, Result};

/// One option of a pool or an endpoint: its name, default and meaning (the bindings' docs and
/// keyword lists are made from these rows).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PoolKey {
    /// The name, as bindings spell it.
    pub name: &'static str,
    /// The default, as JSON text.
    pub default: &'static str,
    /// What it means.
    pub doc: &'static str,
}

/// The pool's options.
pub const POOL_KEYS: &[PoolKey] = &[
    PoolKey {
        name: "place_timeout",
        default: "30",
        doc: "Seconds `thread_start` may spend placing a thread: waiting for an endpoint with capacity and trying the next endpoint after one answered overloaded (-32001). Past it the call fails (`Unavailable`, or `Overloaded` when the last endpoint tried was overloaded). Must be > 0.",
    },
    PoolKey {
        name: "max_running_turns",
        default: "0",
        doc: "Default limit on the running turns of each endpoint (an endpoint's own `max_running_turns` overrides it): an endpoint at its limit takes no new thread. 0: no limit.",
    },
    PoolKey {
        name: "overload_backoff",
        default: "0.5",
        doc: "Seconds an endpoint that answered `thread/start` with overloaded (-32001) is passed over by placement.",
    },
];

/// Each endpoint's placement settings (beside its client options).
pub const ENDPOINT_KEYS: &[PoolKey] = &[
    PoolKey {
        name: "max_running_turns",
        default: "null",
        doc: "This endpoint's limit on running turns (null: the pool's `max_running_turns`; 0: no limit).",
    },
    PoolKey {
        name: "shared_home",
        default: "null",
        doc: "A name for the CODEX_HOME this endpoint's server uses, when several endpoints share one (a network file system): a thread of a lost endpoint can be resumed on another endpoint with the same `shared_home` (`resume_elsewhere`). null: shared with none.",
    },
];

/// Options of a [`Pool`](super::Pool).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PoolOptions {
    /// See the `place_timeout` row of [`POOL_KEYS`].
    pub place_timeout: Duration,
    /// See the `max_running_turns` row of [`POOL_KEYS`] (0: no limit).
    pub max_running_turns: usize,
    /// See the `overload_backoff` row of [`POOL_KEYS`].
    pub overload_backoff: Duration,
}

impl Default for PoolOptions {
    fn default() -> Self {
        let mut o = PoolOptions {
            place_timeout: Duration::ZERO,
            max_running_turns: 0,
            overload_backoff: Duration::ZERO,
        };
        for k in POOL_KEYS {
            let v: Value = serde_json::from_str(k.default).expect("a default is JSON");
            o.set(k.name, &v).expect("a default is valid");
        }
        o
    }
}

fn seconds(name: &str, v: &Value, zero_ok: bool) -> Result<Duration> {
    let s = v
        .as_f64()
        .filter(|s| s.is_finite() && *s >= 0.0 && (zero_ok || *s > 0.0) && *s < 1e9)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "pool option `{name}`: expected a number of seconds{}, got {v}",
                if zero_ok { " >= 0" } else { " > 0" }
            ))
        })?;
    Ok(Duration::from_secs_f64(s))
}

fn count(scope: &str, name: &str, v: &Value) -> Result<usize> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{scope} option `{name}`: expected a count >= 0, got {v}"
            ))
        })
}

fn unknown(scope: &str, name: &str, keys: &[PoolKey]) -> Error {
    let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
    Error::InvalidArgument(format!(
        "unknown {scope} option `{name}` (known: {})",
        names.join(", ")
    ))
}

impl PoolOptions {
    /// Set one option by name from JSON (`null`: its default).
    pub fn set(&mut self, name: &str, v: &Value) -> Result<()> {
        let key = POOL_KEYS
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| unknown("pool", name, POOL_KEYS))?;
        let default;
        let v = if v.is_null() {
            default = serde_json::from_str::<Value>(key.default).expect("a default is JSON");
            &default
        } else {
            v
        };
        match name {
            "place_timeout" => self.place_timeout = seconds(name, v, false)?,
            "max_running_turns" => self.max_running_turns = count("pool", name, v)?,
            "overload_backoff" => self.overload_backoff = seconds(name, v, true)?,
            _ => unreachable!("every row has a setter"),
        }
        Ok(())
    }

    /// Options from a JSON object of option names (the bindings' keywords).
    pub fn from_json(v: &Value) -> Result<PoolOptions> {
        let mut o = PoolOptions::default();
        if v.is_null() {
            return Ok(o);
        }
        let m = v.as_object().ok_or_else(|| {
            Error::InvalidArgument(format!("pool options must be a JSON object, got {v}"))
        })?;
        for (k, v) in m {
            o.set(k, v)?;
        }
        Ok(o)
    }

    /// With `place_timeout` set.
    pub fn place_timeout(mut self, t: Duration) -> Self {
        self.place_timeout = t;
        self
    }

    /// With `max_running_turns` set (0: no limit).
    pub fn max_running_turns(mut self, n: usize) -> Self {
        self.max_running_turns = n;
        self
    }

    /// With `overload_backoff` set.
    pub fn overload_backoff(mut self, t: Duration) -> Self {
        self.overload_backoff = t;
        self
    }
}

/// Placement settings of one endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndpointOptions {
    /// See the `max_running_turns` row of [`ENDPOINT_KEYS`] (`None`: the pool's).
    pub max_running_turns: Option<usize>,
    /// See the `shared_home` row of [`ENDPOINT_KEYS`].
    pub shared_home: Option<String>,
}

impl EndpointOptions {
    /// Set one setting by name from JSON (`null`: its default).
    pub fn set(&mut self, name: &str, v: &Value) -> Result<()> {
        match name {
            "max_running_turns" => {
                self.max_running_turns = if v.is_null() {
                    None
                } else {
                    Some(count("endpoint", name, v)?)
                }
            }
            "shared_home" => {
                self.shared_home = match v {
                    Value::Null => None,
                    Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                    "endpoint option `shared_home`: expected a non-empty string or null, got {v}"
                )))
                    }
                }
            }
            _ => return Err(unknown("endpoint", name, ENDPOINT_KEYS)),
        }
        Ok(())
    }

    /// With `max_running_turns` set.
    pub fn max_running_turns(mut self, n: usize) -> Self {
        self.max_running_turns = Some(n);
        self
    }

    /// With `shared_home` set.
    pub fn shared_home(mut self, name: impl Into<String>) -> Self {
        self.shared_home = Some(name.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_come_from_the_rows_and_bad_values_name_the_option() {
        let o = PoolOptions::default();
        assert_eq!(o.place_timeout, Duration::from_secs(30));
        assert_eq!(o.max_running_turns, 0);
        assert_eq!(o.overload_backoff, Duration::from_millis(500));
        let o =
            PoolOptions::from_json(&json!({"place_timeout": 2.5, "max_running_turns": 3})).unwrap();
        assert_eq!(o.place_timeout, Duration::from_millis(2500));
        assert_eq!(o.max_running_turns, 3);
        for (k, v) in [
            ("place_timeout", json!(0)),
            ("place_timeout", json!("x")),
            ("max_running_turns", json!(-1)),
            ("overload_backoff", json!(-0.5)),
        ] {
            let e = PoolOptions::from_json(&json!({ k: v }))
                .unwrap_err()
                .to_string();
            assert!(e.contains(k), "{e}");
        }
        let e = PoolOptions::from_json(&json!({"nope": 1}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope") && e.contains("place_timeout"), "{e}");
        let mut e = EndpointOptions::default();
        e.set("shared_home", &json!("nfs")).unwrap();
        e.set("max_running_turns", &json!(2)).unwrap();
        assert_eq!(
            e,
            EndpointOptions::default()
                .shared_home("nfs")
                .max_running_turns(2)
        );
        assert!(e.set("shared_home", &json!("")).is_err());
        assert!(e.set("color", &json!(1)).is_err());
    }
}
