//! Typed decoding of notifications and server requests (app-server and MCP).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| codex_client::fuzzing::typed(data));
