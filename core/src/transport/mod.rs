//! Transports: how messages reach a Codex server: `codex app-server` over stdio, over
//! WebSocket (TCP) and over its unix control socket, or an in-process shim that serves the
//! app-server protocol on top of `codex exec --json` or `codex mcp-server`; and how they reach
//! any MCP server: a spawned process's stdio, or Streamable HTTP (`http`).

pub(crate) mod binary;
#[cfg(feature = "ws")]
pub(crate) mod cli_version;
#[cfg(feature = "mcp-http")]
pub(crate) mod http;
pub(crate) mod io;
pub(crate) mod lines;
pub(crate) mod process;
pub(crate) mod shim;
pub(crate) mod stderr;
#[cfg(feature = "tls")]
pub(crate) mod tls;
#[cfg(feature = "ws")]
pub(crate) mod ws;

/// Whether `host` is a loopback name or address (a token goes in clear text only there).
#[cfg_attr(not(any(feature = "ws", feature = "mcp-http")), allow(dead_code))]
pub(crate) fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    if h.eq_ignore_ascii_case("localhost") {
        return true;
    }
    h.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

use tokio::process::{Child, ChildStderr};
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::options::{ClientOptions, TransportKind};
#[cfg(feature = "ws")]
use io::ws_halves;
use io::{line_halves, MessageReader, MessageWriter};

#[allow(non_upper_case_globals)]
impl TransportKind {
    /// The old name of [`TransportKind::CodexMcpServer`] (it speaks the app-server protocol
    /// through `codex mcp-server`; the MCP transports are `McpStdio` and `McpHttp`).
    #[deprecated(since = "0.1.0", note = "renamed to `TransportKind::CodexMcpServer`")]
    pub const Mcp: TransportKind = TransportKind::CodexMcpServer;
}

/// An open connection: the two message halves and what serves them.
pub(crate) struct Link {
    pub(crate) reader: MessageReader,
    pub(crate) writer: MessageWriter,
    /// The writer's pipe, duplicated, for lines written on the caller's thread (stdio only).
    pub(crate) direct: Option<std::os::fd::OwnedFd>,
    /// The server's stderr, for the transport that spawns the server.
    pub(crate) stderr: Option<ChildStderr>,
    pub(crate) peer: Peer,
    /// The installed CLI's version, to compare with the server's (the control socket only).
    pub(crate) cli_version: Option<String>,
    /// MCP authorization events (an MCP HTTP transport with OAuth configured).
    #[cfg(feature = "mcp-http")]
    pub(crate) auth_events: Option<tokio::sync::mpsc::UnboundedReceiver<crate::auth::AuthEvent>>,
}

/// What serves a link, to be stopped when the link ends.
pub(crate) enum Peer {
    /// A server elsewhere (WebSocket, unix socket): closing our side is all.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    Remote,
    /// The spawned `codex app-server`, with its process id (also its process group's).
    Process { child: Child, pid: Option<u32> },
    /// The in-process shim (exec, mcp), awaited at teardown so it can cancel its calls and
    /// stop its processes gracefully.
    Shim(JoinHandle<()>),
}

impl Peer {
    /// Process id of the spawned server.
    pub(crate) fn pid(&self) -> Option<u32> {
        match self {
            Peer::Process { pid, .. } => *pid,
            _ => None,
        }
    }

    /// Wait for the server process to exit (forever when there is none); how it exited.
    pub(crate) async fn exited(&mut self) -> String {
        match self {
            Peer::Process { child, .. } => match child.wait().await {
                Ok(status) => process::describe(status),
                Err(e) => process::describe_wait_error("the server process", &e),
            },
            _ => std::future::pending().await,
        }
    }

    /// Stop it once our side of the link is closed: a process gets [`process::EXIT_GRACE`] to exit on
    /// its own before it is killed (how it exited is returned); a shim gets three times that
    /// to cancel its calls and stop its processes, each with its own grace period (bounded so
    /// teardown never hangs).
    pub(crate) async fn stop(self) -> Option<String> {
        match self {
            Peer::Remote => None,
            Peer::Process { mut child, pid } => {
                Some(process::stop(&mut child, pid, process::EXIT_GRACE).await)
            }
            Peer::Shim(task) => {
                let _ = tokio::time::timeout(process::EXIT_GRACE * 3, task).await;
                None
            }
        }
    }
}

/// Open the client's transport within its connect timeout.
pub(crate) async fn open(opts: &ClientOptions) -> Result<Link> {
    tokio::time::timeout(opts.connect_timeout, connect(opts))
        .await
        .unwrap_or_else(|_| {
            Err(Error::Timeout {
                method: format!("connect to {}", opts.transport.describe()),
                after: opts.connect_timeout,
            })
        })
}

