//! Blocking waits on a future from an ordinary thread (no runtime): poll it, park until its
//! waker fires, poll again. [`wait_until`] gives up at a deadline and leaves the future as it
//! is, so that a binding can do something between slices of one wait (Python checks for
//! Ctrl-C) and then wait on. [`wait_spinning`] first spins a little (see [`Spin`]): a reply
//! from a fast server then arrives without the thread going to sleep and being woken.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

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

/// An adaptive spin before parking, for blocking waits on replies: up to `max`, and while
/// replies keep missing it (a slow server) only on every 2nd, 4th … 64th wait, so a slow
/// server costs almost no spinning while a fast one is answered without a sleep and a
/// wake-up. `max` zero: never spin. Shared by the waits of one client.
#[derive(Debug)]
pub struct Spin {
    max: Duration,
    /// Waits in a row whose reply came after the spin (capped).
    misses: AtomicU32,
    /// Counts waits, to spin on every 2^k-th one while backing off.
    waits: AtomicU32,
}

/// Misses in a row before the spin backs off.
const SPIN_MISSES: u32 = 3;

impl Spin {
    /// Spin for at most `max` per wait (zero: never).
    pub fn new(max: Duration) -> Spin {
        Spin {
            max,
            misses: AtomicU32::new(0),
            waits: AtomicU32::new(0),
        }
    }

    /// How long this wait may spin (`None`: not at all).
    fn budget(&self) -> Option<Duration> {
        if self.max.is_zero() {
            return None;
        }
        let misses = self.misses.load(Ordering::Relaxed);
        if misses < SPIN_MISSES {
            return Some(self.max);
        }
        let every = 1u32 << (misses - SPIN_MISSES + 1).min(6);
        let n = self.waits.fetch_add(1, Ordering::Relaxed);
        n.is_multiple_of(every).then_some(self.max)
    }

    fn record(&self, hit: bool) {
        if hit {
            self.misses.store(0, Ordering::Relaxed);
        } else {
            let m = self.misses.load(Ordering::Relaxed);
            self.misses
                .store((m + 1).min(SPIN_MISSES + 6), Ordering::Relaxed);
        }
    }
}

/// [`wait_until`], spinning first as `spin` allows: the future is polled again and again for
/// that long before the thread parks.
pub fn wait_spinning<F: Future + ?Sized>(
    mut fut: Pin<&mut F>,
    deadline: Instant,
    spin: &Spin,
) -> Option<F::Output> {
    let waker = this_thread();
    let mut cx = Context::from_waker(&waker);
    if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
        return Some(v);
    }
    if let Some(budget) = spin.budget() {
        let until = Instant::now() + budget.min(deadline.saturating_duration_since(Instant::now()));
        loop {
            for _ in 0..32 {
                std::hint::spin_loop();
            }
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                spin.record(true);
                return Some(v);
            }
            if Instant::now() >= until {
                break;
            }
        }
        spin.record(false);
    }
    wait_until(fut, deadline)
}

/// How long one slice of [`block_on`] waits before it re-arms (the futures it runs are
/// bounded by their own timeouts; the slice only keeps the deadline arithmetic finite).
const SLICE: Duration = Duration::from_secs(3600);

/// Run `fut` to completion on the calling thread (a plain thread, not the library's
/// runtime), spinning first as `spin` allows. The one way the library blocks on its own async
/// calls: every `*_blocking` method is its async twin run through this (or
/// [`block_on_within`]), so each body is written once. No bound of its own: what it runs is
/// bounded (each request by its timeout, a wait by the bound it was given).
pub(crate) fn block_on<F: Future>(fut: F, spin: Option<&Spin>) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    loop {
        let deadline = Instant::now() + SLICE;
        let got = match spin {
            Some(spin) => wait_spinning(fut.as_mut(), deadline, spin),
            None => wait_until(fut.as_mut(), deadline),
        };
        if let Some(v) = got {
            return v;
        }
    }
}

/// [`block_on`] for at most `timeout`: past it the future is dropped and the error is
/// [`Error::Timeout`](crate::Error::Timeout) naming `what`.
pub(crate) fn block_on_within<F: Future>(
    fut: F,
    timeout: Duration,
    what: &str,
) -> crate::error::Result<F::Output> {
    let fut = std::pin::pin!(fut);
    wait_until(fut, Instant::now() + timeout).ok_or_else(|| crate::error::Error::Timeout {
        method: what.to_owned(),
        after: timeout,
    })
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

/// Await `fut` for at most `bound` (`None`: no bound) on any executor — the library's
/// runtime, a binding's blocking wait or a foreign event loop's executor: its output, or
/// `None` when the bound ran out first (the future is dropped).
pub async fn within<F: Future>(bound: Option<Duration>, fut: F) -> Option<F::Output> {
    let Some(bound) = bound else {
        return Some(fut.await);
    };
    let mut fut = std::pin::pin!(fut);
    let mut timer = std::pin::pin!(crate::rt::sleep(bound));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await
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

    #[test]
    fn spins_while_replies_are_fast_and_backs_off_when_they_are_slow() {
        let spin = Spin::new(Duration::from_millis(20));
        // A reply that comes during the spin is a hit.
        let (tx, rx) = futures_channel_oneshot();
        let sender = std::thread::spawn(move || tx.send(1).unwrap());
        let mut rx = Box::pin(rx);
        let got = wait_spinning(rx.as_mut(), Instant::now() + Duration::from_secs(10), &spin);
        assert_eq!(got, Some(Ok(1)));
        sender.join().unwrap();
        assert_eq!(spin.misses.load(Ordering::Relaxed), 0);
        // A reply that does not come within the spin is a miss; after a few misses in a row
        // only every 2nd, 4th … 64th wait spins.
        let mut never = Box::pin(std::future::pending::<()>());
        assert!(wait_spinning(never.as_mut(), Instant::now(), &spin).is_none());
        assert_eq!(spin.misses.load(Ordering::Relaxed), 1);
        for _ in 0..SPIN_MISSES + 6 {
            spin.record(false);
        }
        let spun = (0..64).filter(|_| spin.budget().is_some()).count();
        assert_eq!(spun, 1, "backed off to one wait in 64");
        spin.record(true);
        assert!((0..4).all(|_| spin.budget().is_some()));
        assert!(Spin::new(Duration::ZERO).budget().is_none());
    }

    #[test]
    fn block_on_runs_a_future_to_its_end_and_block_on_within_gives_up_at_its_bound() {
        let (tx, rx) = futures_channel_oneshot();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(5).unwrap();
        });
        let spin = Spin::new(Duration::from_millis(1));
        assert_eq!(block_on(rx, Some(&spin)), Ok(5));
        sender.join().unwrap();
        assert_eq!(block_on(async { 6 }, None), 6);
        let t0 = Instant::now();
        let err = block_on_within(
            std::future::pending::<()>(),
            Duration::from_millis(30),
            "x/y",
        )
        .unwrap_err();
        assert!(t0.elapsed() >= Duration::from_millis(30));
        match err {
            crate::error::Error::Timeout { method, after } => {
                assert_eq!(method, "x/y");
                assert_eq!(after, Duration::from_millis(30));
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        assert_eq!(
            block_on_within(async { 7 }, Duration::from_secs(1), "x/y").unwrap(),
            7
        );
    }

    fn futures_channel_oneshot() -> (
        tokio::sync::oneshot::Sender<i32>,
        tokio::sync::oneshot::Receiver<i32>,
    ) {
        tokio::sync::oneshot::channel()
    }
}
