//! Skills over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640): list an MCP
//! server's skills, load one (its `SKILL.md` checked against its entry by the core: size,
//! SHA-256 digest, frontmatter), and let a Codex client's turns use the skills of an MCP
//! client (`codex_client_add_skill_source`; a turn then names `"<skill>@<label>"` in the
//! skills of `codex_client_turn_start_with_skills`). Everything is the core's; this file
//! only converts.

use std::ffi::c_char;

use crate::client::{codex_client_t, shared};
use crate::error::{codex_status_t, invalid_arg};
use crate::strings::{clear_out, opt_str, put_string, req_str};

ffi_fn! {
    /// `skills/list` on the MCP server `client` is connected to: one page (`cursor`, NULL for
    /// the first) or, with `all_pages` non-zero, every page. Reads no skill file. On success
    /// `*skills_json` receives `{"skills":[<entries as the server sent them>],"nextCursor":..}`
    /// (each entry `{"uri","frontmatter","resources"}`; an entry that is not well-formed is
    /// left out and logged); free it with `codex_string_free`. Errors: UNSUPPORTED when the
    /// server does not declare the skills extension, the server's errors, INVALID_ARGUMENT
    /// (NULL out-parameter). Blocking, each request bounded by the client's default
    /// timeout; thread: any except a callback of this client.
    unsafe fn codex_client_mcp_skills_list(
        client: *mut codex_client_t,
        cursor: *const c_char,
        all_pages: i32,
        skills_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(skills_json);
        if skills_json.is_null() {
            return Err(invalid_arg("skills_json (out) is NULL"));
        }
        let s = shared(client)?;
        let cursor = opt_str(cursor, "cursor")?;
        let v = codex_client::McpClient::from_connection(s.core()).list_skills_json_blocking(cursor, all_pages != 0)?;
        put_string(skills_json, &v.to_string());
        Ok(())
    }
}

ffi_fn! {
    /// Load the skill `skill` (a name from the server's `skills/list`, or the URI of its
    /// `SKILL.md`) from the MCP server `client` is connected to: its entry, then its
    /// `SKILL.md`, checked against the entry (limits, size, SHA-256 digest, YAML frontmatter
    /// field by field). No other file is read. On success `*skill_json` receives
    /// `{"entry":{..},"text":"<SKILL.md>","body":"<text after the frontmatter>"}`; free it
    /// with `codex_string_free`. Errors: PROTOCOL for a failed check (the message names the
    /// URI and what differed; nothing is returned), INVALID_ARGUMENT for an unknown or
    /// ambiguous name (the message lists the server's skills), UNSUPPORTED when the server
    /// does not declare the skills extension. Blocking; thread: any except a callback of
    /// this client.
    unsafe fn codex_client_mcp_skill_load(
        client: *mut codex_client_t,
        skill: *const c_char,
        skill_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(skill_json);
        if skill_json.is_null() {
            return Err(invalid_arg("skill_json (out) is NULL"));
        }
        let s = shared(client)?;
        let v = codex_client::McpClient::from_connection(s.core()).load_skill_json_blocking(req_str(skill, "skill")?)?;
        put_string(skill_json, &v.to_string());
        Ok(())
    }
}

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
