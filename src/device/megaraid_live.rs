//! A physical drive behind a MegaRAID controller, reached with MFI
//! pass-through frames (`sys::megaraid`) on the driver's management node,
//! as `smartctl -d megaraid,N` reaches it: [`MegaraidChannel`] carries the
//! CDBs of the SCSI and SATA sources (`scsi_live`, `sata_live`) to one
//! drive, and [`pd_list`] asks a controller for its drives.
//!
//! What the driver gives back is the frame's MFI `cmd_status` and the sense
//! buffer, never the SCSI status or a residual count; [`completion`] turns
//! the two into a SCSI completion. The firmware returns no ATA registers
//! for an ATA PASS-THROUGH with CK_COND (smartmontools refuses such commands
//! on this path for that reason), so those are reported unsupported.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::FetchError;
use super::channel::{Channel, Completion, DataIn};
use super::discovery::megaraid::{self, MAX_PD_LIST_BYTES, Numbering, Pd, PdAddress, PdList};
use super::discovery::{Discovered, Filter, Kind, Transport};
use tracing::warn;

use crate::sys::megaraid::{dcmd_read, frame::MR_DCMD_PD_GET_LIST, pd_scsi_io};

/// `MFI_STAT_OK`: the command completed (for a SCSI command: GOOD).
pub const MFI_STAT_OK: u8 = 0x00;
/// `MFI_STAT_DEVICE_NOT_FOUND`: no drive with that device ID.
pub const MFI_STAT_DEVICE_NOT_FOUND: u8 = 0x0C;
/// `MFI_STAT_SCSI_DONE_WITH_ERROR`: the drive completed the command with a
/// status other than GOOD (the sense buffer then says why).
pub const MFI_STAT_SCSI_DONE_WITH_ERROR: u8 = 0x2D;
/// `MFI_STAT_SCSI_IO_FAILED`: the command did not complete at the drive.
pub const MFI_STAT_SCSI_IO_FAILED: u8 = 0x2E;
/// SAM status CHECK CONDITION.
const CHECK_CONDITION: u8 = 0x02;
/// What the ioctl needs (`megasas_mgmt_open`).
const CAPABILITY: &str = "CAP_SYS_ADMIN";
/// Why ATA commands with CK_COND are not sent.
const NO_ATA_REGISTERS: &str =
    "the MegaRAID firmware returns no ATA registers through its pass-through";

/// Why a command the driver accepted did not give a SCSI completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotCompleted {
    /// `MFI_STAT_DEVICE_NOT_FOUND`: the drive left the controller.
    Gone,
    /// Any other MFI status, or an error status without sense data.
    Failed(String),
}

/// The SCSI completion an MFI `cmd_status` and the returned `sense` make
/// of a command with `data_len` bytes of data-in. The driver does not say
/// how much data moved, so a completed command counts as a full transfer
/// (the sources check the answers' own lengths).
pub fn completion(
    cmd_status: u8,
    sense: &[u8],
    data_len: usize,
) -> Result<Completion, NotCompleted> {
    match cmd_status {
        MFI_STAT_OK => Ok(Completion {
            status: 0,
            sense_len: 0,
            transferred: data_len,
        }),
        // Fixed or descriptor sense (response code 70h–73h): a CHECK
        // CONDITION, which the source reads from the sense bytes.
        MFI_STAT_SCSI_DONE_WITH_ERROR
            if sense
                .first()
                .is_some_and(|b| (0x70..=0x73).contains(&(b & 0x7F))) =>
        {
            Ok(Completion {
                status: CHECK_CONDITION,
                sense_len: sense.len(),
                transferred: 0,
            })
        }
        MFI_STAT_SCSI_DONE_WITH_ERROR => Err(NotCompleted::Failed(
            "the drive returned an error status without sense data (MFI status 2Dh)".into(),
        )),
        MFI_STAT_DEVICE_NOT_FOUND => Err(NotCompleted::Gone),
        MFI_STAT_SCSI_IO_FAILED => Err(NotCompleted::Failed(
            "the command did not complete at the drive (MFI status 2Eh, SCSI I/O failed)".into(),
        )),
        s => Err(NotCompleted::Failed(format!("MFI status {s:02X}h"))),
    }
}

/// Opens the management node read-only: the ioctl needs CAP_SYS_ADMIN, not
/// write access, and every frame the exporter sends reads.
fn open(node: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Never through a symlink: `ensure_node` checked the node itself.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(node)
}

/// What is at the management node's path, against the major it must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeFound {
    Absent,
    /// A character device (not a symlink) with the driver's major.
    Right,
    /// Anything else, for people: "a regular file", "character device 1:3".
    Wrong(String),
}

