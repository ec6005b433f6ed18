//! One row per drive — identity, verdict, wear, temperature, PLP, unsafe
//! shutdowns, throttling, problems — shared by `ssd_exporter check` (text
//! and JSON) and the landing page (HTML), so all three say the same thing.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::health::verdict::Status;
use crate::snapshot::DriveSnapshot;

mod latency;
mod timeline;
pub use latency::{LatencyRow, QosRow};
pub use timeline::EventRow;

/// One problem of a drive.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProblemRow {
    pub name: String,
    /// `warning`, `critical`, or `muted` (the reason says by what and
    /// what it would be otherwise).
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
    /// known is critical); `not judged` for a device the verdict cannot
    /// judge (a virtual volume, a LUN).
    pub status: String,
    /// Why the device is not judged and where to look instead; left out
    /// of the JSON for a judged drive. Such a device is left out of
    /// [`exit_code`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<String>,
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
    /// The `health.overrides` entry that applies to the drive, if any.
    #[serde(rename = "override")]
    pub override_source: Option<String>,
    /// The newest events of the drive's persistent event log (NVMe),
    /// newest first; left out of the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventRow>,
    /// The probe's read latency, where a probe runs (never in `check`, a
    /// one-shot poll); left out of the JSON without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyRow>,
}

impl Row {
    pub fn from_snapshot(d: &DriveSnapshot, now: SystemTime) -> Row {
        let r = d.reading.as_ref();
        let verdict = d.verdict.as_ref();
        Row {
            device: d.device.clone(),
            transport: d.identity.transport.as_str().to_string(),
            model: d.identity.model.clone(),
            serial: d.identity.serial.clone(),
            firmware: d.identity.firmware.clone(),
            up: d.up,
            last_poll_age: d.last_success.and_then(|t| now.duration_since(t).ok()),
            state: state(d),
            // The same word as ssd_health_status's value (Status).
            status: verdict
                .map_or(Status::Unknown, |v| v.overall())
                .as_str()
                .into(),
            not_judged: verdict.and_then(|v| v.not_judged.clone()),
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
                            name: p.name.as_label().into(),
                            severity: p.severity_label().into(),
                            reason: match p.muted {
                                false => p.reason.clone(),
                                true => format!(
                                    "{}, muted by {}: {}",
                                    p.severity.as_str(),
                                    d.tuning.source.as_deref().unwrap_or("the config"),
                                    p.reason
                                ),
                            },
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
            override_source: d.tuning.source.clone(),
            events: timeline::events(d),
            latency: None,
        }
    }

    /// This row with its drive's read latency from the running `probes`.
    pub fn with_latency(mut self, probes: &[crate::probe::fleet::ProbeView]) -> Row {
        self.latency = latency::of(&self.device, &self.model, probes);
        self
    }
}

/// A latency in the unit people read it in: `85 µs`, `1.2 ms`.
pub fn duration(seconds: f64) -> String {
    latency::duration(seconds)
}

/// A quantile label as a percentile: `0.99999` → `p99.999`.
pub fn percentile(label: &str) -> String {
    latency::percentile(label)
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
/// 3 if any is unknown (or none is judged), else 1 if any warns, else 0.
/// A device not judged (a virtual volume, a LUN) counts for nothing, even
/// when its poll fails: it is listed with its reason, and a host's check
/// stays what its drives make it. A host with nothing but such devices has
/// no drive judged, as one without drives: unknown.
pub fn exit_code(rows: &[Row]) -> u8 {
    let judged: Vec<&Row> = rows.iter().filter(|r| r.not_judged.is_none()).collect();
    let any = |s: Status| judged.iter().any(|r| r.status == s.as_str());
    let worst = if any(Status::Critical) {
        Status::Critical
    } else if judged.is_empty() || any(Status::Unknown) {
        Status::Unknown
    } else if any(Status::Warning) {
        Status::Warning
    } else {
        Status::Ok
    };
    // The Nagios exit codes are the status values.
    worst as u8
}

/// `3 %`, `104 %`, `-`.
pub fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.0}%", v * 100.0))
}

/// How [`text_table`] lays the table out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    /// The terminal's width in columns: the model and the problems wrap to
    /// fit it. `None` (not a terminal, or `check --wide`): one line per
    /// drive and per problem, however long.
    pub width: Option<usize>,
    /// ANSI colours on the status (only when writing to a terminal).
    pub color: bool,
}

