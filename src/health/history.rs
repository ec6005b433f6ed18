//! What the exporter itself saw of one drive, so that "increasing" means
//! increasing *while we watched* (peers.md pain point 11: an old, static
//! media-error count must never read as a failing drive) and "recent" has a
//! clock to compare with.
//!
//! Counters are stored as change points only: a value is kept when it
//! differs from the previous one, so a drive polled every minute whose
//! counters never move costs one entry per counter. Time is always passed in
//! by the caller; nothing here reads the clock.
//!
//! A history outlives the process through the state file: [`History::saved`]
//! is its plain-data form and [`History::restore`] checks one read back
//! (`saved.rs`), so a counter that rose while the exporter was down is judged
//! against the baseline seen before.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use crate::device::sysfs::pcie::AerSeverity;
use crate::reading::Reading;

/// A counter whose growth the verdict judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracked {
    MediaErrors,
    UnsafeShutdowns,
    CrcErrors,
    /// Thermal throttling: NVMe light + heavy transitions (TMT1/TMT2), or the
    /// OCP C0h / vendor-attribute throttle event count, whichever grew more.
    ThrottleEvents,
    /// Entries in a SCSI disk's grown defect list.
    GrownDefects,
    /// A SAS disk's phy error counts (log 18h), all phys and kinds summed.
    PhyErrors,
    /// An NVMe controller's PCIe uncorrectable errors (sysfs AER
    /// `TOTAL_ERR_NONFATAL`, `TOTAL_ERR_FATAL`).
    PcieNonfatal,
    PcieFatal,
    /// Internal-state captures an NVMe controller made on its own: each
    /// step of its Telemetry Controller-Initiated Data Generation Number
    /// (log 08h byte 383, an 8-bit counter that wraps) is one.
    TelemetryCaptures,
}

/// Change points kept per counter, the baseline included. Past this the
/// older half is thinned (every other point dropped), so a counter that
/// moves on every poll under a long `health.increase_window` costs a
/// bounded amount of memory and state file. A dropped point only makes a
/// window's baseline older than it would have been: an increase may be
/// counted from a little before the window, never missed.
pub const MAX_POINTS: usize = 64;

/// One observed point: when, the counter's value, and the cumulative rise
/// since the series began (a drop counts as a reset and adds nothing).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    at: SystemTime,
    value: u128,
    rise: u128,
}

/// Change points of one counter; `points[0]` is the baseline: the value in
/// force at the start of the window.
#[derive(Clone, Debug, Default, PartialEq)]
struct Series {
    first_seen: Option<SystemTime>,
    points: VecDeque<Point>,
}

impl Series {
    /// Records `value` at `at`: `None` when it equals the last value (no
    /// new point), else whether it is higher than the last value.
    fn push(&mut self, at: SystemTime, value: u128) -> Option<bool> {
        let Some(last) = self.points.back().copied() else {
            self.first_seen = Some(at);
            self.points.push_back(Point { at, value, rise: 0 });
            return Some(false);
        };
        if value == last.value {
            return None;
        }
        // Drive-provided values: a counter that jumps to near 2^128, resets
        // and jumps again must not overflow (a panic in debug builds, a
        // wrong "increase" in release), so the rise saturates.
        let rise = last.rise.saturating_add(value.saturating_sub(last.value));
        self.points.push_back(Point { at, value, rise });
        Some(value > last.value)
    }

    /// Drops points no longer needed: with a window, those superseded before
    /// `cutoff`; without one, everything between the first and the newest
    /// (the cumulative rise carries what they said).
    fn prune(&mut self, cutoff: Option<SystemTime>) {
        match cutoff {
            Some(cutoff) => {
                while self.points.len() >= 2 && self.points[1].at <= cutoff {
                    self.points.pop_front();
                }
            }
            None => {
                while self.points.len() > 2 {
                    self.points.remove(1);
                }
            }
        }
        if self.points.len() > MAX_POINTS {
            self.thin();
        }
    }

    /// Drops every other point of the older half, the baseline kept.
    fn thin(&mut self) {
        let half = self.points.len() / 2;
        let mut i = 0;
        self.points.retain(|_| {
            i += 1;
            // Indices 1, 3, 5, … below `half` go.
            !(i - 1 < half && (i - 1) % 2 == 1)
        });
    }

    fn increase(&self) -> Option<u128> {
        let first = self.points.front()?;
        let last = self.points.back()?;
        Some(last.rise.saturating_sub(first.rise))
    }
}

/// What the exporter saw of one drive before now.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    window: Option<Duration>,
    /// The first reading recorded.
    first_seen: Option<SystemTime>,
    latest: Option<SystemTime>,
    media_errors: Series,
    unsafe_shutdowns: Series,
    crc_errors: Series,
    grown_defects: Series,
    phy_errors: Series,
    pcie_nonfatal: Series,
    pcie_fatal: Series,
    telemetry_captures: Series,
    /// The generation number last seen and the captures counted so far.
    telemetry_last: Option<(u8, u128)>,
    throttle_transitions: Series,
    throttle_events: Series,
    throttle_seconds: Series,
    last_throttle: Option<SystemTime>,
    wear_first: Option<(SystemTime, f64)>,
    wear_latest: Option<(SystemTime, f64)>,
    /// Lowest and highest composite temperature seen, °C.
    temperature: Option<(f64, f64)>,
    /// Raised whenever something besides the time of the newest reading
    /// changed: what a state file save waits for.
    revision: u64,
}

