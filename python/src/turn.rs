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
use crate::stream::{Buffered, Shared};
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
            state: Buffered::new(stream),
            end: Arc::new(Mutex::new((None, TurnResult::default()))),
        }
    }

    /// Up to `max` waiting events (the disconnect left out); `Err` at the end: `None` when
    /// the turn completed, else the disconnect error.
    fn pop(&self, max: usize) -> Result<Vec<Event>, Option<Error>> {
        let mut st = self.state.lock().unwrap();
        let mut out = Vec::new();
        while out.len() < max {
            match st.local.pop_front() {
                Some(Event::Connection(ConnectionEvent::Disconnected(info))) => {
                    self.end.lock().unwrap().0 = Some(info)
                }
                Some(ev) => out.push(ev),
                None => break,
            }
        }
        if out.is_empty() && st.ended {
            let completed = !self.result_of(&st).status.is_empty();
            let disconnect = self.end.lock().unwrap().0.clone();
            return Err(disconnect.filter(|_| !completed).map(Error::Disconnected));
        }
        Ok(out)
    }

    fn result_of(&self, st: &Buffered<TurnStream>) -> TurnResult {
        match &st.stream {
            Some(s) => s.result().clone(),
            None => self.end.lock().unwrap().1.clone(),
        }
    }

    /// Wait until events wait or the stream ended (true), at most `bound` (`None`: no
    /// bound; false past it). The GIL is released; Ctrl-C is checked every 100 ms.
    fn wait_for(&self, py: Python<'_>, bound: Option<Duration>) -> PyResult<bool> {
        let Some(bound) = bound else {
            Buffered::wait(py, &self.state)?;
            return Ok(true);
        };
        let end = Instant::now() + bound;
        loop {
            {
                let mut st = self.state.lock().unwrap();
                st.fill(1);
                if !st.local.is_empty() || st.ended {
                    return Ok(true);
                }
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
        st.local.is_empty() && (st.ended || st.stream.as_ref().is_none_or(|s| s.is_done()))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event of the turn (blocking, GIL released while waiting). Server requests are
    /// handed to the client's handler table (the core's) before they are returned. Raises
    /// `ConnectionClosedError` when the connection ends before the turn completed.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            match self.pop(1) {
                Err(e) => return Self::end(py, e),
                Ok(evs) => match evs.into_iter().next() {
                    Some(ev) => {
                        return crate::events::convert_one(py, ev, Some(&self.client)).map(Some)
                    }
                    None => Buffered::wait(py, &self.state)?,
                },
            }
        }
    }

    /// Up to `max` events without waiting: a list (empty when none wait) or `None` at the end.
    /// Raises `ConnectionClosedError` when the connection ended before the turn completed.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        self.state.lock().unwrap().fill(max);
        match self.pop(max) {
            Err(e) => Self::end(py, e).map(|_| None),
            Ok(evs) => {
                let list = PyList::empty(py);
                crate::events::extend_list(py, &list, evs, Some(&self.client))?;
                Ok(Some(list))
            }
        }
    }

    /// Resolve `aio`'s future (with `None`) once events wait or the turn's stream ended.
    /// With `bounds`, resolve it with `True` then, or with `False` when no event came within
    /// the wait they allow (`TurnBounds.next_wait`; then `give_up_async`).
    #[pyo3(signature = (aio, bounds = None))]
    fn wait_async(
        &self,
        py: Python<'_>,
        aio: Aio,
        bounds: Option<&PyTurnBounds>,
    ) -> PyResult<Py<PyAny>> {
        let Some(bounds) = bounds else {
            return Buffered::wait_async(py, aio, &self.state);
        };
        let state = self.state.clone();
        let wait = bounds.0.next_wait();
        let fut = async move {
            let ready = poll_fn(move |cx| state.lock().unwrap().poll_ready(cx));
            Ok(within(wait, ready).await.is_some())
        };
        run(py, aio, fut, |py, ready| ready.into_py_any(py))
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
            match self.pop(1) {
                Err(e) => {
                    Self::end(py, e)?;
                    break;
                }
                Ok(evs) => {
                    if let Some(ev) = evs.into_iter().next() {
                        drop(crate::events::convert_one(py, ev, Some(&self.client))?);
                        continue;
                    }
                }
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
        result_json(&self.result_of(&self.state.lock().unwrap()))
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
        if let Some(s) = Buffered::close(py, &self.state) {
            self.end.lock().unwrap().1 = s.result().clone();
            py.detach(move || drop(s));
        }
    }
}
