//! One consumer over many event queues ([`Merge`]): the queues of several connections (a
//! pool's endpoints) read as one stream, each event tagged with the name of its source. A
//! queue with events puts itself on the ready list once (its `on_ready` hook), so taking an
//! event costs the same whatever the number of sources; members come and go while the
//! consumer reads.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use super::queue::EventQueue;
use crate::event::Event;

/// An event and the name of the queue's source it came from.
pub(crate) type Tagged = (Arc<str>, Event);

struct Member {
    name: Arc<str>,
    queue: Arc<EventQueue>,
    /// On the ready list now.
    flagged: bool,
}

#[derive(Default)]
struct State {
    members: HashMap<u64, Member>,
    ready: VecDeque<u64>,
    next_id: u64,
    closed: bool,
}

/// Many queues, one consumer.
#[derive(Default)]
pub(crate) struct Merge {
    state: Mutex<State>,
    cv: Condvar,
    notify: tokio::sync::Notify,
}

impl Merge {
    /// Read `queue` too, tagging its events with `name`, until it ends. Refused (the queue is
    /// closed, unsubscribing it) once the merge is closed.
    pub(crate) fn add(self: &Arc<Self>, name: Arc<str>, queue: Arc<EventQueue>) {
        let id = {
            let mut st = self.state.lock().unwrap();
            if st.closed {
                drop(st);
                queue.close();
                return;
            }
            st.next_id += 1;
            let id = st.next_id;
            st.members.insert(
                id,
                Member {
                    name,
                    queue: queue.clone(),
                    flagged: false,
                },
            );
            id
        };
        let me: Weak<Merge> = Arc::downgrade(self);
        // Called under the queue's own lock: it only takes the merge's.
        queue.set_on_ready(Some(Arc::new(move || {
            if let Some(m) = me.upgrade() {
                m.mark_ready(id);
            }
        })));
    }

    fn mark_ready(&self, id: u64) {
        let mut st = self.state.lock().unwrap();
        let Some(m) = st.members.get_mut(&id) else {
            return;
        };
        if m.flagged {
            return;
        }
        m.flagged = true;
        st.ready.push_back(id);
        drop(st);
        self.cv.notify_one();
        self.notify.notify_one();
    }

    /// Whether events wait now (or the merge is closed).
    fn has_work(st: &State) -> bool {
        !st.ready.is_empty() || st.closed
    }

    /// Take up to `max` events of one ready source without waiting. `None`: nothing ready;
    /// `Some(false)`: the merge is closed and drained.
    fn take(&self, out: &mut Vec<Tagged>, max: usize) -> Option<bool> {
        loop {
            let (id, name, queue) = {
                let mut st = self.state.lock().unwrap();
                let Some(id) = st.ready.pop_front() else {
                    return st.closed.then_some(false);
                };
                let Some(m) = st.members.get_mut(&id) else {
                    continue;
                };
                m.flagged = false;
                (id, m.name.clone(), m.queue.clone())
            };
            // The member's lock only, the merge's released (the queue's hook takes it).
            let mut events = Vec::new();
            let more = queue.drain_into(&mut events, max);
            if !more {
                self.state.lock().unwrap().members.remove(&id);
            } else if queue.has_work() {
                self.mark_ready(id);
            }
            if events.is_empty() {
                continue;
            }
            out.extend(events.into_iter().map(|e| (name.clone(), e)));
            return Some(true);
        }
    }

