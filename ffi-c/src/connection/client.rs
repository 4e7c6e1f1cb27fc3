//! `codex_client_t`: a client's handle and its lifecycle (new, free, connect, disconnect,
//! state, the server's process and stderr), as an adapter over the core's protocol-neutral
//! connection (`codex_client::Client`). Both kinds of server use the same handle: the Codex
//! functions (`crate::codex`) and the MCP functions (`crate::mcp`) take it as it is.
//!
//! In callbacks mode the completions of `codex_client_request` travel through the core
//! attached to their request (`Client::send_request_with`) and come back to the core's
//! response handler (`Client::on_response`), which this file routes to the request's
//! callback. The binding keeps no thread, queue, descriptor, handler table, request table or
//! connection state of its own.

use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

use codex_client::{Client, Delivery, Error, HandlerSlot, RequestOptions};

use super::event::codex_event_t;
use crate::error::{codex_status_t, invalid_arg, Fail};
use crate::handles::{self, Handle, Kind, Table};
use crate::options::{self, codex_options_t};
use crate::strings::{clear_out, put_string, req_out};

/// A client of one server (a Codex app-server or an MCP server). Opaque handle: a token the
/// library checks on every call (a NULL, freed or foreign pointer gives
/// CODEX_STATUS_INVALID_ARGUMENT), never dereferenced.
///
/// Create with `codex_client_new`, free with `codex_client_free`. All functions taking a
/// client may be called from any thread, concurrently (except `codex_client_free`, which must
/// be the last call).
pub struct codex_client_t {
    _opaque: [u8; 0],
}

/// What a client handle stands for.
pub(crate) struct ClientState {
    /// Unique id of the client (its handle's serial, never reused), tying server-request
    /// handles to their client.
    pub(crate) key: u64,
    core: Client,
    /// The program's own client (`codex_client_new`): freeing it disconnects. A pool's
    /// endpoint or handler client belongs to the pool: freeing releases the handle only.
    owned: bool,
}

static CLIENTS: Table<ClientState> = Table::new();

impl Handle for codex_client_t {
    type Target = ClientState;
    const KIND: Kind = Kind::Client;
    const NOT_LIVE: &'static str = "is not a live client (already freed with codex_client_free?)";
    fn table() -> &'static Table<ClientState> {
        &CLIENTS
    }
}

/// Request options with a timeout in milliseconds (0: the client's default).
pub(crate) fn request_options(timeout_ms: u64) -> RequestOptions {
    if timeout_ms == 0 {
        RequestOptions::default()
    } else {
        RequestOptions::timeout(Duration::from_millis(timeout_ms))
    }
}

/// The client behind a handle: INVALID_ARGUMENT for NULL or a handle that is not a live
/// client (already freed, or never returned by `codex_client_new`).
pub(crate) fn shared(client: *const codex_client_t) -> Result<Arc<ClientState>, Fail> {
    handles::get(client, "client")
}

impl ClientState {
    /// The core's connection.
    pub(crate) fn core(&self) -> &Client {
        &self.core
    }

    /// The connection seen as a Codex client.
    pub(crate) fn codex(&self) -> &codex_client::CodexClient {
        codex_client::CodexClient::from_connection(&self.core)
    }

    /// Whether the client was created with poll delivery (`CODEX_DELIVERY_POLL`).
    pub(crate) fn is_poll(&self) -> bool {
        self.core.options().get_delivery() == Delivery::Poll
    }

    /// Callbacks mode: completions of `codex_client_request` run their request's callback.
    fn route_responses(&self) -> Result<(), Fail> {
        self.core.on_response(|r| {
            let (mut event, callback) = codex_event_t::response(r);
            if let Some(f) = callback {
                let userdata = event.userdata();
                // SAFETY: the program passed `f` with this request; the event lives for the
                // call.
                unsafe { f(userdata as *mut c_void, &mut event) };
            }
        })?;
        Ok(())
    }

    /// A handle on a connection the program does not own (a pool's endpoint or handler
    /// client): freeing it releases the handle only.
    pub(crate) fn borrowed(core: Client) -> Result<*mut codex_client_t, Fail> {
        handles::insert_with::<codex_client_t, Fail>(|key| {
            let state = ClientState {
                key,
                core,
                owned: false,
            };
            if !state.is_poll() {
                state.route_responses()?;
            }
            Ok(Arc::new(state))
        })
    }

    /// Free: end the connection (its in-flight completions run), then take every callback
    /// out of the core's table, so none runs afterwards even when this is called from a
    /// callback (whose thread the disconnect does not wait for).
    fn shutdown(&self) {
        if !self.owned {
            return;
        }
        self.core.disconnect();
        if !self.is_poll() {
            for slot in [
                HandlerSlot::Notification,
                HandlerSlot::ServerRequest,
                HandlerSlot::Connection,
                HandlerSlot::Response,
            ] {
                let _ = self.core.clear_handler(slot);
            }
        }
    }
}

ffi_fn! {
    /// Create a client (nothing is started until `codex_client_connect`).
    ///
    /// `opts`: NULL (all defaults) or an options object from `codex_options_new`. Its options
    /// are copied, so it may be freed (or changed for another client) when this returns; the
    /// caller keeps owning it. On success `*out` receives the client, owned by the program:
    /// free it with `codex_client_free`. Nothing runs yet: the library's shared runtime and
    /// dispatch threads start with the process's first `codex_client_connect` (and are then
    /// used by every client). Errors: INVALID_ARGUMENT (NULL `out`; `opts` not a live options object: freed,
    /// or not from `codex_options_new`, such as the options struct of a program built against
    /// the ABI 0 header - nothing is read through it and the message says so), TRANSPORT (no
    /// descriptor or thread). Thread: any.
    unsafe fn codex_client_new(
        opts: *const codex_options_t,
        out: *mut *mut codex_client_t,
    ) -> codex_status_t {
        req_out(out, "out")?;
        // `build` looks the options handle up in the registry; it never reads through it.
        let options = options::build(opts)?;
        *out = handles::insert_with::<codex_client_t, Fail>(|key| {
            let state = ClientState {
                key,
                core: Client::new(options),
                owned: true,
            };
            if !state.is_poll() {
                state.route_responses()?;
            }
            Ok(Arc::new(state))
        })?;
        Ok(())
    }
}

