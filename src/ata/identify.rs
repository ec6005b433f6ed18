//! IDENTIFY DEVICE data (ECh, 512 bytes = 256 little-endian words): identity
//! strings, capacity and sector sizes, WWN, rotation rate and the feature
//! bits that decide which other pages the exporter asks for.
//!
//! Word numbers are from ACS-3 table "IDENTIFY DEVICE data"; the validity
//! rules for words 82–87 and 106 follow smartmontools (`atacmds.cpp`:
//! `ataSmartSupport`, `ataIsSmartEnabled`, `isGeneralPurposeLoggingCapable`,
//! `ata_get_size_info`).

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::passthrough::{Command, Protocol, Taskfile};
use super::sector::{Checksummed, Sector};
use super::{CMD_IDENTIFY_DEVICE, SECTOR};
use crate::decode::{ParseError, printable};

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

/// IDENTIFY DEVICE data as ACS-4 lays it out (table "IDENTIFY DEVICE
/// data"; field names after smartmontools' `struct ata_identify_device`
/// where it has one): 256 little-endian words, word N at byte 2N. The one
/// definition of these offsets: the decoder reads through it, the demo and
/// the fixture builder fill it in. Words named here are the ones the
/// decoder reads or a plausible drive sets; the spans between are arrays.
/// Strings are two characters per word, the first in the high byte (see
/// [`ata_string`] and [`put_ata_string`]).
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct IdentifyPage {
    /// Word 0 (byte 0): general configuration (bit 15 clear = ATA device).
    pub general_configuration: U16,
    /// Word 1 (byte 2): obsolete number of logical cylinders.
    pub cylinders: U16,
    /// Word 2 (byte 4): specific configuration.
    pub specific_configuration: U16,
    /// Word 3 (byte 6): obsolete number of logical heads.
    pub heads: U16,
    /// Words 4–5 (bytes 8–11).
    pub words4_5: [U16; 2],
    /// Word 6 (byte 12): obsolete logical sectors per track.
    pub sectors_per_track: U16,
    /// Words 7–9 (bytes 14–19).
    pub words7_9: [U16; 3],
    /// Words 10–19 (bytes 20–39): serial number, 20 ASCII characters.
    pub serial: [u8; 20],
    /// Words 20–22 (bytes 40–45).
    pub words20_22: [U16; 3],
    /// Words 23–26 (bytes 46–53): firmware revision, 8 characters.
    pub firmware: [u8; 8],
    /// Words 27–46 (bytes 54–93): model number, 40 characters.
    pub model: [u8; 40],
    /// Word 47 (byte 94): READ/WRITE MULTIPLE maximum sectors (bits 7:0).
    pub max_multiple: U16,
    /// Word 48 (byte 96): trusted computing feature set options.
    pub trusted_computing: U16,
    /// Word 49 (byte 98): capabilities (b9 LBA, b8 DMA, b11 IORDY).
    pub capabilities: U16,
    /// Words 50–52 (bytes 100–105).
    pub words50_52: [U16; 3],
    /// Word 53 (byte 106): which of words 64–70 and 88 are valid.
    pub field_valid: U16,
    /// Words 54–58 (bytes 108–117): obsolete current CHS geometry.
    pub words54_58: [U16; 5],
    /// Word 59 (byte 118): current READ/WRITE MULTIPLE setting.
    pub multiple_setting: U16,
    /// Words 60–61 (bytes 120–123): user addressable sectors for 28-bit
    /// commands (word 60 low).
    pub lba28_sectors: U32,
    /// Word 62 (byte 124).
    pub word62: U16,
    /// Word 63 (byte 126): multiword DMA modes.
    pub multiword_dma: U16,
    /// Word 64 (byte 128): PIO modes supported.
    pub pio_modes: U16,
    /// Words 65–68 (bytes 130–137): minimum cycle times, ns.
    pub cycle_times: [U16; 4],
    /// Words 69–74 (bytes 138–149).
    pub words69_74: [U16; 6],
    /// Word 75 (byte 150): queue depth − 1 (bits 4:0).
    pub queue_depth: U16,
    /// Word 76 (byte 152): Serial ATA capabilities (signalling speeds, NCQ).
    pub sata_capabilities: U16,
    /// Words 77–79 (bytes 154–159).
    pub words77_79: [U16; 3],
    /// Word 80 (byte 160): major version number (bit N = version N).
    pub major_version: U16,
    /// Word 81 (byte 162): minor version number.
    pub minor_version: U16,
    /// Word 82 (byte 164): commands and feature sets supported (b0 SMART).
    pub command_set_1: U16,
    /// Word 83 (byte 166): supported (b10 48-bit Address; bits 15:14 = 01b
    /// when valid).
    pub command_set_2: U16,
    /// Word 84 (byte 168): supported extension (b0 SMART error logging, b1
    /// SMART self-test, b5 GPL, b8 WWN; bits 15:14 = 01b when valid).
    pub command_set_extension: U16,
    /// Word 85 (byte 170): enabled, as word 82 (b0 SMART enabled).
    pub command_set_enabled_1: U16,
    /// Word 86 (byte 172): enabled, as word 83.
    pub command_set_enabled_2: U16,
    /// Word 87 (byte 174): enabled/default, as word 84 (bits 15:14 = 01b
    /// when valid).
    pub command_set_default: U16,
    /// Word 88 (byte 176): Ultra DMA modes.
    pub ultra_dma: U16,
    /// Words 89–99 (bytes 178–199).
    pub words89_99: [U16; 11],
    /// Words 100–103 (bytes 200–207): user addressable sectors for 48-bit
    /// commands (word 100 least significant).
    pub lba48_sectors: U64,
    /// Words 104–105 (bytes 208–211).
    pub words104_105: [U16; 2],
    /// Word 106 (byte 212): physical / logical sector size (valid when bits
    /// 15:14 = 01b; b13 several logical per physical, 2^(bits 3:0) of them;
    /// b12 logical sector longer than 256 words).
    pub sector_size: U16,
    /// Word 107 (byte 214).
    pub word107: U16,
    /// Words 108–111 (bytes 216–223): world wide name, word 108 most
    /// significant (NAA in its bits 15:12).
    pub wwn: [U16; 4],
    /// Words 112–116 (bytes 224–233).
    pub words112_116: [U16; 5],
    /// Words 117–118 (bytes 234–237): logical sector size in words (with
    /// word 106 bit 12).
    pub logical_sector_words: U32,
    /// Words 119–167 (bytes 238–335).
    pub words119_167: [U16; 49],
    /// Word 168 (byte 336): nominal form factor (bits 3:0; 3 = 2.5").
    pub form_factor: U16,
    /// Word 169 (byte 338): DATA SET MANAGEMENT support (b0 TRIM).
    pub data_set_management: U16,
    /// Words 170–216 (bytes 340–433).
    pub words170_216: [U16; 47],
    /// Word 217 (byte 434): nominal media rotation rate (1 = non-rotating).
    pub rotation_rate: U16,
    /// Words 218–221 (bytes 436–443).
    pub words218_221: [U16; 4],
    /// Word 222 (byte 444): transport major version (bits 15:12 type).
    pub transport_major: U16,
    /// Words 223–254 (bytes 446–509).
    pub words223_254: [U16; 32],
    /// Word 255 bits 7:0 (byte 510): integrity signature, A5h when byte
    /// 511 is a checksum.
    pub integrity_signature: u8,
    /// Word 255 bits 15:8 (byte 511): checksum of the 512 bytes.
    pub checksum: u8,
}

