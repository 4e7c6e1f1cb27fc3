//! `json.loads` / `json.dumps` of the standard library, looked up once.

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

/// Serialize a Python object to compact JSON text.
pub(crate) fn dumps(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let kw = pyo3::types::PyDict::new(py);
    kw.set_item("separators", (",", ":"))?;
    func(py, &DUMPS, "dumps")?
        .call((value,), Some(&kw))?
        .extract()
}
