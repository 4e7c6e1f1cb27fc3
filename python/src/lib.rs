//! `codexclient._native`: the Python extension module of the `codexclient` package, a thin
//! layer over the `codex-client` core (see `python/codexclient/` for the Python API).
//!
//! Threads and the GIL: the core's runtime thread never takes the GIL; the sync client's
//! handlers run on the core's dispatch thread, which takes it. Blocking calls release it while
//! they wait. Async calls run Rust futures on the asyncio loop's thread with the core's
//! executor, woken through a descriptor the loop watches (see [`executor`]); the async
//! client's events are drained there when the core's event descriptor is readable.
//! This crate adds no thread, queue or executor of its own (the log forwarding aside).
#![warn(missing_docs)]

use pyo3::prelude::*;

pub mod client;
mod errors;
pub mod events;
pub mod executor;
mod json;
pub mod log;
pub mod stream;
pub mod turn;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    log::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<executor::Executor>()?;
    m.add_class::<stream::EventStream>()?;
    m.add_class::<turn::Turn>()?;
    m.add_class::<events::Notification>()?;
    m.add_class::<events::AgentMessageDelta>()?;
    m.add_class::<events::ItemStarted>()?;
    m.add_class::<events::ItemCompleted>()?;
    m.add_class::<events::TurnStarted>()?;
    m.add_class::<events::TurnCompleted>()?;
    m.add_class::<events::TokenUsageUpdated>()?;
    m.add_class::<events::ServerRequest>()?;
    m.add_class::<events::ConnectionEvent>()?;
    m.add_class::<log::LogStream>()?;
    m.add_function(wrap_pyfunction!(log::set_log_level, m)?)?;
    m.add_function(wrap_pyfunction!(log::shutdown_logging, m)?)?;
    Ok(())
}
