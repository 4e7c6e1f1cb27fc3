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

/// Refuse a file of secrets (`what`: "token file", "shared secret file") that its group or
/// others may read, write or run (any bit of `0o077` in its mode): the message names the
/// file and its mode, never its content.
pub(crate) fn refuse_shared_mode(
    path: &std::path::Path,
    meta: &std::fs::Metadata,
    what: &str,
) -> crate::error::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if meta.mode() & 0o077 != 0 {
        return Err(crate::error::Error::InvalidArgument(format!(
            "{what} {} is readable by others (mode {:o}); refusing to use it (chmod 600 it)",
            path.display(),
            meta.mode() & 0o777
        )));
    }
    Ok(())
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
