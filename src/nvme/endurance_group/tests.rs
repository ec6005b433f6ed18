//! The Endurance Group Information page built by hand at the offsets of
//! layouts.md (NVMe Base 2.0 §5.16.1.10), never through the decoder's struct.

use super::*;
use crate::nvme::testutil::*;

fn page() -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0b0000_0100; // b2: reliability degraded
    buf[1] = 0x01;
    buf[3] = 97; // available spare %
    buf[4] = 10; // threshold %
    buf[5] = 255; // percentage used: more than 254 %
    put_u16(&mut buf, 6, 3);
    put_u128(&mut buf, 32, 1_752_000); // 1 752 000 × 10^9 bytes = 1.752 PB
    put_u128(&mut buf, 48, 2_500);
    put_u128(&mut buf, 64, 1_000);
    put_u128(&mut buf, 80, 1_300);
    put_u128(&mut buf, 96, (1 << 64) + 7); // past u64
    put_u128(&mut buf, 112, 123_456);
    put_u128(&mut buf, 128, 2);
    put_u128(&mut buf, 144, 31);
    put_u128(&mut buf, 160, 960_197_124_096);
    put_u128(&mut buf, 176, 0);
    buf
}

#[test]
fn units_are_billions_of_bytes_and_counters_keep_every_bit() {
    let g = EnduranceGroupLog::parse(&page()).unwrap();
    assert!(g.critical_warning.is_set(2) && !g.critical_warning.is_set(0));
    assert_eq!(g.features, 1);
    assert_eq!(g.available_spare_ratio, 0.97);
    assert_eq!(g.available_spare_threshold_ratio, 0.1);
    assert_eq!(g.percentage_used_ratio, 2.55);
    assert_eq!(g.domain_id, 3);
    assert_eq!(g.endurance_estimate, 1_752_000);
    assert_eq!(g.endurance_estimate_bytes, Some(1_752_000_000_000_000));
    assert_eq!(g.data_read_bytes, Some(2_500_000_000_000));
    assert_eq!(g.data_written_bytes, Some(1_000_000_000_000));
    assert_eq!(g.media_written_bytes, Some(1_300_000_000_000));
    assert_eq!(g.host_read_commands, (1 << 64) + 7);
    assert_eq!(g.host_write_commands, 123_456);
    assert_eq!(g.media_errors, 2);
    assert_eq!(g.error_log_entries, 31);
    assert_eq!(g.total_capacity_bytes, Some(960_197_124_096));
    assert_eq!(g.unallocated_capacity_bytes, Some(0)); // fully allocated
    assert_eq!(g.write_amplification(), Some(1.3));
}

#[test]
fn zero_units_and_capacity_are_not_reported() {
    let mut buf = page();
    for off in [32, 48, 64, 80, 160] {
        put_u128(&mut buf, off, 0);
    }
    put_u128(&mut buf, 176, 5); // meaningless without a total
    let g = EnduranceGroupLog::parse(&buf).unwrap();
    assert_eq!(g.endurance_estimate_bytes, None);
    assert_eq!(g.data_read_bytes, None);
    assert_eq!(g.data_written_bytes, None);
    assert_eq!(g.media_written_bytes, None);
    assert_eq!(g.total_capacity_bytes, None);
    assert_eq!(g.unallocated_capacity_bytes, None);
    assert_eq!(g.write_amplification(), None);
}

#[test]
fn a_huge_estimate_saturates_instead_of_wrapping() {
    let mut buf = page();
    put_u128(&mut buf, 32, u128::MAX / 10);
    let g = EnduranceGroupLog::parse(&buf).unwrap();
    assert_eq!(g.endurance_estimate_bytes, Some(u128::MAX));
}

#[test]
fn a_short_page_is_a_length_error() {
    let err = EnduranceGroupLog::parse(&[0u8; 511]).unwrap_err();
    assert!(err.to_string().contains("endurance group log"), "{err}");
}

#[test]
fn the_layout_struct_puts_fields_at_the_spec_offsets() {
    let mut p = EnduranceGroupLogPage::zeroed();
    p.percent_used = 5;
    p.media_units_written = 9.into();
    p.unalloc_end_grp_cap = 11.into();
    let bytes = p.as_bytes();
    assert_eq!(bytes[5], 5);
    assert_eq!(bytes[80], 9);
    assert_eq!(bytes[176], 11);
}
