//! Finds drives from sysfs. NVMe controllers are `/sys/class/nvme/nvmeN`
//! (model, serial, firmware_rev, and one `nvmeNnM` / `nvmeNcXnM` folder per
//! namespace); the admin commands go to `/dev/nvmeN`. SCSI disks are the
//! `/sys/block/sdX` disks not attached through USB whose INQUIRY data (the
//! copy the kernel keeps in `device/inquiry`, else `device/type`) says
//! "disk"; [`scsi_transport`] decides how each is driven: as ATA (SATA)
//! when the vendor is `ATA` or VPD page 89h exists (a SAT layer, libata's
//! or an HBA's), else as SAS or SCSI. The first poll's own INQUIRY or
//! IDENTIFY confirms them.

use std::path::{Path, PathBuf};

use regex::Regex;

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
}

/// How a SCSI disk is driven, or `None` when it is not one the exporter
/// reads (not a disk, behind USB).
pub fn scsi_transport(f: &ScsiFacts) -> Option<Transport> {
    use crate::scsi::identity::{Inquiry, TYPE_DISK, TYPE_ZBC, VPD_ATA_INFORMATION, vpd_supported};
    if f.usb {
        return None;
    }
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
        Transport::Sata
    } else if f.sas {
        Transport::Sas
    } else {
        Transport::Scsi
    })
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
    }
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
}

/// Which kernel names to watch: `include` must match (if set) and
/// `exclude` must not. Both are matched against the kernel name (`nvme0`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub include: Option<Regex>,
    pub exclude: Option<Regex>,
}

impl Filter {
    pub fn accepts(&self, name: &str) -> bool {
        self.include.as_ref().is_none_or(|r| r.is_match(name))
            && !self.exclude.as_ref().is_some_and(|r| r.is_match(name))
    }
}

fn read_attr(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn is_controller_name(name: &str) -> bool {
    name.strip_prefix("nvme")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// NVMe controllers under `<sysfs>/class/nvme`, sorted by name. A missing
/// class folder (no NVMe driver loaded) is an empty list, not an error.
/// Every NVMe controller and SATA disk sysfs shows now that `filter` accepts.
pub fn scan(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    let mut found = nvme_controllers(sysfs, dev, filter);
    found.extend(scsi_disks(sysfs, dev, filter));
    found
}

pub fn nvme_controllers(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    let class = sysfs.join("class/nvme");
    let Ok(entries) = std::fs::read_dir(&class) else {
        return Vec::new();
    };
    let mut found: Vec<Discovered> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !is_controller_name(&name) || !filter.accepts(&name) {
                return None;
            }
            let dir = e.path();
            Some(Discovered {
                dev_path: dev.join(&name),
                transport: Transport::Nvme,
                model: read_attr(&dir, "model"),
                serial: read_attr(&dir, "serial"),
                firmware: read_attr(&dir, "firmware_rev"),
                namespaces: namespaces(&dir, &name),
                name,
            })
        })
        .collect();
    found.sort_by_key(|d| natural_key(&d.name));
    found
}

/// SATA, SAS and SCSI disks under `<sysfs>/block`: whole `sd*` disks
/// (partitions are not listed there; loop, ram, dm, md, zram and nvme are
/// not `sd*`), each with the transport [`scsi_transport`] gives it, sorted
/// by name.
pub fn scsi_disks(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
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
            let transport = scsi_transport(&scsi_facts(&e.path()))?;
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

fn namespaces(ctrl_dir: &Path, ctrl: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(ctrl_dir) else {
        return Vec::new();
    };
    let mut ns: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix(ctrl)
                .is_some_and(|rest| rest.starts_with('n') || rest.starts_with('c'))
        })
        .collect();
    ns.sort();
    ns
}

