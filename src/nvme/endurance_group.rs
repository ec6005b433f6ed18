//! Endurance Group Information log page (LID 09h, 512 bytes), read once
//! per endurance group: the group's identifier goes in the command's Log
//! Specific Identifier (CDW11 bits 31:16).
//!
//! Units are the page's own, NVMe Base 2.0 section 5.16.1.10 (Endurance
//! Group Information; the page's figure is Figure 218 in Base 2.1, 219 in
//! 2.2, 225 in 2.4): the Endurance Estimate, Data Units Read, Data Units
//! Written and Media Units Written count **billions of bytes** (a value of
//! 1 is 10⁹ bytes, rounded up; 0 means the field is not reported) — not the
//! SMART log's thousands of 512-byte units. The two capacities (TEGCAP,
//! UEGCAP) are bytes. Converted here: × 10⁹, saturating.

use serde::Serialize;
use zerocopy::little_endian::{U16, U128};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::ENDURANCE_GROUP_LOG_LEN;
use super::smart_log::CriticalWarning;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "endurance group log";

/// One unit of the Endurance Estimate and the data and media units.
pub const BILLION_BYTES: u128 = 1_000_000_000;

/// The page as NVMe Base 2.0 lays it out (offsets in
/// `shared/reference/layouts.md`, names as libnvme's
/// `struct nvme_endurance_group_log`). The one definition of these
/// offsets: the decoder reads through it, the demo and the fixture builder
/// fill it. Little-endian, unaligned, exactly 512 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct EnduranceGroupLogPage {
    /// Byte 0, critical warning: b0 available spare below threshold, b2
    /// reliability degraded, b3 read-only (`NVME_EG_CRITICAL_WARNING_*`).
    pub critical_warning: u8,
    /// Byte 1, Endurance Group Features (EGFEAT).
    pub endurance_group_features: u8,
    /// Byte 2, reserved.
    pub rsvd2: u8,
    /// Byte 3, available spare, percent.
    pub avl_spare: u8,
    /// Byte 4, available spare threshold, percent.
    pub avl_spare_threshold: u8,
    /// Byte 5, percentage used (may exceed 100; 255 = more than 254).
    pub percent_used: u8,
    /// Bytes 7:6, domain identifier.
    pub domain_identifier: U16,
    /// Bytes 31:8, reserved.
    pub rsvd8: [u8; 24],
    /// Bytes 47:32, Endurance Estimate, billions of bytes.
    pub endurance_estimate: U128,
    /// Bytes 63:48, Data Units Read, billions of bytes.
    pub data_units_read: U128,
    /// Bytes 79:64, Data Units Written, billions of bytes.
    pub data_units_written: U128,
    /// Bytes 95:80, Media Units Written (host and controller writes, e.g.
    /// garbage collection), billions of bytes.
    pub media_units_written: U128,
    /// Bytes 111:96, Host Read Commands.
    pub host_read_cmds: U128,
    /// Bytes 127:112, Host Write Commands.
    pub host_write_cmds: U128,
    /// Bytes 143:128, Media and Data Integrity Errors.
    pub media_data_integrity_err: U128,
    /// Bytes 159:144, Number of Error Information Log Entries.
    pub num_err_info_log_entries: U128,
    /// Bytes 175:160, Total Endurance Group Capacity (TEGCAP), bytes.
    pub total_end_grp_cap: U128,
    /// Bytes 191:176, Unallocated Endurance Group Capacity (UEGCAP), bytes.
    pub unalloc_end_grp_cap: U128,
    /// Bytes 511:192, reserved.
    pub rsvd192: [u8; 320],
}

const _: () = assert!(size_of::<EnduranceGroupLogPage>() == ENDURANCE_GROUP_LOG_LEN);

