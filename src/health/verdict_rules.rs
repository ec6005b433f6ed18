//! The rules of the health verdict, one function per aspect of the drive;
//! each adds its problems to the [`Judge`] or says what it could not judge.

use std::time::{Duration, SystemTime};

use super::attribute_rules::attribute_text;
use super::history::{self, History, Tracked};
use super::judgement::{Cause, Context, Judge, ProblemName as P, Severity};
use super::rules::Rules;
use crate::nvme::Condition;
use crate::reading::Reading;
use crate::scsi::exceptions::Condition as IeCondition;
use crate::scsi::log::InformationalException;

/// The problem a critical-warning bit names, and what the drive reports.
/// Exhaustive: a new condition does not compile until it is judged here.
fn bit_problem(condition: Condition) -> (P, Severity, &'static str) {
    use Severity::{Critical, Warning};
    match condition {
        Condition::AvailableSpare => (
            P::SpareBelowThreshold,
            Critical,
            "spare below its threshold",
        ),
        Condition::Reliability => (
            P::ReliabilityDegraded,
            Critical,
            "reliability degraded by errors",
        ),
        Condition::ReadOnly => (P::ReadOnly, Critical, "its media read-only"),
        Condition::VolatileMemoryBackup => {
            (P::PlpFailed, Critical, "its volatile memory backup failed")
        }
        Condition::PmrReadOnly => (
            P::ReadOnly,
            Critical,
            "its persistent memory region read-only",
        ),
        Condition::Temperature => (
            P::TemperatureAboveWarning,
            Warning,
            "a temperature beyond its limits",
        ),
    }
}

/// Critical-warning bits (NVMe byte 0 and the endurance-group summary) and
/// SMART status; "failed" without a named bit (SATA) is `smart_failed`.
pub(super) fn status(r: &Reading, j: &mut Judge) {
    let groups = [
        (&r.critical_warning, ""),
        (&r.endurance_group_warning, " (endurance group)"),
    ];
    for (bits, scope) in groups {
        for &(cond, _) in bits.iter().filter(|(_, set)| *set) {
            let (name, severity, text) = bit_problem(cond);
            j.add(name, severity, format!("the drive reports {text}{scope}"));
        }
    }
    let any_bit = r.critical_warning.iter().any(|&(_, set)| set);
    let exception = r.scsi.as_ref().and_then(|s| s.informational_exception);
    if let Some(ie) = exception.filter(|ie| ie.condition() == IeCondition::Warning) {
        // SCSI log 2Fh ASC 0Bh: a warning (SPC-5), named by its ASC/ASCQ.
        let text = format!(
            "the drive reports an informational exception warning ({})",
            ie_text(&ie)
        );
        j.add(P::DriveReportedWarning, Severity::Warning, text);
    }
    match r.smart_passed {
        // SCSI log 2Fh (SPC-5 7.3.14): only ASC 5Dh, failure prediction
        // threshold exceeded (but its ASCQ FFh, the TEST bit's false
        // report), is a failure.
        Some(false) if exception.is_some() => {
            let ie = exception.expect("matched");
            let text = format!(
                "the drive reports an informational exception ({})",
                ie_text(&ie)
            );
            j.add(P::SmartFailed, Severity::Critical, text)
        }
        Some(false) if r.smart_passed_from_attributes => {
            let failing = r.failing_attributes.as_deref().unwrap_or_default();
            let prefail = failing.iter().filter(|a| a.prefailure);
            let text = format!(
                "pre-failure attribute at or below its threshold ({}); the SMART status itself could not be read",
                prefail
                    .clone()
                    .map(attribute_text)
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            // Each attribute named in the text a cause, so a mute of one hides only it.
            let causes = prefail.map(|a| Cause::Attribute(a.id)).collect();
            j.add_caused(P::SmartFailed, Severity::Critical, text, causes)
        }
        Some(false) if !any_bit => j.add(
            P::SmartFailed,
            Severity::Critical,
            "the drive's SMART status is failed".into(),
        ),
        None if r.critical_warning.is_empty() => {
            j.unknown("smart_status");
            let why = "the drive reported no SMART status or critical-warning bits";
            j.add(P::DataMissing, Severity::Warning, why.into());
        }
        _ => {}
    }
}

/// `asc 0bh, ascq 01h: warning - specified temperature exceeded`.
fn ie_text(ie: &InformationalException) -> String {
    let name = ie.name().map_or(String::new(), |n| format!(": {n}"));
    format!("asc {:02x}h, ascq {:02x}h{name}", ie.asc, ie.ascq)
}

pub(super) fn wear(r: &Reading, rules: &Rules, j: &mut Judge) {
    let Some(used) = r.percentage_used_ratio else {
        return j.unknown("wear");
    };
    let text = format!("percentage used is {}", pct(used));
    if used >= rules.wear_critical - EPS {
        j.add(P::WearOut, Severity::Critical, text + ", the rated life");
    } else if used >= rules.wear_warning - EPS {
        let limit = pct(rules.wear_warning);
        j.add(
            P::WearHigh,
            Severity::Warning,
            format!("{text}, at least {limit}"),
        );
    }
}

pub(super) fn spare(r: &Reading, rules: &Rules, j: &mut Judge) {
    let (Some(spare), Some(min)) = (r.available_spare_ratio, r.available_spare_threshold_ratio)
    else {
        return j.unknown("spare");
    };
    let text = format!("available spare {} (threshold {})", pct(spare), pct(min));
    let warn_at = rules.spare_warning_factor * min;
    if min > 0.0 && spare < min - EPS {
        j.add(
            P::SpareBelowThreshold,
            Severity::Critical,
            text + " is below the threshold",
        );
    } else if min > 0.0 && spare <= warn_at + EPS {
        let text = format!("{text} is at most {}", pct(warn_at));
        j.add(P::SpareLow, Severity::Warning, text);
    }
}

/// PLP health, judged on drives with PLP, or of unknown PLP that report a
/// nonzero health (a zero from a drive without capacitors means nothing).
pub(super) fn plp(r: &Reading, ctx: &Context, rules: &Rules, j: &mut Judge) {
    if r.plp_test_failed == Some(true) {
        let text = "the drive's own power-loss capacitor test failed".to_string();
        j.add(P::PlpFailed, Severity::Critical, text);
    }
    let Some(h) = r.plp_health_ratio else {
        let has_bit = r
            .critical_warning
            .iter()
            .any(|&(n, _)| n == Condition::VolatileMemoryBackup);
        if ctx.has_plp == Some(true) && !has_bit && r.plp_test_failed.is_none() {
            j.unknown("plp");
        }
        return;
    };
    let judged = ctx.has_plp == Some(true) || (ctx.has_plp.is_none() && h > 0.0);
    if judged && h < rules.plp_health_critical - EPS {
        let limit = pct(rules.plp_health_critical);
        let text = format!("power-loss protection health is {}, below {limit}", pct(h));
        j.add(P::PlpHealthLow, Severity::Critical, text);
    }
}

/// The composite temperature (NVMe WCTEMP/CCTEMP apply to it), else the
/// hottest sensor, against the drive's own thresholds.
pub(super) fn temperature(r: &Reading, j: &mut Judge) {
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
        j.problems.retain(|p| p.name != P::TemperatureAboveWarning);
        j.add(P::TemperatureAboveCritical, Severity::Critical, text);
    } else if let Some(w) = warn.filter(|w| t >= w) {
        let text = format!("{text} warning threshold of {w} °C");
        j.add(P::TemperatureAboveWarning, Severity::Warning, text);
    }
}

