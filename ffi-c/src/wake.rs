//! Wake-ups of async request futures: a non-blocking eventfd plus the ids of woken requests.
//!
//! The core's request futures are runtime-agnostic: their wakers fire on the core's runtime
//! thread. A waker only records the request id and makes the eventfd readable; whoever
//! consumes events (the dispatch thread, or the program's `next_event` call) polls the woken
//! futures. Nothing here ever runs program code.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Wake, Waker};

/// Lock a mutex, ignoring poisoning (a panic elsewhere must not take the client down).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A non-blocking, close-on-exec eventfd.
pub(crate) struct EventFd(OwnedFd);

impl EventFd {
    pub(crate) fn new() -> std::io::Result<EventFd> {
        // SAFETY: plain syscall; a non-negative result is a fresh descriptor we now own.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is owned by nobody else.
        Ok(EventFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    pub(crate) fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }

    /// Make the descriptor readable.
    pub(crate) fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a valid u64 to our own eventfd.
        unsafe { libc::write(self.fd(), (&one as *const u64).cast(), 8) };
    }

    /// Make the descriptor unreadable (until the next signal).
    pub(crate) fn reset(&self) {
        let mut v: u64 = 0;
        // SAFETY: reads 8 bytes into a valid u64 from our own non-blocking eventfd.
        unsafe { libc::read(self.fd(), (&mut v as *mut u64).cast(), 8) };
    }
}

/// Shared between a client and the wakers of its requests.
pub(crate) struct WakeShared {
    pub fd: EventFd,
    woken: Mutex<Vec<u64>>,
    /// Set by every wake; lets the consumer skip the eventfd read and the lock when nothing
    /// was woken (the poll-mode hot path).
    pending: std::sync::atomic::AtomicBool,
}

impl WakeShared {
    pub(crate) fn new() -> std::io::Result<Arc<WakeShared>> {
        Ok(Arc::new(WakeShared {
            fd: EventFd::new()?,
            woken: Mutex::new(Vec::new()),
            pending: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    /// Mark request `id` as needing a poll and make the descriptor readable.
    pub(crate) fn wake(&self, id: u64) {
        lock(&self.woken).push(id);
        self.pending
            .store(true, std::sync::atomic::Ordering::Release);
        self.fd.signal();
    }

    /// Whether a wake happened since the last call (clears the mark).
    pub(crate) fn take_pending(&self) -> bool {
        self.pending
            .swap(false, std::sync::atomic::Ordering::AcqRel)
    }

    /// Take the ids woken since the last call.
    pub(crate) fn take_woken(&self) -> Vec<u64> {
        std::mem::take(&mut *lock(&self.woken))
    }

    /// A waker for request `id`. It holds the client weakly, so a future that outlives its
    /// client (it cannot, but still) wakes nothing.
    pub(crate) fn waker(self: &Arc<Self>, id: u64) -> Waker {
        Waker::from(Arc::new(RequestWaker {
            id,
            shared: Arc::downgrade(self),
        }))
    }
}

struct RequestWaker {
    id: u64,
    shared: Weak<WakeShared>,
}

impl Wake for RequestWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(s) = self.shared.upgrade() {
            s.wake(self.id);
        }
    }
}
