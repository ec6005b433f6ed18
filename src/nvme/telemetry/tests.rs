//! Headers built at the offsets of NVMe Base 2.0 §5.16.1.9 (layouts.md).

use super::*;
use crate::nvme::testutil::*;

fn header(avail: u8, generation: u8) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x08;
    put(&mut buf, 5, &[0xB7, 0x26, 0x00]); // OUI 0026B7h, LSB first
    put_u16(&mut buf, 8, 16);
    put_u16(&mut buf, 10, 64);
    put_u16(&mut buf, 12, 128);
    put_u32(&mut buf, 16, 0x0001_0000);
    buf[382] = avail;
    buf[383] = generation;
    buf
}

#[test]
fn data_available_and_generation() {
    let h = TelemetryCtrlHeader::parse(&header(1, 7)).unwrap();
    assert!(h.data_available);
    assert_eq!(h.data_available_raw, 1);
    assert_eq!(h.generation, 7);
    assert_eq!(h.ieee_oui, 0x0026B7);
    assert_eq!(h.data_area_last_block, [16, 64, 128, 0x0001_0000]);
    assert!(!h.has_reason);
}

#[test]
fn nothing_saved_and_a_reason() {
    let mut buf = header(0, 0);
    buf[400] = b'E';
    let h = TelemetryCtrlHeader::parse(&buf).unwrap();
    assert!(!h.data_available);
    assert_eq!(h.generation, 0);
    assert!(h.has_reason);
}

#[test]
fn only_1_means_available() {
    // 2h..FFh are reserved: served raw, never read as "available"
    let h = TelemetryCtrlHeader::parse(&header(2, 1)).unwrap();
    assert!(!h.data_available);
    assert_eq!(h.data_available_raw, 2);
}

#[test]
fn another_log_identifier_is_rejected() {
    let mut buf = header(1, 1);
    buf[0] = 0x07; // the host-initiated log
    let err = TelemetryCtrlHeader::parse(&buf).unwrap_err().to_string();
    assert!(err.contains("07h, not 08h"), "{err}");
    assert!(TelemetryCtrlHeader::parse(&buf[..511]).is_err());
}
