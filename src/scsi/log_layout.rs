//! LOG SENSE page layouts, once: the page header and the log parameter
//! header (SPC-5 7.3.1), the parameter values read at fixed offsets, and
//! the SAS port layout of page 18h (SPL-4). [`LogPageBuilder`] appends
//! parameters through the same headers [`params`] walks, so the decoders
//! in `log`, the demo and the fixture builder share one framing.

use zerocopy::big_endian::{U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// The log page header (SPC-5 7.3.1.1).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct LogPageHeader {
    /// Byte 0: DS (7) | SPF (6, a subpage code follows) | PAGE CODE (5:0).
    pub page_code: u8,
    /// Byte 1: SUBPAGE CODE.
    pub subpage_code: u8,
    /// Bytes 2..4: PAGE LENGTH (n - 3), the bytes after this header.
    pub page_length: U16,
}

const _: () = assert!(size_of::<LogPageHeader>() == 4);

/// Byte 0 bit 6 of [`LogPageHeader::page_code`].
pub const SPF: u8 = 0x40;

/// The log parameter header (SPC-5 7.3.1.2); PARAMETER LENGTH bytes of
/// value follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct LogParamHeader {
    /// Bytes 0..2: PARAMETER CODE.
    pub parameter_code: U16,
    /// Byte 2: DU (7) | TSD (5) | ETC (4) | TMC (3:2) | FORMAT AND LINKING
    /// (1:0).
    pub control: u8,
    /// Byte 3: PARAMETER LENGTH (n - 3).
    pub parameter_length: u8,
}

const _: () = assert!(size_of::<LogParamHeader>() == 4);

/// Control byte 03h: binary format list (FORMAT AND LINKING 11b), as
/// counters carry it.
pub const CONTROL_BINARY_LIST: u8 = 0x03;
/// Control byte 01h: ASCII format list (FORMAT AND LINKING 01b), for dates.
pub const CONTROL_ASCII_LIST: u8 = 0x01;

/// The log parameters of a page payload, in order, each with its value;
/// the walk ends at the first parameter that does not fit.
pub fn params(payload: &[u8]) -> impl Iterator<Item = (LogParamHeader, &[u8])> {
    let mut rest = payload;
    std::iter::from_fn(move || {
        let (h, tail) = LogParamHeader::read_from_prefix(rest).ok()?;
        let value = tail.get(..usize::from(h.parameter_length))?;
        rest = &tail[value.len()..];
        Some((h, value))
    })
}

/// Page 0Dh parameters 0000h (TEMPERATURE) and 0001h (REFERENCE
/// TEMPERATURE), SPC-5 7.3.21: the value after the parameter header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct TemperatureValue {
    /// Value byte 0 (parameter byte 4): reserved.
    pub reserved: u8,
    /// Value byte 1 (parameter byte 5): °C; FFh not available.
    pub celsius: u8,
}

const _: () = assert!(size_of::<TemperatureValue>() == 2);

/// Page 2Fh parameter 0000h, the informational exceptions general
/// parameter (SPC-5 7.3.14): the value after the parameter header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct InformationalExceptionValue {
    /// Value byte 0 (parameter byte 4): INFORMATIONAL EXCEPTION ADDITIONAL
    /// SENSE CODE (00h none, 5Dh failure prediction threshold exceeded).
    pub asc: u8,
    /// Value byte 1 (parameter byte 5): its qualifier.
    pub ascq: u8,
    /// Value byte 2 (parameter byte 6): MOST RECENT TEMPERATURE READING, °C.
    pub most_recent_temperature: u8,
    /// Value byte 3 (parameter byte 7): the first vendor-specific byte.
    pub vendor: u8,
}

const _: () = assert!(size_of::<InformationalExceptionValue>() == 4);

/// Page 10h parameters 0001h..0014h, self-test results (SPC-5 7.3.18):
/// the 16 value bytes after the parameter header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SelfTestValue {
    /// Value byte 0 (parameter byte 4): SELF-TEST CODE (7:5) | SELF-TEST
    /// RESULTS (3:0).
    pub code_result: u8,
    /// Value byte 1: SELF-TEST NUMBER (the segment).
    pub self_test_number: u8,
    /// Value bytes 2..4: ACCUMULATED POWER ON HOURS.
    pub power_on_hours: U16,
    /// Value bytes 4..12: ADDRESS OF FIRST FAILURE.
    pub first_failure_lba: U64,
    /// Value byte 12: SENSE KEY (3:0).
    pub sense_key: u8,
    /// Value byte 13: ADDITIONAL SENSE CODE.
    pub asc: u8,
    /// Value byte 14: ADDITIONAL SENSE CODE QUALIFIER.
    pub ascq: u8,
    /// Value byte 15: vendor specific.
    pub vendor: u8,
}

