//! Finds drives from sysfs. NVMe drives are subsystems of controllers
//! `/sys/class/nvme/nvmeN` (model, serial, firmware_rev, transport), one
//! drive per subsystem, polled through a live controller with admin
//! commands to `/dev/nvmeN`, remote (fabrics) targets only when asked
//! ([`nvme`]). Where each drive sits comes from
//! [`crate::device::sysfs::place`]. SCSI disks are the
//! `/sys/block/sdX` disks whose INQUIRY data (the copy the kernel keeps in
//! `device/inquiry`, else `device/type`) says "disk"; [`scsi_transport`]
//! decides how each is driven: as ATA (SATA) when the vendor is `ATA` or
//! VPD page 89h exists (a SAT layer, libata's or an HBA's), else as SAS or
//! SCSI unless attached through USB. Those two are hints of a SAT layer,
//! not proof: the first poll's ATA IDENTIFY through ATA PASS-THROUGH
//! decides, as smartmontools' `autodetect_sat_device` does (`poll::fallback`
//! drives the disk as SCSI when the IDENTIFY is refused). [`volume`]
//! decides whether a SCSI disk is a physical drive, a virtual volume or a
//! remote LUN ([`Kind`]), from what [`remote`] reads of its transport too.
//! A disk behind a USB bridge is [`usb`]'s to decide.

pub mod megaraid;
pub mod nvme;
pub mod remote;
pub mod sas;
pub mod usb;
pub mod volume;

use std::path::{Path, PathBuf};

use regex::Regex;

pub use volume::Kind;
use volume::VolumeFacts;

use crate::device::sysfs::place::{Place, PlaceIndex};

/// Default of `discovery.interval`: how often sysfs is rescanned.
pub const DEFAULT_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30);
/// Default of `path.sysfs`.
pub const DEFAULT_SYSFS: &str = "/sys";
/// Default of `path.dev`.
pub const DEFAULT_DEV: &str = "/dev";

/// Transport of a discovered drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    Nvme,
    /// ATA commands, through libata or any SAT layer (a SATA drive behind
    /// a SAS HBA included).
    Sata,
    /// SCSI commands to a disk whose transport protocol is SAS.
    Sas,
    /// SCSI commands to a disk on another or an unknown transport
    /// (virtio-scsi, iSCSI, FC, a RAID volume).
    Scsi,
}

impl Transport {
    pub const ALL: [Transport; 4] = [Self::Nvme, Self::Sata, Self::Sas, Self::Scsi];

    /// The `transport` label of `ssd_device_info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nvme => "nvme",
            Self::Sata => "sata",
            Self::Sas => "sas",
            Self::Scsi => "scsi",
        }
    }

    /// Driven with SCSI commands (`poll::scsi`).
    pub fn is_scsi(self) -> bool {
        matches!(self, Self::Sas | Self::Scsi)
    }
}

/// What sysfs says about one `sd*` disk, as read by [`scsi_facts`]: the
/// input of [`scsi_transport`], which is pure so it can be tested on bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScsiFacts {
    /// `device/inquiry`: the standard INQUIRY data the kernel read.
    pub inquiry: Option<Vec<u8>>,
    /// `device/vendor` and `device/type`, for kernels without `inquiry`.
    pub vendor: String,
    pub peripheral_type: Option<u8>,
    /// `device/vpd_pg0` (VPD 00h, supported pages), when the kernel has it.
    pub vpd_supported: Option<Vec<u8>>,
    /// `device/vpd_pg89` exists: the kernel found VPD page 89h.
    pub vpd_89: bool,
    /// Attached through USB (a bridge, not a drive the exporter can read).
    pub usb: bool,
    /// On a SAS transport: an `end_device-*` in the device path (the SAS
    /// transport class) or a `sas_address` attribute.
    pub sas: bool,
    /// `proc_name` of the disk's SCSI host adapter (`hostN/scsi_host/hostN`).
    pub proc_name: String,
    /// The disk's SCSI channel, from its `H:C:T:L` name.
    pub channel: Option<u32>,
    /// An iSCSI session (`sessionN`) in the device path.
    pub iscsi_session: bool,
    /// A Fibre Channel remote port (`rport-H:C-N`) in the device path.
    pub fc_remote_port: bool,
    /// The device-mapper multipath map holding the disk, empty if none
    /// ([`remote::multipath_holder`]).
    pub multipath: String,
    /// `device/vpd_pg83` (VPD 83h, device identification).
    pub vpd_83: Option<Vec<u8>>,
}

