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
mod tests {
    use super::*;
    use crate::nvme::testutil::*;

    fn entry(buf: &mut [u8], base: usize, count: u64) {
        put_u64(buf, base, count);
        put_u16(buf, base + 8, 3);
        put_u16(buf, base + 10, 0x1234);
        // Status 0x0281 (SCT 2, SC 81h Unrecovered Read Error) << 1 | phase.
        put_u16(buf, base + 12, 0x0503);
        put_u16(buf, base + 14, 0x0104);
        put_u64(buf, base + 16, 0x1_0000_0000);
        put_u32(buf, base + 24, 1);
        buf[base + 28] = 0xC1;
        buf[base + 29] = 2;
        put_u64(buf, base + 32, 0xDEAD_BEEF);
        put_u16(buf, base + 40, 0x55AA);
    }

    #[test]
    fn decodes_entries_and_skips_empty_ones() {
        let mut buf = vec![0u8; 4 * 64];
        entry(&mut buf, 0, 7);
        // entry 1 left empty
        entry(&mut buf, 128, 9);
        entry(&mut buf, 192, 8);
        let log = ErrorLog::parse(&buf).unwrap();
        assert_eq!(log.entries.len(), 3);
        let e = &log.entries[0];
        assert_eq!(e.error_count, 7);
        assert_eq!(e.sqid, 3);
        assert_eq!(e.cmdid, 0x1234);
        assert_eq!((e.status.sct, e.status.sc), (2, 0x81));
        assert_eq!(e.status.name(), "Unrecovered Read Error");
        assert_eq!(e.param_error_location, 0x0104);
        assert_eq!(e.lba, 4_294_967_296);
        assert_eq!(e.nsid, 1);
        assert_eq!((e.vs, e.trtype), (0xC1, 2));
        assert_eq!(e.cs, 0xDEAD_BEEF);
        assert_eq!(e.trtype_specific, 0x55AA);
        assert_eq!(log.newest().map(|e| e.error_count), Some(9));
    }

    #[test]
    fn trailing_partial_entry_is_ignored() {
        let mut buf = vec![0u8; 64 + 63];
        entry(&mut buf, 0, 1);
        put_u64(&mut buf, 64, 99);
        let log = ErrorLog::parse(&buf).unwrap();
        assert_eq!(log.entries.len(), 1);
        assert_eq!(log.entries[0].error_count, 1);
    }

    #[test]
    fn empty_page_and_short_page() {
        let log = ErrorLog::parse(&[0u8; 256]).unwrap();
        assert!(log.entries.is_empty());
        assert_eq!(log.newest(), None);
        assert!(matches!(
            ErrorLog::parse(&[0u8; 63]),
            Err(ParseError::Length { expected: 64, .. })
        ));
    }
}
