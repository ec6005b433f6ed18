use super::*;

// SPC-5 SEND DIAGNOSTIC: byte 1 bits 7:5 carry the SELF-TEST CODE, so
// 001b = 20h, 010b = 40h, 100b = 80h (sg3_utils' `sg_senddiag --selftest=1 / =2
// / =4` sends the same: 1D 20 00 00 00 00 for a background short test).
#[test]
fn background_short_extended_and_abort_cdbs() {
    assert_eq!(cdb(BACKGROUND_SHORT), [0x1D, 0x20, 0, 0, 0, 0]);
    assert_eq!(cdb(BACKGROUND_EXTENDED), [0x1D, 0x40, 0, 0, 0, 0]);
    assert_eq!(cdb(ABORT_BACKGROUND), [0x1D, 0x80, 0, 0, 0, 0]);
}
