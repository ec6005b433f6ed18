//! SMART summary error log (SMART READ LOG, address 01h, 512 bytes): only
//! the device's lifetime error count is used (`ssd_error_log_entries_total`).
//!
//! Layout (ACS-3 §A.13; smartmontools `struct ata_smart_errorlog`): byte 0
//! revision, byte 1 index of the newest of five 90-byte error structures
//! (bytes 2..452), bytes 452–453 device error count, byte 511 checksum.

use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::SECTOR;
use super::passthrough::Command;
use super::sector::{Checksummed, Sector};
use super::smart::read_log_command;
use crate::decode::ParseError;

/// SMART log address of the summary error log.
pub const LOG_SMART_ERROR: u8 = 0x01;

/// SMART READ LOG of the summary error log (one sector).
pub fn command() -> Command {
    read_log_command(LOG_SMART_ERROR, 1)
}

/// The summary error log sector (ACS-4 "Summary Error log"). The one
/// definition of these offsets: the decoder reads through it, the demo and
/// the fixture builder fill it in.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ErrorLogPage {
    /// Byte 0: revision (01h).
    pub revision: u8,
    /// Byte 1: index of the newest error data structure, 1..=5 (0 = none).
    pub newest: u8,
    /// Bytes 2–451: five 90-byte error data structures (not decoded).
    pub structures: [[u8; 90]; 5],
    /// Bytes 452–453: device error count.
    pub error_count: U16,
    /// Bytes 454–510: reserved.
    pub reserved454: [u8; 57],
    /// Byte 511: checksum.
    pub checksum: u8,
}

const _: () = assert!(size_of::<ErrorLogPage>() == SECTOR);

impl Sector for ErrorLogPage {
    const PAGE: &'static str = "smart error log";
}

impl Checksummed for ErrorLogPage {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorLogSummary {
    /// Byte 0.
    pub revision: u8,
    /// Byte 1: newest error structure, 1..=5; 0 = no errors logged.
    pub newest: u8,
    /// Bytes 452–453: errors the device has reported over its life
    /// (smartctl: "ATA Error Count").
    pub error_count: u16,
    /// Byte 511 makes the 512 bytes sum to 0 mod 256.
    pub checksum_valid: bool,
}

impl ErrorLogSummary {
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let p = ErrorLogPage::view(buf)?;
        Ok(Self {
            revision: p.revision,
            newest: p.newest,
            error_count: p.error_count.get(),
            checksum_valid: p.checksum_valid(),
        })
    }
}

#[cfg(test)]
mod tests;
