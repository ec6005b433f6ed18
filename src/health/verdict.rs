//! The health verdict: `ssd_health_status` and one `ssd_health_problem` per
//! problem (`shared/reference/metrics.md`), judged from the unified reading,
//! what the exporter saw before ([`History`]) and what the caller knows
//! besides (poll state, PLP, measured latency).
//!
//! Two principles, both from users' complaints about other tools
//! (`shared/reference/peers.md`, pain point 11):
//! - a counter is "increasing" only if it rose while the exporter watched,
//!   so an old, static media-error count never reads as a failing drive;
//! - missing data is never read as good: what cannot be judged is listed in
//!   [`Verdict::unknown`], and a drive without its core health data gets a
//!   `data_missing` warning rather than `ok`.

use std::time::{Duration, SystemTime};

use super::history::{self, History, Tracked};
use super::reading::Reading;

/// How bad; the value is `ssd_health_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Ok = 0,
    Warning = 1,
    Critical = 2,
}

impl Severity {
    /// The `severity` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// One active problem: a `ssd_health_problem{problem,severity}` series.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The `problem` label; names from metrics.md.
    pub name: &'static str,
    pub severity: Severity,
    /// One sentence for people, with the numbers that tripped the rule.
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The worst problem's severity; `Ok` when there is none.
    pub status: Severity,
    /// Worst first, then by name; at most one per name.
    pub problems: Vec<Problem>,
    /// What could not be judged for lack of data: `smart_status`, `wear`,
    /// `spare`, `temperature`, `media_errors`, `unsafe_shutdowns`,
    /// `throttling`, `plp`.
    pub unknown: Vec<&'static str>,
}

/// Thresholds, all configurable.
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
    /// Whether to judge `latency_above_qos`. Default false: datasheet QoS
    /// is measured on a drive running only the test workload, so a drive
    /// serving production I/O is expected to exceed it at the tail. Turn it
    /// on for drives whose probe latency should meet the datasheet.
    pub latency_qos: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            wear_warning: 0.8,
            wear_critical: 1.0,
            spare_warning_factor: 2.0,
            plp_health_critical: 0.5,
            throttle_recent: Duration::from_secs(3600),
            latency_qos: false,
        }
    }
}

/// Everything a verdict needs besides the reading.
#[derive(Clone, Debug, Default)]
pub struct Context<'a> {
    /// Whether the last poll read and decoded the core health page.
    pub up: bool,
    /// Whether the drive has been polled at least once.
    pub polled: bool,
    pub last_error: Option<&'a str>,
    /// Whether the drive has power-loss protection; see
    /// [`super::datasheet::has_plp`].
    pub has_plp: Option<bool>,
    /// `(op, measured seconds, datasheet target seconds)`; only entries
    /// with measured > target count.
    pub latency_over_qos: Vec<(&'a str, f64, f64)>,
}

/// Judges one drive. Record the reading into `history` before calling, so
/// that the newest poll counts.
pub fn evaluate(
    reading: Option<&Reading>,
    history: &History,
    ctx: &Context,
    rules: &Rules,
    now: SystemTime,
) -> Verdict {
    let mut j = Judge::default();
    if ctx.polled && !ctx.up {
        let why = ctx.last_error.unwrap_or("no error message");
        let stale = if reading.is_some() {
            "; the verdict uses the last values read"
        } else {
            ""
        };
        j.add(
            "poll_failing",
            Severity::Warning,
            format!("the last poll failed ({why}){stale}"),
        );
    }
    match reading {
        None => {
            let why = if ctx.polled {
                "no poll has returned health data for this drive"
            } else {
                "this drive has not been polled yet"
            };
            j.add("data_missing", Severity::Warning, why.to_string());
            j.unknown = ALL.to_vec();
        }
        Some(r) => {
            status(r, &mut j);
            wear(r, rules, &mut j);
            spare(r, rules, &mut j);
            plp(r, ctx, rules, &mut j);
            temperature(r, &mut j);
            counters(r, history, ctx, &mut j);
            throttling(r, history, rules, now, &mut j);
        }
    }
    if rules.latency_qos {
        latency(ctx, &mut j);
    }
    j.finish()
}

/// Every judged aspect, for when nothing is known.
const ALL: [&str; 8] = [
    "smart_status",
    "wear",
    "spare",
    "temperature",
    "media_errors",
    "unsafe_shutdowns",
    "throttling",
    "plp",
];

/// Problems found so far.
#[derive(Default)]
struct Judge {
    problems: Vec<Problem>,
    unknown: Vec<&'static str>,
}

