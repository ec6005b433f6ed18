//! SMART self-test log (SMART READ LOG, log 06h, 512 bytes; ACS-3 9.21):
//! revision word, 21 entries of 24 bytes from offset 2 used as a circular
//! buffer, byte 508 = 1-based index of the newest entry (0 = no test
//! logged), checksum at 511. Layout from smartmontools `ata.h`
//! (`ata_smart_selftestlog`); the walk order and result meanings from
//! `ataprint.cpp` (`ataPrintSmartSelfTestlog`, `ataPrintSmartSelfTestEntry`).

use serde::Serialize;
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::passthrough::Command;
use super::sector::{Checksummed, Sector};
use super::smart::read_log_command;
use super::{LOG_SMART_SELF_TEST, SECTOR};
use crate::decode::ParseError;

const PAGE: &str = "smart self-test log";
/// Descriptor slots in the log.
pub const ENTRY_COUNT: usize = 21;

/// One 24-byte self-test log descriptor, at byte 2 + 24·n (ACS-4 "Self-test
/// log descriptor entry"; smartmontools `struct ata_smart_selftestlog_struct`).
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SelfTestDescriptor {
    /// Byte 0: content of LBA 7:0 of the SMART EXECUTE OFF-LINE IMMEDIATE
    /// that ran the test.
    pub test_number: u8,
    /// Byte 1: self-test execution status (result in bits 7:4, percent
    /// remaining / 10 in bits 3:0).
    pub status: u8,
    /// Bytes 2–3: power-on hours when the test completed.
    pub life_timestamp: U16,
    /// Byte 4: self-test failure checkpoint.
    pub checkpoint: u8,
    /// Bytes 5–8: LBA of the first failure (28-bit).
    pub failing_lba: U32,
    /// Bytes 9–23: vendor specific.
    pub vendor: [u8; 15],
}

const _: () = assert!(size_of::<SelfTestDescriptor>() == 24);

/// The SMART self-test log sector (ACS-4 "SMART Self-Test log"). The one
/// definition of these offsets: the decoder reads through it, the demo and
/// the fixture builder fill it in.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SelfTestLogPage {
    /// Bytes 0–1: revision (0001h).
    pub revision: U16,
    /// Bytes 2–505: 21 descriptors, used as a circular buffer.
    pub descriptors: [SelfTestDescriptor; ENTRY_COUNT],
    /// Bytes 506–507: vendor specific.
    pub vendor506: [u8; 2],
    /// Byte 508: 1-based index of the newest descriptor (0 = none).
    pub newest_index: u8,
    /// Bytes 509–510: reserved.
    pub reserved509: [u8; 2],
    /// Byte 511: checksum.
    pub checksum: u8,
}

const _: () = assert!(size_of::<SelfTestLogPage>() == SECTOR);

impl Sector for SelfTestLogPage {
    const PAGE: &'static str = PAGE;
}

impl Checksummed for SelfTestLogPage {}

/// SMART READ LOG of the self-test log: one sector.
pub fn command() -> Command {
    read_log_command(LOG_SMART_SELF_TEST, 1)
}

/// One self-test log entry (24 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Which of the 21 slots (0-based) held it.
    pub slot: u8,
    /// Byte 0: the test, as the LBA low of SMART EXECUTE OFF-LINE IMMEDIATE
    /// (1 short, 2 extended, 3 conveyance, 4 selective; +80h captive).
    pub test_number: u8,
    /// Byte 1 bits 7:4: result code (see [`Entry::result_name`]).
    pub result: u8,
    /// Byte 1 bits 3:0 × 10: percent of the test remaining.
    pub remaining_percent: u8,
    /// Bytes 2–3: power-on hours when the test ended.
    pub lifetime_hours: u16,
    /// Byte 4: self-test failure checkpoint (vendor specific).
    pub checkpoint: u8,
    /// Bytes 5–8: LBA of the first failure; meaningful only for a failed
    /// read test (smartctl shows FFFFFFFFh as "beyond 32 bits").
    pub failing_lba: u32,
}

