//! UTC timestamps as RFC 3339 text, without a date-time crate: for log
//! lines, dump metadata and the reasons of a health verdict.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the epoch (negative before it) → (year, month, day, h, m, s),
/// by Howard Hinnant's `civil_from_days`.
fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem % 3600 / 60, rem % 60)
}

fn split(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_millis()),
        Err(e) => (-(e.duration().as_secs() as i64), 0),
    }
}

/// `2026-11-30T06:00:00Z`.
pub fn utc_seconds(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(split(t).0);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// `2026-11-30T06:00:00.123Z`.
pub fn utc_millis(t: SystemTime) -> String {
    let (secs, ms) = split(t);
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
}

#[cfg(test)]
mod tests;
