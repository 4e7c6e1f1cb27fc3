//! A Server-Sent Events parser over byte chunks (the WHATWG `text/event-stream` rules):
//! lines end in CRLF, LF or CR; `:` starts a comment; `data` lines join with LF; `id` and
//! `retry` are remembered across events and reconnections. An event's data is capped: longer
//! data is counted and dropped, never buffered.

use std::collections::VecDeque;
use std::time::Duration;

/// Longest field name kept (every field the parser knows is shorter).
const MAX_NAME: usize = 16;
/// Longest value kept for fields other than `data` (a longer `id` is ignored).
const MAX_VALUE: usize = 4096;

/// An event's payload.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Data {
    /// The data (lines joined with LF).
    Text(Vec<u8>),
    /// The data was longer than the cap; its length in bytes.
    TooLong(usize),
}

/// One dispatched event.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Event {
    /// The event type (`message` unless the stream named one).
    pub(super) kind: String,
    /// Its payload.
    pub(super) data: Data,
}

/// Where in a line the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// At the start of a line.
    Start,
    /// In the field name.
    Name,
    /// Just after the colon (one space is dropped there).
    Colon,
    /// In the value.
    Value,
    /// In a comment line.
    Comment,
}

/// The parser's state for one stream (and what survives reconnections: the last event id and
/// the reconnection delay).
pub(super) struct Parser {
    cap: usize,
    at: At,
    /// The last byte was a CR ending a line (a following LF belongs to it).
    after_cr: bool,
    /// The start of the stream (a byte order mark there is dropped).
    at_stream_start: bool,
    name: Vec<u8>,
    /// The current line's field is `data` (its value goes straight to `data`).
    in_data: bool,
    value: Vec<u8>,
    value_too_long: bool,
    /// The event's data buffer (lines joined with LF, a trailing LF), unless too long.
    data: Vec<u8>,
    /// The data buffer's length, counting what was dropped.
    data_len: usize,
    event: String,
    /// A field line was seen since the last blank line.
    pending: bool,
    id_buffer: Option<String>,
    last_id: Option<String>,
    retry: Option<Duration>,
    /// Blank lines that ended a block of fields.
    blocks: u64,
}

impl Parser {
    /// A parser that drops event data longer than `cap` bytes.
    pub(super) fn new(cap: usize) -> Self {
        Parser {
            cap,
            at: At::Start,
            after_cr: false,
            at_stream_start: true,
            name: Vec::new(),
            in_data: false,
            value: Vec::new(),
            value_too_long: false,
            data: Vec::new(),
            data_len: 0,
            event: String::new(),
            pending: false,
            id_buffer: None,
            last_id: None,
            retry: None,
            blocks: 0,
        }
    }

    /// The id of the last dispatched event (what `Last-Event-ID` carries on a reconnection).
    pub(super) fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The last `retry:` the stream gave.
    pub(super) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// How many events (blocks of fields ended by a blank line) were seen, dispatched or not.
    pub(super) fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Whether the stream stopped inside an event (it was cut off).
    pub(super) fn mid_event(&self) -> bool {
        self.pending || self.at != At::Start
    }

    /// Start over on a new connection: a partial event is dropped, the last event id and the
    /// reconnection delay are kept.
    pub(super) fn restart(&mut self) {
        let (cap, last_id, retry, blocks) =
            (self.cap, self.last_id.take(), self.retry, self.blocks);
        *self = Parser::new(cap);
        self.id_buffer = last_id.clone();
        self.last_id = last_id;
        self.retry = retry;
        self.blocks = blocks;
    }

    /// Parse a chunk, appending the events it completes to `out`.
    pub(super) fn feed(&mut self, mut chunk: &[u8], out: &mut VecDeque<Event>) {
        if self.at_stream_start && !chunk.is_empty() {
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            if chunk.starts_with(BOM) {
                chunk = &chunk[BOM.len()..];
            }
            self.at_stream_start = false;
        }
        while let Some(&b) = chunk.first() {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            if b == b'\r' || b == b'\n' {
                self.after_cr = b == b'\r';
                self.end_line(out);
                chunk = &chunk[1..];
                continue;
            }
            match self.at {
                At::Start if b == b':' => {
                    self.at = At::Comment;
                    chunk = &chunk[1..];
                }
                At::Start | At::Name => {
                    self.at = At::Name;
                    if b == b':' {
                        self.at = At::Colon;
                        self.in_data = self.name == b"data";
                    } else if self.name.len() <= MAX_NAME {
                        self.name.push(b);
                    }
                    chunk = &chunk[1..];
                }
                At::Colon => {
                    self.at = At::Value;
                    if b == b' ' {
                        chunk = &chunk[1..];
                    }
                }
                At::Value | At::Comment => {
                    let end = memchr::memchr2(b'\r', b'\n', chunk).unwrap_or(chunk.len());
                    if self.at == At::Value {
                        self.take_value(&chunk[..end]);
                    }
                    chunk = &chunk[end..];
                }
            }
        }
    }

    /// Part of the current line's value.
    fn take_value(&mut self, part: &[u8]) {
        if self.in_data {
            self.add_data(part);
        } else if self.value.len() + part.len() <= MAX_VALUE {
            self.value.extend_from_slice(part);
        } else {
            self.value_too_long = true;
        }
    }