const HEADER: [&str; 9] = [
    "DEVICE", "MODEL", "SERIAL", "STATUS", "WEAR", "TEMP", "PLP", "UNSAFE", "THROT",
];
/// The columns after the serial are right-aligned numbers (STATUS aside).
const MODEL: usize = 1;
const STATUS: usize = 3;
/// The narrowest the model column is squeezed to on a narrow terminal.
const MIN_MODEL: usize = 10;

/// The cells of one drive's line, as [`HEADER`] names them.
fn cells(r: &Row) -> [String; 9] {
    let temp = r
        .temperature_celsius
        .map_or("-".into(), |t| format!("{t:.0}C"));
    let throt = match r.throttling {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    };
    [
        r.device.clone(),
        r.model.clone(),
        r.serial.clone(),
        r.status.clone(),
        percent(r.wear_ratio),
        temp,
        percent(r.plp_health_ratio),
        r.unsafe_shutdowns.map_or("-".into(), |n| n.to_string()),
        throt.into(),
    ]
}

/// `text` in lines of at most `width` characters, broken at spaces; a
/// word longer than that is kept whole (a serial or a path is never cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

fn paint(status: &str, padded: String) -> String {
    let code = match status {
        "ok" => 32,
        "warning" => 33,
        "critical" => 31,
        "not judged" => 90,
        _ => 35,
    };
    format!("\x1b[{code}m{padded}\x1b[0m")
}

/// The table for people: one line per drive (device, model, serial,
/// status, wear, temperature, PLP, unsafe shutdowns, throttling) and one
/// per problem below it. Nothing is cut: on a terminal narrower than the
/// table the model wraps within its column and the problems wrap at the
/// terminal's width.
pub fn text_table(rows: &[Row], layout: Layout) -> String {
    let all: Vec<[String; 9]> = rows.iter().map(cells).collect();
    let mut widths = HEADER.map(str::len);
    for c in &all {
        for (w, cell) in widths.iter_mut().zip(c) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let total = widths.iter().sum::<usize>() + widths.len() - 1;
    if let Some(limit) = layout.width.filter(|&l| l < total) {
        let rest = total - widths[MODEL];
        widths[MODEL] = limit.saturating_sub(rest).clamp(MIN_MODEL, widths[MODEL]);
    }
    let mut out = String::new();
    let header = HEADER.map(str::to_string);
    line(&mut out, &header, &widths, None);
    for (r, c) in rows.iter().zip(&all) {
        let color = layout.color.then_some(r.status.as_str());
        line(&mut out, c, &widths, color);
        let mut notes: Vec<String> = r
            .problems
            .iter()
            .map(|p| format!("{} {}: {}", p.severity, p.name, p.reason))
            .collect();
        if r.status == Status::Unknown.as_str() && r.problems.is_empty() {
            notes.push(r.state.clone());
        }
        if let Some(why) = &r.not_judged {
            notes.push(format!("not judged: {why}"));
        }
        for note in notes {
            let width = layout.width.unwrap_or(usize::MAX).saturating_sub(4);
            for (i, text) in wrap(&note, width.max(20)).iter().enumerate() {
                let indent = if i == 0 { "  " } else { "    " };
                let _ = writeln!(out, "{indent}{text}");
            }
        }
    }
    out
}

/// One drive's line (more when its model wraps), padded to `widths`.
fn line(out: &mut String, cells: &[String; 9], widths: &[usize; 9], color: Option<&str>) {
    let model = wrap(&cells[MODEL], widths[MODEL]);
    for (n, model_part) in model.iter().enumerate() {
        let mut text = String::new();
        for (i, (cell, &w)) in cells.iter().zip(widths).enumerate() {
            let cell = match (i, n) {
                (MODEL, _) => model_part.as_str(),
                (_, 0) => cell.as_str(),
                _ => "",
            };
            let padded = if i > STATUS {
                format!("{cell:>w$}")
            } else {
                format!("{cell:<w$}")
            };
            if i > 0 {
                text.push(' ');
            }
            match color {
                Some(status) if i == STATUS && n == 0 => text += &paint(status, padded),
                _ => text += &padded,
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
    }
}

#[cfg(test)]
mod tests;