    /// Wait up to `timeout` (`None`: no bound) for events and move up to `max` of one source
    /// into `out`. `false` once the merge is closed and drained.
    pub(crate) fn wait_take(
        &self,
        out: &mut Vec<Tagged>,
        max: usize,
        timeout: Option<Duration>,
    ) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if let Some(more) = self.take(out, max.max(1)) {
                return more;
            }
            let st = self.state.lock().unwrap();
            if Self::has_work(&st) {
                continue;
            }
            match deadline {
                None => drop(self.cv.wait(st).unwrap()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return true;
                    }
                    drop(self.cv.wait_timeout(st, d - now).unwrap());
                }
            }
        }
    }

    /// Async form of [`wait_take`](Self::wait_take), without a bound.
    pub(crate) async fn next_batch(&self, out: &mut Vec<Tagged>, max: usize) -> bool {
        loop {
            let notified = self.notify.notified();
            if let Some(more) = self.take(out, max.max(1)) {
                if !more {
                    // Let another async consumer see the end too.
                    self.notify.notify_one();
                }
                return more;
            }
            notified.await;
        }
    }

    /// End the merge: every member queue is closed (unsubscribed); the consumer drains what
    /// was taken and then sees the end.
    pub(crate) fn close(&self) {
        let members: Vec<Member> = {
            let mut st = self.state.lock().unwrap();
            st.closed = true;
            st.ready.clear();
            st.members.drain().map(|(_, m)| m).collect()
        };
        for m in members {
            m.queue.set_on_ready(None);
            m.queue.close();
        }
        self.cv.notify_all();
        self.notify.notify_waiters();
        self.notify.notify_one();
    }

    /// Sources read now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.state.lock().unwrap().members.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Notification;

    fn note(m: &str) -> Event {
        Event::Notification(Notification::new(
            m,
            serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        ))
    }

    fn push(q: &EventQueue, m: &str) {
        q.force_push(note(m));
    }

    #[test]
    fn events_of_every_source_arrive_tagged_and_in_order_per_source() {
        let merge = Arc::new(Merge::default());
        let a = Arc::new(EventQueue::new(16, 1 << 20));
        let b = Arc::new(EventQueue::new(16, 1 << 20));
        merge.add("a".into(), a.clone());
        merge.add("b".into(), b.clone());
        push(&a, "a/1");
        push(&b, "b/1");
        push(&a, "a/2");
        let mut out = Vec::new();
        while out.len() < 3 {
            assert!(merge.wait_take(&mut out, 10, Some(Duration::from_secs(5))));
        }
        let of = |src: &str| -> Vec<String> {
            out.iter()
                .filter(|(n, _)| &**n == src)
                .map(|(_, e)| e.method().unwrap().to_owned())
                .collect()
        };
        assert_eq!(of("a"), ["a/1", "a/2"]);
        assert_eq!(of("b"), ["b/1"]);
    }

    #[test]
    fn a_closed_source_leaves_and_the_merge_goes_on_until_closed() {
        let merge = Arc::new(Merge::default());
        let a = Arc::new(EventQueue::new(16, 1 << 20));
        merge.add("a".into(), a.clone());
        push(&a, "last");
        a.close();
        let mut out = Vec::new();
        assert!(merge.wait_take(&mut out, 10, Some(Duration::from_secs(5))));
        assert_eq!(out.len(), 1);
        // Drained and closed: the member leaves; nothing ready, the wait times out (true).
        assert!(merge.wait_take(&mut out, 10, Some(Duration::from_millis(20))));
        assert_eq!(merge.len(), 0);
        // A later member still reaches the consumer.
        let b = Arc::new(EventQueue::new(16, 1 << 20));
        merge.add("b".into(), b.clone());
        push(&b, "b/1");
        out.clear();
        assert!(merge.wait_take(&mut out, 10, Some(Duration::from_secs(5))));
        assert_eq!(&*out[0].0, "b");
        merge.close();
        assert!(!merge.wait_take(&mut out, 10, Some(Duration::from_secs(5))));
        // A member added after the close is refused (its queue closed).
        let c = Arc::new(EventQueue::new(16, 1 << 20));
        merge.add("c".into(), c.clone());
        assert!(c.has_work(), "closed queues report work (their end)");
    }

    #[test]
    fn a_blocked_consumer_wakes_for_a_push_from_another_thread() {
        let merge = Arc::new(Merge::default());
        let a = Arc::new(EventQueue::new(16, 1 << 20));
        merge.add("a".into(), a.clone());
        let t = std::thread::spawn({
            let merge = merge.clone();
            move || {
                let mut out = Vec::new();
                merge.wait_take(&mut out, 1, Some(Duration::from_secs(10)));
                out.len()
            }
        });
        push(&a, "x");
        assert_eq!(t.join().unwrap(), 1);
    }
}
