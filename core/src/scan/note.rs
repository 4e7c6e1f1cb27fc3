//! The reader's scan of a notification line: one pass that checks the whole line against the
//! JSON grammar, finds `method` and `params`, and visits the top-level members of `params`
//! (for routing), without serde's envelope parse or a second pass over `params`. Lines it
//! does not take go to serde.

use super::skip_ws;

/// Nesting past this depth is left to serde (which has a limit of its own, 128).
const MAX_DEPTH: usize = 64;

/// The members of a notification line (`{"method": …, "params": …}`, no `id`) that the
/// reader needs.
#[derive(Debug, PartialEq)]
pub(crate) struct NoteLine<'a> {
    /// The method (a string without escapes).
    pub method: &'a str,
    /// The `params` text: one well-formed JSON value without surrounding whitespace.
    pub params: Option<&'a str>,
}

/// Scan a notification line, calling `on_param(key, raw_value)` for each top-level member of
/// its `params` when that is an object (`key` is `None` when it has escapes). `None` for
/// anything that is not well-formed JSON or not a notification, and for what this scan
/// leaves to serde: escapes in a top-level key or in the method, a repeated top-level
/// member, nesting deeper than 64.
pub(crate) fn note_line<'a>(
    line: &'a str,
    mut on_param: impl FnMut(Option<&'a str>, &'a str),
) -> Option<NoteLine<'a>> {
    let b = line.as_bytes();
    let mut method = None;
    let mut params = None;
    let i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut top = |key: Option<&'a str>, raw: &'a str| {
        match key {
            Some("method") if method.is_none() => match raw.strip_prefix('"') {
                Some(s) if !s.contains('\\') => method = Some(&s[..s.len() - 1]),
                _ => return false,
            },
            Some("params") if params.is_none() => params = Some(raw),
            Some("method" | "params" | "id" | "result" | "error") | None => return false,
            Some(_) => {}
        }
        true
    };
    let mut param = |key: Option<&'a str>, raw: &'a str| {
        on_param(key, raw);
        true
    };
    let end = object_end(line, i, 1, &mut top, Some(("params", &mut param)))?;
    if skip_ws(b, end) != b.len() {
        return None;
    }
    Some(NoteLine {
        method: method?,
        params,
    })
}

/// Index of the first `"`, `\\` or control character (below 0x20) in `b[j..]`: sixteen
/// bytes at a time (SSE2, on x86-64), then eight, then one.
pub(super) fn special_byte(b: &[u8], mut j: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        while j + 16 <= b.len() {
            // SAFETY: SSE2 is part of x86-64; the unaligned load reads b[j..j + 16], in bounds.
            let mask = unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(j).cast::<__m128i>());
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // Unsigned v <= 0x1f exactly when min(v, 0x1f) == v.
                let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
            };
            if mask != 0 {
                return Some(j + mask.trailing_zeros() as usize);
            }
            j += 16;
        }
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Flags the bytes below `n` (n <= 128); the lowest flagged byte is exact.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    while let Some(chunk) = b.get(j..j + 8) {
        let w = u64::from_le_bytes(chunk.try_into().ok()?);
        let hit = below(w ^ (ONES * b'"' as u64), 1)
            | below(w ^ (ONES * b'\\' as u64), 1)
            | below(w, 0x20);
        if hit != 0 {
            return Some(j + (hit.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    b.get(j..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|k| j + k)
}

/// End (exclusive) of the well-formed string at `b[i] == b'"'`, and whether it has escapes.
pub(super) fn string_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        j = special_byte(b, j)?;
        match b[j] {
            b'"' => return Some((j + 1, escaped)),
            b'\\' => {
                escaped = true;
                j += match *b.get(j + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' if b.get(j + 2..j + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                    _ => return None,
                };
            }
            _ => return None, // a control character must be escaped
        }
    }
}

/// End (exclusive) of the well-formed value at `b[i]`, `depth` containers deep.
fn value_end(json: &str, i: usize, depth: usize) -> Option<usize> {
    let b = json.as_bytes();
    match *b.get(i)? {
        b'"' => string_end(b, i).map(|(end, _)| end),
        b'{' => object_end(json, i, depth + 1, &mut |_, _| true, None),
        b'[' => array_end(json, i, depth + 1),
        b't' => b[i..].starts_with(b"true").then_some(i + 4),
        b'f' => b[i..].starts_with(b"false").then_some(i + 5),
        b'n' => b[i..].starts_with(b"null").then_some(i + 4),
        _ => number_end(b, i),
    }
}

/// A visitor of an object's members: `(key, raw_value)`, `key` `None` when it has escapes;
/// false gives up the scan.
type Visit<'v, 'a> = &'v mut dyn FnMut(Option<&'a str>, &'a str) -> bool;

/// End (exclusive) of the well-formed object at `json[i] == '{'`, `depth` containers deep.
/// Each member goes to `member`; when `inner` names a member whose value is an object, that
/// object's members go to its visitor in the same pass.
fn object_end<'a>(
    json: &'a str,
    i: usize,
    depth: usize,
    member: Visit<'_, 'a>,
    mut inner: Option<(&str, Visit<'_, 'a>)>,
) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let b = json.as_bytes();
    let mut i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = string_end(b, i)?;
        let key = (!escaped).then(|| &json[i + 1..key_end - 1]);
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let end = match &mut inner {
            Some((name, visit)) if key == Some(*name) && b.get(i) == Some(&b'{') => {
                object_end(json, i, depth + 1, &mut **visit, None)?
            }
            _ => value_end(json, i, depth)?,
        };
        if !member(key, &json[i..end]) {
            return None;
        }
        i = skip_ws(b, end);
        match *b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// End (exclusive) of the well-formed array at `json[i] == '['`.
