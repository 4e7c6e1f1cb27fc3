//! One running turn: the core's routed [`TurnStream`] behind a Python iterator.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use codex_client::{Client, ConnectionEvent, DisconnectInfo, Error, Event, TurnResult, TurnStream};
use futures_core::Stream;
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::{json, Value};

use crate::errors::to_py;
use crate::executor::{
    none_outcome, request_options, run, thread_waker, Aio, Executor, Outcome, SIGNAL_SLICE,
};

struct TurnState {
    stream: Option<TurnStream>,
    front: VecDeque<Event>,
    disconnect: Option<DisconnectInfo>,
    last_result: TurnResult,
}

impl TurnState {
    /// Whether nothing more will come.
    fn finished(&self) -> bool {
        self.front.is_empty() && self.stream.as_ref().is_none_or(|s| s.is_done())
    }

    fn result(&self) -> TurnResult {
        match &self.stream {
            Some(s) => s.result().clone(),
            None => self.last_result.clone(),
        }
    }

    /// Take an event for the user, filtering the disconnect (turned into an error at the end).
    fn pop(&mut self) -> Option<Event> {
        while let Some(ev) = self.front.pop_front() {
            if let Event::Connection(ConnectionEvent::Disconnected(info)) = &ev {
                self.disconnect = Some(info.clone());
                continue;
            }
            return Some(ev);
        }
        None
    }

    /// The end of the iteration: `Ok` when the turn completed, the disconnect error otherwise.
    fn end_error(&self) -> Option<Error> {
        let r = self.result();
        if r.status.is_empty() {
            self.disconnect.clone().map(Error::Disconnected)
        } else {
            None
        }
    }
}

/// A turn being streamed (from `turn/start` to its `turn/completed`).
#[pyclass(module = "codexclient._native", frozen)]
pub struct Turn {
    state: Arc<Mutex<TurnState>>,
    client: Client,
    thread_id: String,
    turn_id: String,
    started: String,
    handler: Option<Py<PyAny>>,
}

impl Turn {
    pub(crate) fn new(client: Client, stream: TurnStream, handler: Option<Py<PyAny>>) -> Turn {
        Turn {
            thread_id: stream.thread_id().to_owned(),
            turn_id: stream.turn_id().to_owned(),
            started: stream.started_turn().to_string(),
            client,
            handler,
            state: Arc::new(Mutex::new(TurnState {
                stream: Some(stream),
                front: VecDeque::new(),
                disconnect: None,
                last_result: TurnResult::default(),
            })),
        }
    }

    fn convert(&self, py: Python<'_>, ev: Event) -> PyResult<Py<PyAny>> {
        crate::events::convert_one(py, ev, self.handler.as_ref())
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

/// The JSON form of a turn result.
pub(crate) fn result_json(r: &TurnResult) -> String {
    json!({
        "thread_id": r.thread_id,
        "turn_id": r.turn_id,
        "status": r.status,
        "final_response": r.final_response,
        "items": r.items,
        "usage": r.usage,
        "diff": r.diff,
        "error": r.error,
        "turn": r.turn,
    })
    .to_string()
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
        self.state.lock().unwrap().finished()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event of the turn (blocking, GIL released while waiting). Server requests are
    /// passed to the client's handlers before they are returned. Raises
    /// `ConnectionClosedError` when the connection ends before the turn completed.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let mut st = self.state.lock().unwrap();
            if let Some(ev) = st.pop() {
                drop(st);
                return self.convert(py, ev).map(Some);
            }
            if st.finished() {
                return match st.end_error() {
                    Some(e) => Err(to_py(py, e)),
                    None => Ok(None),
                };
            }
            drop(st);
            let state = &self.state;
            let got = py.detach(|| {
                let mut st = state.lock().unwrap();
                let Some(stream) = st.stream.as_mut() else {
                    return true;
                };
                let r = stream.next_event(Some(SIGNAL_SLICE));
                let done = stream.is_done();
                match r {
                    Ok(Some(ev)) => {
                        st.front.push_back(ev);
                        true
                    }
                    _ => done,
                }
            });
            if !got {
                py.check_signals()?;
            }
        }
    }

    /// Up to `max` events without waiting: a list (empty when none wait) or `None` at the end.
    /// Raises `ConnectionClosedError` when the connection ended before the turn completed.
    #[pyo3(signature = (max = 1024))]
    fn take<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let mut evs = Vec::new();
        let end_error;
        {
            let mut st = self.state.lock().unwrap();
            while evs.len() < max {
                if let Some(ev) = st.pop() {
                    evs.push(ev);
                    continue;
                }
                let Some(stream) = st.stream.as_mut() else {
                    break;
                };
                match stream.next_event(Some(Duration::ZERO)) {
                    Ok(Some(ev)) => st.front.push_back(ev),
                    _ => break,
                }
            }
            end_error = if evs.is_empty() && st.finished() {
                Some(st.end_error())
            } else {
                None
            };
        }
        if let Some(err) = end_error {
            return match err {
                Some(e) => Err(to_py(py, e)),
                None => Ok(None),
            };
        }
        let list = PyList::empty(py);
        crate::events::extend_list(py, &list, evs, self.handler.as_ref())?;
        Ok(Some(list))
    }

    /// Resolve `aio`'s future (with `None`) once events wait or the turn's stream ended.
    fn wait_async(&self, py: Python<'_>, aio: Aio) -> PyResult<Py<PyAny>> {
        let state = self.state.clone();
        let f = std::future::poll_fn(move |cx| {
            let mut st = state.lock().unwrap();
            if !st.front.is_empty() {
                return Poll::Ready(());
            }
            let Some(stream) = st.stream.as_mut() else {
                return Poll::Ready(());
            };
            match Pin::new(stream).poll_next(cx) {
                Poll::Ready(Some(ev)) => {
                    st.front.push_back(ev);
                    Poll::Ready(())
                }
                Poll::Ready(None) => Poll::Ready(()),
                Poll::Pending => Poll::Pending,
            }
        });
        none_outcome(py, aio, f)
    }

    /// Read the rest of the turn (blocking; server requests go to the handlers) and return the
    /// result as JSON text. Raises `ConnectionClosedError` if the connection ended first.
    fn finish(&self, py: Python<'_>) -> PyResult<String> {
        while let Some(ev) = self.__next__(py)? {
            drop(ev);
        }
        Ok(self.result_json())
    }

    /// The result gathered so far, as JSON text.
    fn result_json(&self) -> String {
        result_json(&self.state.lock().unwrap().result())
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
            None => py.detach(|| {
                let waker = thread_waker();
                let _ = std::pin::pin!(fut).poll(&mut Context::from_waker(&waker));
            }),
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
        let input = crate::client::input(py, input_json)?.to_value();
        let req = TurnStream::steer_request(&self.thread_id, &self.turn_id, input);
        self.send(py, req, timeout, aio)
    }

    /// Stop routing this turn's events here; later events go to the client's normal delivery.
    /// Does not interrupt the turn.
    fn close(&self, py: Python<'_>) {
        let mut st = self.state.lock().unwrap();
        if let Some(s) = st.stream.take() {
            st.last_result = s.result().clone();
            let front = std::mem::take(&mut st.front);
            drop(st);
            py.detach(|| {
                drop(front);
                drop(s);
            });
        }
    }
}
