//! Routing of one thread's events to a stream of its own (a turn stream).
//!
//! While a stream is open on a thread, that thread's notifications and server requests go to
//! the stream's own queue instead of the client's normal delivery; events naming another unit
//! of work (another turn) never do. The route ends with the notification the connection's
//! protocol says ends it ([`Rules::delivering`](crate::rules::Rules::delivering); decided on
//! the reader, so nothing after it can slip into the stream). The router names no protocol.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::delivery::queue::EventQueue;
use crate::error::{Error, Result};
use crate::event::{Ids, Notification, ServerRequest};

/// The stream side of a route.
pub(crate) struct Route {
    pub thread_id: String,
    pub queue: Arc<EventQueue>,
    turn_id: Mutex<Option<String>>,
}

impl Route {
    /// Record the turn id once `turn/start` answered.
    pub(crate) fn set_turn_id(&self, id: &str) {
        *self.turn_id.lock().unwrap() = Some(id.to_owned());
    }

    fn accepts_turn(&self, turn: Option<&str>) -> bool {
        match (turn, &*self.turn_id.lock().unwrap()) {
            (Some(t), Some(mine)) => t == mine,
            _ => true,
        }
    }
}

/// The routes of one connection.
#[derive(Default)]
pub(crate) struct Router {
    routes: Mutex<rustc_hash::FxHashMap<String, Arc<Route>>>,
    active: AtomicUsize,
}

impl Router {
    /// Open a route for `thread_id`. Only one turn stream per thread at a time.
    pub(crate) fn add(&self, thread_id: &str, queue: Arc<EventQueue>) -> Result<Arc<Route>> {
        let mut routes = self.routes.lock().unwrap();
        if routes.contains_key(thread_id) {
            return Err(Error::InvalidState(format!(
                "a turn is already streaming on thread {thread_id}"
            )));
        }
        let route = Arc::new(Route {
            thread_id: thread_id.to_owned(),
            queue,
            turn_id: Mutex::new(None),
        });
        routes.insert(thread_id.to_owned(), route.clone());
        self.active.store(routes.len(), Ordering::Release);
        Ok(route)
    }

    /// Close a route (if it is still open) and its queue.
    pub(crate) fn remove(&self, route: &Arc<Route>) {
        let mut routes = self.routes.lock().unwrap();
        if routes
            .get(&route.thread_id)
            .is_some_and(|r| Arc::ptr_eq(r, route))
        {
            routes.remove(&route.thread_id);
            self.active.store(routes.len(), Ordering::Release);
        }
        drop(routes);
        route.queue.close();
    }

    /// Every open route, removed (on disconnect).
    pub(crate) fn take_all(&self) -> Vec<Arc<Route>> {
        let mut routes = self.routes.lock().unwrap();
        self.active.store(0, Ordering::Release);
        routes.drain().map(|(_, r)| r).collect()
    }

    /// Whether a turn stream is open (routing then reads the ids of notifications).
    pub(crate) fn has_routes(&self) -> bool {
        self.active.load(Ordering::Acquire) > 0
    }

    /// The route for a notification, if any. `ends`: what the protocol said of it
    /// ([`Rules::delivering`](crate::rules::Rules::delivering)): `Some(unit)` when it ends the
    /// stream of its thread (of unit `unit`, when it names one); the route is then closed and
    /// the second value says so (the caller closes the queue after delivering). `ids` are the
    /// params' ids when the reader already found them.
    pub(crate) fn route_notification(
        &self,
        n: &Notification,
        ids: Option<Ids<'_>>,
        ends: Option<Option<String>>,
    ) -> Option<(Arc<Route>, bool)> {
        if !self.has_routes() {
            return None;
        }
        let ids = ids.unwrap_or_else(|| crate::event::ids(&n.params));
        let thread_id = ids.thread_id?;
        let mut routes = self.routes.lock().unwrap();
        let route = routes.get(thread_id.as_ref())?.clone();
        if let Some(unit) = ends {
            if !route.accepts_turn(unit.as_deref()) {
                return None;
            }
            routes.remove(thread_id.as_ref());
            self.active.store(routes.len(), Ordering::Release);
            return Some((route, true));
        }
        if !route.accepts_turn(ids.turn_id.as_deref()) {
            return None;
        }
        Some((route, false))
    }

    /// The route for a server request, if any.
    pub(crate) fn route_request(&self, r: &ServerRequest) -> Option<Arc<Route>> {
        if self.active.load(Ordering::Acquire) == 0 {
            return None;
        }
        let thread_id = r.thread_id()?;
        let route = self.routes.lock().unwrap().get(&thread_id)?.clone();
        route.accepts_turn(r.turn_id().as_deref()).then_some(route)
    }
}
