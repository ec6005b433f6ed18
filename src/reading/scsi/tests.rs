//! The mapping and the judgements of issue 21, from pages written out by
//! hand; each expected verdict is SPC-5's or smartmontools' rule (named at
//! the test).

use super::*;
use crate::health::verdict::Severity;

fn counters(corrected: u128, bytes: u128, uncorrected: u128) -> Option<ErrorCounters> {
    Some(ErrorCounters {
        corrected: Some(corrected),
        bytes_processed: Some(bytes),
        uncorrected: Some(uncorrected),
    })
}

fn ie(asc: u8, ascq: u8) -> InformationalException {
    InformationalException {
        asc,
        ascq,
        temperature_celsius: None,
        threshold_celsius: None,
    }
}

fn test(result: u8, hours: u16) -> SelfTest {
    SelfTest {
        code: 2,
        result,
        segment: 0,
        power_on_hours: hours,
    }
}

fn sas_phy(phy: u8, n: u32, rate: u8) -> SasPhy {
    SasPhy {
        port: 1,
        phy,
        invalid_dwords: n,
        running_disparity_errors: n,
        loss_of_dword_sync: n,
        phy_reset_problems: n,
        negotiated_rate: rate,
    }
}

/// Every mapping of metrics.md's "SAS / SCSI" section, by hand.
#[test]
fn pages_map_onto_the_unified_reading() {
    let pages = ScsiPages {
        // read, write, verify
        errors: [counters(10, 4_000_000, 2), counters(20, 9_000_000, 3), None],
        temperature: Some(Temperature {
            current_celsius: Some(36),
            reference_celsius: Some(70),
        }),
        percentage_used: Some(7),
        power_on_minutes: Some(1_000),
        informational_exception: Some(InformationalException {
            temperature_celsius: Some(35),
            threshold_celsius: Some(68),
            ..ie(0, 0)
        }),
        self_test: Some(vec![test(0, 16)]),
        start_stop: Some(StartStop {
            start_stop_cycles: Some(9),
            load_unload_cycles: Some(1_234),
        }),
        ..ScsiPages::default()
    };
    let r = reading(&pages);
    assert_eq!(r.temperatures, [("composite".to_string(), 36.0)]);
    // SPC-5: the reference temperature is the highest the drive runs at
    // continuously (smartctl's "Drive Trip Temperature"): the warning
    // level; 0Dh present, so 2Fh's threshold byte is not used.
    assert_eq!(r.temperature_warning_celsius, Some(70.0));
    assert_eq!(r.temperature_critical_celsius, None);
    assert_eq!(r.percentage_used_ratio, Some(0.07));
    assert_eq!(r.counters.power_on_seconds, Some(60_000));
    assert_eq!(r.counters.host_read_bytes, Some(4_000_000));
    assert_eq!(r.counters.host_written_bytes, Some(9_000_000));
    // 2 (read) + 3 (write); verify absent.
    assert_eq!(r.counters.media_errors, Some(5));
    assert_eq!(r.smart_passed, Some(true));
    assert_eq!(r.self_test_last_result, Some("passed"));
    let s = r.scsi.unwrap();
    assert_eq!(
        s.errors_corrected,
        [(ScsiOp::Read, 10), (ScsiOp::Write, 20)]
    );
    assert_eq!(s.informational_exception, None);
    assert_eq!(
        (s.start_stop_cycles, s.load_unload_cycles),
        (Some(9), Some(1_234))
    );
}

#[test]
fn without_log_0dh_2fh_gives_the_temperature_and_its_threshold() {
    let pages = ScsiPages {
        informational_exception: Some(InformationalException {
            temperature_celsius: Some(41),
            threshold_celsius: Some(65),
            ..ie(0x5D, 0x10)
        }),
        ..ScsiPages::default()
    };
    let r = reading(&pages);
    assert_eq!(r.counters.media_errors, None);
    assert_eq!(r.temperatures, [("composite".to_string(), 41.0)]);
    // smartctl `scsiCheckIE`: the IBM extension byte without a 0Dh page.
    assert_eq!(r.temperature_warning_celsius, Some(65.0));
    assert_eq!(r.smart_passed, Some(false));
    assert_eq!(
        r.scsi
            .unwrap()
            .informational_exception
            .map(|e| (e.asc, e.ascq)),
        Some((0x5D, 0x10))
    );
    // A 0Dh page without a reference: no threshold at all (not 2Fh's).
    let pages = ScsiPages {
        temperature: Some(Temperature {
            current_celsius: Some(30),
            reference_celsius: None,
        }),
        ..pages
    };
    assert_eq!(reading(&pages).temperature_warning_celsius, None);
}

