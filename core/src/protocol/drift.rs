//! Drift watch: which received values fell back to `Unknown(raw)` or kept fields in `extra`.
//!
//! The generated `Deserialize` impls report here each time a value of a known type does not
//! match any known shape (it becomes `Unknown(raw)`) and each time a struct keeps unknown
//! fields in its `extra` map. Outside [`watch`] a report costs one thread-local check and is
//! dropped; inside it, the reports made on the calling thread are collected. The property tests
//! use it to prove that schema-valid values never fall back, and a caller can use it to see
//! exactly which part of a message drifted.
//!
//! ```
//! use codex_client::protocol::{drift, ServerNotification};
//! let params = serde_json::json!({"threadId": "t", "turnId": "u", "itemId": "i", "delta": "x"});
//! let (_note, fallbacks) = drift::watch(|| ServerNotification::parse("item/agentMessage/delta", params));
//! assert!(fallbacks.is_empty(), "{fallbacks:?}");
//! ```

use std::cell::{Cell, RefCell};

use serde_json::{Map, Value};

/// One value that did not decode to a known shape, or a struct that kept unknown fields.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Fallback {
    /// The generated type that fell back (its schema definition name).
    pub type_name: &'static str,
    /// What happened.
    pub kind: FallbackKind,
}

/// What a [`Fallback`] was.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FallbackKind {
    /// The value matched no known shape and was kept as `Unknown(raw)`.
    Unknown {
        /// The raw JSON that was kept.
        raw: Value,
    },
    /// The struct decoded, and these fields (not declared by any known version) went to `extra`.
    ExtraFields {
        /// The names of the fields kept in `extra`.
        keys: Vec<String>,
    },
}

thread_local! {
    static WATCHED: RefCell<Option<Vec<Fallback>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, every fallback reported on this thread while it ran
/// (in the order they happened). Nested calls each see only their own reports.
pub fn watch<T>(f: impl FnOnce() -> T) -> (T, Vec<Fallback>) {
    let outer = WATCHED.with(|w| w.borrow_mut().replace(Vec::new()));
    // Restore the outer watch even if `f` panics.
    struct Restore(Option<Option<Vec<Fallback>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                WATCHED.with(|w| *w.borrow_mut() = outer);
            }
        }
    }
    let mut restore = Restore(Some(outer));
    let out = f();
    let seen = WATCHED.with(|w| w.borrow_mut().take()).unwrap_or_default();
    if let Some(outer) = restore.0.take() {
        WATCHED.with(|w| *w.borrow_mut() = outer);
    }
    (out, seen)
}

fn report(weight: u32, make: impl FnOnce() -> Fallback) {
    // Inside a trial (an untagged union trying an alternative) reports only count.
    let in_trial = TRIAL.with(|t| match t.get() {
        Some(score) => {
            t.set(Some(score.saturating_add(weight)));
            true
        }
        None => false,
    });
    if in_trial {
        return;
    }
    WATCHED.with(|w| {
        if let Some(list) = w.borrow_mut().as_mut() {
            list.push(make());
        }
    });
}

/// Called by generated code: a value of `type_name` fell back to `Unknown(raw)`.
#[doc(hidden)]
pub fn unknown(type_name: &'static str, raw: &Value) {
    report(1, || Fallback {
        type_name,
        kind: FallbackKind::Unknown { raw: raw.clone() },
    });
}

/// Called by generated code: a struct of `type_name` decoded with fields in `extra`.
#[doc(hidden)]
pub fn extra_fields(type_name: &'static str, extra: &Map<String, Value>) {
    if extra.is_empty() {
        return;
    }
    report(u32::try_from(extra.len()).unwrap_or(u32::MAX), || {
        Fallback {
            type_name,
            kind: FallbackKind::ExtraFields {
                keys: extra.keys().cloned().collect(),
            },
        }
    });
}

/// Called by generated code: a single-value enum (the discriminator of a union alternative,
/// such as `type: "string"`) got another value. Reported like [`unknown`]; to an untagged union
/// trying alternatives it means "not this alternative".
#[doc(hidden)]
pub fn unknown_discriminator(type_name: &'static str, raw: &Value) {
    report(DISQUALIFIED, || Fallback {
        type_name,
        kind: FallbackKind::Unknown { raw: raw.clone() },
    });
}

/// The drift score of a trial whose discriminator did not match (see [`trial`]).
pub(crate) const DISQUALIFIED: u32 = 1 << 24;

thread_local! {
    static TRIAL: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Runs `f` (a decoding attempt of one alternative of an untagged union) as a trial: what it
/// reports is not recorded but scored (1 a nested `Unknown`, 1 an extra field,
/// [`DISQUALIFIED`] a discriminator mismatch). Returns `f`'s result and the score.
pub(crate) fn trial<T>(f: impl FnOnce() -> T) -> (T, u32) {
    struct Restore(Option<u32>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TRIAL.with(|t| t.set(self.0));
        }
    }
    let restore = Restore(TRIAL.with(|t| t.replace(Some(0))));
    let out = f();
    let score = TRIAL.with(Cell::get).unwrap_or(0);
    drop(restore);
    (out, score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_only_inside_watch_and_nests() {
        unknown("Outside", &Value::Null);
        let ((), outer) = watch(|| {
            unknown("A", &Value::Bool(true));
            let ((), inner) =
                watch(|| extra_fields("B", &Map::from_iter([("k".into(), Value::Null)])));
            assert_eq!(inner.len(), 1);
            assert_eq!(inner[0].type_name, "B");
            extra_fields("C", &Map::new()); // empty extra is not a report
        });
        assert_eq!(outer.len(), 1);
        assert_eq!(outer[0].type_name, "A");
        let ((), none) = watch(|| ());
        assert!(none.is_empty());
    }
}