    /// Bytes for the data buffer (kept while the data stays within the cap; the final LF
    /// does not count, it is removed at dispatch).
    fn add_data(&mut self, part: &[u8]) {
        self.data_len += part.len();
        if self.data_len > self.cap + 1 {
            self.data = Vec::new();
        } else {
            self.data.extend_from_slice(part);
        }
    }

    fn end_line(&mut self, out: &mut VecDeque<Event>) {
        let at = std::mem::replace(&mut self.at, At::Start);
        match at {
            At::Start => self.dispatch(out),
            At::Comment => {}
            At::Name | At::Colon | At::Value => {
                self.pending = true;
                if at == At::Name {
                    self.in_data = self.name == b"data";
                }
                self.field();
            }
        }
        self.name.clear();
        self.value.clear();
        self.value_too_long = false;
        self.in_data = false;
    }

    /// A complete field line.
    fn field(&mut self) {
        if self.in_data {
            self.add_data(b"\n");
            return;
        }
        if self.value_too_long {
            return;
        }
        match self.name.as_slice() {
            b"event" => self.event = String::from_utf8_lossy(&self.value).into_owned(),
            b"id" if !self.value.contains(&0) => {
                self.id_buffer = Some(String::from_utf8_lossy(&self.value).into_owned());
            }
            b"retry" if !self.value.is_empty() && self.value.iter().all(u8::is_ascii_digit) => {
                let ms = std::str::from_utf8(&self.value)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .unwrap_or(u64::MAX);
                self.retry = Some(Duration::from_millis(ms));
            }
            _ => {}
        }
    }

    /// A blank line: the event is complete.
    fn dispatch(&mut self, out: &mut VecDeque<Event>) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        self.blocks += 1;
        self.last_id = self.id_buffer.clone();
        let event = std::mem::take(&mut self.event);
        if self.data_len == 0 {
            return;
        }
        let len = std::mem::take(&mut self.data_len) - 1;
        let mut data = std::mem::take(&mut self.data);
        let data = if len > self.cap {
            Data::TooLong(len)
        } else {
            data.pop();
            Data::Text(data)
        };
        let kind = if event.is_empty() {
            "message".to_owned()
        } else {
            event
        };
        out.push_back(Event { kind, data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(input: &[u8], cap: usize, step: usize) -> (Vec<Event>, Parser) {
        let mut p = Parser::new(cap);
        let mut out = VecDeque::new();
        for part in input.chunks(step) {
            p.feed(part, &mut out);
        }
        (out.into_iter().collect(), p)
    }

    fn text(kind: &str, s: &str) -> Event {
        Event {
            kind: kind.into(),
            data: Data::Text(s.as_bytes().to_vec()),
        }
    }

    #[test]
    fn fields_line_ends_comments_and_chunking() {
        let input = b"\xEF\xBB\xBF: comment\r\nid: 1\r\nretry: 250\r\ndata: \r\n\r\n\
                      data:{\"a\":\ndata: 1}\n\nevent: endpoint\rdata: /x?s=1\r\r\
                      id\ndata\n\nid: bad\0\nretry: x\ndata:  two spaces\n\n";
        for step in [1, 2, 3, 7, input.len()] {
            let (events, p) = parse(input, 1024, step);
            assert_eq!(
                events,
                vec![
                    text("message", ""),
                    text("message", "{\"a\":\n1}"),
                    text("endpoint", "/x?s=1"),
                    text("message", ""),
                    text("message", " two spaces"),
                ],
                "step {step}"
            );
            // `id` with no value resets the id; an id with NUL is ignored.
            assert_eq!(p.last_event_id(), Some(""), "step {step}");
            assert_eq!(p.retry(), Some(Duration::from_millis(250)));
            assert_eq!(p.blocks(), 5);
            assert!(!p.mid_event());
        }
    }

    #[test]
    fn last_id_is_the_dispatched_one_and_cut_events_are_seen() {
        let (events, mut p) = parse(b"id: a\ndata: 1\n\nid: b\ndata: {\"par", 64, 4);
        assert_eq!(events, vec![text("message", "1")]);
        assert_eq!(p.last_event_id(), Some("a"));
        assert!(p.mid_event());
        p.restart();
        assert!(!p.mid_event());
        let mut out = VecDeque::new();
        p.feed(b"data: 2\n\n", &mut out);
        assert_eq!(out.pop_front(), Some(text("message", "2")));
        assert_eq!(p.last_event_id(), Some("a"));
        // A partial line without a blank line after it is cut off too.
        let (_, p) = parse(b"data: 1\n", 64, 1);
        assert!(p.mid_event());
        let (_, p) = parse(b": keepalive", 64, 1);
        assert!(p.mid_event());
    }

    #[test]
    fn data_over_the_cap_is_counted_not_kept() {
        let big = "x".repeat(100);
        let input = format!(
            "data: {big}\ndata: {big}\n\ndata: {}\n\ndata: ok\n\n",
            &big[..10]
        );
        for step in [1, 5, 1000] {
            let (events, _) = parse(input.as_bytes(), 150, step);
            assert_eq!(
                events,
                vec![
                    Event {
                        kind: "message".into(),
                        data: Data::TooLong(201)
                    },
                    text("message", &big[..10]),
                    text("message", "ok"),
                ]
            );
        }
        // Exactly the cap fits.
        let (events, _) = parse(format!("data: {big}\n\n").as_bytes(), 100, 3);
        assert_eq!(events, vec![text("message", &big)]);
    }
}
