//! A TCP relay on 127.0.0.1 in front of a server, that a test can cut (every connection
//! through it is reset at once; the server stays up, as when a network path drops) or stall
//! (connections stay open and nothing more gets through, as with a silently dead peer).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The relay; dropping it stops accepting and cuts what is open.
pub struct CutProxy {
    /// `127.0.0.1:PORT` to connect to instead of the server.
    pub addr: String,
    open: Arc<Mutex<Vec<TcpStream>>>,
    stop: Arc<AtomicBool>,
    stalled: Arc<AtomicBool>,
    /// Connections accepted so far.
    pub accepted: Arc<AtomicUsize>,
    /// The head of each connection's first request (up to the blank line ending its HTTP
    /// headers, at most 16 KiB), in the order the connections were accepted: a test reads
    /// what each WebSocket upgrade carried.
    pub heads: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl CutProxy {
    /// Relay `127.0.0.1:<new port>` to `target` (`host:port`).
    pub fn start(target: &str) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let open = Arc::new(Mutex::new(Vec::<TcpStream>::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stalled = Arc::new(AtomicBool::new(false));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let st = stalled.clone();
        let (o, s, a, h, target) = (
            open.clone(),
            stop.clone(),
            accepted.clone(),
            heads.clone(),
            target.to_owned(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::Acquire) {
                    return;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(&target) else {
                    continue;
                };
                a.fetch_add(1, Ordering::AcqRel);
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                {
                    let mut open = o.lock().unwrap();
                    open.push(client.try_clone().unwrap());
                    open.push(server.try_clone().unwrap());
                }
                pipe(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    st.clone(),
                    Some(h.clone()),
                );
                pipe(server, client, st.clone(), None);
            }
        });
        CutProxy {
            addr,
            open,
            stop,
            stalled,
            accepted,
            heads,
        }
    }

    /// Reset every connection through the relay now (new ones are still accepted).
    pub fn cut(&self) {
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// From now on nothing gets through in either direction (bytes are read and discarded;
    /// connections stay open).
    pub fn stall(&self) {
        self.stalled.store(true, Ordering::Release);
    }
}

/// Copy `from` to `to` until either ends; the head of what `from` sends first goes to `heads`.
fn pipe(
    mut from: TcpStream,
    mut to: TcpStream,
    stalled: Arc<AtomicBool>,
    heads: Option<Arc<Mutex<Vec<Vec<u8>>>>>,
) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        let mut head = heads.map(|h| (h, Vec::new()));
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) if stalled.load(Ordering::Acquire) => {}
                Ok(n) => {
                    if let Some((heads, mut h)) = head.take() {
                        h.extend_from_slice(&buf[..n]);
                        let end = h.windows(4).position(|w| w == b"\r\n\r\n");
                        if end.is_some() || h.len() >= 16 * 1024 {
                            h.truncate(end.map_or(h.len(), |e| e + 4));
                            heads.lock().unwrap().push(h);
                        } else {
                            head = Some((heads, h));
                        }
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = TcpStream::connect(&self.addr);
        self.cut();
    }
}

/// A real `codex app-server --listen ws://127.0.0.1:PORT` in `env` behind a relay: the server,
/// the relay, and the `ws://` URL to connect to (the relay's).
pub fn relayed_app_server(env: &super::RealEnv) -> (super::ListeningServer, CutProxy, String) {
    let server = super::ListeningServer::start(env, "ws://127.0.0.1:0", &[], None);
    let target = server.url.clone().unwrap();
    let proxy = CutProxy::start(target.trim_start_matches("ws://"));
    let url = format!("ws://{}", proxy.addr);
    (server, proxy, url)
}
