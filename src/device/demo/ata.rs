//! The simulated SATA drive's pages (`sda`): IDENTIFY DEVICE, SMART READ
//! DATA / THRESHOLDS, the Device Statistics pages, the SMART self-test and
//! summary error logs, each filled in through the decoder's own layout
//! (`ata::identify::IdentifyPage`, `ata::smart::SmartDataPage`, ...) and
//! sealed with the one checksum rule ([`Checksummed::seal`]), so they go
//! through exactly the decoders a real drive's pages do.

use zerocopy::IntoBytes;

use crate::ata::devstat::{PageListPage, Statistic, StatisticsPage};
use crate::ata::error_log::ErrorLogPage;
use crate::ata::identify::{INTEGRITY_SIGNATURE, IdentifyPage, put_ata_string};
use crate::ata::self_test::SelfTestLogPage;
use crate::ata::smart::{AttributeEntry, SmartDataPage, SmartThresholdsPage, ThresholdEntry};
use crate::ata::{Checksummed, Sector};

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
    let mut p = IdentifyPage::zeroed();
    p.general_configuration = 0x0040.into();
    put_ata_string(&mut p.serial, id.serial);
    put_ata_string(&mut p.firmware, id.firmware);
    put_ata_string(&mut p.model, id.model);
    p.capabilities = 0x0F00.into(); // LBA, DMA
    p.field_valid = 0x0006.into();
    p.lba28_sectors = (id.sectors.min(0x0FFF_FFFF) as u32).into();
    p.sata_capabilities = 0x870E.into(); // SATA 1.5/3/6 Gb/s, NCQ
    p.major_version = 0x07F0.into(); // ACS-3 and earlier
    p.command_set_1 = 0x746B.into(); // SMART supported (bit 0)
    p.command_set_2 = 0x7401.into(); // LBA48 (bit 10)
    p.command_set_extension = 0x4163.into(); // SMART error log, self-test, GPL, WWN
    p.command_set_enabled_1 = 0x7469.into(); // SMART enabled (bit 0)
    p.command_set_enabled_2 = 0xB401.into();
    p.command_set_default = 0x4163.into();
    p.lba48_sectors = id.sectors.into();
    p.sector_size = 0x6003.into(); // 512-byte logical, 4 KiB physical sectors
    p.set_wwn(id.wwn);
    p.rotation_rate = 1.into(); // non-rotating
    p.transport_major = 0x107F.into();
    p.integrity_signature = INTEGRITY_SIGNATURE;
    p.seal().as_bytes().to_vec()
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
    let mut p = SmartDataPage::zeroed();
    p.revision = 0x0010.into();
    for (slot, a) in p.attributes.iter_mut().zip(attrs) {
        *slot = AttributeEntry {
            id: a.id,
            flags: a.flags.into(),
            current: a.value,
            worst: a.worst,
            raw: a.raw,
            reserved: 0,
        };
    }
    p.offline_collection_capability = 0x11; // immediate, self-test
    p.smart_capability = 0x0003.into();
    p.error_logging_capability = 0x01;
    p.short_test_minutes = 2;
    p.extended_test_minutes = 10;
    p.seal().as_bytes().to_vec()
}

/// SMART READ THRESHOLDS, 512 bytes, in the same order as the data.
pub fn ata_smart_thresholds(attrs: &[Attr]) -> Vec<u8> {
    let mut p = SmartThresholdsPage::zeroed();
    p.revision = 0x0010.into();
    for (slot, a) in p.thresholds.iter_mut().zip(attrs) {
        *slot = ThresholdEntry {
            id: a.id,
            threshold: a.threshold,
            ..ThresholdEntry::default()
        };
    }
    p.seal().as_bytes().to_vec()
}

/// One Device Statistics value: offset in the page, width in bytes (0 = a
/// signed byte), value.
pub type Stat = (usize, usize, i64);

/// Device Statistics page `number` with `stats`, each flagged supported and
/// valid (byte 7 of its qword: bits 7 and 6).
pub fn ata_devstat_page(number: u8, stats: &[Stat]) -> Vec<u8> {
    let mut p = StatisticsPage::new(number);
    for &(off, width, v) in stats {
        let bits = 8 * width.clamp(1, 7);
        p.set(off, Statistic::valid_value(v as u64 & ((1 << bits) - 1)));
    }
    p.as_bytes().to_vec()
}

/// Device Statistics page 00h: the list of supported pages.
pub fn ata_devstat_list(pages: &[u8]) -> Vec<u8> {
    PageListPage::new(pages).as_bytes().to_vec()
}

/// SMART self-test log (06h), 512 bytes: one short offline test with
/// `status` (0 = completed without error) at `hours`.
pub fn ata_self_test_log(status: u8, hours: u16) -> Vec<u8> {
    let mut p = SelfTestLogPage::zeroed();
    p.revision = 0x0001.into();
    p.descriptors[0].test_number = 0x01;
    p.descriptors[0].status = status;
    p.descriptors[0].life_timestamp = hours.into();
    p.newest_index = 1;
    p.seal().as_bytes().to_vec()
}

/// SMART summary error log (01h), 512 bytes, with the device error count.
pub fn ata_error_log(count: u16) -> Vec<u8> {
    let mut p = ErrorLogPage::zeroed();
    p.revision = 1;
    p.newest = u8::from(count > 0);
    p.error_count = count.into();
    p.seal().as_bytes().to_vec()
}
