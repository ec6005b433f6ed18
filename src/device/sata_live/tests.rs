//! Which answers to IDENTIFY through ATA PASS-THROUGH mean "no ATA behind
//! this SAT layer" (smartmontools' `autodetect_sat_device`: only an
//! IDENTIFY that came back makes a disk ATA).

use super::*;
use crate::ata::sense::AtaError;

#[test]
fn a_check_condition_refuses_identify_unless_it_asks_to_wait() {
    let check = |key, asc, ascq| AtaError::Check { key, asc, ascq };
    // ILLEGAL REQUEST, invalid command operation code: scsi_debug's answer.
    assert!(refuses_identify(&check(0x5, 0x20, 0x00)));
    // HARDWARE ERROR, or ILLEGAL REQUEST with a qualifier is_unsupported
    // does not take: refused too.
    assert!(refuses_identify(&check(0x4, 0x44, 0x00)));
    assert!(refuses_identify(&check(0x5, 0x24, 0x01)));
    assert!(!check(0x5, 0x24, 0x01).is_unsupported());
    // The drive's own ABRT.
    assert!(refuses_identify(&AtaError::Aborted {
        error: 0x04,
        status: 0x51
    }));
    // NOT READY (becoming ready), UNIT ATTENTION (a reset): ask again.
    assert!(!refuses_identify(&check(0x2, 0x04, 0x01)));
    assert!(!refuses_identify(&check(0x6, 0x29, 0x00)));
    // BUSY is no answer either.
    assert!(!refuses_identify(&AtaError::ScsiStatus { status: 0x08 }));
}
