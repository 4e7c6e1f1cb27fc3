//! TEMPORARY STAND-IN for the window table `tools/protocol-gen` generates (branch h/gen):
//! the same four items with the same signatures, from a small hand table (the 0.169.0 method
//! lists for every window version, plus the methods 0.171.0 added and the one it removed).
//! Deleted when the generated table is merged; nothing but [`crate::version`] reads it.

/// Every Codex version of the supported window, ascending.
pub const CODEX_WINDOW: &[&str] = &[
    "0.163.0", "0.164.0", "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0", "0.171.0",
];

const ALL: &[&str] = CODEX_WINDOW;
const NEWEST_ONLY: &[&str] = &["0.171.0"];
const BEFORE_NEWEST: &[&str] = &[
    "0.163.0", "0.164.0", "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0",
];

/// The window versions that have client method `method` (`None`: no window version has it).
pub fn client_method_versions(method: &str) -> Option<&'static [&'static str]> {
    match method {
        "thread/search/stream"
        | "thread/search/cancel"
        | "thread/search/stream/cancel"
        | "thread/realtime/list"
        | "modelProvider/default/set" => Some(NEWEST_ONLY),
        m if super::CLIENT_METHODS.iter().any(|(n, _)| *n == m) => Some(ALL),
        _ => None,
    }
}

/// The window versions that send notification `method`.
pub fn notification_versions(method: &str) -> Option<&'static [&'static str]> {
    match method {
        "thread/search/partial" => Some(NEWEST_ONLY),
        m if super::SERVER_NOTIFICATION_METHODS.contains(&m) => Some(ALL),
        _ => None,
    }
}

/// The window versions that send server request `method`.
pub fn server_request_versions(method: &str) -> Option<&'static [&'static str]> {
    match method {
        "currentTime/read" => Some(BEFORE_NEWEST),
        m if super::SERVER_REQUEST_METHODS.iter().any(|(n, _)| *n == m) => Some(ALL),
        _ => None,
    }
}
