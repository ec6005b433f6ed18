//! Sense data built by hand from SPC/SAT layouts (offsets in comments);
//! expectations computed by hand.

use super::*;

/// Descriptor sense, one 09h descriptor: SMART RETURN STATUS answered
/// "passed" (LBA mid/high 4Fh/C2h), status 50h (DRDY | DSC), as QEMU's
/// AHCI disk does behind libata: RECOVERED ERROR, 00h/1Dh.
fn descriptor_passed() -> Vec<u8> {
    vec![
        0x72, 0x01, 0x00, 0x1D, 0x00, 0x00, 0x00, 0x0E, // header, additional length 14
        0x09, 0x0C, 0x00, // ATA Status Return, length 12, extend 0
        0x00, // error
        0x00, 0x00, // count 15:8, 7:0
        0x00, 0x00, // LBA 31:24, 7:0
        0x00, 0x4F, // LBA 39:32, 15:8
        0x00, 0xC2, // LBA 47:40, 23:16
        0x00, // device
        0x50, // status
    ]
}

/// The same answer in fixed format, as Linux with D_SENSE off writes it
/// since the 2024 offsets fix: VALID set, INFORMATION = error, status,
/// device, count; COMMAND-SPECIFIC = flags, LBA 7:0, 15:8, 23:16.
fn fixed_passed() -> Vec<u8> {
    vec![
        0xF0, 0x00, 0x01, // VALID | 70h, obsolete, RECOVERED ERROR
        0x00, 0x50, 0x00, 0x00, // error, status, device, count
        0x0A, // additional length
        0x00, 0x00, 0x4F, 0xC2, // flags, LBA 7:0, 15:8, 23:16
        0x00, 0x1D, // ASC, ASCQ
        0x00, 0x00, 0x00, 0x00,
    ]
}

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
fn fixed_format_without_valid_but_with_1d_still_has_registers() {
    let mut b = fixed_passed();
    b[0] = 0x70;
    b[6] = 0x80; // count 7:0: CHECK POWER MODE "idle"
    let r = parse_sense(&b).ata.unwrap();
    assert_eq!(r.count, 0x80);
}

/// smartmontools `lib/scsiata.cpp` takes fixed-format registers only for
/// ASC/ASCQ 00h/1Dh with a non-zero status byte ("Some ATA STATUS bit must
/// be set").
#[test]
fn fixed_format_registers_need_00h_1dh_and_a_nonzero_status() {
    let mut zero_status = fixed_passed();
    zero_status[4] = 0x00;
    assert_eq!(parse_sense(&zero_status).ata, None);
    // VALID set, but ASC/ASCQ is not "ATA pass through information available".
    let mut other = fixed_passed();
    other[12] = 0x24; // INVALID FIELD IN CDB
    other[13] = 0x00;
    assert_eq!(parse_sense(&other).ata, None);
    assert!(parse_sense(&fixed_passed()).ata.is_some());
}

#[test]
fn descriptor_extend_gives_48_bit_values() {
    let mut b = descriptor_passed();
    // descriptor starts at 8: extend at 10, count 15:8/7:0 at 12/13,
    // LBA pairs (high, low) at 14/15, 16/17, 18/19.
    b[10] = 0x01;
    b[12] = 0x12;
    b[13] = 0x34;
    b[14..20].copy_from_slice(&[0xAA, 0x11, 0xBB, 0x22, 0xCC, 0x33]);
    let r = parse_sense(&b).ata.unwrap();
    assert_eq!(r.count, 0x1234);
    assert_eq!(r.lba, 0xCC_BB_AA_33_22_11);
    // Without extend the high bytes are ignored.
    b[10] = 0x00;
    let r = parse_sense(&b).ata.unwrap();
    assert_eq!((r.count, r.lba), (0x34, 0x33_22_11));
}

#[test]
fn descriptor_is_found_after_another_descriptor() {
    let mut b = vec![0x72, 0x01, 0x00, 0x1D, 0, 0, 0, 12 + 14];
    b.extend([0x00, 0x0A, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // information descriptor
    b.extend(&descriptor_passed()[8..]);
    assert_eq!(parse_sense(&b).ata.unwrap().lba_high(), 0xC2);
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

#[test]
fn short_and_garbage_sense() {
    assert_eq!(parse_sense(&[0x72]).response_code, 0x72);
    assert_eq!(parse_sense(&[0x72]).ata, None);
    let s = parse_sense(&[0x70, 0x00, 0x05]);
    assert_eq!((s.key, s.asc, s.ata), (5, 0, None));
    let s = parse_sense(&[0x12, 0x34, 0x56]);
    assert_eq!(
        s,
        Sense {
            response_code: 0x12,
            ..Sense::default()
        }
    );
    // Additional length claims more than there is: the 09h descriptor is
    // cut off and ignored.
    let b = descriptor_passed();
    assert_eq!(parse_sense(&b[..20]).ata, None);
    // A descriptor length that jumps past the end ends the walk.
    let b = [0x72, 0x01, 0, 0x1D, 0, 0, 0, 0xFF, 0x01, 0xFF, 0x09, 0x0C];
    assert_eq!(parse_sense(&b).ata, None);
    // Fixed format with a zero additional length exposes nothing past 8.
    let mut b = fixed_passed();
    b[7] = 0;
    let s = parse_sense(&b);
    assert_eq!((s.asc, s.ascq, s.ata), (0, 0, None));
}
