//! A [`History`] as plain data, for the state file, and the checks one read
//! back must pass before it is believed: the file is checksummed, but a
//! checksum only says the bytes are the ones written, not that the writer
//! (an older build, a hand edit) was right.
//!
//! Times are Unix milliseconds; counters stay `u128` (JSON numbers, which
//! serde_json reads back exactly).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{History, MAX_POINTS, Point, Series};

/// How far past "now" a saved time may lie: the clock stepping back a
/// little between a save and the restart (NTP at boot) is not a reason to
/// forget a drive; more than this is.
const CLOCK_SLACK: Duration = Duration::from_secs(600);

/// The highest percentage used a drive can report (byte 5 = FFh = 255 %).
const MAX_WEAR: f64 = 2.55;

/// One counter's change points: `[time, value, cumulative rise]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedSeries {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen_ms: Option<u64>,
    pub points: Vec<(u64, u128, u128)>,
}

impl SavedSeries {
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// What a [`History`] holds, field for field (the window is not saved: the
/// running configuration's applies).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedHistory {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_ms: Option<u64>,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub media_errors: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub unsafe_shutdowns: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub crc_errors: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub grown_defects: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub phy_errors: SavedSeries,
    /// The NVMe controller's PCIe AER counts of uncorrectable errors. The
    /// kernel counts them from 0 when it finds the device: they hold only
    /// within one boot (`Payload::boot_ms`; dropped on load after a reboot).
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub pcie_nonfatal: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub pcie_fatal: SavedSeries,
    /// NVMe controller-initiated telemetry captures counted so far.
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub telemetry_captures: SavedSeries,
    /// The telemetry generation number last seen (log 08h byte 383): what
    /// the next one is compared with, so a capture made while the exporter
    /// was away counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry_generation: Option<u8>,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub throttle_transitions: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub throttle_events: SavedSeries,
    #[serde(skip_serializing_if = "SavedSeries::is_empty")]
    pub throttle_seconds: SavedSeries,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_throttle_ms: Option<u64>,
    /// `[time, percentage used ratio]` of the first reading that had it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_first: Option<(u64, f64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_latest: Option<(u64, f64)>,
    /// `[lowest, highest]` composite temperature, °C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<(f64, f64)>,
}

impl SavedHistory {
    /// Every time the history holds. The destructuring names every field,
    /// so a new one cannot be added without saying here whether it is a
    /// time ([`Self::newest_ms`] and [`Self::shift_back`] read this list).
    fn times_mut(&mut self) -> Vec<&mut u64> {
        let SavedHistory {
            first_seen_ms,
            latest_ms,
            media_errors,
            unsafe_shutdowns,
            crc_errors,
            grown_defects,
            phy_errors,
            pcie_nonfatal,
            pcie_fatal,
            telemetry_captures,
            telemetry_generation: _,
            throttle_transitions,
            throttle_events,
            throttle_seconds,
            last_throttle_ms,
            wear_first,
            wear_latest,
            temperature: _,
        } = self;
        let mut times: Vec<&mut u64> = Vec::new();
        times.extend(first_seen_ms.as_mut());
        times.extend(latest_ms.as_mut());
        times.extend(last_throttle_ms.as_mut());
        times.extend(wear_first.as_mut().map(|w| &mut w.0));
        times.extend(wear_latest.as_mut().map(|w| &mut w.0));
        let series = [
            media_errors,
            unsafe_shutdowns,
            crc_errors,
            grown_defects,
            phy_errors,
            pcie_nonfatal,
            pcie_fatal,
            telemetry_captures,
            throttle_transitions,
            throttle_events,
            throttle_seconds,
        ];
        for s in series {
            times.extend(s.first_seen_ms.as_mut());
            times.extend(s.points.iter_mut().map(|p| &mut p.0));
        }
        times
    }

    /// The newest time it holds, if any.
    pub fn newest_ms(&self) -> Option<u64> {
        self.clone().times_mut().into_iter().map(|t| *t).max()
    }

    /// Every time moved `back_ms` earlier: the same intervals between its
    /// points, ending earlier (for a record saved while the clock ran
    /// ahead of the one it is read under).
    pub fn shift_back(&mut self, back_ms: u64) {
        for t in self.times_mut() {
            *t = t.saturating_sub(back_ms);
        }
    }
}

