//! Transports: how messages reach a Codex server: `codex app-server` over stdio, over
//! WebSocket (TCP) and over its unix control socket, or an in-process shim that serves the
//! app-server protocol on top of `codex exec --json` or `codex mcp-server`.

pub(crate) mod binary;
pub(crate) mod exec;
pub(crate) mod io;
pub(crate) mod lines;
pub(crate) mod mcp;
pub(crate) mod process;
pub(crate) mod shim;
pub(crate) mod stderr;
pub(crate) mod ws;

pub use binary::resolve_codex_bin;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::options::{ClientOptions, TransportKind};

/// The shim for a client's transport.
pub(crate) fn shim_for(opts: &ClientOptions) -> Result<Arc<dyn shim::Shim>> {
    match &opts.transport {
        TransportKind::Exec(exec) => exec::ExecShim::create(opts, exec),
        TransportKind::Mcp => mcp::McpShim::create(opts),
        other => Err(Error::InvalidArgument(format!(
            "{other:?} is not a shim transport"
        ))),
    }
}
