//! LOG SENSE pages (SPC-5 7.3): a 4-byte header — byte 0 bits 5:0 page
//! code, bit 6 SPF (a subpage follows), byte 1 subpage code, bytes 2..4 page
//! length — then log parameters, each a 4-byte header — bytes 0..2
//! parameter code, byte 2 control, byte 3 parameter length — and its value.
//! Parsing is bounded by the page length and by the buffer, whichever ends
//! first; a parameter that does not fit is dropped, as smartmontools'
//! `scsiDecodeErrCounterPage` does.
//!
//! The headers and the parameter values read at fixed offsets are laid out
//! in [`super::log_layout`].

use zerocopy::FromBytes;

use super::layout::{PROTOCOL_SAS, read_padded};
use super::log_layout::{
    self as layout, BackgroundScanStatusValue, InformationalExceptionValue, LogPageBuilder,
    LogPageHeader, PercentageUsedValue, PortValueHeader, SPF, SasPhyDescriptor, TemperatureValue,
};
use crate::decode::ParseError;

pub const SUPPORTED_PAGES: u8 = 0x00;
pub const WRITE_ERRORS: u8 = 0x02;
pub const READ_ERRORS: u8 = 0x03;
pub const VERIFY_ERRORS: u8 = 0x05;
pub const NON_MEDIUM_ERRORS: u8 = 0x06;
pub const TEMPERATURE: u8 = 0x0D;
pub const START_STOP: u8 = 0x0E;
pub const SELF_TEST: u8 = 0x10;
pub const SOLID_STATE_MEDIA: u8 = 0x11;
pub const BACKGROUND_SCAN: u8 = 0x15;
pub const PROTOCOL_SPECIFIC_PORT: u8 = 0x18;
pub const INFORMATIONAL_EXCEPTIONS: u8 = 0x2F;

/// The LOG SENSE pages the exporter reads, each when page 00h lists it: the
/// one list the SCSI poller, its `page` labels and the simulated SAS drive
/// all take.
pub const READ_PAGES: [u8; 12] = [
    SUPPORTED_PAGES,
    WRITE_ERRORS,
    READ_ERRORS,
    VERIFY_ERRORS,
    NON_MEDIUM_ERRORS,
    TEMPERATURE,
    START_STOP,
    SELF_TEST,
    SOLID_STATE_MEDIA,
    BACKGROUND_SCAN,
    PROTOCOL_SPECIFIC_PORT,
    INFORMATIONAL_EXCEPTIONS,
];

/// One log parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogParam {
    pub code: u16,
    pub control: u8,
    pub value: Vec<u8>,
}

impl LogParam {
    /// The value as one big-endian integer; a value longer than 16 bytes
    /// keeps its last 16 (the least significant), as smartmontools keeps
    /// the last 8 of a counter.
    pub fn uint(&self) -> u128 {
        let v = &self.value[self.value.len().saturating_sub(16)..];
        v.iter().fold(0u128, |acc, &b| (acc << 8) | u128::from(b))
    }
}

/// A decoded log page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPage {
    pub page: u8,
    pub subpage: u8,
    /// The raw bytes after the header, bounded by the page length.
    pub payload: Vec<u8>,
}

impl LogPage {
    /// Decodes the header of page `expected` (any subpage).
    pub fn parse(buf: &[u8], expected: u8) -> Result<Self, ParseError> {
        let short = ParseError::Length {
            page: "log page",
            expected: size_of::<LogPageHeader>(),
            got: buf.len(),
        };
        let (h, rest) = LogPageHeader::ref_from_prefix(buf).map_err(|_| short)?;
        let page = h.page_code & 0x3F;
        if page != expected {
            return Err(ParseError::Invalid {
                page: "log page",
                reason: format!("page code {page:02x}h, expected {expected:02x}h"),
            });
        }
        let len = usize::from(h.page_length.get());
        Ok(Self {
            page,
            subpage: if h.page_code & SPF != 0 {
                h.subpage_code
            } else {
                0
            },
            payload: rest.get(..len).unwrap_or(rest).to_vec(),
        })
    }

