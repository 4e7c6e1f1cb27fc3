//! Server requests parked until their answer comes by reference (issue 40): a request that is
//! serialised (or [`park`](crate::ServerRequest::park)ed) is kept here, one handle of it, so
//! that dropping its other handles does not answer it; it leaves the table when it is
//! answered (through any handle, or by reference), resolved by the server, when the link
//! ends, or when its bound (option `parked_request_timeout`) passes — then it is answered
//! fail-closed, with a WARNING log line. Each parked request has one timer task on the
//! library's runtime (no thread), aborted when the request leaves the table. Also the lookup
//! behind [`Client::respond_ref`](crate::Client::respond_ref).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, Weak};
use std::time::Duration;

use tokio::task::AbortHandle;

use super::SessionShared;
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::{Origin, Parking, RequestRef, ServerRequest};
use crate::message::RequestId;
use crate::responder::Responder;

/// Numbers of links, unique in the process (0: none yet).
static NEXT_LINK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new link's number.
pub(super) fn next_link() -> u64 {
    NEXT_LINK.fetch_add(1, Ordering::AcqRel)
}

/// One parked request: the handle kept and its timer.
struct Entry {
    request: ServerRequest,
    timer: Option<AbortHandle>,
}

/// The parked requests of one connection.
pub(super) struct Parked {
    /// How long one waits (zero: parking is off).
    bound: Duration,
    table: Mutex<HashMap<RequestId, Entry>>,
}