/// How a SCSI disk is driven, or `None` when it is not one the exporter
/// reads (not a disk, or a USB-attached disk without a SAT layer).
pub fn scsi_transport(f: &ScsiFacts) -> Option<Transport> {
    use crate::scsi::identity::{Inquiry, TYPE_DISK, TYPE_ZBC, VPD_ATA_INFORMATION, vpd_supported};
    let inquiry = f.inquiry.as_deref().and_then(|b| Inquiry::parse(b).ok());
    let (is_disk, vendor) = match &inquiry {
        Some(i) => (i.is_disk(), i.vendor.as_str()),
        None => (
            matches!(f.peripheral_type, Some(TYPE_DISK | TYPE_ZBC)),
            f.vendor.as_str(),
        ),
    };
    if !is_disk {
        return None;
    }
    let lists_89 = f
        .vpd_supported
        .as_deref()
        .and_then(|b| vpd_supported(b).ok())
        .is_some_and(|pages| pages.contains(&VPD_ATA_INFORMATION));
    Some(if vendor == "ATA" || lists_89 || f.vpd_89 {
        // A SAT layer, also a USB bridge's (as before SCSI support).
        Transport::Sata
    } else if f.usb {
        // A USB bridge's own SCSI translation: its log pages are the
        // bridge's, not the drive's.
        return None;
    } else if f.sas {
        Transport::Sas
    } else {
        Transport::Scsi
    })
}

/// Whether the disk is a physical drive, a virtual volume or a LUN, and why
/// ([`volume::classify`] over the host adapter, the transport, VPD 83h and
/// the INQUIRY strings that sysfs holds).
pub fn scsi_kind(f: &ScsiFacts) -> (Kind, Option<String>) {
    use crate::scsi::identity::{Inquiry, vpd_port_protocols};
    let inquiry = f.inquiry.as_deref().and_then(|b| Inquiry::parse(b).ok());
    let (vendor, product) = inquiry
        .as_ref()
        .map_or((f.vendor.as_str(), ""), |i| (&i.vendor, &i.product));
    let protocols = f
        .vpd_83
        .as_deref()
        .and_then(|b| vpd_port_protocols(b).ok())
        .unwrap_or_default();
    volume::classify(&VolumeFacts {
        proc_name: &f.proc_name,
        channel: f.channel,
        iscsi_session: f.iscsi_session,
        fc_remote_port: f.fc_remote_port,
        multipath: &f.multipath,
        sas: f.sas,
        vendor,
        product,
        port_protocols: &protocols,
    })
}

/// Why [`scsi_transport`] chose `transport`, for the log.
pub fn transport_basis(f: &ScsiFacts, transport: Transport) -> &'static str {
    match transport {
        Transport::Sata if f.usb => "a SAT layer behind USB (vendor ATA or VPD 89h)",
        Transport::Sata => {
            "SAT hints (vendor ATA or VPD 89h): ATA if IDENTIFY through ATA PASS-THROUGH succeeds"
        }
        Transport::Sas => "the SAS transport class in sysfs",
        Transport::Scsi => "no SAT hint (vendor not ATA, no VPD 89h) and no SAS transport class",
        Transport::Nvme => "an NVMe controller",
    }
}

/// Reads the [`ScsiFacts`] of `/sys/block/<name>` (`block_dir`).
pub fn scsi_facts(block_dir: &Path) -> ScsiFacts {
    let dev = block_dir.join("device");
    let real = std::fs::canonicalize(block_dir).unwrap_or_default();
    let in_path = |pred: &dyn Fn(&str) -> bool| {
        real.components()
            .any(|c| pred(&c.as_os_str().to_string_lossy()))
    };
    ScsiFacts {
        inquiry: std::fs::read(dev.join("inquiry")).ok(),
        vendor: read_attr(&dev, "vendor"),
        peripheral_type: read_attr(&dev, "type").parse().ok(),
        vpd_supported: std::fs::read(dev.join("vpd_pg0")).ok(),
        vpd_89: dev.join("vpd_pg89").exists(),
        usb: in_path(&|c| c.starts_with("usb")),
        sas: in_path(&|c| c.starts_with("end_device-")) || dev.join("sas_address").exists(),
        proc_name: host_proc_name(&real),
        channel: scsi_channel(&dev),
        iscsi_session: in_path(&remote::is_iscsi_session),
        fc_remote_port: in_path(&remote::is_fc_remote_port),
        multipath: remote::multipath_holder(block_dir),
        vpd_83: std::fs::read(dev.join("vpd_pg83")).ok(),
    }
}

