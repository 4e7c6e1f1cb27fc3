//! One running turn: the core's routed [`TurnStream`] behind a Python iterator.

use std::future::poll_fn;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codex_client::delivery::{poll_once, wait_until, within};
use codex_client::{
    Client, ConnectionEvent, DisconnectInfo, Error, Event, TurnBounds, TurnResult, TurnStream,
};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;

use crate::errors::to_py;
use crate::executor::{request_options, run, Aio, Executor, Outcome, SIGNAL_SLICE};
use crate::stream::{Shared, Source};
use pyo3::IntoPyObjectExt;

/// The bounds of a turn's wait (the core's [`TurnBounds`]), started when made: the whole turn
/// within `timeout`, no silence longer than `idle` (seconds; `None`: no bound).
#[pyclass(module = "codexclient._native", name = "TurnBounds", frozen)]
pub struct PyTurnBounds(TurnBounds);

#[pymethods]
impl PyTurnBounds {
    #[new]
    #[pyo3(signature = (timeout = None, idle = None))]
    fn new(py: Python<'_>, timeout: Option<f64>, idle: Option<f64>) -> PyResult<Self> {
        let secs = |t: Option<f64>| request_options(py, t).map(|o| o.timeout);
        Ok(PyTurnBounds(TurnBounds::new(secs(timeout)?, secs(idle)?)))
    }
}

/// A turn being streamed (from `turn/start` to its `turn/completed`).
#[pyclass(module = "codexclient._native", frozen)]
pub struct Turn {
    state: Shared<TurnStream>,
    /// The disconnect that ended the stream (turned into an error at the end) and the result
    /// kept when the stream is closed.
    end: Arc<Mutex<(Option<DisconnectInfo>, TurnResult)>>,
    client: Client,
    thread_id: String,
    turn_id: String,
    started: String,
}

impl Turn {
    pub(crate) fn new(client: Client, stream: TurnStream) -> Turn {
        Turn {
            thread_id: stream.thread_id().to_owned(),
            turn_id: stream.turn_id().to_owned(),
            started: stream.started_turn().to_string(),
            client,
            state: Source::new(stream),
            end: Arc::new(Mutex::new((None, TurnResult::default()))),
        }
    }

    /// Up to `max` ready events, converted (server requests handed to the client's handler
    /// table first; the disconnect left out and kept for the end), as a list; `None` at the
    /// end when the turn completed; the disconnect error at the end when it did not.
    fn batch<'py>(
        py: Python<'py>,
        state: &Shared<TurnStream>,
        end: &Mutex<(Option<DisconnectInfo>, TurnResult)>,
        client: &Client,
        max: usize,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let list = Source::take_list(py, state, max, |py, ev| match ev {
            Event::Connection(ConnectionEvent::Disconnected(info)) => {
                end.lock().unwrap().0 = Some(info);
                Ok(None)
            }
            ev => crate::events::convert_one(py, ev, Some(client)).map(Some),
        })?;
        if !list.is_empty() {
            return Ok(Some(list));
        }
        let st = state.lock().unwrap();
        if !st.ended {
            return Ok(Some(list));
        }
        let completed = !Self::result_in(&st, end).status.is_empty();
        let disconnect = end.lock().unwrap().0.clone();
        let disconnect = disconnect.map(|i| Self::named(&st, i));
        drop(st);
        match disconnect.filter(|_| !completed) {
            Some(info) => Err(to_py(py, Error::Disconnected(info))),
            None => Ok(None),
        }
    }

    /// The disconnect as the core's turn reports it (naming the endpoint, thread and turn).
    fn named(st: &Source<TurnStream>, info: DisconnectInfo) -> DisconnectInfo {
        match &st.stream {
            Some(s) => s.lost_here(&info),
            None => info,
        }
    }

    /// The next ready event (the disconnect left out and kept for the end); `Err` at the end:
    /// `None` when the turn completed, else the disconnect error.
    fn pop(&self) -> Result<Option<Event>, Option<Error>> {
        loop {
            let mut st = self.state.lock().unwrap();
            match st.next_now() {
                Some(Event::Connection(ConnectionEvent::Disconnected(info))) => {
                    self.end.lock().unwrap().0 = Some(info)
                }
                Some(ev) => return Ok(Some(ev)),
                None if st.ended => {
                    let completed = !Self::result_in(&st, &self.end).status.is_empty();
                    let disconnect = self.end.lock().unwrap().0.clone();
                    let disconnect = disconnect.map(|i| Self::named(&st, i));
                    return Err(disconnect.filter(|_| !completed).map(Error::Disconnected));
                }
                None => return Ok(None),
            }
        }
    }

    fn result_in(
        st: &Source<TurnStream>,
        end: &Mutex<(Option<DisconnectInfo>, TurnResult)>,
    ) -> TurnResult {
        match &st.stream {
            Some(s) => s.result().clone(),
            None => end.lock().unwrap().1.clone(),
        }
    }

    /// Wait until events wait or the stream ended (true), at most `bound` (`None`: no
    /// bound; false past it). The GIL is released; Ctrl-C is checked every 100 ms.
    fn wait_for(&self, py: Python<'_>, bound: Option<Duration>) -> PyResult<bool> {
        let Some(bound) = bound else {
            Source::wait(py, &self.state)?;
            return Ok(true);
        };
        let end = Instant::now() + bound;
        loop {
            if self.state.lock().unwrap().ready_now() {
                return Ok(true);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(false);
            }
            let slice = end.min(now + SIGNAL_SLICE);
            let state = &self.state;
            let ready = py.detach(|| {
                let fut = std::pin::pin!(poll_fn(|cx| state.lock().unwrap().poll_ready(cx)));
                wait_until(fut, slice).is_some()
            });
            if !ready {
                py.check_signals()?;
            }
        }
    }

    fn end(py: Python<'_>, e: Option<Error>) -> PyResult<Option<Py<PyAny>>> {
        e.map_or(Ok(None), |e| Err(to_py(py, e)))
    }

    /// Send `(method, params)`; with `aio` on the loop, else blocking.
    fn send(
        &self,
        py: Python<'_>,
        (method, params): (&'static str, Value),
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let opts = request_options(py, timeout)?;
        let client = self.client.clone();
        let fut = async move { client.request_with(method, params, opts).await };
        run(py, aio, fut, |py, _| Ok(py.None()))
    }
}

