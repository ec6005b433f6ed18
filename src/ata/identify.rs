//! IDENTIFY DEVICE data (ECh, 512 bytes = 256 little-endian words): identity
//! strings, capacity and sector sizes, WWN, rotation rate and the feature
//! bits that decide which other pages the exporter asks for.
//!
//! Word numbers are from ACS-3 table "IDENTIFY DEVICE data"; the validity
//! rules for words 82–87 and 106 follow smartmontools (`atacmds.cpp`:
//! `ataSmartSupport`, `ataIsSmartEnabled`, `isGeneralPurposeLoggingCapable`,
//! `ata_get_size_info`).

use serde::Serialize;

use super::passthrough::{Command, Protocol, Taskfile};
use super::{CMD_IDENTIFY_DEVICE, SECTOR, byte_sum};
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "identify device";

/// The IDENTIFY DEVICE command: PIO data-in, one sector.
pub fn command() -> Command {
    Command {
        taskfile: Taskfile {
            command: CMD_IDENTIFY_DEVICE,
            count: 1,
            ..Taskfile::default()
        },
        protocol: Protocol::PioIn,
        check_condition: false,
        extend: false,
    }
}

/// The IDENTIFY DEVICE fields the exporter uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identify {
    /// Words 27–46: model number, ASCII with the bytes of each word swapped,
    /// trimmed.
    pub model: String,
    /// Words 10–19: serial number.
    pub serial: String,
    /// Words 23–26: firmware revision.
    pub firmware: String,
    /// User-addressable logical sectors: words 100–103 when 48-bit
    /// addressing is supported and they are non-zero, else words 60–61.
    pub sectors: u64,
    /// `sectors` × `logical_sector_size`.
    pub capacity_bytes: u128,
    /// Word 106 bit 12 set (and the word valid: bit 14 one, bit 15 zero):
    /// words 117–118 give the logical sector size in 16-bit words; else 512.
    pub logical_sector_size: u32,
    /// Word 106 bit 13 set: 2^(bits 3:0) logical sectors per physical
    /// sector; else equal to the logical size.
    pub physical_sector_size: u32,
    /// Words 108–111 (word 108 most significant): the world wide name,
    /// NAA in bits 63:60. None when all zero.
    pub wwn: Option<u64>,
    /// Word 217: nominal media rotation rate; 1 = non-rotating (solid
    /// state), 0401h–FFFEh = RPM. None when 0 (not reported).
    pub rotation_rate: Option<u16>,
    /// Word 82 bit 0, when word 83 is valid (bits 15:14 = 01b).
    pub smart_supported: bool,
    /// Word 85 bit 0, when word 87 is valid (bits 15:14 = 01b).
    pub smart_enabled: bool,
    /// General Purpose Logging (READ LOG EXT): word 84 bit 5 when word 84 is
    /// valid, else word 87 bit 5 when word 87 is valid.
    pub gpl_supported: bool,
    /// Word 83 bit 10 (48-bit Address feature set), when word 83 is valid.
    pub lba48: bool,
    /// Word 255: when its low byte is the signature A5h, whether the 512
    /// bytes sum to 0 modulo 256; None without the signature.
    pub checksum_valid: Option<bool>,
    /// Word 80: the highest ATA major version bit set (8 ATA8-ACS, 9 ACS-2,
    /// 10 ACS-3, 11 ACS-4, ...); None when the word is 0000h or FFFFh.
    pub ata_major_version: Option<u8>,
}

/// Words 82–87 carry information only when bits 15:14 are 01b.
fn word_valid(w: u16) -> bool {
    w & 0xC000 == 0x4000
}

fn word(b: &Bytes<'_>, n: usize) -> u16 {
    b.u16(2 * n)
}

/// An ATA string of `words` words from word `first`: swap each word's bytes.
fn ata_string(b: &Bytes<'_>, first: usize, words: usize) -> String {
    let swapped: Vec<u8> = b
        .slice(2 * first, 2 * words)
        .chunks_exact(2)
        .flat_map(|pair| [pair[1], pair[0]])
        .collect();
    printable(&swapped)
}

