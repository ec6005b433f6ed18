use std::time::{Duration, SystemTime};

use super::*;
use crate::nvme::Condition;
use crate::probe::op::ProbeOp;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z
const MIN: u64 = 60;
const HOUR: u64 = 3600;

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

/// A healthy NVMe-like reading: every core field present, nothing wrong.
fn healthy() -> Reading {
    let conditions = [
        Condition::AvailableSpare,
        Condition::Temperature,
        Condition::Reliability,
        Condition::ReadOnly,
    ];
    let mut r = Reading {
        temperatures: vec![("composite".into(), 40.0)],
        temperature_warning_celsius: Some(75.0),
        temperature_critical_celsius: Some(80.0),
        critical_warning: conditions.iter().map(|&c| (c, false)).collect(),
        smart_passed: Some(true),
        available_spare_ratio: Some(1.0),
        available_spare_threshold_ratio: Some(0.1),
        percentage_used_ratio: Some(0.05),
        throttle_transitions: Some([0, 0]),
        ..Reading::default()
    };
    r.counters.media_errors = Some(0);
    r.counters.unsafe_shutdowns = Some(3);
    r
}

fn up() -> Context<'static> {
    Context {
        up: true,
        polled: true,
        ..Context::default()
    }
}

/// Records `readings` an hour apart from T0, then judges the last one.
fn judge_series(readings: &[Reading], ctx: &Context, now: SystemTime) -> Verdict {
    let mut h = History::new(None);
    for (i, r) in readings.iter().enumerate() {
        h.record(at(T0 + i as u64 * HOUR), r);
    }
    evaluate(readings.last(), &h, ctx, &Rules::default(), now)
}

fn judge(r: &Reading) -> Verdict {
    judge_series(std::slice::from_ref(r), &up(), at(T0))
}

fn names(v: &Verdict) -> Vec<(&'static str, Severity)> {
    v.problems
        .iter()
        .map(|p| (p.name.as_label(), p.severity))
        .collect()
}

#[test]
fn a_healthy_drive_is_ok_with_nothing_unknown() {
    let v = judge(&healthy());
    assert_eq!(v.status, Severity::Ok);
    assert!(v.problems.is_empty(), "{v:?}");
    assert!(v.unknown.is_empty(), "{v:?}");
    assert_eq!(Severity::Critical.as_str(), "critical");
}

#[test]
fn critical_warning_bits_name_their_problems() {
    let cases = [
        (
            Condition::AvailableSpare,
            "spare_below_threshold",
            Severity::Critical,
        ),
        (
            Condition::Reliability,
            "reliability_degraded",
            Severity::Critical,
        ),
        (Condition::ReadOnly, "read_only", Severity::Critical),
        (
            Condition::VolatileMemoryBackup,
            "plp_failed",
            Severity::Critical,
        ),
        (Condition::PmrReadOnly, "read_only", Severity::Critical),
        (
            Condition::Temperature,
            "temperature_above_warning",
            Severity::Warning,
        ),
    ];
    for (condition, name, severity) in cases {
        let mut r = healthy();
        r.critical_warning.push((condition, true));
        r.smart_passed = Some(false); // NVMe: passed = no bit set
        let v = judge(&r);
        assert_eq!(names(&v), [(name, severity)], "{condition:?}");
        assert_eq!(v.status, severity);
    }
}

#[test]
fn endurance_group_bits_count_too() {
    let mut r = healthy();
    r.endurance_group_warning = vec![(Condition::ReadOnly, true), (Condition::Reliability, false)];
    let v = judge(&r);
    assert_eq!(names(&v), [("read_only", Severity::Critical)]);
    assert!(v.problems[0].reason.contains("endurance group"));
}

#[test]
fn smart_failed_without_a_named_bit() {
    let mut sata = healthy();
    sata.critical_warning.clear();
    sata.smart_passed = Some(false);
    assert_eq!(names(&judge(&sata)), [("smart_failed", Severity::Critical)]);
    sata.smart_passed = Some(true);
    assert_eq!(judge(&sata).status, Severity::Ok);
}

