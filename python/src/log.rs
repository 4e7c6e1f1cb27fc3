//! Bridge from the core's `tracing` output to Python's `logging`.
//!
//! Events are formatted where they happen (often the library's runtime thread) and sent on a
//! bounded channel without blocking and without the GIL; a Python thread reads them with
//! [`LogStream`] and hands them to `logging.getLogger("codexclient...")`. When the channel is
//! full, records are dropped rather than slowing the connection down.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Mutex, OnceLock};

use pyo3::prelude::*;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

use crate::executor::SIGNAL_SLICE;

type Record = (u8, &'static str, String);

static SENDER: OnceLock<SyncSender<Record>> = OnceLock::new();
static RECEIVER: Mutex<Option<Receiver<Record>>> = Mutex::new(None);
static MIN_LEVEL: AtomicU8 = AtomicU8::new(10);
static SHUTDOWN: AtomicBool = AtomicBool::new(false);

fn py_level(l: &tracing::Level) -> u8 {
    match *l {
        tracing::Level::ERROR => 40,
        tracing::Level::WARN => 30,
        tracing::Level::INFO => 20,
        tracing::Level::DEBUG => 10,
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

struct PyLogLayer;

impl<S: tracing::Subscriber> Layer<S> for PyLogLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = py_level(meta.level());
        if level < MIN_LEVEL.load(Ordering::Relaxed) || SHUTDOWN.load(Ordering::Relaxed) {
            return;
        }
        let Some(tx) = SENDER.get() else { return };
        let mut f = Fields::default();
        event.record(&mut f);
        let logger = if meta.target() == "codex_client::server_stderr" {
            "codexclient.server"
        } else {
            "codexclient"
        };
        let _ = tx.try_send((level, logger, f.message + &f.rest));
    }
}

/// Install the bridge as the global `tracing` subscriber (once; a no-op when another
/// subscriber is already installed).
pub(crate) fn install() {
    let (tx, rx) = sync_channel(8192);
    if SENDER.set(tx).is_err() {
        return;
    }
    *RECEIVER.lock().unwrap() = Some(rx);
    let filter = tracing_subscriber::filter::LevelFilter::DEBUG;
    let subscriber = tracing_subscriber::registry().with(PyLogLayer.with_filter(filter));
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// Forward only records at or above this Python logging level (default 10, DEBUG).
#[pyfunction]
pub fn set_log_level(level: u8) {
    MIN_LEVEL.store(level, Ordering::Relaxed);
}

/// Stop forwarding: every `LogStream` ends.
#[pyfunction]
pub fn shutdown_logging() {
    SHUTDOWN.store(true, Ordering::Release);
}

/// The forwarded records: iterate it (blocking, the GIL released) to get
/// `(level, logger_name, message)` tuples. Only the first stream gets records.
#[pyclass(module = "codexclient._native", frozen)]
pub struct LogStream {
    rx: Mutex<Option<Receiver<Record>>>,
}

#[pymethods]
impl LogStream {
    /// Take the record channel.
    #[new]
    fn new() -> Self {
        LogStream {
            rx: Mutex::new(RECEIVER.lock().unwrap().take()),
        }
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Record>> {
        loop {
            if SHUTDOWN.load(Ordering::Acquire) {
                return Ok(None);
            }
            let r = py.detach(|| {
                let rx = self.rx.lock().unwrap();
                match rx.as_ref() {
                    Some(rx) => rx.recv_timeout(SIGNAL_SLICE),
                    None => {
                        std::thread::sleep(SIGNAL_SLICE);
                        Err(RecvTimeoutError::Timeout)
                    }
                }
            });
            match r {
                Ok(rec) => return Ok(Some(rec)),
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            }
        }
    }
}
