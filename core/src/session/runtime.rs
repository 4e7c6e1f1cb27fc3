//! A connection's root task on the library's shared runtime and the tasks it starts: open
//! the transport, then run the reader, writer, timer and stderr tasks until the connection
//! ends, and close it in order.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use super::reconnect::{self, LinkEnd};
use super::{Outgoing, SessionShared};
use crate::delivery::dispatch::Handlers;
use crate::error::{DisconnectInfo, Error, Result};
use crate::options::ClientOptions;
use crate::transport::io::{MessageReader, MessageWriter};
use crate::transport::lines::LineRead;
use crate::transport::{self, Link};

/// How long queued lines get to go out at the end before the writer is stopped.
const WRITE_GRACE: Duration = Duration::from_millis(200);
/// How long to wait for the last stderr lines after the server's stdout closed.
const STDERR_GRACE: Duration = Duration::from_millis(300);
/// After the server process exited: how long to keep reading what it wrote before exiting
/// when its stdout does not close (a process it left behind holds the pipe).
const EXIT_DRAIN: Duration = Duration::from_millis(250);

/// How long [`Session::shutdown`] waits for the connection's tasks to be gone. The close
/// sequence is bounded on its own (write grace, the server's exit grace or the shim's, the
/// stderr grace: about 2 s); this only keeps a wedged runtime from hanging the caller.
const SHUTDOWN_BOUND: Duration = Duration::from_secs(10);

/// A running connection: its root task on the library's shared runtime.
pub(crate) struct Session {
    pub(crate) shared: Arc<SessionShared>,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
    /// Completes when the connection's root task and every task it started are gone.
    finished: Arc<crate::rt::Done>,
}

impl Session {
    /// Start a connection as a task on the shared runtime and return at once: the transport
    /// opens there (bounded by `connect_timeout`, aborted by [`shutdown`](Self::shutdown)).
    /// Requests started now are sent once it is open; if it cannot open they fail with the
    /// reason. The handshake is the caller's job.
    pub(crate) fn start(
        opts: &ClientOptions,
        handlers: Option<Arc<Handlers>>,
        tap: Option<Arc<dyn super::tap::Tap>>,
        owner: Arc<str>,
    ) -> Result<Session> {
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (shutdown_tx, shutdown_rx) = oneshot::channel();
        let shared = SessionShared::new(opts, handlers, tap, out_tx, owner);
        let opts = opts.clone();
        let rt_shared = shared.clone();
        let finished = crate::rt::spawn_root(open_and_run(rt_shared, opts, out_rx, shutdown_rx))?;
        Ok(Session {
            shared,
            shutdown: Mutex::new(Some(shutdown_tx)),
            finished,
        })
    }

    fn signal_shutdown(&self) {
        if let Some(tx) = self.shutdown.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }

    /// [`shutdown`](Self::shutdown) without blocking: awaits the end of the connection's
    /// tasks. Works on any executor.
    pub(crate) async fn shutdown_async(&self) {
        self.signal_shutdown();
        self.finished.wait().await;
    }

