//! Go's crypto/tls names (what the toolkit's file uses) mapped to rustls:
//! protocol versions, cipher suites, curves and client-auth policies. One
//! table per set; a name Go knows but rustls/ring lacks is an error that
//! says so.

use rustls::SupportedCipherSuite;
use rustls::crypto::SupportedKxGroup;
use rustls::crypto::ring::{cipher_suite as cs, kx_group};

use super::{WebConfigError, invalid};

/// `client_auth_type`: Go's `tls.ClientAuthType` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    NoClientCert,
    RequestClientCert,
    RequireAnyClientCert,
    VerifyClientCertIfGiven,
    RequireAndVerifyClientCert,
}

impl ClientAuth {
    pub const ALL: [ClientAuth; 5] = [
        ClientAuth::NoClientCert,
        ClientAuth::RequestClientCert,
        ClientAuth::RequireAnyClientCert,
        ClientAuth::VerifyClientCertIfGiven,
        ClientAuth::RequireAndVerifyClientCert,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ClientAuth::NoClientCert => "NoClientCert",
            ClientAuth::RequestClientCert => "RequestClientCert",
            ClientAuth::RequireAnyClientCert => "RequireAnyClientCert",
            ClientAuth::VerifyClientCertIfGiven => "VerifyClientCertIfGiven",
            ClientAuth::RequireAndVerifyClientCert => "RequireAndVerifyClientCert",
        }
    }

    pub(super) fn parse(text: &str) -> Result<Self, WebConfigError> {
        Self::ALL
            .into_iter()
            .find(|a| a.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|a| a.as_str()).collect();
                invalid(
                    "tls_server_config.client_auth_type",
                    format!("{text:?} is not accepted; use {}", names.join(", ")),
                )
            })
    }

    /// The client certificate is checked against the client CA.
    pub fn verifies(self) -> bool {
        matches!(
            self,
            ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert
        )
    }

    /// A client without a certificate fails the handshake.
    pub fn requires_cert(self) -> bool {
        matches!(
            self,
            ClientAuth::RequireAnyClientCert | ClientAuth::RequireAndVerifyClientCert
        )
    }
}

/// `min_version`/`max_version` → the enabled versions, oldest first.
pub(super) fn versions(
    min: Option<&str>,
    max: Option<&str>,
) -> Result<Vec<&'static rustls::SupportedProtocolVersion>, WebConfigError> {
    let rank = |key: &str, text: &str| match text {
        "TLS12" => Ok(0),
        "TLS13" => Ok(1),
        "TLS10" | "TLS11" => Err(invalid(
            key,
            format!(
                "{text} is not supported (rustls offers TLS 1.2 and 1.3 only); use TLS12 or TLS13"
            ),
        )),
        other => Err(invalid(
            key,
            format!("{other:?} is not accepted; use TLS12 or TLS13"),
        )),
    };
    let lo = rank("tls_server_config.min_version", min.unwrap_or("TLS12"))?;
    let hi = rank("tls_server_config.max_version", max.unwrap_or("TLS13"))?;
    if lo > hi {
        return Err(invalid(
            "tls_server_config.min_version",
            "is above max_version; use a min_version at or below max_version",
        ));
    }
    let all = [&rustls::version::TLS12, &rustls::version::TLS13];
    Ok(all[lo..=hi].to_vec())
}

/// Go's cipher suite names that ring implements.
const SUITES: [(&str, SupportedCipherSuite); 9] = [
    ("TLS_AES_128_GCM_SHA256", cs::TLS13_AES_128_GCM_SHA256),
    ("TLS_AES_256_GCM_SHA384", cs::TLS13_AES_256_GCM_SHA384),
    (
        "TLS_CHACHA20_POLY1305_SHA256",
        cs::TLS13_CHACHA20_POLY1305_SHA256,
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        cs::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        cs::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        cs::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        cs::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        cs::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        cs::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
];

/// Go's short aliases for the two ChaCha20 suites.
const SUITE_ALIASES: [(&str, &str); 2] = [
    (
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    ),
    (
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    ),
];

/// `cipher_suites` in the listed order (the server's preference). Go
/// applies the list to TLS 1.2 only; here TLS 1.2 suites are exactly those
/// listed, and TLS 1.3 suites are those listed, or all three if none is.
pub(super) fn cipher_suites(names: &[String]) -> Result<Vec<SupportedCipherSuite>, WebConfigError> {
    let key = "tls_server_config.cipher_suites";
    let mut chosen: Vec<SupportedCipherSuite> = Vec::new();
    for name in names {
        let canonical = SUITE_ALIASES
            .iter()
            .find(|(alias, _)| alias == name)
            .map_or(name.as_str(), |(_, full)| full);
        match SUITES.iter().find(|(n, _)| *n == canonical) {
            Some((_, suite)) if !chosen.contains(suite) => chosen.push(*suite),
            Some(_) => {}
            None if canonical.starts_with("TLS_") && canonical.contains("_WITH_") => {
                return Err(invalid(
                    key,
                    format!(
                        "{name} is not supported (rustls offers only ECDHE key exchange with AES-GCM or ChaCha20-Poly1305); remove it"
                    ),
                ));
            }
            None => {
                let names: Vec<&str> = SUITES.iter().map(|(n, _)| *n).collect();
                return Err(invalid(
                    key,
                    format!("{name:?} is not a cipher suite; use {}", names.join(", ")),
                ));
            }
        }
    }
    if !chosen
        .iter()
        .any(|s| matches!(s, SupportedCipherSuite::Tls13(_)))
    {
        chosen.splice(0..0, SUITES[..3].iter().map(|(_, s)| *s));
    }
    Ok(chosen)
}

/// `curve_preferences` → key exchange groups, in the listed order.
pub(super) fn curves(
    names: &[String],
) -> Result<Vec<&'static dyn SupportedKxGroup>, WebConfigError> {
    let key = "tls_server_config.curve_preferences";
    let mut out: Vec<&'static dyn SupportedKxGroup> = Vec::new();
    for name in names {
        let group = match name.as_str() {
            "X25519" => kx_group::X25519,
            "CurveP256" => kx_group::SECP256R1,
            "CurveP384" => kx_group::SECP384R1,
            "CurveP521" | "X25519MLKEM768" => {
                return Err(invalid(
                    key,
                    format!(
                        "{name} is not supported (rustls with ring offers X25519, CurveP256 and CurveP384); remove it"
                    ),
                ));
            }
            other => {
                return Err(invalid(
                    key,
                    format!("{other:?} is not a curve; use X25519, CurveP256 or CurveP384"),
                ));
            }
        };
        if !out.iter().any(|g| g.name() == group.name()) {
            out.push(group);
        }
    }
    Ok(out)
}
