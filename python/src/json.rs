//! JSON through the package's own `codexclient._common.loads`/`dumps` (the standard `json`;
//! `dumps` raises `InvalidArgumentError` naming what cannot be sent), looked up once.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static COMMON: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn call<'py>(py: Python<'py>, name: &str, arg: impl IntoPyObject<'py>) -> PyResult<Py<PyAny>> {
    let m = COMMON.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("codexclient._common")?.unbind())
    })?;
    Ok(m.bind(py).getattr(name)?.call1((arg,))?.unbind())
}

/// Parse JSON text into Python objects.
pub(crate) fn loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    call(py, "loads", text)
}

/// Serialize a Python object to compact JSON text.
pub(crate) fn dumps(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    call(py, "dumps", value)?.extract(py)
}
