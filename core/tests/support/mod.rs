//! Shared helpers of the integration tests: locating the real Codex and the fake server,
//! temporary directories, and clients wired to either.
#![allow(dead_code)]

pub mod proxy;
pub mod sdk;
pub mod tls;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use codex_client::{Client, ClientOptions, CodexClient, McpClient, TransportKind};

/// Version of the real Codex the tests run against: `CODEX_VERSION` (the test scripts loop
/// the smoke set over `CODEX_SMOKE` with it), else the version of `CODEX_BIN` (`--version`),
/// else `CODEX_DEFAULT` of `scripts/codex-versions.sh` (the one place the default lives).
pub fn codex_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        if let Some(v) = std::env::var("CODEX_VERSION")
            .ok()
            .filter(|v| !v.is_empty())
        {
            return v;
        }
        if let Some(bin) = std::env::var_os("CODEX_BIN").filter(|p| !p.is_empty()) {
            let out = std::process::Command::new(&bin)
                .arg("--version")
                .output()
                .unwrap_or_else(|e| panic!("run {} --version: {e}", bin.to_string_lossy()));
            let line = String::from_utf8_lossy(&out.stdout);
            return line
                .trim()
                .strip_prefix("codex-cli ")
                .unwrap_or_else(|| panic!("CODEX_BIN --version said {line:?}"))
                .to_owned();
        }
        versions_file_value("CODEX_DEFAULT")
    })
}

