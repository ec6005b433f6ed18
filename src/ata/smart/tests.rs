//! SMART data and threshold sectors built slot by slot (slot n at
//! 2 + 12·n); expectations computed by hand.

use super::*;

/// Sets byte 511 so that all 512 bytes sum to 0 modulo 256.
fn seal(buf: &mut [u8]) {
    let sum = buf[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
    buf[511] = 0u8.wrapping_sub(sum);
}

fn smart_page() -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x10; // revision 0010h
    // Slot 0 (offset 2): ID 1, flags 000Fh, 100/99, raw 01..06.
    buf[2..14].copy_from_slice(&[1, 0x0F, 0x00, 100, 99, 1, 2, 3, 4, 5, 6, 0]);
    // Slot 1 (offset 14): unused (ID 0) but with junk that must be ignored.
    buf[15] = 0xFF;
    // Slot 2 (offset 26): ID 9, flags 0032h, 98/98, raw 1234 = 04D2h.
    buf[26..38].copy_from_slice(&[9, 0x32, 0x00, 98, 98, 0xD2, 0x04, 0, 0, 0, 0, 0]);
    // Slot 29 (offset 350): ID 194, flags 0022h, raw 28h 00 14h 00 3Ch 00,
    // reserved byte 7.
    buf[350..362].copy_from_slice(&[194, 0x22, 0x00, 40, 20, 0x28, 0, 0x14, 0, 0x3C, 0, 7]);
    buf[362] = 0x82;
    buf[363] = 0xF3; // self-test in progress, 30 % remaining
    seal(&mut buf);
    buf
}

#[test]
fn attributes_in_table_order_skipping_unused_slots() {
    let s = SmartData::parse(&smart_page()).unwrap();
    assert_eq!(s.revision, 0x10);
    let ids: Vec<u8> = s.attributes.iter().map(|a| a.id).collect();
    assert_eq!(ids, [1, 9, 194]);

    let a = s.attribute(1).unwrap();
    assert_eq!((a.flags, a.value, a.worst), (0x000F, 100, 99));
    assert_eq!(a.raw, [1, 2, 3, 4, 5, 6]);
    assert_eq!(a.raw48(), 0x0605_0403_0201);
    assert!(a.prefailure() && a.online());

    let poh = s.attribute(9).unwrap();
    assert_eq!(poh.raw48(), 1234);
    assert!(!poh.prefailure() && poh.online());

    let t = s.attribute(194).unwrap();
    assert_eq!(t.raw48(), 257_699_348_520); // 3C_0014_0028h
    assert_eq!((t.value, t.worst, t.reserved), (40, 20, 7));
    assert!(!t.prefailure());

    assert_eq!(s.offline_collection_status, 0x82);
    assert_eq!(s.self_test_execution_status, 0xF3);
    assert!(s.checksum_valid);
    assert_eq!(s.attribute(5), None);
}

#[test]
fn smart_data_checksum_wrong() {
    let mut buf = smart_page();
    buf[100] ^= 0x01;
    assert!(!SmartData::parse(&buf).unwrap().checksum_valid);
}

#[test]
fn thresholds() {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x10;
    buf[2] = 1; // slot 0: ID 1, threshold 6
    buf[3] = 6;
    buf[26] = 9; // slot 2: ID 9, threshold 0
    buf[62] = 5; // slot 5 (offset 62): ID 5, threshold 10
    buf[63] = 10;
    buf[39] = 99; // slot 3 unused: threshold byte ignored
    seal(&mut buf);
    let t = SmartThresholds::parse(&buf).unwrap();
    assert_eq!(t.thresholds, [(1, 6), (9, 0), (5, 10)]);
    assert_eq!((t.get(5), t.get(9), t.get(200)), (Some(10), Some(0), None));
    assert!(t.checksum_valid);
    assert_eq!(t.revision, 0x10);
}

#[test]
fn return_status_registers() {
    let regs = |lba| AtaRegisters {
        lba,
        status: 0x50,
        ..Default::default()
    };
    assert_eq!(
        SmartStatus::from_registers(&regs(0x00C2_4F00)),
        SmartStatus::Passed
    );
    assert_eq!(
        SmartStatus::from_registers(&regs(0x002C_F400)),
        SmartStatus::Failed
    );
    assert_eq!(
        SmartStatus::from_registers(&regs(0)),
        SmartStatus::Unknown {
            lba_mid: 0,
            lba_high: 0
        }
    );
    // Swapped signature bytes are not "passed".
    assert!(matches!(
        SmartStatus::from_lba(0xC2, 0x4F),
        SmartStatus::Unknown { .. }
    ));
}

