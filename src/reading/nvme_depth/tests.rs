use super::*;
use crate::nvme::endurance_group::EnduranceGroupLogPage;
use crate::nvme::ocp::OcpSmartLogPage;
use crate::nvme::smart_log::SmartLogPage;
use zerocopy::IntoBytes;

/// A group page in its own units: billions of bytes.
fn group(estimate: u128, host: u128, media: u128) -> EnduranceGroupLog {
    let mut p = EnduranceGroupLogPage::zeroed();
    p.endurance_estimate = estimate.into();
    p.data_units_written = host.into();
    p.media_units_written = media.into();
    EnduranceGroupLog::parse(p.as_bytes()).unwrap()
}

#[test]
fn write_amplification_from_the_groups_first() {
    // 1000 + 3000 host units, 1300 + 3300 media units: 4600 / 4000 = 1.15
    let groups = [(1, group(0, 1000, 1300)), (2, group(0, 3000, 3300))];
    assert_eq!(write_amplification(&groups, None, None), Some(1.15));
}

#[test]
fn write_amplification_falls_back_to_ocp_over_smart() {
    let mut o = OcpSmartLogPage::new();
    o.physical_media_units_written = 1_300_000_000_000u128.into();
    let ocp = OcpSmartLog::parse(o.as_bytes()).unwrap();
    let mut s = SmartLogPage::zeroed();
    s.data_units_written = 2_000_000u128.into(); // × 512 000 = 1.024e12 bytes
    let smart = SmartLog::parse(s.as_bytes()).unwrap();
    // a group without media units written does not stop the fallback
    let groups = [(1, group(5, 9, 0))];
    let wa = write_amplification(&groups, Some(&ocp), Some(&smart)).unwrap();
    assert!((wa - 1.3e12 / 1.024e12).abs() < 1e-12, "{wa}");
    assert_eq!(write_amplification(&[], Some(&ocp), None), None);
    let mut none = SmartLogPage::zeroed();
    none.data_units_written = 0u128.into();
    let fresh = SmartLog::parse(none.as_bytes()).unwrap();
    assert_eq!(write_amplification(&[], Some(&ocp), Some(&fresh)), None);
}

#[test]
fn the_estimate_counts_media_writes_else_host_writes() {
    let groups = [(1, group(1_000, 100, 130)), (2, group(500, 50, 70))];
    // 1500 × 10^9 estimate; 200 × 10^9 media written
    assert_eq!(endurance_estimate(&groups), Some((1.5e12, Some(2.0e11))));
    let no_media = [(1, group(1_000, 100, 0))];
    assert_eq!(endurance_estimate(&no_media), Some((1.0e12, Some(1.0e11))));
    let nothing_written = [(1, group(1_000, 0, 0))];
    assert_eq!(endurance_estimate(&nothing_written), Some((1.0e12, None)));
    assert_eq!(endurance_estimate(&[(1, group(0, 5, 5))]), None);
}

/// The mark is what a state file keeps: its field names are part of that
/// file's format, and it reads back as it was written.
#[test]
fn the_event_log_mark_keeps_its_names_through_serde() {
    let mark = PelMark {
        position: 4_000_000_000,
        fingerprint: u64::MAX - 1,
    };
    let json = serde_json::to_string(&mark).unwrap();
    assert_eq!(
        json,
        r#"{"position":4000000000,"fingerprint":18446744073709551614}"#
    );
    assert_eq!(serde_json::from_str::<PelMark>(&json).unwrap(), mark);
}
