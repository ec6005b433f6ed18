//! Finds drives from sysfs. NVMe controllers are `/sys/class/nvme/nvmeN`
//! (model, serial, firmware_rev, and one `nvmeNnM` / `nvmeNcXnM` folder per
//! namespace); the admin commands go to `/dev/nvmeN`. SATA disks are the
//! `/sys/block/sdX` disks whose SCSI vendor is `ATA` (libata's translation,
//! also what SAT-capable HBAs report); the first IDENTIFY confirms them.

use std::path::{Path, PathBuf};

use regex::Regex;

/// Transport of a discovered drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    Nvme,
    Sata,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nvme => "nvme",
            Self::Sata => "sata",
        }
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
    found.extend(sata_disks(sysfs, dev, filter));
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

/// SATA disks under `<sysfs>/block`: whole `sd*` disks (partitions are not
/// listed there; loop, ram, dm, md, zram, nvme and optical drives are not
/// `sd*` disks with vendor `ATA`), sorted by name.
pub fn sata_disks(sysfs: &Path, dev: &Path, filter: &Filter) -> Vec<Discovered> {
    let Ok(entries) = std::fs::read_dir(sysfs.join("block")) else {
        return Vec::new();
    };
    let mut found: Vec<Discovered> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let dir = e.path().join("device");
            if !name.starts_with("sd")
                || read_attr(&dir, "vendor") != "ATA"
                || !filter.accepts(&name)
            {
                return None;
            }
            Some(Discovered {
                dev_path: dev.join(&name),
                transport: Transport::Sata,
                model: read_attr(&dir, "model"),
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
        std::fs::write(dir.join("vendor"), format!("{vendor:<8}\n")).unwrap();
        std::fs::write(dir.join("model"), "KINGSTON SEDC600M\n").unwrap();
        std::fs::write(dir.join("rev"), "H5.1\n").unwrap();
        let mut vpd = vec![0x00, 0x80, 0x00, 0x14];
        vpd.extend_from_slice(b"    50026B7686D8C1F5");
        std::fs::write(dir.join("vpd_pg80"), vpd).unwrap();
    }

    #[test]
    fn sata_disks_are_ata_sd_disks_only() {
        let root = tempfile::tempdir().unwrap();
        block(root.path(), "sdb", "ATA");
        block(root.path(), "sda", "ATA");
        block(root.path(), "sdc", "SEAGATE");
        block(root.path(), "loop0", "ATA");
        std::fs::create_dir_all(root.path().join("block/nvme0n1")).unwrap();
        let found = sata_disks(root.path(), Path::new("/dev"), &Filter::default());
        let names: Vec<_> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["sda", "sdb"]);
        assert_eq!(found[0].serial, "50026B7686D8C1F5");
        assert_eq!(found[0].model, "KINGSTON SEDC600M");
        assert_eq!(found[0].transport, Transport::Sata);
        assert_eq!(found[0].dev_path, Path::new("/dev/sda"));
    }

    #[test]
    fn no_nvme_class_is_no_drives() {
        let root = tempfile::tempdir().unwrap();
        assert!(nvme_controllers(root.path(), Path::new("/dev"), &Filter::default()).is_empty());
    }
}