/// Counters that matter only when they rise while the exporter watches.
pub(super) fn counters(r: &Reading, history: &History, ctx: &Context, j: &mut Judge) {
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
        (
            Tracked::GrownDefects,
            Severity::Warning,
            "the drive retired more of its media; watch for uncorrected errors",
        ),
        (
            Tracked::PhyErrors,
            Severity::Warning,
            "the link, not the media: check the cable, backplane, expander or HBA port",
        ),
    ];
    for (what, severity, meaning) in rules {
        let (name, counter) = match what {
            Tracked::MediaErrors => (P::MediaErrorsIncreasing, "media errors"),
            Tracked::UnsafeShutdowns => (P::UnsafeShutdownsIncreasing, "unsafe shutdowns"),
            Tracked::CrcErrors => (P::CrcErrorsIncreasing, "interface CRC errors"),
            Tracked::GrownDefects => (P::GrownDefectsIncreasing, "grown defects"),
            Tracked::PhyErrors => (P::PhyErrorsIncreasing, "SAS phy errors"),
            Tracked::ThrottleEvents
            | Tracked::TelemetryCaptures
            | Tracked::PcieNonfatal
            | Tracked::PcieFatal => continue,
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

pub(super) fn throttling(
    r: &Reading,
    history: &History,
    rules: &Rules,
    now: SystemTime,
    j: &mut Judge,
) {
    let reported = r.throttle_active.is_some()
        || r.throttle_transitions.is_some()
        || r.throttle_seconds.is_some()
        || r.counters.thermal_throttle_events.is_some();
    if !reported {
        j.unknown("throttling");
    }
    let name = P::ThermalThrottling;
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

pub(super) fn latency(ctx: &Context, j: &mut Judge) {
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
        j.add(P::LatencyAboveQos, Severity::Warning, over.join("; "));
    }
}

/// Tolerance for ratio comparisons (values arrive as percent / 100).
const EPS: f64 = 1e-9;

/// A ratio as a percentage, e.g. `79 %`, `12.5 %`.
fn pct(ratio: f64) -> String {
    format!("{} %", (ratio * 1000.0).round() / 10.0)
}

/// The newest self-test: a test that found a failure (not one that was
/// aborted or interrupted) is critical — the drive itself says it cannot
/// read or write part of its media.
pub(super) fn self_test(r: &Reading, j: &mut Judge) {
    const FAILED: [&str; 8] = [
        "fatal_error",
        "unknown_segment_failed",
        "segments_failed",
        "unknown_failure",
        "electrical_failure",
        "servo_failure",
        "read_failure",
        "handling_damage",
    ];
    // SCSI keeps every entry: the newest with an outcome is judged, so a
    // test in progress or aborted does not hide an older failure.
    let scsi = r.scsi.as_ref().and_then(|s| s.self_test.as_ref());
    let result = scsi.map_or(r.self_test_last_result, |t| Some(t.result));
    let Some(result) = result.filter(|res| FAILED.contains(res)) else {
        return;
    };
    let words = |s: &str| s.replace('_', " ");
    let text = match scsi.filter(|t| !t.newer.is_empty()) {
        Some(t) => format!(
            "the newest completed device self-test (at {} power-on hours) failed: {}; newer: {}",
            t.power_on_hours,
            words(result),
            t.newer
                .iter()
                .map(|n| words(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("the newest device self-test failed: {}", words(result)),
    };
    j.add(P::SelfTestFailed, Severity::Critical, text);
}
