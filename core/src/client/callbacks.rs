//! Callback delivery ([`Delivery::Callbacks`]): registering the client's handlers, which
//! its dispatch thread calls.

use std::sync::Arc;

use super::Client;
use crate::delivery::dispatch::{
    ConnectionHandler, EventHandler, Handlers, NotificationHandler, ResponseHandler,
    ServerRequestHandler,
};
use crate::error::{Error, Result};
use crate::event::{ConnectionEvent, Event, Notification, Response, ServerRequest};
use crate::options::Delivery;

impl Client {
    /// The client's handler table.
    pub(crate) fn handlers(&self) -> &Arc<Handlers> {
        &self.inner.handlers
    }

    pub(crate) fn check_callbacks_mode(&self) -> Result<()> {
        match self.inner.options.delivery {
            Delivery::Callbacks => Ok(()),
            Delivery::Poll => Err(Error::InvalidState(
                "client uses poll delivery; callbacks cannot be registered".into(),
            )),
        }
    }

    /// Register the notification callback (replaces the previous one). Runs on the dispatch
    /// thread. Errors in poll mode.
    pub fn on_notification(&self, f: impl Fn(&Notification) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.notification.write().unwrap() =
            Some(Arc::new(f) as NotificationHandler);
        Ok(())
    }

    /// Register the server-request callback (replaces the previous one). It owns the request
    /// and may answer it later from any thread. Without one, requests are answered
    /// fail-closed (approvals declined). Errors in poll mode.
    pub fn on_server_request(
        &self,
        f: impl Fn(ServerRequest) + Send + Sync + 'static,
    ) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.server_request.write().unwrap() =
            Some(Arc::new(f) as ServerRequestHandler);
        Ok(())
    }

    /// Register one handler that takes every event, owned, on the dispatch thread, instead
    /// of every other handler (none of them is called while it is set). For a binding that
    /// turns core events into its own representation. A server request it drops unanswered
    /// is answered fail-closed. Errors in poll mode.
    pub fn on_event(&self, f: impl Fn(Event) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.any.write().unwrap() = Some(Arc::new(f) as EventHandler);
        Ok(())
    }

    /// Register the connection-event callback (errors, overflow, disconnect). Errors in poll mode.
    pub fn on_connection_event(
        &self,
        f: impl Fn(&ConnectionEvent) + Send + Sync + 'static,
    ) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.connection.write().unwrap() = Some(Arc::new(f) as ConnectionHandler);
        Ok(())
    }

    /// Register the handler of the outcomes of requests sent without waiting
    /// ([`send_request`](Self::send_request), [`send_request_with`](Self::send_request_with)):
    /// each [`Response`] is handed to it owned, on the dispatch thread, in the connection's
    /// event order (responses go ahead of waiting events). Replaces the previous one; without
    /// one they are dropped. Errors in poll mode (there they come from `next_event`).
    pub fn on_response(&self, f: impl Fn(Response) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.inner.handlers.response.write().unwrap() = Some(Arc::new(f) as ResponseHandler);
        Ok(())
    }

    /// Remove one handler (see [`HandlerSlot`]); events it took are then handled as if it
    /// had never been registered (a server request answered fail-closed). Takes effect for
    /// the next event. Errors in poll mode.
    pub fn clear_handler(&self, slot: HandlerSlot) -> Result<()> {
        self.check_callbacks_mode()?;
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
