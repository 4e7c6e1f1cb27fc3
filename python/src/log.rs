//! Bridge from the core's log records (`codex_client::log`) to Python's `logging`.
//!
//! The core formats records where they happen and calls the sink installed here on its own
//! log thread (`codex-log`); the sink attaches to the interpreter and hands each record
//! to `logging.getLogger("codexclient")` (`"codexclient.server"` for what the server logs:
//! its stderr lines and an MCP server's `notifications/message` records). This crate runs
//! no thread of its own for it.

use pyo3::prelude::*;

use codex_client::log::{forward_logs, set_log_level as core_level, stop_logs, LogRecord};

/// Python `logging` level of a tracing level.
fn py_level(l: tracing::Level) -> u8 {
    match l {
        tracing::Level::ERROR => 40,
        tracing::Level::WARN => 30,
        tracing::Level::INFO => 20,
        tracing::Level::DEBUG => 10,
        _ => 5,
    }
}

fn emit(py: Python<'_>, rec: LogRecord) -> PyResult<()> {
    let name = match rec.target {
        "codex_client::server_stderr" | codex_client::mcp::SERVER_LOG_TARGET => {
            "codexclient.server"
        }
        _ => "codexclient",
    };
    let logger = py
        .import(pyo3::intern!(py, "logging"))?
        .call_method1(pyo3::intern!(py, "getLogger"), (name,))?;
    let level = py_level(rec.level);
    if logger
        .call_method1(pyo3::intern!(py, "isEnabledFor"), (level,))?
        .is_truthy()?
    {
        logger.call_method1(pyo3::intern!(py, "log"), (level, "%s", rec.message))?;
    }
    Ok(())
}

/// Install the sink (at import; a no-op when the process already has another `tracing`
/// subscriber). When `CODEXCLIENT_LOG` names a level the core forwards from that level and
/// the `codexclient` logger is set to it, so the records reach `logging`'s handlers.
pub(crate) fn install(py: Python<'_>) {
    if let Some(l) = codex_client::log::env_log_level() {
        let set = py.import(pyo3::intern!(py, "logging")).and_then(|m| {
            m.call_method1(pyo3::intern!(py, "getLogger"), ("codexclient",))?
                .call_method1(pyo3::intern!(py, "setLevel"), (py_level(l),))
        });
        if let Err(e) = set {
            e.write_unraisable(py, None);
        }
    }
    let _ = forward_logs(tracing::Level::DEBUG, |rec| {
        // Never attach while the interpreter shuts down.
        let _ = Python::try_attach(|py| {
            if let Err(e) = emit(py, rec) {
                e.write_unraisable(py, None);
            }
        });
    });
}

/// Forward only records at or above this Python logging level (default 10, DEBUG).
#[pyfunction]
pub fn set_log_level(level: u8) {
    core_level(match level {
        0..=5 => tracing::Level::TRACE,
        6..=10 => tracing::Level::DEBUG,
        11..=20 => tracing::Level::INFO,
        21..=30 => tracing::Level::WARN,
        _ => tracing::Level::ERROR,
    });
}

/// Stop forwarding (at interpreter exit): waits, with the GIL released, for a record being
/// handed over; none is handed over afterwards.
#[pyfunction]
pub fn shutdown_logging(py: Python<'_>) {
    py.detach(stop_logs);
}