    /// The log parameters, in order.
    pub fn params(&self) -> Vec<LogParam> {
        layout::params(&self.payload)
            .map(|(h, value)| LogParam {
                code: h.parameter_code.get(),
                control: h.control,
                value: value.to_vec(),
            })
            .collect()
    }

    /// A page as a device returns it, in the layout [`Self::parse`] and
    /// [`Self::params`] read ([`LogPageBuilder`]): each `(code, value)`
    /// parameter with control byte 03h (binary format list, as SPC-5 sets
    /// it for counters). A value longer than 255 bytes is cut to 255.
    pub fn encode(page: u8, subpage: u8, params: &[(u16, &[u8])]) -> Vec<u8> {
        params
            .iter()
            .fold(LogPageBuilder::new(page, subpage), |b, &(code, value)| {
                b.param(code, value)
            })
            .build()
    }

    /// A page whose payload is not log parameters (00h: one byte per page).
    pub fn encode_raw(page: u8, subpage: u8, payload: &[u8]) -> Vec<u8> {
        LogPageBuilder::new(page, subpage).raw(payload).build()
    }

    /// The first parameter with `code`.
    pub fn param(&self, code: u16) -> Option<LogParam> {
        self.params().into_iter().find(|p| p.code == code)
    }
}

/// Page 00h: the page codes the device supports (one byte each; the page
/// has no log parameters).
pub fn supported_pages(buf: &[u8]) -> Result<Vec<u8>, ParseError> {
    Ok(LogPage::parse(buf, SUPPORTED_PAGES)?
        .payload
        .iter()
        .map(|p| p & 0x3F)
        .collect())
}

/// Page 00h subpage FFh (SPC-5 7.3.2.2, "Supported Log Pages and
/// Subpages"): `(page, subpage)` pairs, two bytes each, for a device that
/// lists subpages (scsi_debug lists 0Dh/01h, the environmental reporting
/// subpage, this way). A reply that is not subpage FFh is an error: a
/// device that ignores the subpage answers with the plain 00h list.
pub fn supported_subpages(buf: &[u8]) -> Result<Vec<(u8, u8)>, ParseError> {
    let p = LogPage::parse(buf, SUPPORTED_PAGES)?;
    if p.subpage != 0xFF {
        return Err(ParseError::Invalid {
            page: "log page 00h/ffh",
            reason: format!("subpage {:02x}h, expected ffh", p.subpage),
        });
    }
    Ok(p.payload
        .chunks_exact(2)
        .map(|c| (c[0] & 0x3F, c[1]))
        .collect())
}

/// The write (02h), read (03h) or verify (05h) error counter page
/// (SBC-4 6.4.x): parameter 0003h total errors corrected, 0005h total bytes
/// processed, 0006h total uncorrected errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorCounters {
    pub corrected: Option<u128>,
    pub bytes_processed: Option<u128>,
    pub uncorrected: Option<u128>,
}

pub fn error_counters(buf: &[u8], page: u8) -> Result<ErrorCounters, ParseError> {
    let p = LogPage::parse(buf, page)?;
    Ok(ErrorCounters {
        corrected: p.param(0x0003).map(|v| v.uint()),
        bytes_processed: p.param(0x0005).map(|v| v.uint()),
        uncorrected: p.param(0x0006).map(|v| v.uint()),
    })
}

/// Page 06h parameter 0000h: non-medium error count.
pub fn non_medium_errors(buf: &[u8]) -> Result<Option<u128>, ParseError> {
    Ok(LogPage::parse(buf, NON_MEDIUM_ERRORS)?
        .param(0x0000)
        .map(|v| v.uint()))
}

