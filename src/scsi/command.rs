//! The SCSI commands the exporter sends (all data-in, none touches the
//! medium): their CDBs, how long an answer should be, and what a completion
//! means. Pure: `device::scsi_live` issues them through `sys::sg`.
//!
//! CDB layouts (SPC-5 / SBC-4, the same bytes smartmontools' `scsicmds.cpp`
//! and sg3_utils send):
//!
//! ```text
//! INQUIRY (12h, SPC-5 6.7.1)        0: 12h  1: EVPD (bit 0)  2: page code
//!                                   3-4: allocation length  5: control
//! LOG SENSE (4Dh, SPC-5 6.6)        0: 4Dh  2: PC (7:6) | page (5:0)
//!                                   3: subpage  7-8: allocation length
//! READ CAPACITY(16) (9Eh/10h,       0: 9Eh  1: service action 10h
//!   SBC-4 5.20.1)                   10-13: allocation length
//! READ DEFECT DATA(10) (37h,        0: 37h  2: REQ_PLIST (4) | REQ_GLIST (3)
//!   SBC-4)                          | format (2:0)  7-8: allocation length
//! READ DEFECT DATA(12) (B7h,        0: B7h  1: REQ_PLIST (4) | REQ_GLIST (3)
//!   SBC-4)                          | format (2:0)  2-5: address descriptor
//!                                   index  6-9: allocation length
//! ```

use std::mem::offset_of;

use zerocopy::FromBytes;

use super::layout::{
    DefectListHeader, DefectListHeader12, InquiryData, ReadCapacity16Data, VpdHeader,
};
use super::log_layout::LogPageHeader;
use crate::scsi::sense::{KEY_ILLEGAL_REQUEST, KEY_NO_SENSE, KEY_RECOVERED_ERROR, Sense};
use crate::scsi::sense::{STATUS_CHECK_CONDITION, STATUS_GOOD, scsi_status_name, sense_key_name};

/// One SCSI command the exporter reads a page with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScsiRequest {
    /// Standard INQUIRY data.
    Inquiry,
    /// INQUIRY with EVPD set: vital product data page `0`.
    Vpd(u8),
    /// READ CAPACITY(16).
    ReadCapacity16,
    /// LOG SENSE, cumulative values (PC 01b), `page` / `subpage`.
    Log { page: u8, subpage: u8 },
    /// READ DEFECT DATA(10), grown list only, header only.
    GrownDefects10,
    /// READ DEFECT DATA(12), grown list only, header only: asked first
    /// (its list length has 32 bits), (10) when the drive lacks it.
    GrownDefects12,
}

impl std::fmt::Display for ScsiRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Inquiry => f.write_str("inquiry"),
            Self::Vpd(p) => write!(f, "inquiry vpd page {p:02x}h"),
            Self::ReadCapacity16 => f.write_str("read capacity(16)"),
            Self::Log { page, subpage: 0 } => write!(f, "log sense page {page:02x}h"),
            Self::Log { page, subpage } => {
                write!(f, "log sense page {page:02x}h subpage {subpage:02x}h")
            }
            Self::GrownDefects10 => f.write_str("read defect data(10)"),
            Self::GrownDefects12 => f.write_str("read defect data(12)"),
        }
    }
}

/// Standard INQUIRY: 96 bytes hold every field SPC-5 defines (36 are the
/// minimum a device returns).
pub const INQUIRY_LEN: u16 = 96;
/// VPD pages: 252, as sg3_utils' first read; SPC-2 devices had a one-byte
/// allocation length, so anything up to 255 works everywhere.
pub const VPD_LEN: u16 = 252;
/// LOG SENSE: the largest page read (10h, 4 + 20 × 20 bytes) with room;
/// smartmontools reads 18h and 10h with lengths of this order.
pub const LOG_LEN: u16 = 4096;
/// READ CAPACITY(16) parameter data (SBC-4 5.20.2).
pub const READ_CAPACITY_16_LEN: u16 = size_of::<ReadCapacity16Data>() as u16;
/// READ DEFECT DATA(10): the 4-byte header only.
pub const DEFECT_HEADER_LEN: u16 = size_of::<DefectListHeader>() as u16;
/// READ DEFECT DATA(12): the 8-byte header only.
pub const DEFECT_HEADER_12_LEN: u32 = size_of::<DefectListHeader12>() as u32;

