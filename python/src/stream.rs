//! `client.events()`: a subscription of the core ([`codex_client::Client::subscribe`]) behind
//! a blocking Python iterator, or drained from asyncio with `take()` and `wait_async()`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use codex_client::Event;
use futures_core::Stream;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::executor::{none_outcome, Aio, SIGNAL_SLICE};

struct State {
    /// `None` once closed.
    stream: Option<codex_client::EventStream>,
    /// Events taken from the stream, not yet handed to Python.
    local: VecDeque<Event>,
    ended: bool,
}

impl State {
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

    /// Ready once events wait here or the stream ended (async use).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while self.local.is_empty() && !self.ended {
            if !self.poll_one(cx) {
                return Poll::Pending;
            }
        }
        Poll::Ready(())
    }
}

/// A stream of the connection's notifications and connection events (see
/// `Client.events()`); it ends after the connection's `disconnected` event.
#[pyclass(module = "codexclient._native", frozen)]
pub struct EventStream {
    state: Arc<Mutex<State>>,
}

impl EventStream {
    pub(crate) fn new(stream: codex_client::EventStream) -> EventStream {
        EventStream {
            state: Arc::new(Mutex::new(State {
                stream: Some(stream),
                local: VecDeque::new(),
                ended: false,
            })),
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
            let got = py.detach(|| {
                let mut st = self.state.lock().unwrap();
                if let Some(ev) = st.local.pop_front() {
                    return Some(Some(ev));
                }
                let st = &mut *st;
                let Some(s) = st.stream.as_mut().filter(|_| !st.ended) else {
                    return Some(None);
                };
                let mut out = Vec::new();
                st.ended = !s.next_blocking(&mut out, 1024, Some(SIGNAL_SLICE));
                st.local.extend(out);
                let ev = st.local.pop_front();
                (ev.is_some() || st.ended).then_some(ev)
            });
            match got {
                Some(Some(ev)) => return crate::events::to_object(py, ev).map(|o| Some(o.0)),
                Some(None) => return Ok(None),
                None => py.check_signals()?,
            }
        }
    }

    /// Up to `max` waiting events, without waiting: a list (empty when none wait), or `None`
    /// once the stream has ended.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let evs: Vec<Event> = {
            let mut st = self.state.lock().unwrap();
            let mut cx = Context::from_waker(Waker::noop());
            while st.local.len() < max && !st.ended && st.poll_one(&mut cx) {}
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
        let state = self.state.clone();
        let f = std::future::poll_fn(move |cx| state.lock().unwrap().poll_ready(cx));
        none_outcome(py, aio, f)
    }

    /// Stop receiving: the subscription ends and waiting events are dropped.
    fn close(&self, py: Python<'_>) {
        let (stream, local) = {
            let mut st = self.state.lock().unwrap();
            st.ended = true;
            (st.stream.take(), std::mem::take(&mut st.local))
        };
        py.detach(move || drop((stream, local)));
    }
}
