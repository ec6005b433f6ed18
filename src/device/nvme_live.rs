//! A live NVMe controller, read through the exporter's own admin
//! passthrough; for a multipath drive, one live controller of its
//! subsystem at a time, failing over to another when the one polled is not
//! `live` (sysfs `state`) or its commands fail on the path (the node went:
//! ENODEV, ENXIO, ENOENT; another errno; a Path Related Status).

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tracing::warn;

use super::sysfs::hwmon::{self, Temps};
use super::sysfs::pcie::{AerError, Pcie, PcieWatch};
use super::{FetchError, NvmeRequest, NvmeSource};
use crate::nvme::NvmeStatus;
use crate::sys::nvme::{AdminCommand, AdminError, Controller};

const OPC_GET_LOG_PAGE: u8 = 0x02;
const OPC_IDENTIFY: u8 = 0x06;
const CNS_NAMESPACE: u32 = 0x00;
const CNS_CONTROLLER: u32 = 0x01;
const CNS_UUID_LIST: u32 = 0x17;
const CNS_ENDURANCE_GROUP_LIST: u32 = 0x19;
/// Controller-wide log pages are read for all namespaces.
const NSID_ALL: u32 = 0xFFFF_FFFF;
const IDENTIFY_LEN: usize = 4096;

/// The NSID a log page is read with: 0 for the telemetry and endurance
/// group logs, as libnvme's `nvme_init_get_log_telemetry_ctrl` and
/// `nvme_init_get_log_endurance_group` send them; FFFFFFFFh for the rest.
fn log_nsid(lid: u8) -> u32 {
    match lid {
        crate::nvme::LID_TELEMETRY_CTRL | crate::nvme::LID_ENDURANCE_GROUP => 0,
        _ => NSID_ALL,
    }
}

/// The admin command and buffer length for `req`.
///
/// Get Log Page (NVMe Base 2.0 §5.16): CDW10 = LID\[7:0\] | LSP\[14:8\] |
/// RAE\[15\] | NUMDL\[31:16\], CDW11 = NUMDU\[15:0\] | LSI\[31:16\],
/// CDW12/CDW13 = LPO low/high, CDW14 = UUID index\[6:0\]; NUMD = dwords − 1.
pub fn command_for(req: NvmeRequest) -> (AdminCommand, usize) {
    let mut cmd = AdminCommand {
        opcode: OPC_IDENTIFY,
        nsid: 0,
        cdw10: 0,
        cdw11: 0,
        cdw12: 0,
        cdw13: 0,
        cdw14: 0,
        cdw15: 0,
    };
    match req {
        NvmeRequest::IdentifyController => {
            cmd.cdw10 = CNS_CONTROLLER;
            (cmd, IDENTIFY_LEN)
        }
        NvmeRequest::UuidList => {
            cmd.cdw10 = CNS_UUID_LIST;
            (cmd, IDENTIFY_LEN)
        }
        NvmeRequest::IdentifyNamespace { nsid } => {
            cmd.cdw10 = CNS_NAMESPACE;
            cmd.nsid = nsid;
            (cmd, IDENTIFY_LEN)
        }
        NvmeRequest::EnduranceGroupList => {
            // CDW11 bits 15:0: list the groups from identifier 0 on
            cmd.cdw10 = CNS_ENDURANCE_GROUP_LIST;
            (cmd, IDENTIFY_LEN)
        }
        NvmeRequest::Log {
            lid,
            len,
            uuid_index,
            lsp,
            lsi,
            offset,
            rae,
        } => {
            let numd = (len / 4).saturating_sub(1) as u32;
            cmd.opcode = OPC_GET_LOG_PAGE;
            cmd.nsid = log_nsid(lid);
            cmd.cdw10 = u32::from(lid)
                | (u32::from(lsp & 0x7F) << 8)
                | (u32::from(rae) << 15)
                | ((numd & 0xFFFF) << 16);
            cmd.cdw11 = (numd >> 16) | (u32::from(lsi) << 16);
            cmd.cdw12 = offset as u32;
            cmd.cdw13 = (offset >> 32) as u32;
            cmd.cdw14 = u32::from(uuid_index & 0x7F);
            (cmd, len)
        }
    }
}

/// An NVMe controller character device (`/dev/nvmeN`), or a multipath
/// drive's controllers, one at a time.
#[derive(Debug)]
pub struct NvmeLive {
    /// The controller polled now.
    path: PathBuf,
    /// Its sysfs folder (`<sysfs>/class/nvme/nvmeN`): its state, PCIe link
    /// and hwmon; `None` for `dump` and tests, which read no sysfs.
    sysfs: Option<PathBuf>,
    /// A multipath drive: where its other controllers are found.
    multipath: Option<Paths>,
    ctrl: Option<Controller>,
    timeout: Duration,
    /// The PCI function's link and AER files, held open between polls;
    /// `None` until the first poll reads them, and after they stop reading.
    pcie: Option<PcieWatch>,
}

