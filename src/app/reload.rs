//! Config reload on SIGHUP, as Prometheus does it: the file is read and
//! validated again, all of it; a bad one is logged (one line naming the
//! key, as at start) and the running config kept; a good one replaces the
//! health settings (`health`, `health.overrides`), which every drive takes
//! up at its next poll. Keys that cannot change without a restart
//! ([`Config::needs_restart`]) are logged as such and keep their value.
//! `ssd_exporter_config_last_reload_*` say how the last one went.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use tracing::{error, info, warn};

use crate::config::{Config, ConfigError, Health};
use crate::health::tuning::{Tuner, Tuning};
use crate::metrics::ConfigReloads;
use crate::reading::Identity;

/// Reads and validates the configuration as at start (file, then flags).
pub type Loader = Arc<dyn Fn() -> Result<Config, ConfigError> + Send + Sync>;

/// The health settings in force, replaced by a reload.
pub(crate) struct LiveHealth {
    current: RwLock<Arc<Health>>,
    /// Bumped by each reload that replaces `current`, so each drive
    /// resolves its settings again.
    generation: AtomicU64,
}

impl LiveHealth {
    pub(crate) fn new(health: Health) -> Self {
        Self {
            current: RwLock::new(Arc::new(health)),
            generation: AtomicU64::new(0),
        }
    }

    fn replace(&self, health: Health) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(health);
        self.generation.fetch_add(1, Ordering::Release);
    }
}

impl Tuner for LiveHealth {
    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn tuning(&self, device: &str, identity: &Identity) -> Arc<Tuning> {
        let current = Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()));
        current.tuning_for(device, identity)
    }
}

/// Everything a reload needs.
pub(crate) struct Reloader {
    pub(crate) load: Loader,
    /// The configuration the exporter started with: what the keys that
    /// need a restart are compared against.
    pub(crate) started: Config,
    pub(crate) health: Arc<LiveHealth>,
    pub(crate) selftests: Arc<super::selftest::SelfTests>,
    pub(crate) status: Arc<ConfigReloads>,
}

impl Reloader {
    /// One reload (the file is read on a blocking thread).
    pub(crate) async fn reload(&self) {
        info!("SIGHUP: reloading the configuration");
        let load = Arc::clone(&self.load);
        let loaded = match tokio::task::spawn_blocking(move || load()).await {
            Ok(result) => result,
            Err(e) => {
                error!("config reload failed ({e}); keeping the running configuration");
                self.status.record(false, SystemTime::now());
                return;
            }
        };
        self.apply(loaded, SystemTime::now());
    }

    /// Applies a load's outcome at `now`.
    pub(crate) fn apply(&self, loaded: Result<Config, ConfigError>, now: SystemTime) {
        match loaded {
            Err(e) => {
                error!("config reload failed, keeping the running configuration: {e}");
                self.status.record(false, now);
            }
            Ok(new) => {
                let restart = self.started.needs_restart(&new);
                if !restart.is_empty() {
                    warn!(
                        keys = restart.join(","),
                        "config reload: these keys changed but need a restart; their running values are kept"
                    );
                }
                let overrides = new.health.overrides.len();
                self.health.replace(new.health);
                self.selftests.replace(new.selftest);
                self.status.record(true, now);
                info!(
                    overrides,
                    "configuration reloaded; health settings and self-test schedules apply from each drive's next poll"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