/// LOG SENSE PC field 01b: cumulative values.
const PC_CUMULATIVE: u8 = 0x40;
/// READ DEFECT DATA REQ_GLIST (byte 2 bit 3) with the bytes-from-index
/// format (100b), as smartmontools' `scsiPrintGrownDefectListLen` asks for
/// the grown list's length (a device may answer in its own format; the
/// header says which).
const REQ_GLIST_BYTES_FROM_INDEX: u8 = 0x08 | 0x04;

impl ScsiRequest {
    /// The CDB and the allocation length (the data-in buffer size).
    pub fn cdb(self) -> (Vec<u8>, usize) {
        let be16 = |n: u16| n.to_be_bytes();
        match self {
            Self::Inquiry => {
                let [h, l] = be16(INQUIRY_LEN);
                (vec![0x12, 0, 0, h, l, 0], usize::from(INQUIRY_LEN))
            }
            Self::Vpd(page) => {
                let [h, l] = be16(VPD_LEN);
                (vec![0x12, 0x01, page, h, l, 0], usize::from(VPD_LEN))
            }
            Self::ReadCapacity16 => {
                let mut cdb = vec![0u8; 16];
                cdb[0] = 0x9E;
                cdb[1] = 0x10;
                cdb[10..14].copy_from_slice(&u32::from(READ_CAPACITY_16_LEN).to_be_bytes());
                (cdb, usize::from(READ_CAPACITY_16_LEN))
            }
            Self::Log { page, subpage } => {
                let [h, l] = be16(LOG_LEN);
                let cdb = vec![
                    0x4D,
                    0,
                    PC_CUMULATIVE | (page & 0x3F),
                    subpage,
                    0,
                    0,
                    0,
                    h,
                    l,
                    0,
                ];
                (cdb, usize::from(LOG_LEN))
            }
            Self::GrownDefects10 => {
                let [h, l] = be16(DEFECT_HEADER_LEN);
                let cdb = vec![0x37, 0, REQ_GLIST_BYTES_FROM_INDEX, 0, 0, 0, 0, h, l, 0];
                (cdb, usize::from(DEFECT_HEADER_LEN))
            }
            Self::GrownDefects12 => {
                let mut cdb = vec![0u8; 12];
                cdb[0] = 0xB7;
                cdb[1] = REQ_GLIST_BYTES_FROM_INDEX;
                cdb[6..10].copy_from_slice(&DEFECT_HEADER_12_LEN.to_be_bytes());
                (cdb, DEFECT_HEADER_12_LEN as usize)
            }
        }
    }

    /// How many bytes of `data` (the data-in buffer, `alloc` long) the
    /// answer says it holds, bounded by the allocation length: the page's
    /// own length field, so that a transfer shorter than that is caught as
    /// short, and the zero padding after a shorter page is not kept.
    /// `None` when the buffer is too short to hold even the length field.
    pub fn answer_len(self, data: &[u8], alloc: usize) -> Option<usize> {
        let declared = match self {
            // ADDITIONAL LENGTH (n - 4); at least the 36 bytes of the
            // fixed part are expected.
            Self::Inquiry => {
                let at = offset_of!(InquiryData, additional_length);
                (at + 1 + usize::from(*data.get(at)?)).max(size_of::<InquiryData>())
            }
            // VPD and log pages: the header's page length (n - 3).
            Self::Vpd(_) => {
                let (h, _) = VpdHeader::ref_from_prefix(data).ok()?;
                size_of::<VpdHeader>() + usize::from(h.page_length.get())
            }
            Self::Log { .. } => {
                let (h, _) = LogPageHeader::ref_from_prefix(data).ok()?;
                size_of::<LogPageHeader>() + usize::from(h.page_length.get())
            }
            Self::ReadCapacity16 => size_of::<ReadCapacity16Data>(),
            // The header; with an allocation length of the header alone
            // the list itself is not transferred.
            Self::GrownDefects10 => size_of::<DefectListHeader>(),
            Self::GrownDefects12 => size_of::<DefectListHeader12>(),
        };
        Some(declared.min(alloc))
    }

