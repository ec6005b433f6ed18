//! The watch against folders laid out as sysfs lays out a PCI function,
//! with text in the kernel's formats (`pci_speed_string`, `"%u"` widths,
//! `aer_stats_dev_attr`'s lines), rewritten in place between reads as the
//! kernel's attributes change under a file kept open.

use std::fs;
use std::path::Path;

use super::*;

fn write(dir: &Path, file: &str, text: &str) {
    fs::write(dir.join(file), text).unwrap();
}

/// A port `0000:00:02.0` with a function `0000:01:00.0` below it, a Gen4
/// x4 link running at Gen3 x4, and no AER capability.
fn function(root: &Path) -> PathBuf {
    let port = root.join("pci0000:00/0000:00:02.0");
    let dev = port.join("0000:01:00.0");
    fs::create_dir_all(&dev).unwrap();
    write(&dev, "current_link_speed", "8.0 GT/s PCIe\n");
    write(&dev, "max_link_speed", "16.0 GT/s PCIe\n");
    write(&dev, "current_link_width", "4\n");
    write(&dev, "max_link_width", "4\n");
    write(&port, "max_link_speed", "16.0 GT/s PCIe\n");
    write(&port, "max_link_width", "4\n");
    dev
}

const GT: u64 = 1_000_000_000;

#[test]
fn the_current_link_moves_every_read_and_the_maxima_every_nth() {
    let root = tempfile::tempdir().unwrap();
    let dev = function(root.path());
    let mut watch = PcieWatch::at(dev.clone(), 3);
    let (first, _) = watch.read().unwrap();
    assert_eq!(first.link.current_speed, Some(8 * GT));
    assert_eq!(first.link.max_speed, Some(16 * GT));
    assert_eq!(first.link.port_max_speed, Some(16 * GT));
    // The link retrains to Gen1 x1; the device is replaced by a Gen3 one.
    write(&dev, "current_link_speed", "2.5 GT/s PCIe\n");
    write(&dev, "current_link_width", "1\n");
    write(&dev, "max_link_speed", "8.0 GT/s PCIe\n");
    for _ in 0..2 {
        let (p, _) = watch.read().unwrap();
        assert_eq!(p.link.current_speed, Some(2_500_000_000));
        assert_eq!(p.link.current_width, Some(1));
        assert_eq!(
            p.link.max_speed,
            Some(16 * GT),
            "maxima kept until the 4th read"
        );
    }
    let (fourth, _) = watch.read().unwrap();
    assert_eq!(fourth.link.max_speed, Some(8 * GT));
}

#[test]
fn aer_counters_move_every_read_and_a_file_that_appears_is_opened_at_the_next_refresh() {
    let root = tempfile::tempdir().unwrap();
    let dev = function(root.path());
    let mut watch = PcieWatch::at(dev.clone(), 2);
    assert!(watch.read().unwrap().0.aer.is_empty());
    write(
        &dev,
        "aer_dev_correctable",
        "RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0\n",
    );
    assert!(
        watch.read().unwrap().0.aer.is_empty(),
        "not before the refresh"
    );
    let (p, errors) = watch.read().unwrap();
    assert_eq!(p.aer.len(), 1);
    assert_eq!(p.aer[0].total, 0);
    assert!(errors.is_empty());
    // The link logs a receiver error and a bad TLP: the same file, kept
    // open, says so at the next read.
    write(
        &dev,
        "aer_dev_correctable",
        "RxErr 1\nBadTLP 1\nTOTAL_ERR_COR 2\n",
    );
    let (p, _) = watch.read().unwrap();
    assert_eq!(p.aer[0].total, 2);
    assert_eq!(p.aer[0].nonzero.len(), 2);
}

#[test]
fn a_file_that_does_not_read_ends_the_watch() {
    let root = tempfile::tempdir().unwrap();
    let dev = function(root.path());
    // A folder opens read-only but does not read (EISDIR), as a removed
    // function's attribute opens no more (ENODEV).
    fs::remove_file(dev.join("current_link_width")).unwrap();
    fs::create_dir(dev.join("current_link_width")).unwrap();
    assert!(PcieWatch::at(dev, 5).read().is_none());
}

#[test]
fn only_a_pci_function_is_watched() {
    let root = tempfile::tempdir().unwrap();
    let dev = function(root.path());
    let ctrl = root.path().join("nvme0");
    fs::create_dir(&ctrl).unwrap();
    std::os::unix::fs::symlink(&dev, ctrl.join("device")).unwrap();
    let watch = PcieWatch::resolve(&ctrl.join("device"), 10).unwrap();
    assert_eq!(watch.function, fs::canonicalize(&dev).unwrap());
    let virtual_dev = root.path().join("virtual/nvme-fabrics");
    fs::create_dir_all(&virtual_dev).unwrap();
    assert!(PcieWatch::resolve(&virtual_dev, 10).is_none());
}
