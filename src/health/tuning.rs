//! What the operator set for one drive: the verdict's rules (thresholds and
//! mutes), the "increasing" window and a rated endurance, from the `health`
//! section or the first `health.overrides` entry that matches the drive.
//! Resolved by whoever holds the configuration (a [`Tuner`]) and passed
//! into the judge as values, so the verdict stays a pure function.

use std::sync::Arc;
use std::time::Duration;

use super::rules::Rules;
use crate::reading::Identity;

/// One drive's health settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    pub rules: Rules,
    /// "Increasing" compares with what was seen within this window; `None`
    /// = since the exporter started.
    pub increase_window: Option<Duration>,
    /// The drive's rated endurance (host bytes written) given by the
    /// operator, for `ssd_endurance_used_ratio`; wins over the datasheet
    /// table's.
    pub rated_endurance_bytes: Option<f64>,
    /// Where these come from, for people: `health.overrides[1]`; `None` =
    /// the `health` section.
    pub source: Option<String>,
    /// The entry matches drives by their kernel name alone (`device:`),
    /// which moves between boots: worth a warning when it mutes.
    pub by_device_only: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            rules: Rules::DEFAULT,
            increase_window: None,
            rated_endurance_bytes: None,
            source: None,
            by_device_only: false,
        }
    }
}

/// The configuration in force, asked for one drive's [`Tuning`].
pub trait Tuner: Send + Sync {
    /// Changes whenever [`Tuner::tuning`] may answer differently (a config
    /// reload), so a drive's tuning is resolved again only then or when
    /// its identity changes.
    fn generation(&self) -> u64;
    /// The settings of the drive with kernel name `device` and `identity`.
    fn tuning(&self, device: &str, identity: &Identity) -> Arc<Tuning>;
}

/// The same tuning for every drive (tests, and callers without a config).
impl Tuner for Tuning {
    fn generation(&self) -> u64 {
        0
    }

    fn tuning(&self, _: &str, _: &Identity) -> Arc<Tuning> {
        Arc::new(self.clone())
    }
}
