//! Sense data built by hand from SPC/SAT layouts (offsets in comments);
//! expectations computed by hand. The two answers below are shared with
//! the ATA pass-through outcome tests.

use super::*;

/// Descriptor sense, one 09h descriptor: SMART RETURN STATUS answered
/// "passed" (LBA mid/high 4Fh/C2h), status 50h (DRDY | DSC), as QEMU's
/// AHCI disk does behind libata: RECOVERED ERROR, 00h/1Dh.
pub(crate) fn descriptor_passed() -> Vec<u8> {
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
pub(crate) fn fixed_passed() -> Vec<u8> {
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
