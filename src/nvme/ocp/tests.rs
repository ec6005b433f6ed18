//! Tests for the OCP C0h decoder: buffers built by hand at the offsets of
//! layouts.md / nvme-cli `struct ocp_smart_extended_log`.

use super::*;
use crate::nvme::testutil::*;

/// The GUID bytes as layouts.md lists them for offset 496.
const GUID_AT_496: [u8; 16] = [
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
];

fn page(version: u16) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    put_u16(&mut buf, 494, version);
    put(&mut buf, 496, &GUID_AT_496);
    buf
}

fn full_page(version: u16) -> Vec<u8> {
    let mut buf = page(version);
    put_u128(&mut buf, 0, (1u128 << 64) | 2);
    put_u128(&mut buf, 16, (3u128 << 64) | 4);
    put_uint(&mut buf, 32, 0x0000_8000_0000_0001, 6);
    put_u16(&mut buf, 38, 98);
    put_uint(&mut buf, 40, 0x0000_0102_0304_0506, 6);
    put_u16(&mut buf, 46, 99);
    put_u64(&mut buf, 48, 11);
    put_u64(&mut buf, 56, 12);
    put_u64(&mut buf, 64, u64::MAX);
    put_u32(&mut buf, 72, 13);
    put_u32(&mut buf, 76, 14);
    buf[80] = 3;
    put_uint(&mut buf, 81, 0x00FF_0000_0000_0001, 7);
    put_u32(&mut buf, 88, 1500);
    put_u32(&mut buf, 92, 1200);
    buf[96] = 5;
    buf[97] = 0x01;
    buf[98] = 1;
    put_u16(&mut buf, 99, 2);
    put_u16(&mut buf, 101, 5);
    buf[103] = 2;
    put_u64(&mut buf, 104, 15);
    put_u32(&mut buf, 112, 16);
    buf[120] = 7;
    put_u16(&mut buf, 128, 95);
    put(&mut buf, 130, &[0x0A, 0x0B, 0x0C, 0x0D]);
    put_u64(&mut buf, 136, 17);
    put_u64(&mut buf, 144, 18);
    put_u64(&mut buf, 152, 19);
    put_u128(&mut buf, 160, (5u128 << 64) | 20);
    put_u128(&mut buf, 176, (6u128 << 64) | 21);
    put_u64(&mut buf, 192, 22);
    put_u64(&mut buf, 200, 23);
    put(&mut buf, 208, b"FWR0024 ");
    put_u16(&mut buf, 216, 64);
    put_u16(&mut buf, 218, 2);
    put_u16(&mut buf, 220, 1);
    buf[222] = 71;
    buf[223] = 0x03;
    put_u64(&mut buf, 224, 250);
    put_u32(&mut buf, 232, 26);
    put_u32(&mut buf, 236, 27);
    buf[240] = 100;
    put_u32(&mut buf, 244, 28);
    buf[248] = 99;
    put_u32(&mut buf, 252, 29);
    buf[256] = 98;
    put_u16(&mut buf, 260, 2500);
    put_u16(&mut buf, 262, 1800);
    put_uint(&mut buf, 264, 0x0000_1000_0000_0000, 6);
    put(&mut buf, 270, b"FW1.2   ");
    put(&mut buf, 278, &[0x42; 16]);
    put(&mut buf, 294, b"build-label-7");
    put_uint(&mut buf, 358, 0x0000_0000_0001_0000, 6);
    put_u16(&mut buf, 364, 97);
    buf
}

