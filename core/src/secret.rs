//! [`Secret`]: a string that never shows itself in `Debug`, `Display`, logs or errors. Kept
//! out of the `auth` module so that the options can hold secrets in every build (the
//! `mcp-http` cargo feature off too).

use serde::{Deserialize, Serialize};

/// A secret string (a token, a client secret): `Debug` and `Display` show `<redacted>`; the
/// value is read with [`expose`](Secret::expose) only where it goes on the wire.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wrap a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The value itself (for the wire and the token store only).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret(s.to_owned())
    }
}