ffi_fn! {
    /// Free a client: disconnects first when connected (see `codex_client_disconnect`) and
    /// waits until its callbacks are done on its dispatch thread (so it waits for a callback that is running to return:
    /// a callback that never returns blocks this call; everything else it waits for is bounded). After it returns no callback of this client runs
    /// again and `client` is invalid: passing it to any function afterwards returns
    /// CODEX_STATUS_INVALID_ARGUMENT (freeing it twice is detected and ignored; the last error says
    /// so). Request handles taken earlier must still be freed with `codex_request_free` (they can
    /// no longer be answered). Events pulled earlier stay valid until `codex_event_free`. NULL is
    /// ignored.
    ///
    /// Call it last, once, when no other thread uses the client. Do not call it from one of this
    /// client's callbacks (it works, but the callback must not touch the client afterwards and
    /// completions still pending are dropped).
    unsafe fn codex_client_free(client: *mut codex_client_t) {
        if client.is_null() {
            return;
        }
        match handles::remove(client, "client") {
            Ok(state) => state.shutdown(),
            Err(_) => {
                crate::error::record(&invalid_arg(
                    "codex_client_free: not a live client (freed twice?); ignored",
                ));
            }
        }
    }
}

ffi_fn! {
    /// Spawn the server and run the `initialize` handshake (blocking). When `init_result_json`
    /// is not NULL it receives the server's `initialize` result as JSON text (free it with
    /// `codex_string_free`).
    ///
    /// A client can connect again after `codex_client_disconnect` or after its server died;
    /// callbacks stay registered. Errors: ALREADY_CONNECTED, TRANSPORT (spawn failed), TIMEOUT,
    /// DISCONNECTED (server exited during the handshake, message has its stderr), PROTOCOL.
    /// Thread: any, including inside callbacks.
    unsafe fn codex_client_connect(
        client: *mut codex_client_t,
        init_result_json: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(init_result_json);
        let s = shared(client)?;
        let init = s.core.connect()?;
        put_string(init_result_json, &init.raw.to_string());
        Ok(())
    }
}

ffi_fn! {
    /// End the connection: stops the server (closes its stdin, waits up to 500 ms, then kills
    /// its process group); every pending request fails with CODEX_STATUS_DISCONNECTED.
    ///
    /// Callbacks mode, called from any thread but the client's dispatch thread: returns after the
    /// running callback (if any) returned and after the completion callbacks of all in-flight
    /// async requests ran (with CODEX_STATUS_DISCONNECTED); no event callback of this
    /// connection runs afterwards. Called from inside a callback that runs on the client's own
    /// dispatch thread (a callback of this client, or of another client sharing its thread):
    /// the current callback is the last event callback; failed request completions are
    /// delivered after it returns. (Likewise when two callbacks on different dispatch threads
    /// disconnect each other's clients: the second does not wait for the first, so neither
    /// deadlocks.)
    /// Returns CODEX_STATUS_NOT_CONNECTED (harmless) when there was no connection to end, so a
    /// second disconnect is an error code, never a crash.
    unsafe fn codex_client_disconnect(client: *mut codex_client_t) -> codex_status_t {
        let s = shared(client)?;
        if s.core.end_connection() {
            Ok(())
        } else {
            Err(Fail::Core(Error::NotConnected))
        }
    }
}

ffi_fn! {
    /// Whether the client is connected (handshake done and server alive). False for NULL or a
    /// freed client. Thread: any, including inside callbacks. No pointers are kept.
    unsafe fn codex_client_is_connected(client: *const codex_client_t) -> bool {
        shared(client).is_ok_and(|s| s.core.is_connected())
    } ?= false
}

ffi_fn! {
    /// Whether the connection dropped and the client is reconnecting (with
    /// `codex_options_set_reconnect`); requests made now wait for the rejoin. False for NULL
    /// or a freed client. Thread: any, including inside callbacks. ABI 1.2.
    unsafe fn codex_client_is_reconnecting(client: *const codex_client_t) -> bool {
        shared(client).is_ok_and(|s| s.core.is_reconnecting())
    } ?= false
}

ffi_fn! {
    /// The process id of the server of the current connection, written to `*pid` (the caller's
    /// storage). Errors: NOT_CONNECTED, INVALID_ARGUMENT (NULL). Thread: any.
    unsafe fn codex_client_server_pid(
        client: *const codex_client_t,
        pid: *mut u32,
    ) -> codex_status_t {
        let s = shared(client)?;
        if pid.is_null() {
            return Err(invalid_arg("pid (out) is NULL"));
        }
        *pid = s.core.server_pid().ok_or(Error::NotConnected)?;
        Ok(())
    }
}

ffi_fn! {
    /// The last bytes the server wrote to stderr ("" when never connected). `*out` receives a
    /// string the program frees with `codex_string_free`. Thread: any.
    unsafe fn codex_client_stderr_tail(
        client: *const codex_client_t,
        out: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let s = shared(client)?;
        put_string(out, &s.core.stderr_tail());
        Ok(())
    }
}
