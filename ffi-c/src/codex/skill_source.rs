//! Skills of an MCP client for the turns of a Codex client (`codex_client_add_skill_source`;
//! a turn then names `"<skill>@<label>"` in the skills of
//! `codex_client_turn_start_with_skills`). The MCP side (listing and loading a server's
//! skills) is `mcp/skills.rs`; everything is the core's, this file only converts.

use std::ffi::c_char;

use crate::connection::client::{codex_client_t, shared};
use crate::error::codex_status_t;
use crate::strings::req_str;

ffi_fn! {
    /// Let the turns of the Codex client `client` use the skills of the MCP client `server`,
    /// under `label` (1-64 of `A-Z a-z 0-9 - _ .`, the name the program gives that server).
    /// A turn selects one as `"<name>@<label>"` or `"<SKILL.md URI>@<label>"` in
    /// `codex_client_turn_start_with_skills`; it is loaded and checked when the turn starts
    /// and goes to Codex as a text block naming the server
    /// (`<skill name=".." server="<label>" uri=".." ..>`), which needs the option
    /// `skill_emulation` at `"when_needed"` or `"always"`. The same label again replaces the
    /// server. `client` keeps its own reference to `server` (freeing `server`'s handle does
    /// not end it while `client` holds it; `codex_client_remove_skill_source` or freeing
    /// `client` lets go). Errors: INVALID_ARGUMENT (a bad label, `client` an MCP client,
    /// `server` not one). Thread: any.
    unsafe fn codex_client_add_skill_source(
        client: *mut codex_client_t,
        label: *const c_char,
        server: *mut codex_client_t,
    ) -> codex_status_t {
        let s = shared(client)?;
        let server = shared(server)?;
        codex_client::CodexClient::from_connection(s.core()).add_skill_source(req_str(label, "label")?, server.core())?;
        Ok(())
    }
}

ffi_fn! {
    /// Forget the skill source `label` of `client`: 1 when there was one, 0 when not, -1 on
    /// an invalid argument (the last error says why). Thread: any.
    unsafe fn codex_client_remove_skill_source(
        client: *mut codex_client_t,
        label: *const c_char,
    ) -> i32 {
        let r = shared(client)
            .and_then(|s| Ok(codex_client::CodexClient::from_connection(s.core()).remove_skill_source(req_str(label, "label")?)));
        crate::error::value_or(r.map(i32::from), -1)
    } ?= -1
}
