//! A live NVMe controller, read through the exporter's own admin passthrough.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// An NVMe controller character device (`/dev/nvmeN`).
#[derive(Debug)]
pub struct NvmeLive {
    path: PathBuf,
    ctrl: Option<Controller>,
    timeout: Duration,
}

impl NvmeLive {
    /// A source for `path`; the device is opened on first use and reopened
    /// after it failed, so a drive that comes back is picked up again.
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self {
            path: path.to_path_buf(),
            ctrl: None,
            timeout,
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
}

impl NvmeSource for NvmeLive {
    fn origin(&self) -> String {
        self.path.display().to_string()
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        let (cmd, len) = command_for(req);
        let mut buf = vec![0u8; len];
        let timeout = self.timeout;
        let result = self.controller()?.admin_read(&cmd, &mut buf, timeout);
        match result {
            Ok(_) => Ok(buf),
            Err(AdminError::Status(raw)) => {
                let status = NvmeStatus::from_ioctl_result(raw);
                let msg = format!("{req} on {}: {status}", self.path.display());
                if status.is_unsupported() {
                    Err(FetchError::Unsupported(msg))
                } else {
                    Err(FetchError::Failed(msg))
                }
            }
            Err(AdminError::Os(e)) => {
                // Drop the handle: the next fetch reopens, which also tells a
                // vanished controller (ENOENT) from a transient error.
                self.ctrl = None;
                Err(self.os_error(&req.to_string(), e))
            }
        }
    }
}

#[cfg(test)]
mod tests;
