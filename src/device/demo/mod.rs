//! `--demo`: a simulated fleet, for seeing the dashboards and alerts come
//! alive with no hardware. Each drive is a source like a live or replayed
//! one: it answers page requests with bytes ([`pages`]), built from a
//! time-compressed model of the drive ([`sim`]), and those bytes go through
//! the same pollers and decoders as a real drive's.
//!
//! The fleet, modelled on `shared/reference/drives.md`:
//! - `nvme0`: a Kingston DC2000B-like NVMe drive with PLP that heats up and
//!   throttles every few minutes, its latency tail spiking meanwhile;
//! - `nvme1`: a Sabrent Rocket 4.0-like client drive without PLP that now
//!   and then loses power without warning;
//! - `sda`: a Kingston DC600M-like SATA drive, healthy, within its QoS;
//! - `nvme2`: a failing DC2000B-like drive (spare below threshold, worn
//!   out, capacitors degraded, media errors rising, a failed self-test, its
//!   PCIe link trained x2 of x4 with non-fatal errors rising: [`pcie`]);
//! - `sdb`: a Seagate Nytro 3000-like SAS SSD, healthy, answering the SCSI
//!   pages of a real one (INQUIRY, VPD, LOG SENSE, grown defects);
//! - `nvme3`: a DC2000B-like drive that is fail-slow: its pages are clean,
//!   its every read several times slower than its peers' (`nvme0`, `nvme2`:
//!   the same model and firmware), from the start.
//!
//! Serial numbers start with `DEMO`; the landing page and the log say the
//! drives are simulated.

pub mod ata;
pub mod depth;
pub mod latency;
pub mod pages;
pub mod pcie;
pub mod scsi;
pub mod sim;

use std::time::{Instant, SystemTime};

use crate::ata::{PowerMode, smart::SmartStatus};
use crate::device::discovery::Transport;
use crate::device::replay::pel_window;
use crate::device::{AtaRead, AtaSource, FetchError, NvmeRequest, NvmeSource};
use crate::nvme;
use ata::AtaIdentity;
use pages::NvmeIdentity;
pub use scsi::DemoScsi;
use sim::Model;

/// One simulated drive.
#[derive(Debug, Clone, Copy)]
pub struct DemoDrive {
    /// Kernel-style name: the `device` label.
    pub name: &'static str,
    /// The block device its probe reports (`block` label).
    pub block: &'static str,
    pub model: Model,
}

impl DemoDrive {
    pub fn transport(&self) -> Transport {
        match self.model {
            Model::Dc600m => Transport::Sata,
            Model::SasSsd => Transport::Sas,
            _ => Transport::Nvme,
        }
    }
}

/// The simulated fleet.
pub const FLEET: [DemoDrive; 6] = [
    DemoDrive {
        name: "nvme0",
        block: "nvme0n1",
        model: Model::Dc2000b,
    },
    DemoDrive {
        name: "nvme1",
        block: "nvme1n1",
        model: Model::Rocket,
    },
    DemoDrive {
        name: "nvme2",
        block: "nvme2n1",
        model: Model::Failing,
    },
    DemoDrive {
        name: "sda",
        block: "sda",
        model: Model::Dc600m,
    },
    DemoDrive {
        name: "sdb",
        block: "sdb",
        model: Model::SasSsd,
    },
    DemoDrive {
        name: "nvme3",
        block: "nvme3n1",
        model: Model::FailSlow,
    },
];

/// The poll interval of `--demo` unless `poll.interval` is set: the
/// simulated drives change by the second.
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// The banner on the landing page and the log line at start.
pub const NOTICE: &str = "DEMO MODE: every drive here is SIMULATED (--demo); no real drive is read";

fn nvme_identity(model: Model) -> NvmeIdentity {
    let dc2000b = |serial| NvmeIdentity {
        vid: 0x2646,
        serial,
        model: "KINGSTON SEDC2000BM8960G",
        firmware: "EIEK51.3",
        oacs: 0x0017, // security, format, firmware, self-test
        wctemp_c: 70.0,
        cctemp_c: 85.0,
        capacity_bytes: 960_197_124_096,
        elpe: 63,
        depth: true,
    };
    match model {
        Model::Rocket => NvmeIdentity {
            vid: 0x1987,
            serial: "DEMO0000000000000002",
            model: "Sabrent Rocket 4.0 2TB",
            firmware: "RKT401.3",
            oacs: 0x0007, // no self-test
            wctemp_c: 75.0,
            cctemp_c: 80.0,
            capacity_bytes: 2_000_398_934_016,
            elpe: 62,
            depth: false,
        },
        Model::Failing => dc2000b("DEMO0000000000000003"),
        Model::FailSlow => dc2000b("DEMO0000000000000006"),
        _ => dc2000b("DEMO0000000000000001"),
    }
}

/// A simulated NVMe controller.
pub struct DemoNvme {
    drive: DemoDrive,
    started: Instant,
    /// The wall clock at `started`: the drive's event timestamps.
    wall_start: SystemTime,
    /// The persistent event log as it was when the reporting context was
    /// established: a real controller keeps the log it reports unchanged
    /// until the context is released.
    pel_context: Option<Vec<u8>>,
}

impl DemoNvme {
    pub fn new(drive: DemoDrive, started: Instant) -> Self {
        let wall_start = SystemTime::now()
            .checked_sub(started.elapsed())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Self {
            drive,
            started,
            wall_start,
            pel_context: None,
        }
    }

