//! `codexclient._native`: the Python extension module of the `codexclient` package, a thin
//! layer over the `codex-client` core (see `python/codexclient/` for the Python API).
//!
//! Threads and the GIL: the core's runtime thread and this crate's pump thread never take the
//! GIL. Blocking calls release it while they wait. Async calls run Rust futures on the asyncio
//! loop's thread, woken through a pipe the loop watches (see [`executor`]).
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
