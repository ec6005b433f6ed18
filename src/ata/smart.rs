//! SMART READ DATA (B0h/D0h), SMART READ THRESHOLDS (B0h/D1h) and SMART
//! RETURN STATUS (B0h/DAh).
//!
//! Layouts from smartmontools `ata.h` (`struct ata_smart_values`,
//! `ata_smart_attribute`, `ata_smart_threshold_entry`): revision at bytes
//! 0–1, then 30 attribute entries of 12 bytes from offset 2; offline
//! collection status at 362, self-test execution status at 363, checksum at
//! 511. Naming and raw-value formats of attributes live in
//! `crate::ata::attributes`.

use serde::Serialize;

use super::passthrough::Command;
use super::sense::AtaRegisters;
use super::{
    SECTOR, SMART_LBA_HIGH, SMART_LBA_MID, SMART_READ_DATA, SMART_READ_LOG, SMART_READ_THRESHOLDS,
    SMART_RETURN_STATUS, byte_sum,
};
use crate::decode::{Bytes, ParseError};

const ENTRIES_OFFSET: usize = 2;
const ENTRY_LEN: usize = 12;
const ENTRY_COUNT: usize = 30;

/// SMART READ DATA: PIO data-in, one sector.
pub fn read_data_command() -> Command {
    Command::smart(SMART_READ_DATA, 0, 1)
}

/// SMART READ ATTRIBUTE THRESHOLDS: PIO data-in, one sector.
pub fn read_thresholds_command() -> Command {
    Command::smart(SMART_READ_THRESHOLDS, 0, 1)
}

/// SMART RETURN STATUS: non-data with CK_COND; the verdict is in LBA
/// mid/high (see [`SmartStatus::from_registers`]).
pub fn return_status_command() -> Command {
    Command::smart(SMART_RETURN_STATUS, 0, 0)
}

/// SMART READ LOG of `sectors` sectors of log `log` (always from its first
/// sector: SMART READ LOG has no page offset).
pub fn read_log_command(log: u8, sectors: u8) -> Command {
    Command::smart(SMART_READ_LOG, log, u16::from(sectors))
}

/// One 12-byte attribute entry, undecoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RawAttribute {
    /// Byte 0: attribute ID (1–255; 0 marks an unused slot).
    pub id: u8,
    /// Bytes 1–2: flags (b0 pre-failure, b1 updated online, b2 performance,
    /// b3 error rate, b4 event count, b5 self-preserving).
    pub flags: u16,
    /// Byte 3: current normalized value.
    pub value: u8,
    /// Byte 4: worst normalized value.
    pub worst: u8,
    /// Bytes 5–10: raw value, little-endian; its meaning is vendor specific.
    pub raw: [u8; 6],
    /// Byte 11: reserved (some vendors use it as a seventh raw byte).
    pub reserved: u8,
}

impl RawAttribute {
    /// The six raw bytes as one little-endian integer (smartctl's `raw48`).
    pub fn raw48(&self) -> u64 {
        self.raw
            .iter()
            .rev()
            .fold(0u64, |acc, &b| acc << 8 | u64::from(b))
    }

    /// Flags bit 0: pre-failure (a value at or below threshold predicts
    /// failure); clear = old-age.
    pub fn prefailure(&self) -> bool {
        self.flags & 0x0001 != 0
    }

    /// Flags bit 1: updated during normal operation, not only offline.
    pub fn online(&self) -> bool {
        self.flags & 0x0002 != 0
    }
}

/// Offsets of the 30 attribute slots.
fn entries() -> impl Iterator<Item = usize> {
    (0..ENTRY_COUNT).map(|i| ENTRIES_OFFSET + i * ENTRY_LEN)
}

