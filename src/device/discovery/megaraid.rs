//! Physical drives behind MegaRAID controllers, found as smartmontools
//! finds them (`os_linux.cpp`, `get_dev_megasas`): the SCSI hosts whose
//! `proc_name` is `megaraid_sas` (`<sysfs>/class/scsi_host/hostN`), the
//! management node `<dev>/megaraid_sas_ioctl_node` (made from the
//! `megaraid_sas_ioctl` character major in `/proc/devices` when absent, as
//! the driver makes none), and each controller's physical drive list
//! (`MR_DCMD_PD_GET_LIST`). Only disks (SCSI peripheral type 0) are kept.
//! The parsers here are pure; [`crate::device::megaraid_live::discover`]
//! does the I/O.

use std::path::{Path, PathBuf};

use zerocopy::FromBytes;

use crate::device::sysfs::place::Place;
use crate::sys::megaraid::frame::{MR_PD_ADDRESS, MR_PD_LIST};

/// The driver's name in `scsi_host/hostN/proc_name`.
pub const PROC_NAME: &str = "megaraid_sas";
/// The management node's file name under `path.dev`.
pub const IOCTL_NODE: &str = "megaraid_sas_ioctl_node";
/// The character device's name in `/proc/devices`.
const CHAR_NAME: &str = "megaraid_sas_ioctl";
/// SCSI peripheral device type of a disk (SPC-5 table 6).
const TYPE_DISK: u8 = 0x00;
/// `MR_DCMD_PD_GET_LIST` answers at most `MEGASAS_MAX_PD` (256) drives of
/// 24 bytes after an 8-byte header; a larger `size` is not believed.
pub const MAX_PD_LIST_BYTES: usize = 8 + 256 * 24;

/// One physical drive in a controller's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pd {
    /// The SCSI host number of the controller (`hostN`).
    pub host_no: u16,
    /// `deviceId`: the drive's device ID, which [`Numbering`] turns into
    /// the pass-through frame's target and LUN.
    pub device_id: u16,
    /// `enclDeviceId`, `None` for FFFFh (no enclosure).
    pub enclosure: Option<u16>,
    /// `slotNumber`
    pub slot: u8,
    /// `sasAddr[0]`, the drive's SAS address on its first path; `None` for
    /// zero (not reported).
    pub sas_address: Option<u64>,
}

impl Pd {
    /// The `device` label: `megaraid<host>-pd<device id>`.
    pub fn name(&self) -> String {
        format!("megaraid{}-pd{}", self.host_no, self.device_id)
    }

    /// Where the controller says the drive sits, as `ssd_device_info`'s
    /// labels: `enclosure` and `slot` as storcli names them
    /// (`/c0/e<enclosure>/s<slot>`), `sas_address` as sysfs writes one
    /// (`0x` and 16 hex digits).
    pub fn place(&self) -> Place {
        Place {
            slot: self.slot.to_string(),
            enclosure: self.enclosure.map(|e| e.to_string()).unwrap_or_default(),
            sas_address: self
                .sas_address
                .map(|a| format!("{a:#018x}"))
                .unwrap_or_default(),
            ..Place::default()
        }
    }
}

/// How a controller numbers the drives of its list, which decides the
/// pass-through frame's `target_id` and `lun` for a device ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// Every device ID is below 256, the frame's `target_id` (LUN 0), as
    /// smartctl's `-d megaraid,N` sends it. The kernel's driver keeps a
    /// controller's drives in a table of `MEGASAS_MAX_PD` (256) entries
    /// indexed by device ID (`megasas_get_pd_list`), so real firmware lists
    /// no larger ID.
    Flat,
    /// Some device ID is 256 or more: the list numbers drives
    /// `(target << 8) | lun`, as QEMU's MegaRAID emulation does
    /// (`hw/scsi/megasas.c`, `megasas_dcmd_pd_get_list`), whose
    /// pass-through addresses the frame's `target_id` and `lun_id`
    /// (`megasas_handle_scsi`). Truncating such an ID to 8 bits would reach
    /// another drive under this one's name.
    TargetLun,
}

impl Numbering {
    /// The numbering of a controller whose list is `drives`.
    pub fn of(drives: &[Pd]) -> Self {
        if drives.iter().any(|d| d.device_id > 0xFF) {
            Self::TargetLun
        } else {
            Self::Flat
        }
    }

