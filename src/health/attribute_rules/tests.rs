//! The attribute check against smartctl's own judgements: attribute rows of
//! real `smartctl` outputs posted in public, each with the `WHEN_FAILED`
//! column smartctl printed for it (`FAILING_NOW`, `In_the_past` or `-`),
//! and what the verdict makes of them. The rows are copied as printed
//! (id, flag, value, worst, threshold); nothing here comes from the code.

use crate::ata::attributes::Namer;
use crate::ata::smart::SmartStatus;
use crate::health::verdict::{Cause, Context, Severity, judge_up};
use crate::reading::Reading;
use crate::reading::sata::tests::table;
use crate::reading::sata::{SataPages, reading};

#[derive(Clone, Copy, Debug, PartialEq)]
enum WhenFailed {
    Now,
    Past,
    Never,
}
use WhenFailed::{Never, Now, Past};

/// `(id, flag, value, worst, threshold, WHEN_FAILED)` as smartctl printed them.
type Row = (u8, u16, u8, u8, u8, WhenFailed);

/// Public outputs, each a `smartctl -a`/`-A` table as posted, and the
/// overall status smartctl printed with it (`None`: `-A` prints none; the
/// check is made as for a drive that passed).
const OUTPUTS: &[(&str, Option<SmartStatus>, &[Row])] = &[
    (
        // WDC WD40EFRX, `smartctl -A` in the blog post "Investigating ZFS
        // CKSUM errors" (rows up to 193 as posted).
        "WD40EFRX, ZFS CKSUM errors blog post",
        None,
        &[
            (1, 0x002f, 1, 1, 51, Now),
            (3, 0x0027, 178, 164, 21, Never),
            (4, 0x0032, 100, 100, 0, Never),
            (5, 0x0033, 200, 200, 140, Never),
            (7, 0x002e, 200, 200, 0, Never),
            (9, 0x0032, 54, 54, 0, Never),
            (10, 0x0032, 100, 253, 0, Never),
            (11, 0x0032, 100, 253, 0, Never),
            (12, 0x0032, 100, 100, 0, Never),
            (192, 0x0032, 200, 200, 0, Never),
        ],
    ),
    (
        // ubuntuforums.org, "boot error 14.10 with lenovo z510", post of
        // 2015-04-13 (the whole table).
        "Lenovo Z510 disk, ubuntuforums 2015-04-13",
        None,
        &[
            (1, 0x000f, 120, 91, 6, Never),
            (3, 0x0003, 98, 98, 0, Never),
            (4, 0x0032, 99, 99, 20, Never),
            (5, 0x0033, 100, 100, 10, Never),
            (7, 0x000f, 75, 60, 30, Never),
            (9, 0x0032, 98, 98, 0, Never),
            (10, 0x0013, 100, 100, 97, Never),
            (12, 0x0032, 99, 99, 20, Never),
            (184, 0x0032, 91, 91, 99, Now),
            (187, 0x0032, 12, 12, 0, Never),
            (188, 0x0032, 100, 99, 0, Never),
            (189, 0x003a, 54, 54, 0, Never),
            (190, 0x0022, 62, 54, 45, Never),
            (191, 0x0032, 100, 100, 0, Never),
            (192, 0x0032, 100, 100, 0, Never),
            (193, 0x0032, 96, 96, 0, Never),
            (194, 0x0022, 38, 46, 0, Never),
            (197, 0x0012, 100, 100, 0, Never),
            (198, 0x0010, 100, 100, 0, Never),
            (199, 0x003e, 200, 200, 0, Never),
            (254, 0x0032, 100, 100, 0, Never),
        ],
    ),
    (
        // ubuntuforums.org thread of 2008-03-04: WDC WD2000JS-22MHB0,
        // smartctl 5.37, "PASSED / See vendor-specific Attribute list for
        // marginal Attributes" (the whole table).
        "WDC WD2000JS-22MHB0, ubuntuforums 2008-03-04",
        Some(SmartStatus::Passed),
        &[
            (1, 0x000f, 200, 200, 51, Never),
            (3, 0x0003, 185, 181, 21, Never),
            (4, 0x0032, 98, 98, 0, Never),
            (5, 0x0033, 200, 200, 140, Never),
            (7, 0x000f, 200, 200, 51, Never),
            (9, 0x0032, 92, 92, 0, Never),
            (10, 0x0013, 100, 100, 51, Never),
            (11, 0x0012, 100, 253, 51, Never),
            (12, 0x0032, 100, 100, 0, Never),
            (190, 0x0022, 41, 25, 45, Now),
            (194, 0x0022, 91, 75, 0, Never),
            (196, 0x0032, 200, 200, 0, Never),
            (197, 0x0012, 200, 198, 0, Never),
            (198, 0x0010, 200, 198, 0, Never),
            (199, 0x003e, 200, 200, 0, Never),
            (200, 0x0009, 200, 200, 51, Never),
        ],
    ),
    (
        // ubuntuforums.org, Seagate ST3000DM001-1E6166, smartctl 6.2, run of
        // 2016-06-14 "after the crash": "PASSED / See vendor-specific
        // Attribute list for marginal Attributes"; 190 was below its
        // threshold once and is above it now (the whole table).
        "ST3000DM001-1E6166, ubuntuforums 2016-06-14",
        Some(SmartStatus::Passed),
        &[
            (1, 0x000f, 119, 99, 6, Never),
            (3, 0x0003, 92, 91, 0, Never),
            (4, 0x0032, 99, 99, 20, Never),
            (5, 0x0033, 100, 100, 10, Never),
            (7, 0x000f, 54, 51, 30, Never),
            (9, 0x0032, 89, 89, 0, Never),
            (10, 0x0013, 100, 100, 97, Never),
            (12, 0x0032, 99, 99, 20, Never),
            (183, 0x0032, 99, 99, 0, Never),
            (184, 0x0032, 100, 100, 99, Never),
            (187, 0x0032, 100, 100, 0, Never),
            (188, 0x0032, 100, 100, 0, Never),
            (189, 0x003a, 96, 96, 0, Never),
            (190, 0x0022, 64, 38, 45, Past),
            (191, 0x0032, 100, 100, 0, Never),
            (192, 0x0032, 100, 100, 0, Never),
            (193, 0x0032, 95, 95, 0, Never),
            (194, 0x0022, 36, 62, 0, Never),
            (197, 0x0012, 100, 100, 0, Never),
            (198, 0x0010, 100, 100, 0, Never),
            (199, 0x003e, 200, 200, 0, Never),
            (240, 0x0000, 100, 253, 0, Never),
            (241, 0x0000, 100, 253, 0, Never),
            (242, 0x0000, 100, 253, 0, Never),
        ],
    ),
    (
        // A MacBook's SSD, blog post "Scheduled SMART Checks" (2021-03-10):
        // "smartctl is reporting PASSED, but one attribute is failing" (the
        // one row posted).
        "MacBook SSD, blog post 2021-03-10",
        Some(SmartStatus::Passed),
        &[(173, 0x0032, 96, 96, 100, Now)],
    ),
];