/// The SMART READ DATA sector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmartData {
    /// Bytes 0–1: data structure revision.
    pub revision: u16,
    /// Bytes 2–361: the used attribute slots (ID ≠ 0), in table order.
    pub attributes: Vec<RawAttribute>,
    /// Byte 362: off-line data collection status (b7 auto off-line enabled,
    /// bits 6:0 state).
    pub offline_collection_status: u8,
    /// Byte 363: self-test execution status (bits 7:4 result of the last
    /// or running test, same codes as the self-test log; bits 3:0 percent
    /// remaining / 10).
    pub self_test_execution_status: u8,
    /// Byte 511: all 512 bytes sum to 0 modulo 256.
    pub checksum_valid: bool,
}

impl SmartData {
    /// Decodes a 512-byte SMART READ DATA sector. A bad checksum is
    /// reported in [`checksum_valid`](Self::checksum_valid), not rejected:
    /// some drives never set it.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new("smart data", buf, SECTOR)?;
        let attributes = entries()
            .filter(|&off| b.u8(off) != 0)
            .map(|off| {
                let mut raw = [0u8; 6];
                raw.copy_from_slice(b.slice(off + 5, 6));
                RawAttribute {
                    id: b.u8(off),
                    flags: b.u16(off + 1),
                    value: b.u8(off + 3),
                    worst: b.u8(off + 4),
                    raw,
                    reserved: b.u8(off + 11),
                }
            })
            .collect();
        Ok(Self {
            revision: b.u16(0),
            attributes,
            offline_collection_status: b.u8(362),
            self_test_execution_status: b.u8(363),
            checksum_valid: byte_sum(b.slice(0, SECTOR)) == 0,
        })
    }

    /// The attribute with `id`, if present.
    pub fn attribute(&self, id: u8) -> Option<&RawAttribute> {
        self.attributes.iter().find(|a| a.id == id)
    }
}

/// The SMART READ THRESHOLDS sector: same 12-byte slots, ID at byte 0 and
/// threshold at byte 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmartThresholds {
    /// Bytes 0–1: revision.
    pub revision: u16,
    /// (attribute ID, threshold) for every used slot, in table order.
    pub thresholds: Vec<(u8, u8)>,
    /// Byte 511: all 512 bytes sum to 0 modulo 256.
    pub checksum_valid: bool,
}

impl SmartThresholds {
    /// Decodes a 512-byte SMART READ THRESHOLDS sector.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new("smart thresholds", buf, SECTOR)?;
        let thresholds = entries()
            .filter(|&off| b.u8(off) != 0)
            .map(|off| (b.u8(off), b.u8(off + 1)))
            .collect();
        Ok(Self {
            revision: b.u16(0),
            thresholds,
            checksum_valid: byte_sum(b.slice(0, SECTOR)) == 0,
        })
    }

    /// The threshold for attribute `id`.
    pub fn get(&self, id: u8) -> Option<u8> {
        self.thresholds
            .iter()
            .find(|&&(i, _)| i == id)
            .map(|&(_, t)| t)
    }
}

/// The SMART RETURN STATUS verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SmartStatus {
    /// LBA mid/high 4Fh/C2h: no threshold exceeded.
    Passed,
    /// LBA mid/high F4h/2Ch: a pre-failure attribute is at or below its
    /// threshold — the drive predicts its own failure.
    Failed,
    /// Anything else (a SATL that dropped the registers, for instance).
    Unknown { lba_mid: u8, lba_high: u8 },
}

impl SmartStatus {
    /// From LBA mid (15:8) and LBA high (23:16).
    pub fn from_lba(lba_mid: u8, lba_high: u8) -> Self {
        match (lba_mid, lba_high) {
            (SMART_LBA_MID, SMART_LBA_HIGH) => SmartStatus::Passed,
            (0xF4, 0x2C) => SmartStatus::Failed,
            _ => SmartStatus::Unknown { lba_mid, lba_high },
        }
    }

    /// From the result registers of SMART RETURN STATUS.
    pub fn from_registers(regs: &AtaRegisters) -> Self {
        Self::from_lba(regs.lba_mid(), regs.lba_high())
    }
}

#[cfg(test)]
#[path = "smart_tests.rs"]
mod tests;
