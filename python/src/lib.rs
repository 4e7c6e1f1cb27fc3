//! `codexclient._native`: the Python extension module of the `codexclient` package, a thin
//! layer over the `codex-client` core (see `python/codexclient/` for the Python API).
//!
//! Threads and the GIL: the core's runtime thread never takes the GIL; the sync client's
//! handlers run on the core's dispatch thread, which takes it. Blocking calls release it while
//! they wait. Async calls run Rust futures on the asyncio loop's thread with the core's
//! executor, woken through a descriptor the loop watches (see [`executor`]); the async
//! client's events are drained there when the core's event descriptor is readable.
//! This crate adds no thread, queue or executor of its own.
#![warn(missing_docs)]

use pyo3::prelude::*;

pub mod client;
pub mod compat;
mod errors;
pub mod events;
pub mod executor;
mod json;
pub mod log;
pub mod mcp;
pub mod stream;
pub mod turn;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    log::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("REQUEST_METHODS", request_methods(m.py())?)?;
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
    m.add_class::<mcp::Tool>()?;
    m.add_class::<mcp::CallToolResult>()?;
    m.add_class::<mcp::Resource>()?;
    m.add_class::<mcp::ResourceTemplate>()?;
    m.add_class::<mcp::ResourceContents>()?;
    m.add_class::<mcp::Prompt>()?;
    m.add_class::<mcp::GetPromptResult>()?;
    m.add_class::<mcp::Completion>()?;
    m.add_class::<mcp::Progress>()?;
    m.add_class::<mcp::ToolCall>()?;
    m.add_function(wrap_pyfunction!(mcp::completion_ref, m)?)?;
    m.add_function(wrap_pyfunction!(input_item, m)?)?;
    m.add_function(wrap_pyfunction!(compat::compat_report, m)?)?;
    m.add_function(wrap_pyfunction!(log::set_log_level, m)?)?;
    m.add_function(wrap_pyfunction!(log::shutdown_logging, m)?)?;
    Ok(())
}

/// The server-request methods the Python handlers' shortcuts register for, by shortcut name
/// (from the generated protocol and the core's MCP constants, so the package spells none).
fn request_methods(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    use codex_client::protocol::{server_requests as sr, ServerRequestMethod};
    let d = pyo3::types::PyDict::new(py);
    d.set_item(
        "command_approval",
        sr::ItemCommandExecutionRequestApproval::NAME,
    )?;
    d.set_item(
        "file_change_approval",
        sr::ItemFileChangeRequestApproval::NAME,
    )?;
    d.set_item(
        "permissions_request",
        sr::ItemPermissionsRequestApproval::NAME,
    )?;
    d.set_item("user_input", sr::ItemToolRequestUserInput::NAME)?;
    d.set_item("elicitation", sr::McpServerElicitationRequest::NAME)?;
    d.set_item("tool_call", sr::ItemToolCall::NAME)?;
    d.set_item("sampling", codex_client::mcp::SAMPLING_REQUEST)?;
    d.set_item("mcp_elicitation", codex_client::mcp::ELICITATION_REQUEST)?;
    d.set_item("roots", codex_client::mcp::ROOTS_REQUEST)?;
    Ok(d)
}

/// One turn input item as JSON text, built by the core: `kind` is `text`, `image_url` or
/// `local_image` (a path).
#[pyfunction]
fn input_item(py: Python<'_>, kind: &str, value: &str) -> PyResult<String> {
    let input = codex_client::Input::default();
    let input = match kind {
        "text" => input.and_text(value),
        "image_url" => input.and_image_url(value),
        "local_image" => input.and_local_image(value),
        _ => {
            let msg = format!("no input item kind {kind}");
            return Err(errors::simple(py, "InvalidArgumentError", msg));
        }
    };
    Ok(input.0[0].to_string())
}
