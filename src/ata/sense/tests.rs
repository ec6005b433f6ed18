//! Pass-through outcomes of sense data built by hand from SPC/SAT layouts
//! (offsets in comments); expectations computed by hand.

use super::*;
use crate::scsi::sense::tests::{descriptor_passed, fixed_passed};

#[test]
fn qemu_return_status_descriptor_is_success_with_registers() {
    let s = parse_sense(&descriptor_passed());
    assert_eq!(
        (s.response_code, s.key, s.asc, s.ascq),
        (0x72, 1, 0x00, 0x1D)
    );
    let r = s.ata.unwrap();
    assert_eq!(r.lba, 0x00C2_4F00);
    assert_eq!((r.lba_low(), r.lba_mid(), r.lba_high()), (0x00, 0x4F, 0xC2));
    assert_eq!((r.error, r.count, r.device, r.status), (0, 0, 0, 0x50));
    assert_eq!(outcome(0x02, &s, true), Ok(Some(r)));
    assert_eq!(outcome(0x02, &s, false), Ok(Some(r)));
}

#[test]
fn fixed_format_registers() {
    let s = parse_sense(&fixed_passed());
    assert_eq!(
        (s.response_code, s.key, s.asc, s.ascq),
        (0x70, 1, 0x00, 0x1D)
    );
    let r = s.ata.unwrap();
    assert_eq!((r.lba_mid(), r.lba_high(), r.status), (0x4F, 0xC2, 0x50));
    assert_eq!(outcome(0x02, &s, true).unwrap().unwrap().lba, 0x00C2_4F00);
}

#[test]
fn ata_abort_is_aborted_error() {
    let mut b = descriptor_passed();
    b[1] = 0x0B; // ABORTED COMMAND
    b[3] = 0x00;
    b[11] = 0x04; // error: ABRT
    b[21] = 0x51; // status: DRDY | DSC | ERR
    let err = outcome(0x02, &parse_sense(&b), true).unwrap_err();
    assert_eq!(
        err,
        AtaError::Aborted {
            error: 0x04,
            status: 0x51
        }
    );
    assert_eq!(
        err.to_string(),
        "ata command aborted (status 51h, error 04h)"
    );
    assert!(err.is_unsupported());
}

#[test]
fn registers_with_err_under_good_status_are_still_an_abort() {
    let mut b = fixed_passed();
    b[4] = 0x41; // status DRDY | ERR
    assert!(matches!(
        outcome(0x00, &parse_sense(&b), false),
        Err(AtaError::Aborted { status: 0x41, .. })
    ));
}

#[test]
fn old_linux_fixed_abort_has_no_registers_and_reads_as_unsupported() {
    // Registers misplaced at 8..11, no VALID bit; ABORTED COMMAND 00h/00h.
    let b = [
        0x70, 0, 0x0B, 0, 0, 0, 0, 0x0A, 0x04, 0x51, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0,
    ];
    let s = parse_sense(&b);
    assert_eq!(s.ata, None);
    let err = outcome(0x02, &s, false).unwrap_err();
    assert_eq!(
        err,
        AtaError::Check {
            key: 0x0B,
            asc: 0,
            ascq: 0
        }
    );
    assert!(err.is_unsupported());
}

#[test]
fn illegal_request_and_medium_error() {
    let mut b = [0u8; 18];
    b[0] = 0x70;
    b[2] = 0x05;
    b[7] = 0x0A;
    b[12] = 0x24;
    let err = outcome(0x02, &parse_sense(&b), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "scsi check condition: illegal request (sense key 5h, asc 24h, ascq 00h)"
    );
    assert!(err.is_unsupported());

    b[2] = 0x03;
    b[12] = 0x11;
    let err = outcome(0x02, &parse_sense(&b), false).unwrap_err();
    assert_eq!(
        err,
        AtaError::Check {
            key: 3,
            asc: 0x11,
            ascq: 0
        }
    );
    assert!(err.to_string().contains("medium error"));
    assert!(!err.is_unsupported());
}

#[test]
fn good_without_sense_is_success_without_registers() {
    let s = parse_sense(&[]);
    assert_eq!(s, Sense::default());
    assert_eq!(outcome(0x00, &s, true), Ok(None));
    assert_eq!(outcome(0x00, &s, false), Ok(None));
}

#[test]
fn info_available_without_registers_depends_on_expectation() {
    // Descriptor sense 1/00h/1Dh but no 09h descriptor.
    let b = [0x72, 0x01, 0x00, 0x1D, 0, 0, 0, 0];
    let s = parse_sense(&b);
    assert_eq!(s.ata, None);
    assert_eq!(outcome(0x02, &s, false), Ok(None));
    assert_eq!(
        outcome(0x02, &s, true),
        Err(AtaError::Check {
            key: 1,
            asc: 0,
            ascq: 0x1D
        })
    );
}

#[test]
fn no_sense_key_with_registers_is_success() {
    let mut b = fixed_passed();
    b[2] = 0x00; // NO SENSE, 00h/1Dh
    let s = parse_sense(&b);
    assert_eq!(s.key, 0);
    assert!(outcome(0x02, &s, true).unwrap().is_some());
    // ASCQ 00h: VALID alone does not make the INFORMATION field registers.
    b[13] = 0x00;
    assert_eq!(parse_sense(&b).ata, None);
}

#[test]
fn other_scsi_status_and_empty_check_condition() {
    let err = outcome(0x08, &Sense::default(), false).unwrap_err();
    assert_eq!(err.to_string(), "scsi status 08h (busy)");
    assert!(!err.is_unsupported());
    let err = outcome(0x02, &Sense::default(), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "scsi check condition: no sense (sense key 0h, asc 00h, ascq 00h)"
    );
}
