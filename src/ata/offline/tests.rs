use super::*;

// Byte for byte from SAT-3's ATA PASS-THROUGH(16) CDB table and ACS-3
// 7.48.5: 85h; PROTOCOL 3 (non-data) << 1 = 06h; CK_COND (20h) | T_DIR
// (08h) | BYT_BLOK (04h), T_LENGTH 0 = 2Ch; feature D4h; LBA low = the
// subroutine; LBA mid 4Fh; LBA high C2h; command B0h.
fn expected(sub: u8) -> [u8; 16] {
    [
        0x85, 0x06, 0x2C, 0x00, 0xD4, 0x00, 0x00, 0x00, sub, 0x00, 0x4F, 0x00, 0xC2, 0x00, 0xB0,
        0x00,
    ]
}

#[test]
fn short_extended_and_abort_cdbs() {
    assert_eq!(command(SHORT_OFFLINE).cdb(), expected(0x01));
    assert_eq!(command(EXTENDED_OFFLINE).cdb(), expected(0x02));
    assert_eq!(command(ABORT_OFFLINE).cdb(), expected(0x7F));
}

#[test]
fn non_data() {
    assert_eq!(command(SHORT_OFFLINE).data_len(), 0);
}
