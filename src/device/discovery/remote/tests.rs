//! A fake sysfs tree laid out as the FC and iSCSI transport classes and
//! device-mapper lay out a real one (see the module's docs).

use std::path::Path;

use super::*;
use crate::device::discovery::{Filter, Kind, Transport, scsi_disks, scsi_facts};

#[test]
fn path_components_name_fc_remote_ports_and_iscsi_sessions() {
    assert!(is_fc_remote_port("rport-3:0-1"));
    assert!(is_fc_remote_port("rport-12:0-115"));
    // The SAS transport class's ports and end devices, and near misses.
    assert!(!is_fc_remote_port("port-0:0"));
    assert!(!is_fc_remote_port("end_device-0:0"));
    assert!(!is_fc_remote_port("rport-3:0"));
    assert!(!is_fc_remote_port("rport-3-1"));
    assert!(!is_fc_remote_port("rport-a:0-1"));
    assert!(is_iscsi_session("session2"));
    assert!(!is_iscsi_session("session"));
    assert!(!is_iscsi_session("sessions"));
}

/// A disk under `devices/<path>` (its `H:C:T:L` folder) as `block/<name>`,
/// with `vendor` and its host's `proc_name`.
fn disk(root: &Path, name: &str, path: &str, vendor: &str, proc_name: &str) {
    let dev = root.join("devices").join(path);
    let blk = dev.join("block").join(name);
    std::fs::create_dir_all(&blk).unwrap();
    std::fs::write(dev.join("type"), "0\n").unwrap();
    std::fs::write(dev.join("vendor"), format!("{vendor}\n")).unwrap();
    std::os::unix::fs::symlink(&dev, blk.join("device")).unwrap();
    let host = path.split('/').find(|c| c.starts_with("host")).unwrap();
    let at = &path[..path.find(host).unwrap() + host.len()];
    let class = root.join("devices").join(at).join("scsi_host").join(host);
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("proc_name"), format!("{proc_name}\n")).unwrap();
    std::fs::create_dir_all(root.join("block")).unwrap();
    std::os::unix::fs::symlink(&blk, root.join("block").join(name)).unwrap();
}

/// `block/<disk>/holders/<dm>` → `block/<dm>`, whose `dm/uuid` is `uuid`.
fn holder(root: &Path, disk: &str, dm: &str, uuid: &str, name: &str) {
    let map = root.join("devices/virtual/block").join(dm);
    std::fs::create_dir_all(map.join("dm")).unwrap();
    std::fs::write(map.join("dm/uuid"), format!("{uuid}\n")).unwrap();
    std::fs::write(map.join("dm/name"), format!("{name}\n")).unwrap();
    let link = root.join("block").join(dm);
    if !link.exists() {
        std::os::unix::fs::symlink(&map, &link).unwrap();
    }
    let holders = root.join("block").join(disk).join("holders");
    std::fs::create_dir_all(&holders).unwrap();
    std::os::unix::fs::symlink(&map, holders.join(dm)).unwrap();
}

/// Issue 33 part 3: an FC LUN, an iSCSI LUN and a path of a multipath map
/// are LUNs whatever their INQUIRY says; a dual-ported SAS drive under a
/// multipath map, a disk under an LVM map and a plain SAS drive are drives.
#[test]
fn the_transport_in_sysfs_makes_a_lun() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let pci = "pci0000:00/0000:00:03.0/0000:05:00.0";
    disk(
        r,
        "sdb",
        &format!("{pci}/host3/rport-3:0-1/target3:0:1/3:0:1:7"),
        "ACME",
        "qla2xxx",
    );
    disk(
        r,
        "sdc",
        "platform/host5/session2/target5:0:0/5:0:0:0",
        "ACME",
        "iscsi_tcp",
    );
    disk(
        r,
        "sdd",
        &format!("{pci}/host4/target4:0:0/4:0:0:1"),
        "ACME",
        "ib_srp",
    );
    let sas = "host0/port-0:1/end_device-0:1/target0:0:1/0:0:1:0";
    disk(r, "sde", &format!("{pci}/{sas}"), "SEAGATE", "mpt3sas");
    disk(
        r,
        "sdf",
        &format!("{pci}/host0/port-0:2/end_device-0:2/target0:0:2/0:0:2:0"),
        "SEAGATE",
        "mpt3sas",
    );
    disk(
        r,
        "sdg",
        "pci0000:00/0000:00:1f.2/ata1/host6/target6:0:0/6:0:0:0",
        "ATA",
        "ahci",
    );
    holder(
        r,
        "sdd",
        "dm-3",
        "mpath-3600a098038314b6f2b5d4a6d7a6e4f41",
        "mpatha",
    );
    holder(r, "sde", "dm-4", "mpath-35000c500a1b2c3d4", "mpathb");
    holder(r, "sdg", "dm-5", "LVM-abcdef", "vg0-root");
    assert!(scsi_facts(&r.join("block/sdb")).fc_remote_port);
    assert_eq!(multipath_holder(&r.join("block/sdd")), "dm-3 (mpatha)");
    assert_eq!(multipath_holder(&r.join("block/sdg")), "");
    let found = scsi_disks(r, Path::new("/dev"), &Filter::default());
    let got: Vec<_> = found
        .iter()
        .map(|d| (d.name.as_str(), d.kind, d.probed()))
        .collect();
    use Kind::{Physical, Volume};
    assert_eq!(
        got,
        [
            ("sdb", Volume, false),
            ("sdc", Volume, false),
            ("sdd", Volume, false),
            ("sde", Physical, true),
            ("sdf", Physical, true),
            ("sdg", Physical, true),
        ]
    );
    let basis = |n: usize| found[n].basis.split("; ").nth(1).unwrap_or_default();
    assert_eq!(
        basis(0),
        "kind volume: a LUN behind a Fibre Channel remote port"
    );
    assert_eq!(basis(1), "kind volume: a LUN of an iSCSI session");
    assert_eq!(
        basis(2),
        "kind volume: a path of the device-mapper multipath map dm-3 (mpatha)"
    );
    assert_eq!(found[3].transport, Transport::Sas);
}