async fn connect(opts: &ClientOptions) -> Result<Link> {
    if let Some(feature) = opts.transport.missing_feature() {
        return Err(crate::options::feature_error(&opts.transport, feature));
    }
    #[cfg(feature = "ws")]
    let remote = |(reader, writer)| Link {
        reader,
        writer,
        direct: None,
        stderr: None,
        peer: Peer::Remote,
        cli_version: None,
        #[cfg(feature = "mcp-http")]
        auth_events: None,
    };
    match &opts.transport {
        TransportKind::Stdio | TransportKind::McpStdio(_) => {
            let p = match &opts.transport {
                TransportKind::McpStdio(mcp) => {
                    process::spawn_command(process::mcp_command(opts, mcp))?
                }
                _ => process::spawn(opts)?,
            };
            let pid = p.child.id();
            // A failed dup only costs the short cut.
            let direct = std::os::fd::AsFd::as_fd(&p.stdin).try_clone_to_owned().ok();
            let (reader, writer) = line_halves(p.stdout, p.stdin);
            Ok(Link {
                reader,
                writer,
                direct,
                stderr: Some(p.stderr),
                peer: Peer::Process {
                    child: p.child,
                    pid,
                },
                cli_version: None,
                #[cfg(feature = "mcp-http")]
                auth_events: None,
            })
        }
        #[cfg(feature = "ws")]
        TransportKind::WebSocket { url, token } => {
            // A signed bearer token is minted for each connect (and so each reconnect).
            let minted = match &opts.ws_auth {
                crate::options::WsAuth::SignedBearerToken(signed) => Some(signed.mint()?),
                _ => None,
            };
            let token = minted.as_ref().map(|t| t.expose()).or(token.as_deref());
            let ws = ws::connect_url(url, token, opts).await?;
            Ok(remote(ws_halves(ws, opts.heartbeat)))
        }
        #[cfg(feature = "ws")]
        TransportKind::Unix { path } => {
            let path = match path {
                Some(p) => p.clone(),
                None => ws::default_socket(opts.codex_home.as_deref())?,
            };
            // The daemon behind the socket runs its own copy of Codex: learn the installed
            // CLI's version meanwhile, to compare with the server's at the handshake.
            let (ws, cli_version) = tokio::join!(
                ws::connect_unix(&path, opts.max_line_bytes),
                cli_version::installed(opts)
            );
            Ok(Link {
                cli_version,
                ..remote(ws_halves(ws?, opts.heartbeat))
            })
        }
        #[cfg(feature = "mcp-http")]
        TransportKind::McpHttp(http) => {
            let (tx, rx) = match http.oauth {
                Some(_) => {
                    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                    (Some(tx), Some(rx))
                }
                None => (None, None),
            };
            let net = http::Net {
                tls: Some(&opts.tls),
                proxy: opts.mcp.proxy.as_deref(),
            };
            let (reader, writer, task) =
                http::open_with(http, &net, opts.max_line_bytes, tx).await?;
            Ok(Link {
                reader,
                writer,
                direct: None,
                stderr: None,
                peer: Peer::Shim(task),
                cli_version: None,
                auth_events: rx,
            })
        }
        TransportKind::Exec(_) | TransportKind::CodexMcpServer => {
            let (reader, writer, task) = shim::start(shim::for_transport(opts)?);
            Ok(Link {
                reader,
                writer,
                direct: None,
                stderr: None,
                peer: Peer::Shim(task),
                cli_version: None,
                #[cfg(feature = "mcp-http")]
                auth_events: None,
            })
        }
        #[allow(unreachable_patterns)] // each arm above that a feature removed
        other => Err(crate::options::feature_error(other, "a cargo feature")),
    }
}

#[cfg(test)]
mod tests {
    use crate::options::TransportKind;

    /// Rust code that names the old variant keeps compiling and means the same transport;
    /// both spellings of the one-string spec give it.
    #[test]
    #[allow(deprecated)]
    fn the_old_name_of_the_codex_mcp_server_transport_still_works() {
        assert_eq!(TransportKind::Mcp, TransportKind::CodexMcpServer);
        for spec in ["mcp", "codex-mcp-server"] {
            let kind = TransportKind::parse(spec, None).unwrap();
            assert_eq!(kind, TransportKind::Mcp);
            assert_eq!(format!("{kind:?}"), "CodexMcpServer");
        }
    }
}