impl EnduranceGroupLogPage {
    /// A page of zeros, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// One endurance group's information, in base units. A field the page
/// reports as 0 where 0 means "not reported" is `None`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnduranceGroupLog {
    /// Byte 0: critical warning bits (b0 spare, b2 reliability, b3
    /// read-only; see [`CriticalWarning::ENDURANCE_GROUP_CONDITIONS`]).
    pub critical_warning: CriticalWarning,
    /// Byte 1: Endurance Group Features, raw.
    pub features: u8,
    /// Byte 3: available spare, percent / 100.
    pub available_spare_ratio: f64,
    /// Byte 4: available spare threshold, percent / 100.
    pub available_spare_threshold_ratio: f64,
    /// Byte 5: percentage used / 100; may exceed 1.
    pub percentage_used_ratio: f64,
    /// Bytes 7:6: domain identifier.
    pub domain_id: u16,
    /// Bytes 47:32 as reported (billions of bytes), as nvme-cli prints it.
    pub endurance_estimate: u128,
    /// Bytes 63:48 as reported (billions of bytes).
    pub data_units_read: u128,
    /// Bytes 79:64 as reported (billions of bytes).
    pub data_units_written: u128,
    /// Bytes 95:80 as reported (billions of bytes).
    pub media_units_written: u128,
    /// Bytes 47:32 × 10⁹: bytes the group may take over its life at a
    /// write amplification of 1; `None` when 0 (not reported).
    pub endurance_estimate_bytes: Option<u128>,
    /// Bytes 63:48 × 10⁹; `None` when 0 (not reported).
    pub data_read_bytes: Option<u128>,
    /// Bytes 79:64 × 10⁹; `None` when 0 (not reported).
    pub data_written_bytes: Option<u128>,
    /// Bytes 95:80 × 10⁹; `None` when 0 (not reported).
    pub media_written_bytes: Option<u128>,
    /// Bytes 111:96: host read commands.
    pub host_read_commands: u128,
    /// Bytes 127:112: host write commands.
    pub host_write_commands: u128,
    /// Bytes 143:128: media and data integrity errors.
    pub media_errors: u128,
    /// Bytes 159:144: error information log entries over the group's life.
    pub error_log_entries: u128,
    /// Bytes 175:160: total capacity in bytes; `None` when 0 (not reported).
    pub total_capacity_bytes: Option<u128>,
    /// Bytes 191:176: unallocated capacity in bytes, given only when the
    /// total is (0 is then a fully allocated group).
    pub unallocated_capacity_bytes: Option<u128>,
}

impl EnduranceGroupLog {
    /// Decodes a 512-byte Endurance Group Information page.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, ENDURANCE_GROUP_LOG_LEN)?;
        let (p, _) =
            EnduranceGroupLogPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
                page: PAGE,
                expected: ENDURANCE_GROUP_LOG_LEN,
                got: buf.len(),
            })?;
        let total = p.total_end_grp_cap.get();
        Ok(Self {
            critical_warning: CriticalWarning(p.critical_warning),
            features: p.endurance_group_features,
            available_spare_ratio: percent(p.avl_spare),
            available_spare_threshold_ratio: percent(p.avl_spare_threshold),
            percentage_used_ratio: percent(p.percent_used),
            domain_id: p.domain_identifier.get(),
            endurance_estimate: p.endurance_estimate.get(),
            data_units_read: p.data_units_read.get(),
            data_units_written: p.data_units_written.get(),
            media_units_written: p.media_units_written.get(),
            endurance_estimate_bytes: billions(p.endurance_estimate.get()),
            data_read_bytes: billions(p.data_units_read.get()),
            data_written_bytes: billions(p.data_units_written.get()),
            media_written_bytes: billions(p.media_units_written.get()),
            host_read_commands: p.host_read_cmds.get(),
            host_write_commands: p.host_write_cmds.get(),
            media_errors: p.media_data_integrity_err.get(),
            error_log_entries: p.num_err_info_log_entries.get(),
            total_capacity_bytes: (total != 0).then_some(total),
            unallocated_capacity_bytes: (total != 0).then(|| p.unalloc_end_grp_cap.get()),
        })
    }

    /// Media written over host written (the group's write amplification),
    /// when the group reports both and has written anything.
    pub fn write_amplification(&self) -> Option<f64> {
        let media = self.media_written_bytes?;
        let host = self.data_written_bytes?;
        Some(media as f64 / host as f64)
    }
}

fn percent(p: u8) -> f64 {
    f64::from(p) / 100.0
}

/// Billions of bytes as bytes; 0 (not reported) as `None`.
fn billions(units: u128) -> Option<u128> {
    (units != 0).then(|| units.saturating_mul(BILLION_BYTES))
}

#[cfg(test)]
mod tests;
