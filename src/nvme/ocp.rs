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
use zerocopy::little_endian::{U16, U32, U64, U128};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::OCP_SMART_LOG_LEN;
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "ocp smart log";

/// Log page GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5h as stored at bytes
/// 511:496 (least significant byte first).
pub const OCP_SMART_LOG_GUID: [u8; 16] = [
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
];

/// The page as OCP Datacenter NVMe SSD 2.5 section 4.8.2 lays it out
/// (byte ranges as in the table above, names as in the decoded struct
/// below). The one definition of these offsets: the decoder reads through
/// it and the demo builds its page with it. Little-endian, unaligned
/// (zerocopy's byte-order types); 48- and 56-bit counters are byte arrays.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct OcpSmartLogPage {
    pub physical_media_units_written: U128,
    pub physical_media_units_read: U128,
    pub bad_user_nand_blocks_raw: [u8; 6],
    pub bad_user_nand_blocks_normalized: U16,
    pub bad_system_nand_blocks_raw: [u8; 6],
    pub bad_system_nand_blocks_normalized: U16,
    pub xor_recovery_count: U64,
    pub uncorrectable_read_errors: U64,
    pub soft_ecc_errors: U64,
    pub end_to_end_detected_errors: U32,
    pub end_to_end_corrected_errors: U32,
    pub system_data_percent_used: u8,
    pub refresh_count: [u8; 7],
    pub max_user_data_erase_count: U32,
    pub min_user_data_erase_count: U32,
    pub thermal_throttling_events: u8,
    pub current_throttling_status: u8,
    pub dssd_errata_version: u8,
    pub dssd_point_version: U16,
    pub dssd_minor_version: U16,
    pub dssd_major_version: u8,
    pub pcie_correctable_errors: U64,
    pub incomplete_shutdowns: U32,
    pub rsvd116: [u8; 4],
    pub percent_free_blocks: u8,
    pub rsvd121: [u8; 7],
    pub capacitor_health: U16,
    pub nvme_base_errata_version: u8,
    pub nvme_cmdset_errata_version: u8,
    pub nvme_over_pcie_errata_version: u8,
    pub nvme_mi_errata_version: u8,
    pub rsvd134: [u8; 2],
    pub unaligned_io: U64,
    pub security_version_number: U64,
    pub nuse: U64,
    pub plp_start_count: U128,
    pub endurance_estimate: U128,
    pub pcie_link_retraining_count: U64,
    pub power_state_change_count: U64,
    pub lowest_permitted_fw_rev: [u8; 8],
    pub total_media_dies: U16,
    pub total_die_failure_tolerance: U16,
    pub media_dies_offline: U16,
    pub max_temperature_recorded: u8,
    pub form_factor: u8,
    pub nand_avg_erase_count: U64,
    pub command_timeouts: U32,
    pub sys_area_program_fail_count_raw: U32,
    pub sys_area_program_fail_count_normalized: u8,
    pub rsvd241: [u8; 3],
    pub sys_area_uncorr_read_count_raw: U32,
    pub sys_area_uncorr_read_count_normalized: u8,
    pub rsvd249: [u8; 3],
    pub sys_area_erase_fail_count_raw: U32,
    pub sys_area_erase_fail_count_normalized: u8,
    pub rsvd257: [u8; 3],
    pub max_peak_power_capability: U16,
    pub current_max_avg_power: U16,
    pub lifetime_power_consumed: [u8; 6],
    pub dssd_firmware_revision: [u8; 8],
    pub dssd_firmware_build_uuid: [u8; 16],
    pub dssd_firmware_build_label: [u8; 64],
    pub die_in_use_bad_nand_block_raw: [u8; 6],
    pub die_in_use_bad_nand_block_normalized: U16,
    pub rsvd366: [u8; 128],
    pub log_page_version: U16,
    pub log_page_guid: [u8; 16],
}

const _: () = assert!(size_of::<OcpSmartLogPage>() == OCP_SMART_LOG_LEN);

impl OcpSmartLogPage {
    /// A page of zeros with the OCP GUID, to fill in.
    pub fn new() -> Self {
        let mut p = <Self as zerocopy::FromZeros>::new_zeroed();
        p.log_page_guid = OCP_SMART_LOG_GUID;
        p
    }
}

impl Default for OcpSmartLogPage {
    fn default() -> Self {
        Self::new()
    }
}