/// A value of `scripts/codex-versions.sh` (`NAME="..."`).
pub fn versions_file_value(name: &str) -> String {
    let path = repo_root().join("scripts/codex-versions.sh");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=")))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .unwrap_or_else(|| panic!("no {name}= in {}", path.display()))
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The real Codex binary: `CODEX_BIN`, else the one `scripts/setup.sh` installed. A missing
/// binary fails the test with instructions; it is never skipped.
pub fn codex_bin() -> PathBuf {
    installed_codex("CODEX_BIN", codex_version())
}

/// The older real Codex the tests also use (it still has `codex mcp-server`).
pub const CODEX_092_VERSION: &str = "0.92.0";

/// The real Codex 0.92.0 binary: `CODEX_092_BIN`, else the one `scripts/setup.sh` installed.
pub fn codex_092_bin() -> PathBuf {
    installed_codex("CODEX_092_BIN", CODEX_092_VERSION)
}

/// The installed real Codex `version` (`.cache/codex-<version>`, from `scripts/setup.sh`).
pub fn codex_bin_of(version: &str) -> PathBuf {
    installed_codex("CODEX_BIN_UNUSED", version)
}

/// `$var`, else `.cache/codex-<version>`; a missing binary fails the test with instructions.
fn installed_codex(var: &str, version: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let p = repo_root().join(".cache").join(format!("codex-{version}"));
    assert!(
        p.exists(),
        "the real Codex {version} is not installed at {}: run `scripts/setup.sh` (installs it \
         from the npm registry) or set {var} to a codex {version} binary",
        p.display()
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

/// A connected client of the fake server (`modes` are in `opts`: see [`fake_options`]).
pub fn fake_client(modes: &[&str], opts: ClientOptions) -> CodexClient {
    let _ = modes;
    codex_connected(opts)
}

/// A Codex client of `opts`, connected (the test fails if it cannot).
pub fn codex_connected(opts: ClientOptions) -> CodexClient {
    let c = CodexClient::new(opts);
    c.connect().expect("connect the Codex client");
    c
}

/// An MCP client of `opts`, connected (the test fails if it cannot).
pub fn mcp_connected(opts: ClientOptions) -> McpClient {
    let c = McpClient::new(opts);
    c.connect().expect("connect the MCP client");
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

/// Live processes whose environment has `key=value` (a tag a test gives the server it starts,
/// to find it when the client cannot say its pid).
pub fn pids_with_env(key: &str, value: &str) -> Vec<u32> {
    let needle = format!("{key}={value}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .filter(|pid| pid_alive(*pid))
        .collect()
}

/// Start `test/hang` on another thread and return once the fake server has it (its stderr
/// says so): a request that stays pending.
pub fn pending_hang(
    c: &Client,
) -> std::thread::JoinHandle<codex_client::Result<serde_json::Value>> {
    let hanging = {
        let c = c.clone();
        std::thread::spawn(move || c.request_blocking("test/hang", serde_json::json!({})))
    };
    assert!(
        wait_until(Duration::from_secs(5), || c
            .stderr_tail()
            .contains("received test/hang")),
        "the fake server never got test/hang"
    );
    hanging
}

/// Start `connect()` on another thread and return once the fake server tagged `tag` (see
/// [`unique_tag`]) runs: a connect in progress.
pub fn connect_in_progress(
    c: &Client,
    tag: &str,
) -> std::thread::JoinHandle<codex_client::Result<codex_client::InitializeResult>> {
    let connecting = {
        let c = c.clone();
        std::thread::spawn(move || c.connect())
    };
    assert!(
        wait_until(Duration::from_secs(10), || !pids_with_env(TAG_VAR, tag)
            .is_empty()),
        "the server tagged {tag} never started"
    );
    connecting
}

/// The environment variable [`unique_tag`] values go in.
pub const TAG_VAR: &str = "CODEX_CLIENT_TEST_TAG";

/// A tag unique to this test process and call, for [`pids_with_env`].
pub fn unique_tag(what: &str) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{what}-{}-{n}", std::process::id())
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

/// A real Codex environment: the project's mock model, a throwaway `CODEX_HOME` whose
/// config points at it (and keeps Codex off the network), and a working directory.
pub struct RealEnv {
    pub model: codex_mock_model::MockModel,
    pub home: TempDir,
    pub work: TempDir,
}

impl RealEnv {
    pub fn new() -> RealEnv {
        init_tracing();
        let model = codex_mock_model::MockModel::start().expect("start the mock model");
        let home = TempDir::new("codex-home");
        model.write_codex_home(home.path()).unwrap();
        let work = TempDir::new("work");
        RealEnv { model, home, work }
    }

    /// A client of the real `codex app-server` in this environment, connected.
    pub fn codex(&self) -> CodexClient {
        codex_connected(self.options())
    }

    /// Options for a client of the real `codex app-server` in this environment.
    pub fn options(&self) -> ClientOptions {
        ClientOptions::default()
            .codex_bin(codex_bin())
            .codex_home(self.home.path())
            .cwd(self.work.path())
            .client_info("codex-client-tests", "0")
    }
}

/// Everything one turn produced, collected in poll mode.
pub struct TurnLog {
    pub thread_id: String,
    pub turn_id: String,
    pub notifications: Vec<codex_client::Notification>,
    pub completed: serde_json::Value,
}

impl TurnLog {
    /// Every notification of the turn decodes to its typed variant, with no value anywhere
    /// in it falling back to `Unknown` (`protocol::drift::watch`): typed decoding of every
    /// event received, on whichever Codex version the tests run against.
    pub fn assert_every_event_typed(&self) {
        use codex_client::protocol::{drift, ServerNotification};
        for n in &self.notifications {
            let (typed, fallbacks) = drift::watch(|| n.typed());
            assert!(
                !matches!(typed, ServerNotification::Unknown { .. }),
                "Codex {}: `{}` did not decode to its typed variant",
                codex_version(),
                n.method
            );
            let unknown: Vec<_> = fallbacks
                .iter()
                .filter(|f| matches!(f.kind, drift::FallbackKind::Unknown { .. }))
                .collect();
            assert!(
                unknown.is_empty(),
                "Codex {}: parts of `{}` fell back to Unknown: {unknown:?}",
                codex_version(),
                n.method
            );
        }
    }

    /// The concatenated `item/agentMessage/delta` text.
    pub fn streamed_text(&self) -> String {
        self.notifications
            .iter()
            .filter(|n| n.method == "item/agentMessage/delta")
            .filter_map(|n| n.delta())
            .collect()
    }
    /// Completed items of a given type.
    pub fn completed_items(&self, kind: &str) -> Vec<serde_json::Value> {
        self.notifications
            .iter()
            .filter(|n| n.method == "item/completed")
            .map(|n| n.params_value()["item"].clone())
            .filter(|i| i["type"] == kind)
            .collect()
    }
    /// The final agent message text.
    pub fn final_message(&self) -> String {
        self.completed_items("agentMessage")
            .last()
            .and_then(|i| i["text"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }
    pub fn status(&self) -> String {
        self.completed["turn"]["status"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }
}

/// Start a thread (with extra `thread/start` params) on a poll-mode client.
pub fn start_thread(c: &Client, params: serde_json::Value) -> String {
    let v = c
        .request_blocking("thread/start", params)
        .expect("thread/start");
    v["thread"]["id"].as_str().expect("thread id").to_owned()
}

/// Run one turn on a poll-mode client, answering server requests with `on_request`, until
/// `turn/completed` for this turn (60 s at most).
pub fn run_turn(
    c: &Client,
    thread_id: &str,
    text: &str,
    mut on_request: impl FnMut(codex_client::ServerRequest),
) -> TurnLog {
    use codex_client::Event;
    let v = c
        .request_blocking(
            "turn/start",
            serde_json::json!({"threadId": thread_id, "input": [{"type": "text", "text": text}]}),
        )
        .expect("turn/start");
    let turn_id = v["turn"]["id"].as_str().expect("turn id").to_owned();
    let end = Instant::now() + Duration::from_secs(60);
    let mut notifications = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "turn did not complete in 60 s; stderr:\n{}",
            c.stderr_tail()
        );
        match c.next_event(Some(left)).expect("connection alive") {
            Some(Event::Notification(n)) => {
                if n.method == "turn/completed" && n.thread_id().as_deref() == Some(thread_id) {
                    let completed = n.params_value();
                    notifications.push(n);
                    return TurnLog {
                        thread_id: thread_id.into(),
                        turn_id,
                        notifications,
                        completed,
                    };
                }
                notifications.push(n);
            }
            Some(Event::ServerRequest(r)) => on_request(r),
            Some(Event::Connection(e)) => panic!("connection event during turn: {e:?}"),
            Some(other) => panic!("unexpected event during a turn: {other:?}"),
            None => {}
        }
    }
}

/// A real `codex app-server --listen ...` process, killed on drop.
pub struct ListeningServer {
    pub child: std::process::Child,
    /// `ws://127.0.0.1:PORT` for WebSocket servers.
    pub url: Option<String>,
}

impl ListeningServer {
    /// Start `codex app-server --listen <listen> <extra...>` in `env` and wait until it accepts
    /// connections (the printed `listening on:` URL, or the socket file).
    pub fn start(
        env: &RealEnv,
        listen: &str,
        extra: &[&str],
        socket: Option<&Path>,
    ) -> ListeningServer {
        // stdout is block-buffered when piped, so the printed URL cannot be awaited: pick a
        // free port ourselves and wait until it accepts connections.
        let (listen, url) = if listen == "ws://127.0.0.1:0" {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            (
                format!("ws://127.0.0.1:{port}"),
                Some(format!("ws://127.0.0.1:{port}")),
            )
        } else {
            (listen.to_owned(), None)
        };
        let child = std::process::Command::new(codex_bin())
            .arg("app-server")
            .arg("--listen")
            .arg(&listen)
            .args(extra)
            .env("CODEX_HOME", env.home.path())
            .current_dir(env.work.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn codex app-server --listen");
        // Owned before waiting, so a failed wait still kills the process.
        let server = ListeningServer { child, url };
        if let Some(u) = &server.url {
            let addr = u.trim_start_matches("ws://").to_owned();
            assert!(
                wait_until(Duration::from_secs(20), || std::net::TcpStream::connect(
                    &addr
                )
                .is_ok()),
                "server never listened on {addr}"
            );
        }
        if let Some(sock) = socket {
            assert!(
                wait_until(Duration::from_secs(20), || sock.exists()),
                "socket {} never appeared",
                sock.display()
            );
        }
        server
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ListeningServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A path installed by `scripts/setup-mcp.sh`: `$var` when set, else its link `.cache/<link>`;
/// a missing one fails the test with the command that installs `what`.
pub fn setup_mcp_path(var: &str, link: &str, what: &str) -> PathBuf {
    let p = std::env::var_os(var)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".cache").join(link));
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup-mcp.sh` (installs {what}) or set {var}",
        p.display()
    );
    p
}

/// Node ≥ 22 and the MCP everything server (`@modelcontextprotocol/server-everything`)
/// installed by `scripts/setup-mcp.sh`: `MCP_NODE` / `MCP_EVERYTHING`, else the links it makes
/// under `.cache`. Missing ones fail the test with the install command.
pub fn mcp_everything() -> (PathBuf, PathBuf) {
    (
        setup_mcp_path("MCP_NODE", "mcp-node", "Node 22"),
        setup_mcp_path(
            "MCP_EVERYTHING",
            "mcp-everything",
            "@modelcontextprotocol/server-everything from the npm registry",
        ),
    )
}

/// Options for the everything server over stdio.
pub fn everything_stdio() -> ClientOptions {
    let (node, js) = mcp_everything();
    ClientOptions::default().transport(codex_client::TransportKind::McpStdio(
        codex_client::McpCommand::new(node)
            .arg(js.to_string_lossy())
            .arg("stdio"),
    ))
}

/// The everything server listening over HTTP (`mode`: `streamableHttp` or `sse`) on a free
/// loopback port; killed on drop.
pub struct EverythingHttp {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
}

impl EverythingHttp {
    /// Start it and wait (bounded) until it accepts connections.
    pub fn start(mode: &str) -> EverythingHttp {
        let (node, js) = mcp_everything();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(node)
            .arg(js)
            .arg(mode)
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the everything server");
        let up = wait_until(Duration::from_secs(20), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(
            up,
            "the everything server ({mode}) did not listen on {port}"
        );
        EverythingHttp { child, port }
    }

    /// Client options for it: `/mcp` for Streamable HTTP, `/sse` for legacy SSE.
    pub fn options(&self, path: &str) -> ClientOptions {
        ClientOptions::default().transport(codex_client::TransportKind::McpHttp(
            codex_client::McpHttp::new(format!("http://127.0.0.1:{}{path}", self.port)),
        ))
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Options for a client of the real 0.92.0 `codex mcp-server` in `env`.
///
/// `OPENAI_BASE_URL` points the built-in OpenAI provider at the mock model: without it 0.92.0
/// fetches `https://chatgpt.com/backend-api/codex/models` at start-up. `features.unified_exec`
/// makes 0.92.0 offer the `exec_command` tool the mock model calls (its default for an unknown
/// model is `shell`).
pub fn mcp_options(env: &RealEnv) -> ClientOptions {
    ClientOptions::default()
        .transport(TransportKind::CodexMcpServer)
        .codex_bin(codex_092_bin())
        .codex_home(env.home.path())
        .cwd(env.work.path())
        .env("OPENAI_BASE_URL", env.model.base_url())
        .config("features.unified_exec", "true")
        .client_info("codex-client-tests", "0")
        .default_timeout(Duration::from_secs(60))
}

/// Wait (at most 5 s) until a record the log sink collected matches `ready` (the sink's
/// thread delivers records after the fact), then fail on any record that holds one of
/// `secrets`. Returns how many records were checked.
pub fn assert_no_secret_in_logs(
    logs: &std::sync::Mutex<Vec<codex_client::log::LogRecord>>,
    ready: impl Fn(&codex_client::log::LogRecord) -> bool,
    secrets: &[&str],
) -> usize {
    wait_until(Duration::from_secs(5), || {
        logs.lock().unwrap().iter().any(&ready)
    });
    let logs = logs.lock().unwrap();
    for l in logs.iter() {
        for s in secrets {
            assert!(
                !l.message.contains(s),
                "a secret in a log line: {}",
                l.message
            );
        }
    }
    logs.len()
}

/// Wait up to `timeout` for a notification `(method, params)` on `rx` of `method` whose params
/// satisfy `pred` (others are skipped); its params. Fails the test when none comes.
pub fn wait_note(
    rx: &std::sync::mpsc::Receiver<(String, serde_json::Value)>,
    method: &str,
    timeout: Duration,
    pred: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let end = std::time::Instant::now() + timeout;
    loop {
        let left = end.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok((m, p)) if m == method && pred(&p) => return p,
            Ok(_) => continue,
            Err(e) => panic!("no {method} notification: {e}"),
        }
    }
}
