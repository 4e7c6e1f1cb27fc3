//! The table of requests awaiting a response, with their deadlines.

use bytes::Bytes;
use serde_json::value::RawValue;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

use crate::error::{Error, Result};
use crate::event::Attachment;
use crate::options::RetryPolicy;

/// Where a request's outcome goes.
pub(crate) enum Reply {
    /// To a caller awaiting it.
    Wait(oneshot::Sender<Result<Box<RawValue>>>),
    /// To the connection's response sink with this token (it becomes an
    /// [`Event::Response`](crate::Event::Response)), with the value its sender attached.
    Event(u64, Option<Attachment>),
    /// To a function called where the outcome is known (the reader, for a response), so that
    /// it acts before the next line is handled (the rejoin's `thread/resume`).
    Call(Box<dyn FnOnce(Result<Box<RawValue>>) + Send>),
}

/// One request in flight.
pub(crate) struct Entry {
    pub tx: Reply,
    pub method: String,
    /// The serialized request line, kept for overload retries.
    pub line: Bytes,
    /// Sends so far (1 after the first send).
    pub attempts: u32,
    pub retry: RetryPolicy,
    pub deadline: Instant,
    pub timeout: Duration,
    /// The reader reads ahead past a full queue while this request waits.
    pub read_ahead: bool,
}

/// Pending requests by id, plus a min-heap of deadlines (entries removed from the map are
/// deleted lazily from the heap; the heap is rebuilt when stale entries pile up).
#[derive(Default)]
pub(crate) struct Table {
    pub map: HashMap<i64, Entry>,
    heap: BinaryHeap<Reverse<(Instant, i64)>>,
    /// Set once the connection is closed, to the error later requests fail with; no entry is
    /// added afterwards.
    pub closed: Option<Error>,
    /// The latest requests that timed out (id, method), so a late answer can be named.
    pub timed_out: VecDeque<(i64, String)>,
    /// The latest requests their caller gave up (dropped future, cancel), so that a late
    /// answer is discarded quietly: the caller asked for that.
    pub abandoned: VecDeque<i64>,
}

impl Table {
    /// Insert an entry; returns true when its deadline is now the earliest (the timer must wake).
    pub fn insert(&mut self, id: i64, entry: Entry) -> bool {
        let deadline = entry.deadline;
        let earliest = self.heap.peek().is_none_or(|Reverse((d, _))| deadline < *d);
        self.map.insert(id, entry);
        self.heap.push(Reverse((deadline, id)));
        if self.heap.len() > 2 * self.map.len() + 1024 {
            self.heap = self
                .map
                .iter()
                .map(|(id, e)| Reverse((e.deadline, *id)))
                .collect();
        }
        earliest
    }

    /// Move request `id`'s deadline to its whole timeout from `now` (a later deadline: the
    /// timer need not wake; the old heap entry goes stale). False when it is not pending.
    pub fn restart_timeout(&mut self, id: i64, now: Instant) -> bool {
        let Some(e) = self.map.get_mut(&id) else {
            return false;
        };
        let deadline = now + e.timeout;
        if deadline > e.deadline {
            e.deadline = deadline;
            self.heap.push(Reverse((deadline, id)));
        }
        true
    }

    /// The earliest deadline still in the heap (it may belong to a finished request).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((d, _))| *d)
    }

    /// Remove and return every entry whose deadline is at or before `now`.
    pub fn take_expired(&mut self, now: Instant) -> Vec<(i64, Entry)> {
        let mut out = Vec::new();
        while let Some(Reverse((d, id))) = self.heap.peek().copied() {
            if d > now {
                break;
            }
            self.heap.pop();
            if self.map.get(&id).is_some_and(|e| e.deadline == d) {
                out.extend(self.map.remove(&id).map(|e| (id, e)));
            }
        }
        out
    }

    /// Remove every entry (on close).
    pub fn take_all(&mut self) -> Vec<Entry> {
        self.heap.clear();
        self.map.drain().map(|(_, e)| e).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(deadline: Instant) -> (Entry, oneshot::Receiver<Result<Box<RawValue>>>) {
        let (tx, rx) = oneshot::channel();
        let e = Entry {
            tx: Reply::Wait(tx),
            method: "m".into(),
            line: Bytes::new(),
            attempts: 1,
            retry: RetryPolicy::default(),
            deadline,
            timeout: Duration::from_secs(1),
            read_ahead: false,
        };
        (e, rx)
    }

    #[test]
    fn a_restarted_timeout_expires_a_whole_timeout_later() {
        let now = Instant::now();
        let mut t = Table::default();
        let (e, _r) = entry(now + Duration::from_secs(1));
        t.insert(7, e);
        let later = now + Duration::from_millis(800);
        assert!(t.restart_timeout(7, later));
        assert!(t.take_expired(now + Duration::from_millis(1500)).is_empty());
        assert_eq!(t.take_expired(later + Duration::from_secs(1)).len(), 1);
        assert!(!t.restart_timeout(7, later), "no longer pending");
    }

    #[test]
    fn expiry_skips_finished_requests_and_heap_stays_bounded() {
        let now = Instant::now();
        let mut t = Table::default();
        let (e1, _r1) = entry(now + Duration::from_millis(5));
        let (e2, _r2) = entry(now + Duration::from_millis(10));
        assert!(t.insert(1, e1));
        assert!(!t.insert(2, e2));
        t.map.remove(&1);
        let expired = t.take_expired(now + Duration::from_millis(20));
        assert_eq!(expired.len(), 1);
        assert_eq!(t.map.len(), 0);
        for i in 0..10_000 {
            let (e, _r) = entry(now + Duration::from_secs(300));
            t.insert(i, e);
            t.map.remove(&i);
        }
        assert!(
            t.heap.len() <= 1024 + 2,
            "heap has {} stale entries",
            t.heap.len()
        );
    }
}