/// A little-endian counter narrower than 64 bits.
fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// `n` as the low `N` bytes, little-endian (the demo's 48-bit fields).
pub fn le_bytes<const N: usize>(n: u64) -> [u8; N] {
    let mut out = [0; N];
    for (o, b) in out.iter_mut().zip(n.to_le_bytes()) {
        *o = b;
    }
    out
}

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
        let (p, _) = OcpSmartLogPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: OCP_SMART_LOG_LEN,
            got: buf.len(),
        })?;
        let log_page_guid = p.log_page_guid;
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
        let version = p.log_page_version.get();
        let v3 = version >= 3;
        let v4 = version >= 4;
        let v5 = version >= 5;
        let v6 = version >= 6;
        Ok(Self {
            physical_media_units_written: p.physical_media_units_written.get(),
            physical_media_units_read: p.physical_media_units_read.get(),
            bad_user_nand_blocks_raw: le(&p.bad_user_nand_blocks_raw),
            bad_user_nand_blocks_normalized: p.bad_user_nand_blocks_normalized.get(),
            bad_system_nand_blocks_raw: le(&p.bad_system_nand_blocks_raw),
            bad_system_nand_blocks_normalized: p.bad_system_nand_blocks_normalized.get(),
            xor_recovery_count: p.xor_recovery_count.get(),
            uncorrectable_read_errors: p.uncorrectable_read_errors.get(),
            soft_ecc_errors: p.soft_ecc_errors.get(),
            end_to_end_detected_errors: p.end_to_end_detected_errors.get(),
            end_to_end_corrected_errors: p.end_to_end_corrected_errors.get(),
            system_data_percent_used: p.system_data_percent_used,
            refresh_count: le(&p.refresh_count),
            max_user_data_erase_count: p.max_user_data_erase_count.get(),
            min_user_data_erase_count: p.min_user_data_erase_count.get(),
            thermal_throttling_events: p.thermal_throttling_events,
            current_throttling_status: p.current_throttling_status,
            dssd_errata_version: v3.then_some(p.dssd_errata_version),
            dssd_point_version: v3.then(|| p.dssd_point_version.get()),
            dssd_minor_version: v3.then(|| p.dssd_minor_version.get()),
            dssd_major_version: v3.then_some(p.dssd_major_version),
            pcie_correctable_errors: p.pcie_correctable_errors.get(),
            incomplete_shutdowns: p.incomplete_shutdowns.get(),
            percent_free_blocks: p.percent_free_blocks,
            capacitor_health: p.capacitor_health.get(),
            nvme_base_errata_version: v3.then_some(p.nvme_base_errata_version),
            nvme_cmdset_errata_version: v4.then_some(p.nvme_cmdset_errata_version),
            nvme_over_pcie_errata_version: v5.then_some(p.nvme_over_pcie_errata_version),
            nvme_mi_errata_version: v5.then_some(p.nvme_mi_errata_version),
            unaligned_io: p.unaligned_io.get(),
            security_version_number: p.security_version_number.get(),
            nuse: p.nuse.get(),
            plp_start_count: p.plp_start_count.get(),
            endurance_estimate: p.endurance_estimate.get(),
            pcie_link_retraining_count: v3.then(|| p.pcie_link_retraining_count.get()),
            power_state_change_count: v3.then(|| p.power_state_change_count.get()),
            lowest_permitted_fw_rev: v4.then(|| printable(&p.lowest_permitted_fw_rev)),
            total_media_dies: v5.then(|| p.total_media_dies.get()),
            total_die_failure_tolerance: v5.then(|| p.total_die_failure_tolerance.get()),
            media_dies_offline: v5.then(|| p.media_dies_offline.get()),
            max_temperature_recorded: v5.then_some(p.max_temperature_recorded),
            form_factor: v6.then_some(p.form_factor),
            nand_avg_erase_count: v5.then(|| p.nand_avg_erase_count.get()),
            command_timeouts: v5.then(|| p.command_timeouts.get()),
            sys_area_program_fail_count_raw: v5.then(|| p.sys_area_program_fail_count_raw.get()),
            sys_area_program_fail_count_normalized: v5
                .then_some(p.sys_area_program_fail_count_normalized),
            sys_area_uncorr_read_count_raw: v5.then(|| p.sys_area_uncorr_read_count_raw.get()),
            sys_area_uncorr_read_count_normalized: v5
                .then_some(p.sys_area_uncorr_read_count_normalized),
            sys_area_erase_fail_count_raw: v5.then(|| p.sys_area_erase_fail_count_raw.get()),
            sys_area_erase_fail_count_normalized: v5
                .then_some(p.sys_area_erase_fail_count_normalized),
            max_peak_power_capability: v5.then(|| p.max_peak_power_capability.get()),
            current_max_avg_power: v5.then(|| p.current_max_avg_power.get()),
            lifetime_power_consumed: v5.then(|| le(&p.lifetime_power_consumed)),
            dssd_firmware_revision: v5.then(|| printable(&p.dssd_firmware_revision)),
            dssd_firmware_build_uuid: v5.then_some(p.dssd_firmware_build_uuid),
            dssd_firmware_build_label: v5.then(|| printable(&p.dssd_firmware_build_label)),
            die_in_use_bad_nand_block_raw: v6.then(|| le(&p.die_in_use_bad_nand_block_raw)),
            die_in_use_bad_nand_block_normalized: v6
                .then(|| p.die_in_use_bad_nand_block_normalized.get()),
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
mod tests;
