//! NVMe admin passthrough: `NVME_IOCTL_ADMIN_CMD` on a controller's
//! character device (`/dev/nvmeN`).
//!
//! Linux returns a negative errno when the command could not be issued, 0 on
//! success and a *positive NVMe status field* when the controller completed
//! the command with an error (`drivers/nvme/host/ioctl.c`). The latter is
//! passed up undecoded as [`AdminError::Status`]; `crate::nvme::status`
//! decodes it.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `struct nvme_admin_cmd` from `<linux/nvme_ioctl.h>` (identical to
/// `struct nvme_passthru_cmd`), field names as the kernel spells them.
#[repr(C)]
#[derive(Debug, Default)]
#[allow(non_camel_case_types)]
struct nvme_admin_cmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

const _: () = assert!(std::mem::size_of::<nvme_admin_cmd>() == 72);

// NVME_IOCTL_ADMIN_CMD = _IOWR('N', 0x41, struct nvme_admin_cmd) = 0xC0484E41.
nix::ioctl_readwrite!(nvme_ioctl_admin_cmd, b'N', 0x41, nvme_admin_cmd);

/// A data-in admin command: opcode, NSID and CDW10..CDW15. The data buffer
/// and its length are supplied separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdminCommand {
    pub opcode: u8,
    pub nsid: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
}

/// Why an admin command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The kernel refused or could not issue the command (errno).
    #[error("{0}")]
    Os(#[source] io::Error),
    /// The controller completed the command with this NVMe status field
    /// (status code type bits 10:8, status code bits 7:0, DNR bit 14).
    #[error("nvme status {0:#x}")]
    Status(u32),
}

/// An open NVMe controller character device.
#[derive(Debug)]
pub struct Controller {
    file: File,
    path: PathBuf,
}

impl Controller {
    /// Opens `/dev/nvmeN` read-only; admin passthrough does not need write
    /// access, only `CAP_SYS_ADMIN` for anything beyond some Identify CNS.
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Issues `cmd`, letting the controller write up to `buf.len()` bytes into
    /// `buf`. `timeout` is always explicit: 0 would mean the kernel default
    /// of 60 s, far longer than a poll's deadline.
    pub fn admin_read(
        &self,
        cmd: &AdminCommand,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<u32, AdminError> {
        let data_len = u32::try_from(buf.len())
            .map_err(|_| AdminError::Os(io::Error::from(io::ErrorKind::InvalidInput)))?;
        let timeout_ms = u32::try_from(timeout.as_millis())
            .unwrap_or(u32::MAX)
            .max(1);
        let mut raw = nvme_admin_cmd {
            opcode: cmd.opcode,
            nsid: cmd.nsid,
            addr: buf.as_mut_ptr() as u64,
            data_len,
            cdw10: cmd.cdw10,
            cdw11: cmd.cdw11,
            cdw12: cmd.cdw12,
            cdw13: cmd.cdw13,
            cdw14: cmd.cdw14,
            cdw15: cmd.cdw15,
            timeout_ms,
            ..Default::default()
        };
        // SAFETY: `raw` is a properly laid out `nvme_admin_cmd` passed by
        // `&mut` because the kernel writes `result` back into it. `addr`
        // points to `buf`, which is valid for writes of `data_len` bytes and
        // outlives the ioctl (the call is synchronous). No metadata buffer is
        // passed (metadata_len 0).
        let ret = unsafe { nvme_ioctl_admin_cmd(self.file.as_raw_fd(), &mut raw) };
        match ret {
            Ok(0) => Ok(raw.result),
            Ok(status) => Err(AdminError::Status(status as u32)),
            Err(errno) => Err(AdminError::Os(io::Error::from(errno))),
        }
    }
}

#[cfg(test)]
mod tests;
