//! TLS fixtures of the integration tests: a CA and certificates made by rcgen, and stunnel4
//! (scripts/setup-tls.sh) terminating TLS in front of a loopback server.

use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::wait_until;

/// A test CA made by rcgen.
pub struct Ca {
    /// Its certificate.
    pub cert: rcgen::Certificate,
    /// Its key.
    pub key: KeyPair,
}

/// A new self-signed CA named `name`.
pub fn ca(name: &str) -> Ca {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name
        .push(rcgen::DnType::CommonName, format!("{name} test CA"));
    let key = KeyPair::generate().unwrap();
    let cert = p.self_signed(&key).unwrap();
    Ca { cert, key }
}

/// A server certificate for `host` signed by `ca`; written as `<name>.pem` / `<name>.key`.
pub fn leaf(dir: &Path, name: &str, ca: &Ca, host: &str, expired: bool) -> (PathBuf, PathBuf) {
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

/// A free loopback port.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// stunnel4 with one service per entry: (accept port, cert, key, client CA to require).
pub struct Stunnel(Child);

impl Stunnel {
    /// Start it and wait (bounded) until every service listens.
    pub fn start(
        dir: &Path,
        backend: u16,
        services: &[(u16, &Path, &Path, Option<&Path>)],
    ) -> Stunnel {
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
