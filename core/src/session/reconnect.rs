//! Reconnect and rejoin ([`ReconnectPolicy`]): after a link dropped, open the same transport
//! again with backoff, redo the handshake with the same `initialize` params, resume every
//! thread loaded on the connection (its running turn's gap is filled from the resumed
//! history), then let the requests held meanwhile go out.

use bytes::Bytes;
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

use super::{Outgoing, SessionShared};
use crate::correlation::Reply;
use crate::error::{DisconnectInfo, Error, Result};
use crate::event::{ConnectionEvent, ReconnectAttempt, Rejoined};
use crate::message::notification_line;
use crate::options::{ClientOptions, ReconnectPolicy};
use crate::rules::INITIALIZE;
use crate::transport::{self, Link};

/// How a link ended.
pub(super) struct LinkEnd {
    /// Why.
    pub(super) reason: String,
    /// Not by `disconnect()`, and after the connection had opened: a reconnect may follow.
    pub(super) may_reconnect: bool,
    /// The reconnect whose rejoin this link did not finish.
    pub(super) unfinished: Option<Rejoin>,
}

/// A reconnect under way: what it has cost so far.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rejoin {
    /// Attempts made.
    attempts: u32,
    /// Requests failed with `ConnectionLost` when the link dropped.
    requests_failed: usize,
    /// Server requests of the lost link that can no longer be answered.
    server_requests_dropped: usize,
    /// Bound of the handshake and of each resume.
    timeout: std::time::Duration,
}

/// The link ended unexpectedly: (the first time) fail what was in flight, then try to open
/// the transport again, with backoff, until the policy gives up or the client disconnects
/// (`Err`: why the connection ends). Every attempt is announced with a `Reconnecting` event.
pub(super) async fn again(
    shared: &Arc<SessionShared>,
    opts: &ClientOptions,
    policy: ReconnectPolicy,
    out_rx: &Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Outgoing>>>,
    shutdown_rx: &mut oneshot::Receiver<()>,
    end: LinkEnd,
) -> std::result::Result<(Link, Rejoin), String> {
    let mut rejoin = match end.unfinished {
        Some(r) => r,
        None => {
            let info = DisconnectInfo {
                reason: end.reason.clone(),
                stderr_tail: shared.stderr.tail(),
            };
            let (requests_failed, server_requests_dropped) =
                shared.lose_link(&info, &mut *out_rx.lock().await);
            tracing::warn!(cause = %end.reason, requests_failed, endpoint = shared.endpoint.as_deref().unwrap_or(""), "connection lost; reconnecting");
            Rejoin {
                attempts: 0,
                requests_failed,
                server_requests_dropped,
                timeout: opts.connect_timeout,
            }
        }
    };
    let mut cause = end.reason;
    let max = policy.max_attempts.max(1);
    loop {
        if rejoin.attempts >= max {
            return Err(format!(
                "gave up reconnecting after {} attempts; last failure: {cause}",
                rejoin.attempts
            ));
        }
        let delay = policy.backoff(rejoin.attempts);
        rejoin.attempts += 1;
        shared.connection_event(ConnectionEvent::Reconnecting(ReconnectAttempt {
            attempt: rejoin.attempts,
            max_attempts: max,
            delay,
            cause: cause.clone(),
        }));
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = &mut *shutdown_rx => return Err("disconnected by the client while reconnecting".into()),
        }
        tokio::select! {
            opened = transport::open(opts) => match opened {
                Ok(link) => return Ok((link, rejoin)),
                Err(e) => cause = e.to_string(),
            },
            _ = &mut *shutdown_rx => return Err("disconnected by the client while reconnecting".into()),
        }
    }
}

/// Forgets the reconnect's own requests still pending when the link it used ends.
struct Forget<'a>(&'a SessionShared, Vec<i64>);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        for id in &self.1 {
            self.0.correlation.forget(*id);
        }
    }
}

