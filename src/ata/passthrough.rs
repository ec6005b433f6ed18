//! SCSI ATA PASS-THROUGH(16) (SAT, opcode 85h): the ATA taskfile laid out
//! as a 16-byte CDB. The sense data that carries the result registers back
//! is decoded in [`crate::scsi::sense`] and classified in [`super::sense`]
//! (both re-exported here).
//!
//! Field placement (SAT-3 table "ATA PASS-THROUGH (16) command"; the same
//! bytes smartmontools' `scsiata.cpp` sends):
//!
//! ```text
//! byte 0  85h                       byte 8   LBA 7:0   (LBA low)
//! byte 1  protocol << 1 | extend    byte 9   LBA 39:32
//! byte 2  ck_cond<<5 | t_dir<<3     byte 10  LBA 15:8  (LBA mid)
//!         | byt_blok<<2 | t_length  byte 11  LBA 47:40
//! byte 3  features 15:8             byte 12  LBA 23:16 (LBA high)
//! byte 4  features 7:0              byte 13  device
//! byte 5  count 15:8                byte 14  command
//! byte 6  count 7:0                 byte 15  control (0)
//! byte 7  LBA 31:24
//! ```

pub use super::sense::{AtaError, AtaRegisters, Sense, outcome, parse_sense};
use super::{CMD_READ_LOG_EXT, CMD_SMART, SECTOR, SMART_LBA_HIGH, SMART_LBA_MID};

/// SCSI operation code of ATA PASS-THROUGH(16).
pub const ATA_PASS_THROUGH_16: u8 = 0x85;
/// SCSI operation code of ATA PASS-THROUGH(12).
pub const ATA_PASS_THROUGH_12: u8 = 0xA1;

/// The ATA registers a command is issued with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taskfile {
    /// Command register (ECh IDENTIFY DEVICE, B0h SMART, ...).
    pub command: u8,
    /// Features 15:0; bits 15:8 are sent only with `extend`.
    pub features: u16,
    /// Count 15:0 (sectors for the PIO commands here); bits 15:8 only with
    /// `extend`.
    pub count: u16,
    /// LBA 47:0; bits 47:24 are sent only with `extend`.
    pub lba: u64,
    /// Device register (0 for every command the exporter sends).
    pub device: u8,
}

/// ATA protocol (SAT PROTOCOL field). Only what a read-only exporter needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// 3: Non-data.
    NonData,
    /// 4: PIO Data-In.
    PioIn,
}

impl Protocol {
    /// The SAT PROTOCOL field value.
    pub fn code(self) -> u8 {
        match self {
            Protocol::NonData => 3,
            Protocol::PioIn => 4,
        }
    }
}

/// Builds the ATA PASS-THROUGH(16) CDB for `tf`.
///
/// `check_condition` sets CK_COND: the SATL returns the result registers in
/// sense data even on success (needed for SMART RETURN STATUS and CHECK
/// POWER MODE). `extend` marks a 48-bit command (READ LOG EXT) and sends the
/// high bytes of features, count and LBA. For PIO data-in the transfer
/// length is in the count field, in 512-byte blocks, from the device
/// (T_LENGTH 2, BYT_BLOK 1, T_DIR 1). For non-data, T_LENGTH is 0 and, as
/// smartmontools does, T_DIR and BYT_BLOK stay 1 (SAT ignores them then).
pub fn cdb16(tf: &Taskfile, proto: Protocol, check_condition: bool, extend: bool) -> [u8; 16] {
    let t_length: u8 = match proto {
        Protocol::NonData => 0,
        Protocol::PioIn => 2,
    };
    let (t_dir, byt_blok) = (1u8, 1u8);
    let hi = |v: u8| if extend { v } else { 0 };
    let [f_lo, f_hi] = tf.features.to_le_bytes();
    let [c_lo, c_hi] = tf.count.to_le_bytes();
    let lba = tf.lba.to_le_bytes();
    [
        ATA_PASS_THROUGH_16,
        (proto.code() << 1) | u8::from(extend),
        (u8::from(check_condition) << 5) | (t_dir << 3) | (byt_blok << 2) | t_length,
        hi(f_hi),
        f_lo,
        hi(c_hi),
        c_lo,
        hi(lba[3]),
        lba[0],
        hi(lba[4]),
        lba[1],
        hi(lba[5]),
        lba[2],
        tf.device,
        tf.command,
        0,
    ]
}

