//! Answering server requests: the narrow handle through which an answer reaches its
//! connection ([`Responder`], implemented by the session), the state a request shares with
//! its connection, and the connection's table of requests still open. The event types depend
//! on this module, not on the session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::message::RequestId;

/// What a server request needs of its connection to be answered.
pub(crate) trait Responder: Send + Sync {
    /// Queue a response line for the server.
    fn send_response(&self, line: Vec<u8>) -> Result<()>;
    /// The request `id` is answered: the connection stops tracking it.
    fn forget_request(&self, id: &RequestId);
    /// The error for an answer after the connection closed.
    fn disconnect_error(&self) -> Error;
}

const OPEN: u8 = 0;
const ANSWERED: u8 = 1;
const RESOLVED: u8 = 2;
const CLOSED: u8 = 3;

/// Shared state of one server request, also known to the connection so that
/// `serverRequest/resolved` and disconnects can close it.
#[derive(Debug)]
pub(crate) struct ResponderState {
    status: AtomicU8,
    /// Handles of the request alive ([`ServerRequest::share`](crate::ServerRequest::share));
    /// the last one dropped unanswered answers fail-closed.
    handles: AtomicUsize,
}

impl ResponderState {
    /// The state of a detached request (deserialised from its reference): closed, never
    /// answered through it.
    pub(crate) fn detached() -> Arc<ResponderState> {
        Arc::new(ResponderState {
            status: AtomicU8::new(CLOSED),
            handles: AtomicUsize::new(1),
        })
    }

    fn settle(&self, to: u8) {
        let _ = self
            .status
            .compare_exchange(OPEN, to, Ordering::AcqRel, Ordering::Acquire);
    }

    /// One more handle of the request.
    pub(crate) fn add_handle(&self) {
        self.handles.fetch_add(1, Ordering::AcqRel);
    }

    /// One handle fewer: whether it was the last.
    pub(crate) fn drop_handle(&self) -> bool {
        self.handles.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// Whether the request can still be answered.
    pub(crate) fn is_open(&self) -> bool {
        self.status.load(Ordering::Acquire) == OPEN
    }

    /// Take the one right to answer: refused once answered or resolved by the server
    /// (`AlreadyResponded`) or closed by the disconnect (`conn`'s disconnect error).
    pub(crate) fn claim(&self, conn: &dyn Responder) -> Result<()> {
        match self
            .status
            .compare_exchange(OPEN, ANSWERED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(()),
            Err(CLOSED) => Err(conn.disconnect_error()),
            Err(_) => Err(Error::AlreadyResponded),
        }
    }
}

/// One open server request: its state and method (what answers it by reference).
struct Open {
    state: Arc<ResponderState>,
    method: String,
}

/// The server requests of one connection that are not answered yet.
#[derive(Default)]
pub(crate) struct OpenRequests(Mutex<HashMap<RequestId, Open>>);

impl OpenRequests {
    /// Track a new server request of `method`; its state, for the request handed to the user.
    pub(crate) fn open(&self, id: RequestId, method: &str) -> Arc<ResponderState> {
        let state = Arc::new(ResponderState {
            status: AtomicU8::new(OPEN),
            handles: AtomicUsize::new(1),
        });
        let open = Open {
            state: state.clone(),
            method: method.to_owned(),
        };
        self.0.lock().unwrap().insert(id, open);
        state
    }

    /// The state and method of open request `id`, with one more handle counted (for a handle
    /// made to answer it by reference); `None` when it is not open.
    pub(crate) fn handle_of(&self, id: &RequestId) -> Option<(Arc<ResponderState>, String)> {
        let table = self.0.lock().unwrap();
        let open = table.get(id).filter(|o| o.state.is_open())?;
        open.state.add_handle();
        Some((open.state.clone(), open.method.clone()))
    }

    /// Stop tracking an answered request.
    pub(crate) fn forget(&self, id: &RequestId) {
        self.0.lock().unwrap().remove(id);
    }

    /// The server resolved request `id` itself (`serverRequest/resolved`): later answers fail
    /// with `AlreadyResponded`.
    pub(crate) fn resolve(&self, id: &RequestId) {
        if let Some(open) = self.0.lock().unwrap().remove(id) {
            open.state.settle(RESOLVED);
        }
    }

    /// The connection closed (or dropped, to be reconnected): later answers fail with the
    /// disconnect error. How many were open.
    pub(crate) fn close_all(&self) -> usize {
        let open: Vec<_> = self.0.lock().unwrap().drain().collect();
        for (_, open) in &open {
            open.state.settle(CLOSED);
        }
        open.len()
    }
}