fn judged(rows: &[Row], status: Option<SmartStatus>) -> Reading {
    let spec: Vec<(u8, u16, u8, u8, u8)> = rows
        .iter()
        .map(|&(id, flags, value, worst, t, _)| (id, flags, value, worst, t))
        .collect();
    let (data, thresholds) = table(&spec);
    let pages = SataPages {
        smart: Some(data),
        thresholds: Some(thresholds),
        status: status.or(Some(SmartStatus::Passed)),
        ..SataPages::default()
    };
    reading(&pages, &Namer::builtin().for_drive("", ""))
}

#[test]
fn every_row_is_failing_now_exactly_where_smartctl_printed_failing_now() {
    for &(source, status, rows) in OUTPUTS {
        let r = judged(rows, status);
        let got: Vec<u8> = r.failing_attributes.unwrap().iter().map(|a| a.id).collect();
        let want: Vec<u8> = rows
            .iter()
            .filter(|row| row.5 == Now)
            .map(|row| row.0)
            .collect();
        assert_eq!(got, want, "{source}");
    }
}

/// Each `FAILING_NOW` row is a problem named after its kind: critical for a
/// pre-failure attribute, a warning for an old-age one, the attribute in
/// the reason and as the cause; an `In_the_past` row is none.
#[test]
fn the_verdict_names_each_failing_attribute_by_its_kind() {
    for &(source, status, rows) in OUTPUTS {
        let v = judge_up(&judged(rows, status), Context::default());
        for &(id, flags, value, _, threshold, when) in rows {
            let prefail = flags & 1 != 0;
            let (name, severity) = match prefail {
                true => ("attribute_failing_prefail", Severity::Critical),
                false => ("attribute_failing_old_age", Severity::Warning),
            };
            let p = v.problems.iter().find(|p| p.name.as_label() == name);
            let about = p.filter(|p| p.causes.contains(&Cause::Attribute(id)));
            match when {
                Now => {
                    let p = about.unwrap_or_else(|| panic!("{source}: {id}: {:?}", v.problems));
                    assert_eq!(p.severity, severity, "{source}: {id}");
                    let text = format!("{id} ");
                    let numbers = format!("at {value}, threshold {threshold}");
                    assert!(
                        p.reason.contains(&text) && p.reason.contains(&numbers),
                        "{p:?}"
                    );
                }
                Past | Never => assert!(about.is_none(), "{source}: {id}: {p:?}"),
            }
        }
    }
}