/// The `proc_name` of the SCSI host in `real` (a disk's canonical sysfs
/// path, `…/hostN/…/block/sdX`): `…/hostN/scsi_host/hostN/proc_name`.
fn host_proc_name(real: &Path) -> String {
    let host = real.ancestors().find(|a| {
        a.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("host"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    host.and_then(|h| Some(h.join("scsi_host").join(h.file_name()?)))
        .map(|dir| read_attr(&dir, "proc_name"))
        .unwrap_or_default()
}

/// The channel of the SCSI device `dev` (`/sys/block/sdX/device`, a link to
/// `…/H:C:T:L`).
fn scsi_channel(dev: &Path) -> Option<u32> {
    let real = std::fs::canonicalize(dev).ok()?;
    real.file_name()?.to_str()?.split(':').nth(1)?.parse().ok()
}

/// A drive found in sysfs, before its first poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// Kernel name (`nvme0`), the `device` label.
    pub name: String,
    pub transport: Transport,
    /// The node the exporter talks to (`/dev/nvme0`).
    pub dev_path: PathBuf,
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// Block devices of the drive's namespaces (`nvme0n1`), sorted.
    pub namespaces: Vec<String>,
    /// Physical drive, virtual volume or LUN (the last two never probed
    /// unless named in `probe.device`, never judged).
    pub kind: Kind,
    /// How the transport and the kind were decided, for the log.
    pub basis: String,
    /// The drive's sysfs folder (`<sysfs>/block/sdX`, `<sysfs>/class/nvme/nvmeN`;
    /// behind MegaRAID, its controller's `<sysfs>/class/scsi_host/hostN`).
    pub sysfs: PathBuf,
    /// A physical drive behind a MegaRAID controller, reached through its
    /// pass-through on `dev_path` (the management node).
    pub megaraid: Option<megaraid::PdAddress>,
    /// Where it sits and how it is attached (`ssd_device_info` labels).
    pub place: Place,
    /// NVMe: the controllers it can be polled through, the first one
    /// first ([`nvme`]); empty for other transports.
    pub paths: Vec<NvmePath>,
    /// NVMe multipath: the subsystem's sysfs folder, where controllers that
    /// come later are found.
    pub subsystem: Option<PathBuf>,
    /// A disk behind a USB bridge: the bridge and how it is read.
    pub usb: Option<usb::UsbDisk>,
}

/// One controller of an NVMe drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmePath {
    /// `nvme1`.
    pub name: String,
    /// `/dev/nvme1`.
    pub dev: PathBuf,
    /// `<sysfs>/class/nvme/nvme1`.
    pub sysfs: PathBuf,
}

impl Discovered {
    /// What identifies the drive across scans: its NVMe subsystem, whose
    /// controllers may come and go, else the node polled.
    pub fn key(&self) -> &Path {
        self.subsystem.as_deref().unwrap_or(&self.dev_path)
    }

    /// Whether the latency probe reads it: a physical drive on this host.
    /// A virtual volume's latency is the controller's or the host's, a
    /// fabric namespace's the network's and the target's (and the target
    /// may be shared): either is probed only when `probe.device` names it.
    /// A drive behind a MegaRAID controller has no block device here. A
    /// disk behind a USB bridge is probed only when named too: a read
    /// wakes a sleeping USB disk, and its latency is the bridge's and the
    /// bus's as much as the drive's.
    pub fn probed(&self) -> bool {
        self.kind.is_physical()
            && self.place.fabric.is_empty()
            && self.megaraid.is_none()
            && self.usb.is_none()
    }
}

/// Which kernel names to watch: `include` must match (if set) and
/// `exclude` must not. Both are matched against the kernel name (`nvme0`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub include: Option<Regex>,
    pub exclude: Option<Regex>,
    /// Watch NVMe over fabrics controllers too (`discovery.fabrics`).
    pub fabrics: bool,
    /// Watch disks behind USB bridges (`discovery.usb`), their types from
    /// this table (drivedb.h's USB section); `None`: not watched.
    pub usb: Option<std::sync::Arc<crate::ata::attributes::drivedb::usb::UsbTable>>,
}

