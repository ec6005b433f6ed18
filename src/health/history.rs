//! What the exporter itself saw of one drive, so that "increasing" means
//! increasing *while we watched* (peers.md pain point 11: an old, static
//! media-error count must never read as a failing drive) and "recent" has a
//! clock to compare with.
//!
//! Counters are stored as change points only: a value is kept when it
//! differs from the previous one, so a drive polled every minute whose
//! counters never move costs one entry per counter. Time is always passed in
//! by the caller; nothing here reads the clock.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use super::reading::Reading;

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
    /// Internal-state captures an NVMe controller made on its own: each
    /// step of its Telemetry Controller-Initiated Data Generation Number
    /// (log 08h byte 383, an 8-bit counter that wraps) is one.
    TelemetryCaptures,
}

/// One observed point: when, the counter's value, and the cumulative rise
/// since the series began (a drop counts as a reset and adds nothing).
#[derive(Clone, Copy, Debug)]
struct Point {
    at: SystemTime,
    value: u128,
    rise: u128,
}

/// Change points of one counter; `points[0]` is the baseline: the value in
/// force at the start of the window.
#[derive(Clone, Debug, Default)]
struct Series {
    first_seen: Option<SystemTime>,
    points: VecDeque<Point>,
}

impl Series {
    /// Records `value` at `at`; true when it is higher than the last value.
    fn push(&mut self, at: SystemTime, value: u128) -> bool {
        let Some(last) = self.points.back().copied() else {
            self.first_seen = Some(at);
            self.points.push_back(Point { at, value, rise: 0 });
            return false;
        };
        if value == last.value {
            return false;
        }
        // Drive-provided values: a counter that jumps to near 2^128, resets
        // and jumps again must not overflow (a panic in debug builds, a
        // wrong "increase" in release), so the rise saturates.
        let rise = last.rise.saturating_add(value.saturating_sub(last.value));
        self.points.push_back(Point { at, value, rise });
        value > last.value
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
    }

    fn increase(&self) -> Option<u128> {
        let first = self.points.front()?;
        let last = self.points.back()?;
        Some(last.rise.saturating_sub(first.rise))
    }
}

/// What the exporter saw of one drive before now.
#[derive(Clone, Debug)]
pub struct History {
    window: Option<Duration>,
    latest: Option<SystemTime>,
    media_errors: Series,
    unsafe_shutdowns: Series,
    crc_errors: Series,
    grown_defects: Series,
    telemetry_captures: Series,
    /// The generation number last seen and the captures counted so far.
    telemetry_last: Option<(u8, u128)>,
    throttle_transitions: Series,
    throttle_events: Series,
    throttle_seconds: Series,
    last_throttle: Option<SystemTime>,
    wear_first: Option<(SystemTime, f64)>,
    wear_latest: Option<(SystemTime, f64)>,
}

impl History {
    /// `window`: how far back "increasing" looks; `None` = since the
    /// exporter started. Percentage used is always kept since the start, as
    /// the wear-out forecast wants the longest span it can get.
    pub fn new(window: Option<Duration>) -> Self {
        Self {
            window,
            latest: None,
            media_errors: Series::default(),
            unsafe_shutdowns: Series::default(),
            crc_errors: Series::default(),
            grown_defects: Series::default(),
            telemetry_captures: Series::default(),
            telemetry_last: None,
            throttle_transitions: Series::default(),
            throttle_events: Series::default(),
            throttle_seconds: Series::default(),
            last_throttle: None,
            wear_first: None,
            wear_latest: None,
        }
    }

    /// Records a reading taken at `now`. Fields the reading lacks leave
    /// their series untouched.
    pub fn record(&mut self, now: SystemTime, r: &Reading) {
        let c = &r.counters;
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
        ];
        for (series, value) in pairs {
            if let Some(v) = value {
                series.push(now, v);
            }
        }
        self.record_telemetry(now, r);
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
                throttled |= series.push(now, v);
            }
        }
        if throttled {
            self.last_throttle = Some(now);
        }
        if let Some(used) = r.percentage_used_ratio {
            self.wear_first.get_or_insert((now, used));
            self.wear_latest = Some((now, used));
        }
        self.latest = Some(now);
        self.prune(now);
    }

    /// Turns the wrapping 8-bit generation number into a count of
    /// captures that only grows: a step from 255 to 0 is one capture.
    fn record_telemetry(&mut self, now: SystemTime, r: &Reading) {
        let Some(generation) = r
            .nvme
            .as_ref()
            .and_then(|n| n.telemetry.as_ref())
            .map(|t| t.generation)
        else {
            return;
        };
        let captures = match self.telemetry_last {
            None => 0,
            Some((last, n)) => n.saturating_add(u128::from(generation.wrapping_sub(last))),
        };
        self.telemetry_last = Some((generation, captures));
        self.telemetry_captures.push(now, captures);
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
}

/// `t` as RFC 3339 UTC to the second, for reasons that say since when.
pub use crate::timefmt::utc_seconds as utc;

#[cfg(test)]
mod tests;
