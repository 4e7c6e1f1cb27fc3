//! `subscriptions/listen` (MCP 2026-07-28) from C: the core's `Client::listen` as a
//! `codex_mcp_listen_t` handle (the acknowledged filter; freeing it closes the stream). The
//! filter's keys, the era check and the waiting are the core's; this file only converts.
//! ABI 1.9.

use std::ffi::{c_char, CString};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codex_client::mcp::Listen;
use serde_json::Value;

use crate::connection::client::{codex_client_t, shared};
use crate::error::codex_status_t;
use crate::handles::{self, Handle, Kind, Table};
use crate::strings::{opt_str, params_value, req_out};
use crate::util::{lock, to_cstring};

/// An open MCP subscription stream (opaque handle): from `codex_client_mcp_listen`, closed
/// and freed with `codex_mcp_listen_free`.
pub struct codex_mcp_listen_t {
    _opaque: [u8; 0],
}

/// A live stream: the core's handle (dropped, so the stream closed, when the handle is freed)
/// and the acknowledged filter as C text.
pub(crate) struct ListenEntry {
    listen: Mutex<Option<Listen>>,
    acknowledged: CString,
}

impl Drop for ListenEntry {
    fn drop(&mut self) {
        // Dropping the core's handle closes the stream (the server gets notifications/cancelled).
        lock(&self.listen).take();
    }
}

static LISTENS: Table<ListenEntry> = Table::new();

impl Handle for codex_mcp_listen_t {
    type Target = ListenEntry;
    const KIND: Kind = Kind::Listen;
    const NOT_LIVE: &'static str =
        "is not a live subscription handle (already freed with codex_mcp_listen_free?)";
    fn table() -> &'static Table<ListenEntry> {
        &LISTENS
    }
}

ffi_fn! {
    /// MCP 2026-07-28 `subscriptions/listen`: open a subscription stream on the MCP server
    /// `client` is connected to and wait until the server acknowledged it, at most
    /// `timeout_ms` (0: the client's default timeout). `filter_json` (NULL: `{}`) is a JSON
    /// object of what to receive: `{"toolsListChanged":true, "promptsListChanged":true,
    /// "resourcesListChanged":true, "resourceSubscriptions":["<uri>",...]}` (the snake_case
    /// names `tools_list_changed`, ... are accepted too). While the stream is open, the
    /// notifications it brings (`notifications/tools/list_changed`,
    /// `notifications/resources/updated`, ...) are ordinary CODEX_EVENT_NOTIFICATION events
    /// (callbacks or poll mode, as any notification). On success `*listen` receives the
    /// stream's handle (on failure NULL): read the filter the server honours with
    /// `codex_mcp_listen_acknowledged`, close the stream with `codex_mcp_listen_free`.
    /// Errors: INVALID_ARGUMENT (NULL `listen`, `filter_json` not JSON or a filter the library
    /// refuses: an unknown key, a wrong type; the message says which), UNSUPPORTED in the
    /// handshake era (MCP 2025-11-25 and older: use `resources/subscribe` and the
    /// list-changed notifications there), TIMEOUT without an acknowledgment, NOT_CONNECTED.
    /// Blocking (bounded by `timeout_ms`); thread: any except a callback of this client.
    /// ABI 1.9.
    unsafe fn codex_client_mcp_listen(
        client: *mut codex_client_t,
        filter_json: *const c_char,
        timeout_ms: u64,
        listen: *mut *mut codex_mcp_listen_t,
    ) -> codex_status_t {
        req_out(listen, "listen (out)")?;
        let s = shared(client)?;
        let filter = params_value(opt_str(filter_json, "filter_json")?, "filter_json", Value::Null)?;
        let within = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms));
        let l = codex_client::McpClient::from_connection(s.core()).listen_blocking(filter, within)?;
        let entry = ListenEntry {
            acknowledged: to_cstring(&l.acknowledged().to_string()),
            listen: Mutex::new(Some(l)),
        };
        *listen = handles::insert::<codex_mcp_listen_t>(Arc::new(entry));
        Ok(())
    }
}

ffi_fn! {
    /// The filter the server acknowledged for the stream `listen` (JSON text, the subset of
    /// the requested filter it honours, e.g. `{"toolsListChanged":true}`), or NULL for a NULL
    /// or freed handle. Ownership: the library's, valid until `codex_mcp_listen_free`; never
    /// free it. Thread: any. ABI 1.9.
    unsafe fn codex_mcp_listen_acknowledged(listen: *const codex_mcp_listen_t) -> *const c_char {
        handles::find(listen).map_or(std::ptr::null(), |e| e.acknowledged.as_ptr())
    } ?= std::ptr::null()
}

ffi_fn! {
    /// Close the subscription stream `listen` (the server is sent `notifications/cancelled`;
    /// notifications already on their way may still be delivered) and free the handle; the
    /// string of `codex_mcp_listen_acknowledged` is freed with it. The connection goes on.
    /// NULL and freed handles are ignored. Not blocking; thread: any, including a callback
    /// of its client. ABI 1.9.
    unsafe fn codex_mcp_listen_free(listen: *mut codex_mcp_listen_t) {
        if !listen.is_null() {
            let e = handles::remove::<codex_mcp_listen_t>(listen, "listen");
            drop(e);
        }
    }
}
