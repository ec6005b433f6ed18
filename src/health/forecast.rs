//! Wear-out forecast (`ssd_wearout_estimated_seconds`) and endurance used
//! (`ssd_endurance_used_ratio`) against the rated endurance: a user's
//! value, the datasheet's, or the drive's own estimate. Straight-line
//! extrapolation: the rate seen so far is assumed to hold, which is all an
//! exporter can honestly claim.

use std::time::Duration;

use super::datasheet::Rating;
use super::history::History;
use crate::reading::Reading;
use crate::reading::nvme_depth::endurance_estimate;

/// Where a drive's rated endurance comes from: the `source` label of
/// `ssd_rated_endurance_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnduranceSource {
    /// The user's value: `rated_endurance_bytes` of the `health.overrides`
    /// entry that matches the drive.
    Override,
    /// The datasheet table (TBW, or DWPD × capacity × warranty).
    Datasheet,
    /// The drive's own Endurance Estimate, summed over its endurance
    /// groups (NVMe log 09h).
    EnduranceGroup,
    /// The OCP C0h Endurance Estimate (bytes 191:176), a byte count.
    Ocp,
}

impl EnduranceSource {
    pub const ALL: [EnduranceSource; 4] = [
        Self::Override,
        Self::Datasheet,
        Self::EnduranceGroup,
        Self::Ocp,
    ];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::Datasheet => "datasheet",
            Self::EnduranceGroup => "endurance_group",
            Self::Ocp => "ocp",
        }
    }
}

/// The endurance a drive is judged against.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedEndurance {
    pub bytes: f64,
    pub source: EnduranceSource,
    /// The bytes written that count against it; `None`: the host bytes
    /// written (a datasheet's TBW and a user's value are in host bytes;
    /// the drive's estimate is at a write amplification of 1, so media
    /// bytes written count against it, see [`endurance_estimate`]).
    pub written: Option<f64>,
}

/// The rated endurance of a drive: `override_bytes` (the
/// `rated_endurance_bytes` of the `health.overrides` entry matching the
/// drive) wins, then the datasheet's TBW, then the drive's own endurance
/// group estimate (log 09h), then its OCP C0h Endurance Estimate where that
/// is [`OcpEstimate::Usable`] (`capacity` is the drive's, TNVMCAP).
pub fn rated_endurance(
    override_bytes: Option<f64>,
    rating: Option<&Rating>,
    reading: Option<&Reading>,
    capacity: Option<u128>,
) -> Option<RatedEndurance> {
    let positive = |b: &f64| b.is_finite() && *b > 0.0;
    let rated = |bytes, source, written| RatedEndurance {
        bytes,
        source,
        written,
    };
    if let Some(bytes) = override_bytes.filter(positive) {
        return Some(rated(bytes, EnduranceSource::Override, None));
    }
    if let Some(bytes) = rating.and_then(|r| r.tbw_bytes).filter(positive) {
        return Some(rated(bytes, EnduranceSource::Datasheet, None));
    }
    let nvme = reading?.nvme.as_ref()?;
    if let Some((bytes, written)) = endurance_estimate(&nvme.endurance_groups) {
        return Some(rated(bytes, EnduranceSource::EnduranceGroup, written));
    }
    match ocp_estimate(reading?, capacity)? {
        OcpEstimate::Usable(bytes) => Some(rated(bytes, EnduranceSource::Ocp, None)),
        OcpEstimate::Suspect(_) => None,
    }
}

/// The OCP C0h Endurance Estimate (bytes 191:176) as a rating: "estimation
/// of total data that can be written to the device in bytes" (illumos
/// `sys/nvme/ocp.h`; nvme-cli's Hyperscale Boot SSD log calls the same
/// field "Total Writable Lifetime Bytes"), so host bytes written count
/// against it. 0 is not reported.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OcpEstimate {
    /// At least one full drive write: a rating.
    Usable(f64),
    /// Below one full drive write (TNVMCAP), or the capacity unknown: no
    /// drive is rated for less, so the field means something else here;
    /// served, not used, logged once.
    Suspect(f64),
}

/// The drive's OCP Endurance Estimate judged against `capacity`; `None`
/// where the drive has no C0h page or reports 0.
pub fn ocp_estimate(reading: &Reading, capacity: Option<u128>) -> Option<OcpEstimate> {
    let estimate = reading.nvme.as_ref()?.ocp.as_ref()?.endurance_estimate;
    if estimate == 0 {
        return None;
    }
    let bytes = estimate as f64;
    Some(match capacity {
        Some(c) if c > 0 && estimate >= c => OcpEstimate::Usable(bytes),
        _ => OcpEstimate::Suspect(bytes),
    })
}

/// Seconds until percentage used reaches 100 % at the rate seen so far.
///
/// The rate comes from the exporter's own history when it spans at least
/// `min_span` and percentage used rose within it (recent behaviour beats a
/// lifetime average once there is enough of it; percentage used moves in
/// whole percent, so a short span says little). Otherwise it is the drive's
/// lifetime average: percentage used / power-on time.
///
/// Where percentage used gives no forecast (missing, or still 0 %), the
/// endurance used against the rated endurance (`endurance_used`, see
/// [`endurance_used`]) does, at its lifetime average.
///
/// `None` when neither is there, the rate is 0, or the lifetime average
/// lacks power-on time; `Some(0.0)` when already ≥ 100 %.
pub fn wearout_seconds(
    reading: &Reading,
    history: &History,
    min_span: Duration,
    endurance_used: Option<f64>,
) -> Option<f64> {
    let positive = |u: &f64| u.is_finite() && *u > 0.0;
    let Some(used) = reading.percentage_used_ratio.filter(positive) else {
        let used = endurance_used.filter(positive)?;
        return remaining(used, lifetime_rate(reading, used)?);
    };
    if used >= 1.0 {
        return Some(0.0);
    }
    let rate = recent_rate(history, min_span).or_else(|| lifetime_rate(reading, used))?;
    remaining(used, rate)
}

/// Seconds from `used` (a ratio) to 1 at `rate` per second.
fn remaining(used: f64, rate: f64) -> Option<f64> {
    if used >= 1.0 {
        return Some(0.0);
    }
    (rate > 0.0).then(|| (1.0 - used) / rate)
}

/// Percentage used (as a ratio) per second over the exporter's history.
fn recent_rate(history: &History, min_span: Duration) -> Option<f64> {
    let ((t0, u0), (t1, u1)) = history.wear_span()?;
    let span = t1.duration_since(t0).ok()?;
    if span < min_span || span.is_zero() || u1 <= u0 {
        return None;
    }
    Some((u1 - u0) / span.as_secs_f64())
}

/// Percentage used (as a ratio) per power-on second over the drive's life.
fn lifetime_rate(reading: &Reading, used: f64) -> Option<f64> {
    let on = reading.counters.power_on_seconds?;
    (on > 0).then(|| used / on as f64)
}

/// The bytes written that count against `rated` as a share of it (may
/// exceed 1): its own count, else the host bytes the drive reports.
pub fn endurance_used(reading: &Reading, rated: &RatedEndurance) -> Option<f64> {
    let written = rated
        .written
        .or_else(|| reading.counters.host_written_bytes.map(|w| w as f64))?;
    (rated.bytes > 0.0).then(|| written / rated.bytes)
}

#[cfg(test)]
mod tests;
