//! USB disks in fake sysfs trees laid out as the kernel lays them out
//! (`…/usbN/N-M/N-M:1.0/hostH/targetH:0:0/H:0:0:0/block/sdX`, the
//! interface's `driver` a link to `usb-storage` or `uas`), and the
//! decisions over drivedb.h excerpts (VERSION 7.5).

use std::path::PathBuf;
use std::sync::Arc;

use super::*;
use crate::ata::attributes::drivedb::DriveDb;
use crate::device::discovery::{Filter, scan_noting};

const DB: &str = r#"
  { "USB: ; JMicron JMS583", "0x152d:0x0583", "", "", "-d sntjmicron" },
  { "USB: ; ASMedia ASM2362", "0x174c:0x2362", "", "", "-d sntasmedia" },
  { "USB: ; Realtek RTL9210", "0x0bda:0x9210", "", "", "-d sntrealtek" },
  { "USB: ; JMicron JMS578", "0x152d:0x0578", "", "", "-d sat" },
  { "USB: ; Prolific PL2507", "0x067b:0x2507", "", "", "-d usbjmicron,0" },
  { "USB: ; Oxford OXU921DS", "0x0928:0x0002", "", "", "" },
  { "USB: ; Initio", "0x13fd:0x1340", "", "", "-d sat,12" },
  { "USB: ; JMicron", "0x152d:0x0562", "", "", "-d sntjmicron/sat" },
"#;

fn table() -> Arc<UsbTable> {
    Arc::new(DriveDb::parse(DB).0.usb)
}

/// A USB disk `name` behind `vid:pid` (bcdDevice 0x0214), driven by
/// `driver`, with INQUIRY vendor `vendor`.
fn usb_disk(root: &Path, name: &str, n: u8, (vid, pid): (u16, u16), driver: &str, vendor: &str) {
    let usb = root.join(format!("devices/pci0000:00/0000:00:14.0/usb2/2-{n}"));
    let interface = usb.join(format!("2-{n}:1.0"));
    let sdev = interface.join(format!("host{n}/target{n}:0:0/{n}:0:0:0"));
    let blk = sdev.join("block").join(name);
    std::fs::create_dir_all(&blk).unwrap();
    for (file, text) in [
        ("idVendor", format!("{vid:04x}\n")),
        ("idProduct", format!("{pid:04x}\n")),
        ("bcdDevice", "0214\n".into()),
        ("serial", format!("ENCL{n:08}\n")),
        ("manufacturer", "Maker\n".into()),
        ("product", "Enclosure\n".into()),
    ] {
        std::fs::write(usb.join(file), text).unwrap();
    }
    let drivers = root.join("bus/usb/drivers").join(driver);
    std::fs::create_dir_all(&drivers).unwrap();
    std::os::unix::fs::symlink(&drivers, interface.join("driver")).unwrap();
    std::fs::write(sdev.join("type"), "0\n").unwrap();
    std::fs::write(sdev.join("vendor"), format!("{vendor:<8}\n")).unwrap();
    std::fs::write(sdev.join("model"), "Portable SSD    \n").unwrap();
    std::fs::write(sdev.join("rev"), "0214\n").unwrap();
    std::fs::write(blk.join("size"), "1953525168\n").unwrap();
    std::os::unix::fs::symlink(&sdev, blk.join("device")).unwrap();
    std::fs::create_dir_all(root.join("block")).unwrap();
    std::os::unix::fs::symlink(&blk, root.join("block").join(name)).unwrap();
}

fn facts(vid: u16, pid: u16) -> UsbFacts {
    UsbFacts {
        vid,
        pid,
        bcd: Some(0x0214),
        driver: "uas".into(),
        ..UsbFacts::default()
    }
}

#[test]
fn the_usb_device_above_the_disk() {
    let root = tempfile::tempdir().unwrap();
    usb_disk(root.path(), "sdu", 3, (0x152d, 0x0583), "uas", "JMicron");
    let f = usb_facts(&root.path().join("block/sdu")).unwrap();
    assert_eq!((f.vid, f.pid, f.bcd), (0x152d, 0x0583, Some(0x0214)));
    assert_eq!(f.driver, "uas");
    assert_eq!(f.serial, "ENCL00000003");
    assert_eq!(
        (f.manufacturer.as_str(), f.product.as_str()),
        ("Maker", "Enclosure")
    );
}

#[test]
fn a_disk_not_behind_usb_has_no_usb_device() {
    let root = tempfile::tempdir().unwrap();
    let sdev = root
        .path()
        .join("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0");
    let blk = sdev.join("block/sda");
    std::fs::create_dir_all(&blk).unwrap();
    std::os::unix::fs::symlink(&sdev, blk.join("device")).unwrap();
    assert_eq!(usb_facts(&blk), None);
}

