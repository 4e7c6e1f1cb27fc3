//! Arguments from Python as the core takes them: JSON text or Python objects as
//! `serde_json` values, request params as raw JSON, turn input as the core's `Input`. Each
//! refusal is an `InvalidArgumentError`.

use codex_client::Input;
use pyo3::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::errors::{simple, IntoPyResult};
use crate::json::{to_value, ToJsonError};

/// JSON text as a value (`InvalidArgumentError` when it is not JSON).
pub(crate) fn json_value(py: Python<'_>, text: &str) -> PyResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| simple(py, "InvalidArgumentError", format!("not valid JSON: {e}")))
}

/// A Python object as a JSON value (`InvalidArgumentError` naming what has no JSON form;
/// `what` prefixes the message when given).
pub(crate) fn py_to_value(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    what: Option<&str>,
) -> PyResult<Value> {
    to_value(v).map_err(|e| match e {
        ToJsonError::Py(e) => e,
        ToJsonError::Refused(m) => match what {
            Some(w) => simple(py, "InvalidArgumentError", format!("{w}: {m}")),
            None => simple(py, "InvalidArgumentError", m),
        },
    })
}

/// Request params as raw JSON (empty or `null`: `{}`).
pub(crate) fn raw_params(py: Python<'_>, params_json: &str) -> PyResult<Box<RawValue>> {
    let text = match params_json.trim() {
        "" | "null" => "{}".to_owned(),
        _ => params_json.to_owned(),
    };
    RawValue::from_string(text).map_err(|e| {
        simple(
            py,
            "InvalidArgumentError",
            format!("params are not valid JSON: {e}"),
        )
    })
}

/// Turn input (JSON: a string, an input item or a list of them) as the core's `Input`.
pub(crate) fn input(py: Python<'_>, input_json: &str) -> PyResult<Input> {
    Input::from_value(json_value(py, input_json)?).py(py)
}
