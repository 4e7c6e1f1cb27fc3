//! Mapping of the core's errors onto the Python exception classes, by the core's
//! [`ErrorKind`](codex_client::ErrorKind) (one [`ErrorKindMap`] literal). The classes are the
//! package's (`codexclient._errors`), handed over once by `set_error_classes` when the package
//! is imported: the extension imports nothing of the Python layer.

use codex_client::{Error, ErrorKindMap, RpcError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

/// The exception classes by name (`CodexError`, `InvalidArgumentError`, ...).
static CLASSES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// The exception class of each error kind.
const CLASS_OF: ErrorKindMap<&str> = ErrorKindMap {
    not_connected: "NotConnectedError",
    already_connected: "AlreadyConnectedError",
    timeout: "RequestTimeoutError",
    rpc: "RpcError",
    overloaded: "OverloadedError",
    disconnected: "ConnectionClosedError",
    connection_lost: "ConnectionLostError",
    transport: "TransportError",
    protocol: "ProtocolError",
    invalid_argument: "InvalidArgumentError",
    invalid_state: "InvalidStateError",
    already_responded: "AlreadyRespondedError",
    unsupported: "UnsupportedError",
    cancelled: "RequestCancelledError",
    url_elicitation_required: "UrlElicitationRequiredError",
    output_schema_mismatch: "OutputSchemaError",
    unsupported_by_version: "UnsupportedByVersionError",
    unavailable: "UnavailableError",
};

/// The package's exception classes, by class name (called once by `codexclient._errors`).
#[pyfunction]
pub fn set_error_classes(py: Python<'_>, classes: Bound<'_, PyDict>) -> PyResult<()> {
    let _ = CLASSES.set(py, classes.unbind());
    Ok(())
}

/// Build an instance of the exception class `class` with a message and keyword attributes.
fn make(py: Python<'_>, class: &str, message: String, kwargs: &[(&str, Py<PyAny>)]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let Some(cls) = CLASSES
            .get(py)
            .and_then(|d| d.bind(py).get_item(class).ok().flatten())
        else {
            return Ok(PyRuntimeError::new_err(format!("{class}: {message}")));
        };
        let kw = PyDict::new(py);
        for (k, v) in kwargs {
            kw.set_item(*k, v)?;
        }
        let exc = cls.call((message.clone(),), Some(&kw))?;
        Ok(PyErr::from_value(exc))
    };
    match build() {
        Ok(e) => e,
        // Building the exception raised: that error stands for it.
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

/// Convert a core error into the Python exception of its kind ([`CLASS_OF`]; a JSON-RPC
/// error by its code), with the error's details as attributes.
pub(crate) fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let msg = err.to_string();
    let mut class = *CLASS_OF.get(err.kind());
    let mut kwargs = err.rpc().map(|e| rpc_kwargs(py, e)).unwrap_or_default();
    if let Error::Rpc(e) = &err {
        class = rpc_class(e);
    }
    if let Error::Overloaded { attempts, .. } = &err {
        kwargs.push(("attempts", obj(py, attempts)));
    }
    if let Error::Timeout { method, after } = &err {
        kwargs.push(("method", obj(py, method)));
        kwargs.push(("timeout", obj(py, after.as_secs_f64())));
    }
    if let Error::UrlElicitationRequired(u) = &err {
        let list = serde_json::Value::from(u.elicitations.clone());
        let py_list = crate::json::loads(py, &list.to_string()).unwrap_or_else(|_| py.None());
        kwargs.push(("elicitations", py_list));
    }
    if let Error::OutputSchemaMismatch(m) = &err {
        kwargs.push(("tool", obj(py, &m.tool)));
        kwargs.push(("path", obj(py, &m.path)));
        kwargs.push(("reason", obj(py, &m.message)));
        let result = crate::json::loads(py, &m.result.to_string()).unwrap_or_else(|_| py.None());
        kwargs.push(("result", result));
    }
    if let Error::UnsupportedByVersion(u) = &err {
        kwargs.push(("method", obj(py, &u.method)));
        kwargs.push(("server_version", obj(py, &u.server_version)));
        kwargs.push(("versions", obj(py, u.versions.clone())));
    }
    if let Error::Disconnected(info) | Error::ConnectionLost(info) = &err {
        kwargs.push(("reason", obj(py, &info.reason)));
        kwargs.push(("stderr_tail", obj(py, &info.stderr_tail)));
    }
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