/// Page 0Dh (SPC-5 7.3.21): parameter 0000h temperature and 0001h reference
/// temperature, °C in the second value byte; FFh means not available.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Temperature {
    pub current_celsius: Option<u8>,
    /// The REFERENCE TEMPERATURE: the highest temperature at which the
    /// device can operate continuously without degrading its operation or
    /// reliability (SPC-5), which smartctl prints as "Drive Trip
    /// Temperature": an operating limit, not a critical trip point. 0 (or
    /// FFh) is taken as not reported: drives that do not report one leave
    /// the parameter 0.
    pub reference_celsius: Option<u8>,
}

pub fn temperature(buf: &[u8]) -> Result<Temperature, ParseError> {
    let p = LogPage::parse(buf, TEMPERATURE)?;
    let degrees = |code| {
        p.param(code)
            .filter(|v| v.value.len() >= size_of::<TemperatureValue>())
            .map(|v| read_padded::<TemperatureValue>(&v.value).celsius)
            .filter(|&t| t != 0xFF)
    };
    Ok(Temperature {
        current_celsius: degrees(0x0000),
        reference_celsius: degrees(0x0001).filter(|&t| t != 0),
    })
}

/// Page 0Eh (SBC-4, Start-Stop Cycle Counter): the accumulated counts, each
/// a four-byte parameter; all FFh is "not available" (smartmontools'
/// `scsiGetStartStopData` skips it), and a count the page lacks is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StartStop {
    /// Parameter 0004h, accumulated start-stop cycles.
    pub start_stop_cycles: Option<u32>,
    /// Parameter 0006h, accumulated load-unload cycles (head loads of a
    /// disk drive; 0005h is the specified count over the device lifetime).
    pub load_unload_cycles: Option<u32>,
}

pub fn start_stop(buf: &[u8]) -> Result<StartStop, ParseError> {
    let p = LogPage::parse(buf, START_STOP)?;
    let count = |code| {
        p.param(code)
            .filter(|v| v.value.len() >= 4)
            .map(|v| read_padded::<zerocopy::big_endian::U32>(&v.value).get())
            .filter(|&n| n != u32::MAX)
    };
    Ok(StartStop {
        start_stop_cycles: count(0x0004),
        load_unload_cycles: count(0x0006),
    })
}

/// Page 11h parameter 0001h: percentage used endurance indicator, the last
/// of its four value bytes (smartmontools reads it at page byte 7 of the
/// parameter, i.e. value byte 3).
pub fn percentage_used(buf: &[u8]) -> Result<Option<u8>, ParseError> {
    Ok(LogPage::parse(buf, SOLID_STATE_MEDIA)?
        .param(0x0001)
        .filter(|v| v.value.len() >= size_of::<PercentageUsedValue>())
        .map(|v| read_padded::<PercentageUsedValue>(&v.value).percentage_used))
}

/// Page 15h parameter 0000h (background scan status, 12 value bytes):
/// value bytes 0..4 are the accumulated power-on minutes (SBC-4; a shorter
/// parameter is not read, as smartmontools does not).
pub fn power_on_minutes(buf: &[u8]) -> Result<Option<u64>, ParseError> {
    Ok(LogPage::parse(buf, BACKGROUND_SCAN)?
        .param(0x0000)
        .filter(|v| v.value.len() >= size_of::<BackgroundScanStatusValue>())
        .map(|v| {
            u64::from(
                read_padded::<BackgroundScanStatusValue>(&v.value)
                    .power_on_minutes
                    .get(),
            )
        }))
}

/// Page 2Fh parameter 0000h, informational exceptions general (SPC-5
/// 7.3.14): the ASC and ASCQ of the exception (00h/00h: none; what they
/// mean is [`super::exceptions`]), the most recent temperature reading and,
/// in value byte 3, the threshold temperature some drives report there (an
/// IBM extension, as smartmontools' `scsiCheckIE` and sg3_utils' `sg_logs`
/// read it; SPC-5 leaves the byte vendor specific).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InformationalException {
    pub asc: u8,
    pub ascq: u8,
    pub temperature_celsius: Option<u8>,
    /// Value byte 3 when the parameter has it; 0 and FFh are not reported
    /// (drives that do not use the byte leave it 0).
    pub threshold_celsius: Option<u8>,
}

