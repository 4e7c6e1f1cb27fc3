//! Every phase of a connect is bounded and abortable, and a dead server is noticed even
//! while a process it left behind holds its pipes (fake app-server and raw listeners).

mod support;

use codex_client::{Client, ClientOptions, Error};
use serde_json::json;
use std::time::{Duration, Instant};
use support::*;

/// A listener that accepts connections and never says a word (no WebSocket upgrade).
enum Silent {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener, TempDir),
}

impl Silent {
    fn tcp() -> Silent {
        Silent::Tcp(std::net::TcpListener::bind("127.0.0.1:0").unwrap())
    }

    fn unix() -> Silent {
        let dir = TempDir::new("silent-sock");
        let l = std::os::unix::net::UnixListener::bind(dir.path().join("s.sock")).unwrap();
        Silent::Unix(l, dir)
    }

    fn options(&self) -> ClientOptions {
        match self {
            Silent::Tcp(l) => ClientOptions::default().websocket(
                format!("ws://127.0.0.1:{}/", l.local_addr().unwrap().port()),
                None,
            ),
            Silent::Unix(_, dir) => {
                ClientOptions::default().unix_socket(Some(dir.path().join("s.sock")))
            }
        }
    }

    /// Accept connections in the background and hold them open; returns how many came.
    fn hold(self) -> std::sync::mpsc::Receiver<()> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut held: Vec<Box<dyn std::any::Any + Send>> = Vec::new();
            loop {
                let accepted: Box<dyn std::any::Any + Send> = match &self {
                    Silent::Tcp(l) => match l.accept() {
                        Ok((s, _)) => Box::new(s),
                        Err(_) => return,
                    },
                    Silent::Unix(l, _) => match l.accept() {
                        Ok((s, _)) => Box::new(s),
                        Err(_) => return,
                    },
                };
                held.push(accepted);
                if tx.send(()).is_err() {
                    return;
                }
            }
        });
        rx
    }
}

fn assert_connect_timeout(opts: ClientOptions, what: &str) {
    let c = Client::new(
        opts.connect_timeout(Duration::from_millis(500))
            .default_timeout(Duration::from_secs(300)),
    );
    let t0 = Instant::now();
    let err = c.connect().unwrap_err();
    let took = t0.elapsed();
    assert!(
        matches!(err, Error::Timeout { after, .. } if after == Duration::from_millis(500)),
        "{what}: {err:?}"
    );
    assert!(took < Duration::from_secs(5), "{what}: took {took:?}");
    assert!(!c.is_connected());
}

#[test]
fn websocket_and_unix_connects_to_a_peer_that_never_upgrades_time_out() {
    for (silent, what) in [(Silent::tcp(), "ws"), (Silent::unix(), "unix")] {
        let opts = silent.options();
        let accepted = silent.hold();
        assert_connect_timeout(opts, what);
        assert!(
            accepted.try_recv().is_ok(),
            "{what}: the peer saw no connection"
        );
    }
}

#[test]
fn a_server_that_never_answers_initialize_fails_connect_at_the_connect_timeout_and_is_reaped() {
    let tag = unique_tag("no-init");
    assert_connect_timeout(fake_options(&["no-init"]).env(TAG_VAR, &tag), "stdio");
    assert!(
        wait_until(Duration::from_secs(5), || pids_with_env(TAG_VAR, &tag)
            .is_empty()),
        "the server outlived its failed connect"
    );
}

#[test]
fn disconnect_aborts_a_connect_in_progress_and_reaps_the_server() {
    // Stdio: the server was spawned and never answers `initialize`.
    let tag = unique_tag("abort");
    let c = Client::new(fake_options(&["no-init"]).env(TAG_VAR, &tag));
    let connecting = connect_in_progress(&c, &tag);
    let t0 = Instant::now();
    c.disconnect();
    let err = connecting.join().unwrap().unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    match &err {
        Error::Disconnected(info) => assert!(info.reason.contains("aborted"), "{info:?}"),
        other => panic!("expected a disconnect error, got {other:?}"),
    }
    assert!(pids_with_env(TAG_VAR, &tag).is_empty(), "server not reaped");
    assert!(!c.is_connected());

    // WebSocket: the TCP connect succeeded, the upgrade never comes.
    let silent = Silent::tcp();
    let c = Client::new(silent.options());
    let accepted = silent.hold();
    let connecting = {
        let c = c.clone();
        std::thread::spawn(move || c.connect())
    };
    accepted.recv_timeout(Duration::from_secs(10)).unwrap();
    let t0 = Instant::now();
    c.disconnect();
    let err = connecting.join().unwrap().unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert!(matches!(err, Error::Disconnected(_)), "{err:?}");
}

#[test]
fn a_second_connect_while_one_is_in_progress_is_refused() {
    let tag = unique_tag("second");
    let c = Client::new(
        fake_options(&["no-init"])
            .env(TAG_VAR, &tag)
            .connect_timeout(Duration::from_secs(10)),
    );
    let connecting = connect_in_progress(&c, &tag);
    let second = c.connect();
    c.disconnect();
    assert!(connecting.join().unwrap().is_err());
    assert!(matches!(second, Err(Error::InvalidState(_))), "{second:?}");
}

#[test]
fn server_exit_is_noticed_while_a_process_it_left_holds_its_stdout() {
    let c = fake_client(&["orphan", "hang"], fake_options(&["orphan", "hang"]));
    let pid = c.server_pid().unwrap();
    let hanging = pending_hang(c.connection());
    let t0 = Instant::now();
    let err = c.request_blocking("test/orphanDie", json!({})).unwrap_err();
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "took {:?}",
        t0.elapsed()
    );
    let Error::Disconnected(info) = &err else {
        panic!("expected a disconnect, got {err:?}");
    };
    assert!(info.reason.contains("status 4"), "{info:?}");
    assert!(
        info.stderr_tail.contains("its orphan holds stdout"),
        "{info:?}"
    );
    assert!(matches!(
        hanging.join().unwrap(),
        Err(Error::Disconnected(_))
    ));
    assert!(!c.is_connected());
    assert!(!pid_alive(pid));
    // The process it left behind is stopped with it (it was in the server's process group).
    let orphan: u32 = info
        .stderr_tail
        .lines()
        .find_map(|l| l.strip_prefix("fake-app-server: orphan pid "))
        .expect("orphan pid on stderr")
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || !pid_alive(orphan)),
        "the orphan {orphan} still runs"
    );
}
