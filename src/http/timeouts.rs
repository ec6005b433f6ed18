//! How long a connection may stay in each state: the timers `limits`
//! enforces and the ones hyper runs (HTTP/1's header timeout, HTTP/2's
//! keep-alive PING), in one place.

use std::time::Duration;

/// How long a connection may stay in each state. [`Timeouts::default`] is
/// what the exporter runs with; tests shorten them.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// With no request or response: an HTTP/1 connection waiting for the
    /// next request's headers, an HTTP/2 connection with no stream. Longer
    /// than a scrape interval, so a scraper's keep-alive connection lasts.
    pub idle: Duration,
    /// A response not handed over in full after this is abandoned with its
    /// connection. Longer than any scrape timeout (at most the interval).
    pub send: Duration,
    /// A TLS client must finish its handshake within this.
    pub handshake: Duration,
    /// HTTP/2: a PING after this long without a frame from the peer…
    pub ping_interval: Duration,
    /// …and the connection closed if its answer takes longer than this.
    pub ping_timeout: Duration,
    /// Spared from eviction for room while older candidates exist.
    pub grace: Duration,
    /// At the request cap, a connection whose response has waited this
    /// long for the peer is closed to make room for a new request.
    pub stall: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            idle: Duration::from_secs(180),
            send: Duration::from_secs(60),
            handshake: Duration::from_secs(10),
            ping_interval: Duration::from_secs(60),
            ping_timeout: Duration::from_secs(20),
            grace: Duration::from_secs(1),
            stall: Duration::from_secs(2),
        }
    }
}

impl Timeouts {
    /// How often the sweep looks: a second, or less if a timer is shorter.
    pub(crate) fn tick(&self) -> Duration {
        (self.send.min(self.idle) / 4).clamp(Duration::from_millis(5), Duration::from_secs(1))
    }
}
