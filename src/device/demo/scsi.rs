//! The simulated SAS SSD (`sdb`): its INQUIRY, VPD and LOG SENSE answers,
//! written through the layouts the decoders read (`scsi::layout`,
//! `scsi::log_layout` and their page builders) from [`sim::sas_ssd`].
//! Values and byte meanings as SPC-5 / SBC-4 lay them out; the page list is what a SAS SSD
//! typically answers (no background scan page: power-on time comes from
//! it, so it is there too).

use std::time::Instant;

use zerocopy::big_endian::{U32, U64};
use zerocopy::{FromZeros, IntoBytes};

use super::DemoDrive;
use super::sim::{self, SasHealth};
use crate::device::{FetchError, ScsiRequest, ScsiSource};
use crate::scsi::layout::{
    BlockDeviceCharacteristics, DESIGNATOR_NAA, DefectListHeader, DefectListHeader12,
    DesignatorHeader, FORMAT_PHYSICAL_SECTOR, InquiryData, PROTOCOL_SAS, ReadCapacity16Data,
    VpdPageBuilder, ascii,
};
use crate::scsi::log;
use crate::scsi::log_layout::{
    BackgroundScanStatusValue, InformationalExceptionValue, LogPageBuilder, PercentageUsedValue,
    SasPhyDescriptor, TemperatureValue, sas_port_value,
};

/// Log pages the drive lists in page 00h: every page a poll reads but the
/// self-test results, which the simulated drive does not keep.
const LOG_PAGES: [u8; 11] = without(log::READ_PAGES, log::SELF_TEST);

/// `pages` with `page` left out; fails to compile unless exactly one entry
/// is `page`.
const fn without<const N: usize, const M: usize>(pages: [u8; N], page: u8) -> [u8; M] {
    assert!(M + 1 == N, "one page fewer");
    let mut out = [0u8; M];
    let (mut i, mut o) = (0, 0);
    while i < N {
        if pages[i] != page {
            out[o] = pages[i];
            o += 1;
        }
        i += 1;
    }
    assert!(o == M, "the page is in the list once");
    out
}

/// The simulated SAS SSD.
pub struct DemoScsi {
    drive: DemoDrive,
    started: Instant,
}

impl DemoScsi {
    pub fn new(drive: DemoDrive, started: Instant) -> Self {
        Self { drive, started }
    }
}

fn inquiry() -> Vec<u8> {
    let mut d = InquiryData::new_zeroed();
    d.version = 0x07; // SPC-5
    d.response_data_format = 0x02;
    d.additional_length = 31; // 36 bytes
    d.vendor = ascii("SEAGATE");
    d.product = ascii("XS800ME70084");
    d.revision = ascii("0003");
    d.as_bytes().to_vec()
}

/// VPD 83h: the logical unit's NAA (Seagate's OUI 000C50h, made-up ID),
/// then the target port's NAA with PIV set and protocol SAS.
fn device_id() -> Vec<u8> {
    VpdPageBuilder::new(0x83)
        .designator(
            DesignatorHeader::new(0, 1, false, 0, DESIGNATOR_NAA, 8),
            &0x5000_C500_DE00_0005u64.to_be_bytes(),
        )
        .designator(
            DesignatorHeader::new(PROTOCOL_SAS, 1, true, 1, DESIGNATOR_NAA, 8),
            &0x5000_C500_DE00_0006u64.to_be_bytes(),
        )
        .build()
}

/// Error counter page: 0003h corrected, 0005h bytes processed, 0006h
/// uncorrected (SBC-4 6.4.x), 8-byte counters.
fn error_counters(page: u8, corrected: u64, bytes: u64) -> Vec<u8> {
    LogPageBuilder::new(page, 0)
        .value(0x0003, &U64::new(corrected))
        .value(0x0005, &U64::new(bytes))
        .value(0x0006, &U64::new(0))
        .build()
}

/// Page 18h: one SAS port (relative target port 1) with one phy: value
/// bytes 0..4 protocol 6, generation, number of phys; then a 48-byte phy
/// descriptor (length 44) with the four error counts at 32..48.
fn sas_port(h: &SasHealth) -> Vec<u8> {
    let mut phy = SasPhyDescriptor::new(0, h.phy_errors);
    // Negotiated logical link rate Bh: 12 Gbit/s (SPL-4).
    phy.negotiated_rate = 0x0B;
    LogPageBuilder::new(log::PROTOCOL_SPECIFIC_PORT, 0)
        .param(0x0001, &sas_port_value(1, &[phy]))
        .build()
}

