use super::*;
use crate::nvme::testutil::*;

/// A page with every result slot marked "not used" (byte 0 = Fh).
fn empty_page() -> Vec<u8> {
    let mut buf = vec![0u8; 564];
    for i in 0..20 {
        buf[4 + 28 * i] = 0x0F;
    }
    buf
}

#[test]
fn decodes_results_newest_first() {
    let mut buf = empty_page();
    buf[0] = 0xF2; // upper bits reserved; extended test running
    buf[1] = 0x80 | 37; // bit 7 reserved
    // Entry 0 (offset 4): extended test, segments failed at segment 3.
    buf[4] = 0x27;
    buf[5] = 3;
    buf[6] = 0x0F;
    put_u64(&mut buf, 8, 0x1_0000_0010);
    put_u32(&mut buf, 16, 1);
    put_u64(&mut buf, 20, 0xABCD_EF01_2345);
    buf[28] = 0x02;
    buf[29] = 0x81;
    // Entry 1 (offset 32): short test passed.
    buf[32] = 0x10;
    put_u64(&mut buf, 36, 5000);
    // Entry 19 (offset 4 + 19 × 28 = 536): extended, aborted by sanitize.
    buf[536] = 0x29;

    let log = SelfTestLog::parse(&buf).unwrap();
    assert_eq!(log.current_operation, 2);
    assert_eq!(log.current_completion_percent, 37);
    assert_eq!(log.results.len(), 3);
    let r = log.last().unwrap();
    assert_eq!(
        (r.result, r.code, r.segment, r.valid_flags),
        (7, 2, 3, 0x0F)
    );
    assert_eq!(r.result_name(), "segments_failed");
    assert_eq!(r.power_on_hours, 4_294_967_312);
    assert_eq!(r.nsid, 1);
    assert_eq!(r.failing_lba, 0xABCD_EF01_2345);
    assert_eq!((r.sct, r.sc), (2, 0x81));
    assert_eq!(log.results[1].result_name(), "passed");
    assert_eq!(log.results[1].code, 1);
    assert_eq!(log.results[1].power_on_hours, 5000);
    assert_eq!(log.results[2].result_name(), "aborted_by_sanitize");
}

#[test]
fn all_unused_means_no_results() {
    let log = SelfTestLog::parse(&empty_page()).unwrap();
    assert!(log.results.is_empty());
    assert_eq!(log.last(), None);
    assert_eq!(log.current_operation, 0);
}

#[test]
fn result_names() {
    let mut r = SelfTestLog::parse(&{
        let mut b = empty_page();
        b[4] = 0x00;
        b
    })
    .unwrap()
    .results
    .remove(0);
    let names = [
        "passed",
        "aborted_by_command",
        "aborted_by_reset",
        "aborted_by_namespace_removal",
        "aborted_by_format",
        "fatal_error",
        "unknown_segment_failed",
        "segments_failed",
        "aborted_unknown",
        "aborted_by_sanitize",
        "reserved",
    ];
    for (code, want) in names.iter().enumerate() {
        r.result = code as u8;
        assert_eq!(r.result_name(), *want);
    }
    r.result = 0x0E;
    assert_eq!(r.result_name(), "reserved");
}

#[test]
fn short_page_is_rejected() {
    assert!(matches!(
        SelfTestLog::parse(&[0u8; 563]),
        Err(ParseError::Length { expected: 564, .. })
    ));
}
