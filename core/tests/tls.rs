//! `wss://` through a real TLS-terminating proxy (stunnel4, from Debian's packages, installed by
//! scripts/setup-tls.sh) in front of the real `codex app-server --listen ws://127.0.0.1:PORT`.
//! The test makes its own CA and certificates (rcgen): a good certificate connects and runs a
//! turn; a wrong host name, an expired certificate and an unknown CA are refused with clear
//! errors; a proxy that wants a client certificate gets one; the bearer token never crosses
//! the wire in clear text.

mod support;

use codex_client::{Client, Error};
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

fn ca(name: &str) -> Ca {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name
        .push(rcgen::DnType::CommonName, format!("{name} test CA"));
    let key = KeyPair::generate().unwrap();
    let cert = p.self_signed(&key).unwrap();
    Ca { cert, key }
}

/// A server certificate for `host` signed by `ca`; written as `<name>.pem` / `<name>.key`.
fn leaf(dir: &Path, name: &str, ca: &Ca, host: &str, expired: bool) -> (PathBuf, PathBuf) {
    let mut p = CertificateParams::new(vec![host.to_owned()]).unwrap();
    if expired {
        p.not_before = rcgen::date_time_ymd(2020, 1, 1);
        p.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    let key = KeyPair::generate().unwrap();
    let cert = p.signed_by(&key, &ca.cert, &ca.key).unwrap();
    let (c, k) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (c, k)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// stunnel4 with one service per entry: (accept port, cert, key, client CA to require).
struct Stunnel(Child);

impl Stunnel {
    fn start(dir: &Path, backend: u16, services: &[(u16, &Path, &Path, Option<&Path>)]) -> Stunnel {
        let bin = ["stunnel4", "stunnel"]
            .into_iter()
            .find(|b| {
                Command::new(b)
                    .arg("-version")
                    .stderr(Stdio::null())
                    .status()
                    .is_ok()
            })
            .expect("stunnel4 is missing: run scripts/setup-tls.sh (apt-get install stunnel4)");
        let mut conf = String::from("foreground = yes\npid =\ndebug = 3\n");
        for (i, (port, cert, key, client_ca)) in services.iter().enumerate() {
            conf += &format!(
                "[s{i}]\naccept = 127.0.0.1:{port}\nconnect = 127.0.0.1:{backend}\ncert = {}\nkey = {}\n",
                cert.display(),
                key.display()
            );
            if let Some(ca) = client_ca {
                conf += &format!("CAfile = {}\nverifyChain = yes\n", ca.display());
            }
        }
        let path = dir.join("stunnel.conf");
        std::fs::write(&path, conf).unwrap();
        let child = Command::new(bin)
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start stunnel4");
        let tunnel = Stunnel(child);
        for (port, ..) in services {
            assert!(
                wait_until(Duration::from_secs(10), || TcpStream::connect((
                    "127.0.0.1",
                    *port
                ))
                .is_ok()),
                "stunnel never listened on {port}"
            );
        }
        tunnel
    }
}

impl Drop for Stunnel {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A relay that records every byte the client sends.
fn recording_relay(target: u16) -> (u16, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for c in listener.incoming() {
            let Ok(mut c) = c else { continue };
            let Ok(mut s) = TcpStream::connect(("127.0.0.1", target)) else {
                continue;
            };
            let (mut c2, mut s2) = (c.try_clone().unwrap(), s.try_clone().unwrap());
            let log = log.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = c.read(&mut buf) {
                    if n == 0 || s.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    log.lock().unwrap().extend_from_slice(&buf[..n]);
                }
                let _ = s.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    (port, seen)
}

#[test]
fn wss_through_a_real_tls_proxy() {
    let env = RealEnv::new();
    let dir = TempDir::new("tls");
    let token = "tls-test-token-7f3a9c";
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, token).unwrap();
    let server = ListeningServer::start(
        &env,
        "ws://127.0.0.1:0",
        &[
            "--ws-auth",
            "capability-token",
            "--ws-token-file",
            token_file.to_str().unwrap(),
        ],
        None,
    );
    let backend: u16 = server
        .url
        .as_ref()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let good_ca = ca("good");
    let other_ca = ca("other");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, good_ca.cert.pem()).unwrap();
    let (good_c, good_k) = leaf(dir.path(), "good", &good_ca, "localhost", false);
    let (wrong_c, wrong_k) = leaf(dir.path(), "wrong", &good_ca, "elsewhere.example", false);
    let (old_c, old_k) = leaf(dir.path(), "old", &good_ca, "localhost", true);
    let (foreign_c, foreign_k) = leaf(dir.path(), "foreign", &other_ca, "localhost", false);
    // Client certificates for the service that wants one.
    let (client_c, client_k) = leaf(dir.path(), "client", &good_ca, "codex-client", false);
    let ports: Vec<u16> = (0..5).map(|_| free_port()).collect();
    let _tunnel = Stunnel::start(
        dir.path(),
        backend,
        &[
            (ports[0], &good_c, &good_k, None),
            (ports[1], &wrong_c, &wrong_k, None),
            (ports[2], &old_c, &old_k, None),
            (ports[3], &foreign_c, &foreign_k, None),
            (ports[4], &good_c, &good_k, Some(&ca_file)),
        ],
    );
    let client = |port: u16| {
        env.options()
            .websocket(format!("wss://localhost:{port}"), Some(token.to_owned()))
            .tls_ca_file(&ca_file)
    };

    // A good certificate: connects and runs a real turn.
    let c = Client::new(client(ports[0]));
    c.connect().expect("wss:// with the test CA");
    let r = c
        .thread_start(serde_json::json!({}))
        .unwrap()
        .run("MOCK_TEXT: over TLS")
        .unwrap();
    assert_eq!(r.final_response.as_deref(), Some("over TLS"));
    c.disconnect();

    let refused = |opts, what: &str| match Client::new(opts).connect() {
        Err(Error::Transport(m)) => {
            assert!(m.contains(what), "expected `{what}` in: {m}");
            m
        }
        other => panic!("expected a TLS error naming `{what}`, got {other:?}"),
    };
    refused(client(ports[1]), "not valid for host `localhost`");
    refused(client(ports[2]), "expired");
    refused(client(ports[3]), "unknown issuer");
    // Without the CA file the good certificate is unknown too.
    refused(
        env.options().websocket(
            format!("wss://localhost:{}", ports[0]),
            Some(token.to_owned()),
        ),
        "unknown issuer",
    );

    // The proxy that wants a client certificate: refused without, connects with one.
    assert!(Client::new(client(ports[4])).connect().is_err());
    let c = Client::new(client(ports[4]).tls_client_cert(&client_c, &client_k));
    c.connect().expect("wss:// with a client certificate");
    c.disconnect();

    // Bad PEM files are named.
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").unwrap();
    match Client::new(client(ports[0]).tls_ca_file(&junk)).connect() {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("junk.pem"), "{m}"),
        other => panic!("{other:?}"),
    }

    // The token never crosses the wire in clear text: every byte the client sent, recorded
    // before the proxy, is TLS.
    let (relay, seen) = recording_relay(ports[0]);
    let c = Client::new(
        env.options()
            .websocket(format!("wss://localhost:{relay}"), Some(token.to_owned()))
            .tls_ca_file(&ca_file),
    );
    c.connect().unwrap();
    assert!(c
        .request_blocking("model/list", serde_json::json!({}))
        .is_ok());
    c.disconnect();
    let bytes = seen.lock().unwrap().clone();
    assert!(bytes.len() > 100, "the relay saw the connection");
    assert!(
        !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
        "the token went over the wire in clear text"
    );
    // And a token is never sent over plain ws:// to anything but loopback.
    match Client::new(
        env.options()
            .websocket("ws://192.0.2.1:9/", Some(token.to_owned())),
    )
    .connect()
    {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("clear text"), "{m}"),
        other => panic!("{other:?}"),
    }
}
