//! The grown defect list's length from the READ DEFECT DATA header (SBC-4):
//! byte 1 bit 3 GLISTV (the grown list is in the answer), bit 4 PLISTV,
//! bits 2:0 the defect list format; then the defect list length in bytes —
//! bytes 2..4 in the (10) header, bytes 4..8 in the (12) header. Asking
//! with GLIST only and an allocation length of the header alone returns
//! just the header, as smartmontools' `scsiPrintGrownDefectListLen` does;
//! the count is the length divided by the format's entry size.
//!
//! The (12) command is asked first: its 32-bit length counts a list past
//! 65 535 bytes (8191 eight-byte entries), where the (10) header's 16 bits
//! end (smartmontools tries READ DEFECT DATA(12) first for the same reason,
//! falling back to (10) when the drive does not have the command).

use zerocopy::FromBytes;

use super::layout::{DefectListHeader, DefectListHeader12, GLISTV, PLISTV};
use crate::decode::ParseError;

/// Entries in the grown defect list from a READ DEFECT DATA(10) header, or
/// `None` when the header says the grown list is not reported (GLISTV
/// clear) or the format is reserved.
pub fn grown_defects(buf: &[u8]) -> Result<Option<u32>, ParseError> {
    let (h, _) = DefectListHeader::ref_from_prefix(buf).map_err(|_| short(buf, 4))?;
    Ok(count(h.flags, u32::from(h.defect_list_length.get())))
}

/// The same from a READ DEFECT DATA(12) header.
pub fn grown_defects_12(buf: &[u8]) -> Result<Option<u32>, ParseError> {
    let (h, _) = DefectListHeader12::ref_from_prefix(buf).map_err(|_| short(buf, 8))?;
    Ok(count(h.flags, h.defect_list_length.get()))
}

fn short(buf: &[u8], expected: usize) -> ParseError {
    ParseError::Length {
        page: "read defect data",
        expected,
        got: buf.len(),
    }
}

/// Entries in a list of `len` bytes whose header flags are `flags`.
fn count(flags: u8, len: u32) -> Option<u32> {
    // Only the grown list (GLISTV set, PLISTV clear), as asked; a length
    // that also covers the primary list would not count grown defects.
    if flags & (GLISTV | PLISTV) != GLISTV {
        return None;
    }
    if len == 0 {
        return Some(0);
    }
    let entry = match flags & 0x07 {
        // Short block format: 4 bytes.
        0 => 4,
        // Extended bytes from index, extended physical sector, long block,
        // bytes from index, physical sector: 8 bytes.
        1..=5 => 8,
        // Vendor specific (6), reserved (7).
        _ => return None,
    };
    Some(len / entry)
}

#[cfg(test)]
mod tests;
