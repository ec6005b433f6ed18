use super::*;

#[test]
fn codes_and_labels_round_trip() {
    for t in PelEventType::ALL {
        match t.code() {
            Some(code) => assert_eq!(PelEventType::from_code(code), t),
            None => assert_eq!(t, PelEventType::Other),
        }
    }
    assert_eq!(PelEventType::from_code(0x04).as_label(), "power_on_reset");
    assert_eq!(PelEventType::from_code(0xDE).as_label(), "vendor");
    // 0Eh (sanitize media verification), E0h (TCG) and reserved codes
    for code in [0x00, 0x0E, 0xE0, 0xFF] {
        assert_eq!(PelEventType::from_code(code), PelEventType::Other);
    }
}

#[test]
fn short_data_has_no_detail() {
    assert_eq!(detail(0x02, &[0; 21]), PelDetail::None);
    assert_eq!(detail(0x0D, &[7]), PelDetail::None);
    assert_eq!(detail(0x05, &[]), PelDetail::None);
    assert_eq!(detail(0x04, &[0; 7]), PelDetail::None);
    assert_eq!(
        detail(0x05, &[0x34, 0x12, 0, 0]),
        PelDetail::HardwareError { code: 0x1234 }
    );
}

#[test]
fn descriptions_name_what_changed() {
    let d = PelDetail::FirmwareCommit {
        old: "A1".into(),
        new: "B2".into(),
        action: 1,
        slot: 2,
        sct: 1,
        sc: 0x0B,
    };
    assert_eq!(
        d.describe(),
        "firmware A1 -> B2, slot 2, commit action 1, status sct 1h sc 0bh"
    );
    assert_eq!(PelDetail::None.describe(), "");
}
