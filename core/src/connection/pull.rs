//! Pulling events: the client's own queue in poll mode ([`Delivery::Poll`]: `next_event`,
//! `next_events`, `event_fd`, `events`), and subscriptions in either mode (`subscribe`).

use std::sync::Arc;
use std::time::Duration;

use super::Client;
use crate::delivery::queue::EventQueue;
use crate::delivery::readiness::Readiness;
use crate::delivery::EventReceiver;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::options::Delivery;
use crate::session::SessionShared;

impl Client {
    /// Whether notifications (those not routed to a turn stream) go to this client's own
    /// delivery — the poll queue, or the callbacks — as well as to the subscriptions
    /// ([`subscribe`](Self::subscribe)). On by default. A program (or binding) that reads
    /// notifications only from subscriptions, or has no notification handler, turns it off:
    /// they are then neither queued nor converted twice. Server requests, responses and
    /// connection events always go to the client's own delivery. Takes effect at once and
    /// for every later connection; clients that share a handler table (a
    /// [`Pool`](crate::Pool)'s endpoints) share it.
    pub fn queue_notifications(&self, on: bool) {
        self.inner
            .handlers
            .notifications_off
            .store(!on, std::sync::atomic::Ordering::Release);
    }

    fn poll_queue(&self) -> Result<(Arc<SessionShared>, Arc<EventQueue>)> {
        if self.inner.options.delivery != Delivery::Poll {
            return Err(Error::InvalidState(
                "client uses callback delivery; use Delivery::Poll to pull events".into(),
            ));
        }
        let s = match self.session() {
            Some(s) => s,
            None => self
                .inner
                .previous
                .lock()
                .unwrap()
                .clone()
                .ok_or(Error::NotConnected)?,
        };
        let q = s.queue.clone();
        Ok((s, q))
    }

    /// Poll mode: wait up to `timeout` (`None` = forever) for the next event. `Ok(None)` means
    /// the timeout passed. After the `Disconnected` event the next call returns the
    /// disconnect error. After `disconnect()` the connection's last events (responses to
    /// [`send_request`](Self::send_request), `Disconnected`) can still be pulled; before any
    /// connect it returns [`Error::NotConnected`].
    pub fn next_event(&self, timeout: Option<Duration>) -> Result<Option<Event>> {
        let (s, q) = self.poll_queue()?;
        let mut out = Vec::with_capacity(1);
        if q.wait_drain(&mut out, 1, timeout) {
            Ok(out.pop())
        } else {
            Err(s.disconnect_error())
        }
    }

    /// Poll mode: move up to `max` waiting events into `out`, waiting up to `timeout` for the
    /// first. Returns `false` once the connection's events are exhausted.
    pub fn next_events(
        &self,
        out: &mut Vec<Event>,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<bool> {
        let (_, q) = self.poll_queue()?;
        Ok(q.wait_drain(out, max.max(1), timeout))
    }

    /// Poll mode: a file descriptor that is readable exactly while events are waiting (or
    /// the connection has ended and its last events are unread). Watch it with
    /// `poll`/`epoll`/`enif_select`, then drain with `next_event(Some(Duration::ZERO))` until it
    /// returns `Ok(None)`. The descriptor is owned by the client, stays the same across
    /// reconnects and is closed when the client is dropped.
    pub fn event_fd(&self) -> Result<std::os::fd::RawFd> {
        if self.inner.options.delivery != Delivery::Poll {
            return Err(Error::InvalidState("event_fd needs Delivery::Poll".into()));
        }
        let mut slot = self.inner.readiness.lock().unwrap();
        if let Some(r) = &*slot {
            return Ok(r.fd());
        }
        let r = Arc::new(
            Readiness::new()
                .map_err(|e| Error::Transport(format!("could not create the event fd: {e}")))?,
        );
        if let Some(s) = self.session() {
            s.queue.set_readiness(Some(r.clone()));
        }
        let fd = r.fd();
        *slot = Some(r);
        Ok(fd)
    }

    /// Poll mode: an async stream of this connection's events, ending after `Disconnected`.
    /// It takes from the client's own queue, the one [`next_event`](Self::next_event) pulls
    /// from (every event goes to one of them, not to both); errors in callback mode.
    ///
    /// Not a subscription: the Python binding's `client.events()` is
    /// [`subscribe`](Self::subscribe) (a copy of the notifications in either delivery mode),
    /// a different thing under the same name.
    pub fn events(&self) -> Result<EventReceiver> {
        let (_, q) = self.poll_queue()?;
        Ok(EventReceiver::new(q, false))
    }

    /// A subscription to this connection's notifications (those not routed to a turn stream)
    /// and connection events, in either delivery mode, beside the client's own delivery: each
    /// subscription gets its own copy, holds up to `event_queue_capacity` of them (then the
    /// reader waits for it, like for the main queue), and ends after `Disconnected`.
    /// Dropping it unsubscribes. Server requests and responses never go to subscriptions.
    /// (This is what the Python binding's `client.events()` returns; the core's
    /// [`events`](Self::events) is the poll-mode queue itself.)
    pub fn subscribe(&self) -> Result<EventReceiver> {
        Ok(EventReceiver::new(self.subscribe_queue()?, true))
    }

    /// A subscription's queue, for a consumer of the core's own (a pool's merged stream);
    /// closing the queue ends the subscription.
    pub(crate) fn subscribe_queue(&self) -> Result<Arc<EventQueue>> {
        Ok(self.live_session()?.subscribe())
    }
}
