//! Issue 33 part 4: a mute that names the cause it hides, and one that
//! ends. Two pre-failure attributes at or below their thresholds (smartctl
//! prints such an attribute `FAILING_NOW`: normalized value <= threshold,
//! threshold non-zero) make one `smart_failed` with two causes.

use std::time::{Duration, SystemTime};

use super::*;
use crate::reading::FailingAttribute;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn failing(id: u8, name: &str, value: u8, threshold: u8) -> FailingAttribute {
    FailingAttribute {
        id,
        name: name.into(),
        value,
        threshold,
        prefailure: true,
    }
}

/// A SATA drive whose status comes from its attributes: 5 and 184 failing.
fn two_failing() -> Reading {
    Reading {
        temperatures: vec![("composite".into(), 35.0)],
        smart_passed: Some(false),
        smart_passed_from_attributes: true,
        failing_attributes: Some(vec![
            failing(5, "Reallocated_Sector_Ct", 1, 10),
            failing(184, "End-to-End_Error", 90, 97),
        ]),
        ..Reading::default()
    }
}

fn ctx() -> Context<'static> {
    Context {
        up: true,
        polled: true,
        ..Context::default()
    }
}

fn mute(cause: Option<Cause>, until: Option<u64>) -> Mute {
    Mute {
        problem: ProblemName::SmartFailed,
        cause,
        until: until.map(at),
        at: "health.overrides[0].mute[0]".into(),
    }
}

/// The verdict with `mutes`, each given for `smart_failed` and, as an
/// operator would, for `attribute_failing_prefail` too: the attribute check
/// raises that for the same attributes on every poll.
fn judge(r: &Reading, mutes: Vec<Mute>, now: u64) -> Verdict {
    let mutes = mutes
        .into_iter()
        .flat_map(|m| {
            let attribute = Mute {
                problem: ProblemName::AttributeFailingPrefail,
                ..m.clone()
            };
            [m, attribute]
        })
        .collect();
    let rules = Rules {
        mute: Mutes(mutes),
        ..Rules::default()
    };
    evaluate(Some(r), &History::new(None), &ctx(), &rules, at(now))
}

fn smart_failed(v: &Verdict) -> &Problem {
    (v.problems.iter())
        .find(|p| p.name == ProblemName::SmartFailed)
        .expect("smart_failed raised")
}

#[test]
fn each_failing_attribute_is_a_cause() {
    let v = judge(&two_failing(), vec![], T0);
    let p = smart_failed(&v);
    assert_eq!(p.causes, [Cause::Attribute(5), Cause::Attribute(184)]);
    assert!(!p.muted);
    assert_eq!(v.status, Severity::Critical);
}

#[test]
fn muting_one_attribute_leaves_a_new_failing_one_raised() {
    let v = judge(
        &two_failing(),
        vec![mute(Some(Cause::Attribute(5)), None)],
        T0,
    );
    let p = smart_failed(&v);
    assert!(!p.muted, "attribute 184 is not muted: {p:?}");
    assert_eq!(v.status, Severity::Critical);
    assert!(
        p.reason
            .ends_with("; muted: attribute 5, not muted: attribute 184"),
        "{}",
        p.reason
    );
    // Only the known-bad one failing: muted, the drive is ok.
    let mut only_5 = two_failing();
    only_5.failing_attributes = Some(vec![failing(5, "Reallocated_Sector_Ct", 1, 10)]);
    let v = judge(&only_5, vec![mute(Some(Cause::Attribute(5)), None)], T0);
    assert!(smart_failed(&v).muted);
    assert_eq!(v.status, Severity::Ok);
    // A mute of each cause is a mute of the problem.
    let both = vec![
        mute(Some(Cause::Attribute(5)), None),
        mute(Some(Cause::Attribute(184)), None),
    ];
    assert!(smart_failed(&judge(&two_failing(), both, T0)).muted);
}

#[test]
fn a_cause_mute_never_hides_the_drives_own_failed_status() {
    // SMART RETURN STATUS "failed" (no attribute named): no cause to mute.
    let own = Reading {
        failing_attributes: None,
        smart_passed_from_attributes: false,
        ..two_failing()
    };
    let v = judge(&own, vec![mute(Some(Cause::Attribute(5)), None)], T0);
    assert!(!smart_failed(&v).muted);
    assert_eq!(v.status, Severity::Critical);
}

#[test]
fn a_mute_ends_at_its_until() {
    let whole = || vec![mute(None, Some(T0 + 3600))];
    let before = judge(&two_failing(), whole(), T0 + 3599);
    assert!(smart_failed(&before).muted);
    assert_eq!(before.status, Severity::Ok);
    // At its end and after, the problem counts again.
    for now in [T0 + 3600, T0 + 86_400] {
        let v = judge(&two_failing(), whole(), now);
        assert!(!smart_failed(&v).muted, "at {now}");
        assert_eq!(v.status, Severity::Critical);
    }
}

#[test]
fn the_soonest_end_in_force_is_served_per_problem() {
    let m = Mutes(vec![
        mute(Some(Cause::Attribute(5)), Some(T0 + 7200)),
        mute(Some(Cause::Attribute(184)), Some(T0 + 3600)),
        Mute {
            until: None,
            ..Mute::of(ProblemName::WearHigh)
        },
    ]);
    assert_eq!(
        m.expiries(at(T0)),
        [(ProblemName::SmartFailed, at(T0 + 3600))]
    );
    // The first ended: the other's end is served; it is listed as ended.
    assert_eq!(
        m.expiries(at(T0 + 3600)),
        [(ProblemName::SmartFailed, at(T0 + 7200))]
    );
    let ended: Vec<Option<Cause>> = m.ended(at(T0 + 3600)).map(|m| m.cause).collect();
    assert_eq!(ended, [Some(Cause::Attribute(184))]);
    assert!(m.expiries(at(T0 + 7200)).is_empty());
}
