//! `mock-model [--port N] [--codex-home DIR] [--ignore-stdin]`
//!
//! Starts the mock Responses API server on `127.0.0.1:N` (default 0 =
//! ephemeral), optionally writes `DIR/config.toml` pointing Codex at it, prints
//! exactly one line `PORT <n>` to stdout, then serves until its standard input
//! reaches end-of-file (so it exits when the test that spawned it with a piped
//! stdin goes away) or it gets SIGTERM/SIGINT. With `--ignore-stdin` it serves
//! until killed. Logs go to stderr only when `MOCK_MODEL_LOG=1`.

use std::io::{Read, Write};
use std::path::PathBuf;

use codex_mock_model::MockModel;

const USAGE: &str = "usage: mock-model [--port N] [--codex-home DIR] [--ignore-stdin]";

fn main() {
    let mut port: u16 = 0;
    let mut codex_home: Option<PathBuf> = None;
    let mut ignore_stdin = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = match args.next().and_then(|p| p.parse().ok()) {
                    Some(p) => p,
                    None => fail("--port needs a number"),
                }
            }
            "--codex-home" => match args.next() {
                Some(d) => codex_home = Some(PathBuf::from(d)),
                None => fail("--codex-home needs a directory"),
            },
            "--ignore-stdin" => ignore_stdin = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }

    let model = match MockModel::start_on_port(port) {
        Ok(m) => m,
        Err(e) => fail(&format!("cannot listen on 127.0.0.1:{port}: {e}")),
    };
    if let Some(dir) = &codex_home {
        if let Err(e) = model.write_codex_home(dir) {
            fail(&format!("cannot write {}/config.toml: {e}", dir.display()));
        }
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "PORT {}", model.port());
        let _ = out.flush();
    }

    if ignore_stdin {
        loop {
            std::thread::park();
        }
    }
    // Serve until stdin reaches EOF (or fails). SIGTERM/SIGINT keep their
    // default action and end the process.
    let mut stdin = std::io::stdin().lock();
    let mut buf = [0u8; 1024];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    drop(model);
}

fn fail(msg: &str) -> ! {
    eprintln!("mock-model: {msg}\n{USAGE}");
    std::process::exit(2);
}
