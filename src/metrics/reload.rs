//! The configuration's reloads (SIGHUP), named as Prometheus names its own:
//! whether the last one succeeded, and when the configuration in force was
//! last loaded.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, NO_LABELS, family};

/// The outcome of the newest config load: the one at start, then each
/// reload. Written by the reloader, read by every scrape.
#[derive(Debug)]
pub struct ConfigReloads {
    successful: AtomicBool,
    /// Milliseconds since the epoch of the newest successful load.
    success_at_ms: AtomicU64,
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl ConfigReloads {
    /// The configuration was loaded at `now` (the start).
    pub fn loaded(now: SystemTime) -> Self {
        Self {
            successful: AtomicBool::new(true),
            success_at_ms: AtomicU64::new(millis(now)),
        }
    }

    /// A reload at `now` succeeded or failed.
    pub fn record(&self, ok: bool, now: SystemTime) {
        if ok {
            self.success_at_ms.store(millis(now), Ordering::Relaxed);
        }
        self.successful.store(ok, Ordering::Relaxed);
    }

    pub fn successful(&self) -> bool {
        self.successful.load(Ordering::Relaxed)
    }
}

impl Exposition {
    pub(super) fn config_reloads(&self, enc: &mut Enc) -> fmt::Result {
        let reloads = self.build.config.as_deref();
        family(
            enc,
            "ssd_exporter_config_last_reload_successful",
            "Whether the last configuration reload (SIGHUP) succeeded; 1 after the load at start.",
            MetricType::Gauge,
            reloads.map(|r| (NO_LABELS, f64::from(u8::from(r.successful())))),
        )?;
        let at = reloads.map(|r| r.success_at_ms.load(Ordering::Relaxed) as f64 / 1000.0);
        family(
            enc,
            "ssd_exporter_config_last_reload_success_timestamp_seconds",
            "When the configuration in force was loaded: at start or by the last successful reload.",
            MetricType::Gauge,
            at.map(|t| (NO_LABELS, t)),
        )
    }
}

#[cfg(test)]
mod tests;