impl History {
    /// `window`: how far back "increasing" looks; `None` = since the
    /// exporter started. Percentage used is always kept since the start, as
    /// the wear-out forecast wants the longest span it can get.
    pub fn new(window: Option<Duration>) -> Self {
        Self {
            window,
            first_seen: None,
            latest: None,
            media_errors: Series::default(),
            unsafe_shutdowns: Series::default(),
            crc_errors: Series::default(),
            grown_defects: Series::default(),
            phy_errors: Series::default(),
            pcie_nonfatal: Series::default(),
            pcie_fatal: Series::default(),
            telemetry_captures: Series::default(),
            telemetry_last: None,
            throttle_transitions: Series::default(),
            throttle_events: Series::default(),
            throttle_seconds: Series::default(),
            last_throttle: None,
            wear_first: None,
            wear_latest: None,
            temperature: None,
            revision: 0,
        }
    }

    /// Changes how far back "increasing" looks (a per-drive override, a
    /// config reload); points already pruned stay gone.
    pub fn set_window(&mut self, window: Option<Duration>) {
        self.window = window;
    }

    /// Records a reading taken at `now`. Fields the reading lacks leave
    /// their series untouched.
    pub fn record(&mut self, now: SystemTime, r: &Reading) {
        let c = &r.counters;
        let mut changed = self.first_seen.is_none();
        self.first_seen.get_or_insert(now);
        let pairs = [
            (&mut self.media_errors, c.media_errors),
            (&mut self.unsafe_shutdowns, c.unsafe_shutdowns),
            (&mut self.crc_errors, c.crc_errors),
            (
                &mut self.grown_defects,
                r.scsi
                    .as_ref()
                    .and_then(|s| s.grown_defects)
                    .map(u128::from),
            ),
            (&mut self.phy_errors, r.scsi.as_ref().and_then(phy_errors)),
            (&mut self.pcie_nonfatal, aer_total(r, AerSeverity::Nonfatal)),
            (&mut self.pcie_fatal, aer_total(r, AerSeverity::Fatal)),
        ];
        for (series, value) in pairs {
            if let Some(v) = value {
                changed |= series.push(now, v).is_some();
            }
        }
        changed |= self.record_telemetry(now, r);
        let sum = |a: [u64; 2]| u128::from(a[0]) + u128::from(a[1]);
        let throttle = [
            (
                &mut self.throttle_transitions,
                r.throttle_transitions.map(sum),
            ),
            (&mut self.throttle_events, c.thermal_throttle_events),
            (&mut self.throttle_seconds, r.throttle_seconds.map(sum)),
        ];
        let mut throttled = r.throttle_active == Some(true);
        for (series, value) in throttle {
            if let Some(v) = value {
                let pushed = series.push(now, v);
                changed |= pushed.is_some();
                throttled |= pushed == Some(true);
            }
        }
        if throttled {
            changed |= self.last_throttle.is_none_or(|t| t < now);
            self.last_throttle = Some(now);
        }
        if let Some(used) = r.percentage_used_ratio {
            changed |= self.wear_latest.is_none_or(|(_, u)| u != used);
            self.wear_first.get_or_insert((now, used));
            self.wear_latest = Some((now, used));
        }
        changed |= self.record_temperature(r);
        self.latest = Some(now);
        self.prune(now);
        if changed {
            self.revision += 1;
        }
    }

    /// Widens the temperature range by the composite reading; true when it
    /// moved.
    fn record_temperature(&mut self, r: &Reading) -> bool {
        let Some(t) = r
            .temperatures
            .iter()
            .find(|(s, _)| s == "composite")
            .map(|&(_, t)| t)
            .filter(|t| t.is_finite())
        else {
            return false;
        };
        let next = match self.temperature {
            None => (t, t),
            Some((lo, hi)) => (lo.min(t), hi.max(t)),
        };
        let moved = self.temperature != Some(next);
        self.temperature = Some(next);
        moved
    }

    /// Turns the wrapping 8-bit generation number into a count of
    /// captures that only grows: a step from 255 to 0 is one capture. True
    /// when the generation or the count moved.
    fn record_telemetry(&mut self, now: SystemTime, r: &Reading) -> bool {
        let Some(generation) = r
            .nvme
            .as_ref()
            .and_then(|n| n.telemetry.as_ref())
            .map(|t| t.generation)
        else {
            return false;
        };
        let captures = match self.telemetry_last {
            None => 0,
            Some((last, n)) => n.saturating_add(u128::from(generation.wrapping_sub(last))),
        };
        let moved = self
            .telemetry_last
            .is_none_or(|(last, _)| last != generation);
        self.telemetry_last = Some((generation, captures));
        self.telemetry_captures.push(now, captures).is_some() || moved
    }

