//! Event delivery owned by the core for every binding: the executor that completes futures
//! for foreign event loops (asyncio, a C program's poll loop), woken through one descriptor.
//! (The bounded queue, the readiness descriptor and the callback dispatch thread live in
//! `queue`, `readiness` and `dispatch`.)

mod executor;

pub use executor::{Executor, TaskId};
