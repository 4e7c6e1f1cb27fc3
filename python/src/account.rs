//! Logging in: the core's `Client::login_*` (API key, the ChatGPT browser and device-code
//! flows) and its `Login` handle (what to show the user, the outcome, cancel), each call
//! blocking or on the asyncio loop like every other call (`aio`). Views are the core's.

use std::sync::Arc;
use std::time::Duration;

use codex_client::account::Login;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::client::NativeClient;
use crate::errors::simple;
use crate::executor::{run, Aio};

/// A ChatGPT login in progress (the core's `codex_client::account::Login`).
#[pyclass(module = "codexclient._native", frozen)]
pub struct NativeLogin {
    login: Arc<Login>,
}

fn seconds(py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(simple(
            py,
            "InvalidArgumentError",
            format!("timeout must be a positive number of seconds, not {t}"),
        )),
    }
}

#[pymethods]
impl NativeLogin {
    /// The core's view of the login as JSON text: `{"login_id", "auth_url", "user_code",
    /// "verification_url"}`.
    fn info(&self) -> String {
        self.login.to_json().to_string()
    }

    /// The outcome as JSON text (`{"success", "error"}`) if the server reported it, else
    /// `None`.
    fn outcome(&self) -> Option<String> {
        self.login.outcome().map(|o| o.to_json().to_string())
    }

    /// Wait for the outcome (JSON text, `{"success", "error"}`), at most `timeout` seconds
    /// (`TimeoutError` past it; the login goes on).
    #[pyo3(signature = (timeout = None, aio = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>, aio: Aio) -> PyResult<Py<PyAny>> {
        let t = seconds(py, timeout)?;
        let login = self.login.clone();
        let fut = async move { login.wait_within(t).await };
        run(py, aio, fut, |py, o| {
            o.to_json().to_string().into_py_any(py)
        })
    }

    /// Cancel the login (`account/login/cancel`); its outcome then arrives as a failure.
    #[pyo3(signature = (aio = None))]
    fn cancel(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let login = self.login.clone();
        let fut = async move { login.cancel().await };
        run(py, aio, fut, |py, ()| Ok(py.None()))
    }
}

/// Log in with an API key (`Client::login_api_key`).
#[pyfunction]
#[pyo3(signature = (client, api_key, aio = None))]
pub fn login_api_key(
    py: Python<'_>,
    client: &NativeClient,
    api_key: String,
    aio: Aio,
) -> PyResult<Py<PyAny>> {
    let c = client.core().clone();
    let fut = async move {
        codex_client::CodexClient::from_connection(&c)
            .login_api_key(&api_key)
            .await
    };
    run(py, aio, fut, |py, ()| Ok(py.None()))
}

/// Start a ChatGPT login: the browser flow, or the device-code flow when `device_code`.
/// Returns (or resolves `aio`'s future with) a `NativeLogin`.
#[pyfunction]
#[pyo3(signature = (client, device_code, aio = None))]
pub fn login_start(
    py: Python<'_>,
    client: &NativeClient,
    device_code: bool,
    aio: Aio,
) -> PyResult<Py<PyAny>> {
    let c = client.core().clone();
    let fut = async move {
        match device_code {
            true => {
                codex_client::CodexClient::from_connection(&c)
                    .login_device_code()
                    .await
            }
            false => {
                codex_client::CodexClient::from_connection(&c)
                    .login_chatgpt()
                    .await
            }
        }
    };
    run(py, aio, fut, |py, login| {
        NativeLogin {
            login: Arc::new(login),
        }
        .into_py_any(py)
    })
}