#[test]
fn wear_warns_at_80_percent_and_is_critical_at_100() {
    let cases = [
        (0.79, vec![]),
        (0.80, vec![("wear_high", Severity::Warning)]),
        (0.99, vec![("wear_high", Severity::Warning)]),
        (1.00, vec![("wear_out", Severity::Critical)]),
        (1.04, vec![("wear_out", Severity::Critical)]),
    ];
    for (used, want) in cases {
        let mut r = healthy();
        r.percentage_used_ratio = Some(used);
        assert_eq!(names(&judge(&r)), want, "used {used}");
    }
    let mut r = healthy();
    r.percentage_used_ratio = Some(80.0 / 100.0);
    assert_eq!(
        judge(&r).problems[0].reason,
        "percentage used is 80 %, at least 80 %"
    );
}

#[test]
fn spare_within_twice_its_threshold_warns() {
    let cases = [
        (0.21, 0.10, vec![]),
        (0.20, 0.10, vec![("spare_low", Severity::Warning)]),
        (0.10, 0.10, vec![("spare_low", Severity::Warning)]),
        (
            0.09,
            0.10,
            vec![("spare_below_threshold", Severity::Critical)],
        ),
        (0.00, 0.00, vec![]),
    ];
    for (spare, threshold, want) in cases {
        let mut r = healthy();
        r.available_spare_ratio = Some(spare);
        r.available_spare_threshold_ratio = Some(threshold);
        assert_eq!(names(&judge(&r)), want, "spare {spare} / {threshold}");
    }
}

#[test]
fn plp_health_below_half_is_critical_on_plp_drives_only() {
    let mut r = healthy();
    let plp = Context {
        has_plp: Some(true),
        ..up()
    };
    let no_plp = Context {
        has_plp: Some(false),
        ..up()
    };
    let unknown = up();
    let judge_with =
        |r: &Reading, ctx: &Context| judge_series(std::slice::from_ref(r), ctx, at(T0));
    r.plp_health_ratio = Some(0.49);
    let low = [("plp_health_low", Severity::Critical)];
    assert_eq!(names(&judge_with(&r, &plp)), low);
    assert_eq!(names(&judge_with(&r, &unknown)), low);
    assert!(judge_with(&r, &no_plp).problems.is_empty());
    r.plp_health_ratio = Some(0.50);
    assert!(judge_with(&r, &plp).problems.is_empty());
    // 0 from a drive of unknown PLP may mean "no capacitors", not "failed".
    r.plp_health_ratio = Some(0.0);
    assert!(judge_with(&r, &unknown).problems.is_empty());
    assert_eq!(names(&judge_with(&r, &plp)), low);
}

#[test]
fn temperature_at_the_thresholds() {
    let cases = [
        (74.0, vec![]),
        (75.0, vec![("temperature_above_warning", Severity::Warning)]),
        (79.0, vec![("temperature_above_warning", Severity::Warning)]),
        (
            80.0,
            vec![("temperature_above_critical", Severity::Critical)],
        ),
    ];
    for (t, want) in cases {
        let mut r = healthy();
        r.temperatures = vec![("composite".into(), t), ("1".into(), 90.0)];
        assert_eq!(names(&judge(&r)), want, "{t} °C");
    }
    let mut r = healthy();
    r.temperatures = vec![("composite".into(), 75.0)];
    assert_eq!(
        judge(&r).problems[0].reason,
        "temperature (composite) 75 °C is at or above the drive's warning threshold of 75 °C"
    );
}

#[test]
fn static_media_errors_for_a_day_are_no_problem() {
    let mut r = healthy();
    r.counters.media_errors = Some(23);
    let day = vec![r; 25];
    let v = judge_series(&day, &up(), at(T0 + 24 * HOUR));
    assert_eq!(v.status, Severity::Ok, "{v:?}");
}