    /// Stop the server and the connection's tasks (or abort the connect in progress); every
    /// pending request fails. Waits (at most [`SHUTDOWN_BOUND`]) until the connection's tasks
    /// are gone, except on a thread of the shared runtime, which must not block: there the
    /// connection finishes on its own. Idempotent.
    pub(crate) fn shutdown(&self) {
        self.signal_shutdown();
        if crate::rt::on_runtime_thread() || self.finished.is_done() {
            return;
        }
        if !self.finished.wait_blocking(SHUTDOWN_BOUND) {
            tracing::warn!(
                "the connection's tasks did not end within {SHUTDOWN_BOUND:?}; not waiting longer"
            );
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The connection's root task: open the transport within the connect timeout (unless the
/// client gives up first), then run the connection until it ends, over as many links as
/// reconnects take.
async fn open_and_run(
    shared: Arc<SessionShared>,
    opts: ClientOptions,
    out_rx: mpsc::UnboundedReceiver<Outgoing>,
    mut shutdown_rx: oneshot::Receiver<()>,
) {
    // Timers run from the start: the `initialize` deadline covers the transport's opening.
    let correlation = shared.correlation.clone();
    let timer = crate::rt::spawn(async move { correlation.run_timers().await });
    let opened = tokio::select! {
        r = transport::open(&opts) => r,
        _ = &mut shutdown_rx => Err(Error::Disconnected(DisconnectInfo {
            reason: "connect aborted by disconnect()".into(),
            stderr_tail: String::new(),
        })),
    };
    let mut link = match opened {
        Ok(link) => link,
        Err(e) => {
            timer.abort();
            let info = DisconnectInfo {
                reason: e.to_string(),
                stderr_tail: String::new(),
            };
            shared.close_with(info, Some(e));
            return;
        }
    };
    let out_rx = Arc::new(tokio::sync::Mutex::new(out_rx));
    let mut rejoin = None;
    let reason = loop {
        let end = run_link(&shared, link, &out_rx, &mut shutdown_rx, rejoin.take()).await;
        let policy = match shared.reconnect {
            Some(p) if end.may_reconnect => p,
            _ => break end.reason,
        };
        match reconnect::again(&shared, &opts, policy, &out_rx, &mut shutdown_rx, end).await {
            Ok((next, r)) => {
                link = next;
                rejoin = Some(r);
            }
            Err(reason) => break reason,
        }
    };
    timer.abort();
    shared.close(DisconnectInfo {
        reason,
        stderr_tail: shared.stderr.tail(),
    });
}

/// Run one link until it ends (the server closes it or exits, or the client disconnects);
/// first, after a reconnect, the handshake and rejoin (`rejoin`) with the lines the client
/// sent meanwhile held back. Then close it in order: writes, our side, the server, its last
/// stderr lines.
async fn run_link(
    shared: &Arc<SessionShared>,
    link: Link,
    out_rx: &Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Outgoing>>>,
    shutdown_rx: &mut oneshot::Receiver<()>,
    rejoin: Option<reconnect::Rejoin>,
) -> LinkEnd {
    let Link {
        reader,
        writer,
        direct,
        stderr,
        mut peer,
        cli_version,
        #[cfg(feature = "mcp-http")]
        auth_events,
    } = link;
    // Before the reader reads the handshake's answer it is compared with.
    shared.rules.link_opened(cli_version);
    #[cfg(not(feature = "mcp-http"))]
    let auth_task: Option<tokio::task::JoinHandle<()>> = None;
    #[cfg(feature = "mcp-http")]
    let auth_task = auth_events.map(|mut rx| {
        let shared = shared.clone();
        crate::rt::spawn(async move {
            while let Some(ev) = rx.recv().await {
                shared.connection_event(crate::event::ConnectionEvent::Auth(ev));
            }
        })
    });
    let generation = shared.link_gen.fetch_add(1, Ordering::AcqRel) + 1;
    shared.start_link();
    shared.pid.store(peer.pid().unwrap_or(0), Ordering::Release);
    shared.mark_link_opened();
    let restarted = !matches!(peer, transport::Peer::Remote);
    let stderr_task = stderr.map(|e| {
        let shared = shared.clone();
        crate::rt::spawn(async move { shared.stderr.collect(e).await })
    });
    let jsonrpc = shared.rules.jsonrpc_member();
    let (ctrl_tx, ctrl_rx) = mpsc::unbounded_channel();
    let (gate_tx, gate_rx) = oneshot::channel();
    let mut writer = crate::rt::spawn(writer_task(
        writer,
        ctrl_rx,
        gate_rx,
        (out_rx.clone(), shared.clone(), direct),
        jsonrpc,
        shared.heartbeat,
    ));
    let joined = AtomicBool::new(rejoin.is_none());
    let mut rejoining = std::pin::pin!(async {
        match rejoin {
            None => {
                let _ = gate_tx.send(());
                std::future::pending::<String>().await
            }
            Some(r) => {
                let why =
                    reconnect::rejoin(shared, &ctrl_tx, gate_tx, r, restarted, generation).await;
                match why {
                    Ok(()) => {
                        joined.store(true, Ordering::Release);
                        std::future::pending::<String>().await
                    }
                    Err(why) => why,
                }
            }
        }
    });
    let mut reading = std::pin::pin!(reader_loop(shared, reader));
    let mut by_client = false;
    let reason = tokio::select! {
        reason = &mut reading => reason,
        why = &mut rejoining => format!("the reconnect's handshake failed: {why}"),
        _ = &mut *shutdown_rx => {
            by_client = true;
            if shared.is_open() {
                "disconnected by the client".to_string()
            } else {
                "connect aborted by disconnect()".to_string()
            }
        }
        // The server's own exit ends the connection even while a process it left behind
        // keeps its stdout open: read what it wrote before exiting, then close.
        how = peer.exited() => {
            tokio::time::timeout(EXIT_DRAIN, &mut reading).await.unwrap_or(how)
        }
    };
    let joined = joined.load(Ordering::Acquire);
    let may_reconnect =
        !by_client && shared.reconnect.is_some() && (shared.is_open() || shared.is_reconnecting());
    if may_reconnect {
        // Nothing more goes to a dead link: what was queued for it is failed by the reconnect.
        writer.abort();
        let _ = (&mut writer).await;
    } else {
        // Let queued writes go out, then close our side so the server can finish on its own.
        shared.out.close();
        if tokio::time::timeout(WRITE_GRACE, &mut writer)
            .await
            .is_err()
        {
            writer.abort();
        }
    }
    let reason = match peer.stop().await {
        Some(exit) if exit != reason => format!("{reason} ({exit})"),
        _ => reason,
    };
    if let Some(t) = stderr_task {
        let _ = tokio::time::timeout(STDERR_GRACE, t).await;
    }
    if let Some(t) = auth_task {
        // The transport task has ended (the peer was stopped): its sender is gone.
        let _ = tokio::time::timeout(STDERR_GRACE, t).await;
    }
    LinkEnd {
        reason,
        may_reconnect,
        unfinished: (!joined).then_some(rejoin).flatten(),
    }
}

/// The writer of one link: first the reconnect's own lines (`ctrl`) until the gate opens,
/// then the connection's lines (`out`: its queue, the session, and the link's pipe for the
/// session's direct writes while this writer runs); a gate dropped unopened ends it.
async fn writer_task(
    mut w: MessageWriter,
    mut ctrl: mpsc::UnboundedReceiver<bytes::Bytes>,
    mut gate: oneshot::Receiver<()>,
    out: (
        Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Outgoing>>>,
        Arc<SessionShared>,
        Option<std::os::fd::OwnedFd>,
    ),
    jsonrpc: bool,
    heartbeat: Option<crate::options::Heartbeat>,
) {
    let frame = |line: bytes::Bytes| {
        if jsonrpc {
            crate::message::with_jsonrpc_member(&line)
        } else {
            line
        }
    };
    loop {
        tokio::select! {
            biased;
            Some(line) = ctrl.recv() => {
                if w.write(frame(line)).await.is_err() || w.flush().await.is_err() {
                    return;
                }
            }
            opened = &mut gate => {
                if opened.is_err() {
                    return;
                }
                break;
            }
        }
    }
    // Lines sent just before the gate opened.
    while let Ok(line) = ctrl.try_recv() {
        if w.write(frame(line)).await.is_err() {
            return;
        }
    }
    let (queue, shared, direct) = out;
    let mut rx = queue.lock().await;
    /// Ends direct writes when the writer ends, however it ends (aborted included).
    struct Detach(Arc<SessionShared>);
    impl Drop for Detach {
        fn drop(&mut self) {
            self.0.out.detach();
        }
    }
    let _detach = Detach(shared.clone());
    shared.out.attach(direct);
    let ping_every = heartbeat.filter(|_| w.is_ws()).map(|h| h.interval);
    writer_loop(w, &mut rx, &shared.out, ping_every).await
}

/// Read lines and handle them until the connection ends; why it ended.
///
/// Consumers are woken when the next read would wait (nothing more has arrived), or after a
/// batch of lines ([`SessionShared::wake_batch`]) while lines keep arriving: a fast stream
/// costs a wake-up per batch, not per chunk the server happened to write.
async fn reader_loop(shared: &SessionShared, mut reader: MessageReader) -> String {
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut since_wake = 0usize;
    loop {
        since_wake += 1;
        if since_wake >= shared.wake_batch() {
            shared.flush_wakes();
            since_wake = 0;
        }
        let read = {
            let mut read = std::pin::pin!(reader.read(&mut buf, shared.max_line_bytes));
            match std::future::poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await {
                Poll::Ready(r) => r,
                Poll::Pending => {
                    shared.flush_wakes();
                    since_wake = 0;
                    read.await
                }
            }
        };
        match read {
            Err(e) => return format!("reading from the server failed: {e}"),
            Ok(LineRead::Eof) => return "the server closed the connection".to_string(),
            Ok(LineRead::TooLong(n)) => shared.report(format!(
                "skipped a {n}-byte message from the server (limit {} bytes)",
                shared.max_line_bytes
            )),
            Ok(LineRead::Line) => {
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    if shared.trace_wire {
                        super::wire::log("<-", &buf);
                    }
                    shared.handle_line(&buf).await;
                }
                if buf.capacity() > 1024 * 1024 {
                    buf = Vec::with_capacity(16 * 1024);
                }
            }
        }
    }
}

/// Write what the connection sends (framed already), flushing once per burst and telling
/// `out` how many lines went out, until told to close.
async fn writer_loop(
    mut w: MessageWriter,
    rx: &mut mpsc::UnboundedReceiver<Outgoing>,
    out: &super::Out,
    ping_every: Option<Duration>,
) {
    let mut ticker = ping_every.map(|d| {
        let mut t = tokio::time::interval_at(tokio::time::Instant::now() + d, d);
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    loop {
        let msg = match &mut ticker {
            None => rx.recv().await,
            Some(t) => tokio::select! {
                msg = rx.recv() => msg,
                _ = t.tick() => {
                    if let Err(e) = w.ping().await {
                        tracing::debug!("heartbeat ping failed: {e}");
                        return;
                    }
                    continue;
                }
            },
        };
        let Some(msg) = msg else { break };
        let mut close = false;
        let mut lines = 0;
        let mut next = Some(msg);
        // Write everything already queued, then flush once.
        while let Some(m) = next.take() {
            match m {
                Outgoing::Line(line) => {
                    lines += 1;
                    if let Err(e) = w.write(line).await {
                        tracing::debug!("writing to the server failed: {e}");
                        return;
                    }
                }
                Outgoing::Close => {
                    close = true;
                    break;
                }
            }
            next = rx.try_recv().ok();
        }
        if let Err(e) = w.flush().await {
            tracing::debug!("flushing to the server failed: {e}");
            return;
        }
        out.written(lines);
        if close {
            w.close().await;
            return;
        }
    }
}