fn log_page(page: u8, h: &SasHealth) -> Option<Vec<u8>> {
    let temperature = |celsius| TemperatureValue {
        reserved: 0,
        celsius,
    };
    let page_of = || LogPageBuilder::new(page, 0);
    Some(match page {
        log::SUPPORTED_PAGES => page_of().raw(&LOG_PAGES).build(),
        log::READ_ERRORS => error_counters(page, h.corrected[0], h.read_bytes),
        log::WRITE_ERRORS => error_counters(page, h.corrected[1], h.written_bytes),
        log::VERIFY_ERRORS => error_counters(page, h.corrected[2], h.read_bytes / 8),
        log::NON_MEDIUM_ERRORS => page_of().value(0x0000, &U32::new(4)).build(),
        // 0000h temperature, 0001h reference temperature.
        log::TEMPERATURE => page_of()
            .value(0x0000, &temperature(h.temperature_c))
            .value(0x0001, &temperature(h.reference_c))
            .build(),
        // 0003h specified cycles over the life, 0004h accumulated.
        log::START_STOP => page_of()
            .value(0x0003, &U32::new(50_000))
            .value(0x0004, &U32::new(h.start_stop_cycles))
            .build(),
        log::SOLID_STATE_MEDIA => {
            let mut v = PercentageUsedValue::new_zeroed();
            v.percentage_used = h.percentage_used;
            page_of().value(0x0001, &v).build()
        }
        // 0000h background scan status: the power-on minutes.
        log::BACKGROUND_SCAN => {
            let mut v = BackgroundScanStatusValue::new_zeroed();
            v.power_on_minutes.set(h.power_on_minutes);
            page_of().value(0x0000, &v).build()
        }
        log::PROTOCOL_SPECIFIC_PORT => sas_port(h),
        // 0000h: ASC 00h, ASCQ 00h (no exception), most recent temperature;
        // the vendor byte carries the reference temperature.
        log::INFORMATIONAL_EXCEPTIONS => {
            let ie = InformationalExceptionValue {
                asc: 0,
                ascq: 0,
                most_recent_temperature: h.temperature_c,
                vendor: h.reference_c,
            };
            page_of().value(0x0000, &ie).build()
        }
        _ => return None,
    })
}

impl ScsiSource for DemoScsi {
    fn origin(&self) -> String {
        format!("demo:{}", self.drive.name)
    }

    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError> {
        let h = sim::sas_ssd(self.started.elapsed().as_secs_f64());
        let unsupported = || Err(FetchError::Unsupported(format!("{req}: not simulated")));
        Ok(match req {
            ScsiRequest::Inquiry => inquiry(),
            ScsiRequest::Vpd(0x00) => VpdPageBuilder::new(0x00)
                .bytes(&[0x00, 0x80, 0x83, 0xB1])
                .build(),
            ScsiRequest::Vpd(0x80) => VpdPageBuilder::new(0x80)
                .bytes(b"DEMO0000000000000005")
                .build(),
            ScsiRequest::Vpd(0x83) => device_id(),
            // Medium rotation rate 0001h: non-rotating.
            ScsiRequest::Vpd(0xB1) => {
                let mut p = BlockDeviceCharacteristics::new();
                p.medium_rotation_rate.set(1);
                p.as_bytes().to_vec()
            }
            ScsiRequest::Vpd(_) => return unsupported(),
            // 800 GB in 512-byte blocks: last LBA 1 562 824 367.
            ScsiRequest::ReadCapacity16 => ReadCapacity16Data::new(1_562_824_367, 512)
                .as_bytes()
                .to_vec(),
            ScsiRequest::Log { page, subpage: 0 } => match log_page(page, &h) {
                Some(p) => p,
                None => return unsupported(),
            },
            ScsiRequest::Log { .. } => return unsupported(),
            // GLISTV, physical sector format (101b): 8 bytes per entry.
            ScsiRequest::GrownDefects10 => {
                let len = (h.grown_defects * 8) as u16;
                DefectListHeader::grown(FORMAT_PHYSICAL_SECTOR, len)
                    .as_bytes()
                    .to_vec()
            }
            // A current SAS SSD has READ DEFECT DATA(12): it is asked first.
            ScsiRequest::GrownDefects12 => {
                let len = h.grown_defects * 8;
                DefectListHeader12::grown(FORMAT_PHYSICAL_SECTOR, len)
                    .as_bytes()
                    .to_vec()
            }
        })
    }
}
