//! UTC timestamps as RFC 3339 text, without a date-time crate: for log
//! lines, dump metadata and the reasons of a health verdict; and the one
//! date form the config file takes ([`parse_utc`]).

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

/// Days since the epoch of a proleptic Gregorian date, by Howard
/// Hinnant's `days_from_civil` (the inverse of `civil`).
fn days(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days in `month` of `year`.
fn month_days(year: i64, month: i64) -> i64 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `2026-03-01` (00:00:00 UTC that day) or `2026-03-01T12:30:00Z`, years
/// 1970 to 9999; `None` for anything else (another zone, a bad day).
pub fn parse_utc(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let (date, time) = match text.split_once('T') {
        Some((d, t)) => (d, Some(t.strip_suffix('Z')?)),
        None => (text, None),
    };
    let num = |s: &str, len: usize| -> Option<i64> {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let mut d = date.split('-');
    let (y, mo, day) = (num(d.next()?, 4)?, num(d.next()?, 2)?, num(d.next()?, 2)?);
    if d.next().is_some() || y < 1970 || !(1..=12).contains(&mo) {
        return None;
    }
    if !(1..=month_days(y, mo)).contains(&day) {
        return None;
    }
    let secs = match time {
        None => 0,
        Some(t) => {
            let mut p = t.split(':');
            let (h, mi, s) = (num(p.next()?, 2)?, num(p.next()?, 2)?, num(p.next()?, 2)?);
            if p.next().is_some() || h > 23 || mi > 59 || s > 59 {
                return None;
            }
            h * 3600 + mi * 60 + s
        }
    };
    let total = u64::try_from(days(y, mo, day) * 86_400 + secs).ok()?;
    Some(UNIX_EPOCH + std::time::Duration::from_secs(total))
}

#[cfg(test)]
mod tests;
