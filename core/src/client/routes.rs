//! What a binding routes through the client's handler table instead of keeping tables of its
//! own: the outcomes of requests sent without waiting (each carrying what its sender
//! attached), and the removal of a handler.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::value::RawValue;

use super::Client;
use crate::delivery::dispatch::ResponseHandler;
use crate::error::Result;
use crate::event::{Attachment, Response};
use crate::options::RequestOptions;

/// Tokens of [`Client::send_request_with`]: unique in the process, never 0.
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

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

impl Client {
    /// Register the handler of the outcomes of requests sent without waiting
    /// ([`send_request`](Self::send_request), [`send_request_with`](Self::send_request_with)):
    /// each [`Response`] is handed to it owned, on the dispatch thread, in the connection's
    /// event order (responses go ahead of waiting events). Replaces the previous one; without
    /// one they are dropped. Errors in poll mode (there they come from `next_event`).
    pub fn on_response(&self, f: impl Fn(Response) + Send + Sync + 'static) -> Result<()> {
        self.check_callbacks_mode()?;
        *self.handlers().response.write().unwrap() = Some(Arc::new(f) as ResponseHandler);
        Ok(())
    }

    /// Remove one handler (see [`HandlerSlot`]); events it took are then handled as if it
    /// had never been registered. Takes effect for the next event. Errors in poll mode.
    pub fn clear_handler(&self, slot: HandlerSlot) -> Result<()> {
        self.check_callbacks_mode()?;
        let h = self.handlers();
        match slot {
            HandlerSlot::Notification => *h.notification.write().unwrap() = None,
            HandlerSlot::ServerRequest => *h.server_request.write().unwrap() = None,
            HandlerSlot::Connection => *h.connection.write().unwrap() = None,
            HandlerSlot::Response => *h.response.write().unwrap() = None,
            HandlerSlot::Event => *h.any.write().unwrap() = None,
        }
        Ok(())
    }

    /// [`disconnect`](Self::disconnect), telling whether there was anything to end: a
    /// connection (also one the server ended and no disconnect has ended yet) or a connect
    /// in progress. Of two concurrent calls, one gets `true`.
    pub fn end_connection(&self) -> bool {
        let (live, connecting) = self.take_connection();
        let had = live.is_some() || connecting.is_some();
        if let Some(s) = connecting {
            s.shutdown();
        }
        if let Some(c) = live {
            c.lock().unwrap().close();
        }
        had
    }

    /// [`send_request`](Self::send_request) with a token the client picks (unique in the
    /// process, never 0; returned) and a value of the caller's, `attachment`, that comes back
    /// untouched in the request's [`Response`] (callbacks: the [`on_response`](Self::on_response)
    /// handler; poll: `next_event`). Exactly one response comes per request sent; an error
    /// returned here means nothing was sent and `attachment` is dropped. Cancel it with
    /// [`cancel_request`](Self::cancel_request) and the returned token.
    pub fn send_request_with(
        &self,
        method: &str,
        params: &RawValue,
        opts: RequestOptions,
        attachment: Attachment,
    ) -> Result<u64> {
        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let session = self.live_session()?;
        session.send_request(
            method,
            params,
            opts,
            false,
            crate::correlation::Reply::Event(token, Some(attachment)),
        )?;
        Ok(token)
    }
}
