//! `codex app-server --listen ws://...` and `--listen unix://...`: JSON-RPC over WebSocket
//! text frames, one message per frame, with an optional bearer token on the upgrade.

use super::is_loopback;
use std::path::Path;
use std::pin::Pin;

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, Uri};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::io::{ByteStream, Ws};
use crate::error::{Error, Result};

fn config(max_message: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(max_message))
        .max_frame_size(Some(max_message))
}

/// Refuse to send a token in clear text to anything but this machine.
pub(crate) fn check_token_destination(uri: &Uri, has_token: bool) -> Result<()> {
    let scheme = uri.scheme_str().unwrap_or("");
    if scheme != "ws" && scheme != "wss" {
        return Err(Error::InvalidArgument(format!(
            "WebSocket URL must start with ws:// or wss://, got `{scheme}://`"
        )));
    }
    let host = uri.host().unwrap_or("");
    if has_token && scheme == "ws" && !is_loopback(host) {
        return Err(Error::InvalidArgument(format!(
            "refusing to send the bearer token in clear text to `{host}`: use wss:// or a loopback ws:// address"
        )));
    }
    Ok(())
}

fn upgrade_error(e: tokio_tungstenite::tungstenite::Error) -> Error {
    use tokio_tungstenite::tungstenite::Error as WsError;
    match e {
        WsError::Http(resp) => {
            let status = resp.status();
            let hint = match status.as_u16() {
                401 => " (missing or wrong token)",
                403 => {
                    " (forbidden: the server refuses this client, e.g. because of an Origin header)"
                }
                _ => "",
            };
            // The server's reason (Codex: `expired websocket jwt`, `websocket jwt audience
            // mismatch`, ...), when it sent a short line of text.
            let reason = resp
                .body()
                .as_deref()
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(str::trim)
                .filter(|r| !r.is_empty() && r.len() <= 200 && !r.contains(char::is_control))
                .map_or(String::new(), |r| format!(": {r}"));
            Error::Transport(format!(
                "WebSocket upgrade refused: HTTP {status}{hint}{reason}"
            ))
        }
        other => Error::Transport(format!("WebSocket handshake failed: {other}")),
    }
}

/// Connect to `ws://host:port/...` or `wss://` (TLS with `opts.tls`), sending
/// `Authorization: Bearer <token>` when a token is given.
pub(crate) async fn connect_url(
    url: &str,
    token: Option<&str>,
    opts: &crate::options::ClientOptions,
) -> Result<Ws> {
    let max_message = opts.max_line_bytes;
    let mut request = url
        .into_client_request()
        .map_err(|e| Error::InvalidArgument(format!("bad WebSocket URL: {e}")))?;
    check_token_destination(request.uri(), token.is_some())?;
    if let Some(t) = token {
        let mut v = HeaderValue::from_str(&format!("Bearer {t}")).map_err(|_| {
            Error::InvalidArgument("token contains characters not allowed in a header".into())
        })?;
        v.set_sensitive(true);
        request.headers_mut().insert("Authorization", v);
    }
    let uri = request.uri().clone();
    let host = uri
        .host()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let tls = uri.scheme_str() == Some("wss");
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let tcp = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| Error::Transport(format!("could not connect to {host}:{port}: {e}")))?;
    let _ = tcp.set_nodelay(true);
    let stream: Pin<Box<dyn ByteStream>> = if tls {
        #[cfg(feature = "tls")]
        let s = Box::into_pin(super::tls::connect(tcp, &host, &opts.tls).await?);
        #[cfg(not(feature = "tls"))]
        let s: Pin<Box<dyn ByteStream>> = {
            drop(tcp);
            return Err(crate::options::feature_error(&opts.transport, "tls"));
        };
        s
    } else {
        Box::pin(tcp)
    };
    let (ws, _resp) =
        tokio_tungstenite::client_async_with_config(request, stream, Some(config(max_message)))
            .await
            .map_err(upgrade_error)?;
    Ok(ws)
}

/// Connect to the app-server control socket at `path` (WebSocket after an HTTP upgrade).
pub(crate) async fn connect_unix(path: &Path, max_message: usize) -> Result<Ws> {
    let sock = tokio::net::UnixStream::connect(path).await.map_err(|e| {
        Error::Transport(format!(
            "could not connect to unix socket {}: {e}",
            path.display()
        ))
    })?;
    let stream: Pin<Box<dyn ByteStream>> = Box::pin(sock);
    let request = "ws://localhost/"
        .into_client_request()
        .map_err(|e| Error::Protocol(e.to_string()))?;
    let (ws, _resp) =
        tokio_tungstenite::client_async_with_config(request, stream, Some(config(max_message)))
            .await
            .map_err(upgrade_error)?;
    Ok(ws)
}

/// The default control socket: `$CODEX_HOME/app-server-control/app-server-control.sock`.
pub(crate) fn default_socket(codex_home: Option<&Path>) -> Result<std::path::PathBuf> {
    let home = match codex_home {
        Some(h) => h.to_path_buf(),
        None => match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
            Some(h) => h.into(),
            None => std::env::var_os("HOME")
                .map(|h| Path::new(&h).join(".codex"))
                .ok_or_else(|| {
                    Error::InvalidArgument(
                        "no CODEX_HOME or HOME to find the control socket".into(),
                    )
                })?,
        },
    };
    Ok(home
        .join("app-server-control")
        .join("app-server-control.sock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_is_only_sent_to_loopback_or_tls() {
        let uri = |s: &str| s.parse::<Uri>().unwrap();
        assert!(check_token_destination(&uri("ws://127.0.0.1:9/"), true).is_ok());
        assert!(check_token_destination(&uri("ws://localhost:9/"), true).is_ok());
        assert!(check_token_destination(&uri("ws://[::1]:9/"), true).is_ok());
        assert!(check_token_destination(&uri("wss://example.com/"), true).is_ok());
        assert!(check_token_destination(&uri("ws://example.com/"), false).is_ok());
        let err = check_token_destination(&uri("ws://example.com/"), true).unwrap_err();
        assert!(err.to_string().contains("clear text"));
        assert!(check_token_destination(&uri("ws://10.0.0.1/"), true).is_err());
        assert!(check_token_destination(&uri("http://127.0.0.1/"), false).is_err());
    }
}
