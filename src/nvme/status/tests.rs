use super::*;

#[test]
fn ioctl_result_bits() {
    // DNR (bit 14) | SCT 1 (bits 10:8) | SC 09h: Invalid Log Page.
    let s = NvmeStatus::from_ioctl_result(0x4109);
    assert_eq!(
        s,
        NvmeStatus {
            sct: 1,
            sc: 0x09,
            more: false,
            dnr: true
        }
    );
    assert_eq!(s.name(), "Invalid Log Page");
    assert!(s.is_unsupported());
}

#[test]
fn more_bit_and_crd_are_not_sct() {
    // More (bit 13) and CRD (bits 12:11) set, SCT 0, SC 06h.
    let s = NvmeStatus::from_ioctl_result(0x3806);
    assert_eq!((s.sct, s.sc, s.more, s.dnr), (0, 0x06, true, false));
    assert_eq!(s.name(), "Internal Error");
    assert!(!s.is_unsupported());
}

#[test]
fn completion_field_drops_the_phase_bit() {
    // Status 0x4002 (DNR, SCT 0, SC 02h) shifted left by one, phase tag set.
    let s = NvmeStatus::from_completion_field(0x8005);
    assert_eq!((s.sct, s.sc, s.more, s.dnr), (0, 0x02, false, true));
    assert_eq!(s.to_string(), "Invalid Field in Command (sct 0h, sc 2h)");
}

#[test]
fn unsupported_set() {
    let st = |sct, sc| NvmeStatus {
        sct,
        sc,
        more: false,
        dnr: false,
    };
    assert!(st(0, 0x01).is_unsupported());
    assert!(st(0, 0x02).is_unsupported());
    assert!(st(0, 0x0B).is_unsupported());
    assert!(st(1, 0x09).is_unsupported());
    assert!(!st(1, 0x02).is_unsupported());
    assert!(!st(0, 0x00).is_unsupported());
    assert!(st(0, 0).is_success());
}

#[test]
fn names_and_display_of_other_types() {
    let s = NvmeStatus::from_ioctl_result(0x0281);
    assert_eq!(s.to_string(), "Unrecovered Read Error (sct 2h, sc 81h)");
    assert_eq!(
        NvmeStatus::from_ioctl_result(0x07FF).name(),
        "Vendor Specific"
    );
    assert_eq!(
        NvmeStatus::from_ioctl_result(0x0B).name(),
        "Invalid Namespace or Format"
    );
    assert_eq!(
        NvmeStatus::from_ioctl_result(0x0017).name(),
        "Unknown Generic Status"
    );
}
