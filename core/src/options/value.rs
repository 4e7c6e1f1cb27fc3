//! Reading one option value (JSON, as every binding hands it over) into a Rust value, with
//! the error message that names the option and what it takes.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::error::{Error, Result};

/// The longest duration an option takes: one year, in seconds.
pub const MAX_SECONDS: u64 = 31_536_000;

/// A refused value: names the option and what it takes, and shows the value unless the
/// option is a secret.
pub(crate) fn refuse(key: &str, takes: &str, got: &Value, secret: bool) -> Error {
    let shown = if secret {
        "a value (not shown: the option is secret)".to_owned()
    } else {
        let mut s = got.to_string();
        if s.len() > 80 {
            let mut cut = 77;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push_str("...");
        }
        s
    };
    Error::InvalidArgument(format!("option `{key}` takes {takes}; got {shown}"))
}

pub(crate) fn bool_of(key: &str, v: &Value) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| refuse(key, "true or false", v, false))
}

pub(crate) fn string_of(key: &str, v: &Value, secret: bool) -> Result<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| refuse(key, "a string", v, secret))
}

pub(crate) fn path_of(key: &str, v: &Value) -> Result<PathBuf> {
    match v.as_str() {
        Some("") => Err(refuse(key, "a non-empty path", v, false)),
        Some(s) => Ok(PathBuf::from(s)),
        None => Err(refuse(key, "a path (a string)", v, false)),
    }
}

/// One of `allowed` (the message lists them).
pub(crate) fn word_of(key: &str, v: &Value, allowed: &[&str]) -> Result<String> {
    match v.as_str() {
        Some(s) if allowed.contains(&s) => Ok(s.to_owned()),
        _ => Err(refuse(
            key,
            &format!("one of {}", allowed.join(", ")),
            v,
            false,
        )),
    }
}

/// A number of seconds in `[0, max]` (integer or fraction); `None` for 0.
pub(crate) fn seconds_of(key: &str, v: &Value, max: Duration) -> Result<Option<Duration>> {
    let takes = || format!("a number of seconds from 0 to {}", max.as_secs_f64());
    let secs = v.as_f64().ok_or_else(|| refuse(key, &takes(), v, false))?;
    if !secs.is_finite() || secs < 0.0 || secs > max.as_secs_f64() {
        return Err(refuse(key, &takes(), v, false));
    }
    Ok((secs != 0.0).then(|| Duration::from_secs_f64(secs)))
}

/// A whole number in `[0, max]`; `None` for 0.
pub(crate) fn count_of(key: &str, v: &Value, min: u64, max: u64) -> Result<Option<u64>> {
    let takes = || format!("a whole number from {min} to {max} (0: the default)");
    match v.as_u64() {
        Some(0) => Ok(None),
        Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
        _ => Err(refuse(key, &takes(), v, false)),
    }
}

pub(crate) fn strings_of(key: &str, v: &Value) -> Result<Vec<String>> {
    let bad = || refuse(key, "a list of strings", v, false);
    v.as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|s| s.as_str().map(str::to_owned).ok_or_else(bad))
        .collect()
}

/// The text of a pair's value: a string as it is, anything else as JSON text (which TOML
/// reads for numbers, booleans and arrays).
fn pair_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One `key=value` entry: the string `"k=v"` or the pair `["k", v]` (`sep` is `=`; for
/// headers `:` and the value is trimmed).
pub(crate) fn pair_of(key: &str, v: &Value, sep: char, secret: bool) -> Result<(String, String)> {
    let takes = format!("\"NAME{sep}value\" or [\"NAME\", value] with a non-empty NAME");
    let bad = || refuse(key, &takes, v, secret);
    let (k, val) = match v {
        Value::String(s) => {
            let (k, val) = s.split_once(sep).ok_or_else(bad)?;
            let val = if sep == ':' { val.trim() } else { val };
            (k.trim_end().to_owned(), val.to_owned())
        }
        Value::Array(a) if a.len() == 2 => {
            let k = a[0].as_str().ok_or_else(bad)?;
            (k.to_owned(), pair_value(&a[1]))
        }
        _ => return Err(bad()),
    };
    if k.is_empty() {
        return Err(bad());
    }
    Ok((k, val))
}

/// A list of `key=value` entries: a list of entries (see [`pair_of`]) or an object.
pub(crate) fn pairs_of(
    key: &str,
    v: &Value,
    sep: char,
    secret: bool,
) -> Result<Vec<(String, String)>> {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, val)| match k.is_empty() {
                true => Err(refuse(key, "entries with a non-empty name", v, secret)),
                false => Ok((k.clone(), pair_value(val))),
            })
            .collect(),
        Value::Array(a) => a.iter().map(|e| pair_of(key, e, sep, secret)).collect(),
        _ => Err(refuse(
            key,
            &format!("a list of \"NAME{sep}value\" / [\"NAME\", value] entries, or an object"),
            v,
            secret,
        )),
    }
}

/// An object whose entries are among `known`.
pub(crate) fn object_of<'v>(
    key: &str,
    v: &'v Value,
    known: &[&str],
) -> Result<&'v serde_json::Map<String, Value>> {
    let takes = format!("true, false or an object with {}", known.join(", "));
    let m = v.as_object().ok_or_else(|| refuse(key, &takes, v, false))?;
    if let Some(k) = m.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(Error::InvalidArgument(format!(
            "option `{key}`: unknown entry `{k}` (known: {})",
            known.join(", ")
        )));
    }
    Ok(m)
}

/// A duration as JSON: seconds.
pub(crate) fn secs(d: Duration) -> Value {
    Value::from(d.as_secs_f64())
}

/// A path as JSON text (lossy for paths that are not UTF-8, which no binding can set).
pub(crate) fn path_json(p: &std::path::Path) -> Value {
    Value::from(p.to_string_lossy().into_owned())
}

/// `d`, or `default` when `None` (the "0 means the default" rule).
pub(crate) fn or_default(d: Option<Duration>, default: Duration) -> Duration {
    d.unwrap_or(default)
}
