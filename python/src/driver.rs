//! The asyncio bridge: Rust futures polled on the event loop's own thread.
//!
//! A [`Driver`] owns a non-blocking pipe that the Python side registers with
//! `loop.add_reader(driver.fileno(), driver.run)`. Each Rust future spawned on it gets a waker
//! that, when fired on any thread (the library's runtime thread, the pump thread), records the
//! task as ready and writes one byte to the pipe — it never touches the GIL. The loop thread
//! then calls `run()`, which polls the ready futures (with the GIL it already holds) and
//! resolves their `asyncio.Future`s. Cancelling a waiting call drops its Rust future.

use std::collections::HashMap;
use std::future::Future;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use pyo3::prelude::*;

/// What a finished future produces: a closure run on the loop thread with the GIL.
pub(crate) type Outcome = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;
/// A spawned future.
pub(crate) type BoxFuture = Pin<Box<dyn Future<Output = Outcome> + Send>>;

struct Task {
    fut: BoxFuture,
    /// The asyncio future to resolve (`None` for fire-and-forget tasks).
    py_fut: Option<Py<PyAny>>,
    waker: Waker,
}

struct Ready {
    ids: Vec<u64>,
    signaled: bool,
}

struct Shared {
    read: OwnedFd,
    write: OwnedFd,
    ready: Mutex<Ready>,
    tasks: Mutex<HashMap<u64, Task>>,
    next_id: AtomicU64,
    closed: AtomicBool,
}

impl Shared {
    fn schedule(&self, id: u64) {
        let mut r = self.ready.lock().unwrap();
        r.ids.push(id);
        if !r.signaled {
            r.signaled = true;
            let b = [1u8];
            // SAFETY: one byte from a valid buffer to our own non-blocking pipe.
            unsafe { libc::write(self.write.as_raw_fd(), b.as_ptr().cast(), 1) };
        }
    }

    fn drain_pipe(&self) {
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reading into a valid buffer from our own non-blocking pipe.
            let n =
                unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < buf.len() as isize {
                break;
            }
        }
    }
}

struct TaskWaker {
    id: u64,
    shared: Weak<Shared>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(s) = self.shared.upgrade() {
            s.schedule(self.id);
        }
    }
}

fn set_flags(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let fdf = libc::fcntl(fd, libc::F_GETFD);
        if fdf < 0 || libc::fcntl(fd, libc::F_SETFD, fdf | libc::FD_CLOEXEC) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Runs Rust futures for one asyncio event loop (see the module docs).
#[pyclass(module = "codexclient._native", frozen)]
pub struct Driver {
    shared: Arc<Shared>,
}

impl Driver {
    /// Spawn a future; poll it once now (so a request is on the wire before this returns).
    /// Returns the task id for [`cancel`](Self::cancel).
    pub(crate) fn spawn(&self, py: Python<'_>, fut: BoxFuture, py_fut: Option<Py<PyAny>>) -> u64 {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let waker = Waker::from(Arc::new(TaskWaker {
            id,
            shared: Arc::downgrade(&self.shared),
        }));
        self.shared
            .tasks
            .lock()
            .unwrap()
            .insert(id, Task { fut, py_fut, waker });
        self.poll_task(py, id);
        id
    }

    fn poll_task(&self, py: Python<'_>, id: u64) {
        let Some(mut task) = self.shared.tasks.lock().unwrap().remove(&id) else {
            return; // finished or cancelled meanwhile
        };
        let mut cx = Context::from_waker(&task.waker);
        match task.fut.as_mut().poll(&mut cx) {
            Poll::Pending => {
                if !self.shared.closed.load(Ordering::Acquire) {
                    self.shared.tasks.lock().unwrap().insert(id, task);
                }
            }
            Poll::Ready(outcome) => {
                let result = outcome(py);
                if let Some(f) = task.py_fut.take() {
                    resolve(py, f.bind(py), result);
                } else if let Err(e) = result {
                    // Fire-and-forget task: nobody awaits it; log at debug level.
                    tracing::debug!("background task failed: {e}");
                }
            }
        }
    }
}

fn resolve(py: Python<'_>, fut: &Bound<'_, PyAny>, result: PyResult<Py<PyAny>>) {
    let done = fut
        .call_method0(pyo3::intern!(py, "done"))
        .and_then(|d| d.is_truthy())
        .unwrap_or(true);
    if done {
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

#[pymethods]
impl Driver {
    /// Create a driver (one per asyncio event loop and client).
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe() writes.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(crate::errors::simple(py, "TransportError", e.to_string()));
        }
        // SAFETY: pipe() just returned these two fresh descriptors; we own them now.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        for fd in [read.as_raw_fd(), write.as_raw_fd()] {
            set_flags(fd)
                .map_err(|e| crate::errors::simple(py, "TransportError", e.to_string()))?;
        }
        Ok(Driver {
            shared: Arc::new(Shared {
                read,
                write,
                ready: Mutex::new(Ready {
                    ids: Vec::new(),
                    signaled: false,
                }),
                tasks: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(1),
                closed: AtomicBool::new(false),
            }),
        })
    }

    /// The descriptor to pass to `loop.add_reader`.
    fn fileno(&self) -> RawFd {
        self.shared.read.as_raw_fd()
    }

    /// Poll every task that was woken (the `add_reader` callback; runs on the loop thread).
    fn run(&self, py: Python<'_>) {
        self.shared.drain_pipe();
        let ids = {
            let mut r = self.shared.ready.lock().unwrap();
            r.signaled = false;
            std::mem::take(&mut r.ids)
        };
        for id in ids {
            self.poll_task(py, id);
        }
    }

    /// Drop a task's future (its `asyncio.Future` was cancelled). Unknown ids are ignored.
    fn cancel(&self, task_id: u64) {
        let task = self.shared.tasks.lock().unwrap().remove(&task_id);
        drop(task);
    }

    /// Number of tasks not finished yet.
    fn pending(&self) -> usize {
        self.shared.tasks.lock().unwrap().len()
    }

    /// Drop every task (at client close). The driver accepts no new waits afterwards.
    fn close(&self, py: Python<'_>) {
        self.shared.closed.store(true, Ordering::Release);
        let tasks: Vec<Task> = self
            .shared
            .tasks
            .lock()
            .unwrap()
            .drain()
            .map(|(_, t)| t)
            .collect();
        for t in &tasks {
            if let Some(f) = &t.py_fut {
                let _ = f.call_method0(py, pyo3::intern!(py, "cancel"));
            }
        }
        drop(tasks);
    }
}
