//! The thread reference class for Python (issue 40), `ThreadRef` (the core's `ThreadRef`):
//! it pickles as its JSON form. (Events pickle through `events.rs`'s `event_from_json`.)
//! Serialisation, parking and lookups are the core's; this only converts.

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::errors::IntoPyResult;

/// A thread without its client: the endpoint (label of the client that opened it), the
/// thread id and the `thread/resume` params that reattach it with what it was started with
/// (the core's `ThreadRef`). Pickles; resume it with `client.thread_resume_ref(ref)`.
#[pyclass(module = "codexclient._native", frozen, eq)]
#[derive(PartialEq)]
pub struct ThreadRef {
    inner: codex_client::ThreadRef,
}

#[pymethods]
impl ThreadRef {
    /// A reference to thread `thread_id` on `endpoint` with no resume params (a thread known
    /// only by its id).
    #[new]
    #[pyo3(signature = (thread_id, endpoint = None))]
    fn new(thread_id: String, endpoint: Option<&str>) -> Self {
        ThreadRef {
            inner: codex_client::ThreadRef::new(endpoint, thread_id, Default::default()),
        }
    }
    /// A reference from its JSON text (`to_json`); `InvalidArgumentError` when it is not one.
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, json: &str) -> PyResult<Self> {
        let inner = codex_client::ThreadRef::from_json(json).py(py)?;
        Ok(ThreadRef { inner })
    }
    /// The reference as JSON text: `{"endpoint", "thread_id", "resume"}`.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }
    /// The thread id.
    #[getter]
    fn thread_id(&self) -> &str {
        &self.inner.thread_id
    }
    /// The label of the client that opened it (in a pool, the endpoint), or `None`.
    #[getter]
    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint.as_deref()
    }
    /// The `thread/resume` params (without `threadId`) that reattach it, as a dict.
    #[getter]
    fn resume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::Value::Object(self.inner.resume.clone()).to_string();
        crate::json::loads(py, &text).map(|v| v.bind(py).clone())
    }
    /// The `thread/resume` params as JSON text: the reference's, `overrides_json` (an object
    /// or `null`) on top, and `threadId` (`ThreadRef::resume_params`).
    fn resume_params_json(&self, py: Python<'_>, overrides_json: &str) -> PyResult<String> {
        let overrides = crate::args::json_value(py, overrides_json)?;
        Ok(self.inner.resume_params(&overrides).py(py)?.to_string())
    }
    /// Pickling: its JSON form.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (slf.get().inner.to_json(),)))
    }
    fn __repr__(&self) -> String {
        match &self.inner.endpoint {
            Some(e) => format!("ThreadRef({:?}, endpoint={e:?})", self.inner.thread_id),
            None => format!("ThreadRef({:?})", self.inner.thread_id),
        }
    }
}
