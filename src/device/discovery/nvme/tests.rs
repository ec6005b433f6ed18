//! NVMe discovery over a fake sysfs laid out as Linux 6.1 lays it out:
//! class links into /sys/devices, controllers under their PCI functions (or
//! the fabrics device), subsystems under /sys/devices/virtual with links
//! to their controllers and their multipath heads.

use std::os::unix::fs::symlink;

use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Host {
    sys: PathBuf,
}

impl Host {
    fn new(root: &Path) -> Self {
        let sys = root.join("sys");
        std::fs::create_dir_all(sys.join("class/nvme")).unwrap();
        std::fs::create_dir_all(sys.join("class/nvme-subsystem")).unwrap();
        Self { sys }
    }

    /// A controller under `parent` (a PCI function's path or the fabrics
    /// device), with its own entries (`nvme2n1`, or a hidden `nvme1c0n1`).
    fn controller(&self, name: &str, parent: &str, transport: &str, state: &str, entries: &[&str]) {
        let dir = self
            .sys
            .join("devices")
            .join(parent)
            .join("nvme")
            .join(name);
        for (f, t) in [
            ("model", "QEMU NVMe Ctrl"),
            ("serial", "MPATH0001"),
            ("firmware_rev", "7.2.0"),
            ("transport", transport),
            ("state", state),
            (
                "address",
                if transport == "pcie" {
                    "0000:01:00.0"
                } else {
                    "traddr=127.0.0.1,trsvcid=4420,src_addr=127.0.0.1"
                },
            ),
        ] {
            write(&dir.join(f), &format!("{t}\n"));
        }
        for e in entries {
            std::fs::create_dir_all(dir.join(e)).unwrap();
        }
        symlink("../..", dir.join("device")).unwrap();
        symlink(&dir, self.sys.join("class/nvme").join(name)).unwrap();
    }

    /// A subsystem linking to `controllers`, holding `heads` (name, hidden).
    fn subsystem(&self, name: &str, controllers: &[&str], heads: &[(&str, &str)]) {
        let dir = self.sys.join("devices/virtual/nvme-subsystem").join(name);
        write(&dir.join("subsysnqn"), "nqn.2026-12.io.test:mp\n");
        for c in controllers {
            let target = std::fs::canonicalize(self.sys.join("class/nvme").join(c)).unwrap();
            symlink(target, dir.join(c)).unwrap();
        }
        for (h, hidden) in heads {
            write(&dir.join(h).join("hidden"), &format!("{hidden}\n"));
        }
        symlink(&dir, self.sys.join("class/nvme-subsystem").join(name)).unwrap();
    }
}

/// A standalone PCIe drive (nvme2, subsystem 0, no head); a multipath
/// subsystem 1 of nvme0 and nvme1 with head nvme1n1, numbered after the
/// subsystem; an NVMe/TCP target nvme3 in subsystem 2 with head nvme2n1.
fn host(root: &Path) -> Host {
    let h = Host::new(root);
    h.controller(
        "nvme0",
        "pci0000:00/0000:00:02.0/0000:01:00.0",
        "pcie",
        "live",
        &["nvme1c0n1"],
    );
    h.controller(
        "nvme1",
        "pci0000:00/0000:00:03.0/0000:02:00.0",
        "pcie",
        "live",
        &["nvme1c1n1"],
    );
    h.controller(
        "nvme2",
        "pci0000:00/0000:00:04.0/0000:03:00.0",
        "pcie",
        "live",
        &["nvme2n1"],
    );
    h.controller(
        "nvme3",
        "virtual/nvme-fabrics/ctl",
        "tcp",
        "live",
        &["nvme2c3n1"],
    );
    h.subsystem("nvme-subsys0", &["nvme2"], &[]);
    h.subsystem("nvme-subsys1", &["nvme1", "nvme0"], &[("nvme1n1", "0")]);
    h.subsystem(
        "nvme-subsys2",
        &["nvme3"],
        &[("nvme2n1", "0"), ("nvme2n9", "1")],
    );
    h
}

fn scan_of(h: &Host, filter: &Filter) -> Scan {
    scan(&h.sys, Path::new("/dev"), filter, &PlaceIndex::default())
}

#[test]
fn one_drive_per_subsystem_and_fabrics_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    let s = scan_of(&h, &Filter::default());
    let names: Vec<_> = s.drives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["nvme2", "nvme-subsys1"]);
    assert_eq!(s.skipped.len(), 1);
    assert_eq!(s.skipped[0].0, "nvme3");
    assert!(
        s.skipped[0].1.contains("transport tcp, traddr=127.0.0.1"),
        "{}",
        s.skipped[0].1
    );
    assert!(
        s.skipped[0].1.contains("discovery.fabrics"),
        "{}",
        s.skipped[0].1
    );
}

