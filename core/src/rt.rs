//! The library's one runtime, shared by every connection of the process, and the task scope
//! of each connection.
//!
//! The runtime is started on first use and owned by the library (it is never the caller's:
//! a program inside its own tokio runtime, a plain C program or Python all get the same
//! one). It has `WORKERS` threads named `codex-client-rt`, each a single-threaded runtime
//! (and, only while a host name is being resolved or a binding's callback runs —
//! `off_runtime` — a blocking thread of that name). Every
//! connection is one root task on the least busy thread (`spawn_root`), and all its tasks
//! stay on that thread; each task the connection starts (reader, writer, timers,
//! stderr, shims, their processes' waits) is spawned with `spawn`, which registers it in the
//! connection's scope, carried by a task-local and inherited by nested spawns. When the root
//! task ends, every task still registered in its scope is aborted; the scope's `Done`
//! completes once the last of them is gone (their futures dropped: child processes killed
//! on drop, descriptors closed).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::task::{AbortHandle, JoinHandle};

use crate::error::{Error, Result};

/// Threads of the shared runtime. The library's own work per event is small (framing,
/// parsing the envelope, routing, queueing: about a microsecond), so one thread keeps up with
/// a fast server; a second lets two busy connections parse in parallel on a multi-core machine
/// and keeps the others served while one thread is in a long step (a TLS handshake, a large
/// line). More would only add idle threads: the consumers (callbacks, iterators) are the
/// bottleneck, and they run on other threads. Fixed, so the thread count does not depend on
/// the machine.
pub const WORKERS: usize = 2;

/// Name of the runtime's threads.
const THREAD_NAME: &str = "codex-client-rt";

thread_local! {
    static ON_RUNTIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// One thread of the shared runtime: a single-threaded tokio runtime that a connection's
/// tasks all run on (its root task was given this thread), so a connection's reader, writer
/// and timers wake each other without crossing threads, as on a runtime of its own.
struct Worker {
    handle: tokio::runtime::Handle,
    /// Connections whose root task runs here (a new one goes to the least busy thread).
    connections: AtomicUsize,
}

/// The runtime's threads and the process they were started in (a child after `fork` starts
/// its own: the parent's threads do not exist there).
static RUNTIME: Mutex<Option<(u32, &'static [Worker])>> = Mutex::new(None);

/// The shared runtime's threads, started on first use.
fn runtime() -> Result<&'static [Worker]> {
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if let Some((p, workers)) = *slot {
        if p == pid {
            return Ok(workers);
        }
    }
    let failed =
        |e: std::io::Error| Error::Transport(format!("could not start the library's runtime: {e}"));
    let mut workers = Vec::with_capacity(WORKERS);
    for _ in 0..WORKERS {
        let rt = tokio::runtime::Builder::new_current_thread()
            .thread_name(THREAD_NAME)
            // Blocking threads (DNS lookups of `ws://host`) end soon after their work, so the
            // library's thread count comes back to its workers.
            .thread_keep_alive(Duration::from_secs(1))
            .on_thread_start(|| {
                block_sigpipe();
                ON_RUNTIME.with(|c| c.set(true));
            })
            .enable_all()
            .build()
            .map_err(failed)?;
        let handle = rt.handle().clone();
        std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                block_sigpipe();
                ON_RUNTIME.with(|c| c.set(true));
                // Never returns: the thread serves connections until the process exits.
                rt.block_on(std::future::pending::<()>());
            })
            .map_err(failed)?;
        workers.push(Worker {
            handle,
            connections: AtomicUsize::new(0),
        });
    }
    let workers: &'static [Worker] = Box::leak(workers.into_boxed_slice());
    *slot = Some((pid, workers));
    Ok(workers)
}

/// Whether the calling thread is one of the shared runtime's (a blocking wait here could wait
/// for the very thread it blocks).
pub(crate) fn on_runtime_thread() -> bool {
    ON_RUNTIME.with(|c| c.get())
}

tokio::task_local! {
    static SCOPE: Arc<Scope>;
}

