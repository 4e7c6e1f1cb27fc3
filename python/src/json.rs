//! JSON to and from Python objects.
//!
//! `loads` builds the Python objects straight from the JSON text in one pass (a serde visitor
//! creating dicts, lists and strings as it reads), with no Python-level call: this is how a
//! notification's `params` and every other server value reach Python. Anything it does not
//! reproduce exactly like the standard `json.loads` (an integer beyond 64 bits, `NaN`, nesting
//! deeper than 128, invalid JSON) goes to the standard library's `json.loads`, which then gives
//! the usual result or error. [`to_value`] goes the other way, Python objects to a
//! `serde_json::Value` (options, answers to server requests). A leaf: no other module of the
//! crate and nothing of the `codexclient` package is used here.

use std::fmt;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The standard library's `json.loads`.
static STD_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn std_loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let f = STD_LOADS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("json")?.getattr("loads")?.unbind())
    })?;
    Ok(f.bind(py).call1((text,))?.unbind())
}

/// Parse JSON text into Python objects (dicts, lists, str, int, float, bool, None), exactly as
/// the standard `json.loads` does.
pub(crate) fn loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let mut de = serde_json::Deserializer::from_str(text);
    match PyValue(py)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
    {
        Ok(v) => Ok(v.unbind()),
        Err(_) => std_loads(py, text),
    }
}

/// Why a Python object is no JSON value.
pub(crate) enum ToJsonError {
    /// Python raised (a path-like object's `__fspath__`, a mapping's `items`).
    Py(PyErr),
    /// The object has no JSON form: what to tell the caller.
    Refused(String),
}

impl From<PyErr> for ToJsonError {
    fn from(e: PyErr) -> Self {
        ToJsonError::Py(e)
    }
}

/// Deepest nesting [`to_value`] follows (deeper, or a cycle, is refused).
const MAX_DEPTH: usize = 256;

/// A Python object as a JSON value, as the standard `json.dumps` would write it (no NaN or
/// infinities, keys that are `str`, `int`, `float`, `bool` or `None`), plus the Python idioms
/// every option takes: a tuple is a list, any mapping an object, a path-like object its path.
pub(crate) fn to_value(v: &Bound<'_, PyAny>) -> Result<Value, ToJsonError> {
    to_value_at(v, 0)
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    let t = v.get_type();
    let module = t.module().map(|m| m.to_string()).unwrap_or_default();
    let name = t.qualname().map(|m| m.to_string()).unwrap_or_default();
    match module.as_str() {
        "builtins" | "" => name,
        _ => format!("{module}.{name}"),
    }
}

fn refused(v: &Bound<'_, PyAny>) -> ToJsonError {
    let mut text = v.repr().map(|r| r.to_string()).unwrap_or_default();
    if text.chars().count() > 80 {
        text = text.chars().take(77).collect::<String>() + "...";
    }
    ToJsonError::Refused(format!("a {} cannot be sent as JSON: {text}", type_name(v)))
}

fn key_of(k: &Bound<'_, PyAny>) -> Result<String, ToJsonError> {
    if let Ok(s) = k.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    match to_value_at(k, MAX_DEPTH)? {
        Value::Bool(b) if k.is_instance_of::<PyBool>() => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Null => Ok("null".to_owned()),
        _ => Err(ToJsonError::Refused(format!(
            "cannot be sent as JSON: keys must be str, int, float, bool or None, not {}",
            type_name(k)
        ))),
    }
}

fn to_value_at(v: &Bound<'_, PyAny>, depth: usize) -> Result<Value, ToJsonError> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(ToJsonError::Refused(
            "cannot be sent as JSON: an integer beyond 64 bits".to_owned(),
        ));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| {
                ToJsonError::Refused(format!(
                    "cannot be sent as JSON: Out of range float values are not JSON compliant: {}",
                    f.value()
                ))
            });
    }
    if depth >= MAX_DEPTH {
        return Err(ToJsonError::Refused(
            "cannot be sent as JSON: nested too deeply (or circular)".to_owned(),
        ));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, x) in d.iter() {
            m.insert(key_of(&k)?, to_value_at(&x, depth + 1)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = v.cast::<PyList>() {
        let items = l.iter().map(|x| to_value_at(&x, depth + 1));
        return Ok(Value::Array(items.collect::<Result<_, _>>()?));
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        let items = t.iter().map(|x| to_value_at(&x, depth + 1));
        return Ok(Value::Array(items.collect::<Result<_, _>>()?));
    }
    if let Ok(m) = v.cast::<PyMapping>() {
        let mut out = Map::new();
        for kv in m.items()?.iter() {
            let (k, x): (Bound<'_, PyAny>, Bound<'_, PyAny>) = kv.extract()?;
            out.insert(key_of(&k)?, to_value_at(&x, depth + 1)?);
        }
        return Ok(Value::Object(out));
    }
    if v.hasattr(pyo3::intern!(v.py(), "__fspath__"))? {
        let p = v.call_method0(pyo3::intern!(v.py(), "__fspath__"))?;
        if let Ok(s) = p.cast::<PyString>() {
            return Ok(Value::String(s.to_cow()?.into_owned()));
        }
    }
    Err(refused(v))
}

/// 2^63: integers from this magnitude on may reach a visitor as `f64` (lossy): left to
/// `json.loads`.
const BEYOND_I64: f64 = 9_223_372_036_854_775_808_u64 as f64;

/// One JSON value as a Python object.
struct PyValue<'py>(Python<'py>);

impl<'de, 'py> DeserializeSeed<'de> for PyValue<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, 'py> Visitor<'de> for PyValue<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(self.0.None().into_bound(self.0))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.0, v).to_owned().into_any())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.0).map_err(|e| match e {})?.into_any())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.0).map_err(|e| match e {})?.into_any())
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        if v.fract() == 0.0 && v.abs() >= BEYOND_I64 {
            return Err(E::custom("an integer beyond 64 bits"));
        }
        Ok(PyFloat::new(self.0, v).into_any())
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.0, v).into_any())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(v) = seq.next_element_seed(PyValue(self.0))? {
            list.append(v).map_err(A::Error::custom)?;
        }
        Ok(list.into_any())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.0);
        while let Some(k) = map.next_key_seed(PyKey(self.0))? {
            let v = map.next_value_seed(PyValue(self.0))?;
            dict.set_item(k, v).map_err(A::Error::custom)?;
        }
        Ok(dict.into_any())
    }
}

/// An object key as a Python `str`, made straight from the text (no Rust `String`).
struct PyKey<'py>(Python<'py>);

impl<'de, 'py> DeserializeSeed<'de> for PyKey<'py> {
    type Value = Bound<'py, PyString>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for PyKey<'py> {
    type Value = Bound<'py, PyString>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.0, v))
    }
}
