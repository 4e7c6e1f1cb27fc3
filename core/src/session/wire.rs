//! Tracing the raw lines of a connection (option `trace_wire`, or `CODEXCLIENT_LOG=trace`):
//! every line in and out at TRACE under target `codex_client::wire`, with secrets redacted.

use serde_json::Value;

/// Member names whose string values are never logged (matched without case, `_` and `-`).
const SECRET_NAMES: &[&str] = &[
    "token",
    "apikey",
    "secret",
    "password",
    "authorization",
    "cookie",
    "codeverifier",
    "credential",
    "privatekey",
];

fn is_secret(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_NAMES.iter().any(|s| n.contains(s)) || n == "code"
}

/// Replace the values of secret members (at any depth) with `"<redacted>"`.
fn redact(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if is_secret(k) && !x.is_null() {
                    *x = Value::from("<redacted>");
                } else {
                    redact(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact),
        _ => {}
    }
}

/// The line as it may be logged: JSON with secrets redacted; anything else only its length.
pub(crate) fn redacted(line: &[u8]) -> String {
    match serde_json::from_slice::<Value>(line) {
        Ok(mut v) => {
            redact(&mut v);
            v.to_string()
        }
        Err(_) => format!("<{} bytes, not JSON>", line.len()),
    }
}

/// Log one line (`dir`: `"<-"` from the server, `"->"` to it).
pub(crate) fn log(dir: &'static str, line: &[u8]) {
    tracing::trace!(target: "codex_client::wire", "{dir} {}", redacted(line));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let line = br#"{"method":"account/login/start","params":{"type":"apiKey","apiKey":"sk-1","nested":[{"access_token":"t","refreshToken":"r","code_verifier":"v","code":"c","client-secret":"s"}],"text":"keep"}}"#;
        let out = redacted(line);
        for s in ["sk-1", "\"t\"", "\"r\"", "\"v\"", "\"c\"", "\"s\""] {
            assert!(!out.contains(s), "{s} in {out}");
        }
        assert!(out.contains("keep") && out.contains("apiKey"), "{out}");
        assert_eq!(redacted(b"Bearer sk-raw"), "<13 bytes, not JSON>");
    }
}
