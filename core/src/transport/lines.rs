//! Newline framing with a size cap: lines longer than the cap are skipped, not buffered.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one call of [`read_line`] produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// A complete line is in the buffer (without the trailing newline).
    Line,
    /// A line longer than the cap was skipped; its length in bytes.
    TooLong(usize),
    /// End of stream (a final unterminated line, if any, is returned as `Line` first).
    Eof,
}

/// Read one `\n`-terminated line into `buf` (cleared first), keeping at most `cap` bytes.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut skipped: usize = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if skipped > 0 {
                LineRead::TooLong(skipped)
            } else if buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if skipped > 0 || buf.len() + chunk.len() > cap {
            skipped += buf.len() + chunk.len();
            buf.clear();
        } else {
            buf.extend_from_slice(chunk);
        }
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if skipped > 0 {
                LineRead::TooLong(skipped)
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], cap: usize, bufsize: usize) -> Vec<Result<String, usize>> {
        let mut r = tokio::io::BufReader::with_capacity(bufsize, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut r, &mut buf, cap).await.unwrap() {
                LineRead::Line => out.push(Ok(String::from_utf8(buf.clone()).unwrap())),
                LineRead::TooLong(n) => out.push(Err(n)),
                LineRead::Eof => return out,
            }
        }
    }

    #[test]
    fn splits_caps_and_recovers() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let input = b"a\r\nbbbbbbbbbb\nc\n\nlast";
            for bufsize in [1, 3, 64] {
                let got = all(input, 5, bufsize).await;
                assert_eq!(
                    got,
                    vec![
                        Ok("a".into()),
                        Err(10),
                        Ok("c".into()),
                        Ok("".into()),
                        Ok("last".into())
                    ],
                    "bufsize {bufsize}"
                );
            }
        });
    }
}
