//! SCSI status and sense data (SPC-5 4.4): the sense key and additional
//! sense code of any command, and the ATA result registers that SAT puts
//! in the sense data of an ATA PASS-THROUGH answer.
//!
//! Two sense formats carry ATA registers (SAT-3 12.2.2.6 / 12.2.2.7):
//!
//! - descriptor format (response code 72h/73h): descriptor 09h "ATA Status
//!   Return", 14 bytes: extend (byte 2 bit 0), error (3), count 15:8 / 7:0
//!   (4/5), LBA 31:24 / 7:0 (6/7), LBA 39:32 / 15:8 (8/9), LBA 47:40 / 23:16
//!   (10/11), device (12), status (13). High bytes are valid only with
//!   extend.
//! - fixed format (70h/71h): INFORMATION bytes 3..6 = error, status, device,
//!   count 7:0; COMMAND-SPECIFIC INFORMATION byte 8 = extend (b7), count
//!   upper non-zero (b6), LBA upper non-zero (b5), log index (3:0), bytes
//!   9..11 = LBA 7:0, 15:8, 23:16. The upper bytes are not in the sense at
//!   all (smartmontools `scsiata.cpp` reads the same offsets).
//!
//! Linux libata note: kernels before the 2024 fix "ata: libata-scsi: Fix
//! offsets for the fixed format sense data" wrote fixed-format registers
//! 5 bytes too far and without the VALID bit; we then find no registers and
//! fall back to the sense key (see `ata::AtaError::is_unsupported`).

use crate::decode::Bytes;

/// SCSI status GOOD.
pub const STATUS_GOOD: u8 = 0x00;
/// SCSI status CHECK CONDITION: sense data describes the result.
pub const STATUS_CHECK_CONDITION: u8 = 0x02;

/// Sense key NO SENSE.
pub const KEY_NO_SENSE: u8 = 0x0;
/// Sense key RECOVERED ERROR (with ASC/ASCQ 00h/1Dh: registers attached).
pub const KEY_RECOVERED_ERROR: u8 = 0x1;
/// Sense key ILLEGAL REQUEST.
pub const KEY_ILLEGAL_REQUEST: u8 = 0x5;
/// Sense key ABORTED COMMAND.
pub const KEY_ABORTED_COMMAND: u8 = 0xB;
/// ASC 00h / ASCQ 1Dh: "ATA pass through information available".
pub const ASCQ_ATA_INFO_AVAILABLE: u8 = 0x1D;

/// The ATA result registers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtaRegisters {
    pub error: u8,
    /// Count 15:0 (15:8 only from a descriptor with extend set).
    pub count: u16,
    /// LBA 47:0 (47:24 only from a descriptor with extend set).
    pub lba: u64,
    pub device: u8,
    pub status: u8,
}

impl AtaRegisters {
    /// LBA 7:0 ("LBA low", formerly sector number).
    pub fn lba_low(&self) -> u8 {
        self.lba as u8
    }
    /// LBA 15:8 ("LBA mid", formerly cylinder low).
    pub fn lba_mid(&self) -> u8 {
        (self.lba >> 8) as u8
    }
    /// LBA 23:16 ("LBA high", formerly cylinder high).
    pub fn lba_high(&self) -> u8 {
        (self.lba >> 16) as u8
    }
}

/// Decoded sense data. All zero (and `ata` None) for empty or unknown
/// formats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sense {
    /// Byte 0 bits 6:0: 70h/71h fixed, 72h/73h descriptor.
    pub response_code: u8,
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// The ATA registers, when the sense carries them.
    pub ata: Option<AtaRegisters>,
}

/// Decodes the sense bytes the kernel wrote (pass `&buf[..sense_len]`).
/// Never panics; short or garbage input yields a partial or empty [`Sense`].
pub fn parse_sense(sense: &[u8]) -> Sense {
    let Ok(b) = Bytes::new("sense data", sense, 0) else {
        return Sense::default();
    };
    let response_code = b.u8(0) & 0x7F;
    match response_code {
        0x70 | 0x71 => parse_fixed(&b, sense.len(), response_code),
        0x72 | 0x73 => parse_descriptor(&b, sense.len(), response_code),
        _ => Sense {
            response_code,
            ..Sense::default()
        },
    }
}