#[test]
fn media_errors_rising_while_watched_are_critical() {
    let mut a = healthy();
    a.counters.media_errors = Some(23);
    let mut b = a.clone();
    b.counters.media_errors = Some(24);
    let v = judge_series(&[a.clone(), a, b], &up(), at(T0 + 2 * HOUR));
    assert_eq!(names(&v), [("media_errors_increasing", Severity::Critical)]);
    assert_eq!(
        v.problems[0].reason,
        "media errors rose by 1 since 2026-12-01T00:00:00Z; data it stored could not be read"
    );
}

#[test]
fn unsafe_shutdowns_say_whether_plp_was_exercised() {
    let a = healthy();
    let mut b = a.clone();
    b.counters.unsafe_shutdowns = Some(5);
    let reason = |has_plp| {
        let ctx = Context { has_plp, ..up() };
        let v = judge_series(&[a.clone(), b.clone()], &ctx, at(T0 + HOUR));
        assert_eq!(
            names(&v),
            [("unsafe_shutdowns_increasing", Severity::Warning)]
        );
        v.problems[0].reason.clone()
    };
    assert_eq!(
        reason(Some(true)),
        "unsafe shutdowns rose by 2 since 2026-12-01T00:00:00Z; \
         this drive has power-loss protection, so its capacitors were used"
    );
    assert!(
        reason(Some(false)).ends_with("no power-loss protection, so data in its cache may be lost")
    );
    assert!(reason(None).contains("unknown for this model"));
}

#[test]
fn crc_errors_rising_warn_and_static_ones_do_not() {
    let mut a = healthy();
    a.counters.crc_errors = Some(7);
    let v = judge_series(&[a.clone(), a.clone()], &up(), at(T0 + HOUR));
    assert_eq!(v.status, Severity::Ok);
    let mut b = a.clone();
    b.counters.crc_errors = Some(9);
    let v = judge_series(&[a, b], &up(), at(T0 + HOUR));
    assert_eq!(names(&v), [("crc_errors_increasing", Severity::Warning)]);
}

#[test]
fn throttling_within_the_last_hour_warns() {
    let a = healthy();
    let mut b = a.clone();
    b.throttle_transitions = Some([1, 0]); // seen at T0 + 1 h
    let seen = T0 + HOUR;
    let v = judge_series(&[a.clone(), b.clone()], &up(), at(seen + 59 * MIN));
    assert_eq!(names(&v), [("thermal_throttling", Severity::Warning)]);
    assert_eq!(
        v.problems[0].reason,
        "the drive last throttled 59 min ago, at 2026-12-01T01:00:00Z"
    );
    let v = judge_series(&[a.clone(), b], &up(), at(seen + 61 * MIN));
    assert_eq!(v.status, Severity::Ok, "{v:?}");
    let mut now = a.clone();
    now.throttle_active = Some(true);
    assert_eq!(
        names(&judge(&now)),
        [("thermal_throttling", Severity::Warning)]
    );
}

#[test]
fn latency_above_qos_only_when_judged_and_exceeded() {
    let r = healthy();
    let h = History::new(None);
    let ctx = Context {
        latency_over_qos: vec![
            (ProbeOp::Read, 0.000_25, 0.000_2),
            (ProbeOp::Write, 0.000_3, 0.000_3),
        ],
        ..up()
    };
    let rules = Rules {
        latency_qos: false,
        ..Rules::default()
    };
    let off = evaluate(Some(&r), &h, &ctx, &rules, at(T0));
    assert!(off.problems.is_empty());
    let on = evaluate(Some(&r), &h, &ctx, &Rules::default(), at(T0));
    assert_eq!(names(&on), [("latency_above_qos", Severity::Warning)]);
    assert_eq!(
        on.problems[0].reason,
        "read latency 250 µs exceeds the datasheet QoS of 200 µs"
    );
}

