//! MCP authorization's callbacks from Python: the browser step (`authorize=`: a callable, or
//! a [`LoopbackBrowser`]) and the token store (`token_store=`: an object with `load`, `save`
//! and `clear`), handed to the core (`OptionsBuilder::oauth_authorizer`,
//! `OptionsBuilder::oauth_token_store`). The core runs both off its runtime's threads
//! (`auth::BlockingAuthorizer`, its store calls), so they take the GIL where that may wait;
//! the flow, the store's format and every rule stay in the core. The callables are kept in
//! the core beside the client's handlers (`Client::keep_with_handlers`), where the client's
//! `__traverse__` shows them to the cycle collector.

use std::sync::Arc;
use std::time::Duration;

use codex_client::auth::{self, BlockingAuthorizer, JsonStore, JsonTokenStore};
use codex_client::{Client, Error, OptionsBuilder};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::IntoPyResult;
use crate::handlers::Kept;

/// The keyword of the browser step.
const AUTHORIZE: &str = "authorize";
/// The keyword of the token store.
const TOKEN_STORE: &str = "token_store";

/// A Python exception as a core error: its type and message (what the program raised, so no
/// secret of the library's), for the core's "the authorize callback failed: ...".
fn failed(py: Python<'_>, what: &str, e: PyErr) -> Error {
    let name = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let msg = e.value(py).to_string();
    Error::Transport(match msg.is_empty() {
        true => format!("{what} raised {name}"),
        false => format!("{what} raised {name}: {msg}"),
    })
}

/// The token store: a Python object's `load(server)`, `save(server, json)`, `clear(server)`.
struct PyStore(Arc<Kept>);

impl PyStore {
    /// `f(store)` with the GIL; a Python exception as the core's error naming `method`.
    fn call<T>(
        &self,
        method: &str,
        f: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>,
    ) -> codex_client::Result<T> {
        Python::attach(|py| {
            f(self.0 .0.bind(py)).map_err(|e| failed(py, &format!("the token store's {method}"), e))
        })
    }
}

impl JsonStore for PyStore {
    fn load(&self, server: &str) -> codex_client::Result<Option<String>> {
        self.call("load", |s| s.call_method1("load", (server,))?.extract())
    }
    fn save(&self, server: &str, json: &str) -> codex_client::Result<()> {
        self.call("save", |s| s.call_method1("save", (server, json)).map(drop))
    }
    fn clear(&self, server: &str) -> codex_client::Result<()> {
        self.call("clear", |s| s.call_method1("clear", (server,)).map(drop))
    }
}

/// The browser step of a Python callable: `callable(authorization_url) -> redirect_url`
/// (the package's adapter, which awaits an `async def` one where it belongs).
fn callable_authorizer(kept: Arc<Kept>) -> BlockingAuthorizer {
    BlockingAuthorizer::new(move |url: &str| {
        Python::attach(|py| {
            kept.0
                .bind(py)
                .call1((url,))
                .and_then(|v| v.extract::<String>())
                .map_err(|e| failed(py, "the authorize callable", e))
        })
    })
}

/// The callbacks of one client, taken from its keyword arguments.
pub(crate) struct Callbacks {
    kept: Vec<(&'static str, Arc<Kept>)>,
}

impl Callbacks {
    /// Take `authorize` and `token_store` out of `options` (the rest are the core's option
    /// keys) and hand them to `b`.
    pub(crate) fn take(
        py: Python<'_>,
        options: Option<&Bound<'_, PyDict>>,
        b: &mut OptionsBuilder,
    ) -> PyResult<Callbacks> {
        let mut kept = Vec::new();
        let Some(options) = options else {
            return Ok(Callbacks { kept });
        };
        if let Some(a) = options.get_item(AUTHORIZE)?.filter(|a| !a.is_none()) {
            options.del_item(AUTHORIZE)?;
            if let Ok(browser) = a.cast::<LoopbackBrowser>() {
                let browser = browser.get();
                let core = browser.core.clone();
                let core = match &browser.open {
                    Some(open) => {
                        let k = Arc::new(Kept(open.clone_ref(py)));
                        kept.push(("oauth:open", k.clone()));
                        core.open_with(move |url: &str| {
                            Python::attach(|py| {
                                k.0.bind(py)
                                    .call1((url,))
                                    .map(drop)
                                    .map_err(|e| failed(py, "the browser opener", e))
                            })
                        })
                    }
                    None => core,
                };
                b.oauth_authorizer(Arc::new(core));
            } else {
                let k = Arc::new(Kept(a.unbind()));
                kept.push(("oauth:authorize", k.clone()));
                b.oauth_authorizer(Arc::new(callable_authorizer(k)));
            }
        }
        if let Some(s) = options.get_item(TOKEN_STORE)?.filter(|s| !s.is_none()) {
            options.del_item(TOKEN_STORE)?;
            let k = Arc::new(Kept(s.unbind()));
            kept.push(("oauth:store", k.clone()));
            b.oauth_token_store(Arc::new(JsonTokenStore(PyStore(k))));
        }
        Ok(Callbacks { kept })
    }

    /// Keep the callables beside `client`'s handlers (for the cycle collector).
    pub(crate) fn keep(self, client: &Client) {
        for (key, k) in self.kept {
            client.keep_with_handlers(key, Some(k as codex_client::Kept));
        }
    }
}

/// The browser step for desktop programs (RFC 8252): the core's `auth::LoopbackBrowser`,
/// listening on `127.0.0.1:port` for the redirect to `/callback` and opening the system
/// browser (or `open(url)`) at the authorization URL; each authorization waits at most
/// `timeout` seconds for the redirect.
#[pyclass(module = "codexclient._native", frozen)]
pub struct LoopbackBrowser {
    core: auth::LoopbackBrowser,
    open: Option<Py<PyAny>>,
}

#[pymethods]
impl LoopbackBrowser {
    /// Listen on `127.0.0.1:port` (0: a free port).
    #[new]
    #[pyo3(signature = (port = 0, *, timeout = 300.0, open = None))]
    fn new(py: Python<'_>, port: u16, timeout: f64, open: Option<Py<PyAny>>) -> PyResult<Self> {
        if !(timeout.is_finite() && timeout > 0.0) {
            let msg = format!("timeout must be a positive number of seconds, not {timeout}");
            return Err(crate::errors::simple(py, "InvalidArgumentError", msg));
        }
        let core = auth::LoopbackBrowser::bind(port)
            .py(py)?
            .timeout(Duration::from_secs_f64(timeout));
        Ok(LoopbackBrowser { core, open })
    }

    /// The redirect URI to register: `http://127.0.0.1:PORT/callback`.
    #[getter]
    fn redirect_uri(&self) -> String {
        self.core.redirect_uri()
    }

    fn __repr__(&self) -> String {
        format!("LoopbackBrowser({:?})", self.core.redirect_uri())
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(o) = &self.open {
            visit.call(o)?;
        }
        Ok(())
    }
}