#[test]
fn decodes_base_fields_at_their_offsets() {
    let log = OcpSmartLog::parse(&full_page(3)).unwrap();
    assert_eq!(log.physical_media_units_written, 18_446_744_073_709_551_618);
    assert_eq!(log.physical_media_units_read, 55_340_232_221_128_654_852);
    assert_eq!(log.bad_user_nand_blocks_raw, 0x8000_0000_0001);
    assert_eq!(log.bad_user_nand_blocks_normalized, 98);
    assert_eq!(log.bad_system_nand_blocks_raw, 0x0102_0304_0506);
    assert_eq!(log.bad_system_nand_blocks_normalized, 99);
    assert_eq!(log.xor_recovery_count, 11);
    assert_eq!(log.uncorrectable_read_errors, 12);
    assert_eq!(log.soft_ecc_errors, u64::MAX);
    assert_eq!(log.end_to_end_detected_errors, 13);
    assert_eq!(log.end_to_end_corrected_errors, 14);
    assert_eq!(log.system_data_percent_used, 3);
    assert_eq!(log.refresh_count, 0x00FF_0000_0000_0001);
    assert_eq!(log.max_user_data_erase_count, 1500);
    assert_eq!(log.min_user_data_erase_count, 1200);
    assert_eq!(log.thermal_throttling_events, 5);
    assert_eq!(log.current_throttling_status, 1);
    assert_eq!(log.dssd_errata_version, Some(1));
    assert_eq!(log.dssd_point_version, Some(2));
    assert_eq!(log.dssd_minor_version, Some(5));
    assert_eq!(log.dssd_major_version, Some(2));
    assert_eq!(log.pcie_correctable_errors, 15);
    assert_eq!(log.incomplete_shutdowns, 16);
    assert_eq!(log.percent_free_blocks, 7);
    assert_eq!(log.capacitor_health, 95);
    assert_eq!(log.nvme_base_errata_version, Some(0x0A));
    // Command set errata from version 4, PCIe / MI errata from 5.
    assert_eq!(log.nvme_cmdset_errata_version, None);
    assert_eq!(log.nvme_over_pcie_errata_version, None);
    assert_eq!(log.nvme_mi_errata_version, None);
    assert_eq!(log.unaligned_io, 17);
    assert_eq!(log.security_version_number, 18);
    assert_eq!(log.nuse, 19);
    assert_eq!(log.plp_start_count, 92_233_720_368_547_758_100);
    assert_eq!(log.endurance_estimate, 110_680_464_442_257_309_717);
    assert_eq!(log.pcie_link_retraining_count, Some(22));
    assert_eq!(log.power_state_change_count, Some(23));
    assert_eq!(log.log_page_version, 3);
    assert_eq!(log.log_page_guid, GUID_AT_496);
}

#[test]
fn version_3_has_none_of_the_later_fields() {
    let log = OcpSmartLog::parse(&full_page(3)).unwrap();
    assert_eq!(log.lowest_permitted_fw_rev, None);
    assert_eq!(log.total_media_dies, None);
    assert_eq!(log.dssd_firmware_revision, None);
    assert_eq!(log.form_factor, None);
    assert_eq!(log.die_in_use_bad_nand_block_raw, None);
}

/// Log page version 2 is OCP 1.0 (illumos `ocp.h`: "v1.0: 2, v2.0: 3,
/// v2.5: 4"): the bytes illumos marks "(2.0)" are reserved there.
#[test]
fn version_2_is_ocp_1_0_without_the_2_0_fields() {
    let log = OcpSmartLog::parse(&full_page(2)).unwrap();
    assert_eq!(log.pcie_link_retraining_count, None);
    assert_eq!(log.power_state_change_count, None);
    assert_eq!(log.dssd_errata_version, None);
    assert_eq!(log.dssd_point_version, None);
    assert_eq!(log.dssd_minor_version, None);
    assert_eq!(log.dssd_major_version, None);
    assert_eq!(log.nvme_base_errata_version, None);
    assert_eq!(log.lowest_permitted_fw_rev, None);
    // The 1.0 fields are there.
    assert_eq!(log.capacitor_health, 95);
    assert_eq!(log.incomplete_shutdowns, 16);
    assert_eq!(log.plp_start_count, 92_233_720_368_547_758_100);
}

#[test]
fn version_4_adds_cmdset_errata_and_lowest_permitted_fw_rev_as_text() {
    let log = OcpSmartLog::parse(&full_page(4)).unwrap();
    assert_eq!(log.lowest_permitted_fw_rev.as_deref(), Some("FWR0024"));
    assert_eq!(log.nvme_cmdset_errata_version, Some(0x0B));
    assert_eq!(log.nvme_over_pcie_errata_version, None);
    assert_eq!(log.total_media_dies, None);
    assert_eq!(log.command_timeouts, None);
}

#[test]
fn version_5_adds_die_power_and_firmware_fields() {
    let log = OcpSmartLog::parse(&full_page(5)).unwrap();
    assert_eq!(log.lowest_permitted_fw_rev.as_deref(), Some("FWR0024"));
    assert_eq!(log.nvme_over_pcie_errata_version, Some(0x0C));
    assert_eq!(log.nvme_mi_errata_version, Some(0x0D));
    assert_eq!(log.total_media_dies, Some(64));
    assert_eq!(log.total_die_failure_tolerance, Some(2));
    assert_eq!(log.media_dies_offline, Some(1));
    assert_eq!(log.max_temperature_recorded, Some(71));
    assert_eq!(log.nand_avg_erase_count, Some(250));
    assert_eq!(log.command_timeouts, Some(26));
    assert_eq!(log.sys_area_program_fail_count_raw, Some(27));
    assert_eq!(log.sys_area_program_fail_count_normalized, Some(100));
    assert_eq!(log.sys_area_uncorr_read_count_raw, Some(28));
    assert_eq!(log.sys_area_uncorr_read_count_normalized, Some(99));
    assert_eq!(log.sys_area_erase_fail_count_raw, Some(29));
    assert_eq!(log.sys_area_erase_fail_count_normalized, Some(98));
    assert_eq!(log.max_peak_power_capability, Some(2500));
    assert_eq!(log.current_max_avg_power, Some(1800));
    assert_eq!(log.lifetime_power_consumed, Some(0x1000_0000_0000));
    assert_eq!(log.dssd_firmware_revision.as_deref(), Some("FW1.2"));
    assert_eq!(log.dssd_firmware_build_uuid, Some([0x42; 16]));
    assert_eq!(
        log.dssd_firmware_build_label.as_deref(),
        Some("build-label-7")
    );
    assert_eq!(log.form_factor, None);
    assert_eq!(log.die_in_use_bad_nand_block_raw, None);
    assert_eq!(log.die_in_use_bad_nand_block_normalized, None);
}

