//! `tls_server_config` → a rustls [`ServerConfig`] (ring provider). The
//! files it names are read on every build; [`super::live`] rebuilds when
//! they change on disk.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{ServerConfig, WebPkiClientVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, RootCertStore, SignatureScheme};

use super::{ClientAuth, Source, TlsSettings, WebConfigError, invalid};

/// The most PEM text one file may hold (a chain of a few certificates is
/// a few KiB; the Debian CA bundle 220 KiB).
pub const PEM_LIMIT: crate::files::Limit = crate::files::Limit {
    bytes: 1 << 20,
    what: "a certificate, key or CA file",
};

/// The PEM text of `source`, a file read through [`crate::files`]: on the
/// watcher thread a FIFO put in a certificate's place is refused at once
/// instead of blocking it (and with it every later rotation).
fn read_pem(key: &str, source: &Source) -> Result<Vec<u8>, WebConfigError> {
    match source {
        Source::Inline(text) => Ok(text.as_bytes().to_vec()),
        Source::File(path) => crate::files::read(path, PEM_LIMIT)
            .map_err(|e| invalid(key, format!("{}: {e}", path.display()))),
    }
}

fn certs(key: &str, source: &Source) -> Result<Vec<CertificateDer<'static>>, WebConfigError> {
    let pem = read_pem(key, source)?;
    let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&pem).collect();
    match certs {
        Ok(c) if !c.is_empty() => Ok(c),
        Ok(_) => Err(invalid(key, "holds no PEM CERTIFICATE block")),
        Err(e) => Err(invalid(key, format!("not PEM certificates ({e})"))),
    }
}

/// The ring provider narrowed to the configured suites and curves.
fn provider(s: &TlsSettings) -> CryptoProvider {
    let mut p = rustls::crypto::ring::default_provider();
    if let Some(suites) = &s.cipher_suites {
        p.cipher_suites = suites.clone();
    }
    if let Some(groups) = &s.kx_groups {
        p.kx_groups = groups.clone();
    }
    p
}

/// Builds the server config from `s`, reading every file it names.
pub fn build(s: &TlsSettings) -> Result<Arc<ServerConfig>, WebConfigError> {
    let provider = Arc::new(provider(s));
    let chain = certs("tls_server_config.cert_file", &s.cert)?;
    let key_pem = read_pem("tls_server_config.key_file", &s.key)?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        invalid(
            "tls_server_config.key_file",
            format!("no PEM private key ({e})"),
        )
    })?;
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&s.versions)
        .map_err(|e| invalid("tls_server_config.cipher_suites", e.to_string()))?;
    let builder = builder.with_client_cert_verifier(verifier(s, &provider)?);
    let mut config = builder.with_single_cert(chain, key).map_err(|e| {
        invalid(
            "tls_server_config.key_file",
            format!("does not go with cert_file ({e})"),
        )
    })?;
    config.ignore_client_order = s.prefer_server_order;
    config.alpn_protocols = if s.http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(Arc::new(config))
}

fn verifier(
    s: &TlsSettings,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ClientCertVerifier>, WebConfigError> {
    let key = "tls_server_config.client_ca_file";
    let algorithms = provider.signature_verification_algorithms;
    let base: Arc<dyn ClientCertVerifier> = match s.client_auth {
        ClientAuth::NoClientCert => return Ok(WebPkiClientVerifier::no_client_auth()),
        ClientAuth::RequestClientCert | ClientAuth::RequireAnyClientCert => {
            Arc::new(AnyClientCert {
                mandatory: s.client_auth.requires_cert(),
                algorithms,
            })
        }
        ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert => {
            let source = s
                .client_ca
                .as_ref()
                .ok_or_else(|| invalid(key, "missing"))?;
            let mut roots = RootCertStore::empty();
            for cert in certs(key, source)? {
                roots
                    .add(cert)
                    .map_err(|e| invalid(key, format!("not a usable CA certificate ({e})")))?;
            }
            let mut b =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider));
            if !s.client_auth.requires_cert() {
                b = b.allow_unauthenticated();
            }
            b.build().map_err(|e| invalid(key, e.to_string()))?
        }
    };
    if s.allowed_sans.is_empty() {
        return Ok(base);
    }
    Ok(Arc::new(super::sans::SanCheck::new(
        base,
        s.allowed_sans.clone(),
    )))
}

/// `RequestClientCert` / `RequireAnyClientCert`: a certificate is asked
/// for (and with `mandatory`, required) but not checked against any CA, as
/// in Go. The handshake signature is still verified, so the client holds
/// the certificate's key.
#[derive(Debug)]
struct AnyClientCert {
    mandatory: bool,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for AnyClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The files `s` names (inline PEM has none): what the web config's
/// watcher stats besides the web config file itself.
pub fn files(s: &TlsSettings) -> Vec<PathBuf> {
    [Some(&s.cert), Some(&s.key), s.client_ca.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|src| match src {
            Source::File(p) => Some(p.clone()),
            Source::Inline(_) => None,
        })
        .collect()
}
