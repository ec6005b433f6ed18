//! Pure decoders and command builders for SATA drives reached through SCSI
//! ATA PASS-THROUGH(16) (`SG_IO`): the CDB and the sense data that carries
//! the ATA registers back ([`passthrough`]; the sense decoded in
//! [`crate::scsi::sense`], the completion classified in [`sense`]), IDENTIFY DEVICE,
//! CHECK POWER MODE, SMART data / thresholds / RETURN STATUS, the Device
//! Statistics log (04h) and the SMART self-test log (06h).
//!
//! Like [`crate::nvme`], nothing here performs I/O or panics: every decoder
//! takes the raw 512-byte sector and returns a typed value or a
//! [`ParseError`](crate::decode::ParseError). Offsets come from
//! `shared/reference/layouts.md`, ACS and SAT, cross-checked with
//! smartmontools; each field's doc names its word or byte. Every 512-byte
//! page is laid out once, as a `zerocopy` struct beside its decoder
//! (`identify::IdentifyPage`, `smart::SmartDataPage`, ...; see [`sector`]):
//! the decoder views the sector through it, and the demo and the fixture
//! builder fill it in.
//!
//! Each command an exporter needs is available ready-made as a
//! [`Command`] (taskfile, protocol, `CK_COND`, transfer length), e.g.
//! [`identify::command`] or [`smart::read_data_command`]; the device layer
//! turns it into a CDB with [`Command::cdb`], issues it with
//! [`crate::sys::sg::sg_io`] and classifies the result with
//! [`passthrough::outcome`].

pub mod attributes;
pub mod devstat;
pub mod error_log;
pub mod identify;
pub mod offline;
pub mod passthrough;
pub mod power;
pub mod sector;
pub mod self_test;
pub mod sense;
pub mod smart;

pub use devstat::{DeviceStatistics, DevstatPage, Statistic};
pub use identify::Identify;
pub use passthrough::{Command, Protocol, Taskfile, cdb16};
pub use power::PowerMode;
pub use sector::{Checksummed, Sector};
pub use self_test::{Entry as SelfTestEntry, SelfTestLog};
pub use sense::{AtaError, AtaRegisters, Sense, outcome, parse_sense};
pub use smart::{RawAttribute, SmartData, SmartStatus, SmartThresholds};

/// Every ATA data transfer here is in 512-byte sectors (also on drives with
/// 4096-byte logical sectors: logs and IDENTIFY data are always 512 bytes).
pub const SECTOR: usize = 512;

/// IDENTIFY DEVICE (ACS-3 7.12), PIO data-in, one sector.
pub const CMD_IDENTIFY_DEVICE: u8 = 0xEC;
/// CHECK POWER MODE (ACS-3 7.3), non-data; the answer is the count register.
pub const CMD_CHECK_POWER_MODE: u8 = 0xE5;
/// SMART (ACS-3 7.48); the subcommand goes in the features register.
pub const CMD_SMART: u8 = 0xB0;
/// READ LOG EXT (ACS-3 7.24), a 48-bit command: log address in LBA 7:0,
/// page in LBA 15:8 (and 39:32 for pages above 255).
pub const CMD_READ_LOG_EXT: u8 = 0x2F;

/// SMART READ DATA subcommand (features register).
pub const SMART_READ_DATA: u8 = 0xD0;
/// SMART READ ATTRIBUTE THRESHOLDS subcommand (obsolete in ACS, still
/// answered by drives that keep thresholds).
pub const SMART_READ_THRESHOLDS: u8 = 0xD1;
/// SMART READ LOG subcommand: log address in LBA low, sectors in count.
pub const SMART_READ_LOG: u8 = 0xD5;
/// SMART RETURN STATUS subcommand: the verdict comes back in LBA mid/high.
pub const SMART_RETURN_STATUS: u8 = 0xDA;
/// SMART EXECUTE OFF-LINE IMMEDIATE subcommand: starts or aborts a self-test.
pub const SMART_EXECUTE_OFFLINE_IMMEDIATE: u8 = 0xD4;
/// Every SMART subcommand carries this signature in LBA mid (LBA 15:8).
pub const SMART_LBA_MID: u8 = 0x4F;
/// Every SMART subcommand carries this signature in LBA high (LBA 23:16).
pub const SMART_LBA_HIGH: u8 = 0xC2;

/// Log address 00h: the log directory (GPL or SMART).
pub const LOG_DIRECTORY: u8 = 0x00;
/// Log address 04h: Device Statistics.
pub const LOG_DEVICE_STATISTICS: u8 = 0x04;
/// Log address 06h: SMART self-test log (SMART READ LOG only).
pub const LOG_SMART_SELF_TEST: u8 = 0x06;

/// Sum of all bytes modulo 256: ATA structures with a checksum byte are
/// valid when this is 0.
pub fn byte_sum(buf: &[u8]) -> u8 {
    buf.iter().fold(0u8, |acc, &b| acc.wrapping_add(b))
}

#[cfg(test)]
mod tests;