pub fn informational_exceptions(buf: &[u8]) -> Result<Option<InformationalException>, ParseError> {
    Ok(LogPage::parse(buf, INFORMATIONAL_EXCEPTIONS)?
        .param(0x0000)
        .filter(|v| v.value.len() >= 2)
        .map(|v| {
            let ie = read_padded::<InformationalExceptionValue>(&v.value);
            let has = |n: usize| v.value.len() > n;
            InformationalException {
                asc: ie.asc,
                ascq: ie.ascq,
                // A 2-byte value has no temperature.
                temperature_celsius: has(2)
                    .then_some(ie.most_recent_temperature)
                    .filter(|&t| t != 0xFF),
                threshold_celsius: has(3).then_some(ie.vendor).filter(|&t| t != 0 && t != 0xFF),
            }
        }))
}

/// One SAS phy's error counters from page 18h (SPL-4 "Protocol-Specific
/// Port log page", as smartmontools' `show_sas_port_param` reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SasPhy {
    /// Relative target port identifier (the parameter code).
    pub port: u16,
    /// Phy identifier (descriptor byte 1).
    pub phy: u8,
    pub invalid_dwords: u32,
    pub running_disparity_errors: u32,
    pub loss_of_dword_sync: u32,
    pub phy_reset_problems: u32,
    /// Descriptor byte 5 bits 3:0, NEGOTIATED LOGICAL LINK RATE (SPL-4).
    pub negotiated_rate: u8,
}

impl SasPhy {
    /// The negotiated logical link rate in bits per second, `None` for a
    /// phy not up at a rate ([`link_rate`]).
    pub fn link_rate_bits_per_second(&self) -> Option<f64> {
        link_rate(self.negotiated_rate)
    }
}

/// A NEGOTIATED (LOGICAL) LINK RATE code in bits per second (SPL-4 table
/// "NEGOTIATED LOGICAL LINK RATE": 8h 1.5 Gbit/s, 9h 3, Ah 6, Bh 12, Ch
/// 22.5, as smartmontools' `scsiprint.cpp` prints log 18h; the kernel's
/// `enum sas_linkrate` uses the same codes); `None` for 0h unknown, 1h
/// disabled, 2h speed negotiation failed, 3h SATA spin-up hold and the
/// other states that are not a rate.
pub fn link_rate(code: u8) -> Option<f64> {
    match code & 0x0F {
        0x8 => Some(1.5e9),
        0x9 => Some(3e9),
        0xA => Some(6e9),
        0xB => Some(12e9),
        0xC => Some(22.5e9),
        _ => None,
    }
}

/// The phys of a SAS protocol-specific port page; empty for another
/// protocol (parameter value byte 0 bits 3:0 is the protocol, 6 = SAS).
pub fn sas_phys(buf: &[u8]) -> Result<Vec<SasPhy>, ParseError> {
    let page = LogPage::parse(buf, PROTOCOL_SPECIFIC_PORT)?;
    let mut out = Vec::new();
    for p in page.params() {
        let Ok((port, mut rest)) = PortValueHeader::ref_from_prefix(&p.value) else {
            continue;
        };
        if port.protocol & 0x0F != PROTOCOL_SAS {
            continue;
        }
        // One descriptor per phy, each its length + 4 bytes (48 for SAS-1
        // and SAS-1.1, which leave the length 0).
        while let Ok((d, _)) = SasPhyDescriptor::ref_from_prefix(rest) {
            out.push(SasPhy {
                port: p.code,
                phy: d.phy_identifier,
                invalid_dwords: d.invalid_dword_count.get(),
                running_disparity_errors: d.running_disparity_error_count.get(),
                loss_of_dword_sync: d.loss_of_dword_sync_count.get(),
                phy_reset_problems: d.phy_reset_problem_count.get(),
                negotiated_rate: d.negotiated_rate & 0x0F,
            });
            rest = rest.get(d.stride()..).unwrap_or(&[]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
