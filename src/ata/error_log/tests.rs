use super::*;

#[test]
fn error_count_at_452_little_endian() {
    let mut page = vec![0u8; 512];
    page[0] = 1;
    page[1] = 3;
    page[452] = 0x2C;
    page[453] = 0x01; // 0x012C = 300 errors
    let sum = page.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    page[511] = sum.wrapping_neg();
    let log = ErrorLogSummary::parse(&page).unwrap();
    assert_eq!((log.revision, log.newest, log.error_count), (1, 3, 300));
    assert!(log.checksum_valid);
    page[511] ^= 1;
    assert!(!ErrorLogSummary::parse(&page).unwrap().checksum_valid);
}

#[test]
fn layout_offsets_are_the_spec_bytes() {
    use std::mem::offset_of;
    assert_eq!(offset_of!(ErrorLogPage, newest), 1);
    assert_eq!(offset_of!(ErrorLogPage, structures), 2);
    assert_eq!(offset_of!(ErrorLogPage, error_count), 452);
    assert_eq!(offset_of!(ErrorLogPage, checksum), 511);
}

#[test]
fn short_page_is_an_error() {
    assert!(ErrorLogSummary::parse(&[0u8; 511]).is_err());
}