/// Looks at `node` itself (a symlink is not followed): the driver's node
/// is a character device with `major` (`megaraid_sas_ioctl` in
/// `/proc/devices`).
pub fn inspect_node(node: &Path, major: u32) -> io::Result<NodeFound> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = match std::fs::symlink_metadata(node) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(NodeFound::Absent),
        Err(e) => return Err(e),
    };
    let t = meta.file_type();
    let (maj, min) = (
        nix::sys::stat::major(meta.rdev()),
        nix::sys::stat::minor(meta.rdev()),
    );
    Ok(match () {
        _ if t.is_char_device() && maj == u64::from(major) => NodeFound::Right,
        _ if t.is_char_device() => NodeFound::Wrong(format!("character device {maj}:{min}")),
        _ if t.is_symlink() => NodeFound::Wrong("a symlink".into()),
        _ if t.is_block_device() => NodeFound::Wrong(format!("block device {maj}:{min}")),
        _ if t.is_dir() => NodeFound::Wrong("a directory".into()),
        _ if t.is_file() => NodeFound::Wrong("a regular file".into()),
        _ => NodeFound::Wrong("a fifo or socket".into()),
    })
}

/// Makes sure the management `node` is the driver's, as smartctl makes it
/// and `systemd/megaraid/megaraid-node` checks it: a character device
/// (mode 0600) with the `megaraid_sas_ioctl` major from `proc_devices`
/// (`/proc/devices`) and minor 0. The driver registers the major but makes
/// no node. Anything else there (a stale node from before a driver reload,
/// a file, a symlink) is removed, logged, and the node made again. Needs
/// CAP_MKNOD unless the node is already right.
pub fn ensure_node(node: &Path, proc_devices: &Path) -> Result<(), String> {
    use nix::sys::stat::{Mode, SFlag, makedev, mknod};
    let text = std::fs::read_to_string(proc_devices)
        .map_err(|e| format!("read {}: {e}", proc_devices.display()))?;
    let major = megaraid::ioctl_major(&text).ok_or_else(|| {
        format!(
            "{} lists no megaraid_sas_ioctl device (is megaraid_sas loaded?)",
            proc_devices.display()
        )
    })?;
    let found = inspect_node(node, major).map_err(|e| format!("stat {}: {e}", node.display()))?;
    match found {
        NodeFound::Right => return Ok(()),
        NodeFound::Absent => {}
        NodeFound::Wrong(what) => {
            warn!(
                node = %node.display(),
                "{} is {what}, not the megaraid_sas character device {major}:0; removing it and making the node again",
                node.display()
            );
            let gone = match what.as_str() {
                "a directory" => std::fs::remove_dir(node),
                _ => std::fs::remove_file(node),
            };
            gone.map_err(|e| {
                format!(
                    "remove {} ({what}, not the driver's node): {e}; remove it by hand",
                    node.display()
                )
            })?;
        }
    }
    match mknod(
        node,
        SFlag::S_IFCHR,
        Mode::S_IRUSR | Mode::S_IWUSR,
        makedev(major.into(), 0),
    ) {
        Ok(()) => Ok(()),
        Err(e) => Err(format!(
            "make {} (character {major}:0): {e} (needs CAP_MKNOD, or make it beforehand: mknod -m 600 {} c {major} 0)",
            node.display(),
            node.display()
        )),
    }
}

/// The drives of controller `host_no`, asked through `node`: the list is
/// read into 1 KiB first and again into the size it says it needs.
pub fn pd_list(node: &Path, host_no: u16) -> Result<Vec<Pd>, FetchError> {
    let what = format!("MR_DCMD_PD_GET_LIST to host{host_no}");
    let file = open(node).map_err(|e| FetchError::from_os("open", node, e, CAPABILITY))?;
    let mut len = 1024;
    for _ in 0..2 {
        let mut buf = vec![0u8; len];
        let status = dcmd_read(&file, host_no, MR_DCMD_PD_GET_LIST, &mut buf)
            .map_err(|e| FetchError::from_os(&what, node, e, CAPABILITY))?;
        if status != MFI_STAT_OK {
            return Err(FetchError::Failed(format!(
                "{what} on {}: MFI status {status:02X}h",
                node.display()
            )));
        }
        match megaraid::parse_pd_list(host_no, &buf) {
            Ok(PdList::Complete(drives)) => return Ok(drives),
            Ok(PdList::Needs(n)) if n > len && n <= MAX_PD_LIST_BYTES => len = n,
            Ok(PdList::Needs(n)) => {
                return Err(FetchError::Failed(format!(
                    "{what} on {}: the list wants {n} bytes after {len}",
                    node.display()
                )));
            }
            Err(e) => {
                return Err(FetchError::Failed(format!(
                    "{what} on {}: {e}",
                    node.display()
                )));
            }
        }
    }
    Err(FetchError::Failed(format!(
        "{what} on {}: the list kept growing",
        node.display()
    )))
}

/// Problems already logged by [`discover`], so each is logged once, not
/// on every rescan.
static LOGGED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn warn_once(msg: String) {
    let mut logged = LOGGED.lock().unwrap_or_else(|e| e.into_inner());
    if logged.get_or_insert_with(HashSet::new).insert(msg.clone()) {
        warn!("megaraid: {msg}");
    }
}

