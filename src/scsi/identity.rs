//! Who a SCSI disk is: standard INQUIRY data, the VPD pages the exporter
//! reads (00h supported pages, 80h unit serial number, 83h device
//! identification, B1h block device characteristics, 89h ATA information)
//! and READ CAPACITY(16).

use zerocopy::FromBytes;

use super::layout::{
    BlockDeviceCharacteristics, DESIGNATOR_NAA, InquiryData, ReadCapacity16Data, VpdHeader,
    VpdPageBuilder, designators, read_padded,
};
use crate::decode::{Bytes, ParseError, printable};

/// Peripheral device type 00h: direct access block device (SPC-5 table
/// "Peripheral device type"); 14h is host-managed zoned.
pub const TYPE_DISK: u8 = 0x00;
pub const TYPE_ZBC: u8 = 0x14;

/// VPD page codes.
pub const VPD_SUPPORTED: u8 = 0x00;
pub const VPD_UNIT_SERIAL: u8 = 0x80;
pub const VPD_DEVICE_ID: u8 = 0x83;
pub const VPD_ATA_INFORMATION: u8 = 0x89;
pub const VPD_BLOCK_CHARACTERISTICS: u8 = 0xB1;

/// Standard INQUIRY data (SPC-5 6.7.2), the first 36 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inquiry {
    /// Byte 0 bits 7:5: 000b = a device is connected to this unit.
    pub peripheral_qualifier: u8,
    /// Byte 0 bits 4:0.
    pub peripheral_type: u8,
    /// Bytes 8..16, T10 vendor identification ("ATA" for a SAT layer).
    pub vendor: String,
    /// Bytes 16..32, product identification.
    pub product: String,
    /// Bytes 32..36, product revision level.
    pub revision: String,
}

impl Inquiry {
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new("inquiry", buf, size_of::<InquiryData>())?;
        let d: InquiryData = read_padded(b.raw());
        Ok(Self {
            peripheral_qualifier: d.peripheral >> 5,
            peripheral_type: d.peripheral & 0x1F,
            vendor: printable(&d.vendor),
            product: printable(&d.product),
            revision: printable(&d.revision),
        })
    }

    /// A connected disk (direct access or host-managed zoned).
    pub fn is_disk(&self) -> bool {
        self.peripheral_qualifier == 0 && matches!(self.peripheral_type, TYPE_DISK | TYPE_ZBC)
    }

    /// A SATA drive behind a SAT layer reports the vendor "ATA" (SAT-4).
    pub fn is_ata(&self) -> bool {
        self.vendor == "ATA"
    }
}

/// The payload of a VPD page after its 4-byte header, checked to be page
/// `code` and bounded by its PAGE LENGTH (bytes 2..4).
fn vpd_payload<'a>(page: &'static str, buf: &'a [u8], code: u8) -> Result<&'a [u8], ParseError> {
    let short = |got| ParseError::Length {
        page,
        expected: size_of::<VpdHeader>(),
        got,
    };
    let (h, rest) = VpdHeader::ref_from_prefix(buf).map_err(|_| short(buf.len()))?;
    if h.page_code != code {
        return Err(ParseError::Invalid {
            page,
            reason: format!("page code {:02x}h, expected {code:02x}h", h.page_code),
        });
    }
    let len = usize::from(h.page_length.get());
    Ok(rest.get(..len).unwrap_or(rest))
}

/// VPD page 00h: the VPD pages the device supports.
pub fn vpd_supported(buf: &[u8]) -> Result<Vec<u8>, ParseError> {
    Ok(vpd_payload("vpd 00h", buf, VPD_SUPPORTED)?.to_vec())
}

/// VPD page 80h: the unit serial number, trimmed.
pub fn vpd_unit_serial(buf: &[u8]) -> Result<String, ParseError> {
    Ok(printable(vpd_payload("vpd 80h", buf, VPD_UNIT_SERIAL)?))
}