#[test]
fn a_failing_poll_warns_and_keeps_the_last_values() {
    let r = healthy();
    let ctx = Context {
        up: false,
        polled: true,
        last_error: Some("read smart log of /dev/nvme0: timed out"),
        ..Context::default()
    };
    let v = judge_series(std::slice::from_ref(&r), &ctx, at(T0));
    assert_eq!(names(&v), [("poll_failing", Severity::Warning)]);
    assert!(v.problems[0].reason.contains("timed out"));
    // A drive hung from its first poll has no reading at all: the verdict
    // still says the poll fails, and that nothing was ever read.
    let v = evaluate(None, &History::new(None), &ctx, &Rules::default(), at(T0));
    let failing = v
        .problems
        .iter()
        .find(|p| p.name == ProblemName::PollFailing)
        .unwrap();
    assert!(
        failing.reason.ends_with("; no reading yet"),
        "{}",
        failing.reason
    );
    // Not polled yet is not a failing poll.
    let fresh = Context::default();
    let v = evaluate(None, &History::new(None), &fresh, &Rules::default(), at(T0));
    assert_eq!(names(&v), [("data_missing", Severity::Warning)]);
}

#[test]
fn no_reading_is_never_ok() {
    let v = evaluate(None, &History::new(None), &up(), &Rules::default(), at(T0));
    assert_eq!(v.status, Severity::Warning);
    assert_eq!(names(&v), [("data_missing", Severity::Warning)]);
    assert!(v.unknown.contains(&"wear") && v.unknown.contains(&"smart_status"));
}

#[test]
fn partial_data_lists_what_is_unknown() {
    let mut r = healthy();
    r.percentage_used_ratio = None;
    let v = judge(&r);
    assert_eq!(v.status, Severity::Ok);
    assert_eq!(v.unknown, ["wear"]);
    // Without SMART status or critical-warning bits nothing core is known.
    let bare = Reading {
        temperatures: vec![("composite".into(), 40.0)],
        ..Reading::default()
    };
    let v = judge(&bare);
    assert_eq!(names(&v), [("data_missing", Severity::Warning)]);
    assert_eq!(
        v.unknown,
        [
            "smart_status",
            "wear",
            "spare",
            "temperature",
            "media_errors",
            "unsafe_shutdowns",
            "throttling"
        ]
    );
}

#[test]
fn plp_drive_without_plp_data_lists_plp_unknown() {
    let mut r = healthy();
    r.critical_warning.clear();
    let ctx = Context {
        has_plp: Some(true),
        ..up()
    };
    let v = judge_series(std::slice::from_ref(&r), &ctx, at(T0));
    assert_eq!(v.unknown, ["plp"]);
}

#[test]
fn status_is_the_worst_and_problems_are_sorted() {
    let mut a = healthy();
    a.percentage_used_ratio = Some(0.85);
    a.temperatures = vec![("composite".into(), 81.0)];
    a.critical_warning.push((Condition::Temperature, true));
    a.smart_passed = Some(false);
    let v = judge(&a);
    assert_eq!(v.status, Severity::Critical);
    assert_eq!(
        names(&v),
        [
            ("temperature_above_critical", Severity::Critical),
            ("wear_high", Severity::Warning),
        ]
    );
}

#[test]
fn plp_is_known_from_the_datasheet_or_from_evidence() {
    use super::super::datasheet::{has_plp, rating_for};
    let sabrent = rating_for("Sabrent Rocket 4.0 2TB", None);
    let mut r = healthy();
    assert_eq!(has_plp(sabrent.as_ref(), Some(&r)), Some(false));
    assert_eq!(has_plp(None, Some(&r)), None);
    r.plp_health_ratio = Some(0.0);
    assert_eq!(has_plp(None, Some(&r)), None);
    r.plp_health_ratio = Some(0.97);
    assert_eq!(has_plp(None, Some(&r)), Some(true));
    let mut failed = healthy();
    failed
        .critical_warning
        .push((Condition::VolatileMemoryBackup, true));
    assert_eq!(has_plp(None, Some(&failed)), Some(true));
}

#[test]
fn a_failed_self_test_is_critical_an_aborted_one_is_not() {
    let mut r = healthy();
    r.self_test_last_result = Some("read_failure");
    assert_eq!(
        names(&judge(&r)),
        [("self_test_failed", Severity::Critical)]
    );
    r.self_test_last_result = Some("segments_failed");
    assert_eq!(judge(&r).status, Severity::Critical);
    for benign in [
        "passed",
        "aborted_by_host",
        "interrupted_by_reset",
        "aborted_by_command",
        "in_progress",
    ] {
        r.self_test_last_result = Some(benign);
        assert_eq!(judge(&r).status, Severity::Ok, "{benign}");
    }
}

