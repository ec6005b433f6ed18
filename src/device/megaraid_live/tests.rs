//! What an MFI status and the sense buffer make of a command, with the
//! status values of `megaraid_sas.h` (`enum MFI_STAT`).

use super::*;
use crate::device::AtaSource;
use crate::device::sata_live::SataLive;

#[test]
fn a_completed_command_is_good_with_all_its_data() {
    let c = completion(0x00, &[0; 32], 512).unwrap();
    assert_eq!((c.status, c.sense_len, c.transferred), (0x00, 0, 512));
}

#[test]
fn an_error_with_sense_is_a_check_condition_the_source_reads() {
    // Fixed sense: ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE (20h/00h).
    let mut sense = [0u8; 32];
    sense[..14].copy_from_slice(&[0x70, 0, 0x05, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x20, 0x00]);
    let c = completion(0x2D, &sense, 512).unwrap();
    assert_eq!((c.status, c.sense_len, c.transferred), (0x02, 32, 0));
    let parsed = crate::ata::sense::parse_sense(&sense[..c.sense_len]);
    assert!(
        crate::scsi::command::outcome(c.status, &parsed)
            .unwrap_err()
            .is_unsupported()
    );
    // Descriptor sense (72h) too.
    sense[0] = 0x72;
    assert_eq!(completion(0x2D, &sense, 0).unwrap().status, 0x02);
}

#[test]
fn other_statuses_are_failures_or_a_vanished_drive() {
    assert_eq!(completion(0x0C, &[], 0), Err(NotCompleted::Gone));
    // An error status without sense says nothing the source could read.
    assert!(
        matches!(completion(0x2D, &[0; 32], 0), Err(NotCompleted::Failed(m)) if m.contains("2Dh"))
    );
    assert!(
        matches!(completion(0x2E, &[0; 32], 0), Err(NotCompleted::Failed(m)) if m.contains("2Eh"))
    );
    assert!(
        matches!(completion(0x01, &[0; 32], 0), Err(NotCompleted::Failed(m)) if m == "MFI status 01h")
    );
    // POLL_MODE left in place: the firmware never completed the frame.
    assert!(completion(0xFF, &[0; 32], 0).is_err());
}

#[test]
fn commands_that_need_ata_registers_are_not_sent() {
    // The node does not exist: had the command been sent, opening it would fail.
    let chan = MegaraidChannel::new(
        Path::new("/nonexistent/megaraid"),
        0,
        5,
        Duration::from_secs(1),
    );
    assert!(chan.origin().contains("host0 drive 5"));
    let mut sata = SataLive::over(Box::new(chan));
    match sata.smart_status() {
        Err(FetchError::Unsupported(m)) => assert!(m.contains("no ATA registers"), "{m}"),
        other => panic!("{other:?}"),
    }
    // A command without CK_COND goes to the node (and fails to open it).
    match sata.read(crate::device::AtaRead::Identify) {
        Err(FetchError::Gone(m)) => assert!(m.contains("/nonexistent/megaraid"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_node_is_made_only_from_a_listed_major() {
    let root = tempfile::tempdir().unwrap();
    let node = root.path().join("megaraid_sas_ioctl_node");
    let proc_devices = root.path().join("devices");
    std::fs::write(
        &proc_devices,
        "Character devices:\n  1 mem\n\nBlock devices:\n  8 sd\n",
    )
    .unwrap();
    let e = ensure_node(&node, &proc_devices).unwrap_err();
    assert!(e.contains("no megaraid_sas_ioctl"), "{e}");
    assert!(!node.exists());
    std::fs::write(&node, "").unwrap();
    assert_eq!(
        ensure_node(&node, &proc_devices),
        Ok(()),
        "an existing node is used"
    );
}

#[test]
fn a_listed_drive_is_named_by_controller_and_id_and_never_probed() {
    let pd = Pd {
        host_no: 2,
        device_id: 5,
        enclosure: Some(0xFC),
        slot: 3,
        sas_address: Some(0x5000_c500_a1b2_c3a0),
    };
    let node = Path::new("/dev/megaraid_sas_ioctl_node");
    let d = discovered(Path::new("/sys"), node, pd, 5);
    assert_eq!(d.name, "megaraid2-pd5");
    assert_eq!(d.dev_path, node);
    assert_eq!(
        d.megaraid,
        Some(PdAddress {
            host_no: 2,
            target_id: 5
        })
    );
    assert!(d.namespaces.is_empty(), "no block device to probe");
    assert_eq!(d.sysfs, Path::new("/sys/class/scsi_host/host2"));
    assert!(d.basis.contains("enclosure 252 slot 3"), "{}", d.basis);
    assert_eq!(
        (d.place.enclosure.as_str(), d.place.slot.as_str()),
        ("252", "3"),
        "served on ssd_device_info"
    );
    assert_eq!(d.place.sas_address, "0x5000c500a1b2c3a0");
}

#[test]
fn without_a_megaraid_host_nothing_is_asked() {
    let root = tempfile::tempdir().unwrap();
    let filter = Filter::default();
    // No scsi_host class: no node made, no ioctl.
    assert!(discover(root.path(), root.path(), &filter).is_empty());
    assert!(!root.path().join("megaraid_sas_ioctl_node").exists());
}