    /// The pass-through's `(target_id, lun)` for `device_id`.
    pub fn address(self, device_id: u16) -> (u8, u8) {
        let [high, low] = device_id.to_be_bytes();
        match self {
            // `of` chose Flat only when every ID fits in 8 bits.
            Self::Flat => (low, 0),
            Self::TargetLun => (high, low),
        }
    }
}

/// Where the pass-through reaches a drive: controller, target ID and LUN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdAddress {
    pub host_no: u16,
    pub target_id: u8,
    pub lun: u8,
}

/// What an `MR_DCMD_PD_GET_LIST` answer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdList {
    /// The whole list: its disks, in the firmware's order.
    Complete(Vec<Pd>),
    /// The buffer was short: the list needs this many bytes.
    Needs(usize),
}

/// Decodes an `MR_DCMD_PD_GET_LIST` answer (`struct MR_PD_LIST`: `size`
/// at 00h, `count` at 04h, then `count` `MR_PD_ADDRESS` of 24 bytes) read
/// into `buf`, for the controller `host_no`. `Err` for a list that
/// contradicts itself or exceeds [`MAX_PD_LIST_BYTES`].
pub fn parse_pd_list(host_no: u16, buf: &[u8]) -> Result<PdList, String> {
    let (head, rest) =
        MR_PD_LIST::read_from_prefix(buf).map_err(|_| format!("{} bytes, no header", buf.len()))?;
    let (size, count) = (head.size.get() as usize, head.count.get() as usize);
    let needed = count
        .checked_mul(size_of::<MR_PD_ADDRESS>())
        .and_then(|n| n.checked_add(size_of::<MR_PD_LIST>()))
        .filter(|&n| n <= MAX_PD_LIST_BYTES)
        .ok_or_else(|| format!("{count} drives: more than the 256 a controller has"))?;
    if size > MAX_PD_LIST_BYTES {
        return Err(format!("list size {size}: more than {MAX_PD_LIST_BYTES}"));
    }
    if size > buf.len() || needed > buf.len() {
        return Ok(PdList::Needs(size.max(needed)));
    }
    let drives = rest
        .chunks_exact(size_of::<MR_PD_ADDRESS>())
        .take(count)
        .filter_map(|b| MR_PD_ADDRESS::read_from_bytes(b).ok())
        .filter(|a| a.scsiDevType == TYPE_DISK)
        .map(|a| Pd {
            host_no,
            device_id: a.deviceId.get(),
            enclosure: Some(a.enclDeviceId.get()).filter(|&e| e != 0xFFFF),
            slot: a.slotNumber,
            sas_address: Some(a.sasAddr[0].get()).filter(|&s| s != 0),
        })
        .collect();
    Ok(PdList::Complete(drives))
}

/// The major of the `megaraid_sas_ioctl` character device in the text of
/// `/proc/devices` (its "Character devices:" section).
pub fn ioctl_major(proc_devices: &str) -> Option<u32> {
    proc_devices
        .lines()
        .skip_while(|l| l.trim() != "Character devices:")
        .take_while(|l| l.trim() != "Block devices:")
        .find_map(|l| {
            let mut parts = l.split_whitespace();
            let major = parts.next()?.parse().ok()?;
            (parts.next()? == CHAR_NAME && parts.next().is_none()).then_some(major)
        })
}

/// The host numbers of the SCSI hosts driven by `megaraid_sas`, sorted.
pub fn hosts(sysfs: &Path) -> Vec<u16> {
    let Ok(entries) = std::fs::read_dir(sysfs.join("class/scsi_host")) else {
        return Vec::new();
    };
    let mut found: Vec<u16> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let n = name.to_str()?.strip_prefix("host")?.parse().ok()?;
            let proc_name = std::fs::read_to_string(e.path().join("proc_name")).ok()?;
            (proc_name.trim() == PROC_NAME).then_some(n)
        })
        .collect();
    found.sort_unstable();
    found
}

/// The management node under `dev`.
pub fn node(dev: &Path) -> PathBuf {
    dev.join(IOCTL_NODE)
}

#[cfg(test)]
mod tests;
