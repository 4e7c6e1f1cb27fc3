//! The client's handler table: registering handlers (by kind, by method name, with a
//! fallback), which the dispatch thread calls in callback mode ([`Delivery::Callbacks`]) and
//! [`Client::dispatch_events`] calls on the caller's thread in poll mode; handing a server
//! request to the table ([`Client::handle_request`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::Client;
use crate::delivery::dispatch::{
    ConnectionHandler, EventHandler, Handlers, Kept, NotificationHandler, ResponseHandler,
    ServerRequestHandler,
};
use crate::error::{Error, Result};
use crate::event::{ConnectionEvent, Event, Notification, Response, ServerRequest};
use crate::options::Delivery;

/// Events [`Client::dispatch_events`] takes from the queue at a time.
const DISPATCH_BATCH: usize = 256;

impl Client {
    /// The client's handler table.
    pub(crate) fn handlers(&self) -> &Arc<Handlers> {
        &self.inner.handlers
    }

    /// Register the notification callback (replaces the previous one): every notification
    /// without a handler of its own method ([`on_method_notification`](Self::on_method_notification)).
    /// Runs on the dispatch thread (poll mode: in [`dispatch_events`](Self::dispatch_events)).
    pub fn on_notification(&self, f: impl Fn(&Notification) + Send + Sync + 'static) -> Result<()> {
        *self.inner.handlers.notification.write().unwrap() =
            Some(Arc::new(f) as NotificationHandler);
        Ok(())
    }

    /// Register the server-request callback (replaces the previous one): the fallback, for
    /// requests of every method without a handler of its own
    /// ([`on_method_request`](Self::on_method_request), typed `on_request`). It owns the
    /// request and may answer it later from any thread. Without one, such requests are
    /// answered fail-closed (approvals declined).
    pub fn on_server_request(
        &self,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        *self.inner.handlers.server_request.write().unwrap() =
            Some(Arc::new(f) as ServerRequestHandler);
        Ok(())
    }

    /// Register the handler of server requests of `method`, by name (replaces the previous
    /// one of that method, typed ones included). It takes precedence over the fallback
    /// ([`on_server_request`](Self::on_server_request)); per-thread handlers
    /// ([`Thread::on_request`](crate::Thread::on_request)) take precedence over it. For
    /// bindings and for methods the generated protocol does not know.
    pub fn on_method_request(
        &self,
        method: &str,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        self.handlers()
            .by_method
            .write()
            .unwrap()
            .insert(method.to_owned(), Arc::new(f) as ServerRequestHandler);
        Ok(())
    }

    /// Register the handler of notifications of `method`, by name (replaces the previous one
    /// of that method). It takes precedence over [`on_notification`](Self::on_notification).
    pub fn on_method_notification(
        &self,
        method: &str,
        f: impl Fn(&Notification) + Send + Sync + 'static,
    ) -> Result<()> {
        self.handlers()
            .notification_by_method
            .write()
            .unwrap()
            .insert(method.to_owned(), Arc::new(f) as NotificationHandler);
        Ok(())
    }

    /// Remove the handlers registered for `method` (its server requests', typed ones
    /// included, and its notifications'): its events go to the fallbacks from the next one.
    pub fn clear_method_handlers(&self, method: &str) {
        let h = self.handlers();
        h.by_method.write().unwrap().remove(method);
        h.notification_by_method.write().unwrap().remove(method);
    }

    /// Register one handler that takes every event, owned, on the dispatch thread, instead
    /// of every other handler (none of them is called while it is set). A server request it
    /// drops unanswered is answered fail-closed.
    pub fn on_event(&self, f: impl Fn(Event) + Send + Sync + 'static) -> Result<()> {
        *self.inner.handlers.any.write().unwrap() = Some(Arc::new(f) as EventHandler);
        Ok(())
    }

    /// Register the connection-event callback (errors, overflow, disconnect).
    pub fn on_connection_event(
        &self,
        f: impl Fn(&ConnectionEvent) + Send + Sync + 'static,
    ) -> Result<()> {
        *self.inner.handlers.connection.write().unwrap() = Some(Arc::new(f) as ConnectionHandler);
        Ok(())
    }

    /// Register the handler of the outcomes of requests sent without waiting
    /// ([`send_request`](Self::send_request), [`send_request_with`](Self::send_request_with)):
    /// each [`Response`] is handed to it owned, in the connection's event order (responses go
    /// ahead of waiting events). Replaces the previous one; without one they are dropped.
    pub fn on_response(&self, f: impl Fn(Response) + Send + Sync + 'static) -> Result<()> {
        *self.inner.handlers.response.write().unwrap() = Some(Arc::new(f) as ResponseHandler);
        Ok(())
    }

