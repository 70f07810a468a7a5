//! Connecting, with TLS (rustls) when the connection string asks for it.
//!
//! The driver reads the string (a URL or libpq key-value pairs) but knows
//! no `sslrootcert`: this module takes that one out and uses it as the
//! certificate authority to trust. `sslmode=require` connects with TLS and
//! verifies the server's certificate and name (against `sslrootcert`, or
//! the system's roots); any other mode connects without TLS, so a server
//! is never half-trusted.

use std::str::FromStr;
use std::sync::Arc;

use postgres::config::SslMode;
use postgres::{Client, Config, NoTls};
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::error::Error;

/// Connects as `params` says.
pub(crate) fn connect(params: &str) -> Result<Client, Error> {
    let (params, root) = take_root_cert(params);
    let config = Config::from_str(&params)?;
    if config.get_ssl_mode() != SslMode::Require {
        return Ok(config.connect(NoTls)?);
    }
    let roots = match root {
        Some(path) => roots_from(&path)?,
        None => system_roots()?,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_postgres_rustls::MakeRustlsConnect::new(tls);
    Ok(config.connect(connector)?)
}

fn tls_error(error: &dyn std::fmt::Display) -> Error {
    Error::Tls {
        message: error.to_string(),
    }
}

/// The certificates of a PEM file.
fn roots_from(path: &str) -> Result<RootCertStore, Error> {
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(path)
        .map_err(|e| tls_error(&format!("sslrootcert {path}: {e}")))?
    {
        let certificate =
            certificate.map_err(|e| tls_error(&format!("sslrootcert {path}: {e}")))?;
        roots
            .add(certificate)
            .map_err(|e| tls_error(&format!("sslrootcert {path}: {e}")))?;
    }
    if roots.is_empty() {
        return Err(tls_error(&format!("sslrootcert {path}: no certificate")));
    }
    Ok(roots)
}

/// The operating system's trusted roots.
fn system_roots() -> Result<RootCertStore, Error> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, _ignored) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(tls_error(&format!(
            "no trusted root certificate on this system ({} errors); name one with sslrootcert",
            found.errors.len()
        )));
    }
    Ok(roots)
}

/// `params` without its `sslrootcert`, and that value (percent-decoded in a
/// URL).
fn take_root_cert(params: &str) -> (String, Option<String>) {
    let is_url = params.starts_with("postgres://") || params.starts_with("postgresql://");
    if is_url {
        let Some((head, query)) = params.split_once('?') else {
            return (params.to_owned(), None);
        };
        let mut root = None;
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| match pair.strip_prefix("sslrootcert=") {
                Some(value) => {
                    root = Some(
                        percent_encoding::percent_decode_str(value)
                            .decode_utf8_lossy()
                            .into_owned(),
                    );
                    false
                }
                None => true,
            })
            .collect();
        let rest = if kept.is_empty() {
            head.to_owned()
        } else {
            format!("{head}?{}", kept.join("&"))
        };
        return (rest, root);
    }
    let mut root = None;
    let kept: Vec<&str> = params
        .split_whitespace()
        .filter(|pair| match pair.strip_prefix("sslrootcert=") {
            Some(value) => {
                root = Some(value.trim_matches('\'').to_owned());
                false
            }
            None => true,
        })
        .collect();
    (kept.join(" "), root)
}

#[cfg(test)]
mod tests {
    use super::take_root_cert;

    #[test]
    fn the_root_certificate_is_taken_out_of_either_form() {
        assert_eq!(
            take_root_cert("postgresql://u@h/db?sslmode=require&sslrootcert=%2Ftmp%2Fca.crt"),
            (
                "postgresql://u@h/db?sslmode=require".to_owned(),
                Some("/tmp/ca.crt".to_owned())
            )
        );
        assert_eq!(
            take_root_cert("postgresql://u@h/db?sslrootcert=/a"),
            ("postgresql://u@h/db".to_owned(), Some("/a".to_owned()))
        );
        assert_eq!(
            take_root_cert("host=h sslmode=require sslrootcert=/tmp/ca.crt user=u"),
            (
                "host=h sslmode=require user=u".to_owned(),
                Some("/tmp/ca.crt".to_owned())
            )
        );
        assert_eq!(
            take_root_cert("host=h user=u"),
            ("host=h user=u".to_owned(), None)
        );
    }
}
