//! The era an MCP connection negotiated, to keep for a later connect (the core's
//! `InitializeResult::mcp_prior`; given back as option `mcp_prior`). ABI 1.11.

use std::ffi::c_char;

use codex_client::Error;

use crate::connection::client::{codex_client_t, shared};
use crate::error::{codex_status_t, invalid_state};
use crate::strings::{put_string, req_out};

ffi_fn! {
    /// The era the connected MCP server negotiated, as the value of option `mcp_prior`:
    /// `*out` receives `{"kind":"legacy"}` (the `initialize` handshake) or
    /// `{"kind":"modern","discover":{...}}` (the stateless era, with the server's
    /// `server/discover` result), a string the program frees with `codex_string_free`. Keep
    /// it (per command or URL) and set it on a later client with
    /// `codex_options_set(o, "mcp_prior", json)`: that connect skips the `server/discover`
    /// probe (a legacy verdict sends `initialize` at once, a modern one sends nothing).
    /// Errors: NOT_CONNECTED; INVALID_STATE when the server is not an MCP server. Thread:
    /// any, including inside callbacks. ABI 1.11.
    unsafe fn codex_client_mcp_prior(
        client: *const codex_client_t,
        out: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let s = shared(client)?;
        let init = s.core().initialize_result().ok_or(Error::NotConnected)?;
        let prior = init
            .mcp_prior()
            .ok_or_else(|| invalid_state("the server is not an MCP server"))?;
        put_string(out, &prior.to_json().to_string());
        Ok(())
    }
}
