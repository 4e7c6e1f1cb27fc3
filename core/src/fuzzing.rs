//! Entry points for the fuzz targets in `fuzz/` (cargo feature `fuzzing`; not a public API):
//! the crate-private decoder pieces, each checking its own invariants and panicking when one
//! breaks, so that the fuzzer reports it.

use serde_json::value::RawValue;

use crate::message::{classify, request_id_param, Classified, Incoming};
use crate::transport::lines::{read_line, LineRead};

/// Frame `data` into lines with the stdio reader (buffer `buf_size` bytes, so the input is
/// read in chunks of that size; cap `cap` bytes per line), checking that every line is within
/// the cap and free of newlines, and that kept and skipped bytes add up to the input.
pub fn lines(data: &[u8], buf_size: usize, cap: usize) {
    let cap = cap.max(1);
    let mut reader = tokio::io::BufReader::with_capacity(buf_size.max(1), data);
    let mut buf = Vec::new();
    let mut accounted = 0usize;
    loop {
        match futures_executor::block_on(read_line(&mut reader, &mut buf, cap)).unwrap() {
            LineRead::Eof => break,
            LineRead::Line => {
                assert!(buf.len() <= cap, "line over the cap");
                assert!(!buf.contains(&b'\n'), "newline inside a line");
                accounted += buf.len();
            }
            LineRead::TooLong(n) => {
                assert!(n > cap, "skipped a line within the cap");
                accounted += n;
            }
        }
        assert!(
            buf.capacity() <= cap.max(64) * 2 + 64,
            "line buffer grew past the cap"
        );
    }
    let newlines = data.iter().filter(|b| **b == b'\n').count();
    let crs = data.windows(2).filter(|w| w == b"\r\n").count();
    // Every byte is a kept byte, a skipped byte, a newline or a CR dropped before one.
    assert!(accounted + newlines <= data.len());
    assert!(accounted + newlines + crs >= data.len());
}

/// Parse and classify one line as the reader does, scan its ids, and compare the fast id
/// scanner with serde's answer.
pub fn classify_line(line: &[u8]) {
    check_note_line(line);
    let Ok(msg) = serde_json::from_slice::<Incoming<'_>>(line) else {
        return;
    };
    let Ok(classified) = classify(msg) else {
        return;
    };
    let params = match classified {
        Classified::Response { .. } => return,
        Classified::Request { params, .. } | Classified::Notification { params, .. } => params,
    };
    let Some(params) = params else { return };
    let _ = request_id_param(params);
    check_ids(params);
}

/// The reader's serde-free scan of a notification line must agree with serde: a line it
/// takes is valid JSON and the same notification for serde, with the same ids.
pub fn check_note_line(line: &[u8]) {
    let Ok(text) = std::str::from_utf8(line) else {
        return;
    };
    let Some((note, ids)) = crate::event::scan_note_line(text, true) else {
        assert!(
            crate::event::scan_note_line(text, false).is_none(),
            "taken without ids only"
        );
        return;
    };
    let without_ids = crate::event::scan_note_line(text, false).map(|(n, _)| n);
    assert_eq!(
        without_ids.as_ref(),
        Some(&note),
        "the scan differs without ids"
    );
    let params = note.params.map(|p| {
        serde_json::from_str::<&RawValue>(p).expect("scanned params are one well-formed value")
    });
    assert_eq!(
        params.map(RawValue::get),
        note.params,
        "params have whitespace around them"
    );
    let msg = serde_json::from_str::<Incoming<'_>>(text).expect("serde accepts a scanned line");
    let Ok(Classified::Notification { method, params: p }) = classify(msg) else {
        panic!("serde does not see a notification in a scanned line");
    };
    assert_eq!(method, note.method, "method differs from serde");
    let text_of = |p: Option<&RawValue>| p.map_or("null", |p| p.get()).to_owned();
    assert_eq!(text_of(p), text_of(params), "params differ from serde");
    if let (Some(ids), Some(params)) = (ids, params) {
        let slow = crate::event::ids(params);
        assert_eq!(ids.thread_id, slow.thread_id, "threadId differs");
        assert_eq!(ids.turn_id, slow.turn_id, "turnId differs");
    }
}

fn check_ids(params: &RawValue) {
    #[derive(serde::Deserialize, Default)]
    struct Slow {
        #[serde(rename = "threadId")]
        thread_id: Option<serde_json::Value>,
        #[serde(rename = "turnId")]
        turn_id: Option<serde_json::Value>,
    }
    let fast = crate::event::ids(params);
    let Ok(slow) = serde_json::from_str::<Slow>(params.get()) else {
        return;
    };
    let as_str =
        |v: &Option<serde_json::Value>| v.as_ref().and_then(|v| v.as_str().map(str::to_owned));
    assert_eq!(
        fast.thread_id.as_deref(),
        as_str(&slow.thread_id).as_deref(),
        "threadId differs from serde"
    );
    assert_eq!(
        fast.turn_id.as_deref(),
        as_str(&slow.turn_id).as_deref(),
        "turnId differs from serde"
    );
}

/// Decode one line's notification or server request into the typed protocol (app-server and
/// MCP), as a consumer would.
pub fn typed(line: &[u8]) {
    let Ok(msg) = serde_json::from_slice::<Incoming<'_>>(line) else {
        return;
    };
    let Ok(classified) = classify(msg) else {
        return;
    };
    let (method, params, request) = match classified {
        Classified::Request { method, params, .. } => (method, params, true),
        Classified::Notification { method, params } => (method, params, false),
        Classified::Response { .. } => return,
    };
    let json = params.map_or("null", RawValue::get);
    if request {
        let kind = crate::protocol::ServerRequestKind::parse(&method, json);
        let _ = format!("{kind:?}");
    } else {
        let n = crate::protocol::ServerNotification::parse(&method, json);
        let _ = format!("{n:?}");
    }
    let _ = serde_json::from_str::<crate::protocol::mcp::Tool>(json);
    let _ = serde_json::from_str::<crate::protocol::mcp::ServerCapabilities>(json);
}
