//! The Codex app-server's [`Rules`]: JSON-RPC v2 without the `"jsonrpc"` member, overload
//! retried, no cancel notification, `initialized` after `initialize`, threads rejoined on a
//! reconnect, and `serverRequest/resolved` closing a server request. Also the rules of the
//! exec and `codex mcp-server` shims, which present the app-server's semantics.

use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;

use super::seam::{Link, Route, Rules};
use crate::error::Result;
use crate::message::request_id_param;

/// The app-server's rules (it has no per-connection state of its own yet).
#[derive(Debug, Default)]
pub(crate) struct AppServerRules;

/// The notification by which the server says it resolved a request of its own.
const SERVER_REQUEST_RESOLVED: &str = "serverRequest/resolved";

impl Rules for AppServerRules {
    fn jsonrpc_member(&self) -> bool {
        false
    }
    fn retries_overload(&self) -> bool {
        true
    }
    fn cancelled(&self, _id: i64, _reason: &str) -> Option<(&'static str, Box<RawValue>)> {
        None
    }
    fn check_handshake(&self, _result: &Value) -> Result<()> {
        Ok(())
    }
    fn initialized_method(&self) -> &'static str {
        super::INITIALIZED_NOTIFICATION
    }
    fn rejoins_threads(&self) -> bool {
        true
    }
    fn notified(&self, method: &str, params: &RawValue, link: &dyn Link) -> Route {
        if method == SERVER_REQUEST_RESOLVED {
            if let Some(id) = request_id_param(params) {
                link.request_withdrawn(&id);
            }
        }
        Route::Deliver
    }
    fn answers_itself(&self, _method: &str, _handled: bool) -> Option<Value> {
        None
    }
    fn progress_token(&self, _params: &RawValue) -> Option<String> {
        None
    }
    fn check_result(&self, _method: &str, _params: &RawValue, _result: &RawValue) -> Result<()> {
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
