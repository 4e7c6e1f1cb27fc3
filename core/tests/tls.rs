//! `wss://` through a real TLS-terminating proxy (stunnel4, from Debian's packages, installed by
//! scripts/setup-tls.sh) in front of the real `codex app-server --listen ws://127.0.0.1:PORT`.
//! The test makes its own CA and certificates (rcgen): a good certificate connects and runs a
//! turn; a wrong host name, an expired certificate and an unknown CA are refused with clear
//! errors; a proxy that wants a client certificate gets one; the bearer token never crosses
//! the wire in clear text.

mod support;

use codex_client::{Client, CodexClient, Error};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use support::tls::{ca, free_port, leaf, Stunnel};
use support::*;

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
    let c = CodexClient::new(client(ports[0]));
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
    let c = CodexClient::new(client(ports[4]).tls_client_cert(&client_c, &client_k));
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
    let c = CodexClient::new(
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