/// The PCIe maxima (the function's and its port's), and AER files that
/// were absent, are read again every this many polls; the current link and
/// the AER counters every poll.
const PCIE_MAXIMA_EVERY: u64 = 10;

/// The controllers of a multipath drive, read from its subsystem's folder
/// when it fails over, so a controller that came later is one to fail over to.
#[derive(Debug, Clone)]
struct Paths {
    /// `<sysfs>/class/nvme-subsystem/nvme-subsysN`: links `nvmeM` to its
    /// controllers.
    subsystem: PathBuf,
    /// Where their nodes are (`/dev`).
    dev: PathBuf,
}

impl NvmeLive {
    /// A source for `path`; the device is opened on first use and reopened
    /// after it failed, so a drive that comes back is picked up again.
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self {
            path: path.to_path_buf(),
            sysfs: None,
            multipath: None,
            ctrl: None,
            timeout,
            pcie: None,
        }
    }

    /// A discovered drive's source: polled through `first`, which sysfs
    /// describes at `sysfs`; with `subsystem`, a multipath drive that fails
    /// over to another live controller of that subsystem.
    pub fn for_drive(
        first: &Path,
        sysfs: &Path,
        subsystem: Option<&Path>,
        timeout: Duration,
    ) -> Self {
        let dev = first.parent().unwrap_or(Path::new("/dev")).to_path_buf();
        Self {
            sysfs: Some(sysfs.to_path_buf()),
            multipath: subsystem.map(|s| Paths {
                subsystem: s.to_path_buf(),
                dev,
            }),
            ..Self::new(first, timeout)
        }
    }

    fn controller(&mut self) -> Result<&Controller, FetchError> {
        if self.ctrl.is_none() {
            let ctrl = Controller::open(&self.path).map_err(|e| self.os_error("open", e))?;
            self.ctrl = Some(ctrl);
        }
        Ok(self.ctrl.as_ref().expect("just opened"))
    }

    fn os_error(&self, what: &str, e: io::Error) -> FetchError {
        FetchError::from_os(what, &self.path, e, "CAP_SYS_ADMIN")
    }

    /// One try on the controller polled now; the bool says whether the
    /// failure is the path's (the node or the controller went, a path
    /// related status), so another controller may answer.
    fn fetch_once(&mut self, req: NvmeRequest) -> Result<Vec<u8>, (FetchError, bool)> {
        let (cmd, len) = command_for(req);
        let mut buf = vec![0u8; len];
        let timeout = self.timeout;
        let result = match self.controller() {
            Ok(c) => c.admin_read(&cmd, &mut buf, timeout),
            Err(e) => {
                let path_failure = !matches!(e, FetchError::Denied(_));
                return Err((e, path_failure));
            }
        };
        match result {
            Ok(_) => Ok(buf),
            Err(AdminError::Status(raw)) => {
                let status = NvmeStatus::from_ioctl_result(raw);
                let msg = format!("{req} on {}: {status}", self.path.display());
                if status.is_unsupported() {
                    Err((FetchError::Unsupported(msg), false))
                } else {
                    Err((FetchError::Failed(msg), status.sct == SCT_PATH))
                }
            }
            Err(AdminError::Os(e)) => {
                // Drop the handle: the next fetch reopens, which also tells a
                // vanished controller (ENOENT) from a transient error.
                self.ctrl = None;
                let e = self.os_error(&req.to_string(), e);
                let path_failure = !matches!(e, FetchError::Denied(_));
                Err((e, path_failure))
            }
        }
    }

    /// The controllers of a multipath drive whose `state` is `live` and
    /// whose node exists, other than the one polled now, in natural order.
    fn live_others(&self) -> Vec<(PathBuf, PathBuf)> {
        let Some(m) = &self.multipath else {
            return Vec::new();
        };
        let mut names: Vec<String> = std::fs::read_dir(&m.subsystem)
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| super::discovery::nvme::is_controller_name(n))
                    .collect()
            })
            .unwrap_or_default();
        names.sort_by_key(|n| n[4..].parse::<u64>().unwrap_or(u64::MAX));
        names
            .into_iter()
            .map(|n| (m.dev.join(&n), m.subsystem.join(&n)))
            .filter(|(node, dir)| *node != self.path && node.exists() && is_live(dir))
            .collect()
    }

    /// Moves to another live controller; false when there is none.
    fn fail_over(&mut self, why: &str) -> bool {
        let Some((node, dir)) = self.live_others().into_iter().next() else {
            return false;
        };
        warn!(
            from = %self.path.display(),
            to = %node.display(),
            "multipath drive: failing over to another live controller ({why})"
        );
        self.path = node;
        self.sysfs = Some(dir);
        self.ctrl = None;
        self.pcie = None;
        true
    }
}

