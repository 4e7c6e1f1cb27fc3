//! The handshake of an MCP HTTP connection as it was sent, kept for a new session
//! ([`super::renew`]), and the session's generation (bumped by each renewal).

use bytes::Bytes;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::peek::Head;

/// The handshake as sent, and the session's generation (bumped by each renewal).
#[derive(Default)]
pub(super) struct Handshake {
    initialize: OnceLock<Bytes>,
    initialized: OnceLock<Bytes>,
    generation: AtomicU64,
    renewing: tokio::sync::Mutex<()>,
}

impl Handshake {
    /// Remember `msg` if it is part of the handshake.
    pub(super) fn note(&self, msg: &Bytes, head: &Head) {
        if head.is("initialize") {
            let _ = self.initialize.set(msg.clone());
        } else if head.is("notifications/initialized") {
            let _ = self.initialized.set(msg.clone());
        }
    }

    /// The session generation a message is sent in.
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The `initialize` request and `notifications/initialized`, once both were sent.
    pub(super) fn messages(&self) -> (Option<&Bytes>, Option<&Bytes>) {
        (self.initialize.get(), self.initialized.get())
    }

    /// Hold this while renewing the session (one renewal at a time).
    pub(super) async fn renewing(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.renewing.lock().await
    }

    /// A new session started: messages sent from now on are in the next generation.
    pub(super) fn renewed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}