const _: () = assert!(size_of::<SelfTestValue>() == 16);

impl SelfTestValue {
    /// A result: `code` (1 background short, 2 background extended),
    /// `result` (0 passed, 7 another segment failed) and the rest.
    pub fn new(code: u8, result: u8, segment: u8, hours: u16, lba: u64, sense: [u8; 3]) -> Self {
        Self {
            code_result: (code << 5) | (result & 0x0F),
            self_test_number: segment,
            power_on_hours: U16::new(hours),
            first_failure_lba: U64::new(lba),
            sense_key: sense[0],
            asc: sense[1],
            ascq: sense[2],
            vendor: 0,
        }
    }
}

/// Page 11h parameter 0001h, PERCENTAGE USED ENDURANCE INDICATOR (SBC-4
/// 6.4.x, solid state media): the 4 value bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PercentageUsedValue {
    /// Value bytes 0..3 (parameter bytes 4..7): reserved.
    pub reserved: [u8; 3],
    /// Value byte 3 (parameter byte 7): percent of the rated endurance used.
    pub percentage_used: u8,
}

const _: () = assert!(size_of::<PercentageUsedValue>() == 4);

/// Page 15h parameter 0000h, background scan status (SBC-4 6.4.2): the 12
/// value bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct BackgroundScanStatusValue {
    /// Value bytes 0..4 (parameter bytes 4..8): ACCUMULATED POWER ON MINUTES.
    pub power_on_minutes: U32,
    /// Value byte 4: reserved.
    pub reserved: u8,
    /// Value byte 5: BACKGROUND SCAN STATUS.
    pub status: u8,
    /// Value bytes 6..8: NUMBER OF BACKGROUND SCANS PERFORMED.
    pub scans_performed: U16,
    /// Value bytes 8..10: BACKGROUND MEDIUM SCAN PROGRESS.
    pub scan_progress: U16,
    /// Value bytes 10..12: NUMBER OF BACKGROUND MEDIUM SCANS PERFORMED.
    pub medium_scans_performed: U16,
}

const _: () = assert!(size_of::<BackgroundScanStatusValue>() == 12);

/// Page 18h: the start of a protocol-specific port parameter's value (one
/// parameter per relative target port, SPC-5 7.3.17 and, for SAS, SPL-4
/// "Protocol-Specific Port log page"); the phy descriptors follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PortValueHeader {
    /// Value byte 0 (parameter byte 4): PROTOCOL IDENTIFIER (3:0; 6 = SAS).
    pub protocol: u8,
    /// Value byte 1: reserved.
    pub reserved: u8,
    /// Value byte 2: GENERATION CODE.
    pub generation: u8,
    /// Value byte 3: NUMBER OF PHYS.
    pub number_of_phys: u8,
}

const _: () = assert!(size_of::<PortValueHeader>() == 4);

/// One SAS phy log descriptor of page 18h (SPL-4), its 48 fixed bytes;
/// SAS-2 and later devices may append phy event descriptors (the length
/// at byte 3 counts them).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SasPhyDescriptor {
    /// Byte 0: reserved.
    pub reserved0: u8,
    /// Byte 1: PHY IDENTIFIER.
    pub phy_identifier: u8,
    /// Byte 2: reserved.
    pub reserved2: u8,
    /// Byte 3: SAS PHY LOG DESCRIPTOR LENGTH (n - 3; 2Ch without phy
    /// events; 0 from SAS-1 and SAS-1.1 devices, meaning 48 bytes).
    pub descriptor_length: u8,
    /// Byte 4: ATTACHED DEVICE TYPE (6:4) | ATTACHED REASON (3:0).
    pub attached_device_type: u8,
    /// Byte 5: REASON (7:4) | NEGOTIATED LOGICAL LINK RATE (3:0).
    pub negotiated_rate: u8,
    /// Byte 6: attached initiator port bits.
    pub attached_initiator: u8,
    /// Byte 7: attached target port bits.
    pub attached_target: u8,
    /// Bytes 8..16: SAS ADDRESS.
    pub sas_address: U64,
    /// Bytes 16..24: ATTACHED SAS ADDRESS.
    pub attached_sas_address: U64,
    /// Byte 24: ATTACHED PHY IDENTIFIER.
    pub attached_phy_identifier: u8,
    /// Bytes 25..32: reserved.
    pub reserved25: [u8; 7],
    /// Bytes 32..36: INVALID DWORD COUNT.
    pub invalid_dword_count: U32,
    /// Bytes 36..40: RUNNING DISPARITY ERROR COUNT.
    pub running_disparity_error_count: U32,
    /// Bytes 40..44: LOSS OF DWORD SYNCHRONIZATION COUNT.
    pub loss_of_dword_sync_count: U32,
    /// Bytes 44..48: PHY RESET PROBLEM COUNT.
    pub phy_reset_problem_count: U32,
}

