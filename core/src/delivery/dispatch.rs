//! Callback delivery: registered handlers and the one library-owned thread that runs them.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::delivery::queue::EventQueue;
use crate::event::{ConnectionEvent, Event, Notification, ServerRequest};

/// Handler of server notifications.
pub type NotificationHandler = Arc<dyn Fn(&Notification) + Send + Sync>;
/// Handler of server requests; it owns the request and answers it now or later.
pub type ServerRequestHandler = Arc<dyn Fn(ServerRequest) + Send + Sync>;
/// Handler of connection events (errors, overflow, disconnect).
pub type ConnectionHandler = Arc<dyn Fn(&ConnectionEvent) + Send + Sync>;
/// Handler that takes every event, owned (see [`Client::on_event`](crate::Client::on_event)).
pub type EventHandler = Arc<dyn Fn(Event) + Send + Sync>;

/// The handlers registered on a client. They survive reconnects.
#[derive(Default)]
pub(crate) struct Handlers {
    pub notification: RwLock<Option<NotificationHandler>>,
    pub server_request: RwLock<Option<ServerRequestHandler>>,
    /// Handlers of one server request method each (typed handlers); they take precedence over
    /// `server_request`.
    pub by_method: RwLock<HashMap<String, ServerRequestHandler>>,
    /// Handlers of one method on one thread (`(thread id, method)`); they take precedence over
    /// `by_method`.
    pub by_thread: RwLock<HashMap<(String, String), ServerRequestHandler>>,
    pub connection: RwLock<Option<ConnectionHandler>>,
    /// Takes every event instead of the handlers above (a binding's own delivery).
    pub any: RwLock<Option<EventHandler>>,
}

thread_local! {
    static ON_DISPATCH_THREAD: Cell<bool> = const { Cell::new(false) };
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

/// Whether the current thread is a client's dispatch thread (callbacks run here).
pub fn on_dispatch_thread() -> bool {
    ON_DISPATCH_THREAD.with(|c| c.get())
}

impl Handlers {
    /// Whether a registered handler takes server requests of `method` on `thread_id` (then they
    /// go to the dispatch thread even while a turn stream is open on their thread).
    pub(crate) fn handles(&self, method: &str, thread_id: Option<&str>) -> bool {
        self.request_handler(method, thread_id).is_some()
    }

    /// The handler for a server request: the thread's own for the method, else the method's,
    /// else the generic one.
    fn request_handler(
        &self,
        method: &str,
        thread_id: Option<&str>,
    ) -> Option<ServerRequestHandler> {
        if let Some(t) = thread_id {
            let map = self.by_thread.read().unwrap();
            if !map.is_empty() {
                if let Some(h) = map.get(&(t.to_owned(), method.to_owned())) {
                    return Some(h.clone());
                }
            }
        }
        let own = self.by_method.read().unwrap().get(method).cloned();
        own.or_else(|| self.server_request.read().unwrap().clone())
    }

    /// Report a handler failure (a panic or an error) as a connection error event.
    pub(crate) fn report_error(&self, msg: String) {
        tracing::error!("{msg}");
        let handler = self.connection.read().unwrap().clone();
        if let Some(h) = handler {
            let ev = ConnectionEvent::Error(msg);
            let _ = catch_unwind(AssertUnwindSafe(|| h(&ev)));
        }
    }

    fn report_panic(&self, what: &str, payload: &(dyn std::any::Any + Send)) {
        self.report_error(format!(
            "{what} callback panicked: {}",
            crate::delivery::panic_message(payload)
        ));
    }

    /// Run the right handler for one event. Server requests without a handler are answered
    /// fail-closed; a panicking server-request handler drops the request, which answers it
    /// fail-closed too.
    pub(crate) fn dispatch(&self, event: Event) {
        let any = self.any.read().unwrap().clone();
        if let Some(h) = any {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(event))) {
                self.report_panic("event", &*p);
            }
            return;
        }
        match event {
            Event::Notification(n) => {
                let h = self.notification.read().unwrap().clone();
                if let Some(h) = h {
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(&n))) {
                        self.report_panic("notification", &*p);
                    }
                }
            }
            Event::ServerRequest(r) => {
                match self.request_handler(&r.method, r.thread_id().as_deref()) {
                    Some(h) => {
                        if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(r))) {
                            self.report_panic("server request", &*p);
                        }
                    }
                    None => {
                        tracing::info!(method = %r.method, "no server request handler; answering fail-closed");
                        let _ = r.respond_fail_closed();
                    }
                }
            }
            Event::Connection(c) => {
                let h = self.connection.read().unwrap().clone();
                if let Some(h) = h {
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(&c))) {
                        self.report_panic("connection", &*p);
                    }
                }
            }
            Event::Response(r) => {
                tracing::debug!(token = r.token, method = %r.method, "response with no event handler; dropped");
            }
        }
    }
}

/// The dispatch thread of one connection.
pub(crate) struct Dispatcher {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Dispatcher {
    pub(crate) fn start(
        queue: Arc<EventQueue>,
        handlers: Arc<Handlers>,
    ) -> std::io::Result<Dispatcher> {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::Builder::new()
            .name("codex-client-dispatch".into())
            .spawn(move || {
                block_sigpipe();
                ON_DISPATCH_THREAD.with(|c| c.set(true));
                crate::delivery::mark_event_delivery_thread();
                let mut batch = Vec::with_capacity(256);
                loop {
                    let more = queue.wait_drain(&mut batch, 256, None);
                    for ev in batch.drain(..) {
                        // Once halted only responses are delivered (every sent request gets
                        // its answer); the rest is dropped (server requests answer
                        // fail-closed on drop).
                        if stop2.load(Ordering::Acquire) && !matches!(ev, Event::Response(_)) {
                            continue;
                        }
                        handlers.dispatch(ev);
                    }
                    if !more {
                        break;
                    }
                }
            })?;
        Ok(Dispatcher {
            stop,
            thread: Some(thread),
        })
    }

    /// Stop running callbacks: events still queued are dropped (server requests among them
    /// are answered fail-closed when the connection is still up), except responses, which are
    /// still delivered until the connection's queue closes.
    pub(crate) fn halt(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Halt, then wait for the thread to end (unless called from it). The thread ends once
    /// its queue is closed, so close the connection first.
    pub(crate) fn join(&mut self) {
        self.halt();
        if let Some(t) = self.thread.take() {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.join();
    }
}