impl Identify {
    /// Decodes a 512-byte IDENTIFY DEVICE buffer.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, SECTOR)?;
        let (w83, w84, w87) = (word(&b, 83), word(&b, 84), word(&b, 87));
        let lba48 = word_valid(w83) && w83 & (1 << 10) != 0;
        let lba48_sectors = b.u64(200);
        let sectors = if lba48 && lba48_sectors != 0 {
            lba48_sectors
        } else {
            u64::from(b.u32(120))
        };
        let (logical, physical) = sector_sizes(&b);
        let gpl_supported = if word_valid(w84) {
            w84 & (1 << 5) != 0
        } else {
            word_valid(w87) && w87 & (1 << 5) != 0
        };
        let wwn = (108..112).fold(0u64, |acc, n| acc << 16 | u64::from(word(&b, n)));
        let w255 = word(&b, 255);
        Ok(Self {
            model: ata_string(&b, 27, 20),
            serial: ata_string(&b, 10, 10),
            firmware: ata_string(&b, 23, 4),
            sectors,
            capacity_bytes: u128::from(sectors) * u128::from(logical),
            logical_sector_size: logical,
            physical_sector_size: physical,
            wwn: (wwn != 0).then_some(wwn),
            rotation_rate: Some(word(&b, 217)).filter(|&r| r != 0),
            smart_supported: word_valid(w83) && word(&b, 82) & 1 != 0,
            smart_enabled: word_valid(w87) && word(&b, 85) & 1 != 0,
            gpl_supported,
            lba48,
            checksum_valid: (w255 & 0xFF == 0xA5).then(|| byte_sum(b.slice(0, SECTOR)) == 0),
            ata_major_version: major_version(word(&b, 80)),
        })
    }

    /// Word 217 = 1: a non-rotating (solid state) device.
    pub fn is_ssd(&self) -> bool {
        self.rotation_rate == Some(1)
    }

    /// The WWN as Linux prints it in `/sys/block/sdX/device/wwid`:
    /// `naa.` and 16 lower-case hex digits.
    pub fn wwn_string(&self) -> Option<String> {
        self.wwn.map(|w| format!("naa.{w:016x}"))
    }

    /// The name of [`ata_major_version`](Self::ata_major_version).
    pub fn ata_version_name(&self) -> Option<&'static str> {
        Some(match self.ata_major_version? {
            1 => "ATA-1",
            2 => "ATA-2",
            3 => "ATA-3",
            4 => "ATA/ATAPI-4",
            5 => "ATA/ATAPI-5",
            6 => "ATA/ATAPI-6",
            7 => "ATA/ATAPI-7",
            8 => "ATA8-ACS",
            9 => "ACS-2",
            10 => "ACS-3",
            11 => "ACS-4",
            _ => "newer than ACS-4",
        })
    }
}

/// Word 106 and words 117–118 → (logical, physical) sector size in bytes.
fn sector_sizes(b: &Bytes<'_>) -> (u32, u32) {
    let w106 = word(b, 106);
    if !word_valid(w106) {
        return (SECTOR as u32, SECTOR as u32);
    }
    let words = u64::from(b.u32(234));
    let logical = if w106 & (1 << 12) != 0 && words != 0 {
        words * 2
    } else {
        SECTOR as u64
    };
    let physical = if w106 & (1 << 13) != 0 {
        logical << (w106 & 0x0F)
    } else {
        logical
    };
    let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    (clamp(logical), clamp(physical))
}

fn major_version(w80: u16) -> Option<u8> {
    // 0000h and FFFFh: not reported. Bits 0 and 15 are reserved; the
    // highest bit among 14..1 wins.
    let bits = w80 & 0x7FFE;
    if w80 == 0xFFFF || bits == 0 {
        return None;
    }
    Some((15 - bits.leading_zeros()) as u8)
}

#[cfg(test)]
#[path = "identify_tests.rs"]
mod tests;
