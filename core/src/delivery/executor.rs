//! An executor for a foreign event loop: futures are polled on the loop's own thread when
//! it calls [`Executor::run_ready`], which it does when [`Executor::fd`] becomes readable.
//! Wakers fire on any thread (the library's runtime thread, usually): they only record the
//! task and make the descriptor readable, never run anything.

use std::collections::HashMap;
use std::future::Future;
use std::os::fd::RawFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use crate::delivery::readiness::Readiness;

/// Identifies a spawned task (for [`Executor::cancel`]).
pub type TaskId = u64;

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
type PanicHook = Box<dyn FnOnce(String) + Send>;

struct Task {
    fut: BoxFuture,
    waker: Waker,
    on_panic: Option<PanicHook>,
}

struct Shared {
    readiness: Readiness,
    ready: Mutex<Vec<TaskId>>,
    tasks: Mutex<HashMap<TaskId, Task>>,
    next: AtomicU64,
    closed: AtomicBool,
}

impl Shared {
    fn schedule(&self, id: TaskId) {
        self.ready.lock().unwrap().push(id);
        self.readiness.set();
    }
}

struct TaskWaker {
    id: TaskId,
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

/// Runs futures for one foreign event loop (see the module docs). Cheap to clone.
#[derive(Clone)]
pub struct Executor {
    shared: Arc<Shared>,
}

impl Executor {
    /// A new executor with its own descriptor.
    pub fn new() -> std::io::Result<Executor> {
        Ok(Executor {
            shared: Arc::new(Shared {
                readiness: Readiness::new()?,
                ready: Mutex::new(Vec::new()),
                tasks: Mutex::new(HashMap::new()),
                next: AtomicU64::new(1),
                closed: AtomicBool::new(false),
            }),
        })
    }

    /// The descriptor to watch: readable while some task was woken and not yet polled.
    pub fn fd(&self) -> RawFd {
        self.shared.readiness.fd()
    }

    /// Spawn a future and poll it once now, on the calling thread (so a request is on the
    /// wire before this returns). `on_panic` runs instead of the future's own completion if
    /// polling it panics (on the thread that polled). After [`close`](Self::close) the
    /// future is dropped at once.
    pub fn spawn(
        &self,
        fut: impl Future<Output = ()> + Send + 'static,
        on_panic: impl FnOnce(String) + Send + 'static,
    ) -> TaskId {
        let id = self.shared.next.fetch_add(1, Ordering::Relaxed);
        if self.shared.closed.load(Ordering::Acquire) {
            return id;
        }
        let waker = Waker::from(Arc::new(TaskWaker {
            id,
            shared: Arc::downgrade(&self.shared),
        }));
        let task = Task {
            fut: Box::pin(fut),
            waker,
            on_panic: Some(Box::new(on_panic)),
        };
        self.shared.tasks.lock().unwrap().insert(id, task);
        self.poll(id);
        id
    }

    fn poll(&self, id: TaskId) {
        let Some(mut task) = self.shared.tasks.lock().unwrap().remove(&id) else {
            return; // finished or cancelled meanwhile
        };
        let waker = task.waker.clone();
        let mut cx = Context::from_waker(&waker);
        match catch_unwind(AssertUnwindSafe(|| task.fut.as_mut().poll(&mut cx))) {
            Ok(Poll::Pending) => {
                if !self.shared.closed.load(Ordering::Acquire) {
                    self.shared.tasks.lock().unwrap().insert(id, task);
                }
            }
            Ok(Poll::Ready(())) => {}
            Err(payload) => {
                let msg = crate::rt::panic_message(&*payload);
                tracing::error!("a task of a foreign event loop panicked: {msg}");
                drop(task.fut);
                if let Some(hook) = task.on_panic.take() {
                    if catch_unwind(AssertUnwindSafe(|| hook(msg))).is_err() {
                        tracing::error!("the panic hook of a task panicked too");
                    }
                }
            }
        }
    }

    /// Poll every task woken since the last call, on the calling thread (the loop's reader
    /// callback). A task that panics is finished through its hook; the others are polled
    /// all the same. Returns how many were polled.
    pub fn run_ready(&self) -> usize {
        self.shared.readiness.clear();
        let ids = std::mem::take(&mut *self.shared.ready.lock().unwrap());
        let n = ids.len();
        for id in ids {
            self.poll(id);
        }
        n
    }

    /// Drop a task's future (its awaiting side gave up). Returns whether it was still there.
    pub fn cancel(&self, id: TaskId) -> bool {
        let task = self.shared.tasks.lock().unwrap().remove(&id);
        task.is_some()
    }

    /// Number of tasks not finished yet.
    pub fn pending(&self) -> usize {
        self.shared.tasks.lock().unwrap().len()
    }

    /// Drop every task; no task is accepted afterwards.
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Release);
        let tasks: Vec<Task> = self
            .shared
            .tasks
            .lock()
            .unwrap()
            .drain()
            .map(|(_, t)| t)
            .collect();
        drop(tasks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::readiness::readable;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn woken_tasks_run_on_run_ready_and_a_panic_spares_the_others() {
        let ex = Executor::new().unwrap();
        let done = Arc::new(AtomicUsize::new(0));
        let panics = Arc::new(Mutex::new(Vec::new()));
        let (tx1, rx1) = tokio::sync::oneshot::channel::<u32>();
        let (tx2, rx2) = tokio::sync::oneshot::channel::<u32>();
        let (tx3, rx3) = tokio::sync::oneshot::channel::<u32>();
        let d = done.clone();
        ex.spawn(
            async move {
                rx1.await.unwrap();
                d.fetch_add(1, Ordering::SeqCst);
            },
            |_| {},
        );
        let p = panics.clone();
        ex.spawn(
            async move {
                let v = rx2.await.unwrap();
                assert!(v != 2, "boom");
            },
            move |m| p.lock().unwrap().push(m),
        );
        let d = done.clone();
        ex.spawn(
            async move {
                rx3.await.unwrap();
                d.fetch_add(1, Ordering::SeqCst);
            },
            |_| {},
        );
        assert_eq!(ex.pending(), 3);
        assert!(!readable(ex.fd()));
        // Woken from another thread: the descriptor becomes readable, nothing runs yet.
        std::thread::spawn(move || {
            tx1.send(1).unwrap();
            tx2.send(2).unwrap();
            tx3.send(3).unwrap();
        })
        .join()
        .unwrap();
        assert!(readable(ex.fd()));
        assert_eq!(done.load(Ordering::SeqCst), 0);
        assert_eq!(ex.run_ready(), 3);
        assert!(!readable(ex.fd()));
        assert_eq!(
            done.load(Ordering::SeqCst),
            2,
            "the panic dropped another task"
        );
        let panics = panics.lock().unwrap();
        assert_eq!(panics.len(), 1);
        assert!(panics[0].contains("boom"), "{panics:?}");
        assert_eq!(ex.pending(), 0);
    }

    #[test]
    fn cancel_and_close_drop_futures() {
        let ex = Executor::new().unwrap();
        let (_tx, rx) = tokio::sync::oneshot::channel::<()>();
        let id = ex.spawn(
            async move {
                let _ = rx.await;
            },
            |_| {},
        );
        assert!(ex.cancel(id));
        assert!(!ex.cancel(id));
        let (_tx2, rx2) = tokio::sync::oneshot::channel::<()>();
        ex.spawn(
            async move {
                let _ = rx2.await;
            },
            |_| {},
        );
        ex.close();
        assert_eq!(ex.pending(), 0);
        ex.spawn(async {}, |_| {});
        assert_eq!(ex.pending(), 0);
    }
}
