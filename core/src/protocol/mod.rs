//! Typed Codex app-server protocol (v2), generated from the JSON Schemas that
//! `codex app-server generate-json-schema` writes, for every Codex of the supported window.
//!
//! Everything in [`generated`](self) is produced by `tools/protocol-gen/gen.py` from the schemas
//! vendored under `schema/codex-<version>/` (stable and `--experimental` dumps) for each version
//! of [`CODEX_WINDOW`]; regenerate with `scripts/gen-protocol.sh`, and
//! `scripts/check-generated.sh` (also run as a unit test) fails when the committed code differs
//! from a fresh generation. Nothing in it is hand-copied.
//!
//! # What is in here
//! - One Rust type per schema definition, in one namespace (`ThreadStartParams`,
//!   `ThreadStartResponse`, [`ThreadItem`], [`CommandExecutionApprovalDecision`], ...).
//! - [`methods`]: a zero-sized marker per client-to-server method implementing
//!   [`ClientMethod`] (`thread/start` -> [`methods::ThreadStart`], `thread/name/set` ->
//!   `methods::ThreadNameSet`), plus [`CLIENT_METHODS`] (`(name, experimental)`), and
//!   [`ClientResponse`]: a method's result typed by method name.
//! - [`ServerNotification`]: one variant per notification method + `Unknown`;
//!   [`ServerNotification::parse`] never fails. [`SERVER_NOTIFICATION_METHODS`] lists them.
//! - [`ServerRequestKind`]: the same for server-to-client requests; [`server_requests`] has a
//!   [`ServerRequestMethod`] marker per method, giving the response type to answer with.
//! - [`INITIALIZED_NOTIFICATION`], the only client-to-server notification.
//! - The window: [`CODEX_WINDOW`] (ascending) and, per method, the versions that have it:
//!   [`client_method_versions`], [`notification_versions`], [`server_request_versions`].
//!
//! # One protocol for the whole window
//! The generator merges the schemas of every version of the window (`tools/protocol-gen/merge.py`)
//! and generates the union, so that whatever any of these versions sends decodes:
//! - a definition of any version is generated (one removed upstream stays, e.g.
//!   `CurrentTimeReadParams`); a method, notification or server request of any version is typed;
//! - a field is required only if every version that has the type requires it (a field one
//!   version lacks, such as `Project.position` removed in 0.171.0, is an `Option`);
//! - enum values and union variants are the union of every version's;
//! - a shape that changed kind becomes an untagged union of both shapes, the newest first
//!   ([`AgentMessageDisplay`]: `Mode` is 0.171.0's union tagged by `mode`, `Action` 0.169.0's
//!   object);
//! - fields declared inside inline alternatives ("either `fileId` or `result`") are optional
//!   fields of the struct, never left in `extra`;
//! - experimental: a method, variant or field is experimental only if no version of the window
//!   has it in its stable schema (so one promoted to stable in a newer version is stable; an
//!   older server that still has it as experimental answers with its own error if
//!   `experimentalApi` was not negotiated).
//!
//! # Forward compatibility
//! Data from a newer server is never an error and never dropped, and drift loses no more than
//! the part that drifted:
//! - every struct has `#[serde(flatten)] pub extra: serde_json::Map<..>` holding unknown fields,
//!   which are written back on serialisation;
//! - every string enum has `Unknown(String)`, every integer enum `Unknown(i64)`; every union
//!   (tagged, externally tagged or untagged) has `Unknown(serde_json::Value)` carrying the full
//!   JSON;
//! - a union value with a *known* tag whose payload does not match the schema also becomes
//!   `Unknown(raw)` (logged with `tracing::debug!`) instead of failing the whole message: a
//!   schema drift in one item must not lose the notification that carries it; as every union
//!   field falls back on its own, a nested mismatch is `Unknown(raw)` at the smallest enclosing
//!   union (a display inside an agent message, not the message);
//! - an untagged union takes the first alternative that matches without any drift at any depth
//!   (no nested `Unknown`, nothing left in an `extra` map), else the alternative with the least
//!   drift whose discriminators (single-value fields such as `type: "string"`, and the enum of a
//!   `type`, `kind` or `mode` field) all matched, else
//!   `Unknown`; an alternative that is itself a union only matches with a known value, so a
//!   never-failing inner union cannot swallow the alternatives after it;
//! - an unknown notification or server request method is `Unknown { method, params }`;
//! - every fallback is reported to [`drift`] (`Unknown` values and `extra` fields, by type name).
//!
//! # Mapping rules
//! Object -> struct (fields snake_case, `Default` when nothing is required); a map schema ->
//! `BTreeMap<String, T>`; string enum -> enum + `Unknown(String)`; integer enum (`enum: [1]`)
//! -> enum + `Unknown(i64)`; boolean enum -> `bool`; `const` -> a one-value enum; a union of
//! objects sharing a single-value property (`type`, `method`, `mode`, ...) -> tagged enum;
//! strings and single-key objects -> externally tagged enum; any other union -> untagged enum;
//! `anyOf [X, null]` / `type: [X, "null"]` -> `Option<X>`; `format: uint*` -> `u64`, other
//! integers -> `i64`, numbers -> `f64`; direct recursion is broken with `Box`.
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

    /// Parses the params of a notification or server request (or a method's result) of a known
    /// method; `None` (-> `Unknown`, reported to the drift hook under `what`) on mismatch.
    pub(crate) fn parse_params<T: DeserializeOwned>(
        what: &'static str,
        method: &str,
        json: &str,
    ) -> Option<T> {
        match serde_json::from_str(json) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::debug!(kind = what, method, %err, "params do not match the schema; kept raw as Unknown");
                super::drift::unknown(what, &raw_params(json));
                None
            }
        }
    }

    /// [`parse_params`] from a parsed value.
    pub(crate) fn params_from_value<T: DeserializeOwned>(
        what: &'static str,
        method: &str,
        value: &Value,
    ) -> Option<T> {
        match T::deserialize(value) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::debug!(kind = what, method, %err, "params do not match the schema; kept raw as Unknown");
                super::drift::unknown(what, value);
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

    /// A generated struct's name for the drift hook, and the tag field a tagged union writes
    /// and reads for it (not an extra field of the payload).
    pub(crate) trait Named {
        /// The type (schema definition) name reported to [`super::drift`].
        const NAME: &'static str;
        /// The tag key when the struct is the payload of a tagged union variant.
        const TAG: Option<&'static str> = None;
    }

    /// Deserializes a struct's flattened `extra` map and reports it to
    /// [`super::drift::extra_fields`] (the tag of a tagged-union payload removed first).
    pub(crate) fn extra<'de, T: Named, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<serde_json::Map<String, Value>, D::Error> {
        let mut extra =
            <serde_json::Map<String, Value> as serde::Deserialize>::deserialize(deserializer)?;
        if let Some(tag) = T::TAG {
            extra.remove(tag);
        }
        super::drift::extra_fields(T::NAME, &extra);
        Ok(extra)
    }

    /// Whether a decoded union or enum value is a known one (not its `Unknown` fallback).
    pub(crate) trait Known {
        /// `false` for the `Unknown` fallback.
        fn is_known(&self) -> bool;
    }

    impl<T: Known> Known for Box<T> {
        fn is_known(&self) -> bool {
            (**self).is_known()
        }
    }

    impl<T: Known> Known for Option<T> {
        fn is_known(&self) -> bool {
            self.as_ref().is_none_or(Known::is_known)
        }
    }

    /// One alternative of an untagged union: `value` as a `T`, if it decodes.
    pub(crate) fn alt<T: DeserializeOwned>(value: &Value) -> Option<T> {
        T::deserialize(value).ok()
    }

    /// One alternative of an untagged union that is itself a union or enum: only a known value
    /// counts (its `Unknown` fallback means "not this alternative", so that a never-failing
    /// inner union cannot swallow the alternatives after it).
    pub(crate) fn alt_known<T: DeserializeOwned + Known>(value: &Value) -> Option<T> {
        T::deserialize(value).ok().filter(Known::is_known)
    }

    /// Decodes an untagged union: the first alternative that matches without any drift at any
    /// depth (no nested `Unknown`, nothing in an `extra` map); else the one with the least drift
    /// whose discriminators all matched (decoded again outside the trial, so that its drift is
    /// reported once); else `None` (the caller keeps `Unknown(raw)`).
    pub(crate) fn untagged<T>(value: &Value, alts: &[fn(&Value) -> Option<T>]) -> Option<T> {
        let mut best: Option<(usize, u32)> = None;
        for (i, alt) in alts.iter().enumerate() {
            let (got, drift) = super::drift::trial(|| alt(value));
            if got.is_none() || drift >= super::drift::DISQUALIFIED {
                continue;
            }
            if drift == 0 {
                return got;
            }
            if best.is_none_or(|(_, d)| drift < d) {
                best = Some((i, drift));
            }
        }
        best.and_then(|(i, _)| alts[i](value))
    }

    /// `Serialize`/`Deserialize` for a generated string enum (`as_str` / `From<&str>`); an
    /// unknown value is reported to the drift hook `$hook` under `$name`.
    macro_rules! string_enum_serde {
        ($t:ident, $name:literal, $hook:ident) => {
            impl Serialize for $t {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }

            impl<'de> Deserialize<'de> for $t {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let s = String::deserialize(deserializer)?;
                    let v = Self::from(s.as_str());
                    if let Self::Unknown(_) = &v {
                        super::drift::$hook($name, &serde_json::Value::String(s));
                    }
                    Ok(v)
                }
            }
        };
    }
    pub(crate) use string_enum_serde;

    /// `Serialize`/`Deserialize` for a generated integer enum (`as_i64` / `From<i64>`); an
    /// unknown value is reported to the drift hook under `$name`.
    #[allow(unused_macros)]
    macro_rules! int_enum_serde {
        ($t:ident, $name:literal) => {
            impl Serialize for $t {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_i64(self.as_i64())
                }
            }

            impl<'de> Deserialize<'de> for $t {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let n = i64::deserialize(deserializer)?;
                    let v = Self::from(n);
                    if let Self::Unknown(_) = &v {
                        super::drift::unknown($name, &serde_json::Value::from(n));
                    }
                    Ok(v)
                }
            }
        };
    }
    #[allow(unused_imports)]
    pub(crate) use int_enum_serde;
}

#[cfg(test)]
mod tests;

/// The window property test: random schema-valid instances of every vendored version.
#[cfg(test)]
mod window_tests;