/// Tasks alive in every scope (root tasks included).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Number of tasks the library's connections have on its shared runtime right now: each
/// connection's root task and every task it started, until it is gone (finished, or aborted
/// and dropped when its connection ended). For leak checks; 0 once every client is
/// disconnected.
pub fn live_tasks() -> usize {
    LIVE.load(Ordering::Acquire)
}

/// The tasks of one connection.
struct Scope {
    tasks: Mutex<Tasks>,
    done: Arc<Done>,
}

#[derive(Default)]
struct Tasks {
    /// The root task ended: tasks spawned from now on are aborted at once.
    closed: bool,
    next: u64,
    /// Each live task's abort handle (`None` while it is being spawned).
    map: HashMap<u64, Option<AbortHandle>>,
}

impl Scope {
    /// Abort every task still registered.
    fn close(&self) {
        let map = {
            let mut t = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
            t.closed = true;
            std::mem::take(&mut t.map)
        };
        for h in map.into_values().flatten() {
            h.abort();
        }
    }
}

impl Drop for Scope {
    /// The last task of the scope is gone (each holds the scope).
    fn drop(&mut self) {
        self.done.set();
    }
}

/// A task's membership of its scope, dropped with the task's future.
struct Member {
    scope: Arc<Scope>,
    key: u64,
}

impl Drop for Member {
    fn drop(&mut self) {
        let mut t = self.scope.tasks.lock().unwrap_or_else(|e| e.into_inner());
        t.map.remove(&self.key);
        drop(t);
        LIVE.fetch_sub(1, Ordering::AcqRel);
    }
}

fn join(scope: &Arc<Scope>) -> Member {
    let key = {
        let mut t = scope.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let k = t.next;
        t.next += 1;
        t.map.insert(k, None);
        k
    };
    LIVE.fetch_add(1, Ordering::AcqRel);
    Member {
        scope: scope.clone(),
        key,
    }
}

/// Record a spawned task's abort handle, or abort it when its scope has closed meanwhile.
fn register(scope: &Scope, key: u64, handle: AbortHandle) {
    let mut t = scope.tasks.lock().unwrap_or_else(|e| e.into_inner());
    if t.closed {
        drop(t);
        handle.abort();
    } else if let Some(slot) = t.map.get_mut(&key) {
        *slot = Some(handle);
    }
}

/// Spawn a task of the current connection: it is aborted when the connection's root task
/// ends. Outside any connection's task it is a plain `tokio::spawn` (must then run inside a
/// runtime).
pub(crate) fn spawn<F>(fut: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let Ok(scope) = SCOPE.try_with(Arc::clone) else {
        #[allow(clippy::disallowed_methods)]
        return tokio::spawn(fut);
    };
    let member = join(&scope);
    let key = member.key;
    let inherited = scope.clone();
    #[allow(clippy::disallowed_methods)]
    let handle = tokio::spawn(async move {
        let _member = member;
        SCOPE.scope(inherited, fut).await
    });
    register(&scope, key, handle.abort_handle());
    handle
}

/// `fut` as a member of the current connection's scope without spawning it (for a `JoinSet`,
/// which aborts its own tasks): counted while alive, its nested [`spawn`]s join the scope, and
/// the scope's [`Done`] waits for it. Outside any scope, `fut` as it is.
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))] // only the HTTP transport
pub(crate) fn scoped<F>(fut: F) -> impl Future<Output = F::Output> + Send + 'static
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let scope = SCOPE.try_with(Arc::clone).ok();
    let member = scope.as_ref().map(join);
    async move {
        let _member = member;
        match scope {
            Some(s) => SCOPE.scope(s, fut).await,
            None => fut.await,
        }
    }
}

/// Spawn a short task on the shared runtime from anywhere (any executor or a plain thread),
/// outside every connection's scope: for a bounded wait whose timer needs the runtime.
pub(crate) fn spawn_anywhere<F>(fut: F) -> Result<JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Ok(runtime()?[0].handle.spawn(fut))
}

