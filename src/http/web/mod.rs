//! The `--web.config.file`: the Prometheus exporter-toolkit web
//! configuration format (the same file node_exporter reads), in two stages
//! like the main config: raw serde structs with `deny_unknown_fields`, then
//! a validated [`WebConfig`]. What rustls cannot honour (TLS 1.0/1.1, CBC or
//! RSA-key-exchange suites, curves ring lacks) is an error naming the key,
//! never silently dropped.
//!
//! Relative file names are resolved against the web config file's folder,
//! as the toolkit does. The file and the certificate, key and client CA
//! files it names are re-read when they change ([`live`]).

pub mod live;
mod sans;
pub mod tls;
mod tls_names;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hyper::header::{HeaderName, HeaderValue};
use serde::Deserialize;
use thiserror::Error;

pub use tls_names::ClientAuth;

/// The largest web config file read (inline certificates and a few
/// thousand users fit in far less).
pub const FILE_LIMIT: crate::files::Limit = crate::files::Limit {
    bytes: 1 << 20,
    what: "a web config file",
};

/// A web config error: which key (as a dotted path inside the file; empty
/// when the YAML parser's message names it) and what it accepts. One line.
#[derive(Debug, Error)]
pub struct WebConfigError {
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for WebConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

pub(crate) fn invalid(key: &str, message: impl Into<String>) -> WebConfigError {
    WebConfigError {
        key: key.to_string(),
        message: message.into(),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawWebConfig {
    tls_server_config: Option<RawTls>,
    http_server_config: Option<RawHttp>,
    basic_auth_users: Option<BTreeMap<String, String>>,
    basic_auth_excluded_paths: Option<Vec<String>>,
    /// A toolkit key this exporter does not implement: named in the error.
    rate_limit: Option<serde_yaml_ng::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawTls {
    cert_file: Option<PathBuf>,
    key_file: Option<PathBuf>,
    cert: Option<String>,
    key: Option<String>,
    client_ca_file: Option<PathBuf>,
    client_ca: Option<String>,
    client_auth_type: Option<String>,
    client_allowed_sans: Option<Vec<String>>,
    min_version: Option<String>,
    max_version: Option<String>,
    cipher_suites: Option<Vec<String>>,
    prefer_server_cipher_suites: Option<bool>,
    curve_preferences: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawHttp {
    http2: Option<bool>,
    headers: Option<BTreeMap<String, String>>,
}

/// Where PEM text comes from: a file (re-read when it changes) or inline.
#[derive(Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Inline(String),
}

impl std::fmt::Debug for Source {
    // Inline keys are secrets: never in a log line or a panic message.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::File(p) => write!(f, "File({})", p.display()),
            Source::Inline(_) => f.write_str("Inline(..)"),
        }
    }
}

/// Validated `tls_server_config`.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    pub cert: Source,
    pub key: Source,
    pub client_ca: Option<Source>,
    pub client_auth: ClientAuth,
    /// A client certificate must carry one of these SANs (exact match).
    pub allowed_sans: Vec<String>,
    /// Enabled protocol versions, from `min_version`..=`max_version`.
    pub versions: Vec<&'static rustls::SupportedProtocolVersion>,
    /// `None`: every suite the ring provider has.
    pub cipher_suites: Option<Vec<rustls::SupportedCipherSuite>>,
    /// `None`: the ring provider's groups in its order.
    pub kx_groups: Option<Vec<&'static dyn rustls::crypto::SupportedKxGroup>>,
    /// `prefer_server_cipher_suites` (toolkit default true).
    pub prefer_server_order: bool,
    /// Offer HTTP/2 by ALPN (`http_server_config.http2`, default true).
    pub http2: bool,
}

/// The validated web configuration. `Default` is plain HTTP, no auth.
#[derive(Clone, Default)]
pub struct WebConfig {
    pub tls: Option<TlsSettings>,
    /// User name → bcrypt hash.
    pub users: BTreeMap<String, String>,
    /// Paths served without authentication (`basic_auth_excluded_paths`).
    pub auth_excluded_paths: Vec<String>,
    /// Security headers added to every response.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The file this was read from (`None`: built in, or parsed from text),
    /// watched for changes while serving.
    pub file: Option<PathBuf>,
}

impl std::fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebConfig")
            .field("tls", &self.tls)
            .field("users", &self.users.keys().collect::<Vec<_>>())
            .field("auth_excluded_paths", &self.auth_excluded_paths)
            .field("headers", &self.headers)
            .field("file", &self.file)
            .finish()
    }
}

