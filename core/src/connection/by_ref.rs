//! Answering a server request by reference (issue 40): a [`RequestRef`] that came back from
//! another process (a serialised [`ServerRequest`], C's JSON form, a Python pickle) is
//! looked up on the client that owns it, by owner, connection and id, and answered once.

use serde_json::Value;

use super::Client;
use crate::error::{DisconnectInfo, Error, Result, RpcError};
use crate::event::{Decision, RequestRef, ServerRequest};

impl Client {
    /// A live handle of the open server request `r` names, on this client: answer it with any
    /// of [`ServerRequest`]'s methods (once: a second answer is
    /// [`Error::AlreadyResponded`]). The errors say what is wrong:
    /// - [`Error::InvalidArgument`]: `r` belongs to another client (both ids and labels
    ///   named), or names another method than the request of that id.
    /// - [`Error::ConnectionLost`]: its connection was lost and the client reconnected (or is
    ///   reconnecting): the server asks again for the requests it still needs.
    /// - [`Error::Disconnected`]: its connection has ended (disconnected, or connected again
    ///   since).
    /// - [`Error::AlreadyResponded`]: it was answered (through any handle, or by reference),
    ///   answered fail-closed at its bound (option `parked_request_timeout`), or resolved by
    ///   the server (`serverRequest/resolved`).
    pub fn request_by_ref(&self, r: &RequestRef) -> Result<ServerRequest> {
        if r.owner != self.id() {
            let named = |id: &str, label: Option<&str>| match label {
                Some(l) => format!("client {id} (`{l}`)"),
                None => format!("client {id}"),
            };
            return Err(Error::InvalidArgument(format!(
                "server request `{}` (id {}) belongs to {}, not to this {}: answer it through \
                 the client that received it",
                r.method,
                r.id,
                named(&r.owner, r.endpoint.as_deref()),
                named(self.id(), self.label()),
            )));
        }
        let session = self.session().ok_or_else(|| {
            Error::Disconnected(DisconnectInfo::new(
                format!(
                    "server request `{}` (id {}) came on connection {} of this client, which \
                     has ended: the client is not connected",
                    r.method, r.id, r.connection
                ),
                "",
            ))
        })?;
        session.request_by_ref(r)
    }

    /// Answer the server request `r` names with `result` (see
    /// [`request_by_ref`](Self::request_by_ref) for the errors; an accepted MCP
    /// `elicitation/create` gets its schema's defaults, as [`ServerRequest::respond`]).
    /// Thread: any; now or later.
    pub fn respond_ref(&self, r: &RequestRef, result: &Value) -> Result<()> {
        self.request_by_ref(r)?.respond(result)
    }

    /// [`respond_ref`](Self::respond_ref) with the reference and the result as JSON text (the
    /// reference as [`RequestRef::to_json`] writes it, or a serialised [`ServerRequest`]).
    pub fn respond_ref_json(&self, ref_json: &str, result_json: &str) -> Result<()> {
        let r = RequestRef::from_json(ref_json)?;
        self.request_by_ref(&r)?.respond_json(result_json)
    }

    /// Answer the server request `r` names with a JSON-RPC error (errors as
    /// [`request_by_ref`](Self::request_by_ref)).
    pub fn respond_ref_error(&self, r: &RequestRef, error: &RpcError) -> Result<()> {
        self.request_by_ref(r)?.respond_error(error)
    }

    /// Answer the approval `r` names with `decision`, worded for its method (v1 or v2; errors
    /// as [`request_by_ref`](Self::request_by_ref)).
    pub fn respond_ref_decision(&self, r: &RequestRef, decision: Decision) -> Result<()> {
        self.request_by_ref(r)?.respond_decision(decision)
    }
}
