//! The compatibility report (`python -m codexclient compat`): computed by the core's
//! `codex_client::compat::report`, handed to Python as text and JSON.

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::errors::IntoPyResult;

/// The compatibility report of the Codex binary `codex` (default: `codex` on `PATH`) against
/// the library's schema: `(text, json, identical)`. Blocks (without the GIL) while the binary
/// runs.
#[pyfunction]
#[pyo3(signature = (codex = None))]
pub fn compat_report(py: Python<'_>, codex: Option<PathBuf>) -> PyResult<(String, String, bool)> {
    let codex = codex.unwrap_or_else(|| PathBuf::from("codex"));
    let report = py.detach(|| codex_client::compat::report(&codex)).py(py)?;
    let json = report.to_json().to_string();
    Ok((report.to_string(), json, report.is_identical()))
}