    /// Log 0Dh within its reporting context (LSP 1 takes the snapshot,
    /// LSP 2 drops it, LSP 0 reads it).
    fn pel(&mut self, lsp: u8, offset: u64, len: usize, t: f64) -> Vec<u8> {
        if lsp == nvme::PEL_ESTABLISH || self.pel_context.is_none() {
            let log = depth::persistent_event_log(self.drive.model, self.wall_start, t);
            self.pel_context = Some(log);
        }
        let log = self.pel_context.as_deref().unwrap_or_default();
        let bytes = pel_window(log, lsp, offset, len);
        if lsp == nvme::PEL_RELEASE {
            self.pel_context = None;
        }
        bytes
    }
}

impl NvmeSource for DemoNvme {
    fn origin(&self) -> String {
        format!("demo:{}", self.drive.name)
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        let t = self.started.elapsed().as_secs_f64();
        let model = self.drive.model;
        let (health, ocp) = sim::nvme(model, t);
        let unsupported = || Err(FetchError::Unsupported(format!("{req}: not simulated")));
        match req {
            NvmeRequest::IdentifyController => Ok(pages::nvme_identify(&nvme_identity(model))),
            NvmeRequest::IdentifyNamespace { .. } => {
                // EUI64: the vendor's OUI, then the drive's number
                let eui64 = [0x00, 0x26, 0xB7, 0xDE, 0, 0, 0, model as u8 + 1];
                Ok(pages::nvme_identify_ns(eui64))
            }
            NvmeRequest::UuidList => unsupported(),
            NvmeRequest::EnduranceGroupList if depth::has_depth(model) => Ok(depth::group_list()),
            NvmeRequest::EnduranceGroupList => unsupported(),
            NvmeRequest::Log { lid: 0x02, .. } => Ok(pages::nvme_smart_log(&health)),
            NvmeRequest::Log { lid: 0xC0, .. } => match ocp {
                Some(o) => Ok(pages::ocp_smart_log(&o)),
                None => unsupported(),
            },
            NvmeRequest::Log { lid: 0x01, len, .. } => {
                Ok(pages::nvme_error_log(len / 64, health.error_entries as u64))
            }
            NvmeRequest::Log { lid: 0x06, .. } => {
                let result = if model == Model::Failing { 7 } else { 0 };
                Ok(pages::nvme_self_test_log(
                    result,
                    (health.power_on_hours as u64).saturating_sub(10),
                ))
            }
            NvmeRequest::Log { lid: 0x03, .. } => Ok(depth::fw_slots(model)),
            NvmeRequest::Log {
                lid: 0x09, lsi: 1, ..
            } if depth::has_depth(model) => Ok(depth::endurance_group(&health, ocp.as_ref())),
            NvmeRequest::Log { lid: 0x08, .. } if depth::has_depth(model) => {
                Ok(depth::telemetry(model, t))
            }
            NvmeRequest::Log {
                lid: 0x0D,
                lsp,
                offset,
                len,
                ..
            } if depth::has_depth(model) => Ok(self.pel(lsp, offset, len, t)),
            NvmeRequest::Log { .. } => unsupported(),
        }
    }

    fn pcie(
        &mut self,
    ) -> Option<(
        crate::device::sysfs::pcie::Pcie,
        Vec<crate::device::sysfs::pcie::AerError>,
    )> {
        let t = self.started.elapsed().as_secs_f64();
        pcie::pcie(self.drive.model, t).map(|p| (p, Vec::new()))
    }
}

/// The simulated SATA drive (DC600M-like).
pub struct DemoSata {
    drive: DemoDrive,
    started: Instant,
}

impl DemoSata {
    pub fn new(drive: DemoDrive, started: Instant) -> Self {
        Self { drive, started }
    }
}

impl AtaSource for DemoSata {
    fn origin(&self) -> String {
        format!("demo:{}", self.drive.name)
    }

    fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError> {
        let t = self.started.elapsed().as_secs_f64();
        let devstat = sim::dc600m_devstat(t);
        Ok(match req {
            AtaRead::Identify => ata::ata_identify(&AtaIdentity {
                serial: "DEMO0000000000000004",
                model: "KINGSTON SEDC600M960G",
                firmware: "SCEKH5.1",
                sectors: 1_875_385_008,
                wwn: 0x5002_6B78_DE00_0004,
            }),
            AtaRead::SmartData => ata::ata_smart_data(&sim::dc600m_attributes(t)),
            AtaRead::SmartThresholds => ata::ata_smart_thresholds(&sim::dc600m_attributes(t)),
            AtaRead::SelfTestLog => ata::ata_self_test_log(0, 17_500),
            AtaRead::ErrorLog => ata::ata_error_log(0),
            AtaRead::DevStat { page: 0 } => {
                let mut list = vec![0];
                list.extend(devstat.iter().map(|(n, _)| *n));
                ata::ata_devstat_list(&list)
            }
            AtaRead::DevStat { page } => match devstat.iter().find(|(n, _)| *n == page) {
                Some((n, stats)) => ata::ata_devstat_page(*n, stats),
                None => {
                    return Err(FetchError::Unsupported(format!("{req}: not simulated")));
                }
            },
        })
    }

    fn smart_status(&mut self) -> Result<SmartStatus, FetchError> {
        Ok(SmartStatus::Passed)
    }

    fn power_mode(&mut self) -> Result<PowerMode, FetchError> {
        Ok(PowerMode::ActiveOrIdle)
    }
}

#[cfg(test)]
mod tests;
