//! Turns of the Codex client: start one (with skills or not), interrupt it, steer it, or run
//! it to its end within bounds. Blocking; the turn's events arrive as notifications (but for
//! `codex_client_turn_run`, whose turn stream is its own).

use std::ffi::c_char;

use codex_client::{turn_id_of, Input, Skill, SkillInfo, TurnStream};
use serde_json::Value;

use crate::connection::client::{codex_client_t, request_options, shared};
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::strings::{clear_out, params_object, put_string, req_str, req_strs};

ffi_fn! {
    /// `turn/start`: send the user message `text` on thread `thread_id` and start a turn; the
    /// turn's events then arrive as notifications (`item/agentMessage/delta`, ...,
    /// `turn/completed`). `params_json` (may be NULL) is a JSON object of extra parameters merged
    /// into the request (for example `{"model":"..."}`). On success `*turn_id` (may be NULL)
    /// receives the turn's id; free it with `codex_string_free`.
    /// Blocking (returns when the turn started, not when it completed); thread: any.
    unsafe fn codex_client_turn_start(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        text: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        turn_id: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(turn_id);
        let input = Input::text(req_str(text, "text")?);
        let (id, _) = start_turn(client, thread_id, input, params_json, timeout_ms)?;
        put_string(turn_id, &id);
        Ok(())
    }
}

/// `turn/start` of `input` (skills resolved first) on `thread_id`: the turn id and the
/// skills emulated in the input.
unsafe fn start_turn(
    client: *mut codex_client_t,
    thread_id: *const c_char,
    input: Input,
    params_json: *const c_char,
    timeout_ms: u64,
) -> Result<(String, Vec<SkillInfo>), Fail> {
    let s = shared(client)?;
    let thread = req_str(thread_id, "thread_id")?;
    let extra = Value::Object(params_object(params_json, "params_json")?);
    let prepared = codex_client::CodexClient::from_connection(s.core())
        .thread(thread)
        .prepare_input(input, &extra)?;
    let items = Value::Array(prepared.items);
    let (method, params) = TurnStream::start_request(thread, items, extra)?;
    let r = s
        .core()
        .request_blocking_with(method, params, request_options(timeout_ms))?;
    Ok((turn_id_of(&r)?, prepared.emulated_skills))
}

ffi_fn! {
    /// `turn/start` with skills: as `codex_client_turn_start`, plus `skills`, an array of
    /// `skills_len` strings (NULL when `skills_len` is 0), each a skill name
    /// ("release-notes", found the way Codex finds it) or a path (any string holding '/') of a
    /// `SKILL.md` or of its folder. On an app-server of Codex 0.169.0 or newer the skills
    /// Codex lists (`skills/list`) go as native `skill` input items; on the exec and mcp
    /// transports, older app-servers, and for a path outside Codex's skill folders, each
    /// `SKILL.md` is injected before `text` as a text block
    /// `<skill name=".." path=".." description=".." emulated="true">BODY</skill>`.
    /// A missing or unreadable skill or an unknown name fails with
    /// CODEX_STATUS_INVALID_ARGUMENT (the message names the available skills) before anything
    /// is sent: no turn starts. On success `*turn_id` (may be NULL) receives the turn's id and
    /// `*emulated_skills_json` (may be NULL) a JSON array of the emulated skills,
    /// `[{"name":..,"description":..,"path":..}]` (`[]` when all went natively); free both
    /// with `codex_string_free` (on failure both are set to NULL). Ownership: `skills` and
    /// its strings are only read during the call. Blocking (a `skills/list` round trip first
    /// when a skill goes natively); thread: any.
    unsafe fn codex_client_turn_start_with_skills(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        text: *const c_char,
        skills: *const *const c_char,
        skills_len: usize,
        params_json: *const c_char,
        timeout_ms: u64,
        turn_id: *mut *mut c_char,
        emulated_skills_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(turn_id);
        clear_out(emulated_skills_json);
        if skills.is_null() && skills_len > 0 {
            return Err(invalid_arg("skills is NULL but skills_len is not 0"));
        }
        let input = Input::text(req_str(text, "text")?);
        let input = input.and_skills(req_strs(skills, skills_len, "skills")?.into_iter().map(Skill::parse));
        let (id, emulated) = start_turn(client, thread_id, input, params_json, timeout_ms)?;
        let list: Vec<Value> = emulated.iter().map(SkillInfo::to_value).collect();
        put_string(turn_id, &id);
        put_string(emulated_skills_json, &Value::Array(list).to_string());
        Ok(())
    }
}

