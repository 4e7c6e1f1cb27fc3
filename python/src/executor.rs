//! The asyncio bridge: Rust futures polled on the event loop's own thread by the core's
//! [`codex_client::delivery::Executor`].
//!
//! The Python side registers `loop.add_reader(executor.fileno(), executor.run_ready)`. A
//! future spawned here resolves an `asyncio.Future` when it completes; wakers fire on the
//! core's threads and never touch the GIL. Cancelling a wait drops its Rust future.

use std::future::Future;

use codex_client::delivery::{Executor as CoreExecutor, TaskId};
use pyo3::prelude::*;

/// What a finished future produces: a closure run on the loop thread with the GIL.
pub(crate) type Outcome = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// Runs Rust futures for one asyncio event loop (see the module docs).
#[pyclass(module = "codexclient._native", frozen)]
pub struct Executor {
    core: CoreExecutor,
}

/// The asyncio future of a task; cancelled if the task is dropped before it resolved it
/// (cancelled or closed executor), so that nobody waits for it forever.
struct Resolver(Option<Py<PyAny>>);

impl Resolver {
    fn resolve(mut self, py: Python<'_>, result: PyResult<Py<PyAny>>) {
        let Some(fut) = self.0.take() else { return };
        let fut = fut.bind(py);
        if fut
            .call_method0(pyo3::intern!(py, "done"))
            .and_then(|d| d.is_truthy())
            .unwrap_or(true)
        {
            return; // cancelled by the awaiting side
        }
        let r = match result {
            Ok(v) => fut.call_method1(pyo3::intern!(py, "set_result"), (v,)),
            Err(e) => fut.call_method1(pyo3::intern!(py, "set_exception"), (e.into_value(py),)),
        };
        if let Err(e) = r {
            e.write_unraisable(py, Some(fut));
        }
    }
}

impl Drop for Resolver {
    fn drop(&mut self) {
        if let Some(fut) = self.0.take() {
            Python::attach(|py| {
                let _ = fut.call_method0(py, pyo3::intern!(py, "cancel"));
            });
        }
    }
}

impl Executor {
    /// Spawn `fut` (polled once now, so a request is on the wire before this returns); its
    /// outcome resolves the asyncio future `py_fut` (`None`: nobody awaits; a failure is
    /// logged). A panic while polling resolves `py_fut` with a `CodexError`.
    pub(crate) fn spawn<F>(&self, py: Python<'_>, fut: F, py_fut: Option<Py<PyAny>>) -> TaskId
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        let on_panic = Resolver(py_fut.as_ref().map(|f| f.clone_ref(py)));
        let resolver = Resolver(py_fut);
        let task = async move {
            let outcome = fut.await;
            Python::attach(|py| {
                let result = outcome(py);
                if resolver.0.is_none() {
                    if let Err(e) = &result {
                        tracing::debug!("background task failed: {e}");
                    }
                }
                resolver.resolve(py, result);
            });
        };
        self.core.spawn(task, move |msg| {
            Python::attach(|py| {
                let err = crate::errors::simple(py, "CodexError", format!("internal error: {msg}"));
                on_panic.resolve(py, Err(err));
            })
        })
    }
}

#[pymethods]
impl Executor {
    /// Create an executor (one per asyncio event loop and client).
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        let core = CoreExecutor::new()
            .map_err(|e| crate::errors::simple(py, "TransportError", e.to_string()))?;
        Ok(Executor { core })
    }

    /// The descriptor to pass to `loop.add_reader`.
    fn fileno(&self) -> i32 {
        self.core.fd()
    }

    /// Poll every task that was woken (the `add_reader` callback; runs on the loop thread).
    fn run_ready(&self) -> usize {
        self.core.run_ready()
    }

    /// Drop a task's future (its `asyncio.Future` was cancelled). Unknown ids are ignored.
    fn cancel(&self, task_id: u64) -> bool {
        self.core.cancel(task_id)
    }

    /// Number of tasks not finished yet.
    fn pending(&self) -> usize {
        self.core.pending()
    }

    /// Drop every task, cancelling the futures awaiting them (at client close). No task is
    /// accepted afterwards.
    fn close(&self) {
        self.core.close();
    }
}

/// Wrap a `()` future into one producing a `None` outcome.
pub(crate) async fn none_outcome(f: impl Future<Output = ()> + Send + 'static) -> Outcome {
    f.await;
    Box::new(|py: Python<'_>| Ok(py.None()))
}
