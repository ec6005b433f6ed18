//! The fixed parts of the SCSI identity pages and the READ DEFECT DATA
//! header, each laid out once as a big-endian `zerocopy` struct (SPC-5,
//! SBC-4), and the VPD page framing: its header, the designation descriptor
//! header of page 83h and [`VpdPageBuilder`]. The decoders in `identity` and
//! `defects` read through these; the demo and the fixture builder write
//! through them. Each field's doc names its byte offset in the page.

use zerocopy::big_endian::{U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// A copy of `buf`'s first `size_of::<T>()` bytes as `T`, zero-filled where
/// `buf` is shorter: for a decoder whose bounds check asks for fewer bytes
/// than the whole layout (READ CAPACITY(16) needs 12 of its 32).
pub fn read_padded<T: FromBytes + IntoBytes + KnownLayout>(buf: &[u8]) -> T {
    let mut out = T::new_zeroed();
    let dst = out.as_mut_bytes();
    let n = dst.len().min(buf.len());
    dst[..n].copy_from_slice(&buf[..n]);
    out
}

/// `text` as an ASCII field of `N` bytes, space padded (SPC-5 4.3.1: "left
/// aligned ... unused bytes filled with 20h"); longer text is cut.
pub fn ascii<const N: usize>(text: &str) -> [u8; N] {
    let mut out = [b' '; N];
    let n = text.len().min(N);
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out
}

/// Standard INQUIRY data (SPC-5 6.7.2), the 36-byte fixed part every
/// device returns; vendor-specific and version-descriptor bytes follow.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct InquiryData {
    /// Byte 0: PERIPHERAL QUALIFIER (7:5) | PERIPHERAL DEVICE TYPE (4:0).
    pub peripheral: u8,
    /// Byte 1: RMB (7) | LU_CONG (6).
    pub rmb: u8,
    /// Byte 2: VERSION (07h = SPC-5).
    pub version: u8,
    /// Byte 3: NORMACA (5) | HISUP (4) | RESPONSE DATA FORMAT (3:0, 2).
    pub response_data_format: u8,
    /// Byte 4: ADDITIONAL LENGTH (n - 4).
    pub additional_length: u8,
    /// Bytes 5..8: SCCS, ACC, TPGS, 3PC, PROTECT; ENCSERV, MULTIP; CMDQUE.
    pub flags: [u8; 3],
    /// Bytes 8..16: T10 VENDOR IDENTIFICATION, ASCII.
    pub vendor: [u8; 8],
    /// Bytes 16..32: PRODUCT IDENTIFICATION, ASCII.
    pub product: [u8; 16],
    /// Bytes 32..36: PRODUCT REVISION LEVEL, ASCII.
    pub revision: [u8; 4],
}

const _: () = assert!(size_of::<InquiryData>() == 36);

/// The 4-byte header of every VPD page (SPC-5 7.7.1); the page's payload
/// (for 80h the PRODUCT SERIAL NUMBER, ASCII; for 00h one page code per
/// byte; for 83h designation descriptors) follows it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct VpdHeader {
    /// Byte 0: PERIPHERAL QUALIFIER (7:5) | PERIPHERAL DEVICE TYPE (4:0).
    pub peripheral: u8,
    /// Byte 1: PAGE CODE.
    pub page_code: u8,
    /// Bytes 2..4: PAGE LENGTH (n - 3), the payload's length.
    pub page_length: U16,
}

const _: () = assert!(size_of::<VpdHeader>() == 4);

/// The header of a designation descriptor of VPD page 83h (SPC-5 7.7.6.1);
/// DESIGNATOR LENGTH bytes of designator follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DesignatorHeader {
    /// Byte 0: PROTOCOL IDENTIFIER (7:4) | CODE SET (3:0; 1 binary, 2 ASCII).
    pub protocol_code_set: u8,
    /// Byte 1: PIV (7) | ASSOCIATION (5:4; 0 the logical unit, 1 the target
    /// port, 2 the target device) | DESIGNATOR TYPE (3:0; 1 T10 vendor ID,
    /// 3 NAA, 4 relative target port).
    pub piv_association_type: u8,
    /// Byte 2: reserved.
    pub reserved: u8,
    /// Byte 3: DESIGNATOR LENGTH (n - 3).
    pub designator_length: u8,
}

const _: () = assert!(size_of::<DesignatorHeader>() == 4);

