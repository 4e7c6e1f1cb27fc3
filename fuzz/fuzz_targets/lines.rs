//! The stdio line reader: arbitrary bytes, read in chunks of varying size, with a small cap.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let buf_size = 1 + data[0] as usize % 64;
    let cap = 1 + data[1] as usize * 4;
    codex_client::fuzzing::lines(&data[2..], buf_size, cap);
});