/// Path Related Status (SCT 3h): the path failed, not the command.
const SCT_PATH: u8 = 3;

/// Whether the controller at `dir` is going away: its `state` says
/// `deleting`, `deleting (no IO)` or `dead`, or its folder is gone (a
/// hot-unplug under way). Not `resetting` or `connecting`: it comes back.
fn is_dying(dir: &Path) -> bool {
    match crate::device::sysfs::attr(dir, "state") {
        Some(s) => s.starts_with("deleting") || s == "dead",
        None => !dir.exists(),
    }
}

/// A command that failed on the path of a controller that is going away
/// (`dying`: the kernel answers Path Related Status while it deletes the
/// controller) is the device gone, so the poll stops there instead of
/// failing, and warning about, every page in turn.
fn gone_if_dying(e: FetchError, dying: bool) -> FetchError {
    match e {
        FetchError::Failed(msg) if dying => FetchError::Gone(msg),
        e => e,
    }
}

/// Whether the controller at `dir` says its `state` is `live` (a missing
/// attribute counts as live: there is nothing better to go on).
fn is_live(dir: &Path) -> bool {
    crate::device::sysfs::attr(dir, "state").is_none_or(|s| s == "live")
}

impl NvmeSource for NvmeLive {
    fn origin(&self) -> String {
        self.path.display().to_string()
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        // A multipath drive leaves a controller that is not live (resetting,
        // connecting, deleting) before its commands hang or fail on it.
        if self.multipath.is_some() {
            if let Some(dir) = self.sysfs.clone().filter(|d| !is_live(d)) {
                let state = crate::device::sysfs::attr(&dir, "state").unwrap_or_default();
                self.fail_over(&format!("{} is {state}", self.path.display()));
            }
        }
        let result = match self.fetch_once(req) {
            Err((e, true)) if self.multipath.is_some() && self.fail_over(&e.to_string()) => {
                self.fetch_once(req)
            }
            r => r,
        };
        // Asked only of a failure on the path: a poll that succeeds reads
        // no sysfs file.
        result.map_err(|(e, path_failure)| {
            let dying = path_failure && self.sysfs.as_deref().is_some_and(is_dying);
            gone_if_dying(e, dying)
        })
    }

    fn self_test(&mut self, op: super::SelfTestOp) -> Result<(), FetchError> {
        use crate::nvme::self_test_command as st;
        let stc = match op {
            super::SelfTestOp::Short => st::STC_SHORT,
            super::SelfTestOp::Extended => st::STC_EXTENDED,
            super::SelfTestOp::Abort => st::STC_ABORT,
        };
        let f = st::command(stc);
        let cmd = AdminCommand {
            opcode: f.opcode,
            nsid: f.nsid,
            cdw10: f.cdw10,
            cdw11: 0,
            cdw12: 0,
            cdw13: 0,
            cdw14: 0,
            cdw15: 0,
        };
        let timeout = self.timeout;
        let result = self.controller()?.admin_read(&cmd, &mut [], timeout);
        match result {
            Ok(_) => Ok(()),
            Err(AdminError::Status(raw)) => {
                let status = NvmeStatus::from_ioctl_result(raw);
                let msg = format!("{op} on {}: {status}", self.path.display());
                Err(if status.is_unsupported() {
                    FetchError::Unsupported(msg)
                } else {
                    FetchError::Failed(msg)
                })
            }
            Err(AdminError::Os(e)) => {
                self.ctrl = None;
                Err(self.os_error(&op.to_string(), e))
            }
        }
    }

    fn pcie(&mut self) -> Option<(Pcie, Vec<AerError>)> {
        if self.pcie.is_none() {
            let device = self.sysfs.as_ref()?.join("device");
            self.pcie = PcieWatch::resolve(&device, PCIE_MAXIMA_EVERY);
        }
        let read = self.pcie.as_mut()?.read();
        if read.is_none() {
            self.pcie = None;
        }
        read
    }

    fn hwmon(&mut self) -> Option<Temps> {
        hwmon::nvme(self.sysfs.as_ref()?)
    }
}

#[cfg(test)]
mod tests;
