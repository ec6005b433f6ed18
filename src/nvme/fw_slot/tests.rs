//! Pages built at the offsets of NVMe Base 2.0 §5.16.1.4 (layouts.md).

use super::*;
use crate::nvme::testutil::*;

fn page(afi: u8, slots: &[(usize, &[u8; 8])]) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = afi;
    for &(n, rev) in slots {
        put(&mut buf, 8 + 8 * (n - 1), rev);
    }
    buf
}

#[test]
fn active_and_next_slot_and_revisions() {
    // slot 1 runs EIEK51.3; EIEK52.0 waits in slot 2 for the next reset
    let buf = page(0x21, &[(1, b"EIEK51.3"), (2, b"EIEK52.0")]);
    let log = FwSlotLog::parse(&buf).unwrap();
    assert_eq!(log.afi, 0x21);
    assert_eq!(log.active_slot, 1);
    assert_eq!(log.next_slot, Some(2));
    assert!(log.activation_pending());
    let revs: Vec<(u8, &str)> = log
        .slots
        .iter()
        .map(|s| (s.slot, s.revision.as_str()))
        .collect();
    assert_eq!(revs, [(1, "EIEK51.3"), (2, "EIEK52.0")]);
    // nvme-cli prints frs1 as the 8 bytes read as a little-endian u64
    assert_eq!(log.slots[0].raw, u64::from_le_bytes(*b"EIEK51.3"));
}

#[test]
fn no_next_slot_or_the_running_one_is_not_pending() {
    let none = FwSlotLog::parse(&page(0x03, &[(3, b"1.0     ")])).unwrap();
    assert_eq!((none.active_slot, none.next_slot), (3, None));
    assert!(!none.activation_pending());
    assert_eq!(none.slots[0].revision, "1.0"); // space padding trimmed
    let same = FwSlotLog::parse(&page(0x33, &[(3, b"1.0     ")])).unwrap();
    assert_eq!(same.next_slot, Some(3));
    assert!(!same.activation_pending());
}

#[test]
fn empty_slots_and_reserved_bits_are_left_out() {
    // bits 3 and 7 reserved; slot 7 is the last
    let log = FwSlotLog::parse(&page(0x88 | 0x01, &[(7, b"ZZ\x00\x00\x00\x00\x00\x00")])).unwrap();
    assert_eq!(log.active_slot, 1);
    assert_eq!(log.next_slot, None);
    assert_eq!(log.slots.len(), 1);
    assert_eq!(
        (log.slots[0].slot, log.slots[0].revision.as_str()),
        (7, "ZZ")
    );
}

#[test]
fn a_short_page_is_a_length_error() {
    assert!(FwSlotLog::parse(&[0u8; 64]).is_err());
}
