//! The grown defect list's length from the READ DEFECT DATA(10) header
//! (SBC-4 5.10): byte 1 bit 3 GLISTV (the grown list is in the answer),
//! bit 4 PLISTV, bits 2:0 the defect list format; bytes 2..4 the defect
//! list length in bytes. Asking with GLIST only and an allocation length of
//! 4 returns just this header, as smartmontools' `scsiPrintGrownDefectListLen`
//! does; the count is the length divided by the format's entry size.

use zerocopy::FromBytes;

use super::layout::{DefectListHeader, GLISTV, PLISTV};
use crate::decode::ParseError;

/// Entries in the grown defect list, or `None` when the header says the
/// grown list is not reported (GLISTV clear) or the format is reserved.
pub fn grown_defects(buf: &[u8]) -> Result<Option<u32>, ParseError> {
    let (h, _) = DefectListHeader::ref_from_prefix(buf).map_err(|_| ParseError::Length {
        page: "read defect data",
        expected: size_of::<DefectListHeader>(),
        got: buf.len(),
    })?;
    // Only the grown list (GLISTV set, PLISTV clear), as asked; a length
    // that also covers the primary list would not count grown defects.
    if h.flags & (GLISTV | PLISTV) != GLISTV {
        return Ok(None);
    }
    let len = u32::from(h.defect_list_length.get());
    if len == 0 {
        return Ok(Some(0));
    }
    let entry = match h.flags & 0x07 {
        // Short block format: 4 bytes.
        0 => 4,
        // Extended bytes from index, extended physical sector, long block,
        // bytes from index, physical sector: 8 bytes.
        1..=5 => 8,
        // Vendor specific (6), reserved (7).
        _ => return Ok(None),
    };
    Ok(Some(len / entry))
}

#[cfg(test)]
mod tests;