impl Entry {
    /// The result as a snake_case label, with smartctl's meanings:
    /// 0 "Completed without error", 1 "Aborted by host", 2 "Interrupted
    /// (host reset)", 3 "Fatal or unknown error", 4–8 "Completed: unknown /
    /// electrical / servo/seek / read failure / handling damage", Fh "Self-
    /// test routine in progress".
    pub fn result_name(&self) -> &'static str {
        match self.result {
            0x0 => "passed",
            0x1 => "aborted_by_host",
            0x2 => "interrupted_by_reset",
            0x3 => "fatal_error",
            0x4 => "unknown_failure",
            0x5 => "electrical_failure",
            0x6 => "servo_failure",
            0x7 => "read_failure",
            0x8 => "handling_damage",
            0xF => "in_progress",
            _ => "reserved",
        }
    }

    /// Results 3–8: the test found a problem (smartctl counts these as
    /// errors; aborts and interruptions are not).
    pub fn is_failure(&self) -> bool {
        (0x3..=0x8).contains(&self.result)
    }

    /// The test as a snake_case label.
    pub fn test_name(&self) -> &'static str {
        match self.test_number {
            0x00 => "offline",
            0x01 => "short",
            0x02 => "extended",
            0x03 => "conveyance",
            0x04 => "selective",
            0x81 => "short_captive",
            0x82 => "extended_captive",
            0x83 => "conveyance_captive",
            0x84 => "selective_captive",
            0x40..=0x7E | 0x90..=0xFF => "vendor",
            _ => "reserved",
        }
    }
}

/// The SMART self-test log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfTestLog {
    /// Bytes 0–1: revision (ACS requires 0001h).
    pub revision: u16,
    /// Byte 508: 1-based slot of the newest entry; 0 = no test logged.
    pub newest_index: u8,
    /// Non-empty entries, newest first (walking back from `newest_index`,
    /// wrapping, as smartctl does).
    pub entries: Vec<Entry>,
    /// Byte 511: all 512 bytes sum to 0 modulo 256.
    pub checksum_valid: bool,
}

impl SelfTestLog {
    /// Decodes a 512-byte self-test log; an index beyond 21 is rejected.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let p = SelfTestLogPage::view(buf)?;
        let newest_index = p.newest_index;
        if usize::from(newest_index) > ENTRY_COUNT {
            return Err(ParseError::Invalid {
                page: PAGE,
                reason: format!("newest entry index {newest_index} is beyond 21"),
            });
        }
        let entries = match usize::from(newest_index).checked_sub(1) {
            None => Vec::new(),
            Some(newest) => (0..ENTRY_COUNT)
                .map(|back| (newest + ENTRY_COUNT - back) % ENTRY_COUNT)
                .filter_map(|slot| entry(p, slot))
                .collect(),
        };
        Ok(Self {
            revision: p.revision.get(),
            newest_index,
            entries,
            checksum_valid: p.checksum_valid(),
        })
    }

    /// The most recent test.
    pub fn newest(&self) -> Option<&Entry> {
        self.entries.first()
    }
}

/// The entry in `slot`, or None if its 24 bytes are all zero.
fn entry(p: &SelfTestLogPage, slot: usize) -> Option<Entry> {
    let d = p.descriptors.get(slot)?;
    if d.as_bytes().iter().all(|&x| x == 0) {
        return None;
    }
    Some(Entry {
        slot: slot as u8,
        test_number: d.test_number,
        result: d.status >> 4,
        remaining_percent: (d.status & 0x0F) * 10,
        lifetime_hours: d.life_timestamp.get(),
        checkpoint: d.checkpoint,
        failing_lba: d.failing_lba.get(),
    })
}

#[cfg(test)]
mod tests;
