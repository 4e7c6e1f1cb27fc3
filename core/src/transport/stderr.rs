//! A bounded tail of the server's stderr, kept for error reports.

use std::collections::VecDeque;
use std::sync::Mutex;
use tokio::io::{AsyncRead, BufReader};

use super::lines::{read_line, LineRead};

/// Keeps the last `cap` bytes of stderr, in whole lines.
pub(crate) struct StderrTail {
    lines: Mutex<(VecDeque<String>, usize)>,
    cap: usize,
}

impl StderrTail {
    pub(crate) fn new(cap: usize) -> Self {
        StderrTail {
            lines: Mutex::new((VecDeque::new(), 0)),
            cap,
        }
    }

    pub(crate) fn push(&self, line: &str) {
        let mut line = line.to_owned();
        if line.len() > self.cap {
            let mut cut = line.len() - self.cap;
            while !line.is_char_boundary(cut) {
                cut += 1;
            }
            line.drain(..cut);
        }
        let mut g = self.lines.lock().unwrap();
        g.1 += line.len() + 1;
        g.0.push_back(line);
        while g.1 > self.cap + 1 {
            match g.0.pop_front() {
                Some(old) => g.1 -= old.len() + 1,
                None => break,
            }
        }
    }

    /// Keep what `stderr` carries, line by line (each also logged at debug level), until it
    /// ends.
    pub(crate) async fn collect(&self, stderr: impl AsyncRead + Unpin) {
        let mut reader = BufReader::new(stderr);
        let mut buf = Vec::with_capacity(1024);
        loop {
            match read_line(&mut reader, &mut buf, 64 * 1024).await {
                Ok(LineRead::Line) => {
                    let line = String::from_utf8_lossy(&buf);
                    tracing::debug!(target: "codex_client::server_stderr", "{line}");
                    self.push(&line);
                }
                Ok(LineRead::TooLong(n)) => self.push(&format!("[{n}-byte stderr line skipped]")),
                Ok(LineRead::Eof) | Err(_) => return,
            }
        }
    }

    pub(crate) fn tail(&self) -> String {
        let g = self.lines.lock().unwrap();
        let mut s = String::with_capacity(g.1);
        for l in &g.0 {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes() {
        let t = StderrTail::new(10);
        for i in 0..100 {
            t.push(&format!("line{i}"));
        }
        assert_eq!(t.tail(), "line99\n");
        t.push("0123456789abcdef");
        assert_eq!(t.tail(), "6789abcdef\n");
    }
}
