use super::*;

#[test]
fn count_register_values() {
    assert_eq!(PowerMode::from_count(0x00), PowerMode::Standby);
    assert!(PowerMode::from_count(0x00).is_standby());
    assert_eq!(PowerMode::from_count(0x40), PowerMode::NvCacheSpunDown);
    assert_eq!(PowerMode::from_count(0x41), PowerMode::NvCacheSpunUp);
    assert_eq!(PowerMode::from_count(0x80), PowerMode::Idle);
    assert_eq!(PowerMode::from_count(0xFF), PowerMode::ActiveOrIdle);
    assert_eq!(PowerMode::from_count(0x83), PowerMode::Idle);
    assert!(PowerMode::from_count(0x01).is_standby());
    assert_eq!(PowerMode::from_count(0x84), PowerMode::Unknown(0x84));
    assert_eq!(PowerMode::from_count(0x02), PowerMode::Unknown(0x02));
    for c in [0x40, 0x41, 0x80, 0x81, 0x84, 0xFF] {
        assert!(!PowerMode::from_count(c).is_standby());
    }
    assert_eq!(PowerMode::from_count(0xFF).name(), "active_or_idle");
}

#[test]
fn command_cdb() {
    // E5h, non-data (protocol 3), CK_COND: bytes 1/2 = 06h/2Ch.
    assert_eq!(
        command().cdb(),
        [
            0x85, 0x06, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0xE5, 0x00
        ]
    );
    assert_eq!(command().data_len(), 0);
}