/// Builds the ATA PASS-THROUGH(12) CDB for a 28-bit `tf` (SAT-3 "ATA
/// PASS-THROUGH (12) command"; smartmontools `scsiata.cpp`,
/// `sat_device::ata_pass_through` with `passthru_size` 12), for USB
/// bridges that take only 12-byte CDBs (drivedb.h `sat,12`). Bytes 1 and
/// 2 are (16)'s; no 48-bit command fits (SAT: no EXTEND bit), so the high
/// bytes are not sent.
///
/// ```text
/// byte 0  A1h                     byte 6   LBA 15:8  (LBA mid)
/// byte 1  protocol << 1           byte 7   LBA 23:16 (LBA high)
/// byte 2  as in (16)              byte 8   device
/// byte 3  features 7:0            byte 9   command
/// byte 4  count 7:0               byte 10  reserved
/// byte 5  LBA 7:0 (LBA low)       byte 11  control (0)
/// ```
pub fn cdb12(tf: &Taskfile, proto: Protocol, check_condition: bool) -> [u8; 12] {
    let c16 = cdb16(tf, proto, check_condition, false);
    [
        ATA_PASS_THROUGH_12,
        c16[1],
        c16[2],
        c16[4],
        c16[6],
        c16[8],
        c16[10],
        c16[12],
        c16[13],
        c16[14],
        0,
        0,
    ]
}

/// One complete pass-through request: what to put in the CDB and how much
/// data to expect back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub taskfile: Taskfile,
    pub protocol: Protocol,
    /// CK_COND: the caller needs the result registers.
    pub check_condition: bool,
    /// 48-bit command.
    pub extend: bool,
}

impl Command {
    /// The ATA PASS-THROUGH(16) CDB.
    pub fn cdb(&self) -> [u8; 16] {
        cdb16(
            &self.taskfile,
            self.protocol,
            self.check_condition,
            self.extend,
        )
    }

    /// The ATA PASS-THROUGH(12) CDB; `None` for a 48-bit command, which
    /// only (16) carries.
    pub fn cdb12(&self) -> Option<[u8; 12]> {
        (!self.extend).then(|| cdb12(&self.taskfile, self.protocol, self.check_condition))
    }

    /// Bytes the device transfers: count × 512 for PIO data-in, else 0.
    pub fn data_len(&self) -> usize {
        match self.protocol {
            Protocol::NonData => 0,
            Protocol::PioIn => usize::from(self.taskfile.count) * SECTOR,
        }
    }

    /// A 28-bit SMART subcommand: B0h with `feature`, the 4Fh/C2h signature
    /// in LBA mid/high, `lba_low` (log address for SMART READ LOG) and
    /// `count` sectors (0 for non-data).
    pub fn smart(feature: u8, lba_low: u8, count: u16) -> Self {
        let lba =
            u64::from(lba_low) | u64::from(SMART_LBA_MID) << 8 | u64::from(SMART_LBA_HIGH) << 16;
        let non_data = count == 0;
        Self {
            taskfile: Taskfile {
                command: CMD_SMART,
                features: u16::from(feature),
                count,
                lba,
                device: 0,
            },
            protocol: if non_data {
                Protocol::NonData
            } else {
                Protocol::PioIn
            },
            check_condition: non_data,
            extend: false,
        }
    }

    /// READ LOG EXT (2Fh, 48-bit, PIO data-in): `count` sectors of log
    /// `log` starting at `page`. ACS places the page number's low byte in
    /// LBA 15:8 and its high byte in LBA 39:32 (the "previous" LBA mid;
    /// smartmontools' `lba_mid_16`).
    pub fn read_log_ext(log: u8, page: u16, count: u16) -> Self {
        let [p_lo, p_hi] = page.to_le_bytes();
        let lba = u64::from(log) | u64::from(p_lo) << 8 | u64::from(p_hi) << 32;
        Self {
            taskfile: Taskfile {
                command: CMD_READ_LOG_EXT,
                features: 0,
                count,
                lba,
                device: 0,
            },
            protocol: Protocol::PioIn,
            check_condition: false,
            extend: true,
        }
    }
}

#[cfg(test)]
mod tests;
