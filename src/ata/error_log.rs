//! SMART summary error log (SMART READ LOG, address 01h, 512 bytes): only
//! the device's lifetime error count is used (`ssd_error_log_entries_total`).
//!
//! Layout (ACS-3 §A.13; smartmontools `struct ata_smart_errorlog`): byte 0
//! revision, byte 1 index of the newest of five 90-byte error structures
//! (bytes 2..452), bytes 452–453 device error count, byte 511 checksum.

use super::passthrough::Command;
use super::smart::read_log_command;
use super::{SECTOR, byte_sum};
use crate::decode::{Bytes, ParseError};

/// SMART log address of the summary error log.
pub const LOG_SMART_ERROR: u8 = 0x01;

/// SMART READ LOG of the summary error log (one sector).
pub fn command() -> Command {
    read_log_command(LOG_SMART_ERROR, 1)
}

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
        let b = Bytes::new("smart error log", buf, SECTOR)?;
        Ok(Self {
            revision: b.u8(0),
            newest: b.u8(1),
            error_count: b.u16(452),
            checksum_valid: byte_sum(b.slice(0, SECTOR)) == 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_count_at_452_little_endian() {
        let mut page = vec![0u8; 512];
        page[0] = 1;
        page[1] = 3;
        page[452] = 0x2C;
        page[453] = 0x01; // 0x012C = 300 errors
        let sum = page.iter().fold(0u8, |a, &b| a.wrapping_add(b));
        page[511] = sum.wrapping_neg();
        let log = ErrorLogSummary::parse(&page).unwrap();
        assert_eq!((log.revision, log.newest, log.error_count), (1, 3, 300));
        assert!(log.checksum_valid);
        page[511] ^= 1;
        assert!(!ErrorLogSummary::parse(&page).unwrap().checksum_valid);
    }

    #[test]
    fn short_page_is_an_error() {
        assert!(ErrorLogSummary::parse(&[0u8; 511]).is_err());
    }
}