#[test]
fn a_muted_problem_is_served_as_muted_and_leaves_the_status() {
    let mut r = healthy();
    r.percentage_used_ratio = Some(1.04); // wear_out, critical
    r.available_spare_ratio = Some(0.15); // ≤ 2 × 10 %: spare_low, warning
    let h = History::new(None);
    let plain = evaluate(Some(&r), &h, &up(), &Rules::default(), at(T0));
    assert_eq!(plain.status, Severity::Critical);
    let mute = Mutes::from_iter([ProblemName::WearOut]);
    let rules = Rules {
        mute,
        ..Rules::default()
    };
    let v = evaluate(Some(&r), &h, &up(), &rules, at(T0));
    assert_eq!(v.status, Severity::Warning, "{v:?}");
    let served: Vec<(&str, &str)> = v
        .problems
        .iter()
        .map(|p| (p.name.as_label(), p.severity_label()))
        .collect();
    // Still there, after the ones that count, keeping what it would be.
    assert_eq!(served, [("spare_low", "warning"), ("wear_out", MUTED)]);
    assert_eq!(v.problems[1].severity, Severity::Critical);
    // Muting everything leaves ok, with every problem still listed.
    let all = ProblemName::ALL.into_iter().collect();
    let v = evaluate(
        Some(&r),
        &h,
        &up(),
        &Rules {
            mute: all,
            ..Rules::default()
        },
        at(T0),
    );
    assert_eq!((v.status, v.problems.len()), (Severity::Ok, 2));
    // A mute of a problem the drive does not have changes nothing.
    let other = Mutes::from_iter([ProblemName::MediaErrorsIncreasing]);
    let v = evaluate(
        Some(&r),
        &h,
        &up(),
        &Rules {
            mute: other,
            ..Rules::default()
        },
        at(T0),
    );
    assert_eq!(v, plain);
}

#[test]
fn problem_names_are_unique_and_read_back() {
    let labels: std::collections::BTreeSet<&str> =
        ProblemName::ALL.iter().map(|p| p.as_label()).collect();
    assert_eq!(labels.len(), ProblemName::ALL.len());
    for p in ProblemName::ALL {
        assert_eq!(ProblemName::from_label(p.as_label()), Some(p));
    }
    assert_eq!(ProblemName::from_label("Wear_Out"), None);
    assert_eq!(ProblemName::from_label(MUTED), None);
}

#[test]
fn overall_status_is_unknown_without_core_data_unless_critical() {
    let missing = evaluate(None, &History::new(None), &up(), &Rules::default(), at(T0));
    assert_eq!(missing.overall(), Status::Unknown);
    assert_eq!(missing.overall() as u8, 3);
    assert_eq!(judge(&healthy()).overall(), Status::Ok);
    // Critical known data wins over the missing rest.
    let bare = Reading {
        smart_passed: None,
        percentage_used_ratio: Some(1.2),
        ..Reading::default()
    };
    let v = judge(&bare);
    assert!(
        v.problems
            .iter()
            .any(|p| p.name == ProblemName::DataMissing),
        "{v:?}"
    );
    assert_eq!(v.overall(), Status::Critical, "{v:?}");
    let mut warm = healthy();
    warm.percentage_used_ratio = Some(0.85);
    assert_eq!(judge(&warm).overall(), Status::Warning);
    // data_missing muted for the drive: the operator knows; not unknown.
    let rules = Rules {
        mute: Mutes::from_iter([ProblemName::DataMissing]),
        ..Rules::default()
    };
    let muted = evaluate(None, &History::new(None), &up(), &rules, at(T0));
    assert_eq!(muted.overall(), Status::Ok, "{muted:?}");
    let words: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        words,
        ["ok", "warning", "critical", "unknown", "not judged"]
    );
}
