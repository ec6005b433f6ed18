//! OCP Datacenter NVMe SSD "SMART / Health Information Extended" log page
//! (LID C0h, 512 bytes), read with the OCP UUID index.
//!
//! The page is accepted only if its GUID (bytes 511:496) is the OCP one, as
//! nvme-cli `plugins/ocp/ocp-smart-extended-log.c` checks it; a C0h page
//! with another GUID is some vendor's own page ([`foreign_guid`]).
//!
//! # Which log page version carries which field
//!
//! A field a page's revision does not define is reserved there and is
//! `None` (no series), never a 0. Two independent sources give the
//! boundaries, and each field is gated on the later of the two:
//!
//! - illumos `usr/src/uts/common/sys/nvme/ocp.h` (written against OCP 2.0
//!   and 2.5) numbers the log page version "v1.0: 2, v2.0: 3, v2.5: 4" and
//!   marks fields added after 1.0 with "(2.0)" or "(2.5)"; it defines
//!   nothing past byte 215 (reserved up to the version field).
//! - nvme-cli `plugins/ocp/ocp-print-stdout.c` / `ocp-print-json.c` print
//!   the DSSD version bytes, link retraining and power-state changes from
//!   version 2, the command-set errata and lowest permitted firmware
//!   revision from 4, the die / system-area / power / DSSD firmware fields
//!   and the PCIe and MI errata from 5, and form factor and die-in-use bad
//!   blocks from 6.
//!
//! | bytes | field | illumos | nvme-cli | gate |
//! |---|---|---|---|---|
//! | 0..97, 104..129, 136..191 | counters, status, capacitor health | 1.0 (v2) | always | any |
//! | 98..103 | DSSD errata/point/minor/major version | 2.0 (v3) | v2 | **v3** |
//! | 130 | NVMe base errata version | 2.0 (v3) | v2 | **v3** |
//! | 131 | NVMe command set errata version | 2.5 (v4) | v4 | **v4** |
//! | 132, 133 | NVMe over PCIe / NVMe-MI errata | reserved to 2.5 | v5 | **v5** |
//! | 192..199 | PCIe link retraining count | 2.0 (v3) | v2 | **v3** |
//! | 200..207 | power state change count | 2.0 (v3) | v2 | **v3** |
//! | 208..215 | lowest permitted firmware revision (ASCII) | unmarked | v4 | **v4** |
//! | 216..365 | dies, system area, power, DSSD firmware | reserved to 2.5 | v5 | **v5** |
//! | 223, 358..365 | form factor, die-in-use bad blocks | reserved to 2.5 | v6 | **v6** |
//!
//! Bytes 208..215 are ASCII (`char[8]`, as nvme-cli and the public OCP
//! validators print them), so they are decoded as text, never as a number.

use serde::Serialize;

use super::OCP_SMART_LOG_LEN;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "ocp smart log";

/// Log page GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5h as stored at bytes
/// 511:496 (least significant byte first).
pub const OCP_SMART_LOG_GUID: [u8; 16] = [
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
];

