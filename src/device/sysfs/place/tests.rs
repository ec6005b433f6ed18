//! Places over a fake sysfs and /dev laid out as the kernel and udev lay
//! them out: class links into /sys/devices, PCI slots, an SES enclosure
//! whose component links to a SAS disk, the SAS transport class, by-path.

use std::os::unix::fs::symlink;

use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A host with an NVMe controller in PCI slot 3 and a SAS disk in slot 5
/// of an enclosure; returns (sysfs, dev).
fn host(root: &Path) -> (PathBuf, PathBuf) {
    let sys = root.join("sys");
    let dev = root.join("dev");
    // NVMe: /sys/class/nvme/nvme0 -> the controller under its PCI function.
    let function = sys.join("devices/pci0000:00/0000:00:02.0/0000:01:00.0");
    let ctrl = function.join("nvme/nvme0");
    std::fs::create_dir_all(&ctrl).unwrap();
    symlink("../../../0000:01:00.0", ctrl.join("device")).unwrap();
    std::fs::create_dir_all(sys.join("class/nvme")).unwrap();
    symlink(&ctrl, sys.join("class/nvme/nvme0")).unwrap();
    write(&sys.join("bus/pci/slots/3/address"), "0000:01:00\n");
    write(&sys.join("bus/pci/slots/7/address"), "0000:02:00\n");
    // SAS: a disk under port-0:1/end_device-0:1, attached through phy-0:1.
    let port = sys.join("devices/pci0000:00/0000:00:03.0/0000:03:00.0/host0/port-0:1");
    std::fs::create_dir_all(port.join("phy-0:1")).unwrap();
    let end = port.join("end_device-0:1");
    write(
        &end.join("sas_device/end_device-0:1/sas_address"),
        "0x5000c500a1b2c3a0\n",
    );
    let scsi_dev = end.join("target0:0:1/0:0:1:0");
    let block = scsi_dev.join("block/sda");
    std::fs::create_dir_all(&block).unwrap();
    symlink("../../../0:0:1:0", block.join("device")).unwrap();
    std::fs::create_dir_all(sys.join("block")).unwrap();
    symlink(&block, sys.join("block/sda")).unwrap();
    // The enclosure (an SES device), its component for slot 5 naming the disk.
    let encl = sys.join("class/enclosure/0:0:9:0");
    write(&encl.join("id"), "0x500605b0000272bf\n");
    write(&encl.join("Slot 05/slot"), "5\n");
    symlink(&scsi_dev, encl.join("Slot 05/device")).unwrap();
    write(&encl.join("Slot 06/slot"), "6\n");
    // udev's by-path links, a partition's too.
    let by_path = dev.join("disk/by-path");
    std::fs::create_dir_all(&by_path).unwrap();
    for (link, target) in [
        ("pci-0000:01:00.0-nvme-1", "../../nvme0n1"),
        ("pci-0000:03:00.0-sas-0x5000c500a1b2c3a0-lun-0", "../../sda"),
        (
            "pci-0000:03:00.0-sas-0x5000c500a1b2c3a0-lun-0-part1",
            "../../sda1",
        ),
    ] {
        symlink(target, by_path.join(link)).unwrap();
    }
    (sys, dev)
}

#[test]
fn an_nvme_controller_by_pci_address_slot_and_by_path() {
    let root = tempfile::tempdir().unwrap();
    let (sys, dev) = host(root.path());
    let index = PlaceIndex::read(&sys, &dev);
    let place = index.nvme(&sys.join("class/nvme/nvme0"), Some("nvme0n1"));
    assert_eq!(
        place,
        Place {
            pci_address: "0000:01:00.0".into(),
            slot: "3".into(),
            path: "pci-0000:01:00.0-nvme-1".into(),
            ..Place::default()
        }
    );
    // A fabrics controller's device is no PCI function: nothing to say.
    let tcp = sys.join("devices/virtual/nvme-fabrics/ctl/nvme1");
    std::fs::create_dir_all(&tcp).unwrap();
    symlink("..", tcp.join("device")).unwrap();
    assert_eq!(index.nvme(&tcp, Some("nvme1n1")), Place::default());
}

#[test]
fn a_sas_disk_by_address_phy_enclosure_slot_and_by_path() {
    let root = tempfile::tempdir().unwrap();
    let (sys, dev) = host(root.path());
    let index = PlaceIndex::read(&sys, &dev);
    assert_eq!(index.bays.len(), 1, "the empty slot names no device");
    let place = index.scsi(&sys.join("block/sda"));
    assert_eq!(
        place,
        Place {
            sas_address: "0x5000c500a1b2c3a0".into(),
            sas_phy: "phy-0:1".into(),
            enclosure: "0x500605b0000272bf".into(),
            slot: "5".into(),
            path: "pci-0000:03:00.0-sas-0x5000c500a1b2c3a0-lun-0".into(),
            ..Place::default()
        }
    );
}

#[test]
fn without_an_id_or_a_slot_number_the_names_are_used() {
    let root = tempfile::tempdir().unwrap();
    let (sys, dev) = host(root.path());
    let encl = sys.join("class/enclosure/0:0:9:0");
    std::fs::remove_file(encl.join("id")).unwrap();
    std::fs::remove_file(encl.join("Slot 05/slot")).unwrap();
    let index = PlaceIndex::read(&sys, &dev);
    let place = index.scsi(&sys.join("block/sda"));
    assert_eq!(
        (place.enclosure.as_str(), place.slot.as_str()),
        ("0:0:9:0", "Slot 05")
    );
}

#[test]
fn without_udev_slots_or_enclosures_there_is_no_place() {
    let root = tempfile::tempdir().unwrap();
    let sys = root.path().join("sys");
    let block = sys.join("block/sdb/device");
    std::fs::create_dir_all(&block).unwrap();
    let index = PlaceIndex::read(&sys, &root.path().join("dev"));
    assert_eq!(index, PlaceIndex::default());
    assert_eq!(index.scsi(&sys.join("block/sdb")), Place::default());
    assert_eq!(index.pci_slot("0000:01:00.0"), None);
    assert_eq!(index.pci_slot("garbage"), None);
}
