//! TLS for `wss://` (rustls with ring): the system's root certificates plus the client's extra
//! CA file, an optional client certificate, server names always checked; failures named in
//! words (wrong host name, expired, unknown issuer).

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::path::Path;
use std::sync::Arc;

use super::io::ByteStream;
use crate::error::{Error, Result};
use crate::options::TlsOptions;

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "could not read certificates from {}: {e}",
                path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{} holds no PEM certificate",
            path.display()
        )));
    }
    Ok(certs)
}

/// The client configuration for `opts`: system roots (plus `ca_file`), client certificate.
pub(crate) fn client_config(opts: &TlsOptions) -> Result<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    let (added, _) = roots.add_parsable_certificates(native.certs);
    if let Some(ca) = &opts.ca_file {
        for cert in read_certs(ca)? {
            roots.add(cert).map_err(|e| {
                Error::InvalidArgument(format!("bad CA certificate in {}: {e}", ca.display()))
            })?;
        }
    } else if added == 0 {
        tracing::warn!("no system root certificates found; wss:// needs a CA file");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Transport(format!("TLS setup failed: {e}")))?
        .with_root_certificates(roots);
    let config = match &opts.client_cert {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain = read_certs(cert)?;
            let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
                Error::InvalidArgument(format!(
                    "could not read the private key in {}: {e}",
                    key.display()
                ))
            })?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| Error::InvalidArgument(format!("bad client certificate: {e}")))?
        }
    };
    Ok(config)
}

/// Run the TLS handshake for `host` over `tcp`.
pub(crate) async fn connect(
    tcp: tokio::net::TcpStream,
    host: &str,
    opts: &TlsOptions,
) -> Result<Box<dyn ByteStream>> {
    let config = client_config(opts)?;
    let name = ServerName::try_from(host.to_owned())
        .map_err(|e| Error::InvalidArgument(format!("bad TLS server name `{host}`: {e}")))?;
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| handshake_error(e, host))?;
    Ok(Box::new(stream))
}

/// A TLS handshake failure in words.
fn handshake_error(e: std::io::Error, host: &str) -> Error {
    use rustls::CertificateError as C;
    let tls = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    let why = match tls {
        Some(rustls::Error::InvalidCertificate(c)) => match c {
            C::NotValidForName | C::NotValidForNameContext { .. } => {
                format!("the server's certificate is not valid for host `{host}`")
            }
            C::Expired | C::ExpiredContext { .. } => "the server's certificate has expired".into(),
            C::NotValidYet | C::NotValidYetContext { .. } => {
                "the server's certificate is not valid yet".into()
            }
            C::UnknownIssuer => "the server's certificate is signed by an unknown issuer (not a system root; give its CA with the TLS CA-file option)".into(),
            C::Revoked => "the server's certificate is revoked".into(),
            other => format!("the server's certificate was refused: {other:?}"),
        },
        Some(other) => format!("{other}"),
        None => e.to_string(),
    };
    Error::Transport(format!("TLS handshake with {host} failed: {why}"))
}
