//! Device Statistics log (log address 04h; ACS-3 9.5), read with READ LOG
//! EXT (GPL) or SMART READ LOG. Every page is 512 bytes of 64-bit
//! little-endian qwords: qword 0 is the header (bytes 0–1 revision, byte 2
//! page number), then one statistic per qword at offset 8·i: value in bits
//! 55:0, flags in byte 7 (b7 supported, b6 valid, b5 normalized, b4 DSN
//! supported, b3 monitored condition met). Page 00h lists the supported
//! pages. Statistic offsets and sizes: `shared/reference/layouts.md`,
//! smartmontools `ataprint.cpp` (`devstat_info_0x0N`).

use serde::Serialize;
use zerocopy::little_endian::{U16, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::passthrough::Command;
use super::sector::Sector;
use super::smart::read_log_command;
use super::{LOG_DEVICE_STATISTICS, SECTOR};
use crate::decode::ParseError;

const PAGE: &str = "device statistics";

/// Revision 0001h, the one ACS defines for every page.
pub const REVISION: u16 = 0x0001;

/// The 8-byte header of every Device Statistics page (ACS-4 "Device
/// Statistics Information Header").
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DevstatHeader {
    /// Bytes 0–1: revision number.
    pub revision: U16,
    /// Byte 2: page number.
    pub page: u8,
    /// Bytes 3–7: reserved.
    pub reserved: [u8; 5],
}

impl DevstatHeader {
    /// The header of page `page`, revision 0001h.
    pub fn new(page: u8) -> Self {
        Self {
            revision: REVISION.into(),
            page,
            reserved: [0; 5],
        }
    }
}

/// A Device Statistics page 01h–07h: the header, then 63 statistics,
/// qword i (1..=63) at byte 8·i, each with its value in bytes 0–6 and its
/// flags in byte 7 (see [`Statistic`]). The one definition of the layout:
/// the decoder reads through it, the demo and the fixture builder fill it.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct StatisticsPage {
    /// Bytes 0–7.
    pub header: DevstatHeader,
    /// Bytes 8–511: statistics at offsets 008h..1F8h.
    pub statistics: [U64; 63],
}

const _: () = assert!(size_of::<StatisticsPage>() == SECTOR);

impl Sector for StatisticsPage {
    const PAGE: &'static str = PAGE;
}

impl StatisticsPage {
    /// An empty page `page` (revision 0001h, no statistic supported).
    pub fn new(page: u8) -> Self {
        let mut p = Self::zeroed();
        p.header = DevstatHeader::new(page);
        p
    }

    /// Sets the statistic at byte `offset`; false if there is no such slot.
    pub fn set(&mut self, offset: usize, stat: Statistic) -> bool {
        let Some(i) = (offset % 8 == 0)
            .then(|| (offset / 8).checked_sub(1))
            .flatten()
        else {
            return false;
        };
        match self.statistics.get_mut(i) {
            Some(q) => {
                *q = stat.to_qword().into();
                true
            }
            None => false,
        }
    }
}

/// Page 00h, the list of supported pages.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PageListPage {
    /// Bytes 0–7 (page number 00h).
    pub header: DevstatHeader,
    /// Byte 8: number of entries in the list.
    pub count: u8,
    /// Bytes 9–511: the supported page numbers, ascending.
    pub pages: [u8; 503],
}

const _: () = assert!(size_of::<PageListPage>() == SECTOR);

impl Sector for PageListPage {
    const PAGE: &'static str = PAGE;
}

impl PageListPage {
    /// Page 00h listing `pages` (at most 503 are kept).
    pub fn new(pages: &[u8]) -> Self {
        let mut p = Self::zeroed();
        p.header = DevstatHeader::new(PAGE_LIST);
        let n = pages.len().min(p.pages.len());
        p.pages[..n].copy_from_slice(&pages[..n]);
        p.count = n.min(usize::from(u8::MAX)) as u8;
        p
    }
}

/// Page 00h: list of supported pages.
pub const PAGE_LIST: u8 = 0x00;
/// Page 01h: general statistics.
pub const PAGE_GENERAL: u8 = 0x01;
/// Page 04h: general errors statistics.
pub const PAGE_GENERAL_ERRORS: u8 = 0x04;
/// Page 05h: temperature statistics.
pub const PAGE_TEMPERATURE: u8 = 0x05;
/// Page 06h: transport statistics.
pub const PAGE_TRANSPORT: u8 = 0x06;
/// Page 07h: solid state device statistics.
pub const PAGE_SSD: u8 = 0x07;

/// READ LOG EXT of one Device Statistics page (the GPL path).
pub fn read_log_ext_command(page: u8) -> Command {
    Command::read_log_ext(LOG_DEVICE_STATISTICS, u16::from(page), 1)
}