/// SPC-5 table "PROTOCOL IDENTIFIER values": 6 is SAS serial SCSI protocol.
pub const PROTOCOL_SAS: u8 = 0x6;

/// Designator types (SPC-5 table "DESIGNATOR TYPE field").
pub const DESIGNATOR_T10_VENDOR: u8 = 0x1;
pub const DESIGNATOR_NAA: u8 = 0x3;
pub const DESIGNATOR_RELATIVE_PORT: u8 = 0x4;

impl DesignatorHeader {
    /// A header for a designator of `len` bytes; `protocol` counts only
    /// with `piv` set.
    pub fn new(protocol: u8, code_set: u8, piv: bool, association: u8, kind: u8, len: u8) -> Self {
        Self {
            protocol_code_set: (protocol << 4) | (code_set & 0x0F),
            piv_association_type: (u8::from(piv) << 7)
                | ((association & 0x03) << 4)
                | (kind & 0x0F),
            reserved: 0,
            designator_length: len,
        }
    }
    pub fn protocol(&self) -> u8 {
        self.protocol_code_set >> 4
    }
    pub fn code_set(&self) -> u8 {
        self.protocol_code_set & 0x0F
    }
    pub fn piv(&self) -> bool {
        self.piv_association_type & 0x80 != 0
    }
    pub fn association(&self) -> u8 {
        (self.piv_association_type >> 4) & 0x03
    }
    pub fn designator_type(&self) -> u8 {
        self.piv_association_type & 0x0F
    }
}

/// The designation descriptors of a VPD 83h payload, in order, each with
/// its designator; the walk ends at the first that does not fit.
pub fn designators(payload: &[u8]) -> impl Iterator<Item = (DesignatorHeader, &[u8])> {
    let mut rest = payload;
    std::iter::from_fn(move || {
        let (h, tail) = DesignatorHeader::read_from_prefix(rest).ok()?;
        let designator = tail.get(..usize::from(h.designator_length))?;
        rest = &tail[designator.len()..];
        Some((h, designator))
    })
}

/// VPD page B1h, Block Device Characteristics (SBC-4 6.6.2): 64 bytes,
/// PAGE LENGTH 3Ch.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct BlockDeviceCharacteristics {
    /// Bytes 0..4: the VPD header, page code B1h.
    pub header: VpdHeader,
    /// Bytes 4..6: MEDIUM ROTATION RATE (0000h not reported, 0001h
    /// non-rotating, else rpm).
    pub medium_rotation_rate: U16,
    /// Byte 6: PRODUCT TYPE.
    pub product_type: u8,
    /// Byte 7: WABEREQ (7:6) | WACEREQ (5:4) | NOMINAL FORM FACTOR (3:0).
    pub nominal_form_factor: u8,
    /// Byte 8: ZONED (5:4) | BOCS (2) | FUAB (1) | VBULS (0).
    pub zoned_fuab: u8,
    /// Bytes 9..12: reserved.
    pub reserved9: [u8; 3],
    /// Bytes 12..16: DEPOPULATION TIME, seconds.
    pub depopulation_time: U32,
    /// Bytes 16..64: reserved.
    pub reserved16: [u8; 48],
}

const _: () = assert!(size_of::<BlockDeviceCharacteristics>() == 64);

impl BlockDeviceCharacteristics {
    /// The page with its header filled in and every other field zero.
    pub fn new() -> Self {
        let mut p = Self::new_zeroed();
        p.header.page_code = 0xB1;
        p.header.page_length.set((size_of::<Self>() - 4) as u16);
        p
    }
}

impl Default for BlockDeviceCharacteristics {
    fn default() -> Self {
        Self::new()
    }
}

/// READ CAPACITY(16) parameter data (SBC-4 5.20.2), 32 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ReadCapacity16Data {
    /// Bytes 0..8: RETURNED LOGICAL BLOCK ADDRESS, the last LBA.
    pub returned_lba: U64,
    /// Bytes 8..12: LOGICAL BLOCK LENGTH IN BYTES.
    pub block_length: U32,
    /// Byte 12: P_TYPE (3:1) | PROT_EN (0).
    pub protection: u8,
    /// Byte 13: P_I_EXPONENT (7:4) | LOGICAL BLOCKS PER PHYSICAL BLOCK
    /// EXPONENT (3:0).
    pub exponents: u8,
    /// Bytes 14..16: LBPME (15) | LBPRZ (14) | LOWEST ALIGNED LOGICAL BLOCK
    /// ADDRESS (13:0).
    pub lowest_aligned_lba: U16,
    /// Bytes 16..32: reserved.
    pub reserved: [u8; 16],
}