/// Why a saved history was not believed.
#[derive(Debug, Error, PartialEq)]
pub enum RestoreError {
    #[error("{0}: more than {MAX_POINTS} points")]
    TooManyPoints(&'static str),
    #[error("{0}: points out of time order")]
    Order(&'static str),
    #[error("{0}: a rise smaller than the values say")]
    Rise(&'static str),
    #[error("{0}: a time later than now (the clock went back?)")]
    Future(&'static str),
    #[error("{0}: {1} is out of range")]
    Range(&'static str, f64),
}

fn ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn time(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

impl Series {
    fn saved(&self) -> SavedSeries {
        SavedSeries {
            first_seen_ms: self.first_seen.map(ms),
            points: self
                .points
                .iter()
                .map(|p| (ms(p.at), p.value, p.rise))
                .collect(),
        }
    }

    fn restore(name: &'static str, s: &SavedSeries, limit: u64) -> Result<Self, RestoreError> {
        if s.points.len() > MAX_POINTS {
            return Err(RestoreError::TooManyPoints(name));
        }
        let mut points = std::collections::VecDeque::with_capacity(s.points.len());
        let mut last: Option<Point> = None;
        for &(at, value, rise) in &s.points {
            if at > limit {
                return Err(RestoreError::Future(name));
            }
            if let Some(prev) = last {
                if at <= ms(prev.at) {
                    return Err(RestoreError::Order(name));
                }
                // Thinning drops points, so the rise may exceed what the
                // kept values show, never fall short of it.
                let least = prev.rise.saturating_add(value.saturating_sub(prev.value));
                if rise < least {
                    return Err(RestoreError::Rise(name));
                }
            }
            let p = Point {
                at: time(at),
                value,
                rise,
            };
            points.push_back(p);
            last = Some(p);
        }
        let first_seen = match (s.first_seen_ms, s.points.first()) {
            (Some(f), Some(&(at, _, _))) if f <= at => Some(time(f)),
            (Some(_), Some(_)) => return Err(RestoreError::Order(name)),
            (None, Some(&(at, _, _))) => Some(time(at)),
            (_, None) => None,
        };
        Ok(Series { first_seen, points })
    }
}

fn check_time(name: &'static str, t: Option<u64>, limit: u64) -> Result<(), RestoreError> {
    match t {
        Some(t) if t > limit => Err(RestoreError::Future(name)),
        _ => Ok(()),
    }
}

fn check_wear(name: &'static str, w: Option<(u64, f64)>, limit: u64) -> Result<(), RestoreError> {
    let Some((t, used)) = w else {
        return Ok(());
    };
    check_time(name, Some(t), limit)?;
    if !(0.0..=MAX_WEAR).contains(&used) {
        return Err(RestoreError::Range(name, used));
    }
    Ok(())
}

impl History {
    /// The plain-data form, for the state file.
    pub fn saved(&self) -> SavedHistory {
        SavedHistory {
            first_seen_ms: self.first_seen.map(ms),
            latest_ms: self.latest.map(ms),
            media_errors: self.media_errors.saved(),
            unsafe_shutdowns: self.unsafe_shutdowns.saved(),
            crc_errors: self.crc_errors.saved(),
            grown_defects: self.grown_defects.saved(),
            phy_errors: self.phy_errors.saved(),
            pcie_nonfatal: self.pcie_nonfatal.saved(),
            pcie_fatal: self.pcie_fatal.saved(),
            telemetry_captures: self.telemetry_captures.saved(),
            telemetry_generation: self.telemetry_last.map(|(g, _)| g),
            throttle_transitions: self.throttle_transitions.saved(),
            throttle_events: self.throttle_events.saved(),
            throttle_seconds: self.throttle_seconds.saved(),
            last_throttle_ms: self.last_throttle.map(ms),
            wear_first: self.wear_first.map(|(t, u)| (ms(t), u)),
            wear_latest: self.wear_latest.map(|(t, u)| (ms(t), u)),
            temperature: self.temperature,
        }
    }

    /// A history from its saved form, under `window` (the running
    /// configuration's, which may differ from the one it was saved under:
    /// the next reading prunes to it). Refused whole when any part is
    /// inconsistent: points out of order, a rise smaller than its values
    /// say, a time later than `now` (beyond a small slack), a ratio or a
    /// temperature out of range.
    pub fn restore(
        window: Option<Duration>,
        s: &SavedHistory,
        now: SystemTime,
    ) -> Result<History, RestoreError> {
        let limit = ms(now).saturating_add(CLOCK_SLACK.as_millis() as u64);
        check_time("latest", s.latest_ms, limit)?;
        check_time("first seen", s.first_seen_ms, limit)?;
        check_time("last throttle", s.last_throttle_ms, limit)?;
        check_wear("wear first", s.wear_first, limit)?;
        check_wear("wear latest", s.wear_latest, limit)?;
        if let (Some((t0, _)), Some((t1, _))) = (s.wear_first, s.wear_latest) {
            if t1 < t0 {
                return Err(RestoreError::Order("wear"));
            }
        }
        if let Some((lo, hi)) = s.temperature {
            for t in [lo, hi] {
                if !(-273.15..=1000.0).contains(&t) {
                    return Err(RestoreError::Range("temperature", t));
                }
            }
            if lo > hi {
                return Err(RestoreError::Order("temperature"));
            }
        }
        let telemetry_captures =
            Series::restore("telemetry captures", &s.telemetry_captures, limit)?;
        // The count carries on from the newest point (the series always
        // keeps it); a generation without points starts the count at 0.
        let telemetry_last = s.telemetry_generation.map(|g| {
            let counted = telemetry_captures.points.back().map_or(0, |p| p.value);
            (g, counted)
        });
        Ok(History {
            window,
            first_seen: s.first_seen_ms.map(time),
            latest: s.latest_ms.map(time),
            media_errors: Series::restore("media errors", &s.media_errors, limit)?,
            unsafe_shutdowns: Series::restore("unsafe shutdowns", &s.unsafe_shutdowns, limit)?,
            crc_errors: Series::restore("crc errors", &s.crc_errors, limit)?,
            grown_defects: Series::restore("grown defects", &s.grown_defects, limit)?,
            phy_errors: Series::restore("phy errors", &s.phy_errors, limit)?,
            // Within one boot only: the state's loader drops them after a
            // reboot (the kernel counts from 0 again).
            pcie_nonfatal: Series::restore("pcie nonfatal", &s.pcie_nonfatal, limit)?,
            pcie_fatal: Series::restore("pcie fatal", &s.pcie_fatal, limit)?,
            telemetry_captures,
            telemetry_last,
            throttle_transitions: Series::restore(
                "throttle transitions",
                &s.throttle_transitions,
                limit,
            )?,
            throttle_events: Series::restore("throttle events", &s.throttle_events, limit)?,
            throttle_seconds: Series::restore("throttle seconds", &s.throttle_seconds, limit)?,
            last_throttle: s.last_throttle_ms.map(time),
            wear_first: s.wear_first.map(|(t, u)| (time(t), u)),
            wear_latest: s.wear_latest.map(|(t, u)| (time(t), u)),
            temperature: s.temperature,
            revision: 0,
        })
    }

    /// The newest value of each tracked counter, by name: what a restored
    /// history is compared with after the first reading, to log a counter
    /// that went down (a reset) while the exporter was away.
    pub fn latest_values(&self) -> Vec<(&'static str, u128)> {
        [
            ("media errors", &self.media_errors),
            ("unsafe shutdowns", &self.unsafe_shutdowns),
            ("crc errors", &self.crc_errors),
            ("grown defects", &self.grown_defects),
            ("phy errors", &self.phy_errors),
            ("pcie nonfatal", &self.pcie_nonfatal),
            ("pcie fatal", &self.pcie_fatal),
            ("throttle transitions", &self.throttle_transitions),
            ("throttle events", &self.throttle_events),
            ("throttle seconds", &self.throttle_seconds),
        ]
        .into_iter()
        .filter_map(|(n, s)| Some((n, s.points.back()?.value)))
        .collect()
    }
}

#[cfg(test)]
mod tests;