const _: () = assert!(size_of::<IdentifyPage>() == SECTOR);

/// Word 255's signature: byte 511 is a checksum.
pub const INTEGRITY_SIGNATURE: u8 = 0xA5;

impl Sector for IdentifyPage {
    const PAGE: &'static str = PAGE;
}

impl Checksummed for IdentifyPage {}

impl IdentifyPage {
    /// Words 108–111 as one number, word 108 most significant.
    pub fn wwn(&self) -> u64 {
        self.wwn
            .iter()
            .fold(0, |acc, w| acc << 16 | u64::from(w.get()))
    }

    pub fn set_wwn(&mut self, wwn: u64) {
        for (i, w) in self.wwn.iter_mut().enumerate() {
            *w = ((wwn >> (16 * (3 - i))) as u16).into();
        }
    }
}

/// An ATA string field: swap each word's two bytes, trim.
pub fn ata_string(field: &[u8]) -> String {
    let swapped: Vec<u8> = field
        .chunks_exact(2)
        .flat_map(|pair| [pair[1], pair[0]])
        .collect();
    printable(&swapped)
}

/// Writes `text` into an ATA string field: space padded (cut at the
/// field's length), the two characters of each word swapped.
pub fn put_ata_string(field: &mut [u8], text: &str) {
    field.fill(b' ');
    for (dst, src) in field.iter_mut().zip(text.bytes()) {
        *dst = src;
    }
    for pair in field.chunks_exact_mut(2) {
        pair.swap(0, 1);
    }
}

/// Words 82–87 carry information only when bits 15:14 are 01b.
fn word_valid(w: u16) -> bool {
    w & 0xC000 == 0x4000
}

impl Identify {
    /// Decodes a 512-byte IDENTIFY DEVICE buffer.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let p = IdentifyPage::view(buf)?;
        let w83 = p.command_set_2.get();
        let w84 = p.command_set_extension.get();
        let w87 = p.command_set_default.get();
        let lba48 = word_valid(w83) && w83 & (1 << 10) != 0;
        let lba48_sectors = p.lba48_sectors.get();
        let sectors = if lba48 && lba48_sectors != 0 {
            lba48_sectors
        } else {
            u64::from(p.lba28_sectors.get())
        };
        let (logical, physical) = sector_sizes(p);
        let gpl_supported = if word_valid(w84) {
            w84 & (1 << 5) != 0
        } else {
            word_valid(w87) && w87 & (1 << 5) != 0
        };
        let wwn = p.wwn();
        Ok(Self {
            model: ata_string(&p.model),
            serial: ata_string(&p.serial),
            firmware: ata_string(&p.firmware),
            sectors,
            capacity_bytes: u128::from(sectors) * u128::from(logical),
            logical_sector_size: logical,
            physical_sector_size: physical,
            wwn: (wwn != 0).then_some(wwn),
            rotation_rate: Some(p.rotation_rate.get()).filter(|&r| r != 0),
            smart_supported: word_valid(w83) && p.command_set_1.get() & 1 != 0,
            smart_enabled: word_valid(w87) && p.command_set_enabled_1.get() & 1 != 0,
            gpl_supported,
            lba48,
            checksum_valid: (p.integrity_signature == INTEGRITY_SIGNATURE)
                .then(|| p.checksum_valid()),
            ata_major_version: major_version(p.major_version.get()),
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
fn sector_sizes(p: &IdentifyPage) -> (u32, u32) {
    let w106 = p.sector_size.get();
    if !word_valid(w106) {
        return (SECTOR as u32, SECTOR as u32);
    }
    let words = u64::from(p.logical_sector_words.get());
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
mod tests;