/// SMART READ LOG of the Device Statistics log up to `page`: SMART READ LOG
/// always starts at the log's first sector, so page N needs N + 1 sectors
/// and is the last of them (as smartmontools reads it); pass the whole
/// buffer to [`DevstatPage::parse_smart_log`].
pub fn smart_read_log_command(page: u8) -> Command {
    read_log_command(LOG_DEVICE_STATISTICS, page.saturating_add(1))
}

/// One statistic qword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Statistic {
    /// Bits 55:0.
    pub value: u64,
    /// Bits 63:56 (byte 7).
    pub flags: u8,
}

impl Statistic {
    /// Flags b7: supported.
    pub const SUPPORTED: u8 = 0x80;
    /// Flags b6: valid.
    pub const VALID: u8 = 0x40;

    fn from_qword(q: u64) -> Self {
        Self {
            value: q & 0x00FF_FFFF_FFFF_FFFF,
            flags: (q >> 56) as u8,
        }
    }

    /// A supported, valid statistic holding `value` (bits above 55 are
    /// dropped).
    pub fn valid_value(value: u64) -> Self {
        Self {
            value: value & 0x00FF_FFFF_FFFF_FFFF,
            flags: Self::SUPPORTED | Self::VALID,
        }
    }

    /// The qword as the page holds it: value in bytes 0–6, flags in byte 7.
    pub fn to_qword(self) -> u64 {
        (self.value & 0x00FF_FFFF_FFFF_FFFF) | u64::from(self.flags) << 56
    }

    /// Flags b7: the device implements this statistic.
    pub fn supported(&self) -> bool {
        self.flags & 0x80 != 0
    }
    /// Flags b6: the value is valid (it may be invalid until first updated).
    pub fn valid(&self) -> bool {
        self.flags & 0x40 != 0
    }
    /// Flags b5: the value is normalized rather than a raw count.
    pub fn normalized(&self) -> bool {
        self.flags & 0x20 != 0
    }
}

/// One decoded Device Statistics page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DevstatPage {
    /// Header bytes 0–1: revision (ACS says 0001h; not enforced, as
    /// smartmontools does not).
    pub revision: u16,
    /// Header byte 2: page number (checked against the one requested).
    pub page: u8,
    /// Qwords 1..=63 (offsets 008h..1F8h).
    statistics: Vec<Statistic>,
}

impl DevstatPage {
    /// Decodes a 512-byte page, rejecting one whose header names another
    /// page (including 0, which smartmontools shows as "empty").
    pub fn parse(expected_page: u8, buf: &[u8]) -> Result<Self, ParseError> {
        let p = StatisticsPage::view(buf)?;
        let page = p.header.page;
        if page != expected_page {
            return Err(ParseError::Invalid {
                page: PAGE,
                reason: format!("header names page {page:02x}h, expected {expected_page:02x}h"),
            });
        }
        let statistics = p
            .statistics
            .iter()
            .map(|q| Statistic::from_qword(q.get()))
            .collect();
        Ok(Self {
            revision: p.header.revision.get(),
            page,
            statistics,
        })
    }

    /// Decodes page `page` from a SMART READ LOG buffer of `page + 1`
    /// sectors (see [`smart_read_log_command`]).
    pub fn parse_smart_log(page: u8, buf: &[u8]) -> Result<Self, ParseError> {
        let off = usize::from(page) * SECTOR;
        Self::parse(page, buf.get(off..).unwrap_or(&[]))
    }

    /// The statistic at byte `offset` (a multiple of 8 from 8 to 504).
    pub fn statistic(&self, offset: usize) -> Option<Statistic> {
        if offset % 8 != 0 || offset < 8 {
            return None;
        }
        self.statistics.get(offset / 8 - 1).copied()
    }

    /// The value at `offset`, only when supported and valid.
    pub fn get(&self, offset: usize) -> Option<u64> {
        self.statistic(offset)
            .filter(|s| s.supported() && s.valid())
            .map(|s| s.value)
    }

    /// The low `size` bytes (1..=7) of the value at `offset`, as
    /// smartmontools prints a statistic of that size.
    pub fn get_sized(&self, offset: usize, size: u32) -> Option<u64> {
        let mask = (1u64 << (8 * size.clamp(1, 7))) - 1;
        self.get(offset).map(|v| v & mask)
    }

    /// The value at `offset` as a signed byte (temperatures on page 05h).
    pub fn get_i8(&self, offset: usize) -> Option<i8> {
        self.get(offset).map(|v| v as u8 as i8)
    }
}

/// Page 00h: the supported page numbers (byte 8 = count, list from byte
/// 9), including 00h itself when the device lists it.
pub fn supported_pages(buf: &[u8]) -> Result<Vec<u8>, ParseError> {
    let p = PageListPage::view(buf)?;
    if p.header.page != PAGE_LIST {
        return Err(ParseError::Invalid {
            page: PAGE,
            reason: format!("page list header names page {:02x}h", p.header.page),
        });
    }
    let count = usize::from(p.count).min(p.pages.len());
    Ok(p.pages[..count].to_vec())
}

