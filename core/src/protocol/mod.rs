//! Typed Codex app-server protocol (v2), generated from the JSON Schema that
//! `codex app-server generate-json-schema` writes.
//!
//! Everything in [`generated`](self) is produced by `tools/protocol-gen/gen.py` from the schema
//! vendored under `schema/codex-<version>/` (stable and `--experimental` dumps); regenerate with
//! `scripts/gen-protocol.sh`, and `scripts/check-generated.sh` (also run as a unit test) fails
//! when the committed code differs from a fresh generation. Nothing in it is hand-copied.
//!
//! # What is in here
//! - One Rust type per schema definition, in one namespace (`ThreadStartParams`,
//!   `ThreadStartResponse`, [`ThreadItem`], [`CommandExecutionApprovalDecision`], ...).
//! - [`methods`]: a zero-sized marker per client-to-server method implementing
//!   [`ClientMethod`] (`thread/start` -> [`methods::ThreadStart`], `thread/name/set` ->
//!   `methods::ThreadNameSet`), plus [`CLIENT_METHODS`] (`(name, experimental)`).
//! - [`ServerNotification`]: one variant per notification method + `Unknown`;
//!   [`ServerNotification::parse`] never fails. [`SERVER_NOTIFICATION_METHODS`] lists them.
//! - [`ServerRequestKind`]: the same for server-to-client requests; [`server_requests`] has a
//!   [`ServerRequestMethod`] marker per method, giving the response type to answer with.
//! - [`INITIALIZED_NOTIFICATION`], the only client-to-server notification.
//!
//! # Forward compatibility
//! Data from a newer server is never an error and never dropped:
//! - every struct has `#[serde(flatten)] pub extra: serde_json::Map<..>` holding unknown fields,
//!   which are written back on serialisation;
//! - every string enum has `Unknown(String)`; every union (tagged, externally tagged or
//!   untagged) has `Unknown(serde_json::Value)` carrying the full JSON;
//! - a union value with a *known* tag whose payload does not match the schema also becomes
//!   `Unknown(raw)` (logged with `tracing::debug!`) instead of failing the whole message: a
//!   schema drift in one item must not lose the notification that carries it;
//! - an unknown notification or server request method is `Unknown { method, params }`.
//!
//! # Wire rules
//! - Required fields are always serialised (a required-but-nullable `None` as `null`).
//! - Optional fields of types the client sends are omitted when `None`; optional nullable fields
//!   of types only the server sends are written back as `null`, so a received value re-serialises
//!   to the same JSON.
//! - Integers: `format: uint*` -> `u64`, every other integer -> `i64`; numbers -> `f64`.
//! - A tagged-union variant struct does not contain its tag field; the enum writes it.
//!
//! # Experimental API
//! Methods only in the `--experimental` schema have `ClientMethod::EXPERIMENTAL == true`; fields
//! only in it are reported by [`ExperimentalFields::experimental_fields_in_use`]. Both must only
//! be sent when the `experimentalApi` capability was negotiated; [`experimental_reason`] tells
//! what in a call needs it.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub mod drift;
mod generated;
pub mod mcp;

pub use generated::*;
// TEMPORARY: the hand stand-in for h/gen's generated window table (see its module doc).
mod window_standin;
pub use window_standin::{
    client_method_versions, notification_versions, server_request_versions, CODEX_WINDOW,
};

/// A client-to-server request method. Implemented by the zero-sized markers in [`methods`].
pub trait ClientMethod {
    /// The JSON-RPC method name, e.g. `"thread/start"`.
    const NAME: &'static str;
    /// `true` if the method exists only in the experimental schema (needs `experimentalApi`).
    const EXPERIMENTAL: bool;
    /// The `params` type ([`NoParams`] when the method takes none).
    type Params: Serialize + ExperimentalFields;
    /// The `result` type of a successful response.
    type Response: DeserializeOwned;
}

/// A server-to-client request method. Implemented by the markers in [`server_requests`].
pub trait ServerRequestMethod {
    /// The JSON-RPC method name, e.g. `"item/commandExecution/requestApproval"`.
    const NAME: &'static str;
    /// `true` if the server only sends it to clients that negotiated `experimentalApi`.
    const EXPERIMENTAL: bool;
    /// The `params` type.
    type Params: DeserializeOwned;
    /// The `result` type the client answers with.
    type Response: Serialize;
}