ffi_fn! {
    /// `turn/interrupt`: stop the running turn `turn_id` of thread `thread_id`. The turn then
    /// completes with status "interrupted" (a `turn/completed` notification).
    /// Blocking; thread: any, including inside callbacks.
    unsafe fn codex_client_turn_interrupt(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        turn_id: *const c_char,
        timeout_ms: u64,
    ) -> codex_status_t {
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let turn = req_str(turn_id, "turn_id")?;
        let (method, params) = TurnStream::interrupt_request(thread, turn);
        s.core().request_blocking_with(method, params, request_options(timeout_ms))?;
        Ok(())
    }
}

ffi_fn! {
    /// `turn/steer`: add the user message `text` to the running turn `expected_turn_id` of
    /// thread `thread_id` (fails with CODEX_STATUS_RPC_ERROR when that turn is not the active
    /// one). Blocking; thread: any, including inside callbacks.
    unsafe fn codex_client_turn_steer(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        expected_turn_id: *const c_char,
        text: *const c_char,
        timeout_ms: u64,
    ) -> codex_status_t {
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let turn = req_str(expected_turn_id, "expected_turn_id")?;
        let text = req_str(text, "text")?;
        let input = Input::text(text).to_value();
        let (method, params) = TurnStream::steer_request(thread, turn, input);
        s.core().request_blocking_with(method, params, request_options(timeout_ms))?;
        Ok(())
    }
}

ffi_fn! {
    /// Run a turn to its end within bounds: `turn/start` of `text` on thread `thread_id`
    /// (`params_json` as in `codex_client_turn_start`, may be NULL), then wait for its
    /// `turn/completed`. `timeout_ms` bounds the whole turn and `idle_ms` the silence between
    /// two of its events (0: no bound). Past either, the turn is interrupted and this returns
    /// CODEX_STATUS_TIMEOUT with a message naming the bound and the last event seen. The
    /// turn's events come to this call (the core's turn stream), not to the notification
    /// callback nor `codex_client_next_event`; its server requests go to the client's
    /// server-request callback, and are declined without one. `*result_json` (may be NULL)
    /// receives the core's view of the turn's result, `{"thread_id", "turn_id", "status",
    /// "final_response", "items", "usage", "diff", "error", "turn", "completed",
    /// "emulated_skills"}` — on a timeout too (what was gathered; status "interrupted" once
    /// the interrupt took effect); NULL when the turn did not start. Free it with
    /// `codex_string_free`. Blocking; thread: any except this client's callbacks. ABI 1.6.
    unsafe fn codex_client_turn_run(
        client: *mut codex_client_t,
        thread_id: *const c_char,
        text: *const c_char,
        params_json: *const c_char,
        timeout_ms: u64,
        idle_ms: u64,
        result_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(result_json);
        let s = shared(client)?;
        let thread = req_str(thread_id, "thread_id")?;
        let input = Input::text(req_str(text, "text")?);
        let extra = Value::Object(params_object(params_json, "params_json")?);
        let mut stream = codex_client::CodexClient::from_connection(s.core()).thread(thread).run_streamed_with(input, extra)?;
        let bound = |ms: u64| (ms > 0).then(|| std::time::Duration::from_millis(ms));
        let r = stream.finish_within(bound(timeout_ms), bound(idle_ms));
        let view = match &r {
            Ok(result) => result.to_json(),
            Err(_) => stream.result().to_json(),
        };
        put_string(result_json, &view.to_string());
        r?;
        Ok(())
    }
}