/// Sorts `nvme2` before `nvme10`.
fn natural_key(name: &str) -> (String, u64) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, num) = name.split_at(name.len() - digits);
    (stem.to_string(), num.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controller(root: &Path, name: &str, model: &str, ns: &[&str]) {
        let dir = root.join("class/nvme").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("model"), format!("{model}   \n")).unwrap();
        std::fs::write(dir.join("serial"), "SN1\n").unwrap();
        std::fs::write(dir.join("firmware_rev"), "FW1\n").unwrap();
        for n in ns {
            std::fs::create_dir_all(dir.join(n)).unwrap();
        }
        std::fs::create_dir_all(dir.join("power")).unwrap();
    }

    #[test]
    fn finds_controllers_and_namespaces_in_natural_order() {
        let root = tempfile::tempdir().unwrap();
        controller(root.path(), "nvme10", "B", &[]);
        controller(root.path(), "nvme2", "A", &["nvme2n1", "nvme2n2"]);
        std::fs::create_dir_all(root.path().join("class/nvme/nvme-fabrics")).unwrap();
        let found = nvme_controllers(root.path(), Path::new("/dev"), &Filter::default());
        let names: Vec<_> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["nvme2", "nvme10"]);
        assert_eq!(found[0].model, "A");
        assert_eq!(found[0].serial, "SN1");
        assert_eq!(found[0].dev_path, Path::new("/dev/nvme2"));
        assert_eq!(found[0].namespaces, ["nvme2n1", "nvme2n2"]);
    }

    #[test]
    fn include_and_exclude_filter_by_kernel_name() {
        let root = tempfile::tempdir().unwrap();
        for n in ["nvme0", "nvme1", "nvme2"] {
            controller(root.path(), n, "M", &[]);
        }
        let filter = Filter {
            include: Some(Regex::new("^nvme[01]$").unwrap()),
            exclude: Some(Regex::new("1").unwrap()),
        };
        let found = nvme_controllers(root.path(), Path::new("/dev"), &filter);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "nvme0");
    }

    fn block(root: &Path, name: &str, vendor: &str) {
        let dir = root.join("block").join(name).join("device");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("type"), "0\n").unwrap();
        std::fs::write(dir.join("vendor"), format!("{vendor:<8}\n")).unwrap();
        std::fs::write(dir.join("model"), "KINGSTON SEDC600M\n").unwrap();
        std::fs::write(dir.join("rev"), "H5.1\n").unwrap();
        let mut vpd = vec![0x00, 0x80, 0x00, 0x14];
        vpd.extend_from_slice(b"    50026B7686D8C1F5");
        std::fs::write(dir.join("vpd_pg80"), vpd).unwrap();
    }

    #[test]
    fn sd_disks_are_driven_by_their_transport() {
        let root = tempfile::tempdir().unwrap();
        block(root.path(), "sdb", "ATA");
        block(root.path(), "sda", "ATA");
        block(root.path(), "sdc", "SEAGATE");
        block(root.path(), "loop0", "ATA");
        // A CD-ROM (type 5) is not a disk.
        block(root.path(), "sdd", "QEMU");
        std::fs::write(root.path().join("block/sdd/device/type"), "5\n").unwrap();
        std::fs::create_dir_all(root.path().join("block/nvme0n1")).unwrap();
        let found = scsi_disks(root.path(), Path::new("/dev"), &Filter::default());
        let names: Vec<_> = found
            .iter()
            .map(|d| (d.name.as_str(), d.transport))
            .collect();
        assert_eq!(
            names,
            [
                ("sda", Transport::Sata),
                ("sdb", Transport::Sata),
                ("sdc", Transport::Scsi)
            ]
        );
        assert_eq!(found[2].model, "SEAGATE KINGSTON SEDC600M");
        assert_eq!(found[0].serial, "50026B7686D8C1F5");
        assert_eq!(found[0].model, "KINGSTON SEDC600M");
        assert_eq!(found[0].transport, Transport::Sata);
        assert_eq!(found[0].dev_path, Path::new("/dev/sda"));
    }

    /// Standard INQUIRY data: peripheral type, vendor, product.
    fn inquiry(ptype: u8, vendor: &str, product: &str) -> Vec<u8> {
        let mut b = vec![0u8; 36];
        b[0] = ptype;
        b[4] = 31;
        b[8..16].copy_from_slice(format!("{vendor:<8}").as_bytes());
        b[16..32].copy_from_slice(format!("{product:<16}").as_bytes());
        b[32..36].copy_from_slice(b"0001");
        b
    }

    /// The discovery decision as a pure function (issue 15): an AHCI disk
    /// (libata: vendor "ATA") and a SCSI disk side by side are each driven
    /// by the right transport; a SAT layer that does not say "ATA" is found
    /// by its VPD page 89h (SAT-4 12.4.2).
    #[test]
    fn ata_by_vendor_or_vpd_89_else_sas_or_scsi() {
        let ahci = ScsiFacts {
            inquiry: Some(inquiry(0, "ATA", "QEMU HARDDISK")),
            vpd_supported: Some(vec![0, 0, 0, 4, 0x00, 0x80, 0x83, 0x89]),
            vpd_89: true,
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&ahci), Some(Transport::Sata));
        // An HBA's SAT layer reporting the drive's own vendor: VPD 00h lists 89h.
        let behind_hba = ScsiFacts {
            inquiry: Some(inquiry(0, "SAMSUNG", "MZ7LH960HAJR")),
            vpd_supported: Some(vec![0, 0, 0, 3, 0x00, 0x80, 0x89]),
            sas: true,
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&behind_hba), Some(Transport::Sata));
        // Only the sysfs file says 89h exists (an older kernel's vpd_pg0 absent).
        let pg89_only = ScsiFacts {
            vpd_89: true,
            ..behind_hba.clone()
        };
        let pg89_only = ScsiFacts {
            vpd_supported: None,
            ..pg89_only
        };
        assert_eq!(scsi_transport(&pg89_only), Some(Transport::Sata));
        // A SAS SSD: no 89h, on the SAS transport class.
        let sas = ScsiFacts {
            inquiry: Some(inquiry(0, "SEAGATE", "XS800ME70084")),
            vpd_supported: Some(vec![0, 0, 0, 4, 0x00, 0x80, 0x83, 0xB1]),
            sas: true,
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&sas), Some(Transport::Sas));
        // QEMU's scsi-hd on virtio-scsi: SCSI, transport unknown.
        let virtio = ScsiFacts {
            inquiry: Some(inquiry(0, "QEMU", "QEMU HARDDISK")),
            vpd_supported: Some(vec![0, 0, 0, 3, 0x00, 0x80, 0x83]),
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&virtio), Some(Transport::Scsi));
        // Host-managed zoned (14h) is a disk; a CD-ROM (05h) is not; a
        // disk behind USB is not read.
        let zbc = ScsiFacts {
            inquiry: Some(inquiry(0x14, "WDC", "HSH721414AL")),
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&zbc), Some(Transport::Scsi));
        let cdrom = ScsiFacts {
            inquiry: Some(inquiry(0x05, "QEMU", "QEMU DVD-ROM")),
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&cdrom), None);
        let usb = ScsiFacts {
            usb: true,
            ..virtio.clone()
        };
        assert_eq!(scsi_transport(&usb), None);
        // Without the kernel's INQUIRY copy: sysfs vendor and type.
        let old_kernel = ScsiFacts {
            vendor: "ATA".into(),
            peripheral_type: Some(0),
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&old_kernel), Some(Transport::Sata));
        let unknown = ScsiFacts {
            vendor: "ATA".into(),
            ..ScsiFacts::default()
        };
        assert_eq!(scsi_transport(&unknown), None);
    }

    #[test]
    fn usb_and_sas_come_from_the_device_path() {
        let root = tempfile::tempdir().unwrap();
        let devices = root.path().join("devices");
        for (name, path) in [
            (
                "sdu",
                "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0",
            ),
            (
                "sds",
                "pci0000:00/0000:03:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0",
            ),
        ] {
            let dev = devices.join(path);
            let blk = dev.join("block").join(name);
            std::fs::create_dir_all(&blk).unwrap();
            std::fs::write(dev.join("type"), "0\n").unwrap();
            std::fs::write(dev.join("vendor"), "SEAGATE\n").unwrap();
            std::os::unix::fs::symlink(&dev, blk.join("device")).unwrap();
            std::fs::create_dir_all(root.path().join("block")).unwrap();
            std::os::unix::fs::symlink(&blk, root.path().join("block").join(name)).unwrap();
        }
        let usb = scsi_facts(&root.path().join("block/sdu"));
        assert!(usb.usb && !usb.sas);
        let sas = scsi_facts(&root.path().join("block/sds"));
        assert!(sas.sas && !sas.usb);
        let found = scsi_disks(root.path(), Path::new("/dev"), &Filter::default());
        let names: Vec<_> = found
            .iter()
            .map(|d| (d.name.as_str(), d.transport))
            .collect();
        assert_eq!(names, [("sds", Transport::Sas)]);
    }

    #[test]
    fn no_nvme_class_is_no_drives() {
        let root = tempfile::tempdir().unwrap();
        assert!(nvme_controllers(root.path(), Path::new("/dev"), &Filter::default()).is_empty());
    }
}