impl WebConfig {
    /// Reads, parses and validates a web config file, and loads its
    /// certificate and key once so a bad one is a config error at start.
    /// The error says which key inside the file is wrong; the caller adds
    /// the file's name.
    pub fn load(path: &Path) -> Result<Self, WebConfigError> {
        let config = Self::read(path)?;
        if let Some(tls) = &config.tls {
            tls::build(tls)?;
        }
        Ok(config)
    }

    /// Reads, parses and validates a web config file without loading the
    /// files it names (at most [`FILE_LIMIT`]; a FIFO or device is
    /// refused at once, see [`crate::files`]).
    pub fn read(path: &Path) -> Result<Self, WebConfigError> {
        let text =
            crate::files::read_text(path, FILE_LIMIT).map_err(|e| invalid("", e.to_string()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Ok(WebConfig {
            file: Some(path.to_path_buf()),
            ..Self::parse(&text, base)?
        })
    }

    /// Parses and validates YAML text; relative file names are taken
    /// relative to `base`. Reads no file.
    pub fn parse(text: &str, base: &Path) -> Result<Self, WebConfigError> {
        let raw: RawWebConfig = if text.trim().is_empty() {
            RawWebConfig::default()
        } else {
            serde_yaml_ng::from_str(text)
                .map_err(|e| invalid("", e.to_string().replace('\n', " ")))?
        };
        if raw.rate_limit.is_some() {
            return Err(invalid(
                "rate_limit",
                "is not supported by ssd_exporter; remove it (a scrape costs one shared encode)",
            ));
        }
        let tls: Option<TlsSettings> = match raw.tls_server_config {
            Some(t) => tls_settings(t, base)?,
            None => None,
        };
        let http = raw.http_server_config.unwrap_or_default();
        // As in the toolkit: on by default, and only over TLS (ALPN "h2").
        let http2 = http.http2.unwrap_or(true);
        let tls = tls.map(|t| TlsSettings { http2, ..t });
        let users = raw.basic_auth_users.unwrap_or_default();
        for (user, hash) in &users {
            if user.contains(':') {
                return Err(invalid(
                    "basic_auth_users",
                    format!("{user:?}: a user name cannot contain ':'"),
                ));
            }
            if hash.parse::<bcrypt::HashParts>().is_err() {
                return Err(invalid(
                    &format!("basic_auth_users.{user}"),
                    "is not a bcrypt hash; make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'",
                ));
            }
        }
        let auth_excluded_paths = raw.basic_auth_excluded_paths.unwrap_or_default();
        if let Some(p) = auth_excluded_paths.iter().find(|p| !p.starts_with('/')) {
            return Err(invalid(
                "basic_auth_excluded_paths",
                format!("{p:?} must be a path starting with /, e.g. /healthz"),
            ));
        }
        Ok(WebConfig {
            tls,
            users,
            auth_excluded_paths,
            headers: headers(http.headers.unwrap_or_default())?,
            file: None,
        })
    }

    /// Whether clients must present basic-auth credentials.
    pub fn auth_enabled(&self) -> bool {
        !self.users.is_empty()
    }

    /// One line for `--check-config` and the startup log.
    pub fn summary(&self) -> String {
        let tls = match &self.tls {
            None => "off".to_string(),
            Some(t) if t.client_auth == ClientAuth::NoClientCert => "on".to_string(),
            Some(t) => format!("on, client certificates: {}", t.client_auth.as_str()),
        };
        let auth = if self.auth_enabled() {
            format!("basic ({} users)", self.users.len())
        } else {
            "off".to_string()
        };
        format!("tls {tls}; authentication {auth}")
    }
}

fn source(
    key: &str,
    file: Option<PathBuf>,
    inline: Option<String>,
    base: &Path,
) -> Result<Option<Source>, WebConfigError> {
    let file = file.filter(|f| !f.as_os_str().is_empty());
    let inline = inline.filter(|s| !s.is_empty());
    match (file, inline) {
        (Some(_), Some(_)) => Err(invalid(
            &format!("tls_server_config.{key}_file"),
            format!("cannot be combined with inline {key}; use one or the other"),
        )),
        (Some(f), None) => Ok(Some(Source::File(base.join(f)))),
        (None, Some(text)) => Ok(Some(Source::Inline(text))),
        (None, None) => Ok(None),
    }
}

fn tls_settings(raw: RawTls, base: &Path) -> Result<Option<TlsSettings>, WebConfigError> {
    let cert = source("cert", raw.cert_file, raw.cert, base)?;
    let key = source("key", raw.key_file, raw.key, base)?;
    let client_ca = source("client_ca", raw.client_ca_file, raw.client_ca, base)?;
    let auth_text = raw.client_auth_type.filter(|s| !s.is_empty());
    // The toolkit serves plain HTTP for a tls_server_config with nothing in it.
    if cert.is_none() && key.is_none() && client_ca.is_none() && auth_text.is_none() {
        return Ok(None);
    }
    let cert = cert.ok_or_else(|| {
        invalid(
            "tls_server_config.cert_file",
            "missing: TLS needs a certificate (cert_file or inline cert)",
        )
    })?;
    let key = key.ok_or_else(|| {
        invalid(
            "tls_server_config.key_file",
            "missing: TLS needs a private key (key_file or inline key)",
        )
    })?;
    let client_auth = match auth_text.as_deref() {
        None => ClientAuth::NoClientCert,
        Some(t) => ClientAuth::parse(t)?,
    };
    if client_ca.is_some() && client_auth == ClientAuth::NoClientCert {
        return Err(invalid(
            "tls_server_config.client_ca_file",
            "is set but client_auth_type is NoClientCert; set client_auth_type, e.g. RequireAndVerifyClientCert",
        ));
    }
    if client_auth.verifies() && client_ca.is_none() {
        return Err(invalid(
            "tls_server_config.client_ca_file",
            format!(
                "missing: client_auth_type {} verifies client certificates against it",
                client_auth.as_str()
            ),
        ));
    }
    let allowed_sans = raw.client_allowed_sans.unwrap_or_default();
    // Only a certificate verified against client_ca_file proves its SANs:
    // under RequireAnyClientCert anyone can sign one with any name.
    if !allowed_sans.is_empty() && client_auth != ClientAuth::RequireAndVerifyClientCert {
        let why = match client_auth {
            ClientAuth::RequireAnyClientCert => {
                "checks nothing under RequireAnyClientCert, which does not verify the certificate (anyone can make one with any SAN)"
            }
            _ => "checks nothing when a client can connect without a certificate",
        };
        return Err(invalid(
            "tls_server_config.client_allowed_sans",
            format!("{why}; use client_auth_type RequireAndVerifyClientCert with client_ca_file"),
        ));
    }
    let versions = tls_names::versions(raw.min_version.as_deref(), raw.max_version.as_deref())?;
    let cipher_suites = match raw.cipher_suites.filter(|l| !l.is_empty()) {
        None => None,
        Some(list) => Some(tls_names::cipher_suites(&list)?),
    };
    let tls12_on = versions.contains(&&rustls::version::TLS12);
    if let Some(list) = cipher_suites.as_ref().filter(|_| tls12_on) {
        if !list
            .iter()
            .any(|s| matches!(s, rustls::SupportedCipherSuite::Tls12(_)))
        {
            return Err(invalid(
                "tls_server_config.cipher_suites",
                "lists no TLS 1.2 suite while min_version allows TLS 1.2; add one, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, or set min_version: TLS13",
            ));
        }
    }
    Ok(Some(TlsSettings {
        cert,
        key,
        client_ca,
        client_auth,
        allowed_sans,
        versions,
        cipher_suites,
        kx_groups: match raw.curve_preferences.filter(|l| !l.is_empty()) {
            None => None,
            Some(list) => Some(tls_names::curves(&list)?),
        },
        prefer_server_order: raw.prefer_server_cipher_suites.unwrap_or(true),
        http2: true,
    }))
}

/// The security headers the toolkit allows, with the values it allows
/// (`None`: any value). An empty value leaves the header unset.
const HEADERS: [(&str, Option<&[&str]>); 5] = [
    ("Strict-Transport-Security", None),
    ("X-Content-Type-Options", Some(&["nosniff"])),
    ("X-Frame-Options", Some(&["deny", "sameorigin"])),
    ("X-XSS-Protection", None),
    ("Content-Security-Policy", None),
];

fn headers(
    raw: BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, WebConfigError> {
    let mut out = Vec::new();
    for (name, value) in raw {
        let Some((_, allowed)) = HEADERS.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = HEADERS.iter().map(|(n, _)| *n).collect();
            return Err(invalid(
                "http_server_config.headers",
                format!("{name:?} cannot be configured; use {}", names.join(", ")),
            ));
        };
        if value.is_empty() {
            continue;
        }
        let key = format!("http_server_config.headers.{name}");
        if let Some(allowed) = allowed {
            if !allowed.contains(&value.as_str()) {
                return Err(invalid(
                    &key,
                    format!("{value:?} is not accepted; use {}", allowed.join(" or ")),
                ));
            }
        }
        let value = HeaderValue::from_str(&value)
            .map_err(|_| invalid(&key, format!("{value:?} is not a valid header value")))?;
        // Every HEADERS entry is a valid header name.
        let name = HeaderName::from_bytes(name.as_bytes()).expect("a valid header name");
        out.push((name, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
