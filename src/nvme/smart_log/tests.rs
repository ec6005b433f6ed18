use super::*;
use crate::nvme::testutil::*;

#[test]
fn decodes_every_field_at_its_offset() {
    let mut buf = vec![0u8; 512];
    buf[0] = 0b0001_0001;
    put_u16(&mut buf, 1, 323);
    buf[3] = 97;
    buf[4] = 10;
    buf[5] = 105;
    buf[6] = 0b0000_0100;
    put_u128(&mut buf, 32, 0x1_0000_0000_0000_0001);
    put_u128(&mut buf, 48, 3);
    put_u128(&mut buf, 64, (7u128 << 64) | 5);
    put_u128(&mut buf, 80, (1u128 << 100) + 9);
    put_u128(&mut buf, 96, 2);
    put_u128(&mut buf, 112, (1u128 << 64) + 12);
    put_u128(&mut buf, 128, 10);
    put_u128(&mut buf, 144, (2u128 << 64) + 33);
    put_u128(&mut buf, 160, (3u128 << 64) + 4);
    put_u128(&mut buf, 176, (4u128 << 64) + 1000);
    put_u32(&mut buf, 192, 2);
    put_u32(&mut buf, 196, 0xFFFF_FFFF);
    put_u16(&mut buf, 200, 300);
    put_u16(&mut buf, 202, 0);
    put_u16(&mut buf, 214, 260);
    put_u32(&mut buf, 216, 11);
    put_u32(&mut buf, 220, 0xFFFF_FFFF);
    put_u32(&mut buf, 224, 3600);
    put_u32(&mut buf, 228, 42);
    put_u64(&mut buf, 232, 123_456);
    put_u32(&mut buf, 240, 0x0002_0019);

    let s = SmartLog::parse(&buf).unwrap();
    assert!(s.critical_warning.is_set(0));
    assert!(!s.critical_warning.is_set(1));
    assert!(s.critical_warning.is_set(4));
    assert_eq!(s.temperature_celsius, Some(50.0));
    assert_eq!(s.available_spare_ratio, 0.97);
    assert_eq!(s.available_spare_threshold_ratio, 0.10);
    assert_eq!(s.percentage_used_ratio, 1.05);
    assert_eq!(s.endurance_group_warning, 4);
    assert_eq!(s.data_units_read, 18_446_744_073_709_551_617);
    // (2^64 + 1) × 512 000 = 18_446_744_073_709_551_616 × 512 000 + 512 000
    assert_eq!(s.data_read_bytes, 9_444_732_965_739_290_427_904_000);
    assert_eq!(s.data_units_written, 3);
    assert_eq!(s.data_written_bytes, 1_536_000);
    assert_eq!(s.host_read_commands, 129_127_208_515_966_861_317);
    assert_eq!(
        s.host_write_commands,
        1_267_650_600_228_229_401_496_703_205_385
    );
    assert_eq!(s.controller_busy_seconds, 120);
    assert_eq!(s.power_cycles, 18_446_744_073_709_551_628);
    assert_eq!(s.power_on_hours, 10);
    assert_eq!(s.power_on_seconds, 36_000);
    assert_eq!(s.unsafe_shutdowns, 36_893_488_147_419_103_265);
    assert_eq!(s.media_errors, 55_340_232_221_128_654_852);
    assert_eq!(s.error_log_entries, 73_786_976_294_838_207_464);
    assert_eq!(s.warning_temp_seconds, 120);
    assert_eq!(s.critical_temp_seconds, 257_698_037_700);
    assert_eq!(s.sensors_celsius[0], Some(27.0));
    assert_eq!(s.sensors_celsius[1], None);
    assert_eq!(s.sensors_celsius[7], Some(-13.0));
    assert_eq!(s.thermal_transitions, [11, 0xFFFF_FFFF]);
    assert_eq!(s.thermal_seconds, [3600, 42]);
    assert_eq!(s.lifetime_energy_wh, Some(123_456));
    assert_eq!(s.interval_power_raw, 0x0002_0019);
}

#[test]
fn huge_counters_saturate_instead_of_wrapping() {
    let mut buf = vec![0u8; 512];
    put_u128(&mut buf, 32, u128::MAX);
    // Smallest value whose product with 512 000 overflows u128.
    put_u128(&mut buf, 48, u128::MAX / 512_000 + 1);
    put_u128(&mut buf, 96, u128::MAX / 60 + 1);
    put_u128(&mut buf, 128, u128::MAX);
    let s = SmartLog::parse(&buf).unwrap();
    assert_eq!(s.data_read_bytes, u128::MAX);
    assert_eq!(s.data_written_bytes, u128::MAX);
    assert_eq!(s.controller_busy_seconds, u128::MAX);
    assert_eq!(s.power_on_seconds, u128::MAX);
    assert_eq!(s.power_on_hours, u128::MAX);
}

#[test]
fn largest_non_overflowing_data_units() {
    let mut buf = vec![0u8; 512];
    let units = u128::MAX / 512_000;
    put_u128(&mut buf, 32, units);
    let s = SmartLog::parse(&buf).unwrap();
    assert_eq!(s.data_read_bytes, units * 512_000);
    assert!(s.data_read_bytes < u128::MAX);
}

#[test]
fn zeros_mean_not_reported() {
    let s = SmartLog::parse(&[0u8; 512]).unwrap();
    assert_eq!(s.temperature_celsius, None);
    assert_eq!(s.sensors_celsius, [None; 8]);
    assert_eq!(s.lifetime_energy_wh, None);
    assert_eq!(s.critical_warning, CriticalWarning(0));
}

/// Every condition has its byte 0 bit (NVMe Base: bits 0..5), so a new
/// variant cannot go unmapped.
#[test]
fn every_condition_has_a_bit() {
    for c in Condition::ALL {
        assert!(
            CriticalWarning::CONDITIONS.iter().any(|&(x, _)| x == c),
            "{c:?}"
        );
    }
    let bits: Vec<u8> = CriticalWarning::CONDITIONS
        .iter()
        .map(|&(_, b)| b)
        .collect();
    assert_eq!(bits, [0, 1, 2, 3, 4, 5]);
}

#[test]
fn critical_warning_conditions() {
    let cw = CriticalWarning(0b0010_1000);
    let set: Vec<&str> = CriticalWarning::CONDITIONS
        .iter()
        .filter(|(_, bit)| cw.is_set(*bit))
        .map(|(c, _)| c.as_label())
        .collect();
    assert_eq!(set, ["read_only", "pmr_read_only"]);
    assert!(!CriticalWarning(0xFF).is_set(8));
    assert!(CriticalWarning(0x80).is_set(7));
}

#[test]
fn short_page_is_rejected() {
    assert!(matches!(
        SmartLog::parse(&[0u8; 511]),
        Err(ParseError::Length {
            expected: 512,
            got: 511,
            ..
        })
    ));
}
