//! Routing of one thread's events to a turn stream, and each thread's status as the server
//! last reported it.
//!
//! While a turn stream is open on a thread, that thread's notifications and server requests
//! go to the stream's own queue instead of the client's normal delivery; events naming another
//! turn never do. The route ends with the turn's `turn/completed` (decided on the reader, so
//! nothing after it can slip into the stream).

use std::collections::HashMap;
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

#[derive(serde::Deserialize)]
struct TurnCompleted<'a> {
    #[serde(borrow)]
    turn: TurnRef<'a>,
}

#[derive(serde::Deserialize)]
struct TurnRef<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
}

#[derive(serde::Deserialize)]
struct StatusChanged {
    #[serde(rename = "threadId")]
    thread_id: String,
    status: serde_json::Value,
}

/// Routes and per-thread status of one connection.
#[derive(Default)]
pub(crate) struct Router {
    routes: Mutex<rustc_hash::FxHashMap<String, Arc<Route>>>,
    active: AtomicUsize,
    statuses: Mutex<HashMap<String, serde_json::Value>>,
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

    /// The route for a notification, if any. A `turn/completed` for the route's turn closes the
    /// route; the second value says so (the caller closes the queue after delivering). `ids`
    /// are the params' ids when the reader already found them.
    pub(crate) fn route_notification(
        &self,
        n: &Notification,
        ids: Option<Ids<'_>>,
    ) -> Option<(Arc<Route>, bool)> {
        if n.method == "thread/status/changed" {
            if let Ok(s) = serde_json::from_str::<StatusChanged>(n.params.get()) {
                self.statuses.lock().unwrap().insert(s.thread_id, s.status);
            }
        }
        if !self.has_routes() {
            return None;
        }
        let ids = ids.unwrap_or_else(|| crate::event::ids(&n.params));
        let thread_id = ids.thread_id?;
        let mut routes = self.routes.lock().unwrap();
        let route = routes.get(thread_id.as_ref())?.clone();
        if n.method == "turn/completed" {
            let done = serde_json::from_str::<TurnCompleted>(n.params.get()).ok();
            let turn = done.as_ref().map(|d| d.turn.id.as_ref());
            if !route.accepts_turn(turn) {
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

    /// The last `status` object the server reported for a thread.
    pub(crate) fn status(&self, thread_id: &str) -> Option<serde_json::Value> {
        self.statuses.lock().unwrap().get(thread_id).cloned()
    }
}
