//! The connection's outgoing lines: one ordered queue to the link's writer task, and a short
//! cut: when nothing is queued and the link is a pipe, the caller's thread writes the whole
//! line itself (non-blocking), which saves the wake-up of the writer task on every request.
//! Whatever does not go out at once (a full pipe, a partial write) is queued, and nothing
//! is written directly again until the writer has flushed the queue, so order is kept.

use bytes::Bytes;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;
use tokio::sync::mpsc;

/// What the writer task is given: a line for the server (framed), or the end.
pub(crate) enum Outgoing {
    Line(Bytes),
    Close,
}

/// The sending side of a connection's lines (see the module doc).
pub(crate) struct Out {
    tx: mpsc::UnboundedSender<Outgoing>,
    direct: Mutex<Direct>,
    /// Every line gets the `"jsonrpc":"2.0"` member (MCP).
    jsonrpc: bool,
    /// Every line is logged (`trace_wire`).
    trace: bool,
}

struct Direct {
    /// The link's pipe (a duplicate of the writer's descriptor, non-blocking), while the
    /// writer task runs; `None` for other transports and between links.
    fd: Option<OwnedFd>,
    /// Lines queued or written by the writer task and not yet flushed.
    queued: usize,
}

impl Out {
    /// Lines go to `tx`; with `jsonrpc` each gets the `"jsonrpc":"2.0"` member.
    pub(crate) fn new(tx: mpsc::UnboundedSender<Outgoing>, jsonrpc: bool) -> Out {
        Out {
            trace: false,
            tx,
            direct: Mutex::new(Direct {
                fd: None,
                queued: 0,
            }),
            jsonrpc,
        }
    }

    /// Send one line (ending in `\n`): written now when the writer is idle and the link is a
    /// pipe, else queued for the writer. `Err` when the writer is gone.
    pub(crate) fn line(&self, line: Bytes) -> Result<(), ()> {
        let mut line = if self.jsonrpc {
            crate::message::with_jsonrpc_member(&line)
        } else {
            line
        };
        if self.trace {
            super::wire::log("->", line.strip_suffix(b"\n").unwrap_or(&line));
        }
        let mut d = self.direct.lock().unwrap();
        if d.queued == 0 {
            if let Some(fd) = &d.fd {
                let n = write_now(fd, &line);
                if n == line.len() {
                    return Ok(());
                }
                line = line.slice(n..);
            }
        }
        d.queued += 1;
        self.tx.send(Outgoing::Line(line)).map_err(|_| ())
    }

    /// Log every line sent (see `wire`).
    pub(crate) fn traced(mut self, on: bool) -> Out {
        self.trace = on;
        self
    }

    /// Tell the writer to end after the lines queued so far; no more direct writes.
    pub(crate) fn close(&self) {
        let mut d = self.direct.lock().unwrap();
        d.fd = None;
        let _ = self.tx.send(Outgoing::Close);
    }

    /// The writer task starts on a link; `fd` is that link's pipe, if it is one. Direct
    /// writes are used only on a non-blocking pipe (a caller's thread must never block).
    pub(crate) fn attach(&self, fd: Option<OwnedFd>) {
        let fd = fd.filter(|fd| {
            // SAFETY: F_GETFL on a descriptor this function owns.
            let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
            flags >= 0 && flags & libc::O_NONBLOCK != 0
        });
        self.direct.lock().unwrap().fd = fd;
    }

    /// The writer task ends: no more direct writes (the duplicate descriptor is closed).
    pub(crate) fn detach(&self) {
        self.direct.lock().unwrap().fd = None;
    }

    /// The writer task flushed `n` queued lines.
    pub(crate) fn written(&self, n: usize) {
        let mut d = self.direct.lock().unwrap();
        d.queued = d.queued.saturating_sub(n);
    }

    /// Drop every line not yet taken by a writer (the link dropped; see `lose_link`).
    pub(crate) fn discard(&self, unsent: &mut mpsc::UnboundedReceiver<Outgoing>) {
        let mut d = self.direct.lock().unwrap();
        while unsent.try_recv().is_ok() {}
        d.queued = 0;
    }
}

