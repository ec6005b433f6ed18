//! Error Information log page (LID 01h): ELPE+1 entries of 64 bytes, each
//! describing one failed command. Empty entries (error count 0) are dropped.

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::ERROR_LOG_ENTRY_LEN;
use super::status::NvmeStatus;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "error log";

/// One Error Information log entry as `shared/reference/layouts.md` lays
/// it out (names as libnvme's `struct nvme_error_log_page`). The one definition of
/// these offsets: the decoder reads a page as a slice of them, the demo and
/// the fixture builder write them. Little-endian, unaligned, 64 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ErrorEntryLayout {
    /// Bytes 7:0, error count (0 = empty entry).
    pub error_count: U64,
    /// Bytes 9:8, submission queue ID.
    pub sqid: U16,
    /// Bytes 11:10, command ID.
    pub cmdid: U16,
    /// Bytes 13:12, status field: bit 0 phase tag, 8:1 SC, 11:9 SCT,
    /// 13:12 CRD, 14 more, 15 DNR.
    pub status_field: U16,
    /// Bytes 15:14, parameter error location.
    pub parm_error_location: U16,
    /// Bytes 23:16, LBA.
    pub lba: U64,
    /// Bytes 27:24, namespace ID.
    pub nsid: U32,
    /// Byte 28, vendor specific log page identifier.
    pub vs: u8,
    /// Byte 29, transport type.
    pub trtype: u8,
    /// Bytes 31:30, reserved in layouts.md (later revisions assign them;
    /// the exporter reads neither).
    pub rsvd30: [u8; 2],
    /// Bytes 39:32, command specific information.
    pub cs: U64,
    /// Bytes 41:40, transport type specific information.
    pub trtype_spec_info: U16,
    /// Bytes 63:42, reserved in layouts.md (later revisions put a log page
    /// version in byte 63; not read).
    pub rsvd42: [u8; 22],
}

const _: () = assert!(size_of::<ErrorEntryLayout>() == ERROR_LOG_ENTRY_LEN);

impl ErrorEntryLayout {
    /// An empty entry (error count 0), to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// One Error Information log entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEntry {
    /// Bytes 7:0: error count, unique and increasing (0 = empty entry).
    pub error_count: u64,
    /// Bytes 9:8: submission queue ID of the failed command (0 = admin).
    pub sqid: u16,
    /// Bytes 11:10: command ID.
    pub cmdid: u16,
    /// Bytes 13:12: completion status (bit 0 phase tag dropped, bits 15:1 decoded).
    pub status: NvmeStatus,
    /// Bytes 15:14: parameter error location (byte 7:0, bit 10:8 of the command).
    pub param_error_location: u16,
    /// Bytes 23:16: first LBA that had the error.
    pub lba: u64,
    /// Bytes 27:24: namespace ID.
    pub nsid: u32,
    /// Byte 28: vendor specific log page identifier with more detail (0 = none).
    pub vs: u8,
    /// Byte 29: transport type.
    pub trtype: u8,
    /// Bytes 39:32: command specific information.
    pub cs: u64,
    /// Bytes 41:40: transport type specific information.
    pub trtype_specific: u16,
}

/// The non-empty entries of an Error Information log page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorLog {
    /// Entries in page order, empty ones skipped.
    pub entries: Vec<ErrorEntry>,
}

impl ErrorLog {
    /// Decodes a page of whole 64-byte entries. The buffer must hold at least
    /// one entry; trailing bytes that do not form a whole entry are ignored.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, ERROR_LOG_ENTRY_LEN)?;
        let whole = buf.len() / ERROR_LOG_ENTRY_LEN;
        let (raw, _) =
            <[ErrorEntryLayout]>::ref_from_prefix_with_elems(b.raw(), whole).map_err(|_| {
                ParseError::Length {
                    page: PAGE,
                    expected: ERROR_LOG_ENTRY_LEN,
                    got: buf.len(),
                }
            })?;
        let entries = raw
            .iter()
            .filter(|e| e.error_count.get() != 0)
            .map(decode_entry)
            .collect();
        Ok(Self { entries })
    }

    /// The most recent entry: the one with the largest error count.
    pub fn newest(&self) -> Option<&ErrorEntry> {
        self.entries.iter().max_by_key(|e| e.error_count)
    }
}

fn decode_entry(e: &ErrorEntryLayout) -> ErrorEntry {
    ErrorEntry {
        error_count: e.error_count.get(),
        sqid: e.sqid.get(),
        cmdid: e.cmdid.get(),
        status: NvmeStatus::from_completion_field(e.status_field.get()),
        param_error_location: e.parm_error_location.get(),
        lba: e.lba.get(),
        nsid: e.nsid.get(),
        vs: e.vs,
        trtype: e.trtype,
        cs: e.cs.get(),
        trtype_specific: e.trtype_spec_info.get(),
    }
}

#[cfg(test)]
mod tests;