#[test]
fn version_6_and_later_add_form_factor_and_die_in_use() {
    for version in [6, 7, 0xFFFF] {
        let log = OcpSmartLog::parse(&full_page(version)).unwrap();
        assert_eq!(log.form_factor, Some(3));
        assert_eq!(log.die_in_use_bad_nand_block_raw, Some(65_536));
        assert_eq!(log.die_in_use_bad_nand_block_normalized, Some(97));
        assert_eq!(log.total_media_dies, Some(64));
    }
}

#[test]
fn guid_wrong_by_one_byte_is_invalid() {
    for i in 0..16 {
        let mut buf = page(3);
        buf[496 + i] ^= 0x01;
        match OcpSmartLog::parse(&buf) {
            Err(ParseError::Invalid { page, reason }) => {
                assert_eq!(page, "ocp smart log");
                assert!(reason.starts_with("log page guid mismatch: "), "{reason}");
            }
            other => panic!("byte {i}: expected Invalid, got {other:?}"),
        }
    }
}

#[test]
fn guid_in_reversed_byte_order_is_invalid() {
    let mut buf = page(3);
    let mut rev = GUID_AT_496;
    rev.reverse();
    put(&mut buf, 496, &rev);
    let err = OcpSmartLog::parse(&buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ocp smart log: log page guid mismatch: expected c5af1028eabff2a49c4f6f7cc914d5af, \
         got afd514c97c6f4f9ca4f2bfea2810afc5 (bytes 496..512; not an ocp c0h page)"
    );
}

#[test]
fn short_page_is_a_length_error() {
    assert!(matches!(
        OcpSmartLog::parse(&page(3)[..511]),
        Err(ParseError::Length {
            expected: 512,
            got: 511,
            ..
        })
    ));
}

#[test]
fn throttling_and_capacitor_helpers() {
    let mut buf = page(3);
    let log = OcpSmartLog::parse(&buf).unwrap();
    assert_eq!(log.throttling_active(), Some(false));
    assert_eq!(log.throttle_level(), Some(0));
    assert_eq!(log.capacitor_health_ratio(), Some(0.0));

    buf[97] = 0x02;
    put_u16(&mut buf, 128, 87);
    let log = OcpSmartLog::parse(&buf).unwrap();
    assert_eq!(log.throttling_active(), Some(true));
    assert_eq!(log.throttle_level(), Some(2));
    assert_eq!(log.capacitor_health_ratio(), Some(0.87));

    put_u16(&mut buf, 128, 100);
    assert_eq!(
        OcpSmartLog::parse(&buf).unwrap().capacitor_health_ratio(),
        Some(1.0)
    );
    put_u16(&mut buf, 128, 101);
    assert_eq!(
        OcpSmartLog::parse(&buf).unwrap().capacitor_health_ratio(),
        None
    );
    put_u16(&mut buf, 128, 0xFFFF);
    assert_eq!(
        OcpSmartLog::parse(&buf).unwrap().capacitor_health_ratio(),
        None
    );
}

/// Byte 97 per the WDC plugin's `cloud_smart_log_thermal_status[]`: 00h
/// none, 01h/02h/03h first/second/third level, 04h-FFh reserved.
#[test]
fn throttling_status_is_an_enumeration_with_reserved_values() {
    for (status, level) in [
        (0x00, Some(0)),
        (0x01, Some(1)),
        (0x03, Some(3)),
        (0x04, None),
        (0x07, None),
        (0xFF, None),
    ] {
        let mut buf = page(3);
        buf[97] = status;
        let log = OcpSmartLog::parse(&buf).unwrap();
        assert_eq!(log.throttle_level(), level, "status {status:02x}h");
        assert_eq!(log.throttling_active(), level.map(|l| l >= 1));
    }
}

#[test]
fn foreign_guid_tells_another_vendors_c0h_page_apart() {
    assert_eq!(foreign_guid(&page(3)), None);
    assert_eq!(foreign_guid(&page(3)[..300]), None);
    let mut wdc = page(3);
    put(&mut wdc, 496, &[0x11; 16]);
    assert_eq!(
        foreign_guid(&wdc).as_deref(),
        Some("11111111111111111111111111111111")
    );
}