    /// Remove one handler (see [`HandlerSlot`]); events it took are then handled as if it
    /// had never been registered (a server request answered fail-closed). Takes effect for
    /// the next event.
    pub fn clear_handler(&self, slot: HandlerSlot) -> Result<()> {
        let h = &self.inner.handlers;
        match slot {
            HandlerSlot::Notification => *h.notification.write().unwrap() = None,
            HandlerSlot::ServerRequest => *h.server_request.write().unwrap() = None,
            HandlerSlot::Connection => *h.connection.write().unwrap() = None,
            HandlerSlot::Response => *h.response.write().unwrap() = None,
            HandlerSlot::Event => *h.any.write().unwrap() = None,
        }
        Ok(())
    }

    /// Hand a server request to the handler table on this thread: the handler registered for
    /// its thread and method, else for its method, else the fallback runs now; with none,
    /// it is answered fail-closed (approvals declined) and the warning logged. For requests a
    /// program pulled itself (a turn stream, poll mode) that a handler should decide.
    pub fn handle_request(&self, req: ServerRequest) {
        self.handlers().run_request(req);
    }

    /// Whether server requests of a thread whose turn is being streamed stay in that turn
    /// stream even when a registered handler takes their method (on), or go to the handler
    /// (off, the default). With it on, the stream's consumer hands each such request to the
    /// table itself ([`handle_request`](Self::handle_request), a [`ServerRequest::share`]
    /// to show it afterwards): how a binding runs the handlers of a turn on the thread that
    /// iterates it. Takes effect for the next request.
    pub fn turn_streams_keep_requests(&self, on: bool) {
        self.handlers()
            .turn_streams_keep_requests
            .store(on, Ordering::Release);
    }

    /// Poll mode: run the handlers for the events waiting now (up to 256; call again while
    /// it returns more than 0), on this thread, without waiting (as the dispatch thread does in callback mode: server requests without a
    /// handler answered fail-closed, notifications without one dropped). Returns how many
    /// events were handled: 0 when none wait, or before any connect. Errors in callback mode
    /// (the dispatch thread runs them there). Events pulled with
    /// [`next_event`](Self::next_event) meanwhile bypass the handlers.
    pub fn dispatch_events(&self) -> Result<usize> {
        if self.inner.options.delivery != Delivery::Poll {
            return Err(Error::InvalidState(
                "client uses callback delivery: its dispatch thread runs the handlers".into(),
            ));
        }
        let mut batch = Vec::with_capacity(16);
        match self.next_events(&mut batch, DISPATCH_BATCH, Some(Duration::ZERO)) {
            Ok(_) | Err(Error::NotConnected) => {}
            Err(e) => return Err(e),
        }
        let n = batch.len();
        for ev in batch {
            self.handlers().dispatch(ev);
        }
        Ok(n)
    }

    /// Keep `obj` alive beside the handlers under `key` (a key of the caller's choosing;
    /// `None` lets go of it): a binding whose handlers hold objects of a garbage-collected
    /// runtime keeps them here and shows them to its collector with
    /// [`visit_kept`](Self::visit_kept), so a handler that refers back to its client does not
    /// keep it alive unseen.
    #[doc(hidden)] // for bindings (Python's garbage collector), not an API of the library
    pub fn keep_with_handlers(&self, key: &str, obj: Option<Kept>) {
        let mut kept = self.handlers().kept.lock().unwrap();
        match obj {
            Some(o) => kept.insert(key.to_owned(), o),
            None => kept.remove(key),
        };
    }

    /// Call `f` on each object kept with [`keep_with_handlers`](Self::keep_with_handlers).
    /// Does nothing when the table is busy (a registration on another thread).
    #[doc(hidden)] // for bindings (Python's garbage collector), not an API of the library
    pub fn visit_kept(&self, mut f: impl FnMut(&Kept)) {
        if let Ok(kept) = self.handlers().kept.try_lock() {
            kept.values().for_each(&mut f);
        }
    }
}

/// A handler of the client's table ([`Client::clear_handler`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerSlot {
    /// [`Client::on_notification`].
    Notification,
    /// [`Client::on_server_request`] (without it server requests are answered fail-closed).
    ServerRequest,
    /// [`Client::on_connection_event`].
    Connection,
    /// [`Client::on_response`].
    Response,
    /// [`Client::on_event`].
    Event,
}
