use super::*;

#[test]
fn grown_list_length_by_format() {
    // GLISTV, physical sector format (5), 96 bytes: 12 defects.
    assert_eq!(grown_defects(&[0x00, 0x0D, 0x00, 0x60]).unwrap(), Some(12));
    // Short block format (0), 96 bytes: 24 defects.
    assert_eq!(grown_defects(&[0x00, 0x08, 0x00, 0x60]).unwrap(), Some(24));
    // The grown list not reported.
    assert_eq!(grown_defects(&[0x00, 0x15, 0x00, 0x60]).unwrap(), None);
    // Both lists: not a grown count.
    assert_eq!(grown_defects(&[0x00, 0x1D, 0x00, 0x60]).unwrap(), None);
    // Vendor-specific (6) or reserved (7) format: unknown, but an empty
    // list is 0 whatever its format (smartmontools: "0").
    assert_eq!(grown_defects(&[0x00, 0x0F, 0x00, 0x60]).unwrap(), None);
    assert_eq!(grown_defects(&[0x00, 0x0E, 0x00, 0x00]).unwrap(), Some(0));
    assert!(grown_defects(&[0x00, 0x08, 0x00]).is_err());
}

#[test]
fn the_12_byte_header_counts_past_8191_entries() {
    // GLISTV, physical sector format, 65 600 bytes (0001_0040h): 8200
    // entries, which the (10) header's 16-bit length cannot hold.
    let h = [0x00, 0x0D, 0x00, 0x01, 0x00, 0x01, 0x00, 0x40];
    assert_eq!(grown_defects_12(&h).unwrap(), Some(8200));
    // The generation code (bytes 2..4) is not part of the length.
    let h = [0x00, 0x0D, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x60];
    assert_eq!(grown_defects_12(&h).unwrap(), Some(12));
    // The same flags rules as (10): PLISTV too is not a grown count.
    let h = [0x00, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60];
    assert_eq!(grown_defects_12(&h).unwrap(), None);
    // A (10)-sized answer is too short for the (12) header.
    assert!(grown_defects_12(&[0x00, 0x0D, 0x00, 0x60]).is_err());
}
