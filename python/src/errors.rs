//! Mapping of the core's errors onto the Python exception classes of `codexclient._errors`.

use codex_client::{Error, RpcError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};

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

fn json_value(py: Python<'_>, v: &Option<serde_json::Value>) -> PyResult<Py<PyAny>> {
    match v {
        None => Ok(py.None()),
        Some(v) => crate::json::loads(py, &v.to_string()),
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

fn rpc_kwargs(py: Python<'_>, e: &RpcError) -> Vec<(&'static str, Py<PyAny>)> {
    vec![
        (
            "code",
            e.code.into_pyobject(py).unwrap().into_any().unbind(),
        ),
        (
            "server_message",
            e.message
                .clone()
                .into_pyobject(py)
                .unwrap()
                .into_any()
                .unbind(),
        ),
        (
            "data",
            json_value(py, &e.data).unwrap_or_else(|_| py.None()),
        ),
    ]
}

/// Convert a core error into the matching Python exception.
pub(crate) fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let msg = err.to_string();
    let s = |v: &str| v.into_pyobject(py).unwrap().into_any().unbind();
    match &err {
        Error::NotConnected => make(py, "NotConnectedError", msg, &[]),
        Error::AlreadyConnected => make(py, "AlreadyConnectedError", msg, &[]),
        Error::Timeout { method, after } => make(
            py,
            "RequestTimeoutError",
            msg,
            &[
                ("method", s(method)),
                (
                    "timeout",
                    after
                        .as_secs_f64()
                        .into_pyobject(py)
                        .unwrap()
                        .into_any()
                        .unbind(),
                ),
            ],
        ),
        Error::Rpc(e) => make(py, rpc_class(e), msg, &rpc_kwargs(py, e)),
        Error::Overloaded { attempts, last } => {
            let mut kw = rpc_kwargs(py, last);
            kw.push((
                "attempts",
                attempts.into_pyobject(py).unwrap().into_any().unbind(),
            ));
            make(py, "OverloadedError", msg, &kw)
        }
        Error::Disconnected(info) => make(
            py,
            "ConnectionClosedError",
            msg,
            &[
                ("reason", s(&info.reason)),
                ("stderr_tail", s(&info.stderr_tail)),
            ],
        ),
        Error::Transport(_) => make(py, "TransportError", msg, &[]),
        Error::Protocol(_) => make(py, "ProtocolError", msg, &[]),
        Error::InvalidArgument(_) => make(py, "InvalidArgumentError", msg, &[]),
        Error::InvalidState(_) => make(py, "InvalidStateError", msg, &[]),
        Error::AlreadyResponded => make(py, "AlreadyRespondedError", msg, &[]),
        Error::Unsupported(_) => make(py, "UnsupportedError", msg, &[]),
        // `Error` is exhaustive today; keep a fallback for variants added later.
        #[allow(unreachable_patterns)]
        _ => make(py, "CodexError", msg, &[]),
    }
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
