//! Self-test logs built slot by slot (slot n at 2 + 24·n).

use super::*;

fn log(newest: u8) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x01; // revision 0001h
    // Slot 0 (offset 2): short offline, passed, at 100 h.
    buf[2..5].copy_from_slice(&[0x01, 0x00, 100]);
    // Slot 1 (offset 26): extended, read failure with 30 % left, at 1234h =
    // 4660 h, checkpoint 5, first failing LBA 00AB_CDEFh.
    buf[26..35].copy_from_slice(&[0x02, 0x73, 0x34, 0x12, 0x05, 0xEF, 0xCD, 0xAB, 0x00]);
    // Slot 20 (offset 482): short, interrupted by reset, at 50 h.
    buf[482..486].copy_from_slice(&[0x01, 0x20, 50, 0]);
    buf[508] = newest;
    let sum = buf[..511].iter().fold(0u8, |a, &x| a.wrapping_add(x));
    buf[511] = 0u8.wrapping_sub(sum);
    buf
}

#[test]
fn newest_first_from_the_index() {
    let l = SelfTestLog::parse(&log(2)).unwrap();
    assert_eq!(l.revision, 1);
    assert!(l.checksum_valid);
    let slots: Vec<u8> = l.entries.iter().map(|e| e.slot).collect();
    assert_eq!(slots, [1, 0, 20]);
    let n = l.newest().unwrap();
    assert_eq!((n.test_number, n.test_name()), (2, "extended"));
    assert_eq!((n.result, n.result_name()), (7, "read_failure"));
    assert!(n.is_failure());
    assert_eq!(n.remaining_percent, 30);
    assert_eq!(n.lifetime_hours, 4660);
    assert_eq!(n.checkpoint, 5);
    assert_eq!(n.failing_lba, 0x00AB_CDEF);
    assert_eq!(l.entries[1].result_name(), "passed");
    assert_eq!(l.entries[1].lifetime_hours, 100);
    assert_eq!(l.entries[2].result_name(), "interrupted_by_reset");
    assert!(!l.entries[2].is_failure());
}

#[test]
fn the_walk_wraps_around() {
    // Newest in slot 0: then slot 20, 19, ... 1.
    let l = SelfTestLog::parse(&log(1)).unwrap();
    let slots: Vec<u8> = l.entries.iter().map(|e| e.slot).collect();
    assert_eq!(slots, [0, 20, 1]);
    // Newest in slot 20: 20, 19, ..., 1, 0.
    let l = SelfTestLog::parse(&log(21)).unwrap();
    let slots: Vec<u8> = l.entries.iter().map(|e| e.slot).collect();
    assert_eq!(slots, [20, 1, 0]);
}

#[test]
fn index_zero_means_no_tests_and_beyond_21_is_invalid() {
    let l = SelfTestLog::parse(&log(0)).unwrap();
    assert!(l.entries.is_empty());
    assert_eq!(l.newest(), None);
    assert!(matches!(
        SelfTestLog::parse(&log(22)),
        Err(ParseError::Invalid { .. })
    ));
}

#[test]
fn checksum_wrong() {
    let mut b = log(2);
    b[511] ^= 0xFF;
    assert!(!SelfTestLog::parse(&b).unwrap().checksum_valid);
}

#[test]
fn result_names_match_smartctl_codes() {
    let mut e = SelfTestLog::parse(&log(1)).unwrap().entries.remove(0);
    let names = [
        (0x0, "passed"),
        (0x1, "aborted_by_host"),
        (0x2, "interrupted_by_reset"),
        (0x3, "fatal_error"),
        (0x4, "unknown_failure"),
        (0x5, "electrical_failure"),
        (0x6, "servo_failure"),
        (0x7, "read_failure"),
        (0x8, "handling_damage"),
        (0x9, "reserved"),
        (0xE, "reserved"),
        (0xF, "in_progress"),
    ];
    for (code, want) in names {
        e.result = code;
        assert_eq!(e.result_name(), want, "code {code}");
        assert_eq!(e.is_failure(), (3..=8).contains(&code));
    }
    for (n, want) in [
        (0x81, "short_captive"),
        (0x7F, "reserved"),
        (0x40, "vendor"),
    ] {
        e.test_number = n;
        assert_eq!(e.test_name(), want);
    }
}

#[test]
fn command_and_short_buffer() {
    let cdb = command().cdb();
    assert_eq!((cdb[4], cdb[6], cdb[8]), (0xD5, 1, 0x06));
    assert!(SelfTestLog::parse(&[0u8; 100]).is_err());
}

/// The layout's fields sit at the bytes ACS-4 gives.
#[test]
fn layout_offsets_are_the_spec_bytes() {
    use std::mem::offset_of;
    assert_eq!(offset_of!(SelfTestLogPage, descriptors), 2);
    assert_eq!(offset_of!(SelfTestLogPage, vendor506), 506);
    assert_eq!(offset_of!(SelfTestLogPage, newest_index), 508);
    assert_eq!(offset_of!(SelfTestLogPage, checksum), 511);
    assert_eq!(offset_of!(SelfTestDescriptor, status), 1);
    assert_eq!(offset_of!(SelfTestDescriptor, life_timestamp), 2);
    assert_eq!(offset_of!(SelfTestDescriptor, checkpoint), 4);
    assert_eq!(offset_of!(SelfTestDescriptor, failing_lba), 5);
    assert_eq!(offset_of!(SelfTestDescriptor, vendor), 9);
}

/// Descriptor n written through the layout lands at byte 2 + 24·n.
#[test]
fn layout_writes_land_on_the_spec_bytes() {
    let mut p = SelfTestLogPage::zeroed();
    p.revision = 1.into();
    p.descriptors[1] = SelfTestDescriptor {
        test_number: 0x02,
        status: 0x74,
        life_timestamp: 0x1234.into(),
        failing_lba: 0x0A0B_0C0D.into(),
        ..Default::default()
    };
    p.newest_index = 2;
    p.seal();
    let b = zerocopy::IntoBytes::as_bytes(&p);
    assert_eq!(
        &b[26..35],
        &[0x02, 0x74, 0x34, 0x12, 0, 0x0D, 0x0C, 0x0B, 0x0A]
    );
    assert_eq!(b[508], 2);
    assert_eq!(b.iter().fold(0u8, |a, &x| a.wrapping_add(x)), 0);
}
