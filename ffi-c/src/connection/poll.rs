//! Poll mode: `codex_client_next_event` pulls the core's events (completions of
//! `codex_client_request` included, each carrying its userdata) and `codex_client_event_fd`
//! is the core's readiness descriptor.

use std::ffi::c_int;
use std::time::Duration;

use super::client::{codex_client_t, shared, ClientState};
use super::event::codex_event_t;
use crate::error::{codex_status_t, invalid_state, Fail};
use crate::handles;
use crate::strings::req_out;

/// The next event of a poll-mode client, waiting up to `timeout_ms` (negative: forever).
fn next_event(client: &ClientState, timeout_ms: i64) -> Result<Box<codex_event_t>, Fail> {
    if !client.is_poll() {
        return Err(invalid_state(
            "the client uses callback delivery; create it with \
             codex_options_set_delivery(o, CODEX_DELIVERY_POLL) to pull events",
        ));
    }
    let timeout = (timeout_ms >= 0).then(|| Duration::from_millis(timeout_ms as u64));
    loop {
        match client.core().next_event(timeout)? {
            Some(ev) => {
                if let Some(e) = codex_event_t::from_core(client.key, ev) {
                    return Ok(Box::new(e));
                }
                // A kind of event this binding does not know: skipped.
            }
            None => {
                return Err(Fail::Status(
                    codex_status_t::CODEX_STATUS_TIMEOUT,
                    format!("no event within {timeout_ms} ms"),
                ))
            }
        }
    }
}

ffi_fn! {
    /// Poll mode: wait up to `timeout_ms` (negative: forever, 0: do not wait) for the next event.
    /// On success `*event` receives it, owned by the program: free it with `codex_event_free`.
    ///
    /// Events come in arrival order; completions of `codex_client_request` (CODEX_EVENT_RESPONSE)
    /// are interleaved as they finish. Returns TIMEOUT (and `*event` = NULL) when nothing arrived
    /// in time; after the CODEX_EVENT_DISCONNECTED event of a connection the next call returns
    /// DISCONNECTED (or NOT_CONNECTED once disconnected), until the client connects again.
    /// Errors: INVALID_STATE on a callbacks-mode client.
    /// Thread: any (several threads may call it; each event goes to one of them). Never from a
    /// callback.
    unsafe fn codex_client_next_event(
        client: *mut codex_client_t,
        timeout_ms: i64,
        event: *mut *mut codex_event_t,
    ) -> codex_status_t {
        req_out(event, "event (out)")?;
        let s = shared(client)?;
        *event = handles::hand_out(next_event(&s, timeout_ms)?);
        Ok(())
    }
}

ffi_fn! {
    /// Poll mode: a file descriptor that is readable while events wait for
    /// `codex_client_next_event`, or -1 on error (the last error says why: INVALID_ARGUMENT for a
    /// NULL or freed client, INVALID_STATE on a callbacks-mode client).
    ///
    /// Watch it with poll/epoll/select or `enif_select` (`POLLIN`), then call
    /// `codex_client_next_event(client, 0, &ev)` until it returns CODEX_STATUS_TIMEOUT. It is
    /// level-triggered: it stays readable while an event waits; it is also readable once the
    /// connection has ended (next_event then reports it, and it stays readable until the next
    /// connect: stop watching it then) and may occasionally be readable with nothing to read
    /// (next_event returns TIMEOUT at once).
    ///
    /// Ownership: the client's; it stays the same across reconnects and is closed by
    /// `codex_client_free` (remove it from your poll set / `enif_select` before that). Never close
    /// it, read from it or write to it yourself. Thread: any.
    unsafe fn codex_client_event_fd(client: *const codex_client_t) -> c_int {
        let r = shared(client).and_then(|s| {
            if !s.is_poll() {
                return Err(invalid_state(
                    "codex_client_event_fd needs a client created with \
                     codex_options_set_delivery(o, CODEX_DELIVERY_POLL)",
                ));
            }
            Ok(s.core().event_fd()?)
        });
        crate::error::value_or(r, -1)
    } ?= -1
}
