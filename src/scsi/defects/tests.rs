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
