//! The HTTP face of the exporter: `/metrics` (content-negotiated, optionally
//! gzipped: the body itself is `metrics`'), a plain HTML landing page at `/`, and `/healthz`; TLS, basic
//! authentication and security headers from the exporter-toolkit web config
//! file ([`web`]); caps on open connections and on requests in flight,
//! and the timers that close connections stuck in one state (`limits`).
//!
//! The server only encodes what the application already holds: it reaches the
//! application through [`Exposition`], whose methods read published snapshots
//! and never touch a drive, so a scrape cannot stall on a slow device.

pub mod auth;
mod body;
pub mod landing;
mod limits;
mod negotiate;
mod routes;
pub mod server;
mod timeouts;
mod watched;
pub mod web;

use std::sync::Arc;

/// Default of `web.telemetry_path`.
pub const DEFAULT_TELEMETRY_PATH: &str = "/metrics";

pub use negotiate::{accepts_gzip, negotiate};
pub use routes::{DEFAULT_MAX_REQUESTS, MAX_MAX_REQUESTS};
pub use server::serve;
pub use timeouts::Timeouts;

pub use crate::metrics::{Encoding, Format};

/// One drive's line on the landing page: the same row `ssd_exporter check`
/// prints. Every string may come from the drive itself (model, serial,
/// firmware) and is treated as untrusted: the landing page escapes all of
/// them.
pub use crate::report::Row as DriveRow;

/// What the server needs from the application; implemented by the app's
/// shared state.
///
/// Both methods are called from tokio's blocking pool (see
/// `routes::call_app`), so an implementation may take a `std::sync` lock.
pub trait Exposition: Send + Sync + 'static {
    /// The metrics body in `format` and `encoding` (encoded from
    /// snapshots; never touches a drive); an error only from compressing.
    fn metrics(&self, format: Format, encoding: Encoding) -> std::io::Result<Vec<u8>>;
    /// The same body when it is a copy of what is already encoded (only
    /// the process-wide series are read anew), so the server may build it
    /// on an async thread; `None` sends the scrape to
    /// [`Exposition::metrics`] on the encode thread.
    fn metrics_cached(&self, _format: Format, _encoding: Encoding) -> Option<Vec<u8>> {
        None
    }
    /// The drives for the landing page.
    fn drives(&self) -> Vec<DriveRow>;
}

/// How the server presents itself.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Path that serves metrics, e.g. `/metrics`. Matched exactly; it takes
    /// precedence over `/` and `/healthz` if it collides with them.
    pub telemetry_path: String,
    /// Shown on the landing page.
    pub version: String,
    /// An optional line shown prominently on the landing page (e.g.
    /// "SIMULATED DATA" in demo mode).
    pub banner: Option<String>,
    /// TLS for each connection, basic authentication and headers for each
    /// request, kept current with the web config files.
    pub web: Arc<web::live::Live>,
    /// Open connections at most; at the cap the oldest connection not in a
    /// request is closed (`limits`).
    pub max_connections: usize,
    /// Requests for metrics or the landing page in flight at most
    /// (`web.max_requests`); beyond it, 503.
    pub max_requests: usize,
    /// The idle, send, handshake and HTTP/2 ping timers.
    pub timeouts: Timeouts,
}

impl ServerConfig {
    /// Puts a validated web config in force and starts watching its files.
    pub fn with_web(mut self, web: &web::WebConfig) -> Result<Self, web::WebConfigError> {
        self.web = web::live::Live::start(web.clone(), web::live::WATCH_INTERVAL)?;
        Ok(self)
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            telemetry_path: DEFAULT_TELEMETRY_PATH.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            banner: None,
            web: web::live::Live::plain(),
            max_connections: server::DEFAULT_MAX_CONNECTIONS,
            max_requests: DEFAULT_MAX_REQUESTS,
            timeouts: Timeouts::default(),
        }
    }
}

#[cfg(test)]
mod tests;
