//! Where page bytes come from: a live controller through the exporter's own
//! ioctls, or a replay folder. Both answer the same requests with the same
//! raw bytes, so everything after this layer (decoding, readings, metrics) is
//! shared by live and replayed drives.

pub mod channel;
pub mod demo;
pub mod discovery;
pub mod megaraid_live;
pub mod nvme_live;
pub mod replay;
pub mod sata_live;
pub mod scsi_live;
pub mod sysfs;
pub mod usb_live;

use std::fmt;

use thiserror::Error;

use crate::ata::{PowerMode, smart::SmartStatus};
pub use crate::scsi::ScsiRequest;

/// A request for one NVMe page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NvmeRequest {
    /// Identify Controller (CNS 01h), 4096 bytes.
    IdentifyController,
    /// Identify UUID List (CNS 17h), 4096 bytes.
    UuidList,
    /// Identify Namespace (CNS 00h) for `nsid`, 4096 bytes.
    IdentifyNamespace { nsid: u32 },
    /// Identify Endurance Group List (CNS 19h), 4096 bytes.
    EnduranceGroupList,
    /// Get Log Page `lid`, `len` bytes from byte `offset` (LPO), with a
    /// UUID index (0 = none), a Log Specific Parameter (`lsp`), a Log
    /// Specific Identifier (`lsi`: the endurance group of log 09h) and
    /// Retain Asynchronous Event (`rae`: the read does not clear the event
    /// the page belongs to). [`NvmeRequest::log`] gives the usual request.
    Log {
        lid: u8,
        len: usize,
        uuid_index: u8,
        lsp: u8,
        lsi: u16,
        offset: u64,
        rae: bool,
    },
}

impl NvmeRequest {
    /// Log page `lid`, `len` bytes from its start, nothing else set.
    pub const fn log(lid: u8, len: usize) -> Self {
        Self::Log {
            lid,
            len,
            uuid_index: 0,
            lsp: 0,
            lsi: 0,
            offset: 0,
            rae: false,
        }
    }
}

impl fmt::Display for NvmeRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::IdentifyController => f.write_str("identify controller"),
            Self::UuidList => f.write_str("identify uuid list"),
            Self::IdentifyNamespace { nsid } => write!(f, "identify namespace {nsid}"),
            Self::EnduranceGroupList => f.write_str("identify endurance group list"),
            Self::Log {
                lid,
                lsp,
                lsi,
                offset,
                ..
            } => {
                write!(f, "log page {lid:02x}h")?;
                if *lsi != 0 {
                    write!(f, " (group {lsi})")?;
                }
                if *lsp != 0 {
                    write!(f, " lsp {lsp}")?;
                }
                if *offset != 0 {
                    write!(f, " at offset {offset}")?;
                }
                Ok(())
            }
        }
    }
}

/// A self-test command: start a short or an extended one, or abort the one
/// in progress. The only commands a source sends that change what a drive
/// does, and only when `selftest.schedule` asks for them; each transport's
/// frame is in `nvme::self_test_command`, `ata::offline` and
/// `scsi::diagnostic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelfTestOp {
    Short,
    Extended,
    Abort,
}

impl fmt::Display for SelfTestOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Short => "short self-test",
            Self::Extended => "extended self-test",
            Self::Abort => "self-test abort",
        })
    }
}

/// What a source without self-tests (a replay, the demo) answers.
fn no_self_test(origin: String, op: SelfTestOp) -> FetchError {
    FetchError::Unsupported(format!("{op} on {origin}: not a live drive"))
}

/// Why a page could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FetchError {
    /// The drive does not support this page (an NVMe "invalid field / log
    /// page / opcode" status, or a replay folder without the file). Not a
    /// failure: remembered, logged once, never counted as an error.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The device is gone (ENODEV / ENOENT / ENXIO): removed or hot-unplugged.
    #[error("device gone: {0}")]
    Gone(String),
    /// The exporter may not do this (EPERM, EACCES: no CAP_SYS_ADMIN or
    /// CAP_SYS_RAWIO, or no access to the node). The pollers then serve what
    /// sysfs gives ([`crate::poll::unprivileged`]).
    #[error("{0}")]
    Denied(String),
    /// Anything else: an errno, an NVMe error status, a timeout, a short read.
    #[error("{0}")]
    Failed(String),
}

impl FetchError {
    /// An errno from `what` on `path`: a vanished device is `Gone`, a
    /// permission error names the capability the transport needs.
    pub fn from_os(
        what: &str,
        path: &std::path::Path,
        e: std::io::Error,
        capability: &str,
    ) -> Self {
        let path = path.display();
        match e.raw_os_error() {
            Some(libc::ENODEV | libc::ENOENT | libc::ENXIO) => {
                Self::Gone(format!("{what} {path}: {e}"))
            }
            Some(libc::EPERM | libc::EACCES) => Self::Denied(format!(
                "{what} {path}: permission denied (needs {capability}; see systemd/ssd_exporter.service; in a container, the device must also be granted to it: deploy/README.md)"
            )),
            _ => Self::Failed(format!("{what} {path}: {e}")),
        }
    }