fn parse_fixed(b: &Bytes<'_>, len: usize, response_code: u8) -> Sense {
    // Only the bytes the additional sense length covers count.
    let end = if len > 7 {
        len.min(8 + usize::from(b.u8(7)))
    } else {
        len
    };
    let present = |i: usize| i < end;
    let key = if present(2) { b.u8(2) & 0x0F } else { 0 };
    let asc = if present(12) { b.u8(12) } else { 0 };
    let ascq = if present(13) { b.u8(13) } else { 0 };
    // As smartmontools (`lib/scsiata.cpp`, fixed format branch) accepts
    // them: only ASC/ASCQ 00h/1Dh "ATA pass through information available"
    // says the INFORMATION field holds registers, and a real ATA status
    // always has some bit set (DRDY at least), so a zero status byte is no
    // register set. The VALID bit alone says nothing about ATA registers.
    let info = asc == 0 && ascq == ASCQ_ATA_INFO_AVAILABLE;
    let ata = (present(11) && info && b.u8(4) != 0).then(|| AtaRegisters {
        error: b.u8(3),
        status: b.u8(4),
        device: b.u8(5),
        count: u16::from(b.u8(6)),
        lba: b.uint(9, 3) as u64,
    });
    Sense {
        response_code,
        key,
        asc,
        ascq,
        ata,
    }
}

fn parse_descriptor(b: &Bytes<'_>, len: usize, response_code: u8) -> Sense {
    let end = len.min(8 + usize::from(b.u8(7)));
    let mut ata = None;
    let mut off = 8;
    while off + 2 <= end {
        let (code, dlen) = (b.u8(off), usize::from(b.u8(off + 1)));
        if code == 0x09 && dlen >= 12 && off + 14 <= end {
            ata = Some(ata_status_return(b, off));
            break;
        }
        off += 2 + dlen;
    }
    Sense {
        response_code,
        key: if len > 1 { b.u8(1) & 0x0F } else { 0 },
        asc: b.u8(2),
        ascq: b.u8(3),
        ata,
    }
}

/// Descriptor 09h at `d`.
fn ata_status_return(b: &Bytes<'_>, d: usize) -> AtaRegisters {
    let extend = b.u8(d + 2) & 0x01 != 0;
    let byte = |i: usize| u64::from(b.u8(d + i));
    let mut lba = byte(7) | byte(9) << 8 | byte(11) << 16;
    let mut count = u16::from(b.u8(d + 5));
    if extend {
        lba |= byte(6) << 24 | byte(8) << 32 | byte(10) << 40;
        count |= u16::from(b.u8(d + 4)) << 8;
    }
    AtaRegisters {
        error: b.u8(d + 3),
        count,
        lba,
        device: b.u8(d + 12),
        status: b.u8(d + 13),
    }
}

/// SPC sense key names, lower case.
pub fn sense_key_name(key: u8) -> &'static str {
    match key {
        0x0 => "no sense",
        0x1 => "recovered error",
        0x2 => "not ready",
        0x3 => "medium error",
        0x4 => "hardware error",
        0x5 => "illegal request",
        0x6 => "unit attention",
        0x7 => "data protect",
        0x8 => "blank check",
        0x9 => "vendor specific",
        0xA => "copy aborted",
        0xB => "aborted command",
        0xD => "volume overflow",
        0xE => "miscompare",
        _ => "reserved sense key",
    }
}

/// SAM status names, lower case.
pub fn scsi_status_name(status: u8) -> &'static str {
    match status {
        0x00 => "good",
        0x02 => "check condition",
        0x04 => "condition met",
        0x08 => "busy",
        0x18 => "reservation conflict",
        0x28 => "task set full",
        0x30 => "aca active",
        0x40 => "task aborted",
        _ => "unknown status",
    }
}

#[cfg(test)]
pub(crate) mod tests;