/// Two readings of a SCSI drive an hour apart, judged after the second.
fn judge_two(first: &ScsiPages, second: &ScsiPages) -> Vec<(&'static str, Severity, String)> {
    use crate::health::history::History;
    use crate::health::verdict::{Context, Rules, evaluate};
    use std::time::{Duration, SystemTime};
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    let mut h = History::new(None);
    let (a, b) = (reading(first), reading(second));
    h.record(t0, &a);
    h.record(t0 + Duration::from_secs(3600), &b);
    let ctx = Context {
        up: true,
        polled: true,
        ..Context::default()
    };
    let now = t0 + Duration::from_secs(3600);
    let v = evaluate(Some(&b), &h, &ctx, &Rules::default(), now);
    v.problems
        .iter()
        .map(|p| (p.name.as_label(), p.severity, p.reason.clone()))
        .collect()
}

fn judge(pages: &ScsiPages) -> Vec<(&'static str, Severity, String)> {
    judge_two(pages, pages)
}

fn names(p: Vec<(&'static str, Severity, String)>) -> Vec<&'static str> {
    p.into_iter().map(|(n, _, _)| n).collect()
}

fn ok_pages(defects: u32, uncorrected_read: u128) -> ScsiPages {
    ScsiPages {
        errors: [counters(0, 0, uncorrected_read), counters(0, 0, 0), None],
        temperature: Some(Temperature {
            current_celsius: Some(30),
            reference_celsius: Some(70),
        }),
        percentage_used: Some(1),
        informational_exception: Some(ie(0, 0)),
        grown_defects: Some(defects),
        ..ScsiPages::default()
    }
}

/// Issue 15: growing defects and uncorrected errors rising are
/// problems; the same counts standing still are not.
#[test]
fn rising_defects_and_uncorrected_errors_are_problems_static_ones_not() {
    assert!(judge(&ok_pages(12, 3)).is_empty());
    let grown = judge_two(&ok_pages(12, 3), &ok_pages(14, 3));
    assert_eq!(grown.len(), 1);
    assert_eq!(grown[0].0, "grown_defects_increasing");
    assert_eq!(
        grown[0].2,
        "grown defects rose by 2 since 2026-12-01T00:00:00Z; the drive retired more of its media; watch for uncorrected errors"
    );
    // An uncorrected read error: media errors (the sum of 0006h) rise.
    assert_eq!(
        names(judge_two(&ok_pages(12, 3), &ok_pages(12, 4))),
        ["media_errors_increasing"]
    );
}

/// Point 1: at the reference temperature a warning, never critical.
#[test]
fn the_reference_temperature_is_a_warning_threshold() {
    let mut hot = ok_pages(12, 3);
    hot.temperature = Some(Temperature {
        current_celsius: Some(70),
        reference_celsius: Some(70),
    });
    let p = judge(&hot);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        (p[0].0, p[0].1),
        ("temperature_above_warning", Severity::Warning)
    );
    assert_eq!(
        p[0].2,
        "temperature (composite) 70 °C is at or above the drive's warning threshold of 70 °C"
    );
    hot.temperature = Some(Temperature {
        current_celsius: Some(69),
        reference_celsius: Some(70),
    });
    assert!(judge(&hot).is_empty());
}

/// Point 2: 5Dh fails the drive, 0Bh warns, 5Dh/FFh and other codes are
/// nothing (SPC-5's informational exception codes; smartmontools'
/// `scsiGetIEString`).
#[test]
fn only_a_failure_prediction_fails_and_a_warning_warns() {
    let with = |asc, ascq| {
        let mut p = ok_pages(12, 3);
        p.informational_exception = Some(ie(asc, ascq));
        judge(&p)
    };
    let p = with(0x5D, 0x00);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), ("smart_failed", Severity::Critical));
    assert_eq!(
        p[0].2,
        "the drive reports an informational exception (asc 5dh, ascq 00h: failure prediction threshold exceeded)"
    );
    let p = with(0x0B, 0x01);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        (p[0].0, p[0].1),
        ("drive_reported_warning", Severity::Warning)
    );
    assert_eq!(
        p[0].2,
        "the drive reports an informational exception warning (asc 0bh, ascq 01h: warning - specified temperature exceeded)"
    );
    assert!(with(0x5D, 0xFF).is_empty(), "the TEST bit's false report");
    assert!(
        with(0x11, 0x00).is_empty(),
        "not an informational exception"
    );
}

