//! Callbacks mode: the program's callbacks (`codex_client_register_callback`) registered
//! into the core's handler table (`Client::on_notification`, `on_server_request`,
//! `on_connection_event`); each runs on the core's dispatch thread with a borrowed
//! `codex_event_t`.

use std::ffi::c_void;

use codex_client::HandlerSlot;

use super::client::{codex_client_t, shared, ClientState};
use super::event::{codex_callback_t, codex_event_t};
use crate::error::{codex_status_t, invalid_arg, invalid_state, Fail};

/// Which callback `codex_client_register_callback` sets.
pub type codex_callback_kind_t = u32;

/// Server notifications (`CODEX_EVENT_NOTIFICATION` events).
pub const CODEX_CALLBACK_NOTIFICATION: codex_callback_kind_t = 1;

/// Server requests (`CODEX_EVENT_SERVER_REQUEST` events). Without one, every server request
/// is answered fail-closed: approvals are declined.
pub const CODEX_CALLBACK_SERVER_REQUEST: codex_callback_kind_t = 2;

/// Connection reports: `CODEX_EVENT_ERROR`, `CODEX_EVENT_OVERFLOW`, `CODEX_EVENT_DISCONNECTED`,
/// `CODEX_EVENT_RECONNECTING`, `CODEX_EVENT_RECONNECTED`.
pub const CODEX_CALLBACK_CONNECTION: codex_callback_kind_t = 3;

/// Register (or with `None`, remove) the program's callback of one kind in the core's
/// handler table.
fn set_callback(
    client: &ClientState,
    kind: codex_callback_kind_t,
    callback: codex_callback_t,
    userdata: usize,
) -> Result<(), Fail> {
    let slot = match kind {
        CODEX_CALLBACK_NOTIFICATION => HandlerSlot::Notification,
        CODEX_CALLBACK_SERVER_REQUEST => HandlerSlot::ServerRequest,
        CODEX_CALLBACK_CONNECTION => HandlerSlot::Connection,
        k => return Err(invalid_arg(format!("unknown callback kind {k}"))),
    };
    let Some(f) = callback else {
        client.core().clear_handler(slot)?;
        return Ok(());
    };
    // SAFETY (each call of `f` below): the program registered `f` with `userdata` for
    // this client; the event lives for the call.
    match slot {
        HandlerSlot::Notification => client.core().on_notification(move |n| {
            codex_event_t::with_notification(n, |ev| unsafe { f(userdata as *mut c_void, ev) })
        })?,
        HandlerSlot::ServerRequest => {
            let owner = client.key;
            client.core().on_server_request(move |r| {
                // Dropped after the call: an untaken, unanswered request answers
                // fail-closed.
                let mut ev = codex_event_t::server_request(owner, r);
                unsafe { f(userdata as *mut c_void, &mut ev) }
            })?
        }
        _ => client.core().on_connection_event(move |c| {
            let mut ev = codex_event_t::connection(c.clone());
            unsafe { f(userdata as *mut c_void, &mut ev) }
        })?,
    }
    Ok(())
}

ffi_fn! {
    /// Set (or with a NULL `callback`, remove) the callback of one kind:
    /// `CODEX_CALLBACK_NOTIFICATION`, `CODEX_CALLBACK_SERVER_REQUEST` or
    /// `CODEX_CALLBACK_CONNECTION`. `userdata` is passed back unchanged.
    ///
    /// Every callback of a client runs on the client's one dispatch thread (a library-owned
    /// thread, never the caller's), one at a time, in arrival order. The thread may be shared
    /// with other clients (a small fixed pool): a callback that blocks holds up the other
    /// clients on that thread (`codex_options_set_dedicated_dispatch_thread` gives a client a
    /// thread of its own). Callbacks may call any
    /// function of this library, including blocking calls (`codex_client_call`) and
    /// `codex_client_disconnect`, except `codex_client_next_event`.
    /// Errors: INVALID_STATE on a poll-mode client, INVALID_ARGUMENT for an unknown kind.
    /// Thread: any; takes effect for the next event.
    unsafe fn codex_client_register_callback(
        client: *mut codex_client_t,
        kind: codex_callback_kind_t,
        callback: codex_callback_t,
        userdata: *mut c_void,
    ) -> codex_status_t {
        let s = shared(client)?;
        if s.is_poll() {
            return Err(invalid_state(
                "the client uses poll delivery (CODEX_DELIVERY_POLL); callbacks cannot be \
                 registered: pull events with codex_client_next_event",
            ));
        }
        set_callback(&s, kind, callback, userdata as usize)
    }
}
