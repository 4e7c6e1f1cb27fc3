//! The library's log records for bindings: the core's `tracing` events (its own, and the
//! server's stderr lines under target `codex_client::server_stderr`) forwarded to one sink
//! on one library-owned thread (`codex-log`), in order. Records are formatted where
//! they happen and queued without blocking; when more than [`LOG_QUEUE`] wait, new ones are
//! dropped rather than slowing a connection down.

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, OnceLock, RwLock};

use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

use crate::error::{Error, Result};

/// Records that may wait for the sink; more are dropped.
pub const LOG_QUEUE: usize = 8192;

/// One log record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogRecord {
    /// Severity.
    pub level: tracing::Level,
    /// Where it comes from: a module path, or `codex_client::server_stderr` for a line the
    /// server wrote to its stderr.
    pub target: &'static str,
    /// The message, with the event's other fields appended as ` name=value`.
    pub message: String,
}

type Sink = Arc<dyn Fn(LogRecord) + Send + Sync>;

static SENDER: OnceLock<SyncSender<LogRecord>> = OnceLock::new();
static SINK: RwLock<Option<Sink>> = RwLock::new(None);
/// The least severe level forwarded (tracing's order: 1 = ERROR … 5 = TRACE).
static MAX_VERBOSITY: AtomicU8 = AtomicU8::new(4);

fn verbosity(l: &tracing::Level) -> u8 {
    match *l {
        tracing::Level::ERROR => 1,
        tracing::Level::WARN => 2,
        tracing::Level::INFO => 3,
        tracing::Level::DEBUG => 4,
        _ => 5,
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.rest, " {}={}", field.name(), value);
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.rest, " {}={:?}", field.name(), value);
        }
    }
}

struct Forward;

impl<S: tracing::Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        if verbosity(meta.level()) > MAX_VERBOSITY.load(Ordering::Relaxed) {
            return;
        }
        let Some(tx) = SENDER.get() else { return };
        let mut f = Fields::default();
        event.record(&mut f);
        let _ = tx.try_send(LogRecord {
            level: *meta.level(),
            target: meta.target(),
            message: f.message + &f.rest,
        });
    }
}

/// The level the environment variable `CODEXCLIENT_LOG` names (`error`, `warn`/`warning`,
/// `info`, `debug`, `trace`; any case, surrounding spaces ignored), if it names one.
pub fn env_log_level() -> Option<tracing::Level> {
    level_named(&std::env::var("CODEXCLIENT_LOG").ok()?)
}

fn level_named(v: &str) -> Option<tracing::Level> {
    match v.trim().to_ascii_lowercase().as_str() {
        "error" => Some(tracing::Level::ERROR),
        "warn" | "warning" => Some(tracing::Level::WARN),
        "info" => Some(tracing::Level::INFO),
        "debug" => Some(tracing::Level::DEBUG),
        "trace" => Some(tracing::Level::TRACE),
        _ => None,
    }
}

/// Forward the library's log records at `level` and above to `sink`, called on the one
/// `codex-log` thread, never while the library holds a lock. When `CODEXCLIENT_LOG` names a
/// level ([`env_log_level`]) that level is used instead of `level`, so a program's log
/// output can be turned up (`CODEXCLIENT_LOG=trace`: every raw line too, see
/// `ClientOptions::trace_wire`) or down without changing its code. The first call installs
/// the process's global `tracing` subscriber and starts the thread; a later call replaces the
/// sink. Errors with [`Error::InvalidState`] when another global subscriber is installed
/// (then use `tracing` directly). A panicking sink loses that record only.
pub fn forward_logs(
    level: tracing::Level,
    sink: impl Fn(LogRecord) + Send + Sync + 'static,
) -> Result<()> {
    set_log_level(env_log_level().unwrap_or(level));
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(sink));
    if SENDER.get().is_some() {
        return Ok(());
    }
    let (tx, rx) = sync_channel::<LogRecord>(LOG_QUEUE);
    let subscriber = tracing_subscriber::registry().with(Forward);
    tracing::subscriber::set_global_default(subscriber).map_err(|_| {
        Error::InvalidState("another global tracing subscriber is installed".into())
    })?;
    if SENDER.set(tx).is_err() {
        return Ok(()); // a concurrent first call won; its thread forwards
    }
    std::thread::Builder::new()
        .name("codex-log".into())
        .spawn(move || {
            for rec in rx {
                // The read guard is held during the call: `stop_logs` waits for it.
                let sink = SINK.read().unwrap_or_else(|e| e.into_inner());
                if let Some(s) = sink.as_ref() {
                    let _ = catch_unwind(AssertUnwindSafe(|| s(rec)));
                }
            }
        })
        .map_err(|e| Error::Transport(format!("could not start the log thread: {e}")))?;
    Ok(())
}

/// Forward only records at `level` and above from now on.
pub fn set_log_level(level: tracing::Level) {
    MAX_VERBOSITY.store(verbosity(&level), Ordering::Relaxed);
}

/// Stop calling the sink: returns once a call in progress has returned; no call starts
/// afterwards (until `forward_logs` sets a sink again). A binding calls it before its
/// runtime goes away (for Python: at interpreter exit, with the GIL released).
pub fn stop_logs() {
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = None;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn codexclient_log_names_a_level() {
        assert_eq!(level_named("trace"), Some(tracing::Level::TRACE));
        assert_eq!(level_named(" WARNING "), Some(tracing::Level::WARN));
        assert_eq!(level_named("Debug"), Some(tracing::Level::DEBUG));
        assert_eq!(level_named("error"), Some(tracing::Level::ERROR));
        assert_eq!(level_named("info"), Some(tracing::Level::INFO));
        assert_eq!(level_named("loud"), None);
        assert_eq!(level_named(""), None);
    }

    #[test]
    fn records_reach_the_sink_on_the_log_thread_filtered_by_level() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        // Other tests of this process log too: keep only this test's records.
        forward_logs(tracing::Level::INFO, move |r| {
            if r.message.contains("log-test") {
                let thread = std::thread::current().name().map(str::to_owned);
                g.lock().unwrap().push((r, thread));
            }
        })
        .unwrap();
        tracing::debug!("log-test not forwarded");
        tracing::warn!(code = 7, "log-test forwarded");
        tracing::error!(target: "codex_client::server_stderr", "log-test stderr line");
        let end = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while got.lock().unwrap().len() < 2 && std::time::Instant::now() < end {
            std::thread::yield_now();
        }
        stop_logs();
        tracing::error!("log-test after stop");
        let got = got.lock().unwrap();
        let msgs: Vec<_> = got.iter().map(|(r, _)| r.message.as_str()).collect();
        assert_eq!(msgs, ["log-test forwarded code=7", "log-test stderr line"]);
        assert_eq!(got[0].0.level, tracing::Level::WARN);
        assert_eq!(got[1].0.target, "codex_client::server_stderr");
        assert!(got.iter().all(|(_, t)| t.as_deref() == Some("codex-log")));
    }
}
