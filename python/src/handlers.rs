//! Python callables as handlers of the core's table: each is wrapped into a core handler that
//! takes the GIL, converts the event and calls it. Which handler takes which event is the
//! core's decision (`codex_client::Client::on_method_request`, the fallback, fail-closed
//! without one); the callables are kept in the core beside their handlers
//! (`Client::keep_with_handlers`), where the client's `__traverse__` shows them to Python's
//! cycle collector.

use std::sync::Arc;

use codex_client::{Client, ConnectionEvent, Event, Notification, ServerRequest};
use pyo3::prelude::*;

/// A Python callable kept in the core beside the handler that calls it.
pub(crate) struct Kept(pub(crate) Py<PyAny>);

/// Call `callable(obj)` with the GIL; a Python exception is reported as unraisable (the
/// callables the package registers catch their own).
fn call(py: Python<'_>, callable: &Py<PyAny>, obj: PyResult<Py<PyAny>>) {
    if let Err(e) = obj.and_then(|o| callable.call1(py, (o,))) {
        e.write_unraisable(py, Some(callable.bind(py)));
    }
}

/// Keep `callable` in the core under `key` (or, with `None`, let go of it): the one reference
/// the core holds, shared with the handler that calls it, so that the cycle collector can
/// account for it (`traverse`).
fn keep(client: &Client, key: &str, callable: Option<Py<PyAny>>) -> Option<Arc<Kept>> {
    let kept = callable.map(|c| Arc::new(Kept(c)));
    client.keep_with_handlers(key, kept.clone().map(|k| k as codex_client::Kept));
    kept
}

/// Register `callable(request)` for server requests of `method` (`None`: the fallback, every
/// method without a handler of its own), or with `callable` `None` remove that handler. A
/// request the callable leaves unanswered and drops is answered fail-closed by the core.
pub(crate) fn on_request(
    client: &Client,
    method: Option<&str>,
    callable: Option<Py<PyAny>>,
) -> codex_client::Result<()> {
    let key = format!("request:{}", method.unwrap_or("*"));
    let Some(c) = keep(client, &key, callable) else {
        return match method {
            Some(m) => {
                client.clear_method_handlers(m);
                Ok(())
            }
            None => client.clear_handler(codex_client::HandlerSlot::ServerRequest),
        };
    };
    let f = move |r: ServerRequest| {
        Python::attach(|py| call(py, &c.0, crate::events::request_object(py, r)));
    };
    match method {
        Some(m) => client.on_method_request(m, f),
        None => client.on_server_request(f),
    }
}

/// Register `callable(notification)` for every notification the client's own delivery gets
/// (or with `None` remove it). Notifications reach that delivery only while one is set (the
/// iterators read theirs from subscriptions): nothing converts one nobody asked for.
pub(crate) fn on_notification(
    client: &Client,
    callable: Option<Py<PyAny>>,
) -> codex_client::Result<()> {
    client.queue_notifications(callable.is_some());
    let Some(c) = keep(client, "notification", callable) else {
        return client.clear_handler(codex_client::HandlerSlot::Notification);
    };
    client.on_notification(move |n: &Notification| {
        Python::attach(|py| {
            let obj = crate::events::to_object(py, Event::Notification(n.clone()));
            call(py, &c.0, obj);
        })
    })
}

/// Register `callable(event)` for connection events (or with `None` remove it).
pub(crate) fn on_connection_event(
    client: &Client,
    callable: Option<Py<PyAny>>,
) -> codex_client::Result<()> {
    let Some(c) = keep(client, "connection", callable) else {
        return client.clear_handler(codex_client::HandlerSlot::Connection);
    };
    client.on_connection_event(move |ev: &ConnectionEvent| {
        Python::attach(|py| {
            let obj = crate::events::to_object(py, Event::Connection(ev.clone()));
            call(py, &c.0, obj);
        })
    })
}

/// Show the callables kept for `client` to the cycle collector.
pub(crate) fn traverse(
    client: &Client,
    visit: &pyo3::PyVisit<'_>,
) -> Result<(), pyo3::PyTraverseError> {
    let mut out = Ok(());
    client.visit_kept(|k| {
        if let (Ok(()), Some(Kept(obj))) = (&out, k.downcast_ref::<Kept>()) {
            out = visit.call(obj);
        }
    });
    out
}
