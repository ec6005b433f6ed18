//! The verdict's rules: thresholds and mutes, all configurable (`health`,
//! and per drive `health.overrides`), with their defaults and why.

use std::time::Duration;

use super::mute::Mutes;

/// Thresholds and mutes.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// Percentage used (ratio) from which `wear_high` warns. Default 0.8:
    /// with a fifth of the rated life left there is still time to order and
    /// migrate; `ssd_wearout_estimated_seconds` says how much.
    pub wear_warning: f64,
    /// Percentage used from which `wear_out` is critical. Default 1.0: the
    /// NVMe definition of percentage used puts 100 % at the vendor's
    /// endurance estimate; past it, retention is no longer promised.
    pub wear_critical: f64,
    /// `spare_low` warns when available spare ≤ this × the drive's own
    /// threshold (threshold > 0). Default 2.0: the threshold is where the
    /// drive raises its critical warning; twice it leaves room to act,
    /// while a healthy drive (spare near 100 %) never comes close.
    pub spare_warning_factor: f64,
    /// `plp_health_low` is critical when PLP health (ratio) is below this.
    /// Default 0.5. No specification in our references gives a line (the
    /// OCP field and the SATA attributes are vendor-normalised, 100 % = as
    /// new), and the drive's own failure signal stays the volatile memory
    /// backup bit (`plp_failed`). Half the as-new health is our judgement of
    /// where hold-up energy can no longer be trusted to flush the cache;
    /// set it from the vendor's guidance where there is one.
    pub plp_health_critical: f64,
    /// `thermal_throttling` warns while throttling and this long after the
    /// last sign of it. Default 1 h: long enough to be seen across several
    /// scrapes and polls, short enough to clear once the drive has cooled.
    pub throttle_recent: Duration,
    /// Whether to judge `latency_above_qos` (a warning). Default true, but
    /// the caller only reports a limit exceeded when the probe window holds
    /// enough samples to show it (`probe::qos::EVIDENCE`: a p99.99 with
    /// 10 000 samples, or a p99.9 with 2 500). Datasheet QoS is measured on a drive running only
    /// the test, so a drive under production load may exceed it at the
    /// tail: set `health.latency_qos: false` where that is expected.
    pub latency_qos: bool,
    /// Problems served as muted and left out of the status (an operator's
    /// known-bad drive), each maybe for one cause and until a time.
    /// Default none.
    pub mute: Mutes,
}

impl Rules {
    // The defaults, one constant each, so configuration can name them in
    // constant contexts (a `Rules` holds the mutes, which it cannot).
    pub const WEAR_WARNING: f64 = 0.8;
    pub const WEAR_CRITICAL: f64 = 1.0;
    pub const SPARE_WARNING_FACTOR: f64 = 2.0;
    pub const PLP_HEALTH_CRITICAL: f64 = 0.5;
    pub const THROTTLE_RECENT: Duration = Duration::from_secs(3600);
    pub const LATENCY_QOS: bool = true;

    /// The defaults.
    pub const DEFAULT: Rules = Rules {
        wear_warning: Self::WEAR_WARNING,
        wear_critical: Self::WEAR_CRITICAL,
        spare_warning_factor: Self::SPARE_WARNING_FACTOR,
        plp_health_critical: Self::PLP_HEALTH_CRITICAL,
        throttle_recent: Self::THROTTLE_RECENT,
        latency_qos: Self::LATENCY_QOS,
        mute: Mutes::NONE,
    };
}

impl Default for Rules {
    fn default() -> Self {
        Self::DEFAULT
    }
}