/// The drive answered "passed" while an attribute failed: the reason says
/// so, and `ssd_smart_passed` stays what the drive answered.
#[test]
fn a_passed_status_with_a_failing_attribute_says_both() {
    let rows = &OUTPUTS[2].2;
    let r = judged(rows, Some(SmartStatus::Passed));
    assert_eq!(r.smart_passed, Some(true));
    let v = judge_up(&r, Context::default());
    let p = &v.problems[0];
    assert_eq!(p.name.as_label(), "attribute_failing_old_age");
    assert!(
        p.reason
            .starts_with("the drive reports SMART passed, but old-age attribute 190 "),
        "{}",
        p.reason
    );
    assert!(
        !v.problems
            .iter()
            .any(|p| p.name.as_label() == "smart_failed")
    );
    // Failed, the same attribute is named without the "but".
    let failed = judged(rows, Some(SmartStatus::Failed));
    let v = judge_up(&failed, Context::default());
    let p = v
        .problems
        .iter()
        .find(|p| p.causes == [Cause::Attribute(190)]);
    assert!(
        p.is_some_and(|p| p.reason.starts_with("old-age attribute 190 ")),
        "{v:?}"
    );
}

/// A drive with attributes but no thresholds cannot be judged by them:
/// listed as unknown, never shown as passing the check.
#[test]
fn attributes_without_thresholds_are_unknown() {
    let (data, _) = table(&[(5, 0x0033, 1, 1, 10)]);
    let pages = SataPages {
        smart: Some(data),
        status: Some(SmartStatus::Passed),
        ..SataPages::default()
    };
    let r = reading(&pages, &Namer::builtin().for_drive("", ""));
    assert_eq!(r.failing_attributes, None);
    let v = judge_up(&r, Context::default());
    assert!(v.unknown.contains(&"attributes"), "{:?}", v.unknown);
    assert!(v.problems.iter().all(|p| p.causes.is_empty()), "{v:?}");
}

/// At its threshold is failing: smartmontools' `ata_get_attr_state`
/// (`lib/atacmds.cpp`) returns `ATTRSTATE_FAILED_NOW` for `current <=
/// threshold`; none of the public tables above has a value equal to its
/// threshold, so this row is made after that line.
#[test]
fn a_value_at_its_threshold_is_failing_now() {
    let rows = [
        (231, 0x0033, 10, 10, 10, Now),
        (5, 0x0033, 11, 10, 10, Past),
    ];
    let r = judged(&rows, Some(SmartStatus::Passed));
    let got: Vec<u8> = r.failing_attributes.unwrap().iter().map(|a| a.id).collect();
    assert_eq!(got, vec![231]);
}