/// VPD page 83h: the logical unit's NAA designator as the kernel's `wwid`
/// spells it (`naa.` and lower-case hex), or `None` without one.
///
/// Designation descriptors (SPC-5 7.7.6.1): byte 0 bits 3:0 code set (1 =
/// binary), byte 1 bits 5:4 association (0 = the logical unit), bits 3:0
/// designator type (3 = NAA), byte 3 length, designator from byte 4.
pub fn vpd_naa(buf: &[u8]) -> Result<Option<String>, ParseError> {
    let p = vpd_payload("vpd 83h", buf, VPD_DEVICE_ID)?;
    Ok(designators(p)
        .find(|(h, d)| {
            h.code_set() == 1
                && h.association() == 0
                && h.designator_type() == DESIGNATOR_NAA
                && matches!(d.len(), 8 | 16)
        })
        .map(|(_, d)| {
            let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
            format!("naa.{hex}")
        }))
}

pub use super::layout::PROTOCOL_SAS;

/// VPD page 83h: the transport protocol, as smartmontools'
/// `scsi_decode_lu_dev_id` finds it: the first designator associated with
/// a target port or target device (byte 1 bits 5:4 non-zero) whose PIV bit
/// (byte 1 bit 7) says its PROTOCOL IDENTIFIER (byte 0 bits 7:4) is valid.
pub fn vpd_protocol(buf: &[u8]) -> Result<Option<u8>, ParseError> {
    let p = vpd_payload("vpd 83h", buf, VPD_DEVICE_ID)?;
    Ok(designators(p)
        .find(|(h, _)| h.association() != 0 && h.piv())
        .map(|(h, _)| h.protocol()))
}

/// VPD page 83h: the PROTOCOL IDENTIFIER of every designator associated
/// with a target port or target device whose PIV bit says it is valid, in
/// order (6 SAS, 5 iSCSI, 0 Fibre Channel; SPC-5 table "PROTOCOL
/// IDENTIFIER values").
pub fn vpd_port_protocols(buf: &[u8]) -> Result<Vec<u8>, ParseError> {
    let p = vpd_payload("vpd 83h", buf, VPD_DEVICE_ID)?;
    Ok(designators(p)
        .filter(|(h, _)| h.association() != 0 && h.piv())
        .map(|(h, _)| h.protocol())
        .collect())
}

/// A VPD page as a device returns it: byte 1 the page code, bytes 2..4 the
/// page length, then `payload` (the layout `vpd_payload` reads back).
pub fn vpd_page(code: u8, payload: &[u8]) -> Vec<u8> {
    VpdPageBuilder::new(code).bytes(payload).build()
}

/// VPD page B1h bytes 4..6: medium rotation rate; 0001h is a non-rotating
/// medium (an SSD), 0000h not reported, else rpm (SBC-4 6.6.2).
pub fn vpd_rotation_rate(buf: &[u8]) -> Result<Option<u16>, ParseError> {
    let p = vpd_payload("vpd b1h", buf, VPD_BLOCK_CHARACTERISTICS)?;
    Bytes::new("vpd b1h", p, 2)?;
    // The header and the payload the page length bounds, nothing after.
    let page: BlockDeviceCharacteristics = read_padded(&buf[..4 + p.len()]);
    let rate = page.medium_rotation_rate.get();
    Ok((rate != 0).then_some(rate))
}

/// READ CAPACITY(16) parameter data (SBC-4 5.20.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCapacity16 {
    /// Bytes 0..8: the last logical block address.
    pub last_lba: u64,
    /// Bytes 8..12: logical block length in bytes.
    pub block_len: u32,
}

impl ReadCapacity16 {
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        // The last LBA and the block length are all the decoder needs.
        let b = Bytes::new("read capacity(16)", buf, 12)?;
        let d: ReadCapacity16Data = read_padded(b.raw());
        Ok(Self {
            last_lba: d.returned_lba.get(),
            block_len: d.block_length.get(),
        })
    }

    /// (last LBA + 1) × block length; cannot overflow in u128.
    pub fn capacity_bytes(&self) -> u128 {
        (u128::from(self.last_lba) + 1) * u128::from(self.block_len)
    }
}

#[cfg(test)]
mod tests;
