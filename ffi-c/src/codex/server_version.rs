//! The connected server's Codex version and what it supports (the core's
//! `CodexClient::server_version`, `CodexClient::supports`). ABI 1.10.

use std::ffi::c_char;

use codex_client::Error;

use crate::connection::client::{codex_client_t, shared};
use crate::error::{codex_status_t, invalid_arg, invalid_state};
use crate::strings::{put_string, req_out, req_str};

ffi_fn! {
    /// The connected app-server's Codex version placed in the supported window: `*out`
    /// receives `{"version": "0.171.0"|null, "position": "inside"|"older"|"newer"|"unknown",
    /// "matches": "<the window version it is>"|null, "window": ["0.163.0", …], "source":
    /// "spawned"|"remote"|"control_socket", "cli_version": "<the installed CLI's>"|null}`
    /// (`version` is the server's own: through the control socket the daemon's, with the
    /// installed CLI's beside it; `source` and `cli_version` since ABI 1.11), a string the
    /// program frees with `codex_string_free`. Errors: NOT_CONNECTED; INVALID_STATE when the
    /// server is not a Codex app-server (an MCP server, the exec or codex-mcp-server
    /// transport). Thread: any, including inside callbacks. ABI 1.10.
    unsafe fn codex_client_server_version(
        client: *const codex_client_t,
        out: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let s = shared(client)?;
        if !s.core().is_connected() {
            return Err(Error::NotConnected.into());
        }
        let v = s
            .codex()
            .server_version()
            .ok_or_else(|| invalid_state("the server is not a Codex app-server"))?;
        put_string(out, &v.to_json().to_string());
        Ok(())
    }
}

ffi_fn! {
    /// Whether the connected app-server has client method `method`, by the window's method
    /// table: `*out` receives it. For a window version, exactly; for a server outside the
    /// window, whether some window version has it; a method of no window version: false. A
    /// call of a method the server's (window) version lacks fails at once with
    /// `CODEX_STATUS_UNSUPPORTED_BY_VERSION`. Errors: NOT_CONNECTED; INVALID_STATE when the
    /// server is not a Codex app-server. Thread: any, including inside callbacks. ABI 1.10.
    unsafe fn codex_client_supports(
        client: *const codex_client_t,
        method: *const c_char,
        out: *mut bool,
    ) -> codex_status_t {
        if !out.is_null() {
            *out = false;
        }
        let s = shared(client)?;
        let method = req_str(method, "method")?;
        if out.is_null() {
            return Err(invalid_arg("out is NULL"));
        }
        *out = s.codex().supports(method)?;
        Ok(())
    }
}
