//! Mapping of the core's errors onto the Python exception classes of `codexclient._errors`.

use codex_client::{Error, RpcError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};
use pyo3::IntoPyObjectExt;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    ERRORS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("codexclient._errors")?.unbind())
        })
        .map(|m| m.bind(py))
}

/// Build an instance of `codexclient._errors.<class>` with a message and keyword attributes.
fn make(py: Python<'_>, class: &str, message: String, kwargs: &[(&str, Py<PyAny>)]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = errors_module(py)?.getattr(class)?;
        let kw = PyDict::new(py);
        for (k, v) in kwargs {
            kw.set_item(*k, v)?;
        }
        let exc = cls.call((message.clone(),), Some(&kw))?;
        Ok(PyErr::from_value(exc))
    };
    match build() {
        Ok(e) => e,
        // The package is broken (no `_errors` module): still never a bare RuntimeError.
        Err(e) => e,
    }
}

fn rpc_class(e: &RpcError) -> &'static str {
    match e.code {
        -32600 => "InvalidRequestError",
        -32601 => "MethodNotFoundError",
        -32602 => "InvalidParamsError",
        codex_client::OVERLOADED_CODE => "OverloadedError",
        _ => "RpcError",
    }
}

fn obj<'py>(py: Python<'py>, v: impl IntoPyObject<'py>) -> Py<PyAny> {
    v.into_bound_py_any(py)
        .map(Bound::unbind)
        .unwrap_or_else(|_| py.None())
}

fn rpc_kwargs(py: Python<'_>, e: &RpcError) -> Vec<(&'static str, Py<PyAny>)> {
    let data = e
        .data
        .as_ref()
        .map(|d| crate::json::loads(py, &d.to_string()));
    vec![
        ("code", obj(py, e.code)),
        ("server_message", obj(py, &e.message)),
        (
            "data",
            data.and_then(Result::ok).unwrap_or_else(|| py.None()),
        ),
    ]
}

/// Convert a core error into the matching Python exception.
pub(crate) fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let msg = err.to_string();
    let (class, kwargs) = match &err {
        Error::NotConnected => ("NotConnectedError", vec![]),
        Error::AlreadyConnected => ("AlreadyConnectedError", vec![]),
        Error::Timeout { method, after } => (
            "RequestTimeoutError",
            vec![
                ("method", obj(py, method)),
                ("timeout", obj(py, after.as_secs_f64())),
            ],
        ),
        Error::Rpc(e) => (rpc_class(e), rpc_kwargs(py, e)),
        Error::Overloaded { attempts, last } => {
            let mut kw = rpc_kwargs(py, last);
            kw.push(("attempts", obj(py, attempts)));
            ("OverloadedError", kw)
        }
        Error::Disconnected(info) => (
            "ConnectionClosedError",
            vec![
                ("reason", obj(py, &info.reason)),
                ("stderr_tail", obj(py, &info.stderr_tail)),
            ],
        ),
        Error::ConnectionLost(info) => (
            "ConnectionLostError",
            vec![
                ("reason", obj(py, &info.reason)),
                ("stderr_tail", obj(py, &info.stderr_tail)),
            ],
        ),
        Error::Transport(_) => ("TransportError", vec![]),
        Error::Protocol(_) => ("ProtocolError", vec![]),
        Error::InvalidArgument(_) => ("InvalidArgumentError", vec![]),
        Error::InvalidState(_) => ("InvalidStateError", vec![]),
        Error::AlreadyResponded => ("AlreadyRespondedError", vec![]),
        Error::Unsupported(_) => ("UnsupportedError", vec![]),
        Error::Cancelled(_) => ("RequestCancelledError", vec![]),
        // `Error` is exhaustive today; keep a fallback for variants added later.
        #[allow(unreachable_patterns)]
        _ => ("CodexError", vec![]),
    };
    make(py, class, msg, &kwargs)
}

/// A `codexclient._errors.<class>` exception with just a message.
pub(crate) fn simple(py: Python<'_>, class: &str, message: impl Into<String>) -> PyErr {
    make(py, class, message.into(), &[])
}

/// Extension to turn `codex_client::Result` into `PyResult`.
pub(crate) trait IntoPyResult<T> {
    /// Map the error with [`to_py`].
    fn py(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for codex_client::Result<T> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