impl Judge {
    /// Adds a problem; a second one of the same name only raises the
    /// severity (one series per name), its reason giving way to the first.
    fn add(&mut self, name: &'static str, severity: Severity, reason: String) {
        match self.problems.iter_mut().find(|p| p.name == name) {
            Some(p) => p.severity = p.severity.max(severity),
            None => self.problems.push(Problem {
                name,
                severity,
                reason,
            }),
        }
    }

    fn unknown(&mut self, what: &'static str) {
        if !self.unknown.contains(&what) {
            self.unknown.push(what);
        }
    }

    fn finish(mut self) -> Verdict {
        self.problems
            .sort_by(|a, b| b.severity.cmp(&a.severity).then(a.name.cmp(b.name)));
        Verdict {
            status: self
                .problems
                .iter()
                .map(|p| p.severity)
                .max()
                .unwrap_or(Severity::Ok),
            problems: self.problems,
            unknown: self.unknown,
        }
    }
}

/// The problem a critical-warning bit names, and what the drive reports.
fn bit_problem(condition: &str) -> Option<(&'static str, Severity, &'static str)> {
    use Severity::{Critical, Warning};
    Some(match condition {
        "available_spare" => (
            "spare_below_threshold",
            Critical,
            "spare below its threshold",
        ),
        "reliability" => (
            "reliability_degraded",
            Critical,
            "reliability degraded by errors",
        ),
        "read_only" => ("read_only", Critical, "its media read-only"),
        "volatile_memory_backup" => ("plp_failed", Critical, "its volatile memory backup failed"),
        "pmr_read_only" => (
            "read_only",
            Critical,
            "its persistent memory region read-only",
        ),
        "temperature" => (
            "temperature_above_warning",
            Warning,
            "a temperature beyond its limits",
        ),
        _ => return None,
    })
}

/// Critical-warning bits (NVMe byte 0 and the endurance-group summary) and
/// SMART status; "failed" without a named bit (SATA) is `smart_failed`.
fn status(r: &Reading, j: &mut Judge) {
    let groups = [
        (&r.critical_warning, ""),
        (&r.endurance_group_warning, " (endurance group)"),
    ];
    for (bits, scope) in groups {
        for (cond, _) in bits.iter().filter(|(_, set)| *set) {
            if let Some((name, severity, text)) = bit_problem(cond) {
                j.add(name, severity, format!("the drive reports {text}{scope}"));
            }
        }
    }
    let any_bit = r.critical_warning.iter().any(|&(_, set)| set);
    match r.smart_passed {
        Some(false) if !any_bit => j.add(
            "smart_failed",
            Severity::Critical,
            "the drive's SMART status is failed".into(),
        ),
        None if r.critical_warning.is_empty() => {
            j.unknown("smart_status");
            let why = "the drive reported no SMART status or critical-warning bits";
            j.add("data_missing", Severity::Warning, why.into());
        }
        _ => {}
    }
}

fn wear(r: &Reading, rules: &Rules, j: &mut Judge) {
    let Some(used) = r.percentage_used_ratio else {
        return j.unknown("wear");
    };
    let text = format!("percentage used is {}", pct(used));
    if used >= rules.wear_critical - EPS {
        j.add("wear_out", Severity::Critical, text + ", the rated life");
    } else if used >= rules.wear_warning - EPS {
        let limit = pct(rules.wear_warning);
        j.add(
            "wear_high",
            Severity::Warning,
            format!("{text}, at least {limit}"),
        );
    }
}

fn spare(r: &Reading, rules: &Rules, j: &mut Judge) {
    let (Some(spare), Some(min)) = (r.available_spare_ratio, r.available_spare_threshold_ratio)
    else {
        return j.unknown("spare");
    };
    let text = format!("available spare {} (threshold {})", pct(spare), pct(min));
    let warn_at = rules.spare_warning_factor * min;
    if min > 0.0 && spare < min - EPS {
        j.add(
            "spare_below_threshold",
            Severity::Critical,
            text + " is below the threshold",
        );
    } else if min > 0.0 && spare <= warn_at + EPS {
        let text = format!("{text} is at most {}", pct(warn_at));
        j.add("spare_low", Severity::Warning, text);
    }
}

/// PLP health, judged on drives with PLP, or of unknown PLP that report a
/// nonzero health (a zero from a drive without capacitors means nothing).
fn plp(r: &Reading, ctx: &Context, rules: &Rules, j: &mut Judge) {
    let Some(h) = r.plp_health_ratio else {
        let has_bit = r
            .critical_warning
            .iter()
            .any(|&(n, _)| n == "volatile_memory_backup");
        if ctx.has_plp == Some(true) && !has_bit {
            j.unknown("plp");
        }
        return;
    };
    let judged = ctx.has_plp == Some(true) || (ctx.has_plp.is_none() && h > 0.0);
    if judged && h < rules.plp_health_critical - EPS {
        let limit = pct(rules.plp_health_critical);
        let text = format!("power-loss protection health is {}, below {limit}", pct(h));
        j.add("plp_health_low", Severity::Critical, text);
    }
}

