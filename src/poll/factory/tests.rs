//! A drive behind MegaRAID is polled through the controller's node, never
//! through SG_IO on a block device.

use super::*;
use crate::device::discovery::megaraid::PdAddress;

#[test]
fn a_drive_behind_megaraid_is_polled_through_the_management_node() {
    let root = tempfile::tempdir().unwrap();
    let node = root.path().join("megaraid_sas_ioctl_node");
    let d = Discovered {
        name: "megaraid2-pd5".into(),
        transport: Transport::Sata,
        dev_path: node.clone(),
        model: String::new(),
        serial: String::new(),
        firmware: String::new(),
        namespaces: Vec::new(),
        kind: Kind::Physical,
        basis: "behind MegaRAID".into(),
        sysfs: root.path().join("class/scsi_host/host2"),
        megaraid: Some(PdAddress {
            host_no: 2,
            target_id: 1,
            lun: 3,
        }),
        place: Default::default(),
        paths: Vec::new(),
        subsystem: None,
        usb: None,
    };
    let namer = Arc::new(Namer::builtin());
    let mut p = live(&d, Duration::from_secs(1), Standby::default(), &namer, None);
    assert!(
        p.origin().contains("host2 target 1 LUN 3"),
        "{}",
        p.origin()
    );
    // No node: every command's error names it and the drive behind it.
    let out = p.poll();
    assert!(!out.up);
    assert!(!out.errors.is_empty());
    for e in &out.errors {
        assert!(
            e.message.contains("host2 target 1 LUN 3")
                || e.message.contains(&*node.to_string_lossy()),
            "{}",
            e.message
        );
    }
}

#[test]
fn a_bridged_dump_must_hold_what_its_bridge_carries() {
    let namer = Arc::new(Namer::builtin());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("id-ctrl.bin"), vec![0u8; 4096]).unwrap();
    std::fs::write(dir.path().join("usb-bridge.txt"), "sat\n").unwrap();
    let e = replay(dir.path(), &namer).err().unwrap();
    assert!(e.contains("sat") && e.contains("Nvme"), "{e}");
    std::fs::write(dir.path().join("usb-bridge.txt"), "realtek\n").unwrap();
    let (_, transport, _) = replay(dir.path(), &namer).unwrap();
    assert_eq!(transport, Transport::Nvme);
    std::fs::write(dir.path().join("usb-bridge.txt"), "nonsense\n").unwrap();
    assert!(replay(dir.path(), &namer).is_err());
}