/// The OCP SMART / Health Information Extended log.
///
/// Names follow nvme-cli's v2 JSON keys where they exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OcpSmartLog {
    /// Bytes 15:0: physical media units written (OCP: bytes; not verified).
    pub physical_media_units_written: u128,
    /// Bytes 31:16: physical media units read.
    pub physical_media_units_read: u128,
    /// Bytes 37:32: bad user NAND blocks, raw count (48-bit).
    pub bad_user_nand_blocks_raw: u64,
    /// Bytes 39:38: bad user NAND blocks, normalized.
    pub bad_user_nand_blocks_normalized: u16,
    /// Bytes 45:40: bad system NAND blocks, raw count (48-bit).
    pub bad_system_nand_blocks_raw: u64,
    /// Bytes 47:46: bad system NAND blocks, normalized.
    pub bad_system_nand_blocks_normalized: u16,
    /// Bytes 55:48: XOR recovery count.
    pub xor_recovery_count: u64,
    /// Bytes 63:56: uncorrectable read error count.
    pub uncorrectable_read_errors: u64,
    /// Bytes 71:64: soft ECC error count.
    pub soft_ecc_errors: u64,
    /// Bytes 75:72: end-to-end detected errors.
    pub end_to_end_detected_errors: u32,
    /// Bytes 79:76: end-to-end corrected errors.
    pub end_to_end_corrected_errors: u32,
    /// Byte 80: system data percent used.
    pub system_data_percent_used: u8,
    /// Bytes 87:81: refresh count (56-bit).
    pub refresh_count: u64,
    /// Bytes 91:88: maximum user data erase count.
    pub max_user_data_erase_count: u32,
    /// Bytes 95:92: minimum user data erase count.
    pub min_user_data_erase_count: u32,
    /// Byte 96: number of thermal throttling events.
    pub thermal_throttling_events: u8,
    /// Byte 97: current throttling status, an enumeration; see
    /// [`OcpSmartLog::throttle_level`].
    pub current_throttling_status: u8,
    /// Byte 98: DSSD specification errata version (version ≥ 3).
    pub dssd_errata_version: Option<u8>,
    /// Bytes 100:99: DSSD specification point version (version ≥ 3).
    pub dssd_point_version: Option<u16>,
    /// Bytes 102:101: DSSD specification minor version (version ≥ 3).
    pub dssd_minor_version: Option<u16>,
    /// Byte 103: DSSD specification major version (version ≥ 3).
    pub dssd_major_version: Option<u8>,
    /// Bytes 111:104: PCIe correctable error count.
    pub pcie_correctable_errors: u64,
    /// Bytes 115:112: incomplete shutdowns.
    pub incomplete_shutdowns: u32,
    /// Byte 120: percent free blocks.
    pub percent_free_blocks: u8,
    /// Bytes 129:128: PLP capacitor health, raw; see
    /// [`OcpSmartLog::capacitor_health_ratio`].
    pub capacitor_health: u16,
    /// Byte 130: NVMe Base specification errata version (version ≥ 3).
    pub nvme_base_errata_version: Option<u8>,
    /// Byte 131: NVMe command set errata version (version ≥ 4).
    pub nvme_cmdset_errata_version: Option<u8>,
    /// Byte 132: NVMe over PCIe errata version (version ≥ 5).
    pub nvme_over_pcie_errata_version: Option<u8>,
    /// Byte 133: NVMe-MI errata version (version ≥ 5).
    pub nvme_mi_errata_version: Option<u8>,
    /// Bytes 143:136: unaligned I/O count.
    pub unaligned_io: u64,
    /// Bytes 151:144: security version number.
    pub security_version_number: u64,
    /// Bytes 159:152: total namespace utilization (NUSE).
    pub nuse: u64,
    /// Bytes 175:160: PLP start count.
    pub plp_start_count: u128,
    /// Bytes 191:176: endurance estimate.
    pub endurance_estimate: u128,
    /// Bytes 199:192: PCIe link retraining count (version ≥ 3).
    pub pcie_link_retraining_count: Option<u64>,
    /// Bytes 207:200: power state change count (version ≥ 3).
    pub power_state_change_count: Option<u64>,
    /// Bytes 215:208: lowest permitted firmware revision, ASCII (version ≥ 4).
    pub lowest_permitted_fw_rev: Option<String>,
    /// Bytes 217:216: total media dies (version ≥ 5).
    pub total_media_dies: Option<u16>,
    /// Bytes 219:218: total die failure tolerance (version ≥ 5).
    pub total_die_failure_tolerance: Option<u16>,
    /// Bytes 221:220: media dies offline (version ≥ 5).
    pub media_dies_offline: Option<u16>,
    /// Byte 222: maximum temperature recorded, raw byte as nvme-cli prints
    /// it (version ≥ 5).
    pub max_temperature_recorded: Option<u8>,
    /// Byte 223: form factor (version ≥ 6).
    pub form_factor: Option<u8>,
    /// Bytes 231:224: NAND average erase count (version ≥ 5).
    pub nand_avg_erase_count: Option<u64>,
    /// Bytes 235:232: command timeouts (version ≥ 5).
    pub command_timeouts: Option<u32>,
    /// Bytes 239:236: system area program fail count, raw (version ≥ 5).
    pub sys_area_program_fail_count_raw: Option<u32>,
    /// Byte 240: system area program fail count, normalized (version ≥ 5).
    pub sys_area_program_fail_count_normalized: Option<u8>,
    /// Bytes 247:244: system area uncorrectable read count, raw (version ≥ 5).
    pub sys_area_uncorr_read_count_raw: Option<u32>,
    /// Byte 248: system area uncorrectable read count, normalized (version ≥ 5).
    pub sys_area_uncorr_read_count_normalized: Option<u8>,
    /// Bytes 255:252: system area erase fail count, raw (version ≥ 5).
    pub sys_area_erase_fail_count_raw: Option<u32>,
    /// Byte 256: system area erase fail count, normalized (version ≥ 5).
    pub sys_area_erase_fail_count_normalized: Option<u8>,
    /// Bytes 261:260: maximum peak power capability (version ≥ 5).
    pub max_peak_power_capability: Option<u16>,
    /// Bytes 263:262: current maximum average power (version ≥ 5).
    pub current_max_avg_power: Option<u16>,
    /// Bytes 269:264: lifetime power consumed, 48-bit (version ≥ 5).
    pub lifetime_power_consumed: Option<u64>,
    /// Bytes 277:270: DSSD firmware revision, ASCII (version ≥ 5).
    pub dssd_firmware_revision: Option<String>,
    /// Bytes 293:278: DSSD firmware build UUID (version ≥ 5).
    pub dssd_firmware_build_uuid: Option<[u8; 16]>,
    /// Bytes 357:294: DSSD firmware build label, ASCII (version ≥ 5).
    pub dssd_firmware_build_label: Option<String>,
    /// Bytes 363:358: die-in-use bad NAND blocks, raw, 48-bit (version ≥ 6).
    pub die_in_use_bad_nand_block_raw: Option<u64>,
    /// Bytes 365:364: die-in-use bad NAND blocks, normalized (version ≥ 6).
    pub die_in_use_bad_nand_block_normalized: Option<u16>,
    /// Bytes 495:494: log page version.
    pub log_page_version: u16,
    /// Bytes 511:496: log page GUID, equal to [`OCP_SMART_LOG_GUID`].
    pub log_page_guid: [u8; 16],
}

