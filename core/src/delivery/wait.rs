//! Blocking waits on a future from an ordinary thread (no runtime): poll it, park until its
//! waker fires, poll again. [`wait_until`] gives up at a deadline and leaves the future as it
//! is, so that a binding can do something between slices of one wait (Python checks for
//! Ctrl-C) and then wait on.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

/// Wakes a parked thread.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// A waker that unparks the calling thread.
fn this_thread() -> Waker {
    Waker::from(Arc::new(Unpark(std::thread::current())))
}

/// Poll `fut` on the calling thread until it completes (its output) or `deadline` passes
/// (`None`; the future is not dropped, so the wait may go on with another call).
pub fn wait_until<F: Future + ?Sized>(
    mut fut: Pin<&mut F>,
    deadline: Instant,
) -> Option<F::Output> {
    let waker = this_thread();
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return Some(v);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::park_timeout(deadline - now);
    }
}

/// Poll `fut` once on the calling thread and drop it: what it does before its first wait
/// happens (a request started this way is on its way to the server); its outcome, if it
/// completed at once, is returned.
pub fn poll_once<F: Future>(fut: F) -> Option<F::Output> {
    let waker = this_thread();
    match std::pin::pin!(fut).poll(&mut Context::from_waker(&waker)) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn waits_for_a_wake_up_from_another_thread_and_gives_up_at_the_deadline() {
        let (tx, rx) = futures_channel_oneshot();
        let mut rx = Box::pin(rx);
        let t0 = Instant::now();
        assert!(wait_until(rx.as_mut(), t0 + Duration::from_millis(50)).is_none());
        assert!(t0.elapsed() >= Duration::from_millis(50));
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(7).unwrap();
        });
        let got = wait_until(rx.as_mut(), Instant::now() + Duration::from_secs(10));
        assert_eq!(got, Some(Ok(7)));
        sender.join().unwrap();
        assert_eq!(poll_once(async { 3 }), Some(3));
        assert_eq!(poll_once(std::future::pending::<()>()), None);
    }

    fn futures_channel_oneshot() -> (
        tokio::sync::oneshot::Sender<i32>,
        tokio::sync::oneshot::Receiver<i32>,
    ) {
        tokio::sync::oneshot::channel()
    }
}
