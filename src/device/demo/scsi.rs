//! The simulated SAS SSD (`sdb`): its INQUIRY, VPD and LOG SENSE answers,
//! built with the layouts the decoders read (`scsi::log::LogPage::encode`,
//! `scsi::identity::vpd_page`) from [`sim::sas_ssd`]. Values and byte
//! meanings as SPC-5 / SBC-4 lay them out; the page list is what a SAS SSD
//! typically answers (no background scan page: power-on time comes from
//! it, so it is there too).

use std::time::Instant;

use super::DemoDrive;
use super::sim::{self, SasHealth};
use crate::device::{FetchError, ScsiRequest, ScsiSource};
use crate::scsi::identity::{PROTOCOL_SAS, vpd_page};
use crate::scsi::log::{self, LogPage};

/// Log pages the drive lists in page 00h.
const LOG_PAGES: [u8; 11] = [
    log::SUPPORTED_PAGES,
    log::WRITE_ERRORS,
    log::READ_ERRORS,
    log::VERIFY_ERRORS,
    log::NON_MEDIUM_ERRORS,
    log::TEMPERATURE,
    log::START_STOP,
    log::SOLID_STATE_MEDIA,
    log::BACKGROUND_SCAN,
    log::PROTOCOL_SPECIFIC_PORT,
    log::INFORMATIONAL_EXCEPTIONS,
];

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
    let mut b = vec![0u8; 36];
    b[2] = 0x07; // SPC-5
    b[3] = 0x02; // response data format 2
    b[4] = 31; // additional length: 36 bytes
    b[8..16].copy_from_slice(b"SEAGATE ");
    b[16..32].copy_from_slice(b"XS800ME70084    ");
    b[32..36].copy_from_slice(b"0003");
    b
}

/// VPD 83h: the logical unit's NAA (Seagate's OUI 000C50h, made-up ID),
/// then the target port's NAA with PIV set and protocol SAS.
fn device_id() -> Vec<u8> {
    let mut p = vec![
        0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xC5, 0x00, 0xDE, 0x00, 0x00, 0x05,
    ];
    p.extend([(PROTOCOL_SAS << 4) | 0x01, 0x93, 0x00, 0x08]);
    p.extend([0x50, 0x00, 0xC5, 0x00, 0xDE, 0x00, 0x00, 0x06]);
    vpd_page(0x83, &p)
}

/// Error counter page: 0003h corrected, 0005h bytes processed, 0006h
/// uncorrected (SBC-4 6.4.x), 8-byte counters.
fn error_counters(page: u8, corrected: u64, bytes: u64) -> Vec<u8> {
    let (c, b, u) = (
        corrected.to_be_bytes(),
        bytes.to_be_bytes(),
        0u64.to_be_bytes(),
    );
    LogPage::encode(page, 0, &[(0x0003, &c), (0x0005, &b), (0x0006, &u)])
}

/// Page 18h: one SAS port (relative target port 1) with one phy: value
/// bytes 0..4 protocol 6, generation, number of phys; then a 48-byte phy
/// descriptor (length 44) with the four error counts at 32..48.
fn sas_port(h: &SasHealth) -> Vec<u8> {
    let mut v = vec![PROTOCOL_SAS, 0, 1, 1];
    let mut d = vec![0u8; 48];
    d[3] = 44;
    for (i, n) in h.phy_errors.iter().enumerate() {
        d[32 + 4 * i..36 + 4 * i].copy_from_slice(&n.to_be_bytes());
    }
    v.extend(d);
    LogPage::encode(log::PROTOCOL_SPECIFIC_PORT, 0, &[(0x0001, &v)])
}

fn log_page(page: u8, h: &SasHealth) -> Option<Vec<u8>> {
    let be32 = |n: u32| n.to_be_bytes();
    Some(match page {
        log::SUPPORTED_PAGES => LogPage::encode_raw(0, 0, &LOG_PAGES),
        log::READ_ERRORS => error_counters(page, h.corrected[0], h.read_bytes),
        log::WRITE_ERRORS => error_counters(page, h.corrected[1], h.written_bytes),
        log::VERIFY_ERRORS => error_counters(page, h.corrected[2], h.read_bytes / 8),
        log::NON_MEDIUM_ERRORS => LogPage::encode(page, 0, &[(0x0000, &[0, 0, 0, 4])]),
        // 0000h temperature, 0001h reference temperature: °C in value byte 1.
        log::TEMPERATURE => LogPage::encode(
            page,
            0,
            &[
                (0x0000, &[0, h.temperature_c]),
                (0x0001, &[0, h.reference_c]),
            ],
        ),
        // 0003h specified cycles over the life, 0004h accumulated.
        log::START_STOP => LogPage::encode(
            page,
            0,
            &[
                (0x0003, &be32(50_000)),
                (0x0004, &be32(h.start_stop_cycles)),
            ],
        ),
        // 0001h percentage used endurance indicator, value byte 3.
        log::SOLID_STATE_MEDIA => {
            LogPage::encode(page, 0, &[(0x0001, &[0, 0, 0, h.percentage_used])])
        }
        // 0000h background scan status: power-on minutes in value bytes 0..4.
        log::BACKGROUND_SCAN => {
            let mut v = vec![0u8; 12];
            v[..4].copy_from_slice(&be32(h.power_on_minutes));
            LogPage::encode(page, 0, &[(0x0000, &v)])
        }
        log::PROTOCOL_SPECIFIC_PORT => sas_port(h),
        // 0000h: ASC 00h, ASCQ 00h (no exception), most recent temperature.
        log::INFORMATIONAL_EXCEPTIONS => LogPage::encode(
            page,
            0,
            &[(0x0000, &[0, 0, h.temperature_c, h.reference_c])],
        ),
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
            ScsiRequest::Vpd(0x00) => vpd_page(0x00, &[0x00, 0x80, 0x83, 0xB1]),
            ScsiRequest::Vpd(0x80) => vpd_page(0x80, b"DEMO0000000000000005"),
            ScsiRequest::Vpd(0x83) => device_id(),
            // Medium rotation rate 0001h: non-rotating.
            ScsiRequest::Vpd(0xB1) => {
                let mut p = vec![0u8; 60];
                p[1] = 0x01;
                vpd_page(0xB1, &p)
            }
            ScsiRequest::Vpd(_) => return unsupported(),
            // 800 GB in 512-byte blocks: last LBA 1 562 824 367.
            ScsiRequest::ReadCapacity16 => {
                let mut b = vec![0u8; 32];
                b[..8].copy_from_slice(&1_562_824_367u64.to_be_bytes());
                b[8..12].copy_from_slice(&512u32.to_be_bytes());
                b
            }
            ScsiRequest::Log { page, subpage: 0 } => match log_page(page, &h) {
                Some(p) => p,
                None => return unsupported(),
            },
            ScsiRequest::Log { .. } => return unsupported(),
            // GLISTV, physical sector format (101b): 8 bytes per entry.
            ScsiRequest::GrownDefects => {
                let len = (h.grown_defects * 8) as u16;
                let [hi, lo] = len.to_be_bytes();
                vec![0, 0x0D, hi, lo]
            }
        })
    }
}
