//! Python iteration of the core's event streams: a [`Buffered`] stream is iterated blocking
//! (GIL released, Ctrl-C checked), or drained from asyncio with `take()` after `wait_async()`;
//! [`EventStream`] is `client.events()`, a subscription of the core
//! ([`codex_client::Client::subscribe`]).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use codex_client::Event;
use futures_core::Stream;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::executor::{block_on, none_outcome, Aio};

/// Events a blocking iterator takes from its core stream at a time, once some are ready.
const BATCH: usize = 256;

/// A core stream of events and the events taken from it, not yet handed to Python.
pub(crate) struct Buffered<S> {
    /// `None` once closed.
    pub(crate) stream: Option<S>,
    pub(crate) local: VecDeque<Event>,
    pub(crate) ended: bool,
}

/// A [`Buffered`] stream shared with the futures that wait on it.
pub(crate) type Shared<S> = Arc<Mutex<Buffered<S>>>;

impl<S: Stream<Item = Event> + Unpin + Send + 'static> Buffered<S> {
    pub(crate) fn new(stream: S) -> Shared<S> {
        Arc::new(Mutex::new(Buffered {
            stream: Some(stream),
            local: VecDeque::new(),
            ended: false,
        }))
    }

    /// Take one event (or the end) from the stream: `false` when none is ready yet.
    fn poll_one(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(s) = self.stream.as_mut() else {
            self.ended = true;
            return true;
        };
        match Pin::new(s).poll_next(cx) {
            Poll::Ready(Some(ev)) => self.local.push_back(ev),
            Poll::Ready(None) => self.ended = true,
            Poll::Pending => return false,
        }
        true
    }

    /// Ready once events wait here or the stream ended.
    pub(crate) fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while self.local.is_empty() && !self.ended {
            if !self.poll_one(cx) {
                return Poll::Pending;
            }
        }
        Poll::Ready(())
    }

    /// Take what is ready, without waiting, until `max` events wait here.
    pub(crate) fn fill(&mut self, max: usize) {
        let mut cx = Context::from_waker(Waker::noop());
        while self.local.len() < max && !self.ended && self.poll_one(&mut cx) {}
    }

    /// Wait (blocking, GIL released, Ctrl-C checked) until events wait or the stream ended,
    /// then take up to [`BATCH`] ready events. The GIL is released only when nothing is ready:
    /// a thread that gave it up for every event would hand it to another consumer thread
    /// each time (with 50 iterating threads, a thread switch per event).
    pub(crate) fn wait(py: Python<'_>, state: &Shared<S>) -> PyResult<()> {
        {
            let mut st = state.lock().unwrap();
            st.fill(BATCH);
            if !st.local.is_empty() || st.ended {
                return Ok(());
            }
        }
        block_on(py, poll_fn(|cx| state.lock().unwrap().poll_ready(cx)))?;
        state.lock().unwrap().fill(BATCH);
        Ok(())
    }

    /// [`wait`](Self::wait) on the loop: resolve `aio`'s future (with `None`).
    pub(crate) fn wait_async(py: Python<'_>, aio: Aio, state: &Shared<S>) -> PyResult<Py<PyAny>> {
        let state = state.clone();
        none_outcome(
            py,
            aio,
            poll_fn(move |cx| state.lock().unwrap().poll_ready(cx)),
        )
    }

    /// Stop: drop the stream (the core then delivers its events elsewhere, or ends the
    /// subscription) and the events waiting here.
    pub(crate) fn close(py: Python<'_>, state: &Shared<S>) -> Option<S> {
        let (stream, local) = {
            let mut st = state.lock().unwrap();
            st.ended = true;
            (st.stream.take(), std::mem::take(&mut st.local))
        };
        py.detach(move || drop(local));
        stream
    }
}

/// A stream of the connection's notifications and connection events (see
/// `Client.events()`); it ends after the connection's `disconnected` event.
#[pyclass(module = "codexclient._native", frozen)]
pub struct EventStream {
    state: Shared<codex_client::EventReceiver>,
}

impl EventStream {
    pub(crate) fn new(stream: codex_client::EventReceiver) -> EventStream {
        EventStream {
            state: Buffered::new(stream),
        }
    }
}

#[pymethods]
impl EventStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event; blocks (GIL released) until one arrives. Ends with the connection.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let ev = {
                let mut st = self.state.lock().unwrap();
                match st.local.pop_front() {
                    None if st.ended => return Ok(None),
                    ev => ev,
                }
            };
            match ev {
                Some(ev) => return crate::events::to_object(py, ev).map(Some),
                None => Buffered::wait(py, &self.state)?,
            }
        }
    }

    /// Up to `max` waiting events, without waiting: a list (empty when none wait), or `None`
    /// once the stream has ended.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let evs: Vec<Event> = {
            let mut st = self.state.lock().unwrap();
            st.fill(max);
            if st.local.is_empty() && st.ended {
                return Ok(None);
            }
            let n = st.local.len().min(max);
            st.local.drain(..n).collect()
        };
        let list = PyList::empty(py);
        crate::events::extend_list(py, &list, evs, None)?;
        Ok(Some(list))
    }

    /// Resolve `aio`'s future (with `None`) once events wait or the stream ended. Returns the
    /// executor task id (cancel it with `executor.cancel(id)`).
    fn wait_async(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        Buffered::wait_async(py, aio, &self.state)
    }

    /// Stop receiving: the subscription ends and waiting events are dropped.
    fn close(&self, py: Python<'_>) {
        let stream = Buffered::close(py, &self.state);
        py.detach(move || drop(stream));
    }
}
