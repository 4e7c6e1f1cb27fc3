//! One endpoint of a pool: its client, its placement settings, what runs on it (counted from
//! its own connection's `turn/started` and `turn/completed`, whoever started the turn) and
//! its phase (active, draining, removed).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::codex::CodexClient;
use crate::event::{ConnectionEvent, Notification};
use crate::session::tap::Tap;

/// How long a thread placed on an endpoint counts as load before its first turn starts: a
/// thread started and never run stops holding a place after this.
pub(super) const FRESH_GRACE: Duration = Duration::from_secs(30);

pub(super) const ACTIVE: u8 = 0;
pub(super) const DRAINING: u8 = 1;
pub(super) const REMOVED: u8 = 2;

/// What runs on an endpoint.
#[derive(Default)]
pub(super) struct Load {
    /// Threads with a turn running (by the server's `turn/started` / `turn/completed`).
    pub(super) running: HashSet<String>,
    /// Threads placed here whose first turn has not started yet, and since when.
    pub(super) fresh: HashMap<String, Instant>,
    /// Threads placed here by the pool (or resumed here), ever.
    pub(super) placed: usize,
    /// `thread/start` answered overloaded: passed over until then.
    pub(super) overloaded_until: Option<Instant>,
    /// The connection ended (not reconnecting): why.
    pub(super) lost: Option<String>,
}

impl Load {
    /// Running turns plus placements still waiting for their first turn.
    pub(super) fn busy(&mut self, now: Instant) -> usize {
        self.fresh
            .retain(|_, at| now.duration_since(*at) < FRESH_GRACE);
        self.running.len() + self.fresh.len()
    }
}

/// The bookkeeping the endpoint's connection reports to (its [`Tap`]).
pub(super) struct Watch {
    pub(super) load: Mutex<Load>,
    /// Wakes placement waiting for capacity and the drain waiting for idleness.
    pub(super) changed: Arc<tokio::sync::Notify>,
}

impl Tap for Watch {
    fn notification(&self, note: &Notification) {
        let started = match note.method.as_str() {
            "turn/started" => true,
            "turn/completed" => false,
            _ => return,
        };
        let Some(thread) = note.thread_id() else {
            return;
        };
        let mut load = self.load.lock().unwrap();
        if started {
            load.fresh.remove(&thread);
            load.running.insert(thread);
        } else {
            load.running.remove(&thread);
        }
        drop(load);
        if !started {
            self.changed.notify_waiters();
        }
    }

    fn connection(&self, event: &ConnectionEvent) {
        let mut load = self.load.lock().unwrap();
        match event {
            ConnectionEvent::Disconnected(info) => {
                load.running.clear();
                load.fresh.clear();
                load.lost = Some(info.reason.clone());
            }
            ConnectionEvent::Reconnected(_) => load.lost = None,
            _ => return,
        }
        drop(load);
        self.changed.notify_waiters();
    }
}

/// One endpoint.
pub(super) struct Endpoint {
    pub(super) name: Arc<str>,
    pub(super) client: CodexClient,
    /// Its limit on running turns (0: none), the pool's default applied.
    pub(super) limit: usize,
    pub(super) shared_home: Option<String>,
    pub(super) watch: Arc<Watch>,
    pub(super) phase: AtomicU8,
}

impl Endpoint {
    /// Whether the connection is up (not lost, not reconnecting).
    pub(super) fn is_healthy(&self) -> bool {
        self.client.is_connected()
            && !self.client.is_reconnecting()
            && self.watch.load.lock().unwrap().lost.is_none()
    }

    /// Whether it takes new threads: active and healthy.
    pub(super) fn accepts(&self) -> bool {
        self.phase.load(Ordering::Acquire) == ACTIVE && self.is_healthy()
    }

    /// The state's name, as [`EndpointStatus::state`](super::EndpointStatus::state) gives it.
    pub(super) fn state_name(&self) -> &'static str {
        match self.phase.load(Ordering::Acquire) {
            REMOVED => "removed",
            DRAINING if !self.client.is_connected() => "drained",
            DRAINING => "draining",
            _ if self.client.is_reconnecting() => "reconnecting",
            _ if !self.is_healthy() => "lost",
            _ => "ready",
        }
    }

    /// No turn runs and no placement waits for its first turn.
    pub(super) fn is_idle(&self) -> bool {
        self.watch.load.lock().unwrap().busy(Instant::now()) == 0
    }
}
