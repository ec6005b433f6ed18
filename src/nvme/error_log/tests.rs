use super::*;
use crate::nvme::testutil::*;

fn entry(buf: &mut [u8], base: usize, count: u64) {
    put_u64(buf, base, count);
    put_u16(buf, base + 8, 3);
    put_u16(buf, base + 10, 0x1234);
    // Status 0x0281 (SCT 2, SC 81h Unrecovered Read Error) << 1 | phase.
    put_u16(buf, base + 12, 0x0503);
    put_u16(buf, base + 14, 0x0104);
    put_u64(buf, base + 16, 0x1_0000_0000);
    put_u32(buf, base + 24, 1);
    buf[base + 28] = 0xC1;
    buf[base + 29] = 2;
    put_u64(buf, base + 32, 0xDEAD_BEEF);
    put_u16(buf, base + 40, 0x55AA);
}

#[test]
fn decodes_entries_and_skips_empty_ones() {
    let mut buf = vec![0u8; 4 * 64];
    entry(&mut buf, 0, 7);
    // entry 1 left empty
    entry(&mut buf, 128, 9);
    entry(&mut buf, 192, 8);
    let log = ErrorLog::parse(&buf).unwrap();
    assert_eq!(log.entries.len(), 3);
    let e = &log.entries[0];
    assert_eq!(e.error_count, 7);
    assert_eq!(e.sqid, 3);
    assert_eq!(e.cmdid, 0x1234);
    assert_eq!((e.status.sct, e.status.sc), (2, 0x81));
    assert_eq!(e.status.name(), "Unrecovered Read Error");
    assert_eq!(e.param_error_location, 0x0104);
    assert_eq!(e.lba, 4_294_967_296);
    assert_eq!(e.nsid, 1);
    assert_eq!((e.vs, e.trtype), (0xC1, 2));
    assert_eq!(e.cs, 0xDEAD_BEEF);
    assert_eq!(e.trtype_specific, 0x55AA);
    assert_eq!(log.newest().map(|e| e.error_count), Some(9));
}

#[test]
fn trailing_partial_entry_is_ignored() {
    let mut buf = vec![0u8; 64 + 63];
    entry(&mut buf, 0, 1);
    put_u64(&mut buf, 64, 99);
    let log = ErrorLog::parse(&buf).unwrap();
    assert_eq!(log.entries.len(), 1);
    assert_eq!(log.entries[0].error_count, 1);
}

#[test]
fn empty_page_and_short_page() {
    let log = ErrorLog::parse(&[0u8; 256]).unwrap();
    assert!(log.entries.is_empty());
    assert_eq!(log.newest(), None);
    assert!(matches!(
        ErrorLog::parse(&[0u8; 63]),
        Err(ParseError::Length { expected: 64, .. })
    ));
}
