//! A fake sysfs tree in the shape mptsas gives under QEMU
//! (tests/vm/README.md, the SAS HBA boot): the disk under its end device,
//! the port holding the HBA phy.

use super::*;

#[test]
fn the_disks_phy_and_its_ports_link_rate() {
    let root = tempfile::tempdir().unwrap();
    let host = root.path().join("devices/pci0000:00/0000:00:03.0/host2");
    let port = host.join("port-2:0");
    let end = port.join("end_device-2:0");
    let disk = end.join("target2:0:0/2:0:0:0");
    std::fs::create_dir_all(disk.join("block/sda")).unwrap();
    let class = end.join("sas_device/end_device-2:0");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("phy_identifier"), "0\n").unwrap();
    let phy = host.join("phy-2:3");
    std::fs::create_dir_all(phy.join("sas_phy/phy-2:3")).unwrap();
    std::fs::write(
        phy.join("sas_phy/phy-2:3/negotiated_linkrate"),
        "3.0 Gbit\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&phy, port.join("phy-2:3")).unwrap();
    let block = root.path().join("block");
    std::fs::create_dir_all(&block).unwrap();
    std::os::unix::fs::symlink(disk.join("block/sda"), block.join("sda")).unwrap();
    assert_eq!(links(&block.join("sda")), [(0, 3_000_000_000)]);
    // A phy that is not up: no rate, no series.
    std::fs::write(
        phy.join("sas_phy/phy-2:3/negotiated_linkrate"),
        "Phy disabled\n",
    )
    .unwrap();
    assert_eq!(links(&block.join("sda")), []);
    // A disk on another transport: nothing.
    let plain = root.path().join("devices/virtual/block/sdb");
    std::fs::create_dir_all(&plain).unwrap();
    assert_eq!(links(&plain), []);
}

#[test]
fn link_rate_texts() {
    assert_eq!(link_rate("1.5 Gbit"), Some(1_500_000_000));
    assert_eq!(link_rate("12.0 Gbit\n"), Some(12_000_000_000));
    assert_eq!(link_rate("22.5 Gbit"), Some(22_500_000_000));
    assert_eq!(link_rate("Unknown"), None);
    assert_eq!(link_rate("Phy disabled"), None);
    assert_eq!(link_rate("-3 Gbit"), None);
}
