use super::*;

fn counters(corrected: u128, bytes: u128, uncorrected: u128) -> Option<ErrorCounters> {
    Some(ErrorCounters {
        corrected: Some(corrected),
        bytes_processed: Some(bytes),
        uncorrected: Some(uncorrected),
    })
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
            asc: 0,
            ascq: 0,
            temperature_celsius: Some(35),
        }),
        self_test: Some(Some(SelfTest {
            code: 1,
            result: 0,
            segment: 0,
            power_on_hours: 16,
        })),
        ..ScsiPages::default()
    };
    let r = reading(&pages);
    assert_eq!(r.temperatures, [("composite".to_string(), 36.0)]);
    assert_eq!(r.temperature_critical_celsius, Some(70.0));
    assert_eq!(r.temperature_warning_celsius, None);
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
}

#[test]
fn no_error_pages_is_no_media_error_series_and_ie_temperature_is_the_fallback() {
    let pages = ScsiPages {
        informational_exception: Some(InformationalException {
            asc: 0x5D,
            ascq: 0x10,
            temperature_celsius: Some(41),
        }),
        ..ScsiPages::default()
    };
    let r = reading(&pages);
    assert_eq!(r.counters.media_errors, None);
    assert_eq!(r.temperatures, [("composite".to_string(), 41.0)]);
    assert_eq!(r.smart_passed, Some(false));
    assert_eq!(r.scsi.unwrap().informational_exception, Some((0x5D, 0x10)));
}

/// Two readings of a SCSI drive an hour apart, judged after the second.
fn judge_two(first: &ScsiPages, second: &ScsiPages) -> Vec<(&'static str, String)> {
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
        .map(|p| (p.name.as_label(), p.reason.clone()))
        .collect()
}

fn ok_pages(defects: u32, uncorrected_read: u128) -> ScsiPages {
    ScsiPages {
        errors: [counters(0, 0, uncorrected_read), counters(0, 0, 0), None],
        temperature: Some(Temperature {
            current_celsius: Some(30),
            reference_celsius: Some(70),
        }),
        percentage_used: Some(1),
        informational_exception: Some(InformationalException {
            asc: 0,
            ascq: 0,
            temperature_celsius: None,
        }),
        grown_defects: Some(defects),
        ..ScsiPages::default()
    }
}

/// Issue 15: growing defects and uncorrected errors rising are
/// problems; the same counts standing still are not.
#[test]
fn rising_defects_and_uncorrected_errors_are_problems_static_ones_not() {
    let names = |p: Vec<(&'static str, String)>| p.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert!(judge_two(&ok_pages(12, 3), &ok_pages(12, 3)).is_empty());
    let grown = judge_two(&ok_pages(12, 3), &ok_pages(14, 3));
    assert_eq!(grown.len(), 1);
    assert_eq!(grown[0].0, "grown_defects_increasing");
    assert_eq!(
        grown[0].1,
        "grown defects rose by 2 since 2026-12-01T00:00:00Z; the drive retired more of its media; watch for uncorrected errors"
    );
    // An uncorrected read error: media errors (the sum of 0006h) rise.
    assert_eq!(
        names(judge_two(&ok_pages(12, 3), &ok_pages(12, 4))),
        ["media_errors_increasing"]
    );
}

#[test]
fn an_informational_exception_is_critical_and_named() {
    let mut failing = ok_pages(12, 3);
    failing.informational_exception = Some(InformationalException {
        asc: 0x5D,
        ascq: 0x00,
        temperature_celsius: None,
    });
    let p = judge_two(&failing, &failing);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].0, "smart_failed");
    assert_eq!(
        p[0].1,
        "the drive reports an informational exception (asc 5dh, ascq 00h: failure prediction threshold exceeded)"
    );
}

#[test]
fn sas_from_the_hint_vpd_83_or_page_18() {
    let mut pages = ScsiPages::default();
    assert_eq!(pages.transport(Transport::Scsi), Transport::Scsi);
    assert_eq!(pages.transport(Transport::Sas), Transport::Sas);
    pages.protocol = Some(PROTOCOL_SAS);
    assert_eq!(pages.transport(Transport::Scsi), Transport::Sas);
    pages.protocol = Some(0); // Fibre Channel
    assert_eq!(pages.transport(Transport::Scsi), Transport::Scsi);
    pages.sas_phys = Some(vec![SasPhy {
        port: 1,
        phy: 0,
        invalid_dwords: 0,
        running_disparity_errors: 0,
        loss_of_dword_sync: 0,
        phy_reset_problems: 0,
    }]);
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
    let id = identity(&pages, Transport::Sas).unwrap();
    assert_eq!(
        (id.model.as_str(), id.firmware.as_str()),
        ("SEAGATE XS800ME70084", "0003")
    );
    // (1 562 824 367 + 1) × 512
    assert_eq!(id.capacity_bytes, Some(800_166_076_416));
    let phy = |phy, n| SasPhy {
        port: 1,
        phy,
        invalid_dwords: n,
        running_disparity_errors: n,
        loss_of_dword_sync: n,
        phy_reset_problems: n,
    };
    let out = phys(&[phy(0, 1), phy(1, 2), phy(0, 3)]);
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].phy.as_str(), out[0].counts), ("0", [1; 4]));
}
