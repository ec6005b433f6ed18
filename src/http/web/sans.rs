//! `client_allowed_sans`: after the inner verifier accepts a client
//! certificate, one of its Subject Alternative Names (DNS, e-mail, IP or
//! URI, as Go's x509 package lists them) must equal an allowed entry.

use std::net::IpAddr;
use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, SignatureScheme};
use x509_parser::extensions::GeneralName;

#[derive(Debug)]
pub(super) struct SanCheck {
    inner: Arc<dyn ClientCertVerifier>,
    allowed: Vec<String>,
}

impl SanCheck {
    pub(super) fn new(inner: Arc<dyn ClientCertVerifier>, allowed: Vec<String>) -> Self {
        SanCheck { inner, allowed }
    }
}

/// The SANs of a DER certificate as strings (IPs in their usual text form).
pub(crate) fn sans(der: &[u8]) -> Result<Vec<String>, CertificateError> {
    let (_, cert) =
        x509_parser::parse_x509_certificate(der).map_err(|_| CertificateError::BadEncoding)?;
    let ext = cert
        .subject_alternative_name()
        .map_err(|_| CertificateError::BadEncoding)?;
    let Some(ext) = ext else {
        return Ok(Vec::new());
    };
    Ok(ext
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            GeneralName::DNSName(s) | GeneralName::RFC822Name(s) | GeneralName::URI(s) => {
                Some((*s).to_string())
            }
            GeneralName::IPAddress(b) => match b.len() {
                4 => Some(IpAddr::from(<[u8; 4]>::try_from(*b).ok()?).to_string()),
                16 => Some(IpAddr::from(<[u8; 16]>::try_from(*b).ok()?).to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect())
}

impl ClientCertVerifier for SanCheck {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn offer_client_auth(&self) -> bool {
        self.inner.offer_client_auth()
    }

    fn client_auth_mandatory(&self) -> bool {
        self.inner.client_auth_mandatory()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        let verified = self
            .inner
            .verify_client_cert(end_entity, intermediates, now)?;
        if sans(end_entity)?.iter().any(|s| self.allowed.contains(s)) {
            Ok(verified)
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}
