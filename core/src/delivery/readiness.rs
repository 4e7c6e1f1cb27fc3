//! A file descriptor that is readable exactly while events are waiting (poll mode), for
//! `poll`/`epoll`/`enif_select` users. A non-blocking pipe: one byte in it means "ready".

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// The readiness pipe. `set` and `clear` are called under the event queue's lock, so the
/// byte in the pipe always matches "queue non-empty or closed".
#[derive(Debug)]
pub(crate) struct Readiness {
    read: OwnedFd,
    write: OwnedFd,
    signaled: AtomicBool,
}

fn set_flags(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let fd_flags = libc::fcntl(fd, libc::F_GETFD);
        if fd_flags < 0 || libc::fcntl(fd, libc::F_SETFD, fd_flags | libc::FD_CLOEXEC) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

impl Readiness {
    pub(crate) fn new() -> std::io::Result<Readiness> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe() writes.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: pipe() just returned these two fresh descriptors; we take ownership.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        set_flags(read.as_raw_fd())?;
        set_flags(write.as_raw_fd())?;
        Ok(Readiness {
            read,
            write,
            signaled: AtomicBool::new(false),
        })
    }

    /// The descriptor to watch for readability.
    pub(crate) fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// Make the descriptor readable (idempotent).
    pub(crate) fn set(&self) {
        if !self.signaled.swap(true, Ordering::AcqRel) {
            let b = [1u8];
            // SAFETY: writing one byte from a valid buffer to our own non-blocking pipe.
            unsafe { libc::write(self.write.as_raw_fd(), b.as_ptr().cast(), 1) };
        }
    }

    /// Make the descriptor unreadable (idempotent).
    pub(crate) fn clear(&self) {
        if self.signaled.swap(false, Ordering::AcqRel) {
            let mut b = [0u8; 16];
            // SAFETY: reading into a valid buffer from our own non-blocking pipe.
            unsafe { libc::read(self.read.as_raw_fd(), b.as_mut_ptr().cast(), b.len()) };
        }
    }
}

/// Whether `fd` is readable right now (tests).
#[cfg(test)]
pub(crate) fn readable(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    unsafe { libc::poll(&mut p, 1, 0) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_clear_toggle_readability() {
        let r = Readiness::new().unwrap();
        assert!(!readable(r.fd()));
        r.set();
        r.set();
        assert!(readable(r.fd()));
        r.clear();
        assert!(!readable(r.fd()));
        r.clear();
        assert!(!readable(r.fd()));
    }
}
