//! [`PoolEvents`]: the notifications and connection events of every endpoint of a pool as one
//! stream, each tagged with its endpoint ([`PoolEvent`]); endpoints added later join it, an
//! endpoint that ends leaves it after its `Disconnected` event.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::delivery::merge::{Merge, Tagged};
use crate::error::{Error, Result};
use crate::event::Event;

/// One event of a pool's stream: the endpoint it came from and the event.
#[derive(Debug)]
#[non_exhaustive]
pub struct PoolEvent {
    /// The endpoint's name.
    pub endpoint: Arc<str>,
    /// The event (a notification or a connection event: server requests go to the handlers
    /// or to their turn's stream, as on one client).
    pub event: Event,
}

type Batch = Pin<Box<dyn Future<Output = (bool, Vec<Tagged>)> + Send>>;

/// A subscription to every endpoint of a pool ([`Pool::subscribe`](super::Pool::subscribe)):
/// an async `Stream` of [`PoolEvent`]s, or pull it blocking with
/// [`next_blocking`](Self::next_blocking). Each endpoint's events arrive in order; the
/// stream holds up to `event_queue_capacity` of each endpoint's (then that endpoint's reader
/// waits, as for one client: nothing is lost). It ends when the pool is closed; dropping it
/// unsubscribes from every endpoint.
pub struct PoolEvents {
    merge: Arc<Merge>,
    buf: VecDeque<Tagged>,
    fut: Option<Batch>,
    done: bool,
}

impl PoolEvents {
    pub(super) fn new(merge: Arc<Merge>) -> PoolEvents {
        PoolEvents {
            merge,
            buf: VecDeque::new(),
            fut: None,
            done: false,
        }
    }

    /// Wait up to `timeout` (`None`: no bound) for events and move up to `max` into `out`.
    /// `false` once the stream has ended (the pool closed).
    pub fn next_blocking(
        &mut self,
        out: &mut Vec<PoolEvent>,
        max: usize,
        timeout: Option<Duration>,
    ) -> bool {
        let max = max.max(1);
        if self.buf.is_empty() && !self.done && self.fut.is_none() {
            let mut got = Vec::new();
            self.done = !self.merge.wait_take(&mut got, max, timeout);
            self.buf.extend(got);
        }
        let n = self.buf.len().min(max);
        out.extend(
            self.buf
                .drain(..n)
                .map(|(endpoint, event)| PoolEvent { endpoint, event }),
        );
        !(self.done && self.buf.is_empty() && n == 0)
    }

    /// The next event, waiting up to `timeout`; `Ok(None)` when the wait ran out;
    /// [`Error::InvalidState`] once the stream has ended (the pool closed).
    pub fn next_event(&mut self, timeout: Option<Duration>) -> Result<Option<PoolEvent>> {
        let mut out = Vec::with_capacity(1);
        if self.next_blocking(&mut out, 1, timeout) {
            Ok(out.pop())
        } else {
            Err(Error::InvalidState(
                "the pool's event stream has ended".into(),
            ))
        }
    }
}

impl Drop for PoolEvents {
    fn drop(&mut self) {
        self.merge.close();
    }
}

impl futures_core::Stream for PoolEvents {
    type Item = PoolEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<PoolEvent>> {
        let this = &mut *self;
        loop {
            if let Some((endpoint, event)) = this.buf.pop_front() {
                return Poll::Ready(Some(PoolEvent { endpoint, event }));
            }
            if this.done {
                return Poll::Ready(None);
            }
            let fut = this.fut.get_or_insert_with(|| {
                let merge = this.merge.clone();
                Box::pin(async move {
                    let mut out = Vec::new();
                    let more = merge.next_batch(&mut out, 1024).await;
                    (more, out)
                })
            });
            match fut.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready((more, got)) => {
                    this.fut = None;
                    this.done = !more;
                    this.buf.extend(got);
                }
            }
        }
    }
}