const _: () = assert!(size_of::<SasPhyDescriptor>() == 48);

impl SasPhyDescriptor {
    /// A descriptor without phy events (length 2Ch) for `phy` with the four
    /// error counts in their order at bytes 32..48.
    pub fn new(phy: u8, counts: [u32; 4]) -> Self {
        let mut d = Self::new_zeroed();
        d.phy_identifier = phy;
        d.descriptor_length = (size_of::<Self>() - 4) as u8;
        d.invalid_dword_count.set(counts[0]);
        d.running_disparity_error_count.set(counts[1]);
        d.loss_of_dword_sync_count.set(counts[2]);
        d.phy_reset_problem_count.set(counts[3]);
        d
    }

    /// The bytes this descriptor takes in the page, its phy events included.
    pub fn stride(&self) -> usize {
        if self.descriptor_length < 44 {
            size_of::<Self>()
        } else {
            4 + usize::from(self.descriptor_length)
        }
    }
}

/// The value of one SAS port parameter of page 18h: the port header, then
/// one descriptor per phy.
pub fn sas_port_value(generation: u8, phys: &[SasPhyDescriptor]) -> Vec<u8> {
    let header = PortValueHeader {
        protocol: super::layout::PROTOCOL_SAS,
        reserved: 0,
        generation,
        number_of_phys: phys.len().min(255) as u8,
    };
    let mut v = header.as_bytes().to_vec();
    for d in phys {
        v.extend_from_slice(d.as_bytes());
    }
    v
}

/// A log page as a device returns it: [`LogPageHeader`] (SPF set for a
/// non-zero subpage), then parameters appended through [`LogParamHeader`],
/// PAGE LENGTH counted from them (cut at 65 535 bytes).
#[derive(Debug, Clone)]
pub struct LogPageBuilder {
    page: u8,
    subpage: u8,
    body: Vec<u8>,
}

impl LogPageBuilder {
    pub fn new(page: u8, subpage: u8) -> Self {
        Self {
            page,
            subpage,
            body: Vec::new(),
        }
    }

    /// A parameter with control byte 03h (binary format list).
    pub fn param(self, code: u16, value: &[u8]) -> Self {
        self.param_with_control(code, CONTROL_BINARY_LIST, value)
    }

    /// A parameter whose value is a layout of this module (or a
    /// big-endian integer).
    pub fn value<T: IntoBytes + Immutable>(self, code: u16, value: &T) -> Self {
        self.param(code, value.as_bytes())
    }

    /// A parameter with its own control byte; a value longer than 255
    /// bytes is cut to 255.
    pub fn param_with_control(mut self, code: u16, control: u8, value: &[u8]) -> Self {
        let value = &value[..value.len().min(255)];
        let header = LogParamHeader {
            parameter_code: U16::new(code),
            control,
            parameter_length: value.len() as u8,
        };
        self.body.extend_from_slice(header.as_bytes());
        self.body.extend_from_slice(value);
        self
    }

    /// Payload bytes that are not log parameters (page 00h: one page code
    /// per byte).
    pub fn raw(mut self, bytes: &[u8]) -> Self {
        self.body.extend_from_slice(bytes);
        self
    }

    pub fn build(self) -> Vec<u8> {
        let len = u16::try_from(self.body.len()).unwrap_or(u16::MAX);
        let spf = if self.subpage != 0 { SPF } else { 0 };
        let header = LogPageHeader {
            page_code: (self.page & 0x3F) | spf,
            subpage_code: self.subpage,
            page_length: U16::new(len),
        };
        let mut out = header.as_bytes().to_vec();
        out.extend_from_slice(&self.body[..usize::from(len)]);
        out
    }
}

#[cfg(test)]
mod tests;