impl Filter {
    pub fn accepts(&self, name: &str) -> bool {
        self.include.as_ref().is_none_or(|r| r.is_match(name))
            && !self.exclude.as_ref().is_some_and(|r| r.is_match(name))
    }
}

fn read_attr(dir: &Path, name: &str) -> String {
    crate::device::sysfs::printable_attr(dir, name)
}

/// What one scan found: the drives to watch, and the controllers it
/// leaves alone on purpose (name, why), for the log.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub drives: Vec<Discovered>,
    pub skipped: Vec<(String, String)>,
}

/// Every NVMe drive and SCSI disk sysfs shows now that `filter` accepts.
pub fn scan(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    scan_noting(sysfs, dev, filter).drives
}

/// [`scan`], with what it left alone and why.
pub fn scan_noting(sysfs: &Path, dev: &Path, filter: &Filter) -> Scan {
    let index = PlaceIndex::read(sysfs, dev);
    let mut found = nvme::scan(sysfs, dev, filter, &index);
    let disks = scsi_disks_in(sysfs, dev, filter, &index, &mut found.skipped);
    found.drives.extend(disks);
    found
}

/// The NVMe drives under `<sysfs>/class/nvme` ([`nvme`]), sorted by name.
/// A missing class folder (no NVMe driver loaded) is an empty list.
pub fn nvme_controllers(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    nvme::scan(sysfs, dev, filter, &PlaceIndex::read(sysfs, dev)).drives
}

/// SATA, SAS and SCSI disks under `<sysfs>/block`: whole `sd*` disks
/// (partitions are not listed there; loop, ram, dm, md, zram and nvme are
/// not `sd*`), each with the transport [`scsi_transport`] gives it, sorted
/// by name.
pub fn scsi_disks(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    scsi_disks_in(
        sysfs,
        dev,
        filter,
        &PlaceIndex::read(sysfs, dev),
        &mut Vec::new(),
    )
}

fn scsi_disks_in(
    sysfs: &Path,
    dev: &Path,
    filter: &Filter,
    index: &PlaceIndex,
    skipped: &mut Vec<(String, String)>,
) -> Vec<Discovered> {
    let Ok(entries) = std::fs::read_dir(sysfs.join("block")) else {
        return Vec::new();
    };
    let mut found: Vec<Discovered> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with("sd") || !filter.accepts(&name) {
                return None;
            }
            let facts = scsi_facts(&e.path());
            if let Some(u) = facts.usb.then(|| usb::usb_facts(&e.path())).flatten() {
                return usb::disk(&e.path(), dev, &facts, u, filter, index, skipped);
            }
            let (kind, why) = scsi_kind(&facts);
            let transport = match scsi_transport(&facts)? {
                // A virtual volume or a LUN is watched for its identity
                // only, with SCSI commands, whatever SAT hints it shows.
                Transport::Sata if !kind.is_physical() => Transport::Scsi,
                t => t,
            };
            let basis = match why {
                Some(why) => format!(
                    "{}; kind {}: {why}",
                    transport_basis(&facts, transport),
                    kind.as_label()
                ),
                None => transport_basis(&facts, transport).to_string(),
            };
            let dir = e.path().join("device");
            let model = match transport {
                Transport::Sata => read_attr(&dir, "model"),
                // As the SCSI poller names it: vendor and product.
                _ => [read_attr(&dir, "vendor"), read_attr(&dir, "model")]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            Some(Discovered {
                dev_path: dev.join(&name),
                transport,
                model,
                serial: vpd_serial(&dir),
                firmware: read_attr(&dir, "rev"),
                namespaces: vec![name.clone()],
                kind,
                basis,
                place: index.scsi(&e.path()),
                paths: Vec::new(),
                subsystem: None,
                sysfs: e.path(),
                megaraid: None,
                usb: None,
                name,
            })
        })
        .collect();
    found.sort_by_key(|d| natural_key(&d.name));
    found
}

/// The unit serial number from VPD page 80h (`device/vpd_pg80`: a 4-byte
/// header, then the serial, space padded), empty when absent.
fn vpd_serial(dir: &Path) -> String {
    std::fs::read(dir.join("vpd_pg80"))
        .ok()
        .and_then(|b| b.get(4..).map(crate::decode::printable))
        .unwrap_or_default()
}

/// Sorts `nvme2` before `nvme10`.
fn natural_key(name: &str) -> (String, u64) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, num) = name.split_at(name.len() - digits);
    (stem.to_string(), num.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests;
