//! JSON to and from Python objects.
//!
//! `loads` builds the Python objects straight from the JSON text in one pass (a serde visitor
//! creating dicts, lists and strings as it reads), with no Python-level call: this is how a
//! notification's `params` and every other server value reach Python. Anything it does not
//! reproduce exactly like the standard `json.loads` (an integer beyond 64 bits, `NaN`, nesting
//! deeper than 128, invalid JSON) goes to the package's own `codexclient._common.loads` (the
//! standard `json`), which then gives the usual result or error. `dumps` is the package's
//! (it raises `InvalidArgumentError` naming what cannot be sent).

use std::fmt;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

static COMMON: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn call<'py>(py: Python<'py>, name: &str, arg: impl IntoPyObject<'py>) -> PyResult<Py<PyAny>> {
    let m = COMMON.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("codexclient._common")?.unbind())
    })?;
    Ok(m.bind(py).getattr(name)?.call1((arg,))?.unbind())
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
        Err(_) => call(py, "loads", text),
    }
}

/// Serialize a Python object to compact JSON text.
pub(crate) fn dumps(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    call(py, "dumps", value)?.extract(py)
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
