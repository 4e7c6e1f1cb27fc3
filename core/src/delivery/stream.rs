//! [`EventReceiver`]: the consumer's end of an event queue, as an async `Stream` or pulled
//! blocking; over the client's own queue in poll mode
//! ([`Client::events`](crate::Client::events)) or over a subscription's
//! ([`Client::subscribe`](crate::Client::subscribe)).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::queue::EventQueue;
use crate::event::Event;

/// A pending batch of an event queue.
pub(crate) type BatchFuture = Pin<Box<dyn Future<Output = (bool, Vec<Event>)> + Send>>;

/// The receiving end of an event queue: the client's own in poll mode
/// ([`Client::events`](crate::Client::events)), or a subscription's
/// ([`Client::subscribe`](crate::Client::subscribe)). An async `Stream`, or pull it blocking
/// with [`next_blocking`](Self::next_blocking). Cancellation-safe: dropping a receiver of the
/// client's queue loses no event (events it had taken but not yet yielded go back to the
/// front of the client's queue); dropping a subscription's ends the subscription.
///
/// Called `EventStream` before (that name stays as a deprecated alias). The Python
/// binding's `client.events()` is a subscription (this type over
/// [`Client::subscribe`](crate::Client::subscribe)), not the poll-mode
/// [`Client::events`](crate::Client::events).
pub struct EventReceiver {
    queue: Arc<EventQueue>,
    buf: VecDeque<Event>,
    fut: Option<BatchFuture>,
    done: bool,
    /// A subscription: its queue is its own.
    owned: bool,
}

impl EventReceiver {
    /// A receiver of `queue`; `owned`: the queue is a subscription's (closed on drop).
    pub(crate) fn new(queue: Arc<EventQueue>, owned: bool) -> EventReceiver {
        EventReceiver {
            queue,
            buf: VecDeque::new(),
            fut: None,
            done: false,
            owned,
        }
    }

    /// Wait up to `timeout` (`None` = forever) for events and move up to `max` of them into
    /// `out`. Returns `false` once the stream has ended (after `Disconnected`).
    pub fn next_blocking(
        &mut self,
        out: &mut Vec<Event>,
        max: usize,
        timeout: Option<Duration>,
    ) -> bool {
        let max = max.max(1);
        if !self.buf.is_empty() {
            let n = self.buf.len().min(max);
            out.extend(self.buf.drain(..n));
            return true;
        }
        if self.done || self.fut.is_some() {
            // An async poll is under way: the events it takes come through it.
            return !self.done;
        }
        let more = self.queue.wait_drain(out, max, timeout);
        self.done = !more;
        more
    }
}

impl EventReceiver {
    /// Take what is queued now, without waiting: events pushed but whose wake-up the reader
    /// has not sent yet included (an async poll under way is dropped; it holds no event).
    pub(crate) fn take_ready(&mut self) -> Vec<Event> {
        self.fut = None;
        let mut out: Vec<Event> = self.buf.drain(..).collect();
        if !self.done {
            self.done = !self.queue.drain_into(&mut out, usize::MAX);
        }
        out
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        if self.owned {
            self.queue.close();
        } else if !self.buf.is_empty() {
            self.queue.give_back(self.buf.drain(..));
        }
    }
}

impl EventReceiver {
    /// Ready once the next [`poll_next`](futures_core::Stream::poll_next) returns without
    /// waiting: an event is buffered here or the stream has ended. Takes no event, so a
    /// consumer can wait here and take the events later (on another thread, with a no-op
    /// waker) without holding them anywhere else.
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        poll_filled(
            &self.queue,
            &mut self.buf,
            &mut self.fut,
            &mut self.done,
            Self::BATCH,
            cx,
        )
    }

    /// Events moved from the queue into this receiver's buffer at a time.
    const BATCH: usize = 1024;
}