/// The statistics the exporter reports, gathered from whichever pages the
/// drive supports; a field is None when its page was not read or the
/// statistic is not supported or not valid. Units converted at decode time
/// where the page's unit is fixed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DeviceStatistics {
    /// 01h/008h (4 bytes): lifetime power-on resets.
    pub lifetime_power_on_resets: Option<u64>,
    /// 01h/010h (4 bytes): power-on hours.
    pub power_on_hours: Option<u64>,
    /// Power-on hours × 3600.
    pub power_on_seconds: Option<u64>,
    /// 01h/018h (6 bytes): logical sectors written (× the logical sector
    /// size from IDENTIFY for bytes).
    pub logical_sectors_written: Option<u64>,
    /// 01h/020h (6 bytes): write commands.
    pub write_commands: Option<u64>,
    /// 01h/028h (6 bytes): logical sectors read.
    pub logical_sectors_read: Option<u64>,
    /// 01h/030h (6 bytes): read commands.
    pub read_commands: Option<u64>,
    /// 04h/008h (4 bytes): reported uncorrectable errors.
    pub reported_uncorrectable_errors: Option<u64>,
    /// 05h/008h (signed byte): current temperature, °C.
    pub current_temperature_celsius: Option<i8>,
    /// 05h/020h: highest temperature over the device's life, °C.
    pub highest_temperature_celsius: Option<i8>,
    /// 05h/028h: lowest temperature over the device's life, °C.
    pub lowest_temperature_celsius: Option<i8>,
    /// 05h/050h (4 bytes, minutes × 60): time above the specified maximum
    /// operating temperature.
    pub over_temperature_seconds: Option<u64>,
    /// 05h/058h: specified maximum operating temperature, °C.
    pub max_operating_temperature_celsius: Option<i8>,
    /// 05h/060h (4 bytes, minutes × 60): time below the specified minimum.
    pub under_temperature_seconds: Option<u64>,
    /// 05h/068h: specified minimum operating temperature, °C.
    pub min_operating_temperature_celsius: Option<i8>,
    /// 06h/008h (4 bytes): hardware resets.
    pub hardware_resets: Option<u64>,
    /// 06h/018h (4 bytes): interface CRC errors.
    pub interface_crc_errors: Option<u64>,
    /// 07h/008h (1 byte): percentage used endurance indicator, raw percent
    /// (may exceed 100; smartctl's `endurance_used.current_percent`).
    pub endurance_used_percent: Option<u8>,
}

impl DeviceStatistics {
    /// Takes every known statistic from `page`; pages other than 01h and
    /// 04h–07h are ignored.
    pub fn add_page(&mut self, page: &DevstatPage) {
        let minutes = |off| page.get_sized(off, 4).map(|m| m * 60);
        match page.page {
            PAGE_GENERAL => {
                self.lifetime_power_on_resets = page.get_sized(0x08, 4);
                self.power_on_hours = page.get_sized(0x10, 4);
                self.power_on_seconds = self.power_on_hours.map(|h| h * 3600);
                self.logical_sectors_written = page.get_sized(0x18, 6);
                self.write_commands = page.get_sized(0x20, 6);
                self.logical_sectors_read = page.get_sized(0x28, 6);
                self.read_commands = page.get_sized(0x30, 6);
            }
            PAGE_GENERAL_ERRORS => {
                self.reported_uncorrectable_errors = page.get_sized(0x08, 4);
            }
            PAGE_TEMPERATURE => {
                self.current_temperature_celsius = page.get_i8(0x08);
                self.highest_temperature_celsius = page.get_i8(0x20);
                self.lowest_temperature_celsius = page.get_i8(0x28);
                self.over_temperature_seconds = minutes(0x50);
                self.max_operating_temperature_celsius = page.get_i8(0x58);
                self.under_temperature_seconds = minutes(0x60);
                self.min_operating_temperature_celsius = page.get_i8(0x68);
            }
            PAGE_TRANSPORT => {
                self.hardware_resets = page.get_sized(0x08, 4);
                self.interface_crc_errors = page.get_sized(0x18, 4);
            }
            PAGE_SSD => {
                self.endurance_used_percent = page.get_sized(0x08, 1).map(|p| p as u8);
            }
            _ => {}
        }
    }

    /// The endurance indicator as a ratio (1.0 = rated endurance used).
    pub fn endurance_used_ratio(&self) -> Option<f64> {
        self.endurance_used_percent.map(|p| f64::from(p) / 100.0)
    }
}

#[cfg(test)]
mod tests;
