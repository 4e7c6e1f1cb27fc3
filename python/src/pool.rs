//! `NativePool`: the core's `Pool` of Codex app-servers. Each endpoint's client is handed to
//! Python as a `NativeClient` the pool owns (dropping it does not disconnect), and the pool's
//! handler client (never connected) takes the handlers that serve every endpoint. Placement,
//! health, drain and every option's meaning are the core's.

use codex_client::{EndpointOptions, Pool, PoolOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::args::json_value;
use crate::client::{builder, NativeClient};
use crate::errors::IntoPyResult;
use crate::executor::{run, Aio};

/// The core's pool (see `codexclient.Pool`).
#[pyclass(module = "codexclient._native", frozen)]
pub struct NativePool {
    pool: Pool,
}

/// `(endpoint, thread id, result JSON)` of a call that places or resumes a thread.
fn placed(py: Python<'_>, pool: &Pool, thread: codex_client::Thread) -> PyResult<Py<PyAny>> {
    let endpoint = pool.endpoint_of(thread.id()).unwrap_or_default();
    let info = serde_json::json!({ "thread": thread.info() }).to_string();
    (endpoint, thread.id().to_owned(), info).into_py_any(py)
}

#[pymethods]
impl NativePool {
    /// A pool from its options as JSON (`{"place_timeout", "max_running_turns",
    /// "overload_backoff"}`; the core checks each).
    #[new]
    #[pyo3(signature = (options_json = None))]
    fn new(py: Python<'_>, options_json: Option<&str>) -> PyResult<Self> {
        let v = match options_json {
            Some(j) => json_value(py, j)?,
            None => serde_json::Value::Null,
        };
        Ok(NativePool {
            pool: Pool::new(PoolOptions::from_json(&v).py(py)?),
        })
    }

    /// Connect endpoint `name` from client options (keyword arguments as `NativeClient`
    /// takes them) and its placement settings (`endpoint_json`: `{"max_running_turns",
    /// "shared_home"}`). Returns (or resolves `aio`'s future with) `(NativeClient, initialize
    /// view JSON)`.
    #[pyo3(signature = (name, endpoint_json, aio = None, **options))]
    fn add_endpoint(
        &self,
        py: Python<'_>,
        name: String,
        endpoint_json: &str,
        aio: Aio,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut endpoint = EndpointOptions::default();
        if let serde_json::Value::Object(m) = json_value(py, endpoint_json)? {
            for (k, v) in m {
                endpoint.set(&k, &v).py(py)?;
            }
        }
        let o = builder(py, options)?.build().py(py)?;
        let pool = self.pool.clone();
        let fut = async move {
            let init = pool.add_endpoint_async(&name, o, endpoint).await?;
            let client = pool.endpoint(&name)?;
            Ok((client, init))
        };
        run(py, aio, fut, |py, (client, init)| {
            let native = NativeClient::of_pool(client.into_connection(), false);
            (Py::new(py, native)?, init.to_json().to_string()).into_py_any(py)
        })
    }

    /// Take endpoint `name` out now (disconnected at once).
    #[pyo3(signature = (name, aio = None))]
    fn remove_endpoint(&self, py: Python<'_>, name: String, aio: Aio) -> PyResult<Py<PyAny>> {
        let pool = self.pool.clone();
        let fut = async move { pool.remove_endpoint_async(&name).await };
        run(py, aio, fut, |py, ()| Ok(py.None()))
    }

    /// Drain endpoint `name`: no new threads; it leaves once idle.
    fn drain_endpoint(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        self.pool.drain_endpoint(name).py(py)
    }

    /// Every endpoint's status as JSON (a list of the core's `EndpointStatus`).
    fn endpoints(&self) -> String {
        let v: Vec<serde_json::Value> = self.pool.endpoints().iter().map(|s| s.to_json()).collect();
        serde_json::Value::Array(v).to_string()
    }

    /// `thread/start` placed by the pool (params JSON): `(endpoint, thread id, result JSON)`.
    #[pyo3(signature = (params_json, aio = None))]
    fn thread_start(&self, py: Python<'_>, params_json: &str, aio: Aio) -> PyResult<Py<PyAny>> {
        let params = json_value(py, params_json)?;
        let pool = self.pool.clone();
        let fut = {
            let pool = pool.clone();
            async move { pool.thread_start_async(params).await }
        };
        run(py, aio, fut, move |py, thread| placed(py, &pool, thread))
    }

    /// `thread/resume` of a thread of a lost endpoint on one sharing its CODEX_HOME:
    /// `(endpoint, thread id, result JSON)`.
    #[pyo3(signature = (thread_id, params_json, aio = None))]
    fn resume_elsewhere(
        &self,
        py: Python<'_>,
        thread_id: String,
        params_json: &str,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let params = json_value(py, params_json)?;
        let pool = self.pool.clone();
        let fut = {
            let pool = pool.clone();
            async move { pool.resume_elsewhere_async(&thread_id, params).await }
        };
        run(py, aio, fut, move |py, thread| placed(py, &pool, thread))
    }

    /// The endpoint that holds a thread of the pool, if any.
    fn endpoint_of(&self, thread_id: &str) -> Option<String> {
        self.pool.endpoint_of(thread_id)
    }

    /// The threads the pool placed or resumed on endpoint `name`.
    fn threads_on(&self, name: &str) -> Vec<String> {
        self.pool.threads_on(name)
    }

    /// The client the pool's handlers are registered on (never connected): a `NativeClient`
    /// whose handler table every endpoint shares.
    fn handler_client(&self) -> NativeClient {
        NativeClient::of_pool(self.pool.handler_client().connection().clone(), true)
    }

    /// Disconnect every endpoint (blocking, GIL released). Idempotent.
    fn close(&self, py: Python<'_>) {
        let pool = self.pool.clone();
        py.detach(move || pool.close());
    }

    /// The pool's option rows as JSON: `{"pool": [{name, default, doc}…], "endpoint": […]}`.
    #[staticmethod]
    fn option_rows() -> String {
        let rows = |keys: &[codex_client::pool::PoolKey]| -> Vec<serde_json::Value> {
            keys.iter()
                .map(|k| serde_json::json!({"name": k.name, "default": k.default, "doc": k.doc}))
                .collect()
        };
        serde_json::json!({
            "pool": rows(codex_client::pool::POOL_KEYS),
            "endpoint": rows(codex_client::pool::ENDPOINT_KEYS),
        })
        .to_string()
    }
}
