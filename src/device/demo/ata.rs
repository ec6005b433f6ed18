//! The simulated SATA drive's pages (`sda`): IDENTIFY DEVICE, SMART READ
//! DATA / THRESHOLDS, the Device Statistics pages, the SMART self-test and
//! summary error logs, as ACS lays them out, so they go through exactly the
//! decoders a real drive's pages do.

use super::pages::Page;

/// What an ATA IDENTIFY DEVICE page says.
pub struct AtaIdentity {
    pub serial: &'static str,
    pub model: &'static str,
    pub firmware: &'static str,
    pub sectors: u64,
    pub wwn: u64,
}

/// IDENTIFY DEVICE, 512 bytes: an SSD (rotation rate 1) with SMART, the
/// self-test and error logs, GPL and the Device Statistics log.
pub fn ata_identify(id: &AtaIdentity) -> Vec<u8> {
    let mut p = Page::new(512);
    p.word(0, 0x0040)
        .ata_string(10, 10, id.serial)
        .ata_string(23, 4, id.firmware)
        .ata_string(27, 20, id.model)
        .word(49, 0x0F00) // LBA, DMA
        .word(53, 0x0006)
        .word(60, id.sectors.min(0x0FFF_FFFF) as u16)
        .word(61, (id.sectors.min(0x0FFF_FFFF) >> 16) as u16)
        .word(76, 0x870E) // SATA 1.5/3/6 Gb/s, NCQ
        .word(80, 0x07F0) // ACS-3 and earlier
        .word(82, 0x746B) // SMART supported (bit 0)
        .word(83, 0x7401) // LBA48 (bit 10)
        .word(84, 0x4163) // SMART error log, self-test, GPL, WWN
        .word(85, 0x7469) // SMART enabled (bit 0)
        .word(86, 0xB401)
        .word(87, 0x4163)
        .word(106, 0x6003) // 512-byte logical, 4 KiB physical sectors
        .word(217, 1) // non-rotating
        .word(222, 0x107F)
        .word(255, 0x00A5);
    for i in 0..4 {
        p.word(100 + i, (id.sectors >> (16 * i)) as u16);
        p.word(108 + i, (id.wwn >> (16 * (3 - i))) as u16);
    }
    // Word 255's high byte is the checksum (signature A5h in the low byte).
    p.checksum();
    p.bytes()
}

/// One SMART attribute: id, flags, normalized value, worst, threshold, raw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attr {
    pub id: u8,
    pub flags: u16,
    pub value: u8,
    pub worst: u8,
    pub threshold: u8,
    pub raw: [u8; 6],
}

impl Attr {
    /// An attribute whose raw value is a plain 48-bit counter.
    pub fn counter(id: u8, flags: u16, value: u8, threshold: u8, raw: u64) -> Self {
        let mut bytes = [0; 6];
        bytes.copy_from_slice(&raw.to_le_bytes()[..6]);
        Self {
            id,
            flags,
            value,
            worst: value,
            threshold,
            raw: bytes,
        }
    }
}

/// SMART READ DATA, 512 bytes (up to 30 attributes).
pub fn ata_smart_data(attrs: &[Attr]) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u16(0, 0x0010);
    for (i, a) in attrs.iter().take(30).enumerate() {
        let base = 2 + 12 * i;
        p.u8(base, a.id)
            .u16(base + 1, a.flags)
            .u8(base + 3, a.value)
            .u8(base + 4, a.worst);
        p.raw(base + 5, &a.raw);
    }
    p.u8(367, 0x11) // offline capability: immediate, self-test
        .u16(368, 0x0003)
        .u8(370, 0x01) // error logging
        .u8(372, 2) // short self-test: 2 minutes
        .u8(373, 10)
        .checksum();
    p.bytes()
}

/// SMART READ THRESHOLDS, 512 bytes, in the same order as the data.
pub fn ata_smart_thresholds(attrs: &[Attr]) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u16(0, 0x0010);
    for (i, a) in attrs.iter().take(30).enumerate() {
        p.u8(2 + 12 * i, a.id).u8(3 + 12 * i, a.threshold);
    }
    p.checksum();
    p.bytes()
}

/// One Device Statistics value: offset in the page, width (0 = a signed
/// byte), value.
pub type Stat = (usize, usize, i64);

/// Device Statistics page `number` with `stats`, each flagged supported and
/// valid (byte 7 of its qword: bits 7 and 6).
pub fn ata_devstat_page(number: u8, stats: &[Stat]) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u16(0, 0x0001).u8(2, number);
    for &(off, width, v) in stats {
        p.uint(off, width.max(1), v as u128);
        p.u8(off + 7, 0xC0);
    }
    p.bytes()
}

/// Device Statistics page 00h: the list of supported pages.
pub fn ata_devstat_list(pages: &[u8]) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u16(0, 0x0001).u8(8, pages.len() as u8);
    for (i, &n) in pages.iter().enumerate() {
        p.u8(9 + i, n);
    }
    p.bytes()
}

/// SMART self-test log (06h), 512 bytes: one short offline test with
/// `status` (0 = completed without error) at `hours`.
pub fn ata_self_test_log(status: u8, hours: u16) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u16(0, 0x0001)
        .u8(2, 0x01)
        .u8(3, status)
        .u16(4, hours)
        .u8(508, 1)
        .checksum();
    p.bytes()
}

/// SMART summary error log (01h), 512 bytes, with the device error count.
pub fn ata_error_log(count: u16) -> Vec<u8> {
    let mut p = Page::new(512);
    p.u8(0, 1)
        .u8(1, if count > 0 { 1 } else { 0 })
        .u16(452, count)
        .checksum();
    p.bytes()
}
