//! Members of an event's `params`, read from its raw JSON without parsing the rest: the fields
//! that bindings show as attributes of events (`item`, `itemId`, `turn`, `turn.status`,
//! `turn.error`), so that no binding spells a protocol field.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::value::RawValue;

use crate::scan;

/// The raw JSON of member `key` of the object `json` (the last one when a key repeats, as a
/// JSON parser reads it); `None` when absent or `json` is not an object.
pub(crate) fn raw<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let mut found = None;
    match scan::members(json, |k, v| {
        if k == key {
            found = Some(v)
        }
    }) {
        Some(()) => found,
        // A key with an escape: the scanner leaves it to serde.
        None => serde_json::from_str::<HashMap<Cow<'a, str>, &'a RawValue>>(json)
            .ok()?
            .get(key)
            .map(|v| v.get()),
    }
}

/// Member `key` of `json` when it is a string.
pub(crate) fn string(json: &str, key: &str) -> Option<String> {
    match scan::as_str(raw(json, key)?) {
        scan::Str::Plain(s) => Some(s.to_owned()),
        scan::Str::Escaped => serde_json::from_str(raw(json, key)?).ok(),
        scan::Str::NotString => None,
    }
}

/// `params.item`.
pub(crate) fn item(params: &str) -> Option<&str> {
    raw(params, "item")
}

/// `params.itemId`, or `params.item.id`.
pub(crate) fn item_id(params: &str) -> Option<String> {
    string(params, "itemId").or_else(|| string(item(params)?, "id"))
}

/// `params.turn`.
pub(crate) fn turn(params: &str) -> Option<&str> {
    raw(params, "turn")
}

/// `params.turn.status`.
pub(crate) fn turn_status(params: &str) -> Option<String> {
    string(turn(params)?, "status")
}

/// `params.turn.error`.
pub(crate) fn turn_error(params: &str) -> Option<&str> {
    raw(turn(params)?, "error")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_members_like_a_parser() {
        let p = r#"{"item":{"id":"it\u0031","type":"x"},"turn":{"id":"t","status":"failed","error":{"message":"m"}},"n":1,"n":2}"#;
        assert_eq!(item(p), Some(r#"{"id":"it\u0031","type":"x"}"#));
        assert_eq!(item_id(p).as_deref(), Some("it1"));
        assert_eq!(turn_status(p).as_deref(), Some("failed"));
        assert_eq!(turn_error(p), Some(r#"{"message":"m"}"#));
        assert_eq!(raw(p, "n"), Some("2"));
        assert_eq!(
            item_id(r#"{"itemId":"a","item":{"id":"b"}}"#).as_deref(),
            Some("a")
        );
        assert_eq!(item_id(r#"{"itemId":3}"#), None);
        assert_eq!(raw(r#"{"it\u0065m":5}"#, "item"), Some("5"));
        assert_eq!(raw("[1]", "item"), None);
        assert_eq!(turn_error(r#"{"turn":{"error":null}}"#), Some("null"));
        assert_eq!(turn_status("{}"), None);
    }
}
