//! One runtime and one dispatch pool for all clients: the process's thread count with 50
//! clients connected is what it was with one, in poll and callback modes; a closed
//! connection leaves no task behind; a client with a dedicated dispatch thread gets one and
//! gives it back; disconnects from callbacks (of clients sharing a thread or not) return.
//! One test function: the thread counts must not see another test's threads.

mod support;

use codex_client::{Client, Delivery};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use support::*;

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Threads whose name starts with `prefix` (the kernel keeps 15 bytes of a name:
/// `codex-client-dispatch` reads `codex-client-di`).
fn names(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim_end().starts_with(prefix))
        })
        .count()
}

fn connect(mode: Delivery) -> Client {
    let c = Client::new(fake_options(&[]).delivery(mode));
    c.connect().expect("connect to the fake app-server");
    c
}

/// Every task of closed connections is gone (aborted tasks are dropped by the runtime soon
/// after their connection's end; `disconnect` waits for them).
fn no_tasks_left() {
    assert_eq!(
        codex_client::rt::live_tasks(),
        0,
        "tasks of closed connections are still alive"
    );
}

fn fifty_clients_one_set_of_threads(mode: Delivery) {
    let one = connect(mode);
    // A request each way, so every lazily started piece has started.
    one.request_blocking("test/echo", serde_json::json!({}))
        .ok();
    let with_one = threads();
    let mut clients = vec![one];
    for _ in 0..49 {
        clients.push(connect(mode));
    }
    for c in &clients {
        c.request_blocking("test/echo", serde_json::json!({})).ok();
    }
    let with_fifty = threads();
    assert_eq!(
        with_fifty, with_one,
        "{mode:?}: 50 clients use more threads than 1"
    );
    assert_eq!(names("codex-client-rt"), codex_client::rt::WORKERS);
    if mode == Delivery::Callbacks {
        assert_eq!(
            names("codex-client-di"),
            codex_client::delivery::DISPATCH_THREADS
        );
    }
    assert!(codex_client::rt::live_tasks() >= 50);
    for c in &clients {
        c.disconnect();
    }
    no_tasks_left();
    assert_eq!(threads(), with_one, "{mode:?}: threads after disconnect");
}

fn dedicated_thread_comes_and_goes() {
    let before = codex_client::delivery::dispatch_threads();
    let seen = Arc::new(Mutex::new(None));
    let c = Client::new(
        fake_options(&[])
            .delivery(Delivery::Callbacks)
            .dedicated_dispatch_thread(true),
    );
    let (tx, rx) = mpsc::channel();
    let s = seen.clone();
    c.on_event(move |_| {
        *s.lock().unwrap() = Some(std::thread::current().id());
        let _ = tx.send(());
    })
    .unwrap();
    c.connect().unwrap();
    assert_eq!(codex_client::delivery::dispatch_threads(), before + 1);
    let raw = serde_json::value::to_raw_value(&serde_json::json!({})).unwrap();
    c.send_request("test/echo", &raw, Default::default(), 1)
        .unwrap();
    rx.recv_timeout(Duration::from_secs(30)).unwrap();
    c.disconnect();
    assert!(
        wait_until(Duration::from_secs(10), || {
            codex_client::delivery::dispatch_threads() == before
        }),
        "the dedicated dispatch thread did not end"
    );
    no_tasks_left();
}

/// Client A's callback disconnects client B on the same pool thread (and on the other), and
/// itself: each returns, and B's callbacks stop.
fn disconnect_from_callbacks() {
    let pool = codex_client::delivery::DISPATCH_THREADS;
    // Enough clients that some share a thread with the first.
    let clients: Vec<Client> = (0..pool + 1)
        .map(|_| connect(Delivery::Callbacks))
        .collect();
    let (done_tx, done_rx) = mpsc::channel();
    let ran = Arc::new(AtomicUsize::new(0));
    let others: Vec<_> = clients[1..].iter().map(Client::downgrade).collect();
    let me = clients[0].downgrade();
    let r = ran.clone();
    let done_tx = Mutex::new(done_tx);
    clients[0]
        .on_event(move |_| {
            if r.fetch_add(1, Ordering::SeqCst) > 0 {
                return;
            }
            for o in &others {
                if let Some(c) = o.upgrade() {
                    c.disconnect();
                }
            }
            if let Some(c) = me.upgrade() {
                c.disconnect();
            }
            let _ = done_tx.lock().unwrap().send(());
        })
        .unwrap();
    let raw = serde_json::value::to_raw_value(&serde_json::json!({})).unwrap();
    clients[0]
        .send_request("test/echo", &raw, Default::default(), 1)
        .unwrap();
    done_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the disconnects from a callback returned");
    for c in &clients {
        assert!(!c.is_connected());
        c.disconnect();
    }
    drop(clients);
    assert!(
        wait_until(Duration::from_secs(10), || codex_client::rt::live_tasks()
            == 0),
        "tasks left after disconnects from a callback"
    );
}

#[test]
fn one_runtime_and_one_dispatch_pool_for_all_clients() {
    fifty_clients_one_set_of_threads(Delivery::Poll);
    fifty_clients_one_set_of_threads(Delivery::Callbacks);
    dedicated_thread_comes_and_goes();
    disconnect_from_callbacks();
    // The library's threads were started once and did not grow.
    assert_eq!(names("codex-client-rt"), codex_client::rt::WORKERS);
    assert_eq!(
        names("codex-client-di"),
        codex_client::delivery::DISPATCH_THREADS
    );
}