fn array_end(json: &str, i: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let b = json.as_bytes();
    let mut i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        i = skip_ws(b, value_end(json, i, depth)?);
        match *b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b']' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// End (exclusive) of the JSON number at `b[i]`, checked against the grammar
/// (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: usize| {
        let n = b
            .get(i..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        (n > 0).then_some(i + n)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines the reader's notification scan takes, and lines it leaves to serde.
    #[test]
    fn note_lines_are_scanned_only_when_serde_would_agree() {
        let taken = [
            r#"{"method":"item/agentMessage/delta","params":{"delta":"a","itemId":"i","threadId":"t","turnId":"u"}}"#,
            r#" { "emittedAtMs" : 17 , "method" : "a/b" , "params" : { "x" : [1,{"threadId":"no"}] , "threadId" : "t" } } "#,
            r#"{"params":null,"method":"m","jsonrpc":"2.0","x":-0.5e+3,"y":true,"z":false,"w":null}"#,
            r#"{"method":"m"}"#,
            r#"{"method":"m","params":[1,2]}"#,
            r#"{"method":"m","params":"text"}"#,
            r#"{"method":"m","params":{"threadId":5,"turnId":"\u0041"}}"#,
            r#"{"method":"m","params":{"\u0041":[{"b\n":"\ud800"}],"c":[]}}"#,
            r#"{"method":"m","x":{"a\/":[1,{}]},"y":"a\nb","z":[]}"#,
        ];
        for line in taken {
            assert!(note_line(line, |_, _| {}).is_some(), "{line}");
            crate::fuzzing::check_note_line(line.as_bytes());
        }
        let mut ids = Vec::new();
        let n = note_line(taken[1], |k, r| ids.push((k, r))).unwrap();
        assert_eq!(n.method, "a/b");
        assert_eq!(
            n.params,
            Some(r#"{ "x" : [1,{"threadId":"no"}] , "threadId" : "t" }"#)
        );
        assert_eq!(
            ids,
            [
                (Some("x"), r#"[1,{"threadId":"no"}]"#),
                (Some("threadId"), r#""t""#)
            ]
        );
        assert_eq!(note_line(taken[3], |_, _| {}).unwrap().params, None);
        let deep = format!(
            r#"{{"method":"m","params":{{"a":{}1{}}}}}"#,
            "[".repeat(70),
            "]".repeat(70)
        );
        let left = [
            r#"{"id":1,"method":"m"}"#,
            r#"{"method":"m","result":{}}"#,
            r#"{"method":"m","error":{"code":1}}"#,
            r#"{"method":"a\/b"}"#,
            r#"{"method":"m","method":"n"}"#,
            r#"{"method":"m","params":{},"params":{}}"#,
            r#"{"m\u0065thod":"m"}"#,
            r#"{"method":"m","params":{"a":1,}}"#,
            r#"{"method":"m","params":{"a":1 "b":2}}"#,
            r#"{"method":"m","params":[1,]}"#,
            r#"{"method":"m","params":{"a":"\x"}}"#,
            r#"{"method":"m","params":{"a":"\u12G4"}}"#,
            r#"{"method":"m","params":{"a":nul}}"#,
            r#"{"method":"m","params":{"a":1}"#,
            "{\"method\":\"m\",\"params\":{\"a\":\"x\ty\"}}",
            "{\"method\":\"m\",\"x\":\"a\u{1}b\"}",
            r#"{"method":"m","x":01}"#,
            r#"{"method":"m","x":1.}"#,
            r#"{"method":"m","x":-}"#,
            r#"{"method":"m","x":tru}"#,
            r#"{"method":"m",}"#,
            r#"{"method":"m"} x"#,
            r#"{"method":"m""params":{}}"#,
            r#"{"params":{}}"#,
            r#"[{"method":"m"}]"#,
            r#"{"method":5}"#,
            &deep,
        ];
        for line in left {
            assert!(note_line(line, |_, _| {}).is_none(), "{line}");
        }
    }

    #[test]
    fn finds_the_first_special_byte_at_every_offset() {
        for len in 0..48 {
            for at in 0..len {
                for c in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut b = vec![b'a'; len];
                    b[at] = c;
                    if at + 3 < len {
                        b[at + 3] = b'"';
                    }
                    assert_eq!(special_byte(&b, 0), Some(at), "{len} {at} {c}");
                    let next = b[at + 1..].iter().position(|&x| x == b'"');
                    assert_eq!(special_byte(&b, at + 1), next.map(|k| at + 1 + k));
                }
            }
            assert_eq!(special_byte(&vec![0x20u8; len], 0), None);
            assert_eq!(special_byte(&vec![0xffu8; len], 0), None);
        }
    }

    #[test]
    fn numbers_follow_the_grammar() {
        for ok in ["0", "-0", "12", "1.5", "1e3", "1E-3", "-12.25e+10"] {
            assert_eq!(number_end(ok.as_bytes(), 0), Some(ok.len()), "{ok}");
        }
        for bad in ["-", "+1", ".5", "1.", "1e", "1e+", "x"] {
            assert_ne!(number_end(bad.as_bytes(), 0), Some(bad.len()), "{bad}");
        }
        assert_eq!(number_end(b"01", 0), Some(1));
    }
}