#[test]
fn drivedb_decides_the_bridge_and_how_it_is_read() {
    let t = table();
    let plan_of = |vid, pid, hints| {
        let (b, p, _) = plan(&t, &facts(vid, pid), hints);
        (b, p)
    };
    use crate::usb::{CdbLen::*, NvmeBridge as N};
    let nvme = |family, or_sat| Plan::Nvme { family, or_sat };
    assert_eq!(
        plan_of(0x152d, 0x0583, false),
        (Bridge::Jmicron, nvme(N::Jmicron, false))
    );
    assert_eq!(
        plan_of(0x174c, 0x2362, false),
        (Bridge::Asmedia, nvme(N::Asmedia, false))
    );
    assert_eq!(
        plan_of(0x0bda, 0x9210, false),
        (Bridge::Realtek, nvme(N::Realtek, false))
    );
    assert_eq!(
        plan_of(0x152d, 0x0562, false),
        (Bridge::Jmicron, nvme(N::Jmicron, true))
    );
    assert_eq!(
        plan_of(0x152d, 0x0578, false),
        (Bridge::Sat, Plan::Sat(Sixteen))
    );
    assert_eq!(
        plan_of(0x13fd, 0x1340, false),
        (Bridge::Sat, Plan::Sat(Twelve))
    );
    // A SAT hint does not overrule drivedb.h.
    assert_eq!(
        plan_of(0x152d, 0x0583, true),
        (Bridge::Jmicron, nvme(N::Jmicron, false))
    );
    // Listed, and nothing the exporter sends.
    assert_eq!(
        plan_of(0x0928, 0x0002, true),
        (Bridge::Unsupported, Plan::Alone)
    );
    assert_eq!(
        plan_of(0x067b, 0x2507, true),
        (Bridge::UsbJmicron, Plan::Alone)
    );
    // Unknown: SAT only where the bridge shows a SAT layer.
    assert_eq!(
        plan_of(0x46f4, 0x0001, false),
        (Bridge::Unknown, Plan::Alone)
    );
    assert_eq!(
        plan_of(0x46f4, 0x0001, true),
        (Bridge::Unknown, Plan::Sat(Sixteen))
    );
    let (_, _, why) = plan(&t, &facts(0x46f4, 0x0001), false);
    assert!(
        why.contains("46f4:0001") && why.contains("Unknown USB bridge"),
        "{why}"
    );
}

#[test]
fn an_unknown_device_type_is_left_alone() {
    let t = Arc::new(
        DriveDb::parse(r#"{ "USB: x; ", "0x1234:0x5678", "", "", "-d sntfoo" },"#)
            .0
            .usb,
    );
    let (b, p, why) = plan(&t, &facts(0x1234, 0x5678), true);
    assert_eq!((b, p), (Bridge::Unknown, Plan::Alone));
    assert!(why.contains("sntfoo"), "{why}");
}

fn scan_usb(root: &Path, usb: Option<Arc<UsbTable>>) -> crate::device::discovery::Scan {
    let filter = Filter {
        usb,
        ..Filter::default()
    };
    scan_noting(root, Path::new("/dev"), &filter)
}

#[test]
fn usb_disks_are_found_with_their_bridge() {
    let root = tempfile::tempdir().unwrap();
    usb_disk(root.path(), "sdu", 3, (0x152d, 0x0583), "uas", "JMicron");
    usb_disk(
        root.path(),
        "sdv",
        4,
        (0x46f4, 0x0001),
        "usb-storage",
        "QEMU",
    );
    usb_disk(root.path(), "sdw", 5, (0x46f4, 0x0003), "uas", "ATA");
    let scan = scan_usb(root.path(), Some(table()));
    let seen: Vec<(&str, Transport, Option<Bridge>, Option<Plan>)> = scan
        .drives
        .iter()
        .map(|d| {
            let u = d.usb.as_ref();
            (
                d.name.as_str(),
                d.transport,
                u.map(|u| u.bridge),
                u.map(|u| u.plan),
            )
        })
        .collect();
    use crate::usb::NvmeBridge as N;
    assert_eq!(
        seen,
        [
            (
                "sdu",
                Transport::Nvme,
                Some(Bridge::Jmicron),
                Some(Plan::Nvme {
                    family: N::Jmicron,
                    or_sat: false
                })
            ),
            (
                "sdv",
                Transport::Scsi,
                Some(Bridge::Unknown),
                Some(Plan::Alone)
            ),
            (
                "sdw",
                Transport::Sata,
                Some(Bridge::Unknown),
                Some(Plan::Sat(crate::usb::CdbLen::Sixteen))
            ),
        ]
    );
    let sdu = &scan.drives[0];
    assert_eq!(sdu.place.bus, Some(Bus::Usb));
    assert_eq!(sdu.place.bridge, Some(Bridge::Jmicron));
    assert_eq!(sdu.model, "JMicron Portable SSD");
    assert_eq!(
        sdu.serial, "ENCL00000003",
        "the enclosure's serial: no VPD 80h"
    );
    assert_eq!(sdu.firmware, "0214");
    assert_eq!(sdu.namespaces, ["sdu"]);
    assert!(!sdu.probed(), "a USB disk is probed only when named");
    assert!(scan.skipped.is_empty());
}

#[test]
fn without_discovery_usb_the_disks_are_noted_and_left_alone() {
    let root = tempfile::tempdir().unwrap();
    usb_disk(root.path(), "sdu", 3, (0x152d, 0x0583), "uas", "JMicron");
    let scan = scan_usb(root.path(), None);
    assert!(scan.drives.is_empty());
    let (name, why): &(String, String) = &scan.skipped[0];
    assert_eq!(name, "sdu");
    assert!(
        why.contains("152d:0583") && why.contains("discovery.usb"),
        "{why}"
    );
}

#[test]
fn a_usb_device_that_is_not_a_disk_is_not_a_drive() {
    let root = tempfile::tempdir().unwrap();
    usb_disk(root.path(), "sdu", 3, (0x152d, 0x0583), "uas", "JMicron");
    let dev: PathBuf = std::fs::canonicalize(root.path().join("block/sdu/device")).unwrap();
    std::fs::write(dev.join("type"), "5\n").unwrap(); // a CD-ROM
    assert!(scan_usb(root.path(), Some(table())).drives.is_empty());
}
