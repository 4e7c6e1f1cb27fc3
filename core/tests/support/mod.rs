//! Shared helpers of the integration tests: locating the real Codex and the fake server,
//! temporary directories, and clients wired to either.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use codex_client::{Client, ClientOptions};

/// Version of the real Codex the tests run against.
pub const CODEX_VERSION: &str = "0.169.0";

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The real Codex binary: `CODEX_BIN`, else the one `scripts/setup.sh` installed. A missing
/// binary fails the test with instructions; it is never skipped.
pub fn codex_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEX_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let p = repo_root()
        .join(".cache")
        .join(format!("codex-{CODEX_VERSION}"));
    assert!(
        p.exists(),
        "the real Codex {CODEX_VERSION} is not installed: run `scripts/setup.sh` (installs it from \
         the npm registry) or set CODEX_BIN to a codex {CODEX_VERSION} binary"
    );
    p
}

/// The fake app-server binary (built on first use).
pub fn fake_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let status = std::process::Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "codex-fake-app-server"])
            .current_dir(repo_root())
            .status()
            .expect("run cargo build for the fake app-server");
        assert!(status.success(), "building the fake app-server failed");
        let exe = std::env::current_exe().unwrap();
        let target_profile = exe.parent().unwrap().parent().unwrap();
        let bin = target_profile.join("fake-app-server");
        assert!(
            bin.exists(),
            "fake app-server not found at {}",
            bin.display()
        );
        bin
    })
    .clone()
}

/// Options for a client of the fake server with the given modes.
pub fn fake_options(modes: &[&str]) -> ClientOptions {
    let mut o = ClientOptions::default()
        .codex_bin(fake_bin())
        .client_info("codex-client-tests", "0");
    for m in modes {
        o = o.arg("--mode").arg(*m);
    }
    o
}

/// A connected client of the fake server.
pub fn fake_client(modes: &[&str], opts: ClientOptions) -> Client {
    let _ = modes;
    let c = Client::new(opts);
    c.connect().expect("connect to the fake app-server");
    c
}

/// A directory removed on drop, under `target/test-tmp` (not /tmp: Codex refuses helper
/// binaries under the system temp dir and warns about it).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = repo_root()
            .join("target")
            .join("test-tmp")
            .join(format!("{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Poll `f` until it returns true or `timeout` passes.
pub fn wait_until(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    f()
}

/// Whether a process with this pid is still alive (and not a zombie).
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// Install a tracing subscriber once (RUST_LOG controls it).
pub fn init_tracing() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    });
}
