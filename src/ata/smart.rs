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
use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::passthrough::Command;
use super::sector::{Checksummed, Sector};
use super::sense::AtaRegisters;
use super::{
    SECTOR, SMART_LBA_HIGH, SMART_LBA_MID, SMART_READ_DATA, SMART_READ_LOG, SMART_READ_THRESHOLDS,
    SMART_RETURN_STATUS,
};
use crate::decode::ParseError;

/// Attribute slots in SMART READ DATA and READ THRESHOLDS.
pub const ENTRY_COUNT: usize = 30;

/// One 12-byte attribute slot of SMART READ DATA, at byte 2 + 12·n
/// (smartmontools `struct ata_smart_attribute`).
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct AttributeEntry {
    /// Byte 0: attribute ID (0 = unused slot).
    pub id: u8,
    /// Bytes 1–2: flags.
    pub flags: U16,
    /// Byte 3: current normalized value.
    pub current: u8,
    /// Byte 4: worst normalized value.
    pub worst: u8,
    /// Bytes 5–10: raw value.
    pub raw: [u8; 6],
    /// Byte 11: reserved.
    pub reserved: u8,
}

const _: () = assert!(size_of::<AttributeEntry>() == 12);

/// SMART READ DATA (ACS-4 "Device SMART data structure"; smartmontools
/// `struct ata_smart_values`). The one definition of these offsets: the
/// decoder reads through it, the demo and the fixture builder fill it in.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SmartDataPage {
    /// Bytes 0–1: data structure revision (vendor specific; 0010h usual).
    pub revision: U16,
    /// Bytes 2–361: 30 attribute slots.
    pub attributes: [AttributeEntry; ENTRY_COUNT],
    /// Byte 362: off-line data collection status.
    pub offline_collection_status: u8,
    /// Byte 363: self-test execution status.
    pub self_test_execution_status: u8,
    /// Bytes 364–365: seconds to complete off-line data collection.
    pub offline_collection_seconds: U16,
    /// Byte 366: vendor specific.
    pub vendor366: u8,
    /// Byte 367: off-line data collection capability.
    pub offline_collection_capability: u8,
    /// Bytes 368–369: SMART capability (b0 saves data before power-saving
    /// mode, b1 autosave timer).
    pub smart_capability: U16,
    /// Byte 370: error logging capability (b0 error logging supported).
    pub error_logging_capability: u8,
    /// Byte 371: vendor specific.
    pub vendor371: u8,
    /// Byte 372: short self-test polling time, minutes.
    pub short_test_minutes: u8,
    /// Byte 373: extended self-test polling time, minutes (FFh: see bytes
    /// 375–376).
    pub extended_test_minutes: u8,
    /// Byte 374: conveyance self-test polling time, minutes.
    pub conveyance_test_minutes: u8,
    /// Bytes 375–376: extended self-test polling time, minutes, when byte
    /// 373 is FFh.
    pub extended_test_minutes_word: U16,
    /// Bytes 377–385: reserved.
    pub reserved377: [u8; 9],
    /// Bytes 386–510: vendor specific.
    pub vendor386: [u8; 125],
    /// Byte 511: checksum.
    pub checksum: u8,
}

const _: () = assert!(size_of::<SmartDataPage>() == SECTOR);

impl Sector for SmartDataPage {
    const PAGE: &'static str = "smart data";
}

impl Checksummed for SmartDataPage {}

/// One 12-byte slot of SMART READ THRESHOLDS (smartmontools `struct
/// ata_smart_threshold_entry`).
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ThresholdEntry {
    /// Byte 0: attribute ID (0 = unused slot).
    pub id: u8,
    /// Byte 1: threshold.
    pub threshold: u8,
    /// Bytes 2–11: reserved.
    pub reserved: [u8; 10],
}

const _: () = assert!(size_of::<ThresholdEntry>() == 12);

/// SMART READ THRESHOLDS (smartmontools `struct ata_smart_thresholds_pvt`):
/// the same 30 slots as the data, in the same order.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SmartThresholdsPage {
    /// Bytes 0–1: revision.
    pub revision: U16,
    /// Bytes 2–361: 30 threshold slots.
    pub thresholds: [ThresholdEntry; ENTRY_COUNT],
    /// Bytes 362–510: reserved.
    pub reserved362: [u8; 149],
    /// Byte 511: checksum.
    pub checksum: u8,
}

const _: () = assert!(size_of::<SmartThresholdsPage>() == SECTOR);

impl Sector for SmartThresholdsPage {
    const PAGE: &'static str = "smart thresholds";
}

impl Checksummed for SmartThresholdsPage {}

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

impl From<&AttributeEntry> for RawAttribute {
    fn from(e: &AttributeEntry) -> Self {
        Self {
            id: e.id,
            flags: e.flags.get(),
            value: e.current,
            worst: e.worst,
            raw: e.raw,
            reserved: e.reserved,
        }
    }
}

impl From<&RawAttribute> for AttributeEntry {
    fn from(a: &RawAttribute) -> Self {
        Self {
            id: a.id,
            flags: a.flags.into(),
            current: a.value,
            worst: a.worst,
            raw: a.raw,
            reserved: a.reserved,
        }
    }
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
        let p = SmartDataPage::view(buf)?;
        Ok(Self {
            revision: p.revision.get(),
            attributes: p
                .attributes
                .iter()
                .filter(|e| e.id != 0)
                .map(RawAttribute::from)
                .collect(),
            offline_collection_status: p.offline_collection_status,
            self_test_execution_status: p.self_test_execution_status,
            checksum_valid: p.checksum_valid(),
        })
    }

    /// The attribute with `id`, if present: its first entry, as the
    /// table orders them.
    pub fn attribute(&self, id: u8) -> Option<&RawAttribute> {
        self.attributes.iter().find(|a| a.id == id)
    }

    /// Each id's first entry, in table order. Some drives list an id more
    /// than once (a SATADOM lists attribute 1 four times, with different
    /// raw values); an id is one attribute, so the first entry is the one
    /// read, served and judged.
    pub fn first_entries(&self) -> impl Iterator<Item = &RawAttribute> {
        let mut seen = [false; 256];
        self.attributes.iter().filter(move |a| {
            let first = !seen[usize::from(a.id)];
            seen[usize::from(a.id)] = true;
            first
        })
    }

    /// The ids listed more than once, each once, in table order.
    pub fn repeated_ids(&self) -> Vec<u8> {
        let mut count = [0u8; 256];
        let mut out = Vec::new();
        for a in &self.attributes {
            let n = &mut count[usize::from(a.id)];
            *n = n.saturating_add(1);
            if *n == 2 {
                out.push(a.id);
            }
        }
        out
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
        let p = SmartThresholdsPage::view(buf)?;
        Ok(Self {
            revision: p.revision.get(),
            thresholds: p
                .thresholds
                .iter()
                .filter(|e| e.id != 0)
                .map(|e| (e.id, e.threshold))
                .collect(),
            checksum_valid: p.checksum_valid(),
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
mod tests;