const _: () = assert!(size_of::<ReadCapacity16Data>() == 32);

impl ReadCapacity16Data {
    pub fn new(last_lba: u64, block_length: u32) -> Self {
        let mut d = Self::new_zeroed();
        d.returned_lba.set(last_lba);
        d.block_length.set(block_length);
        d
    }
}

/// The READ DEFECT DATA(10) parameter data header (SBC-4 5.10.2), all an
/// allocation length of 4 returns.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DefectListHeader {
    /// Byte 0: reserved.
    pub reserved: u8,
    /// Byte 1: PLISTV (4) | GLISTV (3) | DEFECT LIST FORMAT (2:0).
    pub flags: u8,
    /// Bytes 2..4: DEFECT LIST LENGTH, bytes.
    pub defect_list_length: U16,
}

const _: () = assert!(size_of::<DefectListHeader>() == 4);

/// Byte 1 bits of [`DefectListHeader::flags`].
pub const PLISTV: u8 = 0x10;
pub const GLISTV: u8 = 0x08;
/// Defect list format 101b: physical sector, 8-byte descriptors.
pub const FORMAT_PHYSICAL_SECTOR: u8 = 0b101;

impl DefectListHeader {
    /// The header of a grown list only (GLISTV set, PLISTV clear) of
    /// `length` bytes in `format`.
    pub fn grown(format: u8, length: u16) -> Self {
        Self {
            reserved: 0,
            flags: GLISTV | (format & 0x07),
            defect_list_length: U16::new(length),
        }
    }
}

/// The READ DEFECT DATA(12) parameter data header (SBC-4, "READ DEFECT
/// DATA (12) parameter data"; smartmontools' `scsiReadDefect12`): the
/// same flags as the (10) header and a 32-bit list length, so a list past
/// 65 535 bytes (8191 eight-byte entries) is counted in full.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DefectListHeader12 {
    /// Byte 0: reserved.
    pub reserved: u8,
    /// Byte 1: PLISTV (4) | GLISTV (3) | DEFECT LIST FORMAT (2:0).
    pub flags: u8,
    /// Bytes 2..4: GENERATION CODE.
    pub generation: U16,
    /// Bytes 4..8: DEFECT LIST LENGTH, bytes.
    pub defect_list_length: U32,
}

const _: () = assert!(size_of::<DefectListHeader12>() == 8);

impl DefectListHeader12 {
    /// The header of a grown list only of `length` bytes in `format`.
    pub fn grown(format: u8, length: u32) -> Self {
        Self {
            reserved: 0,
            flags: GLISTV | (format & 0x07),
            generation: U16::new(0),
            defect_list_length: U32::new(length),
        }
    }
}

/// A VPD page as a device returns it: [`VpdHeader`] then the payload,
/// PAGE LENGTH counted from what was appended (cut at 65 535 bytes).
#[derive(Debug, Clone)]
pub struct VpdPageBuilder {
    code: u8,
    payload: Vec<u8>,
}

impl VpdPageBuilder {
    pub fn new(code: u8) -> Self {
        Self {
            code,
            payload: Vec::new(),
        }
    }

    /// Appends payload bytes (a page list, a serial number).
    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        self.payload.extend_from_slice(bytes);
        self
    }

    /// Appends a designation descriptor: `header` (its length set from
    /// `designator`, cut at 255 bytes) and the designator.
    pub fn designator(mut self, mut header: DesignatorHeader, designator: &[u8]) -> Self {
        let designator = &designator[..designator.len().min(255)];
        header.designator_length = designator.len() as u8;
        self.payload.extend_from_slice(header.as_bytes());
        self.payload.extend_from_slice(designator);
        self
    }

    pub fn build(self) -> Vec<u8> {
        let len = u16::try_from(self.payload.len()).unwrap_or(u16::MAX);
        let header = VpdHeader {
            peripheral: 0,
            page_code: self.code,
            page_length: U16::new(len),
        };
        let mut out = header.as_bytes().to_vec();
        out.extend_from_slice(&self.payload[..usize::from(len)]);
        out
    }
}

#[cfg(test)]
mod tests;