#[test]
fn commands() {
    assert_eq!(read_data_command().cdb()[4], 0xD0);
    assert_eq!(read_thresholds_command().cdb()[4], 0xD1);
    let st = return_status_command();
    assert!(st.check_condition);
    assert_eq!(st.data_len(), 0);
    let log = read_log_command(0x06, 1).cdb();
    assert_eq!(
        (log[4], log[6], log[8], log[10], log[12]),
        (0xD5, 1, 0x06, 0x4F, 0xC2)
    );
}

#[test]
fn short_sectors_are_rejected() {
    assert!(SmartData::parse(&[0u8; 511]).is_err());
    assert!(SmartThresholds::parse(&[]).is_err());
}

/// The layouts' fields sit at the bytes smartmontools' `ata.h` and ACS-4
/// give.
#[test]
fn layout_offsets_are_the_spec_bytes() {
    use std::mem::offset_of;
    assert_eq!(offset_of!(SmartDataPage, attributes), 2);
    assert_eq!(offset_of!(SmartDataPage, offline_collection_status), 362);
    assert_eq!(offset_of!(SmartDataPage, self_test_execution_status), 363);
    assert_eq!(offset_of!(SmartDataPage, offline_collection_seconds), 364);
    assert_eq!(
        offset_of!(SmartDataPage, offline_collection_capability),
        367
    );
    assert_eq!(offset_of!(SmartDataPage, smart_capability), 368);
    assert_eq!(offset_of!(SmartDataPage, error_logging_capability), 370);
    assert_eq!(offset_of!(SmartDataPage, short_test_minutes), 372);
    assert_eq!(offset_of!(SmartDataPage, extended_test_minutes), 373);
    assert_eq!(offset_of!(SmartDataPage, conveyance_test_minutes), 374);
    assert_eq!(offset_of!(SmartDataPage, extended_test_minutes_word), 375);
    assert_eq!(offset_of!(SmartDataPage, checksum), 511);
    let entry = [
        (offset_of!(AttributeEntry, flags), 1),
        (offset_of!(AttributeEntry, current), 3),
        (offset_of!(AttributeEntry, worst), 4),
        (offset_of!(AttributeEntry, raw), 5),
        (offset_of!(AttributeEntry, reserved), 11),
    ];
    for (got, want) in entry {
        assert_eq!(got, want);
    }
    assert_eq!(offset_of!(SmartThresholdsPage, thresholds), 2);
    assert_eq!(offset_of!(ThresholdEntry, threshold), 1);
    assert_eq!(offset_of!(SmartThresholdsPage, checksum), 511);
}

/// Slot n written through the layout lands at byte 2 + 12·n, and `seal`
/// makes the sector sum to zero.
#[test]
fn layout_writes_land_on_the_spec_bytes() {
    let mut p = SmartDataPage::zeroed();
    p.attributes[2] = AttributeEntry::from(&RawAttribute {
        id: 9,
        flags: 0x0032,
        value: 98,
        worst: 97,
        raw: [0xD2, 0x04, 0, 0, 0, 0],
        reserved: 0,
    });
    p.seal();
    let b = zerocopy::IntoBytes::as_bytes(&p);
    assert_eq!(&b[26..38], &[9, 0x32, 0, 98, 97, 0xD2, 0x04, 0, 0, 0, 0, 0]);
    assert_eq!(b.iter().fold(0u8, |a, &x| a.wrapping_add(x)), 0);
}

/// A table that lists one id more than once, as a SATADOM lists attribute
/// 1 four times with different raw values: the decoder keeps every entry
/// (the page as the drive wrote it), and each id's first entry is the one
/// that stands for it.
#[test]
fn an_id_listed_twice_keeps_its_first_entry() {
    let mut buf = vec![0u8; 512];
    for (slot, (id, raw)) in [(1u8, 11u8), (9, 90), (1, 12), (1, 13), (194, 30), (1, 14)]
        .into_iter()
        .enumerate()
    {
        let at = 2 + 12 * slot;
        buf[at] = id;
        buf[at + 3] = 100;
        buf[at + 5] = raw;
    }
    seal(&mut buf);
    let s = SmartData::parse(&buf).unwrap();
    assert_eq!(s.attributes.len(), 6);
    let first: Vec<(u8, u64)> = s.first_entries().map(|a| (a.id, a.raw48())).collect();
    assert_eq!(first, [(1, 11), (9, 90), (194, 30)]);
    assert_eq!(s.attribute(1).map(RawAttribute::raw48), Some(11));
    assert_eq!(s.repeated_ids(), [1]);
    assert!(
        SmartData::parse(&smart_page())
            .unwrap()
            .repeated_ids()
            .is_empty()
    );
}