    /// The error of an `SG_IO` command that failed below the device (it
    /// did not reach it, or did not complete); `None` when it reached the
    /// device, whose status and sense then say how it went. Shared by the
    /// ATA pass-through and the SCSI sources.
    pub fn from_sg_transport(
        what: &str,
        path: &std::path::Path,
        out: &crate::sys::sg::SgOutcome,
    ) -> Option<Self> {
        use crate::sys::sg::TransportFailure;
        let failure = out.transport_failure()?;
        let msg = format!(
            "{what} on {}: transport error (host status {:#x}, driver status {:#x})",
            path.display(),
            out.host_status,
            out.driver_status
        );
        Some(match failure {
            TransportFailure::Gone => Self::Gone(msg),
            TransportFailure::Failed => Self::Failed(msg),
        })
    }
}

/// Something that answers NVMe page requests with raw bytes.
pub trait NvmeSource: Send {
    /// Human-readable origin, used in log lines (`/dev/nvme0`, a folder).
    fn origin(&self) -> String;
    /// The raw bytes of `req`, exactly as the device returned them.
    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError>;
    /// The PCIe link and AER counters of the controller polled now (sysfs),
    /// and the AER files that did not parse; `None` where there is no PCI
    /// function (a fabric, a replay, the demo).
    fn pcie(&mut self) -> Option<(sysfs::pcie::Pcie, Vec<sysfs::pcie::AerError>)> {
        None
    }
    /// What the kernel's hwmon driver reports for the controller (read only
    /// when the exporter may not read the drive's pages itself).
    fn hwmon(&mut self) -> Option<sysfs::hwmon::Temps> {
        None
    }
    /// Sends Device Self-test `op` (no data).
    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(no_self_test(self.origin(), op))
    }
}

/// A request for one ATA data-in page (512 bytes each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtaRead {
    /// IDENTIFY DEVICE.
    Identify,
    /// SMART READ DATA (attribute values).
    SmartData,
    /// SMART READ THRESHOLDS.
    SmartThresholds,
    /// SMART self-test log (SMART READ LOG, address 06h).
    SelfTestLog,
    /// SMART summary error log (SMART READ LOG, address 01h).
    ErrorLog,
    /// Device Statistics log (04h) page `page` (00h = the list).
    DevStat { page: u8 },
}

impl fmt::Display for AtaRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Identify => f.write_str("identify device"),
            Self::SmartData => f.write_str("smart read data"),
            Self::SmartThresholds => f.write_str("smart read thresholds"),
            Self::SelfTestLog => f.write_str("smart self-test log"),
            Self::ErrorLog => f.write_str("smart error log"),
            Self::DevStat { page } => write!(f, "device statistics page {page:02x}h"),
        }
    }
}

/// Something that answers ATA requests: a SATA disk through SG_IO, or a
/// replay folder.
pub trait AtaSource: Send {
    /// Human-readable origin for log lines (`/dev/sda`, a folder).
    fn origin(&self) -> String;
    /// The raw 512 bytes of `req`.
    fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError>;
    /// SMART RETURN STATUS.
    fn smart_status(&mut self) -> Result<SmartStatus, FetchError>;
    /// CHECK POWER MODE (never wakes the drive).
    fn power_mode(&mut self) -> Result<PowerMode, FetchError>;
    /// What the drivetemp hwmon driver reports (read only when the
    /// exporter may not read the drive's pages itself).
    fn hwmon(&mut self) -> Option<sysfs::hwmon::Temps> {
        None
    }
    /// Sends SMART EXECUTE OFF-LINE IMMEDIATE for `op`.
    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(no_self_test(self.origin(), op))
    }
}

/// Something that answers SCSI requests with the bytes the device
/// returned: a SAS or SCSI disk through SG_IO, a replay folder, the demo.
pub trait ScsiSource: Send {
    /// Human-readable origin for log lines (`/dev/sdb`, a folder).
    fn origin(&self) -> String;
    /// The answer to `req`, as long as the answer says it is (no padding).
    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError>;
    /// `(phy identifier, bits per second)` of the SAS link through which
    /// the kernel's SAS transport class attaches the disk (sysfs); empty
    /// where there is none (not SAS, a replay, the demo).
    fn sas_links(&mut self) -> Vec<(u8, u64)> {
        Vec::new()
    }
    /// Sends SEND DIAGNOSTIC with the background self-test code for `op`.
    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(no_self_test(self.origin(), op))
    }
}

#[cfg(test)]
mod tests;