impl futures_core::Stream for EventReceiver {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let this = &mut *self;
        poll_refill(
            &this.queue,
            &mut this.buf,
            &mut this.fut,
            &mut this.done,
            Self::BATCH,
            cx,
        )
    }
}

/// The batch-refill step of every stream over an event queue ([`EventReceiver`], a turn's
/// stream): the next buffered event, else the queue's next batch (at most `batch` events)
/// awaited into `buf`; `None` once the queue is closed and `buf` is empty.
pub(crate) fn poll_refill(
    queue: &Arc<EventQueue>,
    buf: &mut VecDeque<Event>,
    fut: &mut Option<BatchFuture>,
    done: &mut bool,
    batch: usize,
    cx: &mut Context<'_>,
) -> Poll<Option<Event>> {
    match poll_filled(queue, buf, fut, done, batch, cx) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(()) => Poll::Ready(buf.pop_front()),
    }
}

/// Ready once `buf` holds an event or the queue is closed (`done`): refills `buf` with the
/// queue's next batch (at most `batch` events) when it is empty; takes nothing from it.
pub(crate) fn poll_filled(
    queue: &Arc<EventQueue>,
    buf: &mut VecDeque<Event>,
    fut: &mut Option<BatchFuture>,
    done: &mut bool,
    batch: usize,
    cx: &mut Context<'_>,
) -> Poll<()> {
    while buf.is_empty() && !*done {
        let f = fut.get_or_insert_with(|| {
            let q = queue.clone();
            Box::pin(async move {
                let mut v = Vec::new();
                let more = q.next_batch(&mut v, batch).await;
                (more, v)
            })
        });
        match f.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready((more, v)) => {
                *fut = None;
                *done = !more;
                buf.extend(v);
            }
        }
    }
    Poll::Ready(())
}

#[cfg(test)]
mod tests {
    /// The old public name still names the receiver (Rust users keep compiling).
    #[test]
    #[allow(deprecated)]
    fn the_old_name_is_an_alias() {
        fn same(r: Option<crate::EventStream>) -> Option<super::EventReceiver> {
            r
        }
        assert!(same(None).is_none());
    }

    /// `poll_ready` waits for an event without taking it (the next `poll_next` gets it, in
    /// order), wakes its waker when one is pushed, and is ready at the end too.
    #[test]
    fn poll_ready_takes_nothing() {
        use std::pin::Pin;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use std::task::{Context, Poll, Wake, Waker};

        use futures_core::Stream;

        use super::super::queue::EventQueue;
        use super::EventReceiver;
        use crate::event::{Event, Notification};

        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let note = |m: &str| {
            Event::Notification(Notification::new(
                m,
                serde_json::value::RawValue::from_string("{}".into()).unwrap(),
            ))
        };
        let queue = Arc::new(EventQueue::new(16, 1 << 20));
        let mut rx = EventReceiver::new(queue.clone(), true);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(rx.poll_ready(&mut cx).is_pending());
        queue.push(note("a"), false);
        queue.push(note("b"), false);
        queue.flush_wake();
        assert!(
            count.0.load(Ordering::SeqCst) > 0,
            "the waiting waker was woken"
        );
        for _ in 0..2 {
            assert!(rx.poll_ready(&mut cx).is_ready());
        }
        let method = |p: Poll<Option<Event>>| match p {
            Poll::Ready(Some(Event::Notification(n))) => n.method,
            other => panic!("not a notification: {:?}", other.is_ready()),
        };
        assert_eq!(method(Pin::new(&mut rx).poll_next(&mut cx)), "a");
        assert!(rx.poll_ready(&mut cx).is_ready());
        assert_eq!(method(Pin::new(&mut rx).poll_next(&mut cx)), "b");
        assert!(rx.poll_ready(&mut cx).is_pending());
        queue.close();
        assert!(rx.poll_ready(&mut cx).is_ready());
        assert!(matches!(
            Pin::new(&mut rx).poll_next(&mut cx),
            Poll::Ready(None)
        ));
    }
}
