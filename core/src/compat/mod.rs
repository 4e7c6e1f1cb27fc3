//! The compatibility report: what the library does with the protocol of another Codex
//! version.
//!
//! [`report`] runs `codex app-server generate-json-schema` (and `--experimental`, when the
//! binary has it) and compares the schema with the one the library's types were generated from
//! (the newest Codex of the supported window, [`CODEX_WINDOW`](crate::protocol::CODEX_WINDOW),
//! embedded as `vendored-schema.json`: the vendored bundle reduced to its shape
//! by `tools/protocol-gen/gen.py`). Client methods, server notifications, server requests,
//! union variants, enum values and fields that were added, removed or changed are listed, each
//! with a [`Verdict`]: typed, kept raw, may fail, refused or unused.
//!
//! Shapes are compared as JSON values after dropping what is not shape (`description`,
//! `title`, `default`, `examples`, `$schema`), cutting `$ref`s to the definition name and sorting
//! `required`; key order never matters.
//!
//! ```no_run
//! let report = codex_client::compat::report(std::path::Path::new("codex"))?;
//! println!("{report}");                       // or report.to_json()
//! # Ok::<(), codex_client::Error>(())
//! ```

mod diff;
mod report;
mod run;
mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::protocol::{methods, ClientMethod};

pub use report::{Change, CompatReport, Difference, Section, Verdict};
use schema::{Schema, ENVELOPES};

/// How long [`report`] lets the binary run, in all.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The vendored side: the experimental bundle reduced to its shape, and its stable subset.
const VENDORED: &str = include_str!("vendored-schema.json");

/// Compares the protocol of the Codex binary `codex_binary` with the library's (blocking: it
/// runs the binary a few times, bounded by [`DEFAULT_TIMEOUT`]). Do not call it on an async
/// runtime's thread.
///
/// Errors: the binary cannot be run ([`Error::Transport`](crate::Error::Transport) naming what
/// to install), fails, times out ([`Error::Timeout`](crate::Error::Timeout)) or writes no schema.
pub fn report(codex_binary: &Path) -> crate::error::Result<CompatReport> {
    report_with_timeout(codex_binary, DEFAULT_TIMEOUT)
}

/// [`report`] with another bound on the binary's running time.
pub fn report_with_timeout(
    codex_binary: &Path,
    timeout: Duration,
) -> crate::error::Result<CompatReport> {
    let live = run::live_schema(codex_binary, timeout)?;
    let overrides = vendored_overrides();
    let experimental = live.experimental.is_some();
    let live_schema = match &live.experimental {
        Some(exp) => Schema::from_bundles(exp, Some(&live.stable), &overrides),
        None => Schema::from_bundles(&live.stable, None, &overrides),
    };
    Ok(CompatReport {
        codex_binary: codex_binary.display().to_string(),
        codex_version: live.version,
        library_version: crate::protocol::SCHEMA_CODEX_VERSION.to_owned(),
        experimental_compared: experimental,
        differences: diff::compare(&vendored(experimental), &live_schema, &helpers_calling),
    })
}

/// Where to get Codex, for error messages.
pub(crate) const INSTALL_HINT: &str =
    "install the Codex CLI (`npm install -g @openai/codex`, which puts `codex` on PATH) or pass the path of a codex binary";

/// The parsed [`VENDORED`] table (parsed once).
fn vendored_table() -> &'static Value {
    static TABLE: OnceLock<Value> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(VENDORED).expect("vendored-schema.json is generated JSON")
    })
}

fn vendored_overrides() -> Map<String, Value> {
    vendored_table()["response_overrides"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// The library's schema: the experimental API, or only the stable one.
fn vendored(experimental: bool) -> Schema {
    let table = vendored_table();
    let overrides = table["response_overrides"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let defs: BTreeMap<String, Value> = table["definitions"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let stable_methods: BTreeMap<&str, BTreeSet<String>> = ENVELOPES
        .iter()
        .map(|e| (*e, strings(&table["stable_methods"][*e]).collect()))
        .collect();
    if experimental {
        return Schema::from_defs(defs, Some(&stable_methods), &overrides);
    }
    let mut stable = BTreeMap::new();
    for name in strings(&table["stable_definitions"]) {
        let def = table["stable_differing"]
            .get(&name)
            .or_else(|| defs.get(&name));
        let Some(mut def) = def.cloned() else {
            continue;
        };
        if let (Some(keep), Some(alts)) = (
            stable_methods.get(name.as_str()),
            def.get_mut("oneOf").and_then(Value::as_array_mut),
        ) {
            alts.retain(|a| {
                schema::single_string(&a["properties"]["method"]).is_some_and(|m| keep.contains(&m))
            });
        }
        stable.insert(name, def);
    }
    Schema::from_defs(stable, None, &overrides)
}

fn strings(v: &Value) -> impl Iterator<Item = String> + '_ {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
}

/// Helpers beyond [`crate::Helper`] and the client methods they call.
const OTHER_HELPERS: [(&str, &str); 5] = [
    ("connect", methods::Initialize::NAME),
    ("run", methods::TurnStart::NAME),
    ("run_streamed", methods::TurnStart::NAME),
    ("interrupt", methods::TurnInterrupt::NAME),
    ("steer", methods::TurnSteer::NAME),
];

/// The library's helpers that call client method `method`.
fn helpers_calling(method: &str) -> Vec<&'static str> {
    let helpers = crate::codex::thread::Helper::ALL
        .iter()
        .map(|(n, h)| (*n, h.method()));
    helpers
        .chain(OTHER_HELPERS)
        .filter(|(_, m)| *m == method)
        .map(|(n, _)| n)
        .collect()
}

#[cfg(test)]
mod tests;