impl Parked {
    pub(super) fn new(bound: Duration) -> Parked {
        Parked {
            bound,
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Take request `id` out of the table (answered, resolved): its timer stops; the kept
    /// handle is dropped outside the lock (dropping it may answer the server).
    pub(crate) fn remove(&self, id: &RequestId) {
        let entry = self.table.lock().unwrap().remove(id);
        if let Some(e) = entry {
            if let Some(t) = &e.timer {
                t.abort();
            }
            drop(e);
        }
    }

    /// Empty the table (the link ended: its requests can no longer be answered).
    pub(super) fn clear(&self) {
        let all: Vec<Entry> = self.table.lock().unwrap().drain().map(|(_, e)| e).collect();
        for e in &all {
            if let Some(t) = &e.timer {
                t.abort();
            }
        }
        drop(all);
    }

    /// Another handle of parked request `id`.
    fn share(&self, id: &RequestId) -> Option<ServerRequest> {
        self.table
            .lock()
            .unwrap()
            .get(id)
            .map(|e| e.request.share())
    }

    /// Whether request `id` is parked and still open.
    fn holds_open(&self, id: &RequestId) -> bool {
        self.table
            .lock()
            .unwrap()
            .get(id)
            .is_some_and(|e| e.request.is_open())
    }
}

impl Parking for SessionShared {
    fn park(&self, request: ServerRequest) -> bool {
        let bound = self.parked.bound;
        if bound.is_zero() || !request.is_open() || self.is_closed() {
            return false;
        }
        let id = request.id.clone();
        let (method, endpoint) = (request.method.clone(), self.endpoint.clone());
        // The handle not kept is dropped after the lock (never the last: the caller has one).
        let extra = {
            let mut table = self.parked.table.lock().unwrap();
            match table.entry(id.clone()) {
                std::collections::hash_map::Entry::Occupied(_) => Some(request),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(Entry {
                        request,
                        timer: None,
                    });
                    None
                }
            }
        };
        if extra.is_some() {
            return true; // parked already: the bound counts from the first park
        }
        let me = self.me.clone();
        let expired = id.clone();
        let timer = crate::rt::spawn_anywhere(async move {
            tokio::time::sleep(bound).await;
            if let Some(s) = me.upgrade() {
                s.park_expired(&expired, bound);
            }
        });
        match timer {
            Ok(t) => {
                let mut table = self.parked.table.lock().unwrap();
                match table.get_mut(&id) {
                    Some(e) => e.timer = Some(t.abort_handle()),
                    None => t.abort(),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not start the timer of a parked server request; not parked");
                self.parked.remove(&id);
                return false;
            }
        }
        // Answered while it was being parked: nothing to keep.
        if !self.parked.holds_open(&id) {
            self.parked.remove(&id);
            return false;
        }
        tracing::debug!(%method, %id, endpoint = endpoint.as_deref().unwrap_or(""), ?bound, "server request parked for an answer by reference");
        true
    }
}

impl SessionShared {
    /// The origin of a server request that comes now: this client, the current link, the
    /// label, this table.
    pub(crate) fn origin(&self) -> Origin {
        let parking: Weak<dyn Parking> = self.me.clone();
        Origin {
            owner: self.owner.clone(),
            connection: self.link_id.load(Ordering::Acquire),
            endpoint: self.endpoint.clone(),
            parking,
        }
    }

    /// A new link starts: its number (the `connection` of its server requests).
    pub(super) fn start_link(&self) {
        let n = next_link();
        let _ = self
            .first_link
            .compare_exchange(0, n, Ordering::AcqRel, Ordering::Acquire);
        self.link_id.store(n, Ordering::Release);
    }

    /// The bound of parked request `id` passed: answer it fail-closed unless it was answered
    /// meanwhile.
    fn park_expired(&self, id: &RequestId, bound: Duration) {
        let entry = self.parked.table.lock().unwrap().remove(id);
        let Some(entry) = entry else { return };
        let r = &entry.request;
        if r.is_open() {
            tracing::warn!(
                method = %r.method,
                id = %r.id,
                endpoint = r.endpoint().unwrap_or(""),
                "parked server request not answered within {bound:?} (parked_request_timeout); answering fail-closed"
            );
            if let Err(e) = r.respond_fail_closed() {
                tracing::debug!(error = %e, "the fail-closed answer of an expired parked request was not sent");
            }
        }
    }

    /// A handle to the open server request `r` names, on this connection (see
    /// [`Client::respond_ref`](crate::Client::respond_ref) for the errors).
    pub(crate) fn request_by_ref(&self, r: &RequestRef) -> Result<ServerRequest> {
        let now = self.link_id.load(Ordering::Acquire);
        let what = format!("server request `{}` (id {})", r.method, r.id);
        if self.is_closed() {
            return Err(Error::Disconnected(DisconnectInfo::new(
                format!(
                    "{what} came on connection {} of this client, which has ended",
                    r.connection
                ),
                "",
            )));
        }
        if r.connection != now || self.is_reconnecting() {
            let first = self.first_link.load(Ordering::Acquire);
            let ours = first != 0 && (first..=now).contains(&r.connection);
            let reason = if ours && r.connection == now {
                format!(
                    "{what} came on connection {now}, which was lost; the client is \
                     reconnecting (the server asks again for the requests it still needs)"
                )
            } else if ours {
                format!(
                    "{what} came on connection {}, which was lost; the client reconnected \
                     (now connection {now}; the server asks again for the requests it still \
                     needs)",
                    r.connection
                )
            } else {
                format!(
                    "{what} came on connection {} of this client, which has ended (the \
                     client connected again since: now connection {now})",
                    r.connection
                )
            };
            let info = DisconnectInfo::new(reason, "");
            return Err(if ours {
                Error::ConnectionLost(info)
            } else {
                Error::Disconnected(info)
            });
        }
        let found = match self.parked.share(&r.id) {
            Some(req) => req,
            None => {
                let Some((state, method)) = self.open_requests.handle_of(&r.id) else {
                    return Err(Error::AlreadyResponded);
                };
                let conn: Weak<dyn Responder> = self.me.clone();
                ServerRequest::new(
                    r.id.clone(),
                    method,
                    r.params.clone(),
                    state,
                    conn,
                    self.origin(),
                )
            }
        };
        if found.method != r.method {
            return Err(Error::InvalidArgument(format!(
                "the reference names `{}` but request id {} of connection {now} is `{}`",
                r.method, r.id, found.method
            )));
        }
        if !found.is_open() {
            return Err(Error::AlreadyResponded);
        }
        Ok(found)
    }

    /// Stop keeping request `id` (an embedded request answered: its responder is not this
    /// connection, so its answer does not pass `forget_request`).
    pub(super) fn unpark(&self, id: &RequestId) {
        self.parked.remove(id);
    }
}
