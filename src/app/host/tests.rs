use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use super::*;
use crate::config::RawFile;

/// A sysfs with one block device, `vdq` (not a drive discovery watches,
/// as a virtio disk is not), holding the filesystem of `probe_dir`.
struct Host {
    sysfs: tempfile::TempDir,
    probe_dir: tempfile::TempDir,
}

impl Host {
    fn new() -> Host {
        let sysfs = tempfile::tempdir().unwrap();
        let block = sysfs.path().join("devices/virtual/block/vdq");
        std::fs::create_dir_all(block.join("queue")).unwrap();
        std::fs::write(block.join("queue/logical_block_size"), "512\n").unwrap();
        std::fs::write(block.join("size"), "2048\n").unwrap();
        std::fs::create_dir_all(sysfs.path().join("block")).unwrap();
        std::os::unix::fs::symlink(&block, sysfs.path().join("block/vdq")).unwrap();
        let probe_dir = tempfile::tempdir().unwrap();
        let dev = std::fs::metadata(probe_dir.path()).unwrap().dev();
        let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
        std::fs::create_dir_all(sysfs.path().join("dev/block")).unwrap();
        let link = sysfs.path().join(format!("dev/block/{major}:{minor}"));
        std::os::unix::fs::symlink(&block, link).unwrap();
        Host { sysfs, probe_dir }
    }

    fn check(&self, yaml: &str) -> Result<(), String> {
        let yaml = format!(
            "path:\n  sysfs: {}\n  dev: /nonexistent-dev\n{yaml}",
            self.sysfs.path().display()
        );
        let config = Config::try_from(RawFile::parse(&yaml).unwrap()).unwrap();
        validate(&config).map_err(|e| e.to_string())
    }

    fn write_probe(&self) -> String {
        format!("  write:\n    path: {}\n", self.probe_dir.path().display())
    }
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn a_replay_folder_must_be_a_dump() {
    let host = Host::new();
    let e = host.check("replay: [/nonexistent/nvme0]\n").unwrap_err();
    assert!(
        e.starts_with("replay: /nonexistent/nvme0: not a device dump"),
        "{e}"
    );
    assert!(e.contains("ssd_exporter dump"), "{e}");
    let good = fixture("nvme/kingston-dc2000b/nvme0");
    host.check(&format!("replay: [{}]\n", good.display()))
        .unwrap();
}

#[test]
fn a_probe_device_must_be_a_block_device_of_the_host() {
    let host = Host::new();
    let e = host.check("probe:\n  device: [nosuch]\n").unwrap_err();
    assert!(
        e.starts_with("probe.device: \"nosuch\" is not a block device"),
        "{e}"
    );
    host.check("probe:\n  device: [vdq]\n").unwrap();
    host.check("probe:\n  device: [/dev/vdq]\n").unwrap();
    // Not checked when the probe is off: nothing would open it.
    host.check("probe:\n  disable: true\n  device: [nosuch]\n")
        .unwrap();
}

#[test]
fn the_write_probe_must_be_on_a_drive_whose_probe_runs() {
    let host = Host::new();
    let e = host
        .check(&format!("probe:\n{}", host.write_probe()))
        .unwrap_err();
    assert!(e.starts_with("probe.write.path: "), "{e}");
    assert!(
        e.contains("is on vdq, which is not a monitored drive (probed: none)"),
        "{e}"
    );
    assert!(e.contains("--probe.device=vdq"), "{e}");
    // Probed as an extra device, its filesystem takes the write probe.
    host.check(&format!("probe:\n  device: [vdq]\n{}", host.write_probe()))
        .unwrap();
    // A directory on no block device at all: refused as before.
    let elsewhere = tempfile::tempdir().unwrap();
    let other = Host::new();
    let yaml = format!(
        "probe:\n  write:\n    path: {}\n",
        elsewhere.path().join("missing").display()
    );
    assert!(
        other
            .check(&yaml)
            .unwrap_err()
            .starts_with("probe.write.path: ")
    );
}