    /// How much of `filled` (what the device moved into a buffer of `alloc`
    /// bytes, or a replayed dump file) is the answer, or why it is short:
    /// the answer's own length ([`Self::answer_len`]), all of which must
    /// have arrived. One exception, standard INQUIRY: a device may claim
    /// more ADDITIONAL LENGTH than it transfers (some HBAs and bridges cut
    /// the optional part), and as long as the 36-byte standard part arrived
    /// what did arrive is the answer (smartmontools asks for 36 bytes of
    /// standard INQUIRY and reads the identity from them alone).
    pub fn accept(self, filled: &[u8], alloc: usize) -> Result<usize, ShortAnswer> {
        let short = |expected| ShortAnswer {
            expected,
            got: filled.len(),
        };
        let fixed = size_of::<InquiryData>();
        // Too short for even the length field: the standard part, or a
        // VPD / log page header.
        let header = match self {
            Self::Inquiry => fixed,
            _ => size_of::<VpdHeader>(),
        };
        let len = self
            .answer_len(filled, alloc)
            .ok_or_else(|| short(header))?;
        match self {
            _ if filled.len() >= len => Ok(len),
            Self::Inquiry if filled.len() >= fixed => Ok(filled.len()),
            _ => Err(short(len)),
        }
    }
}

/// An answer shorter than it says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("short transfer: the device returned {got} of {expected} bytes")]
pub struct ShortAnswer {
    pub expected: usize,
    pub got: usize,
}

/// Why a SCSI command did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScsiError {
    /// CHECK CONDITION: the sense data says why.
    #[error(
        "scsi check condition: {} (sense key {key:x}h, asc {asc:02x}h, ascq {ascq:02x}h)",
        sense_key_name(*key)
    )]
    Check { key: u8, asc: u8, ascq: u8 },
    /// Another SCSI status (BUSY, TASK SET FULL, ...).
    #[error("scsi status {status:02x}h ({})", scsi_status_name(*status))]
    Status { status: u8 },
}

impl ScsiError {
    /// The device refused the command as such: ILLEGAL REQUEST with 20h
    /// (invalid command operation code) or 24h (invalid field in CDB: a
    /// page it does not have); or, to READ DEFECT DATA, ASC 1Ch "defect
    /// list not found" under any sense key (smartmontools leaves quietly
    /// then). The page is unsupported, not failed.
    pub fn is_unsupported(&self) -> bool {
        if matches!(*self, Self::Check { asc: 0x1C, .. }) {
            return true;
        }
        matches!(
            *self,
            Self::Check {
                key: KEY_ILLEGAL_REQUEST,
                asc: 0x20 | 0x24,
                ..
            }
        )
    }
}

/// Classifies a completed command. GOOD is success; so is CHECK CONDITION
/// with NO SENSE or RECOVERED ERROR (SPC-5 4.4.2: the command completed,
/// the device recovered), as smartmontools' `scsiSimpleSenseFilter` treats
/// them.
pub fn outcome(status: u8, sense: &Sense) -> Result<(), ScsiError> {
    match status {
        STATUS_GOOD => Ok(()),
        STATUS_CHECK_CONDITION
            if sense.response_code != 0
                && (sense.key == KEY_NO_SENSE || sense.key == KEY_RECOVERED_ERROR) =>
        {
            Ok(())
        }
        STATUS_CHECK_CONDITION => Err(ScsiError::Check {
            key: sense.key,
            asc: sense.asc,
            ascq: sense.ascq,
        }),
        other => Err(ScsiError::Status { status: other }),
    }
}

#[cfg(test)]
mod tests;