/// Start a connection's root task on the shared runtime, in a scope of its own. The returned
/// [`Done`] completes once the root task and every task it spawned are gone.
pub(crate) fn spawn_root<F>(fut: F) -> Result<Arc<Done>>
where
    F: Future<Output = ()> + Send + 'static,
{
    let worker = runtime()?
        .iter()
        .min_by_key(|w| w.connections.load(Ordering::Acquire))
        .expect("WORKERS > 0");
    worker.connections.fetch_add(1, Ordering::AcqRel);
    let done = Arc::new(Done::default());
    let scope = Arc::new(Scope {
        tasks: Mutex::new(Tasks::default()),
        done: done.clone(),
    });
    let member = join(&scope);
    let inherited = scope.clone();
    // Closes the scope however the root task ends (finished, or dropped unfinished).
    struct CloseOnDrop(Arc<Scope>, &'static Worker);
    impl Drop for CloseOnDrop {
        fn drop(&mut self) {
            self.0.close();
            self.1.connections.fetch_sub(1, Ordering::AcqRel);
        }
    }
    let closer = CloseOnDrop(scope, worker);
    worker.handle.spawn(async move {
        let _closer = closer;
        let _member = member;
        SCOPE.scope(inherited, fut).await
    });
    Ok(done)
}

/// `fut`, given up after `timeout`: `None` then (the future is dropped). The timer runs on the
/// library's runtime, so this works on any executor; it stops when this future is dropped.
pub(crate) async fn within<F: Future>(fut: F, timeout: Duration) -> Result<Option<F::Output>> {
    let (fire, fired) = tokio::sync::oneshot::channel::<()>();
    let (_keep, gone) = tokio::sync::oneshot::channel::<()>();
    spawn_root(async move {
        tokio::select! {
            _ = tokio::time::sleep(timeout) => { let _ = fire.send(()); }
            _ = gone => {}
        }
    })?;
    tokio::select! {
        v = fut => Ok(Some(v)),
        Ok(()) = fired => Ok(None),
    }
}

/// Run `f`, which may block (a binding's callback: a Python callable, a C function that
/// prompts), on the library's runtime's blocking pool rather than on a runtime thread, and
/// await its value. Outside a tokio runtime, `f` runs here. A panic in `f` is an error.
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))] // only the HTTP transport
pub(crate) async fn off_runtime<R, F>(f: F) -> Result<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return Ok(f());
    };
    handle
        .spawn_blocking(f)
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(p) => Error::Transport(format!(
                "a callback panicked: {}",
                panic_message(p.as_ref())
            )),
            Err(_) => Error::Transport("a callback was cancelled".into()),
        })
}

/// Completes once every task of a scope is gone.
#[derive(Default)]
pub(crate) struct Done {
    flag: Mutex<bool>,
    cv: Condvar,
    notify: tokio::sync::Notify,
}

impl Done {
    fn set(&self) {
        *self.flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
        self.notify.notify_waiters();
    }

    /// Whether it completed.
    pub(crate) fn is_done(&self) -> bool {
        *self.flag.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Block until it completes, at most `bound`; whether it did.
    pub(crate) fn wait_blocking(&self, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        let mut done = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            done = self
                .cv
                .wait_timeout(done, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Wait until it completes (any executor).
    pub(crate) async fn wait(&self) {
        loop {
            let notified = self.notify.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self.is_done() {
                return;
            }
            notified.await;
        }
    }
}

/// Wait `d` from any executor: on a tokio runtime with its timer, elsewhere (a binding's
/// `block_on`, a foreign event loop) with a timer task on the library's runtime.
pub(crate) async fn sleep(d: Duration) {
    if tokio::runtime::Handle::try_current().is_ok() {
        return tokio::time::sleep(d).await;
    }
    match runtime() {
        #[allow(clippy::disallowed_methods)]
        Ok(workers) => drop(
            workers[0]
                .handle
                .spawn(async move { tokio::time::sleep(d).await })
                .await,
        ),
        Err(_) => std::thread::sleep(d),
    }
}

/// Block SIGPIPE in the calling library-owned thread: writing to a server that went away then
/// fails with `EPIPE` (reported as a disconnect) instead of killing a host program that keeps
/// SIGPIPE's default action (C programs do; Rust and Python ignore it).
pub(crate) fn block_sigpipe() {
    // SAFETY: plain libc calls on a local, zero-initialised signal set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// The message of a panic payload (a `&str` or `String` panic, else "unknown panic"): how the
/// library and its bindings report a panic they caught.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
