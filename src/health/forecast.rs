//! Wear-out forecast (`ssd_wearout_estimated_seconds`) and endurance used
//! against the datasheet rating. Straight-line extrapolation: the rate seen
//! so far is assumed to hold, which is all an exporter can honestly claim.

use std::time::Duration;

use super::datasheet::Rating;
use super::history::History;
use super::reading::Reading;

/// Seconds until percentage used reaches 100 % at the rate seen so far.
///
/// The rate comes from the exporter's own history when it spans at least
/// `min_span` and percentage used rose within it (recent behaviour beats a
/// lifetime average once there is enough of it; percentage used moves in
/// whole percent, so a short span says little). Otherwise it is the drive's
/// lifetime average: percentage used / power-on time.
///
/// `None` when percentage used is missing or 0, the rate is 0, or the
/// lifetime average lacks power-on time; `Some(0.0)` when already ≥ 100 %.
pub fn wearout_seconds(reading: &Reading, history: &History, min_span: Duration) -> Option<f64> {
    let used = reading.percentage_used_ratio?;
    if !used.is_finite() || used <= 0.0 {
        return None;
    }
    if used >= 1.0 {
        return Some(0.0);
    }
    let rate = recent_rate(history, min_span).or_else(|| lifetime_rate(reading, used))?;
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

/// Host bytes written as a share of the rated endurance (may exceed 1), when
/// the rating gives a TBW and the drive reports host writes.
pub fn endurance_used(reading: &Reading, rating: &Rating) -> Option<f64> {
    let tbw = rating.tbw_bytes.filter(|t| *t > 0.0)?;
    let written = reading.counters.host_written_bytes?;
    Some(written as f64 / tbw)
}

#[cfg(test)]
mod tests;
