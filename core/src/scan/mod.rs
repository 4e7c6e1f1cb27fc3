//! A small scanner over the top level of a JSON object that is already known to be valid
//! (a `RawValue`). It finds members such as `threadId` without building anything, which
//! keeps the reader's per-event routing cheap. Anything unusual (escaped keys or values)
//! makes the caller fall back to serde. [`note`] is the reader's scan of whole notification
//! lines, which checks them too; both find string ends the same way.

mod note;
pub(crate) use note::{note_line, NoteLine};
use note::{special_byte, string_end};

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// End (exclusive) of the value starting at `b[i]`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// Call `f(key, raw_value)` for each top-level member of the object `json`. `None` when
/// `json` is not an object this scanner handles (a key with an escape, or malformed text):
/// the caller then falls back to a full parse. A non-object value visits nothing.
pub(crate) fn members<'a>(json: &'a str, mut f: impl FnMut(&'a str, &'a str)) -> Option<()> {
    let b = json.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return Some(());
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        match *b.get(i)? {
            b'}' => return Some(()),
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let (key_end, key_escaped) = string_end(b, i)?;
        if key_escaped {
            return None;
        }
        let key = &json[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let end = skip_value(b, i)?;
        f(key, &json[i..end]);
        i = end;
    }
}

/// What a raw member value holds as a string.
pub(crate) enum Str<'a> {
    /// A string without escapes: its text.
    Plain(&'a str),
    /// A string with escapes (needs a real parse).
    Escaped,
    /// Not a string.
    NotString,
}

/// Classify a raw member value.
pub(crate) fn as_str(raw: &str) -> Str<'_> {
    if raw.len() >= 2 && raw.starts_with('"') {
        let inner = &raw[1..raw.len() - 1];
        // Inside a valid string a quote is always escaped and control characters are
        // too: any hit is a backslash.
        if special_byte(inner.as_bytes(), 0).is_some() {
            Str::Escaped
        } else {
            Str::Plain(inner)
        }
    } else {
        Str::NotString
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(json: &str) -> Option<Vec<(String, String)>> {
        let mut v = Vec::new();
        members(json, |k, r| v.push((k.to_owned(), r.to_owned())))?;
        Some(v)
    }

    #[test]
    fn walks_top_level_members_only() {
        let j = r#" { "a" : 1 , "b":{"threadId":"inner","x":[1,{"y":"}"}]},"c":"s\"q","d":true,"e":null,"f":-1.5e3 } "#;
        let got = collect(j).unwrap();
        let keys: Vec<_> = got.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(got[1].1, r#"{"threadId":"inner","x":[1,{"y":"}"}]}"#);
        assert_eq!(got[2].1, r#""s\"q""#);
        assert_eq!(got[5].1, "-1.5e3");
    }

    #[test]
    fn non_objects_visit_nothing_and_escaped_keys_fall_back() {
        assert_eq!(collect("[1,2]").unwrap(), vec![]);
        assert_eq!(collect("null").unwrap(), vec![]);
        assert_eq!(collect("{}").unwrap(), vec![]);
        assert!(collect(r#"{"a\u0062":1}"#).is_none());
    }

    #[test]
    fn classifies_strings() {
        assert!(matches!(as_str(r#""abc""#), Str::Plain("abc")));
        assert!(matches!(as_str(r#""""#), Str::Plain("")));
        assert!(matches!(as_str(r#""a\nb""#), Str::Escaped));
        assert!(matches!(as_str("12"), Str::NotString));
    }
}
