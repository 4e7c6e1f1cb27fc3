//! Python iteration of the core's event streams. A [`Source`] holds the core stream and
//! nothing else: events stay in the core (its queue and its stream's batch buffer) until they
//! are converted into the Python objects handed out. It is iterated blocking (GIL released
//! only while nothing is ready, Ctrl-C checked), or from asyncio: `take()` fills a list
//! straight from the core stream, and when it is empty `wait_async()` resolves its future with
//! the next batch itself (one crossing per wake-up). [`EventStream`] is `client.events()`, a
//! subscription of the core ([`codex_client::Client::subscribe`]).

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use codex_client::{Event, EventReceiver, TurnStream};
use futures_core::Stream;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::executor::{block_on, when_ready, Aio};

/// A core event stream that can tell it is ready without giving up an event (its
/// `poll_ready`), so that a wait can end without anything held outside the core.
pub(crate) trait ReadyStream: Stream<Item = Event> + Unpin + Send + 'static {
    /// Ready once the next `poll_next` returns without waiting.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()>;
}

impl ReadyStream for EventReceiver {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        EventReceiver::poll_ready(self, cx)
    }
}

impl ReadyStream for TurnStream {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        TurnStream::poll_ready(self, cx)
    }
}

/// A core stream of events as Python reads it.
pub(crate) struct Source<S> {
    /// `None` once closed.
    pub(crate) stream: Option<S>,
    /// The stream has ended (or was closed).
    pub(crate) ended: bool,
}

/// A [`Source`] shared with the futures that wait on it.
pub(crate) type Shared<S> = Arc<Mutex<Source<S>>>;

impl<S: ReadyStream> Source<S> {
    pub(crate) fn new(stream: S) -> Shared<S> {
        Arc::new(Mutex::new(Source {
            stream: Some(stream),
            ended: false,
        }))
    }

    /// Ready once an event can be taken without waiting or the stream ended.
    pub(crate) fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match self.stream.as_mut() {
            Some(s) if !self.ended => s.poll_ready(cx),
            _ => Poll::Ready(()),
        }
    }

    /// [`poll_ready`](Self::poll_ready) without registering a waker.
    pub(crate) fn ready_now(&mut self) -> bool {
        self.poll_ready(&mut Context::from_waker(Waker::noop()))
            .is_ready()
    }

    /// The next event if one is ready (`None`: none yet, or the end, which sets `ended`).
    pub(crate) fn next_now(&mut self) -> Option<Event> {
        let s = self.stream.as_mut().filter(|_| !self.ended)?;
        match Pin::new(s).poll_next(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Some(ev)) => Some(ev),
            Poll::Ready(None) => {
                self.ended = true;
                None
            }
            Poll::Pending => None,
        }
    }

    /// Up to `max` ready events, taken now one by one (the lock is not held while one is
    /// converted: a conversion may run Python code or release the GIL), each converted by
    /// `conv` (`None`: left out) and appended to a new list.
    pub(crate) fn take_list<'py>(
        py: Python<'py>,
        state: &Shared<S>,
        max: usize,
        mut conv: impl FnMut(Python<'py>, Event) -> PyResult<Option<Py<PyAny>>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let mut n = 0;
        while n < max {
            let Some(ev) = state.lock().unwrap().next_now() else {
                break;
            };
            if let Some(obj) = conv(py, ev)? {
                list.append(obj)?;
                n += 1;
            }
        }
        Ok(list)
    }

    /// Wait (blocking, GIL released, Ctrl-C checked) until an event is ready or the stream
    /// ended. The GIL is released only when nothing is ready: a thread that gave it up for
    /// every event would hand it to another consumer thread each time (with 50 iterating
    /// threads, a thread switch per event).
    pub(crate) fn wait(py: Python<'_>, state: &Shared<S>) -> PyResult<()> {
        if state.lock().unwrap().ready_now() {
            return Ok(());
        }
        block_on(py, poll_fn(|cx| state.lock().unwrap().poll_ready(cx)))
    }

    /// On the loop (`aio`): resolve the asyncio future, once an event is ready or the stream
    /// ended, with what `then` makes of it (a batch taken then, on the loop thread), so the
    /// wake-up carries the events. A cancelled future leaves them in the stream.
    pub(crate) fn wait_async<T>(
        py: Python<'_>,
        aio: Aio,
        state: &Shared<S>,
        then: T,
    ) -> PyResult<Py<PyAny>>
    where
        T: FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send + 'static,
    {
        let state = state.clone();
        let ready = poll_fn(move |cx| state.lock().unwrap().poll_ready(cx));
        when_ready(py, aio, ready, then)
    }

    /// Stop: drop the stream (the core then delivers its events elsewhere, or ends the
    /// subscription); the caller drops it.
    pub(crate) fn close(state: &Shared<S>) -> Option<S> {
        let mut st = state.lock().unwrap();
        st.ended = true;
        st.stream.take()
    }
}

/// A stream of the connection's notifications and connection events (see
/// `Client.events()`); it ends after the connection's `disconnected` event.
#[pyclass(module = "codexclient._native", frozen)]
pub struct EventStream {
    state: Shared<EventReceiver>,
}

impl EventStream {
    pub(crate) fn new(stream: EventReceiver) -> EventStream {
        EventStream {
            state: Source::new(stream),
        }
    }

    /// Up to `max` ready events as a list (empty when none is ready), or `None` once the
    /// stream has ended.
    fn batch<'py>(
        py: Python<'py>,
        state: &Shared<EventReceiver>,
        max: usize,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let list = Source::take_list(py, state, max, |py, ev| {
            crate::events::to_object(py, ev).map(Some)
        })?;
        if list.is_empty() && state.lock().unwrap().ended {
            return Ok(None);
        }
        Ok(Some(list))
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
                match st.next_now() {
                    None if st.ended => return Ok(None),
                    ev => ev,
                }
            };
            match ev {
                Some(ev) => return crate::events::to_object(py, ev).map(Some),
                None => Source::wait(py, &self.state)?,
            }
        }
    }

    /// Up to `max` waiting events, without waiting: a list (empty when none wait), or `None`
    /// once the stream has ended.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        Self::batch(py, &self.state, max)
    }

    /// Resolve `aio`'s future, once events wait or the stream ended, with what `take(max)`
    /// returns then: a list of events (empty only if another reader took them first), or
    /// `None` at the end. Returns the executor task id (cancel it with
    /// `executor.cancel(id)`; a cancelled wait takes no event).
    #[pyo3(signature = (aio, max = 1024))]
    fn wait_async(&self, py: Python<'_>, aio: Aio, max: usize) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        Source::wait_async(py, aio, &self.state, move |py| {
            Ok(match Self::batch(py, &state, max)? {
                Some(list) => list.into_any().unbind(),
                None => py.None(),
            })
        })
    }

    /// Stop receiving: the subscription ends and waiting events are dropped.
    fn close(&self, py: Python<'_>) {
        let stream = Source::close(&self.state);
        py.detach(move || drop(stream));
    }
}
