//! The asyncio bridge: Rust futures polled on the event loop's own thread by the core's
//! [`codex_client::delivery::Executor`].
//!
//! The Python side registers `loop.add_reader(executor.fileno(), executor.run_ready)`. A
//! future spawned here resolves an `asyncio.Future` when it completes; wakers fire on the
//! core's threads and never touch the GIL. Cancelling a wait drops its Rust future.

use std::future::Future;
use std::time::{Duration, Instant};

use codex_client::delivery::{wait_spinning, wait_until, Executor as CoreExecutor, Spin, TaskId};
use codex_client::RequestOptions;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::errors::{simple, to_py};

/// How long a blocking wait runs before it checks for Python signals (Ctrl-C).
pub(crate) const SIGNAL_SLICE: Duration = Duration::from_millis(100);

/// How a native call runs: `None` blocks (GIL released); an executor and an asyncio future
/// run it on the loop, the future resolved with the result (the call returns the task id).
pub(crate) type Aio = Option<(Py<Executor>, Py<PyAny>)>;

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
    /// Resolve the future with what `outcome` produces. When the awaiting side has cancelled
    /// the future already, `outcome` is dropped without being run: nothing is produced for
    /// nobody (a wait for events leaves them in their stream for the next reader).
    fn resolve(mut self, py: Python<'_>, outcome: Outcome) {
        let Some(fut) = self.0.take() else {
            if let Err(e) = outcome(py) {
                tracing::debug!("background task failed: {e}");
            }
            return;
        };
        let fut = fut.bind(py);
        if fut
            .call_method0(pyo3::intern!(py, "done"))
            .and_then(|d| d.is_truthy())
            .unwrap_or(true)
        {
            return; // cancelled by the awaiting side
        }
        let r = match outcome(py) {
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
            Python::attach(|py| resolver.resolve(py, outcome));
        };
        self.core.spawn(task, move |msg| {
            Python::attach(|py| {
                let err = simple(py, "CodexError", format!("internal error: {msg}"));
                on_panic.resolve(py, Box::new(move |_| Err(err)));
            })
        })
    }
}

impl Drop for Executor {
    /// Drop the tasks here, with the GIL, rather than wherever a waker lets go of the
    /// executor last (the core's runtime thread must never take the GIL).
    fn drop(&mut self) {
        self.core.close();
    }
}

#[pymethods]
impl Executor {
    /// Create an executor (one per asyncio event loop and client).
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        let core = CoreExecutor::new().map_err(|e| simple(py, "TransportError", e.to_string()))?;
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

/// Wait for `ready` (blocking, see [`block_on`]), then produce the result with `then` on
/// this thread; or, given `aio`, spawn the wait on the executor and resolve the asyncio
/// future with what `then` produces on the loop thread once `ready` completes (`then` is not
/// run when the future was cancelled first). Returns the task id (blocking: the result).
pub(crate) fn when_ready<F, T>(py: Python<'_>, aio: Aio, ready: F, then: T) -> PyResult<Py<PyAny>>
where
    F: Future<Output = ()> + Send + 'static,
    T: FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send + 'static,
{
    match aio {
        None => {
            block_on(py, ready)?;
            then(py)
        }
        Some((executor, py_fut)) => {
            let f = async move {
                ready.await;
                Box::new(then) as Outcome
            };
            executor.get().spawn(py, f, Some(py_fut)).into_py_any(py)
        }
    }
}

/// Run `fut` blocking (see [`block_on`]) and convert its output with `conv`; or, given `aio`,
/// spawn it on the executor, resolve the asyncio future with the converted output, and
/// return the task id.
pub(crate) fn run<T, F, C>(py: Python<'_>, aio: Aio, fut: F, conv: C) -> PyResult<Py<PyAny>>
where
    T: Send + 'static,
    F: Future<Output = codex_client::Result<T>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    run_spinning(py, aio, fut, conv, None)
}

/// [`run`] for a request: a blocking wait first spins as the client's `spin` allows
/// (`codex_client::Client::reply_spin`).
pub(crate) fn run_spinning<T, F, C>(
    py: Python<'_>,
    aio: Aio,
    fut: F,
    conv: C,
    spin: Option<&Spin>,
) -> PyResult<Py<PyAny>>
where
    T: Send + 'static,
    F: Future<Output = codex_client::Result<T>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    match aio {
        None => match block_on_spinning(py, fut, spin)? {
            Ok(v) => conv(py, v),
            Err(e) => Err(to_py(py, e)),
        },
        Some((executor, py_fut)) => {
            let f = async move {
                let r = fut.await;
                Box::new(move |py: Python<'_>| match r {
                    Ok(v) => conv(py, v),
                    Err(e) => Err(to_py(py, e)),
                }) as Outcome
            };
            let id = executor.get().spawn(py, f, Some(py_fut));
            id.into_py_any(py)
        }
    }
}

/// Run `fut` to completion on this thread with the GIL released, checking for Python signals
/// (Ctrl-C) every 100 ms. Dropping the future on a signal cancels the wait.
pub(crate) fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    block_on_spinning(py, fut, None)
}

/// [`block_on`], the first slice spinning as `spin` allows.
fn block_on_spinning<F>(py: Python<'_>, fut: F, mut spin: Option<&Spin>) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let mut fut = Box::pin(fut);
    loop {
        let deadline = Instant::now() + SIGNAL_SLICE;
        let slice = match spin.take() {
            Some(s) => py.detach(|| wait_spinning(fut.as_mut(), deadline, s)),
            None => py.detach(|| wait_until(fut.as_mut(), deadline)),
        };
        match slice {
            Some(v) => return Ok(v),
            None => py.check_signals()?,
        }
    }
}

/// Per-request options from a Python timeout in seconds.
pub(crate) fn request_options(py: Python<'_>, timeout: Option<f64>) -> PyResult<RequestOptions> {
    match timeout {
        None => Ok(RequestOptions::default()),
        Some(t) if t.is_finite() && t > 0.0 => {
            Ok(RequestOptions::timeout(Duration::from_secs_f64(t)))
        }
        Some(t) => Err(simple(
            py,
            "InvalidArgumentError",
            format!("timeout must be a positive number of seconds, not {t}"),
        )),
    }
}