/// The composite temperature (NVMe WCTEMP/CCTEMP apply to it), else the
/// hottest sensor, against the drive's own thresholds.
fn temperature(r: &Reading, j: &mut Judge) {
    let composite = r.temperatures.iter().find(|(s, _)| s == "composite");
    let hottest = r.temperatures.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let (warn, crit) = (
        r.temperature_warning_celsius,
        r.temperature_critical_celsius,
    );
    let Some((sensor, t)) = composite.or(hottest).filter(|_| warn.or(crit).is_some()) else {
        return j.unknown("temperature");
    };
    let text = format!("temperature ({sensor}) {t} °C is at or above the drive's");
    if let Some(c) = crit.filter(|c| t >= c) {
        let text = format!("{text} critical threshold of {c} °C");
        // One temperature problem: the critical one replaces the bit's warning.
        j.problems.retain(|p| p.name != "temperature_above_warning");
        j.add("temperature_above_critical", Severity::Critical, text);
    } else if let Some(w) = warn.filter(|w| t >= w) {
        let text = format!("{text} warning threshold of {w} °C");
        j.add("temperature_above_warning", Severity::Warning, text);
    }
}

/// Counters that matter only when they rise while the exporter watches.
fn counters(r: &Reading, history: &History, ctx: &Context, j: &mut Judge) {
    if r.counters.media_errors.is_none() {
        j.unknown("media_errors");
    }
    if r.counters.unsafe_shutdowns.is_none() {
        j.unknown("unsafe_shutdowns");
    }
    let plp = match ctx.has_plp {
        Some(true) => "this drive has power-loss protection, so its capacitors were used",
        Some(false) => "this drive has no power-loss protection, so data in its cache may be lost",
        None => "whether data was lost depends on power-loss protection, unknown for this model",
    };
    let rules = [
        (
            Tracked::MediaErrors,
            Severity::Critical,
            "data it stored could not be read",
        ),
        (Tracked::UnsafeShutdowns, Severity::Warning, plp),
        (
            Tracked::CrcErrors,
            Severity::Warning,
            "check the cable and backplane connector",
        ),
    ];
    for (what, severity, meaning) in rules {
        let (name, counter) = match what {
            Tracked::MediaErrors => ("media_errors_increasing", "media errors"),
            Tracked::UnsafeShutdowns => ("unsafe_shutdowns_increasing", "unsafe shutdowns"),
            Tracked::CrcErrors => ("crc_errors_increasing", "interface CRC errors"),
            Tracked::ThrottleEvents => continue,
        };
        if let Some((n, since)) = history.increase_since(what).filter(|&(n, _)| n > 0) {
            let text = format!(
                "{counter} rose by {n} since {}; {meaning}",
                history::utc(since)
            );
            j.add(name, severity, text);
        }
    }
}

fn throttling(r: &Reading, history: &History, rules: &Rules, now: SystemTime, j: &mut Judge) {
    let reported = r.throttle_active.is_some()
        || r.throttle_transitions.is_some()
        || r.throttle_seconds.is_some()
        || r.counters.thermal_throttle_events.is_some();
    if !reported {
        j.unknown("throttling");
    }
    let name = "thermal_throttling";
    if r.throttle_active == Some(true) {
        let text = "the drive is throttling its performance to cool down now";
        return j.add(name, Severity::Warning, text.into());
    }
    let Some(last) = history.last_throttle() else {
        return;
    };
    let ago = now.duration_since(last).unwrap_or(Duration::ZERO);
    if ago <= rules.throttle_recent {
        let (min, at) = (ago.as_secs() / 60, history::utc(last));
        let text = format!("the drive last throttled {min} min ago, at {at}");
        j.add(name, Severity::Warning, text);
    }
}

fn latency(ctx: &Context, j: &mut Judge) {
    let us = |s: f64| (s * 1e6).round();
    let over: Vec<String> = ctx
        .latency_over_qos
        .iter()
        .filter(|(_, measured, target)| measured > target)
        .map(|&(op, m, t)| {
            format!(
                "{op} latency {} µs exceeds the datasheet QoS of {} µs",
                us(m),
                us(t)
            )
        })
        .collect();
    if !over.is_empty() {
        j.add("latency_above_qos", Severity::Warning, over.join("; "));
    }
}

/// Tolerance for ratio comparisons (values arrive as percent / 100).
const EPS: f64 = 1e-9;

/// A ratio as a percentage, e.g. `79 %`, `12.5 %`.
fn pct(ratio: f64) -> String {
    format!("{} %", (ratio * 1000.0).round() / 10.0)
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
