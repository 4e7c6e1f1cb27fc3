//! The exec transport in a process that ignores SIGCHLD, as the Erlang VM does (its
//! `SigIgn` mask has SIGCHLD set): the kernel reaps every child at once, so `codex exec`'s
//! exit status is lost and waiting for it fails with ECHILD. A turn whose JSON stream
//! completed is completed (before, it was `failed` with "could not wait for codex exec: No
//! child processes" — the Elixir test's intermittent failure inside the test command, issue
//! 43); a stream that ended without `turn.completed` still fails, saying the status was lost.
//! Its own test binary: the disposition is the whole process's.

mod support;

use codex_client::{ExecOptions, TransportKind};
use serde_json::json;
use support::*;

fn ignore_sigchld() {
    // SAFETY: setting a signal's disposition to SIG_IGN; no handler runs.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
}

#[test]
fn an_exec_turn_completes_when_the_host_process_ignores_sigchld() {
    ignore_sigchld();
    let env = RealEnv::new();
    let options = env
        .options()
        .env("HOME", env.work.path().to_string_lossy().into_owned())
        .transport(TransportKind::Exec(
            ExecOptions::new().skip_git_repo_check(true),
        ));
    let c = codex_connected(options);
    let thread = c.thread_start(json!({})).unwrap();
    for i in 0..3 {
        let want = format!("reaped by the kernel {i}");
        let r = thread.run(format!("MOCK_TEXT: {want}").as_str()).unwrap();
        assert!(r.is_completed(), "turn {i}: {:?}", r.error);
        assert_eq!(r.final_response.as_deref(), Some(want.as_str()));
    }
    // A turn the model fails still fails, and says why.
    let r = thread.run("MOCK_FAIL: 400").unwrap();
    assert_eq!(r.status, "failed", "{r:?}");
}