/// The JSON form of a turn result (the core's view).
pub(crate) fn result_json(r: &TurnResult) -> String {
    r.to_json().to_string()
}

#[pymethods]
impl Turn {
    /// The thread id.
    #[getter]
    fn thread_id(&self) -> &str {
        &self.thread_id
    }
    /// The turn id.
    #[getter]
    fn turn_id(&self) -> &str {
        &self.turn_id
    }
    /// The `turn` object `turn/start` returned, as JSON text.
    #[getter]
    fn started_json(&self) -> &str {
        &self.started
    }
    /// Whether every event has been read.
    #[getter]
    fn done(&self) -> bool {
        let st = self.state.lock().unwrap();
        st.ended || st.stream.as_ref().is_none_or(|s| s.is_done())
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event of the turn (blocking, GIL released while waiting). Server requests are
    /// handed to the client's handler table (the core's) before they are returned. Raises
    /// `ConnectionClosedError` when the connection ends before the turn completed.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            match self.pop() {
                Err(e) => return Self::end(py, e),
                Ok(Some(ev)) => {
                    return crate::events::convert_one(py, ev, Some(&self.client)).map(Some)
                }
                Ok(None) => Source::wait(py, &self.state)?,
            }
        }
    }

    /// Up to `max` events without waiting: a list (empty when none wait) or `None` at the end.
    /// Raises `ConnectionClosedError` when the connection ended before the turn completed.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        Self::batch(py, &self.state, &self.end, &self.client, max)
    }

    /// Resolve `aio`'s future, once events wait or the turn's stream ended, with what
    /// `take(max)` returns then (the wake-up carries the events): a list (empty only if
    /// another reader took them first), `None` at the end, or the `ConnectionClosedError`.
    /// With `bounds`, resolve it with `False` instead when no event came within the wait they
    /// allow (`TurnBounds.next_wait`; then `give_up_async`). A cancelled wait takes no event.
    #[pyo3(signature = (aio, bounds = None, max = 1024))]
    fn wait_async(
        &self,
        py: Python<'_>,
        aio: Aio,
        bounds: Option<&PyTurnBounds>,
        max: usize,
    ) -> PyResult<Py<PyAny>> {
        let (state, end, client) = (self.state.clone(), self.end.clone(), self.client.clone());
        let take = move |py: Python<'_>| -> PyResult<Py<PyAny>> {
            Ok(match Self::batch(py, &state, &end, &client, max)? {
                Some(list) => list.into_any().unbind(),
                None => py.None(),
            })
        };
        let Some(bounds) = bounds else {
            return Source::wait_async(py, aio, &self.state, take);
        };
        let state = self.state.clone();
        let wait = bounds.0.next_wait();
        let fut = async move {
            let ready = poll_fn(move |cx| state.lock().unwrap().poll_ready(cx));
            Ok(within(wait, ready).await.is_some())
        };
        run(py, aio, fut, move |py, ready| {
            if ready {
                take(py)
            } else {
                false.into_py_any(py)
            }
        })
    }

    /// Give the turn up past one of `bounds` (after `wait_async` resolved with `False`),
    /// without blocking the loop: the core interrupts it and drains its last events
    /// (`TurnStream::give_up_async`); `aio`'s future then fails with the `RequestTimeoutError`
    /// naming the bound and the last event. The stream is closed; the result gathered stays
    /// readable (`result_json`).
    fn give_up_async(
        &self,
        py: Python<'_>,
        bounds: &PyTurnBounds,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let b = bounds.0;
        let overall = b.overall_expired();
        let stream = self.state.lock().unwrap().stream.take();
        let Some(mut stream) = stream else {
            return Err(to_py(
                py,
                Error::InvalidArgument("the turn is closed".into()),
            ));
        };
        self.state.lock().unwrap().ended = true;
        let end = self.end.clone();
        let fut = async move {
            let e = stream.give_up_async(overall, b.timeout(), b.idle()).await;
            end.lock().unwrap().1 = stream.result().clone();
            drop(stream);
            Err::<(), _>(e)
        };
        run(py, aio, fut, |py, ()| Ok(py.None()))
    }

    /// Read the rest of the turn (blocking; server requests go to the handlers) and return the
    /// result as JSON text. Raises `ConnectionClosedError` if the connection ended first.
    /// `timeout` bounds the whole wait and `idle` the silence between two events (seconds,
    /// `None`: no bound); past either the core gives the turn up (`TurnStream::give_up`:
    /// interrupted, `RequestTimeoutError` naming the bound and the last event).
    #[pyo3(signature = (timeout = None, idle = None))]
    fn finish(&self, py: Python<'_>, timeout: Option<f64>, idle: Option<f64>) -> PyResult<String> {
        let secs = |t: Option<f64>| request_options(py, t).map(|o| o.timeout);
        let bounds = TurnBounds::new(secs(timeout)?, secs(idle)?);
        loop {
            match self.pop() {
                Err(e) => {
                    Self::end(py, e)?;
                    break;
                }
                Ok(Some(ev)) => {
                    drop(crate::events::convert_one(py, ev, Some(&self.client))?);
                    continue;
                }
                Ok(None) => {}
            }
            if !self.wait_for(py, bounds.next_wait())? {
                let (t, i) = (bounds.timeout(), bounds.idle());
                let overall = bounds.overall_expired();
                let e = self
                    .state
                    .lock()
                    .unwrap()
                    .stream
                    .as_mut()
                    .map(|s| s.give_up(overall, t, i));
                if let Some(e) = e {
                    return Err(to_py(py, e));
                }
            }
        }
        Ok(self.result_json())
    }

    /// The result gathered so far, as JSON text.
    fn result_json(&self) -> String {
        result_json(&Self::result_in(&self.state.lock().unwrap(), &self.end))
    }

    /// Send `turn/interrupt` and wait for its answer (the stream then ends with a
    /// `turn/completed` whose status is `interrupted`).
    #[pyo3(signature = (timeout = None, aio = None))]
    fn interrupt(&self, py: Python<'_>, timeout: Option<f64>, aio: Aio) -> PyResult<Py<PyAny>> {
        let req = TurnStream::interrupt_request(&self.thread_id, &self.turn_id);
        self.send(py, req, timeout, aio)
    }

    /// Send `turn/interrupt` without waiting for the answer (when an iteration is left):
    /// on `executor` when given, else from this thread.
    #[pyo3(signature = (executor = None))]
    fn interrupt_nowait(&self, py: Python<'_>, executor: Option<&Executor>) {
        let (method, params) = TurnStream::interrupt_request(&self.thread_id, &self.turn_id);
        let client = self.client.clone();
        let fut = async move {
            let r = client.request(method, params).await;
            Box::new(move |py: Python<'_>| r.map(|_| py.None()).map_err(|e| to_py(py, e)))
                as Outcome
        };
        match executor {
            Some(ex) => {
                ex.spawn(py, fut, None);
            }
            // The request is written before the first poll returns; the answer is not awaited.
            None => {
                py.detach(|| poll_once(fut));
            }
        }
    }

    /// `turn/steer`: add input (JSON: a string, an input item or a list of them) to the
    /// running turn.
    #[pyo3(signature = (input_json, timeout = None, aio = None))]
    fn steer(
        &self,
        py: Python<'_>,
        input_json: &str,
        timeout: Option<f64>,
        aio: Aio,
    ) -> PyResult<Py<PyAny>> {
        let input = crate::args::input(py, input_json)?.to_value();
        let req = TurnStream::steer_request(&self.thread_id, &self.turn_id, input);
        self.send(py, req, timeout, aio)
    }

    /// Stop routing this turn's events here; later events go to the client's normal delivery.
    /// Does not interrupt the turn.
    fn close(&self, py: Python<'_>) {
        if let Some(s) = Source::close(&self.state) {
            self.end.lock().unwrap().1 = s.result().clone();
            py.detach(move || drop(s));
        }
    }
}