impl OcpSmartLog {
    /// Decodes a 512-byte C0h page; rejects it if the GUID is not the OCP one.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, OCP_SMART_LOG_LEN)?;
        let log_page_guid = b.u128(496).to_le_bytes();
        if log_page_guid != OCP_SMART_LOG_GUID {
            return Err(ParseError::Invalid {
                page: PAGE,
                reason: format!(
                    "log page guid mismatch: expected {}, got {} (bytes 496..512; not an ocp c0h page)",
                    hex(&OCP_SMART_LOG_GUID),
                    hex(&log_page_guid)
                ),
            });
        }
        let version = b.u16(494);
        let v3 = version >= 3;
        let v4 = version >= 4;
        let v5 = version >= 5;
        let v6 = version >= 6;
        Ok(Self {
            physical_media_units_written: b.u128(0),
            physical_media_units_read: b.u128(16),
            bad_user_nand_blocks_raw: b.u64_n(32, 6),
            bad_user_nand_blocks_normalized: b.u16(38),
            bad_system_nand_blocks_raw: b.u64_n(40, 6),
            bad_system_nand_blocks_normalized: b.u16(46),
            xor_recovery_count: b.u64(48),
            uncorrectable_read_errors: b.u64(56),
            soft_ecc_errors: b.u64(64),
            end_to_end_detected_errors: b.u32(72),
            end_to_end_corrected_errors: b.u32(76),
            system_data_percent_used: b.u8(80),
            refresh_count: b.u64_n(81, 7),
            max_user_data_erase_count: b.u32(88),
            min_user_data_erase_count: b.u32(92),
            thermal_throttling_events: b.u8(96),
            current_throttling_status: b.u8(97),
            dssd_errata_version: v3.then(|| b.u8(98)),
            dssd_point_version: v3.then(|| b.u16(99)),
            dssd_minor_version: v3.then(|| b.u16(101)),
            dssd_major_version: v3.then(|| b.u8(103)),
            pcie_correctable_errors: b.u64(104),
            incomplete_shutdowns: b.u32(112),
            percent_free_blocks: b.u8(120),
            capacitor_health: b.u16(128),
            nvme_base_errata_version: v3.then(|| b.u8(130)),
            nvme_cmdset_errata_version: v4.then(|| b.u8(131)),
            nvme_over_pcie_errata_version: v5.then(|| b.u8(132)),
            nvme_mi_errata_version: v5.then(|| b.u8(133)),
            unaligned_io: b.u64(136),
            security_version_number: b.u64(144),
            nuse: b.u64(152),
            plp_start_count: b.u128(160),
            endurance_estimate: b.u128(176),
            pcie_link_retraining_count: v3.then(|| b.u64(192)),
            power_state_change_count: v3.then(|| b.u64(200)),
            lowest_permitted_fw_rev: v4.then(|| b.ascii(208, 8)),
            total_media_dies: v5.then(|| b.u16(216)),
            total_die_failure_tolerance: v5.then(|| b.u16(218)),
            media_dies_offline: v5.then(|| b.u16(220)),
            max_temperature_recorded: v5.then(|| b.u8(222)),
            form_factor: v6.then(|| b.u8(223)),
            nand_avg_erase_count: v5.then(|| b.u64(224)),
            command_timeouts: v5.then(|| b.u32(232)),
            sys_area_program_fail_count_raw: v5.then(|| b.u32(236)),
            sys_area_program_fail_count_normalized: v5.then(|| b.u8(240)),
            sys_area_uncorr_read_count_raw: v5.then(|| b.u32(244)),
            sys_area_uncorr_read_count_normalized: v5.then(|| b.u8(248)),
            sys_area_erase_fail_count_raw: v5.then(|| b.u32(252)),
            sys_area_erase_fail_count_normalized: v5.then(|| b.u8(256)),
            max_peak_power_capability: v5.then(|| b.u16(260)),
            current_max_avg_power: v5.then(|| b.u16(262)),
            lifetime_power_consumed: v5.then(|| b.u64_n(264, 6)),
            dssd_firmware_revision: v5.then(|| b.ascii(270, 8)),
            dssd_firmware_build_uuid: v5.then(|| b.u128(278).to_le_bytes()),
            dssd_firmware_build_label: v5.then(|| b.ascii(294, 64)),
            die_in_use_bad_nand_block_raw: v6.then(|| b.u64_n(358, 6)),
            die_in_use_bad_nand_block_normalized: v6.then(|| b.u16(364)),
            log_page_version: version,
            log_page_guid,
        })
    }

    /// The current throttling level, 0 (not throttling) to 3, or `None`
    /// for a reserved value.
    ///
    /// Byte 97 is an enumeration: 00h not throttling, 01h/02h/03h the
    /// first/second/third throttling level, 04h–FFh reserved (nvme-cli's
    /// WDC plugin `cloud_smart_log_thermal_status[]` names the four values;
    /// its FADU plugin and Samsung's public OCP 2.5 validator agree).
    pub fn throttle_level(&self) -> Option<u8> {
        (self.current_throttling_status <= 3).then_some(self.current_throttling_status)
    }

    /// Whether the drive is throttling now (level ≥ 1), `None` for a
    /// reserved status value.
    pub fn throttling_active(&self) -> Option<bool> {
        self.throttle_level().map(|l| l >= 1)
    }

    /// PLP capacitor health as a ratio (percent / 100), or `None` when the
    /// value is outside 0..=100 (e.g. FFFFh).
    ///
    /// nvme-cli prints bytes 129:128 as a plain decimal u16 without a unit;
    /// layouts.md says the OCP specification defines a percentage. Neither
    /// the unit nor a "not supported" encoding could be verified here, so
    /// values above 100 are treated as not reported. Caveat: a drive without
    /// PLP capacitors that reports 0 reads as 0.0.
    pub fn capacitor_health_ratio(&self) -> Option<f64> {
        (self.capacitor_health <= 100).then(|| f64::from(self.capacitor_health) / 100.0)
    }
}

/// The GUID of a C0h page that is not the OCP page, as hex; `None` when
/// the GUID is OCP's or the page is too short to carry one (the decoder
/// then reports the length).
pub fn foreign_guid(buf: &[u8]) -> Option<String> {
    let guid = buf.get(496..OCP_SMART_LOG_LEN)?;
    (guid != OCP_SMART_LOG_GUID).then(|| hex(guid))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "ocp_tests.rs"]
mod tests;
