//! The MCP servers written with the official SDKs (`testkit/sdk-servers`: `server.py` on the
//! Python SDK `mcp` 2.3.0, `server.mjs` on the TypeScript SDK `@modelcontextprotocol/server`
//! 2.4.0), started over stdio or Streamable HTTP. Installed by `scripts/setup-mcp.sh`
//! (`.cache/mcp-sdk-python`, `.cache/mcp-modules`, `.cache/mcp-node`); a missing one fails the
//! test with that command.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use codex_client::{ClientOptions, McpCommand, McpHttp, TransportKind};

use super::{repo_root, wait_until};

/// Which official SDK a server is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// Python `mcp` 2.3.0 (`MCPServer`).
    Python,
    /// TypeScript `@modelcontextprotocol/server` 2.4.0 (`McpServer`).
    TypeScript,
}

impl Sdk {
    /// Both, Python first.
    pub const ALL: [Sdk; 2] = [Sdk::Python, Sdk::TypeScript];

    /// The `serverInfo.name` the server reports.
    pub fn server_name(self) -> &'static str {
        match self {
            Sdk::Python => "py-sdk-server",
            Sdk::TypeScript => "ts-sdk-server",
        }
    }

    /// The text of the `demo://greeting` resource.
    pub fn greeting(self) -> &'static str {
        match self {
            Sdk::Python => "Hello from Python",
            Sdk::TypeScript => "Hello from TypeScript",
        }
    }

    /// The command that runs the server with `args` (`stdio`, or `http <port>`).
    pub fn command(self, args: &[&str]) -> Command {
        self.script_command("server", args)
    }

    /// The command that runs the server script `stem` (`server`: `server.py` or
    /// `server.mjs`; `surface`: `surface.py`, Python only) with `args`.
    pub fn script_command(self, stem: &str, args: &[&str]) -> Command {
        let dir = repo_root().join("testkit/sdk-servers");
        let mut cmd = match self {
            Sdk::Python => {
                let py = super::setup_mcp_path(
                    "MCP_SDK_PYTHON",
                    "mcp-sdk-python",
                    "the Python MCP SDK 2.3.0",
                );
                let mut c = Command::new(py);
                c.arg(dir.join(format!("{stem}.py")));
                c
            }
            Sdk::TypeScript => {
                let node = super::setup_mcp_path("MCP_NODE", "mcp-node", "Node 22");
                let modules = super::setup_mcp_path(
                    "MCP_MODULES",
                    "mcp-modules",
                    "the TypeScript MCP SDK 2.4.0",
                );
                assert!(
                    modules.join("@modelcontextprotocol/server/package.json").exists(),
                    "@modelcontextprotocol/server is missing from {}: run `bash scripts/setup-mcp.sh`",
                    modules.display()
                );
                let mut c = Command::new(node);
                c.arg(dir.join(format!("{stem}.mjs")))
                    .env("MCP_MODULES", modules);
                c
            }
        };
        cmd.args(args);
        cmd
    }

    /// Client options for the server over stdio.
    pub fn stdio(self) -> ClientOptions {
        self.script_stdio("server")
    }

    /// Client options for the server script `stem` (see [`Sdk::script_command`]) over stdio.
    pub fn script_stdio(self, stem: &str) -> ClientOptions {
        let cmd = self.script_command(stem, &["stdio"]);
        let program = cmd.get_program().to_owned();
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut opts = ClientOptions::default()
            .transport(TransportKind::McpStdio(McpCommand::new(program).args(args)));
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                opts = opts.env(k.to_string_lossy(), v.to_string_lossy());
            }
        }
        opts
    }
}

/// An SDK server listening on Streamable HTTP at a loopback port; killed on drop.
pub struct SdkHttp {
    sdk: Sdk,
    stem: &'static str,
    child: Child,
    /// The port it listens on.
    pub port: u16,
}

impl SdkHttp {
    /// Start it on any free port and wait (bounded) until it prints `PORT <n>`.
    pub fn start(sdk: Sdk) -> SdkHttp {
        Self::start_script(sdk, "server")
    }

    /// Start the server script `stem` (see [`Sdk::script_command`]) on any free port.
    pub fn start_script(sdk: Sdk, stem: &'static str) -> SdkHttp {
        let (child, port) = Self::spawn(sdk, stem, 0);
        SdkHttp {
            sdk,
            stem,
            child,
            port,
        }
    }

    fn spawn(sdk: Sdk, stem: &str, port: u16) -> (Child, u16) {
        let mut child = sdk
            .script_command(stem, &["http", &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the SDK server");
        let out = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(out).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("the {sdk:?} SDK server printed no port: {e}"));
        let port: u16 = line
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("not a port line: {line:?}"));
        assert!(wait_until(Duration::from_secs(20), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        }));
        (child, port)
    }

    /// Client options for it.
    pub fn options(&self) -> ClientOptions {
        ClientOptions::default().transport(TransportKind::McpHttp(McpHttp::new(format!(
            "http://127.0.0.1:{}/mcp",
            self.port
        ))))
    }

    /// Stop it and start it again on the same port: every session it knew is gone.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (child, port) = Self::spawn(self.sdk, self.stem, self.port);
        assert_eq!(port, self.port);
        self.child = child;
    }
}

impl Drop for SdkHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
