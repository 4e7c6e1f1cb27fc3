//! Skills over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640): list an MCP
//! server's skills, load one (its `SKILL.md` checked against its entry by the core: size,
//! SHA-256 digest, frontmatter). A Codex client's turns use them through
//! `codex/skill_source.rs`. Everything is the core's; this file only converts.

use std::ffi::c_char;

use crate::connection::client::{codex_client_t, shared};
use crate::error::codex_status_t;
use crate::strings::{opt_str, put_string, req_out, req_str};

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
        req_out(skills_json, "skills_json (out)")?;
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
        req_out(skill_json, "skill_json (out)")?;
        let s = shared(client)?;
        let v = codex_client::McpClient::from_connection(s.core()).load_skill_json_blocking(req_str(skill, "skill")?)?;
        put_string(skill_json, &v.to_string());
        Ok(())
    }
}
