//! Event delivery owned by the core for every binding: the bounded event queue with its
//! backpressure and read-ahead rules (`queue`), the readiness descriptor of poll mode
//! (`readiness`), the shared callback dispatch threads (`dispatch`) and the executor that
//! completes futures for foreign event loops (asyncio, a C program's poll loop), woken
//! through one descriptor (`executor`), the consumer's end of a queue (`stream`), the routes of a thread's events to its stream (`router`), and blocking waits from a plain thread (`wait`). Bindings
//! adapt these; they keep no thread, queue or
//! descriptor of their own.

use std::cell::Cell;

pub(crate) mod dispatch;
mod executor;
pub(crate) mod merge;
pub(crate) mod queue;
pub(crate) mod readiness;
pub(crate) mod router;
pub(crate) mod stream;
mod wait;

pub use dispatch::{dispatch_threads, DISPATCH_THREADS};
pub use executor::{Executor, TaskId};
pub use stream::EventReceiver;
pub(crate) use wait::{block_on, block_on_within};
pub use wait::{poll_once, wait_spinning, wait_until, within, Spin};

thread_local! {
    static DELIVERS_EVENTS: Cell<bool> = const { Cell::new(false) };
}

/// Mark the calling thread as one that delivers or pulls a client's events. A request made
/// on such a thread lets the reader read ahead past a full queue (see
/// [`ClientOptions::read_ahead_bytes`](crate::ClientOptions::read_ahead_bytes)), since the
/// events would otherwise wait for this very thread and the response behind them never
/// arrive. The library marks its dispatch threads and every thread that pulls events
/// (`next_event`, `next_events`, polling `events()`); a binding marks the threads that run
/// its users' callbacks. The mark lasts for the thread's life.
pub fn mark_event_delivery_thread() {
    DELIVERS_EVENTS.with(|c| c.set(true));
}

/// Whether the calling thread delivers or pulls events ([`mark_event_delivery_thread`]).
pub(crate) fn delivers_events() -> bool {
    DELIVERS_EVENTS.with(|c| c.get())
}