/// The physical disks behind every `megaraid_sas` controller sysfs shows
/// that `filter` accepts (by `megaraid<host>-pd<id>`), each reached through
/// `<dev>/megaraid_sas_ioctl_node` (made from `/proc/devices` when
/// absent). A controller that cannot be asked is logged once and skipped.
/// Blocking: one DCMD per controller.
pub fn discover(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    let hosts = megaraid::hosts(sysfs);
    if hosts.is_empty() {
        return Vec::new();
    }
    let node = megaraid::node(dev);
    if let Err(e) = ensure_node(&node, Path::new("/proc/devices")) {
        warn_once(e);
        return Vec::new();
    }
    let mut found = Vec::new();
    for host_no in hosts {
        let drives = match pd_list(&node, host_no) {
            Ok(d) => d,
            Err(e) => {
                warn_once(format!("host{host_no}: {e}; its drives are not watched"));
                continue;
            }
        };
        let numbering = Numbering::of(&drives);
        if numbering == Numbering::TargetLun {
            warn_once(format!(
                "host{host_no}: the drive list has device IDs above 255, which real firmware does not list; \
                 addressing its drives as (target << 8) | LUN, the numbering of QEMU's MegaRAID emulation"
            ));
        }
        for pd in drives.into_iter().filter(|pd| filter.accepts(&pd.name())) {
            let (target_id, lun) = numbering.address(pd.device_id);
            let at = PdAddress {
                host_no,
                target_id,
                lun,
            };
            found.push(discovered(sysfs, &node, pd, at));
        }
    }
    found
}

/// A drive of the list, before its first poll: driven as ATA when IDENTIFY
/// through ATA PASS-THROUGH succeeds (a SATA drive behind the controller's
/// SAT layer), else as SCSI; never probed (no block device of its own).
fn discovered(sysfs: &Path, node: &Path, pd: Pd, at: PdAddress) -> Discovered {
    let place = match pd.enclosure {
        Some(e) => format!("enclosure {e} slot {}", pd.slot),
        None => format!("slot {}", pd.slot),
    };
    Discovered {
        name: pd.name(),
        transport: Transport::Sata,
        dev_path: node.to_path_buf(),
        model: String::new(),
        serial: String::new(),
        firmware: String::new(),
        namespaces: Vec::new(),
        kind: Kind::Physical,
        basis: format!(
            "drive {} ({place}, pass-through target {} LUN {}) behind MegaRAID controller host{}: ATA if IDENTIFY through ATA PASS-THROUGH succeeds, else SCSI",
            pd.device_id, at.target_id, at.lun, pd.host_no
        ),
        sysfs: sysfs.join(format!("class/scsi_host/host{}", pd.host_no)),
        megaraid: Some(at),
        place: pd.place(),
        paths: Vec::new(),
        subsystem: None,
        usb: None,
    }
}

/// CDBs to the physical drive at `at` (controller, target, LUN).
#[derive(Debug)]
pub struct MegaraidChannel {
    node: PathBuf,
    file: Option<File>,
    at: PdAddress,
    timeout: Duration,
}

impl MegaraidChannel {
    pub fn new(node: &Path, at: PdAddress, timeout: Duration) -> Self {
        Self {
            node: node.to_path_buf(),
            file: None,
            at,
            timeout,
        }
    }
}

impl Channel for MegaraidChannel {
    fn origin(&self) -> String {
        let at = self.at;
        let lun = if at.lun == 0 {
            String::new()
        } else {
            format!(" LUN {}", at.lun)
        };
        format!(
            "{} (megaraid_sas host{} target {}{lun})",
            self.node.display(),
            at.host_no,
            at.target_id
        )
    }

    fn issue(
        &mut self,
        what: &str,
        cdb: &[u8],
        data: DataIn<'_>,
        sense: &mut [u8],
    ) -> Result<Completion, FetchError> {
        if self.file.is_none() {
            let f = open(&self.node)
                .map_err(|e| FetchError::from_os("open", &self.node, e, CAPABILITY))?;
            self.file = Some(f);
        }
        let file = self.file.as_ref().expect("just opened");
        let mut none: [u8; 0] = [];
        let buf = match data {
            DataIn::None => &mut none[..],
            DataIn::Buffer(b) => b,
            // Only a USB bridge's source sends data out.
            DataIn::Out(_) => {
                return Err(FetchError::Unsupported(format!(
                    "{what} on {}: no data-out command goes through the controller",
                    self.origin()
                )));
            }
        };
        let data_len = buf.len();
        let (at, timeout) = (self.at, self.timeout);
        let status = match pd_scsi_io(
            file,
            at.host_no,
            at.target_id,
            at.lun,
            cdb,
            buf,
            sense,
            timeout,
        ) {
            Ok(s) => s,
            Err(e) => {
                self.file = None;
                return Err(FetchError::from_os(what, &self.node, e, CAPABILITY));
            }
        };
        completion(status, sense, data_len).map_err(|e| match e {
            NotCompleted::Gone => FetchError::Gone(format!(
                "{what} on {}: no such drive (MFI status 0Ch)",
                self.origin()
            )),
            NotCompleted::Failed(why) => {
                FetchError::Failed(format!("{what} on {}: {why}", self.origin()))
            }
        })
    }

    fn ata_registers_unavailable(&self) -> Option<&'static str> {
        Some(NO_ATA_REGISTERS)
    }
}

#[cfg(test)]
mod tests;
