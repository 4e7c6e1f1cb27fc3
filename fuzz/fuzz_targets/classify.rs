//! The message classifier and the id/route scanner, checked against serde.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| codex_client::fuzzing::classify_line(data));