    fn prune(&mut self, now: SystemTime) {
        let cutoff = self.window.and_then(|w| now.checked_sub(w));
        if self.window.is_some() && cutoff.is_none() {
            return;
        }
        for s in [
            &mut self.media_errors,
            &mut self.unsafe_shutdowns,
            &mut self.crc_errors,
            &mut self.grown_defects,
            &mut self.phy_errors,
            &mut self.pcie_nonfatal,
            &mut self.pcie_fatal,
            &mut self.telemetry_captures,
            &mut self.throttle_transitions,
            &mut self.throttle_events,
            &mut self.throttle_seconds,
        ] {
            s.prune(cutoff);
        }
    }

    /// How much a counter grew within the window (or since the start):
    /// the sum of its rises, a drop being taken as a reset. `None` when the
    /// drive never reported it.
    pub fn increase(&self, what: Tracked) -> Option<u128> {
        self.increase_since(what).map(|(n, _)| n)
    }

    /// [`Self::increase`] and the time it is counted from: the window's
    /// start, or when the exporter first saw the counter if that is later.
    pub fn increase_since(&self, what: Tracked) -> Option<(u128, SystemTime)> {
        let (n, series) = match what {
            Tracked::MediaErrors => (self.media_errors.increase()?, &self.media_errors),
            Tracked::UnsafeShutdowns => (self.unsafe_shutdowns.increase()?, &self.unsafe_shutdowns),
            Tracked::CrcErrors => (self.crc_errors.increase()?, &self.crc_errors),
            Tracked::GrownDefects => (self.grown_defects.increase()?, &self.grown_defects),
            Tracked::PhyErrors => (self.phy_errors.increase()?, &self.phy_errors),
            Tracked::PcieNonfatal => (self.pcie_nonfatal.increase()?, &self.pcie_nonfatal),
            Tracked::PcieFatal => (self.pcie_fatal.increase()?, &self.pcie_fatal),
            Tracked::TelemetryCaptures => (
                self.telemetry_captures.increase()?,
                &self.telemetry_captures,
            ),
            Tracked::ThrottleEvents => {
                let t = &self.throttle_transitions;
                let e = &self.throttle_events;
                match (t.increase(), e.increase()) {
                    (Some(a), Some(b)) if b > a => (b, e),
                    (Some(a), _) => (a, t),
                    (None, Some(b)) => (b, e),
                    (None, None) => return None,
                }
            }
        };
        let first = series.first_seen?;
        let start = self
            .window
            .zip(self.latest)
            .and_then(|(w, latest)| latest.checked_sub(w));
        Some((n, start.map_or(first, |s| s.max(first))))
    }

    /// When a throttle counter (transitions, events or time) last went up,
    /// or `throttle_active` was last seen true.
    pub fn last_throttle(&self) -> Option<SystemTime> {
        self.last_throttle
    }

    /// `(time, percentage used)` of the first and the newest readings that
    /// carried it, for the forecast.
    pub fn wear_span(&self) -> Option<((SystemTime, f64), (SystemTime, f64))> {
        self.wear_first.zip(self.wear_latest)
    }

    /// `(lowest, highest)` composite temperature seen, °C.
    pub fn temperature_range(&self) -> Option<(f64, f64)> {
        self.temperature
    }

    /// When the first reading was recorded (kept across restarts).
    pub fn first_seen(&self) -> Option<SystemTime> {
        self.first_seen
    }

    /// When the newest reading was recorded.
    pub fn latest(&self) -> Option<SystemTime> {
        self.latest
    }

    /// The window this history was made with.
    pub fn window(&self) -> Option<Duration> {
        self.window
    }

    /// Changes with everything a reading changed besides its time: equal
    /// revisions of one history mean nothing new to save.
    pub fn revision(&self) -> u64 {
        self.revision
    }
}

/// The sum of every phy error count of a SAS disk; `None` without phys (a
/// disk without log 18h has no such series, never a 0).
fn phy_errors(s: &crate::reading::ScsiReading) -> Option<u128> {
    (!s.sas_phys.is_empty()).then(|| {
        s.sas_phys
            .iter()
            .flat_map(|p| p.counts)
            .map(u128::from)
            .sum()
    })
}

mod saved;
pub use saved::{RestoreError, SavedHistory, SavedSeries};
/// The `TOTAL_ERR_*` count of one AER file, where the function has it.
fn aer_total(r: &Reading, severity: AerSeverity) -> Option<u128> {
    let aer = &r.pcie.as_ref()?.aer;
    aer.iter()
        .find(|a| a.severity == severity)
        .map(|a| u128::from(a.total))
}

/// `t` as RFC 3339 UTC to the second, for reasons that say since when.
pub use crate::timefmt::utc_seconds as utc;

#[cfg(test)]
mod tests;
