//! Discovery over fake sysfs trees, and the transport decision over
//! INQUIRY / VPD bytes and sysfs facts.

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

/// Issue 33 part 5: identity strings from sysfs are made printable as the
/// drive's own pages' are: every byte outside ASCII 20h-7Eh becomes `?`
/// (an escape sequence, a newline, a tab, each byte of a UTF-8 `é`), and
/// the kernel's trailing newline and padding are trimmed.
#[test]
fn identity_strings_from_sysfs_are_made_printable() {
    let root = tempfile::tempdir().unwrap();
    controller(root.path(), "nvme0", "x", &[]);
    let dir = root.path().join("class/nvme/nvme0");
    std::fs::write(dir.join("model"), "\x1b]0;owned\x07EVIL\nSSD\tX \u{e9}  \n").unwrap();
    std::fs::write(dir.join("serial"), b"SN\x1b[2J1\xff\n").unwrap();
    let found = nvme_controllers(root.path(), Path::new("/dev"), &Filter::default());
    assert_eq!(found[0].model, "?]0;owned?EVIL?SSD?X ??");
    assert_eq!(found[0].serial, "SN?[2J1?");
    assert_eq!(found[0].firmware, "FW1");
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
        ..Filter::default()
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
    // A USB bridge with a SAT layer stays a SATA drive, as before.
    let usb_sat = ScsiFacts {
        usb: true,
        ..ahci.clone()
    };
    assert_eq!(scsi_transport(&usb_sat), Some(Transport::Sata));
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

/// A disk under `devices/<path>` (its `H:C:T:L` folder) as `block/<name>`,
/// its host adapter `proc_name` under `hostN/scsi_host/hostN`.
fn scsi_disk(root: &Path, name: &str, path: &str, vendor: &str, proc_name: &str) {
    let dev = root.join("devices").join(path);
    let blk = dev.join("block").join(name);
    std::fs::create_dir_all(&blk).unwrap();
    std::fs::write(dev.join("type"), "0\n").unwrap();
    std::fs::write(dev.join("vendor"), format!("{vendor}\n")).unwrap();
    std::os::unix::fs::symlink(&dev, blk.join("device")).unwrap();
    let host = root
        .join("devices")
        .join(&path[..path.find("/target").unwrap()]);
    let host_name = host.file_name().unwrap().to_owned();
    let class = host.join("scsi_host").join(&host_name);
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("proc_name"), format!("{proc_name}\n")).unwrap();
    std::fs::create_dir_all(root.join("block")).unwrap();
    std::os::unix::fs::symlink(&blk, root.join("block").join(name)).unwrap();
}

/// Point 9: a MegaRAID logical drive (channel 2) and a virtual disk by its
/// INQUIRY vendor are virtual; a drive the controller passes through
/// (channel 0) and a SAS SSD are physical; an ATA-vendor logical drive is
/// driven with SCSI commands, not as SATA.
#[test]
fn the_kind_comes_from_the_host_adapter_and_the_inquiry_strings() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    scsi_disk(
        r,
        "sda",
        "pci0000:00/0000:00:05.0/host0/target0:2:0/0:2:0:0",
        "LSI",
        "megaraid_sas",
    );
    scsi_disk(
        r,
        "sdb",
        "pci0000:00/0000:00:05.0/host0/target0:0:5/0:0:5:0",
        "SEAGATE",
        "megaraid_sas",
    );
    scsi_disk(
        r,
        "sdc",
        "pci0000:00/0000:00:06.0/host1/target1:0:0/1:0:0:0",
        "QEMU",
        "virtio_scsi",
    );
    scsi_disk(
        r,
        "sdd",
        "pci0000:00/0000:00:07.0/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0",
        "SEAGATE",
        "mptsas",
    );
    scsi_disk(
        r,
        "sde",
        "pci0000:00/0000:00:05.0/host0/target0:2:1/0:2:1:0",
        "ATA",
        "megaraid_sas",
    );
    let facts = scsi_facts(&r.join("block/sda"));
    assert_eq!(
        (facts.proc_name.as_str(), facts.channel),
        ("megaraid_sas", Some(2))
    );
    let found = scsi_disks(r, Path::new("/dev"), &Filter::default());
    let got: Vec<_> = found
        .iter()
        .map(|d| (d.name.as_str(), d.transport, d.kind))
        .collect();
    use Kind::{Physical, Virtual};
    assert_eq!(
        got,
        [
            ("sda", Transport::Scsi, Virtual),
            ("sdb", Transport::Scsi, Physical),
            ("sdc", Transport::Scsi, Virtual),
            ("sdd", Transport::Sas, Physical),
            ("sde", Transport::Scsi, Virtual),
        ]
    );
    assert_eq!(
        found[0].basis,
        "no SAT hint (vendor not ATA, no VPD 89h) and no SAS transport class; kind virtual: \
         a logical drive of a megaraid_sas RAID controller channel 2"
    );
    assert_eq!(found[3].sysfs, r.join("block/sdd"));
}

/// Only a physical drive on this host is probed and self-tested
/// (`app::drives` covers a drive with self-tests when this says so): never
/// one behind MegaRAID (the controller's patrol read is its own, and a test
/// through its pass-through is invisible to it), nor a fabric target's.
#[test]
fn only_a_local_physical_drive_is_probed_and_self_tested() {
    let local = Discovered {
        name: "sda".into(),
        transport: Transport::Sata,
        dev_path: "/dev/sda".into(),
        model: "MODEL".into(),
        serial: "SERIAL".into(),
        firmware: "FW".into(),
        namespaces: vec!["sda".into()],
        kind: Kind::Physical,
        basis: String::new(),
        sysfs: "/sys/block/sda".into(),
        megaraid: None,
        usb: None,
        place: Place::default(),
        paths: Vec::new(),
        subsystem: None,
    };
    assert!(local.probed());
    let behind_megaraid = Discovered {
        megaraid: Some(megaraid::PdAddress {
            host_no: 0,
            target_id: 8,
            lun: 0,
        }),
        ..local.clone()
    };
    assert!(!behind_megaraid.probed(), "a drive behind MegaRAID");
    let mut fabric = local.clone();
    fabric.place.fabric = "tcp".into();
    assert!(!fabric.probed(), "a fabric target");
    let volume = Discovered {
        kind: Kind::Virtual,
        ..local
    };
    assert!(!volume.probed(), "a virtual volume");
}