/// Point 3: an entry in progress or aborted does not hide an older failure.
#[test]
fn the_newest_self_test_with_an_outcome_is_judged() {
    let with = |tests: Vec<SelfTest>| {
        let mut p = ok_pages(12, 3);
        p.self_test = Some(tests);
        (reading(&p).self_test_last_result, judge(&p))
    };
    let (last, p) = with(vec![
        test(0xF, 0),
        test(1, 30_200),
        test(7, 30_100),
        test(0, 29_000),
    ]);
    assert_eq!(
        last,
        Some("in_progress"),
        "the newest entry is served as such"
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), ("self_test_failed", Severity::Critical));
    assert_eq!(
        p[0].2,
        "the newest completed device self-test (at 30100 power-on hours) failed: segments failed; newer: in progress, aborted by host"
    );
    // A newer pass clears it; only aborted entries judge nothing.
    assert!(with(vec![test(0, 30_300), test(7, 30_100)]).1.is_empty());
    assert!(with(vec![test(2, 30_300), test(1, 30_200)]).1.is_empty());
    let (_, p) = with(vec![test(3, 5)]);
    assert_eq!(p[0].2, "the newest device self-test failed: fatal error");
}

/// Point 6: phy errors rising while watched warn; standing still they do not.
#[test]
fn rising_phy_errors_warn() {
    let with = |counts: [u32; 2]| {
        let mut p = ok_pages(12, 3);
        p.sas_phys = Some(vec![sas_phy(0, counts[0], 0xB), sas_phy(1, counts[1], 0xB)]);
        p
    };
    assert!(
        judge(&with([3, 0])).is_empty(),
        "a static count is no problem"
    );
    let p = judge_two(&with([3, 0]), &with([3, 1]));
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        (p[0].0, p[0].1),
        ("phy_errors_increasing", Severity::Warning)
    );
    // phy 1: all four kinds rose by 1.
    assert_eq!(
        p[0].2,
        "SAS phy errors rose by 4 since 2026-12-01T00:00:00Z; the link, not the media: check the cable, backplane, expander or HBA port"
    );
}

#[test]
fn sas_from_the_hint_vpd_83_or_page_18() {
    let mut pages = ScsiPages::default();
    assert_eq!(pages.transport(Transport::Scsi), Transport::Scsi);
    assert_eq!(pages.transport(Transport::Sas), Transport::Sas);
    pages.protocols = vec![PROTOCOL_SAS];
    assert_eq!(pages.transport(Transport::Scsi), Transport::Sas);
    pages.protocols = vec![0]; // Fibre Channel
    assert_eq!(pages.transport(Transport::Scsi), Transport::Scsi);
    pages.sas_phys = Some(vec![sas_phy(0, 0, 0)]);
    assert_eq!(pages.transport(Transport::Scsi), Transport::Sas);
}

#[test]
fn identity_is_vendor_and_product_and_a_repeated_phy_is_one_series() {
    let pages = ScsiPages {
        inquiry: Some(Inquiry {
            peripheral_qualifier: 0,
            peripheral_type: 0,
            vendor: "SEAGATE".into(),
            product: "XS800ME70084".into(),
            revision: "0003".into(),
        }),
        capacity: Some(ReadCapacity16 {
            last_lba: 1_562_824_367,
            block_len: 512,
        }),
        ..ScsiPages::default()
    };
    let id = identity(&pages, Transport::Sas, Kind::Virtual).unwrap();
    assert_eq!(
        (id.model.as_str(), id.firmware.as_str(), id.kind),
        ("SEAGATE XS800ME70084", "0003", Kind::Virtual)
    );
    // (1 562 824 367 + 1) × 512
    assert_eq!(id.capacity_bytes, Some(800_166_076_416));
    let out = phy_errors(&[sas_phy(0, 1, 0), sas_phy(1, 2, 0), sas_phy(0, 3, 0)]);
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].phy.as_str(), out[0].counts), ("0", [1; 4]));
}

/// The link rate: log 18h's phys when the drive has the page (a phy not up
/// at a rate has none), else what sysfs shows.
#[test]
fn link_rates_from_log_18h_else_sysfs() {
    let sysfs = [(0u8, 3_000_000_000u64)];
    let phys = [sas_phy(0, 0, 0xB), sas_phy(1, 0, 0x1)];
    assert_eq!(
        link_rates(&phys, &sysfs),
        [("0".to_string(), 12_000_000_000)]
    );
    assert_eq!(link_rates(&[], &sysfs), [("0".to_string(), 3_000_000_000)]);
    assert_eq!(link_rates(&[], &[]), []);
}