#[test]
fn a_multipath_drive_is_probed_on_its_head_and_polled_through_its_controllers() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    let s = scan_of(&h, &Filter::default());
    let mp = &s.drives[1];
    assert_eq!(mp.name, "nvme-subsys1");
    // The head as sysfs names it (after subsystem 1); never a hidden path.
    assert_eq!(mp.namespaces, ["nvme1n1"]);
    let paths: Vec<_> = mp.paths.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(paths, ["nvme0", "nvme1"]);
    assert_eq!(mp.dev_path, Path::new("/dev/nvme0"));
    assert_eq!(mp.paths[1].dev, Path::new("/dev/nvme1"));
    assert_eq!(mp.serial, "MPATH0001");
    let subsystem = h.sys.join("class/nvme-subsystem/nvme-subsys1");
    assert_eq!(mp.subsystem.as_deref(), Some(subsystem.as_path()));
    assert_eq!(mp.key(), subsystem.as_path(), "the key outlives a path");
    assert!(mp.probed());
    assert!(
        mp.basis.contains("controllers nvme0, nvme1"),
        "{}",
        mp.basis
    );
    // The standalone drive: named, keyed and probed as before.
    let one = &s.drives[0];
    assert_eq!(one.namespaces, ["nvme2n1"]);
    assert_eq!(one.subsystem, None);
    assert_eq!(one.key(), Path::new("/dev/nvme2"));
    assert_eq!(one.paths.len(), 1);
}

#[test]
fn a_controller_that_is_not_live_is_polled_last() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    std::fs::write(h.sys.join("class/nvme/nvme0/state"), "resetting\n").unwrap();
    let s = scan_of(&h, &Filter::default());
    let mp = &s.drives[1];
    let paths: Vec<_> = mp.paths.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(paths, ["nvme1", "nvme0"]);
    assert_eq!(mp.dev_path, Path::new("/dev/nvme1"));
    assert_eq!(mp.name, "nvme-subsys1", "the name does not follow the path");
}

#[test]
fn a_multipath_drive_with_one_path_left_keeps_its_name() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    let subsys = h.sys.join("devices/virtual/nvme-subsystem/nvme-subsys1");
    std::fs::remove_file(subsys.join("nvme0")).unwrap();
    std::fs::remove_file(h.sys.join("class/nvme/nvme0")).unwrap();
    let s = scan_of(&h, &Filter::default());
    let mp = &s.drives[1];
    assert_eq!((mp.name.as_str(), mp.paths.len()), ("nvme-subsys1", 1));
    assert_eq!(mp.namespaces, ["nvme1n1"]);
}

#[test]
fn with_discovery_fabrics_a_target_is_watched_with_its_transport_and_not_probed() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    let filter = Filter {
        fabrics: true,
        ..Filter::default()
    };
    let s = scan_of(&h, &filter);
    assert!(s.skipped.is_empty());
    let tcp = s.drives.iter().find(|d| d.name == "nvme-subsys2").unwrap();
    assert_eq!(tcp.place.fabric, "tcp");
    assert_eq!(
        tcp.namespaces,
        ["nvme2n1"],
        "the hidden head nvme2n9 is not one"
    );
    assert!(!tcp.probed());
    assert!(
        tcp.basis.contains("over tcp (traddr=127.0.0.1"),
        "{}",
        tcp.basis
    );
    // A missing transport attribute (older kernels) is a local controller.
    std::fs::remove_file(h.sys.join("class/nvme/nvme2/transport")).unwrap();
    let s = scan_of(&h, &Filter::default());
    assert!(
        s.drives
            .iter()
            .any(|d| d.name == "nvme2" && d.place.fabric.is_empty())
    );
}

#[test]
fn the_filter_names_the_drive() {
    let root = tempfile::tempdir().unwrap();
    let h = host(root.path());
    let filter = Filter {
        exclude: Some(regex::Regex::new("subsys").unwrap()),
        ..Filter::default()
    };
    let names: Vec<_> = scan_of(&h, &filter)
        .drives
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["nvme2"]);
}

#[test]
fn names() {
    assert!(is_controller_name("nvme0") && is_controller_name("nvme12"));
    for n in ["nvme", "nvme0n1", "nvme-subsys0", "nvme-fabrics", "nvmex"] {
        assert!(!is_controller_name(n), "{n}");
    }
    assert!(is_block_name("nvme3n1") && !is_block_name("nvme3c0n1") && !is_block_name("nvme3"));
    assert!(is_namespace_of("nvme0n1", "nvme0"));
    for n in ["nvme0c1n1", "nvme10n1", "nvme0", "nvme0n"] {
        assert!(!is_namespace_of(n, "nvme0"), "{n}");
    }
}
