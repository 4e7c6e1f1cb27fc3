//! `json.loads` / `json.dumps` of the standard library, looked up once.

use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn func<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("json")?.getattr(name)?.unbind())
    })
    .map(|f| f.bind(py))
}

/// Parse JSON text into Python objects.
pub(crate) fn loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(func(py, &LOADS, "loads")?.call1((text,))?.unbind())
}

/// Serialize a Python object to compact JSON text. What JSON cannot hold (other objects,
/// non-string keys, cycles, NaN) raises `InvalidArgumentError` naming the offending type.
pub(crate) fn dumps(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let kw = pyo3::types::PyDict::new(py);
    kw.set_item("separators", (",", ":"))?;
    kw.set_item("allow_nan", false)?;
    match func(py, &DUMPS, "dumps")?.call((value,), Some(&kw)) {
        Ok(text) => text.extract(),
        Err(e)
            if e.is_instance_of::<PyTypeError>(py)
                || e.is_instance_of::<PyValueError>(py)
                || e.is_instance_of::<PyRecursionError>(py) =>
        {
            let err = crate::errors::simple(
                py,
                "InvalidArgumentError",
                format!("cannot be sent as JSON: {}", e.value(py)),
            );
            err.set_cause(py, Some(e));
            Err(err)
        }
        Err(e) => Err(e),
    }
}