/// Write as much of `buf` as the pipe takes now, without blocking and without a `SIGPIPE`
/// (blocked on this thread around the write, and a pending one consumed: the caller's
/// thread may belong to a program that keeps SIGPIPE's default action). The bytes written;
/// an error writes nothing more and leaves the rest (and the error) to the writer task.
fn write_now(fd: &OwnedFd, buf: &[u8]) -> usize {
    // SAFETY: signal-set calls on local, initialised sets; `write` on a descriptor we own,
    // from a live buffer of the given length.
    unsafe {
        let mut pipe: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old);
        let mut done = 0;
        while done < buf.len() {
            let rest = &buf[done..];
            let n = libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len());
            if n > 0 {
                done += n as usize;
                continue;
            }
            let err = std::io::Error::last_os_error().raw_os_error();
            if err == Some(libc::EINTR) {
                continue;
            }
            if err == Some(libc::EPIPE) && libc::sigismember(&old, libc::SIGPIPE) == 0 {
                let zero = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                libc::sigtimedwait(&pipe, std::ptr::null_mut(), &zero);
            }
            break;
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn pipe() -> (std::fs::File, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two fresh descriptors that we take ownership of at once.
        unsafe {
            assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK), 0);
            use std::os::fd::FromRawFd;
            (
                std::fs::File::from_raw_fd(fds[0]),
                OwnedFd::from_raw_fd(fds[1]),
            )
        }
    }

    #[test]
    fn writes_directly_only_when_nothing_is_queued_and_keeps_order() {
        let (mut r, w) = pipe();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let out = Out::new(tx, false);
        out.line(Bytes::from_static(b"queued-1\n")).unwrap();
        out.attach(Some(w));
        // One line is queued: the next one queues behind it.
        out.line(Bytes::from_static(b"queued-2\n")).unwrap();
        assert_eq!(rx.len(), 2);
        // The writer flushed both: now lines go straight to the pipe.
        while rx.try_recv().is_ok() {}
        out.written(2);
        out.line(Bytes::from_static(b"direct\n")).unwrap();
        assert!(rx.is_empty());
        let mut got = [0u8; 7];
        r.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"direct\n");
        // A full pipe: the part that did not fit is queued, and later lines queue after it.
        let big = Bytes::from(vec![b'x'; 1 << 20]);
        out.line(big).unwrap();
        let Ok(Outgoing::Line(rest)) = rx.try_recv() else {
            panic!("the rest of a partial write is queued")
        };
        assert!(!rest.is_empty() && rest.len() < 1 << 20);
        out.line(Bytes::from_static(b"after\n")).unwrap();
        assert!(matches!(rx.try_recv(), Ok(Outgoing::Line(l)) if &l[..] == b"after\n"));
        // Closed: nothing more is written directly.
        out.written(2);
        out.close();
        assert!(matches!(rx.try_recv(), Ok(Outgoing::Close)));
        out.line(Bytes::from_static(b"late\n")).unwrap();
        assert_eq!(rx.len(), 1);
    }

    #[test]
    fn a_closed_pipe_raises_no_sigpipe_and_queues_the_line() {
        let (r, w) = pipe();
        drop(r);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let out = Out::new(tx, false);
        out.attach(Some(w));
        // SIGPIPE's default action would end the test process here.
        // SAFETY: setting a signal's disposition to its default.
        let prev = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        out.line(Bytes::from_static(b"lost\n")).unwrap();
        // SAFETY: restoring the previous disposition.
        unsafe { libc::signal(libc::SIGPIPE, prev) };
        assert!(matches!(rx.try_recv(), Ok(Outgoing::Line(l)) if &l[..] == b"lost\n"));
    }

    #[test]
    fn a_blocking_descriptor_is_never_written_directly() {
        let mut fds = [0; 2];
        // SAFETY: as in `pipe`, without O_NONBLOCK.
        let (_r, w) = unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            use std::os::fd::FromRawFd;
            (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let out = Out::new(tx, false);
        out.attach(Some(w));
        out.line(Bytes::from_static(b"x\n")).unwrap();
        assert_eq!(rx.len(), 1);
        rx.try_recv().unwrap();
    }
}
