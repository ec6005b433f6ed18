//! One row per drive — identity, verdict, wear, temperature, PLP, unsafe
//! shutdowns, throttling, problems — shared by `ssd_exporter check` (text
//! and JSON) and the landing page (HTML), so all three say the same thing.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::health::verdict::Severity;
use crate::snapshot::DriveSnapshot;

mod timeline;
pub use timeline::EventRow;

/// One problem of a drive.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProblemRow {
    pub name: String,
    pub severity: String,
    pub reason: String,
}

/// What a person needs to see of one drive.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Row {
    /// Kernel name (`nvme0`, `sda`).
    pub device: String,
    pub transport: String,
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// Whether the last poll read the drive's health page.
    pub up: bool,
    /// Time since the last successful poll; `None` if none succeeded.
    #[serde(skip)]
    pub last_poll_age: Option<Duration>,
    /// Free text: `ok`, `poll failing: <error>`, `in standby, not woken`.
    pub state: String,
    /// `ok`, `warning`, `critical`, or `unknown` before any verdict or when
    /// the drive's core health data could not be read (unless something
    /// known is critical).
    pub status: String,
    /// Percentage used as a ratio (may exceed 1).
    pub wear_ratio: Option<f64>,
    pub temperature_celsius: Option<f64>,
    pub plp_health_ratio: Option<f64>,
    pub unsafe_shutdowns: Option<u128>,
    /// Throttling now (OCP) — `None` when the drive does not say.
    pub throttling: Option<bool>,
    pub wearout_seconds: Option<f64>,
    pub problems: Vec<ProblemRow>,
    /// What the verdict could not judge.
    pub unknown: Vec<String>,
    /// Pages the exporter currently believes the drive does not support
    /// (`ssd_page_supported` 0), asked again with every identity refresh.
    pub unsupported_pages: Vec<String>,
    /// The newest events of the drive's persistent event log (NVMe),
    /// newest first; left out of the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventRow>,
}

impl Row {
    pub fn from_snapshot(d: &DriveSnapshot, now: SystemTime) -> Row {
        let r = d.reading.as_ref();
        let verdict = d.verdict.as_ref();
        // Without its core health data a drive's health is unknown, not
        // merely "warning" (Nagios UNKNOWN for `check`).
        let no_data = r.is_none()
            || verdict.is_some_and(|v| v.problems.iter().any(|p| p.name == "data_missing"));
        Row {
            device: d.device.clone(),
            transport: d.identity.transport.as_str().to_string(),
            model: d.identity.model.clone(),
            serial: d.identity.serial.clone(),
            firmware: d.identity.firmware.clone(),
            up: d.up,
            last_poll_age: d.last_success.and_then(|t| now.duration_since(t).ok()),
            state: state(d),
            status: match verdict {
                Some(v) if no_data && v.status != Severity::Critical => "unknown".into(),
                Some(v) => v.status.as_str().into(),
                None => "unknown".into(),
            },
            wear_ratio: r.and_then(|r| r.percentage_used_ratio),
            temperature_celsius: r.and_then(|r| {
                r.temperatures
                    .iter()
                    .find(|t| t.0 == "composite")
                    .map(|t| t.1)
            }),
            plp_health_ratio: r.and_then(|r| r.plp_health_ratio),
            unsafe_shutdowns: r.and_then(|r| r.counters.unsafe_shutdowns),
            throttling: r.and_then(|r| r.throttle_active),
            wearout_seconds: d.wearout_seconds,
            problems: verdict
                .map(|v| {
                    v.problems
                        .iter()
                        .map(|p| ProblemRow {
                            name: p.name.into(),
                            severity: p.severity.as_str().into(),
                            reason: p.reason.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            unknown: verdict
                .map(|v| v.unknown.iter().map(|u| u.to_string()).collect())
                .unwrap_or_default(),
            unsupported_pages: d
                .pages
                .iter()
                .filter(|(_, supported)| !supported)
                .map(|(p, _)| p.as_label().to_string())
                .collect(),
            events: timeline::events(d),
        }
    }
}

fn state(d: &DriveSnapshot) -> String {
    match (&d.last_error, d.polls, d.up) {
        (_, 0, _) if !d.skipped.is_empty() => "in standby, not woken".to_string(),
        (_, 0, _) => "waiting for the first poll".to_string(),
        (None, _, true) => "ok".to_string(),
        (Some(e), _, true) => format!("ok, but a page failed: {e}"),
        (Some(e), _, false) => format!("poll failing: {e}"),
        (None, _, false) => "poll failing".to_string(),
    }
}

/// The Nagios-style exit code of a set of rows: 2 if any is critical, else
/// 3 if any is unknown (or there are none), else 1 if any warns, else 0.
pub fn exit_code(rows: &[Row]) -> u8 {
    let any = |s: &str| rows.iter().any(|r| r.status == s);
    if any(Severity::Critical.as_str()) {
        2
    } else if rows.is_empty() || any("unknown") {
        3
    } else if any(Severity::Warning.as_str()) {
        1
    } else {
        0
    }
}

/// `3 %`, `104 %`, `-`.
pub fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.0}%", v * 100.0))
}

fn fit(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        format!("{s:<width$}")
    } else {
        let cut: String = s.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}~")
    }
}

/// The table for a terminal, every line at most 80 columns; `color` adds
/// ANSI colours to the status (only when writing to a terminal).
pub fn text_table(rows: &[Row], color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<7} {:<17} {:<12} {:<8} {:>5} {:>5} {:>5} {:>7} {:>5}",
        "DEVICE", "MODEL", "SERIAL", "STATUS", "WEAR", "TEMP", "PLP", "UNSAFE", "THROT"
    );
    for r in rows {
        let status = fit(&r.status, 8);
        let status = match (color, r.status.as_str()) {
            (true, "ok") => format!("\x1b[32m{status}\x1b[0m"),
            (true, "warning") => format!("\x1b[33m{status}\x1b[0m"),
            (true, "critical") => format!("\x1b[31m{status}\x1b[0m"),
            (true, _) => format!("\x1b[35m{status}\x1b[0m"),
            (false, _) => status,
        };
        let temp = r
            .temperature_celsius
            .map_or("-".into(), |t| format!("{t:.0}C"));
        let unsafe_ = r.unsafe_shutdowns.map_or("-".into(), |n| n.to_string());
        let throt = match r.throttling {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        };
        let _ = writeln!(
            out,
            "{} {} {} {} {:>5} {:>5} {:>5} {:>7} {:>5}",
            fit(&r.device, 7),
            fit(&r.model, 17),
            fit(&r.serial, 12),
            status,
            percent(r.wear_ratio),
            fit(&temp, 5).trim_end(),
            percent(r.plp_health_ratio),
            fit(&unsafe_, 7).trim_end(),
            throt,
        );
        for p in &r.problems {
            let line = format!("  {} {}: {}", p.severity, p.name, p.reason);
            let _ = writeln!(out, "{}", fit(&line, 80).trim_end());
        }
        if r.status == "unknown" && r.problems.is_empty() {
            let _ = writeln!(out, "{}", fit(&format!("  {}", r.state), 80).trim_end());
        }
    }
    out
}

#[cfg(test)]
mod tests;
