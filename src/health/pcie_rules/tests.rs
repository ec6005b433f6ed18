//! The PCIe rules through the verdict: a degraded link warns, rising
//! uncorrectable AER counts warn (non-fatal) or are critical (fatal),
//! correctable ones and counts that were there before are no problem.

use std::time::{Duration, SystemTime};

use crate::device::sysfs::pcie::{AerCounts, AerSeverity, Link, Pcie};
use crate::health::history::History;
use crate::health::verdict::{Context, Rules, Severity, Verdict, evaluate};
use crate::reading::Reading;

const GT: u64 = 1_000_000_000;

fn reading(width: u16, aer: [u64; 3]) -> Reading {
    let aer = AerSeverity::ALL
        .into_iter()
        .zip(aer)
        .map(|(severity, total)| AerCounts {
            severity,
            total,
            nonzero: if total > 0 {
                vec![("CmpltTO".into(), total)]
            } else {
                Vec::new()
            },
        })
        .collect();
    Reading {
        smart_passed: Some(true),
        pcie: Some(Pcie {
            link: Link {
                current_speed: Some(16 * GT),
                max_speed: Some(16 * GT),
                current_width: Some(width),
                max_width: Some(4),
                port_max_speed: Some(16 * GT),
                port_max_width: Some(4),
            },
            aer,
        }),
        ..Reading::default()
    }
}

/// The verdict after polls of `readings`, a minute apart.
fn judged(readings: &[Reading]) -> Verdict {
    let mut history = History::new(None);
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let ctx = Context {
        up: true,
        polled: true,
        ..Context::default()
    };
    let mut last = None;
    for (i, r) in readings.iter().enumerate() {
        let now = t0 + Duration::from_secs(60 * i as u64);
        history.record(now, r);
        last = Some(evaluate(Some(r), &history, &ctx, &Rules::default(), now));
    }
    last.unwrap()
}

fn problem(v: &Verdict, name: &str) -> Option<(Severity, String)> {
    v.problems
        .iter()
        .find(|p| p.name.as_label() == name)
        .map(|p| (p.severity, p.reason.clone()))
}

#[test]
fn an_x4_link_trained_x2_is_degraded() {
    let v = judged(&[reading(2, [0, 0, 0])]);
    let (severity, reason) = problem(&v, "pcie_link_degraded").unwrap();
    assert_eq!(severity, Severity::Warning);
    assert!(
        reason.contains("16 GT/s x2, below the 16 GT/s x4"),
        "{reason}"
    );
    assert!(problem(&judged(&[reading(4, [0, 0, 0])]), "pcie_link_degraded").is_none());
}

#[test]
fn rising_uncorrectable_errors_warn_or_are_critical() {
    // Counts the drive came with are no problem, and correctable ones never.
    let quiet = judged(&[reading(4, [5, 2, 1]), reading(4, [9, 2, 1])]);
    assert!(
        problem(&quiet, "pcie_errors_increasing").is_none(),
        "{quiet:?}"
    );
    let nonfatal = judged(&[reading(4, [0, 2, 0]), reading(4, [0, 3, 0])]);
    let (severity, reason) = problem(&nonfatal, "pcie_errors_increasing").unwrap();
    assert_eq!(severity, Severity::Warning);
    assert!(
        reason.starts_with(
            "1 more nonfatal PCIe error(s) since 2027-01-15T08:00:00Z (since boot: CmpltTO 3)"
        ),
        "{reason}"
    );
    let fatal = judged(&[reading(4, [0, 2, 0]), reading(4, [0, 3, 1])]);
    let (severity, reason) = problem(&fatal, "pcie_errors_increasing").unwrap();
    assert_eq!(severity, Severity::Critical);
    assert!(reason.starts_with("1 more fatal PCIe error(s)"), "{reason}");
    assert!(reason.contains("; 1 more nonfatal"), "{reason}");
    assert_eq!(fatal.status, Severity::Critical);
}