/// On a new link (`link` carries lines ahead of the held ones): redo the handshake, resume
/// the loaded threads, then open `gate` so held lines go out, mark the connection open and
/// report `Reconnected`. `restarted`: the server is a new process (a running turn is lost).
pub(super) async fn rejoin(
    shared: &Arc<SessionShared>,
    link: &mpsc::UnboundedSender<Bytes>,
    gate: oneshot::Sender<()>,
    r: Rejoin,
    restarted: bool,
    generation: u64,
) -> std::result::Result<(), String> {
    let mut forget = Forget(shared, Vec::new());
    handshake(shared, link, r.timeout, &mut forget.1).await?;
    let mut report = Rejoined {
        attempts: r.attempts,
        requests_failed: r.requests_failed as u64,
        server_requests_dropped: r.server_requests_dropped as u64,
        ..Rejoined::default()
    };
    let resumptions = shared.rules.resumptions();
    if !resumptions.is_empty() {
        let (done_tx, mut done_rx) = mpsc::unbounded_channel();
        for res in resumptions {
            let me = shared.clone();
            let what = res.what.clone();
            let done = done_tx.clone();
            // Runs on the reader when the answer comes: the gap is queued before the live
            // events that follow the answer.
            let reply = Reply::Call(Box::new(move |outcome: Result<Box<RawValue>>| {
                if me.link_gen.load(Ordering::Acquire) != generation {
                    return;
                }
                let parsed = outcome.as_ref().map_err(|e| e.to_string()).and_then(|raw| {
                    serde_json::from_str::<Value>(raw.get()).map_err(|e| e.to_string())
                });
                let resumed =
                    me.rules
                        .resumed(&what, parsed.as_ref().map_err(String::as_str), restarted);
                me.synthesized.lock().unwrap().extend(resumed.events);
                let _ = done.send((what, parsed.err(), resumed.ended));
            }));
            let id = shared
                .control_request(link, res.method, &res.params, r.timeout, reply)
                .map_err(|e| e.to_string())?;
            forget.1.push(id);
        }
        drop(done_tx);
        while let Some((what, failed, ended)) = done_rx.recv().await {
            match failed {
                None => report.threads.push(what),
                Some(why) => {
                    shared.rules.resume_failed(&what);
                    report.failed_threads.push((what, why));
                }
            }
            report.turns_ended.extend(ended);
        }
        // Gap events of answers that came without a line to carry them (timeouts).
        shared.flush_synthesized().await;
    }
    shared.mark_rejoined();
    let _ = gate.send(());
    tracing::info!(
        attempts = report.attempts,
        threads = report.threads.len(),
        failed = report.failed_threads.len(),
        "reconnected"
    );
    shared.connection_event(ConnectionEvent::Reconnected(report));
    Ok(())
}

/// The handshake request with the first connect's params, then the protocol's
/// `initialized`.
async fn handshake(
    shared: &SessionShared,
    link: &mpsc::UnboundedSender<Bytes>,
    timeout: std::time::Duration,
    sent: &mut Vec<i64>,
) -> std::result::Result<(), String> {
    let params = shared.rules.initialize_params();
    let (tx, rx) = oneshot::channel();
    let id = shared
        .control_request(link, INITIALIZE, params, timeout, Reply::Wait(tx))
        .map_err(|e| e.to_string())?;
    sent.push(id);
    let raw = rx
        .await
        .map_err(|_| "the link closed".to_string())?
        .map_err(|e: Error| e.to_string())?;
    let value: Value =
        serde_json::from_str(raw.get()).map_err(|e| format!("bad initialize result: {e}"))?;
    shared
        .rules
        .check_handshake(&value)
        .map_err(|e| e.to_string())?;
    // The server may have been upgraded meanwhile: what it says now decides from now on.
    shared.rules.handshaken(&value, shared);
    shared.set_init_result(value);
    let method = shared.rules.initialized_method();
    link.send(Bytes::from(notification_line(method, None)))
        .map_err(|_| "the link closed".to_string())
}
