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

pub mod account;
mod args;
mod auth;
pub mod client;
pub mod compat;
mod errors;
pub mod events;
pub mod executor;
mod handlers;
mod json;
pub mod log;
pub mod mcp;
pub mod pool;
pub mod serial;
pub mod stream;
pub mod turn;

/// Add the classes to the module.
macro_rules! add_classes {
    ($m:ident: $($class:ty),+ $(,)?) => {
        $($m.add_class::<$class>()?;)+
    };
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    log::install(m.py());
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("REQUEST_METHODS", request_methods(m.py())?)?;
    add_classes! { m:
        client::NativeClient, client::ClientHandle, auth::LoopbackBrowser, account::NativeLogin, executor::Executor, stream::EventStream, turn::Turn, turn::PyTurnBounds,
        events::Notification, events::AgentMessageDelta, events::ItemStarted,
        events::ItemCompleted, events::TurnStarted, events::TurnCompleted,
        events::TokenUsageUpdated, events::ServerRequest, events::ConnectionEvent, mcp::Tool,
        mcp::CallToolResult, mcp::Resource, mcp::ResourceTemplate, mcp::ResourceContents,
        mcp::Prompt, mcp::GetPromptResult, mcp::Completion, mcp::Progress, mcp::ToolCall, mcp::Task,
        mcp::Listen, pool::NativePool, serial::ThreadRef,
    }
    let listen_keys: Vec<&str> = codex_client::mcp::LISTEN_FILTER_KEYS
        .iter()
        .map(|(name, _, _)| *name)
        .collect();
    m.add("LISTEN_FILTER_KEYS", listen_keys)?;
    m.add_function(wrap_pyfunction!(mcp::completion_ref, m)?)?;
    m.add_function(wrap_pyfunction!(events::event_from_json, m)?)?;
    events::set_rebuild(m.py(), m.getattr("event_from_json")?);
    m.add_function(wrap_pyfunction!(account::login_api_key, m)?)?;
    m.add_function(wrap_pyfunction!(account::login_start, m)?)?;
    m.add_function(wrap_pyfunction!(errors::set_error_classes, m)?)?;
    m.add_function(wrap_pyfunction!(client::option_keys, m)?)?;
    m.add_function(wrap_pyfunction!(client::client_kind, m)?)?;
    m.add_function(wrap_pyfunction!(client::option_cases, m)?)?;
    m.add_function(wrap_pyfunction!(client::effective_option, m)?)?;
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
    let methods = [
        (
            "command_approval",
            sr::ItemCommandExecutionRequestApproval::NAME,
        ),
        (
            "file_change_approval",
            sr::ItemFileChangeRequestApproval::NAME,
        ),
        (
            "permissions_request",
            sr::ItemPermissionsRequestApproval::NAME,
        ),
        ("user_input", sr::ItemToolRequestUserInput::NAME),
        ("elicitation", sr::McpServerElicitationRequest::NAME),
        ("tool_call", sr::ItemToolCall::NAME),
        ("sampling", codex_client::mcp::SAMPLING_REQUEST),
        ("mcp_elicitation", codex_client::mcp::ELICITATION_REQUEST),
        ("roots", codex_client::mcp::ROOTS_REQUEST),
    ];
    for (shortcut, method) in methods {
        d.set_item(shortcut, method)?;
    }
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
