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
mod tests {
    use super::*;

    /// scsi_debug's INQUIRY as the kernel module builds it (`inquiry_vpd`
    /// aside): vendor "Linux   ", product "scsi_debug      ", revision "0191".
    fn inquiry() -> Vec<u8> {
        let mut b = vec![0u8; 36];
        b[0] = 0x00;
        b[2] = 0x07; // SPC-5
        b[8..16].copy_from_slice(b"Linux   ");
        b[16..32].copy_from_slice(b"scsi_debug      ");
        b[32..36].copy_from_slice(b"0191");
        b
    }

    #[test]
    fn standard_inquiry() {
        let i = Inquiry::parse(&inquiry()).unwrap();
        assert_eq!(
            (i.vendor.as_str(), i.product.as_str(), i.revision.as_str()),
            ("Linux", "scsi_debug", "0191")
        );
        assert!(i.is_disk() && !i.is_ata());
        let mut sat = inquiry();
        sat[8..16].copy_from_slice(b"ATA     ");
        assert!(Inquiry::parse(&sat).unwrap().is_ata());
        let mut cdrom = inquiry();
        cdrom[0] = 0x05;
        assert!(!Inquiry::parse(&cdrom).unwrap().is_disk());
        // Qualifier 011b: not capable of supporting a device here.
        let mut absent = inquiry();
        absent[0] = 0x60;
        assert!(!Inquiry::parse(&absent).unwrap().is_disk());
        assert!(Inquiry::parse(&inquiry()[..35]).is_err());
    }

    #[test]
    fn vpd_pages() {
        let list = [0x00, 0x00, 0x00, 0x04, 0x00, 0x80, 0x83, 0xB1, 0xEE];
        // PAGE LENGTH 4: the trailing byte is not part of the page.
        assert_eq!(vpd_supported(&list).unwrap(), [0x00, 0x80, 0x83, 0xB1]);
        let serial = [0x00, 0x80, 0x00, 0x06, b' ', b'S', b'N', b'4', b'2', 0x00];
        assert_eq!(vpd_unit_serial(&serial).unwrap(), "SN42");
        assert!(vpd_unit_serial(&list).is_err(), "wrong page code");
        // B1h: rotation rate 0001h = non-rotating.
        let mut b1 = vec![0u8; 64];
        b1[1] = 0xB1;
        b1[3] = 0x3C;
        b1[5] = 0x01;
        assert_eq!(vpd_rotation_rate(&b1).unwrap(), Some(1));
        b1[4] = 0x1C;
        b1[5] = 0x20;
        assert_eq!(vpd_rotation_rate(&b1).unwrap(), Some(7200));
    }

    #[test]
    fn naa_designator_of_the_logical_unit() {
        // A T10 vendor-id designator (type 1, ASCII) first, then the NAA
        // (code set 1, association 0, type 3, length 8).
        let mut p = vec![0x00, 0x83, 0x00, 0x00];
        p.extend([0x02, 0x01, 0x00, 0x04, b'A', b'B', b'C', b'D']);
        p.extend([
            0x01, 0x03, 0x00, 0x08, 0x53, 0x33, 0x33, 0x30, 0x00, 0x00, 0x00, 0x01,
        ]);
        // A target-port NAA (association 1) must not be taken.
        let len = (p.len() - 4) as u16;
        p[2..4].copy_from_slice(&len.to_be_bytes());
        assert_eq!(
            vpd_naa(&p).unwrap().as_deref(),
            Some("naa.5333333000000001")
        );
        let mut port_only = vec![0x00, 0x83, 0x00, 0x0C];
        port_only.extend([0x01, 0x13, 0x00, 0x08, 0x50, 0, 0, 0, 0, 0, 0, 2]);
        assert_eq!(vpd_naa(&port_only).unwrap(), None);
        // A descriptor claiming more bytes than there are ends the walk.
        let truncated = [0x00, 0x83, 0x00, 0x06, 0x01, 0x03, 0x00, 0x08, 0x50, 0x00];
        assert_eq!(vpd_naa(&truncated).unwrap(), None);
    }

    #[test]
    fn transport_protocol_from_a_port_designator_with_piv() {
        // scsi_debug's 83h (its `inquiry_vpd_83`): the logical unit's NAA
        // (association 0, no PIV), then a target-port NAA with PIV set and
        // protocol 6 (SAS): byte 0 = 61h, byte 1 = 93h.
        let mut p = vec![0x00, 0x83, 0x00, 0x00];
        p.extend([0x01, 0x03, 0x00, 0x08, 0x53, 0x33, 0x33, 0x30, 0, 0, 0, 1]);
        p.extend([0x61, 0x93, 0x00, 0x08, 0x52, 0x22, 0x22, 0x20, 0, 0, 0, 1]);
        let len = (p.len() - 4) as u16;
        p[2..4].copy_from_slice(&len.to_be_bytes());
        assert_eq!(vpd_protocol(&p).unwrap(), Some(PROTOCOL_SAS));
        // PIV clear: the protocol field means nothing.
        p[17] = 0x13;
        assert_eq!(vpd_protocol(&p).unwrap(), None);
        // Only a logical-unit designator: no protocol.
        assert_eq!(vpd_protocol(&vpd_page(0x83, &p[4..16])).unwrap(), None);
        assert_eq!(vpd_page(0x80, b"SN"), [0x00, 0x80, 0x00, 0x02, b'S', b'N']);
    }

    #[test]
    fn read_capacity_16() {
        // 1 953 525 167 as the last LBA of 512-byte blocks: a 1 TB disk.
        let mut b = vec![0u8; 32];
        b[4..8].copy_from_slice(&1_953_525_167u32.to_be_bytes());
        b[8..12].copy_from_slice(&512u32.to_be_bytes());
        let c = ReadCapacity16::parse(&b).unwrap();
        assert_eq!((c.last_lba, c.block_len), (1_953_525_167, 512));
        assert_eq!(c.capacity_bytes(), 1_000_204_886_016);
        let max = ReadCapacity16 {
            last_lba: u64::MAX,
            block_len: u32::MAX,
        };
        assert!(max.capacity_bytes() > u128::from(u64::MAX));
    }
}
