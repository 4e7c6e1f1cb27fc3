//! Shared helpers for spawning `fake-app-server` in tests (std only).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long to wait for any single line before failing the test.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A running fake server with line-oriented access to its stdout.
pub struct Fake {
    /// The child process.
    pub child: Child,
    /// Its stdin (`None` once closed).
    pub stdin: Option<ChildStdin>,
    /// Lines read from stdout (`None` = EOF).
    pub lines: Receiver<Option<String>>,
    /// Collects all of stderr.
    stderr: Option<JoinHandle<String>>,
}

impl Fake {
    /// Spawns the binary with `args` and extra environment `env`.
    pub fn spawn_env(args: &[&str], env: &[(&str, &str)]) -> Fake {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fake-app-server"));
        cmd.args(args)
            .env_remove("FAKE_MODE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn fake-app-server");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::sync_channel(16);
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(None);
                        return;
                    }
                    Ok(_) => {
                        line.truncate(line.trim_end_matches('\n').len());
                        if tx.send(Some(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let stdin = child.stdin.take();
        Fake {
            child,
            stdin,
            lines: rx,
            stderr: Some(stderr),
        }
    }

    /// Spawns the binary with `args`.
    pub fn spawn(args: &[&str]) -> Fake {
        Fake::spawn_env(args, &[])
    }

    /// Spawns and completes the initialize handshake.
    pub fn initialized(args: &[&str]) -> Fake {
        let mut f = Fake::spawn(args);
        f.initialize(json!({}));
        f
    }

    /// Sends `initialize` with the given capabilities and checks the answer.
    pub fn initialize(&mut self, capabilities: Value) {
        self.send(&json!({
            "id": 0,
            "method": "initialize",
            "params": { "clientInfo": { "name": "test", "version": "0" }, "capabilities": capabilities },
        }));
        let resp = self.recv_json();
        assert_eq!(resp["id"], 0);
        assert_eq!(resp["result"]["userAgent"], fake_user_agent());
        self.send(&json!({ "method": "initialized" }));
    }

    /// Writes one raw line to stdin.
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one JSON message.
    pub fn send(&mut self, msg: &Value) {
        self.send_raw(&msg.to_string());
    }

    /// Sends a request `{"id","method","params"}`.
    pub fn request(&mut self, id: i64, method: &str, params: Value) {
        self.send(&json!({ "id": id, "method": method, "params": params }));
    }

    /// Next stdout line; `None` on EOF. Panics on timeout.
    pub fn recv_line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(l) => l,
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("timed out waiting for a line"),
        }
    }

    /// Next stdout line parsed as JSON. Panics on EOF or bad JSON.
    pub fn recv_json(&mut self) -> Value {
        let line = self.recv_line().expect("unexpected EOF on stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad JSON {e}: {line:.200}"))
    }

    /// Asserts no stdout line arrives within `d`.
    pub fn expect_silence(&mut self, d: Duration) {
        match self.lines.recv_timeout(d) {
            Err(RecvTimeoutError::Timeout) => {}
            other => panic!("expected silence, got {other:?}"),
        }
    }

    /// Closes stdin (EOF for the server).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for exit (with timeout) and returns the status and all stderr.
    pub fn finish(mut self) -> (ExitStatus, String) {
        self.close_stdin();
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("fake-app-server did not exit");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // Drain stdout so the reader thread can finish.
        while let Ok(Some(_)) = self.lines.recv_timeout(TIMEOUT) {}
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (status, stderr)
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `userAgent` the fake answers `initialize` with: `fake/` and the newest Codex of the
/// library's window (the version of the vendored schema).
pub fn fake_user_agent() -> String {
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../core/src/compat/vendored-schema.json"
    ))
    .unwrap();
    format!("fake/{}", schema["version"].as_str().unwrap())
}
