//! `health.overrides[].mute` items with a cause and an end, and the
//! entry's `until`. Instants are from `date -u -d … +%s`.

use std::time::{Duration, SystemTime};

use super::validate;
use crate::health::verdict::{Cause, Mute, ProblemName};

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

/// `date -u -d 2026-03-01 +%s`.
const MARCH_1: u64 = 1_772_323_200;
/// `date -u -d 2026-06-01T12:00:00Z +%s`.
const JUNE_1_NOON: u64 = 1_780_315_200;

fn mutes(yaml: &str) -> Vec<Mute> {
    let c = validate(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    c.health.overrides[0].tuning.rules.mute.0.clone()
}

fn entry(body: &str) -> String {
    format!("health:\n  overrides:\n    - serial: S1\n{body}")
}

#[test]
fn an_item_names_a_problem_a_cause_and_an_end() {
    let yaml = entry(
        "      until: 2026-03-01\n      mute:\n        - wear_high\n        - {problem: smart_failed, cause: 5, until: 2026-06-01T12:00:00Z}\n        - {problem: smart_failed, cause: \"0197\"}\n",
    );
    let m = mutes(&yaml);
    let got: Vec<_> = m
        .iter()
        .map(|m| (m.problem, m.cause, m.until, m.at.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            // The entry's until, for an item without its own.
            (
                ProblemName::WearHigh,
                None,
                Some(at(MARCH_1)),
                "health.overrides[0].mute[0]"
            ),
            (
                ProblemName::SmartFailed,
                Some(Cause::Attribute(5)),
                Some(at(JUNE_1_NOON)),
                "health.overrides[0].mute[1]"
            ),
            (
                ProblemName::SmartFailed,
                Some(Cause::Attribute(197)),
                Some(at(MARCH_1)),
                "health.overrides[0].mute[2]"
            ),
        ]
    );
    // Without any until: for ever.
    let m = mutes(&entry("      mute: [wear_high]\n"));
    assert_eq!(m[0].until, None);
}

/// One line, starting with the key, containing each of `what`.
fn rejects(body: &str, key: &str, what: &[&str]) {
    let yaml = entry(body);
    let e = validate(&yaml).unwrap_err();
    assert!(e.starts_with(&format!("{key}: ")), "{yaml:?} gave {e}");
    for w in what {
        assert!(e.contains(w), "{yaml:?} gave {e}, not {w}");
    }
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn bad_items_are_named_with_what_is_accepted() {
    rejects(
        "      until: 2026-02-29\n      mute: [wear_high]\n",
        "health.overrides[0].until",
        &["\"2026-02-29\"", "YYYY-MM-DD"],
    );
    rejects(
        "      mute: [{problem: wear_high, until: next week}]\n",
        "health.overrides[0].mute[0].until",
        &["\"next week\"", "YYYY-MM-DDTHH:MM:SSZ"],
    );
    rejects(
        "      mute: [{problem: smart_failed, cause: 0}]\n",
        "health.overrides[0].mute[0].cause",
        &["\"0\"", "1 to 255"],
    );
    rejects(
        "      mute: [{problem: smart_failed, cause: 256}]\n",
        "health.overrides[0].mute[0].cause",
        &["\"256\"", "1 to 255"],
    );
    // A problem of one cause takes none, and the error says which do.
    rejects(
        "      mute: [{problem: wear_high, cause: 5}]\n",
        "health.overrides[0].mute[0].cause",
        &[
            "wear_high has one cause",
            "smart_failed (an ATA attribute ID",
        ],
    );
    rejects(
        "      mute: [{cause: 5}]\n",
        "health.overrides[0].mute[0]",
        &["names no problem", "smart_failed"],
    );
    rejects(
        "      mute: [{problem: smartfailed, cause: 5}]\n",
        "health.overrides[0].mute[0].problem",
        &["\"smartfailed\"", "smart_failed"],
    );
}

#[test]
fn an_unknown_key_of_an_item_is_refused() {
    let e = validate(&entry(
        "      mute: [{problem: smart_failed, attribute: 5}]\n",
    ))
    .unwrap_err();
    assert!(
        e.contains("health.overrides[0].mute[0]: unknown key `attribute`"),
        "{e}"
    );
    assert!(e.contains("`problem`, `cause`, `until`"), "{e}");
}

#[test]
fn only_a_device_match_is_marked_for_the_warning() {
    let yaml = "health:\n  overrides:\n    - device: '^sda$'\n      mute: [wear_high]\n    - device: '^sdb$'\n      serial: S2\n      mute: [wear_high]\n";
    let c = validate(yaml).unwrap();
    let by: Vec<bool> = (c.health.overrides.iter())
        .map(|o| o.tuning.by_device_only)
        .collect();
    assert_eq!(by, [true, false]);
}
