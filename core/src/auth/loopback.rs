//! A ready browser step for desktop programs (RFC 8252 §7.3): listen on a loopback port,
//! open the system browser at the authorization URL, and take the redirect there.

use std::net::TcpListener as StdListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::config::{Authorize, BoxFuture};
use crate::error::{Error, Result};

/// Opens a URL for the user (the system browser by default).
type Opener = Arc<dyn Fn(&str) -> Result<()> + Send + Sync>;

/// The browser step on a loopback redirect: `http://127.0.0.1:PORT/callback`. Each
/// authorization opens the URL (the system browser: `xdg-open`, `open` or `start`, unless
/// [`open_with`](Self::open_with) says otherwise) and waits for the redirect, at most
/// [`timeout`](Self::timeout) (5 minutes by default).
#[derive(Clone)]
pub struct LoopbackBrowser {
    listener: Arc<Mutex<Option<StdListener>>>,
    port: u16,
    path: String,
    opener: Opener,
    timeout: Duration,
}

impl LoopbackBrowser {
    /// Listen on `127.0.0.1:port` (`0`: a free port) for the redirect to `/callback`.
    pub fn bind(port: u16) -> Result<LoopbackBrowser> {
        let l = StdListener::bind(("127.0.0.1", port)).map_err(|e| {
            Error::InvalidArgument(format!("cannot listen on 127.0.0.1:{port}: {e}"))
        })?;
        l.set_nonblocking(true)
            .map_err(|e| Error::InvalidArgument(format!("loopback listener: {e}")))?;
        let port = l.local_addr().map(|a| a.port()).unwrap_or(port);
        Ok(LoopbackBrowser {
            listener: Arc::new(Mutex::new(Some(l))),
            port,
            path: "/callback".into(),
            opener: Arc::new(open_system_browser),
            timeout: super::config::DEFAULT_AUTHORIZE_TIMEOUT,
        })
    }

    /// Open authorization URLs with `opener` instead of the system browser.
    pub fn open_with(
        mut self,
        opener: impl Fn(&str) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.opener = Arc::new(opener);
        self
    }

    /// How long to wait for the redirect.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The redirect URI to register: `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.path)
    }
}

/// Open `url` in the system browser.
fn open_system_browser(url: &str) -> Result<()> {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| Error::Transport(format!("could not open the browser: {e}")))
}

const PAGE: &str = "<!doctype html><title>Authorized</title><p>You can close this window and return to the application.</p>";

impl Authorize for LoopbackBrowser {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String>> {
        let this = self.clone();
        Box::pin(async move {
            let std_listener = this
                .listener
                .lock()
                .unwrap()
                .as_ref()
                .map(|l| l.try_clone())
                .transpose()
                .map_err(|e| Error::Transport(format!("loopback listener: {e}")))?
                .ok_or_else(|| Error::Transport("the loopback listener is gone".into()))?;
            let listener = tokio::net::TcpListener::from_std(std_listener)
                .map_err(|e| Error::Transport(format!("loopback listener: {e}")))?;
            // The opener may block (a process to spawn, a binding's callback): off the
            // runtime's threads.
            let opener = this.opener.clone();
            crate::rt::off_runtime(move || opener(&authorization_url)).await??;
            let wait = async {
                loop {
                    let (mut sock, _) = listener
                        .accept()
                        .await
                        .map_err(|e| Error::Transport(format!("loopback listener: {e}")))?;
                    let mut buf = Vec::with_capacity(2048);
                    let mut chunk = [0u8; 2048];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
                        match tokio::time::timeout(Duration::from_secs(10), sock.read(&mut chunk))
                            .await
                        {
                            Ok(Ok(0)) | Err(_) | Ok(Err(_)) => break,
                            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let line = String::from_utf8_lossy(&buf);
                    let target = line
                        .lines()
                        .next()
                        .and_then(|l| l.strip_prefix("GET "))
                        .and_then(|l| l.split(' ').next())
                        .unwrap_or("");
                    if target.split('?').next() != Some(this.path.as_str()) {
                        let _ = sock
                            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            .await;
                        continue;
                    }
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                        PAGE.len()
                    );
                    let _ = sock.write_all(reply.as_bytes()).await;
                    return Ok::<_, Error>(format!("http://127.0.0.1:{}{target}", this.port));
                }
            };
            tokio::time::timeout(this.timeout, wait)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Timeout {
                        method: "authorization in the browser".into(),
                        after: this.timeout,
                    })
                })
        })
    }

    fn redirect_uri(&self) -> Option<String> {
        Some(LoopbackBrowser::redirect_uri(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_redirect_without_a_browser() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let opened = Arc::new(Mutex::new(String::new()));
            let o = opened.clone();
            let b = LoopbackBrowser::bind(0)
                .unwrap()
                .timeout(Duration::from_secs(10))
                .open_with(move |u| {
                    *o.lock().unwrap() = u.to_owned();
                    Ok(())
                });
            let redirect = b.redirect_uri();
            assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
            let port = b.port;
            let waiting = tokio::spawn(b.authorize("https://as.example/authorize?x=1".into()));
            // The "browser": a stray request first, then the redirect.
            for path in ["/favicon.ico", "/callback?code=abc&state=xyz"] {
                let mut s = loop {
                    if let Ok(s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                        break s;
                    }
                    tokio::task::yield_now().await;
                };
                s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                    .await
                    .unwrap();
                let mut answer = String::new();
                s.read_to_string(&mut answer).await.unwrap();
                assert!(answer.starts_with("HTTP/1.1"), "{answer}");
            }
            let got = waiting.await.unwrap().unwrap();
            assert_eq!(
                got,
                format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz")
            );
            assert_eq!(*opened.lock().unwrap(), "https://as.example/authorize?x=1");
        });
    }
}