/// Reports fields of a value that exist only in the experimental schema.
///
/// Generated for every struct that has such fields and for every method params type (only the
/// top level of a params value is inspected).
pub trait ExperimentalFields {
    /// Wire names of the experimental-only fields that are set (`Some`) in this value.
    fn experimental_fields_in_use(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl<T: ExperimentalFields> ExperimentalFields for Option<T> {
    fn experimental_fields_in_use(&self) -> Vec<&'static str> {
        self.as_ref()
            .map(ExperimentalFields::experimental_fields_in_use)
            .unwrap_or_default()
    }
}

impl ExperimentalFields for serde_json::Value {}

/// Params of a method that takes none. Serialises as `{}`, which the server accepts for such
/// methods (as it does `null` or no `params`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoParams {}

impl ExperimentalFields for NoParams {}

/// What in a call of method `M` needs the `experimentalApi` capability, in the server's own
/// wording: `None` if nothing; `Some("<method>")` for an experimental method; otherwise
/// `Some("<method>.<field>[, ...]")` for experimental fields that are set.
pub fn experimental_reason<M: ClientMethod>(params: &M::Params) -> Option<String> {
    if M::EXPERIMENTAL {
        return Some(M::NAME.to_owned());
    }
    let fields = params.experimental_fields_in_use();
    if fields.is_empty() {
        return None;
    }
    Some(
        fields
            .iter()
            .map(|f| format!("{}.{f}", M::NAME))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// Looks up a client method by name: `Some(experimental)` if the schema knows it.
pub fn client_method_is_experimental(method: &str) -> Option<bool> {
    CLIENT_METHODS
        .binary_search_by(|(name, _)| (*name).cmp(method))
        .ok()
        .map(|i| CLIENT_METHODS[i].1)
}

/// Runtime helpers for the generated code.
/// Deserialize `json` into `T` and serialize it back (the round-trip property tests).
#[cfg(test)]
pub(crate) fn roundtrip<T: Serialize + serde::de::DeserializeOwned>(
    json: &str,
) -> std::result::Result<String, String> {
    let v: T = serde_json::from_str(json).map_err(|e| format!("does not deserialize: {e}"))?;
    serde_json::to_string(&v).map_err(|e| format!("does not serialize: {e}"))
}

mod rt {
    use serde::de::DeserializeOwned;
    use serde::ser::Error as _;
    use serde::{Serialize, Serializer};
    use serde_json::Value;

    /// Parses a union payload; a mismatch is logged and reported as `None` (-> `Unknown`).
    pub(crate) fn parse_variant<T: DeserializeOwned>(value: &Value, what: &str) -> Option<T> {
        match T::deserialize(value) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::debug!(variant = what, %err, "payload does not match the schema; kept raw as Unknown");
                None
            }
        }
    }

    /// Serialises `value` (an object) with `tag_key: tag` added.
    pub(crate) fn serialize_tagged<S: Serializer, T: Serialize>(
        serializer: S,
        tag_key: &str,
        tag: &str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let mut v = serde_json::to_value(value).map_err(S::Error::custom)?;
        if let Value::Object(map) = &mut v {
            map.insert(tag_key.to_owned(), Value::String(tag.to_owned()));
        }
        v.serialize(serializer)
    }

    /// Parses the params of a notification or server request; `None` (-> `Unknown`) on mismatch.
    pub(crate) fn parse_params<T: DeserializeOwned>(
        what: &str,
        method: &str,
        json: &str,
    ) -> Option<T> {
        match serde_json::from_str(json) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::debug!(kind = what, method, %err, "params do not match the schema; kept raw as Unknown");
                None
            }
        }
    }

    /// [`parse_params`] from a parsed value.
    pub(crate) fn params_from_value<T: DeserializeOwned>(
        what: &str,
        method: &str,
        value: &Value,
    ) -> Option<T> {
        match T::deserialize(value) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::debug!(kind = what, method, %err, "params do not match the schema; kept raw as Unknown");
                None
            }
        }
    }

    /// Params JSON as a value; text that is not JSON is kept as a JSON string.
    pub(crate) fn raw_params(json: &str) -> Value {
        serde_json::from_str(json).unwrap_or_else(|_| Value::String(json.to_owned()))
    }

    /// `serde_json::to_value` for generated types (which always serialise).
    pub(crate) fn to_value<T: Serialize>(v: &T) -> Value {
        serde_json::to_value(v).unwrap_or(Value::Null)
    }

    /// `Serialize`/`Deserialize` for a generated string enum (`as_str` / `From<&str>`).
    macro_rules! string_enum_serde {
        ($t:ident) => {
            impl Serialize for $t {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }

            impl<'de> Deserialize<'de> for $t {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let s = String::deserialize(deserializer)?;
                    Ok(Self::from(s.as_str()))
                }
            }
        };
    }
    pub(crate) use string_enum_serde;
}

#[cfg(test)]
mod tests;
