//! Abandoning a connect aborts it as `disconnect()` would: a dropped `connect_async` future
//! stops the handshake, stops and reaps the server it spawned, and leaves the client ready
//! for a new `connect()` (issue 28).

mod support;

use codex_client::{Client, ClientOptions};
use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;
use support::*;

/// A server launcher whose first start never answers `initialize` (the fake app-server's
/// `no-init` mode) and whose later starts are a good fake app-server: one client can first
/// hang in a connect and then connect for real. `exec` keeps the pid the client reports.
fn first_start_silent(dir: &TempDir) -> ClientOptions {
    let script = dir.path().join("server.sh");
    let marker = dir.path().join("started");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             if [ -e '{m}' ]; then exec '{f}' \"$@\"; fi\n\
             : > '{m}'\n\
             exec '{f}' \"$@\" --mode no-init\n",
            m = marker.display(),
            f = fake_bin().display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    ClientOptions::default()
        .codex_bin(script)
        .client_info("codex-client-tests", "0")
        .connect_timeout(Duration::from_secs(30))
}

/// Whether the process is gone and reaped (a zombie still has its `/proc` entry).
fn reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Poll `connect_async` until the server it spawned is running (its pid is known), then drop
/// the future; the server's pid.
fn drop_connect_once_the_server_runs(c: &Client) -> u32 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let connecting = c.connect_async();
        tokio::pin!(connecting);
        let started = async {
            loop {
                if let Some(pid) = c.server_pid() {
                    return pid;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::select! {
            r = &mut connecting => panic!("the connect ended by itself: {r:?}"),
            pid = started => pid,
            _ = tokio::time::sleep(Duration::from_secs(10)) => panic!("the server never started"),
        }
        // `connecting` is dropped here, its server running and silent.
    })
}

#[test]
fn a_dropped_connect_async_future_aborts_the_connect_and_reaps_the_server() {
    let dir = TempDir::new("drop-connect");
    let c = Client::new(first_start_silent(&dir));
    let pid = drop_connect_once_the_server_runs(&c);
    assert!(
        wait_until(Duration::from_secs(1), || reaped(pid)),
        "the server {pid} of the abandoned connect was not reaped within 1 s"
    );
    assert!(!c.is_connected());
    // The client is ready for a new connect at once (no "already in progress").
    let init = c.connect().expect("a connect after the abandoned one");
    assert!(init.user_agent.is_some(), "{init:?}");
    assert!(c.is_connected());
    assert_ne!(c.server_pid(), Some(pid));
    c.disconnect();
}

#[test]
fn server_pid_names_the_server_of_a_connect_in_progress() {
    let tag = unique_tag("pid-while-connecting");
    let c = Client::new(
        fake_options(&["no-init"])
            .env(TAG_VAR, &tag)
            .connect_timeout(Duration::from_secs(30)),
    );
    assert_eq!(c.server_pid(), None);
    let connecting = connect_in_progress(&c, &tag);
    let tagged = pids_with_env(TAG_VAR, &tag);
    assert!(
        wait_until(Duration::from_secs(5), || c.server_pid().is_some()),
        "no server pid while connecting"
    );
    assert_eq!(tagged, vec![c.server_pid().unwrap()]);
    c.disconnect();
    assert!(connecting.join().unwrap().is_err());
    assert_eq!(c.server_pid(), None);
}

#[test]
fn a_connect_async_dropped_after_its_first_poll_leaves_the_client_ready() {
    let c = Client::new(fake_options(&[]));
    {
        let mut connecting = Box::pin(c.connect_async());
        let waker = futures_util::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        assert!(connecting.as_mut().poll(&mut cx).is_pending());
    }
    c.connect().expect("a connect after the abandoned one");
    assert!(c.is_connected());
    c.disconnect();
}

#[test]
fn a_dropped_connect_async_does_not_block_the_dropping_thread_while_the_server_exits() {
    // `ignore-eof`: the server stays after its input closes, until the exit grace kills it.
    let tag = unique_tag("drop-slow-exit");
    let c = Client::new(
        fake_options(&["no-init", "ignore-eof"])
            .env(TAG_VAR, &tag)
            .connect_timeout(Duration::from_secs(30)),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let pid = rt.block_on(async {
        let mut connecting = Box::pin(c.connect_async());
        let pid = loop {
            tokio::select! {
                r = &mut connecting => panic!("the connect ended by itself: {r:?}"),
                _ = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
            if let Some(pid) = c.server_pid() {
                break pid;
            }
        };
        let t0 = std::time::Instant::now();
        drop(connecting);
        let took = t0.elapsed();
        assert!(
            took < Duration::from_millis(100),
            "the drop blocked {took:?}"
        );
        pid
    });
    assert!(
        wait_until(Duration::from_secs(5), || reaped(pid)),
        "the server {pid} was not reaped"
    );
}

#[test]
fn a_dropped_request_future_forgets_the_request_and_its_late_answer_silently() {
    // Poll mode: an error event for the late answer would be queued before the next answer.
    let c = Client::new(fake_options(&["slow"]).delivery(codex_client::Delivery::Poll));
    c.connect().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // Abandoned: the server answers it 300 ms later, when nobody waits.
        let slow = c.request("test/slow", serde_json::json!({"ms": 300}));
        let given_up = tokio::time::timeout(Duration::from_millis(20), slow).await;
        assert!(given_up.is_err(), "{given_up:?}");
    });
    // Started after the abandoned one and answered 100 ms after it: by then the reader has
    // read the late answer.
    let v = c
        .request_blocking("test/slow", serde_json::json!({"ms": 400}))
        .unwrap();
    assert_eq!(v["sleptMs"], 400);
    let mut errors = Vec::new();
    while let Some(e) = c.next_event(Some(Duration::ZERO)).unwrap() {
        if let codex_client::Event::Connection(codex_client::ConnectionEvent::Error(m)) = e {
            errors.push(m);
        }
    }
    assert!(
        errors.is_empty(),
        "the late answer was reported: {errors:?}"
    );
    assert!(c.is_connected());
    c.disconnect();
}
