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
    let parsed = crate::scsi::sense::parse_sense(&sense[..c.sense_len]);
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
    let at = PdAddress {
        host_no: 0,
        target_id: 5,
        lun: 0,
    };
    let chan = MegaraidChannel::new(
        Path::new("/nonexistent/megaraid"),
        at,
        Duration::from_secs(1),
    );
    assert!(
        chan.origin().ends_with("(megaraid_sas host0 target 5)"),
        "{}",
        chan.origin()
    );
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
}

/// Issue 33 part 5: only a character device with the driver's major is the
/// node. `/dev/null` is character 1:3 (the kernel's
/// Documentation/admin-guide/devices.txt: major 1 "mem", minor 3 null).
#[test]
fn only_a_character_device_with_the_drivers_major_is_the_node() {
    let null = Path::new("/dev/null");
    assert_eq!(inspect_node(null, 1).unwrap(), NodeFound::Right);
    assert_eq!(
        inspect_node(null, 249).unwrap(),
        NodeFound::Wrong("character device 1:3".into())
    );
    let root = tempfile::tempdir().unwrap();
    let node = root.path().join("megaraid_sas_ioctl_node");
    assert_eq!(inspect_node(&node, 1).unwrap(), NodeFound::Absent);
    std::os::unix::fs::symlink(null, &node).unwrap();
    // Not followed: a symlink to a device of the right major is still wrong.
    assert_eq!(
        inspect_node(&node, 1).unwrap(),
        NodeFound::Wrong("a symlink".into())
    );
    std::fs::remove_file(&node).unwrap();
    std::fs::write(&node, "").unwrap();
    assert_eq!(
        inspect_node(&node, 1).unwrap(),
        NodeFound::Wrong("a regular file".into())
    );
}

/// A regular file where the node belongs is removed and the node made
/// again; without CAP_MKNOD the error says so, and the file is gone all
/// the same.
#[test]
fn a_wrong_node_is_made_again() {
    let root = tempfile::tempdir().unwrap();
    let node = root.path().join("megaraid_sas_ioctl_node");
    let proc_devices = root.path().join("devices");
    std::fs::write(
        &proc_devices,
        "Character devices:\n  1 mem\n249 megaraid_sas_ioctl\n\nBlock devices:\n  8 sd\n",
    )
    .unwrap();
    std::fs::write(&node, "not a device").unwrap();
    match ensure_node(&node, &proc_devices) {
        Ok(()) => assert_eq!(inspect_node(&node, 249).unwrap(), NodeFound::Right),
        Err(e) => {
            assert!(e.contains("CAP_MKNOD"), "{e}");
            assert_eq!(inspect_node(&node, 249).unwrap(), NodeFound::Absent);
        }
    }
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
    let at = PdAddress {
        host_no: 2,
        target_id: 5,
        lun: 0,
    };
    let d = discovered(Path::new("/sys"), node, pd, at);
    assert_eq!(d.name, "megaraid2-pd5");
    assert_eq!(d.dev_path, node);
    assert_eq!(d.megaraid, Some(at));
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

/// A SATA drive behind the controller, answering ATA PASS-THROUGH from the
/// failing DC600M fixture's pages, through [`completion`] as the ioctl's MFI
/// status and sense make it: no ATA registers (so no SMART RETURN STATUS),
/// and an ILLEGAL REQUEST for anything the fixture does not hold.
struct FixtureDrive {
    dir: std::path::PathBuf,
}

impl FixtureDrive {
    fn answer(&self, cdb: &[u8]) -> Option<Vec<u8>> {
        let file = match (cdb[14], cdb[4], cdb[8]) {
            (0xEC, _, _) => "identify.bin".to_string(),
            (0xB0, 0xD0, _) => "smart-data.bin".into(),
            (0xB0, 0xD1, _) => "smart-thresholds.bin".into(),
            (0xB0, 0xD5, 0x06) => "smart-self-test-log.bin".into(),
            (0xB0, 0xD5, 0x01) => "smart-error-log.bin".into(),
            (0x2F, _, 0x04) => format!("devstat-{:02x}.bin", cdb[10]),
            _ => return None,
        };
        std::fs::read(self.dir.join(file)).ok()
    }
}

impl Channel for FixtureDrive {
    fn origin(&self) -> String {
        "fixture (megaraid_sas host0 target 4)".into()
    }

    fn issue(
        &mut self,
        _what: &str,
        cdb: &[u8],
        data: DataIn<'_>,
        sense: &mut [u8],
    ) -> Result<Completion, FetchError> {
        let (status, len) = match (self.answer(cdb), data) {
            (Some(bytes), DataIn::Buffer(buf)) if bytes.len() >= buf.len() => {
                let n = buf.len();
                buf.copy_from_slice(&bytes[..n]);
                (MFI_STAT_OK, n)
            }
            _ => {
                // Fixed sense, ILLEGAL REQUEST, INVALID FIELD IN CDB.
                sense.fill(0);
                sense[0] = 0x70;
                sense[2] = 0x05;
                sense[7] = 10;
                sense[12] = 0x24;
                (MFI_STAT_SCSI_DONE_WITH_ERROR, 0)
            }
        };
        completion(status, sense, len).map_err(|e| FetchError::Failed(format!("{e:?}")))
    }

    fn ata_registers_unavailable(&self) -> Option<&'static str> {
        Some(NO_ATA_REGISTERS)
    }
}

/// What QEMU cannot show: SMART data of a SATA drive behind the controller.
/// Its attributes are read and served, and with no SMART status the verdict
/// judges them against their thresholds: 231 SSD_Life_Left at 5 (threshold
/// 10, smartctl's FAILING_NOW in the fixture's meta.toml) is critical, and
/// the missing status is no `data_missing` warning.
#[test]
fn a_sata_drive_behind_the_controller_is_judged_by_its_attributes() {
    use crate::ata::attributes::Namer;
    use crate::poll::Poller;
    use crate::poll::sata::{SataPolicy, SataPoller};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sata/failing/sdd");
    let src = Box::new(SataLive::over(Box::new(FixtureDrive { dir })));
    let mut poller = SataPoller::new(src, std::sync::Arc::new(Namer::builtin()), SataPolicy::LIVE);
    let out = poller.poll();
    assert!(out.up, "{:?}", out.errors);
    assert_eq!(out.identity.as_ref().unwrap().serial, "REDACTED00000004");
    let r = out.reading.expect("a reading");
    let life = r.ata_attributes.iter().find(|a| a.id == 231).expect("231");
    assert_eq!((life.value, life.threshold), (Some(5), Some(10)));
    assert_eq!(r.smart_passed, Some(false));
    let v = crate::health::verdict::judge_up(&r, Default::default());
    let names: Vec<&str> = v.problems.iter().map(|p| p.name.as_label()).collect();
    assert!(names.contains(&"smart_failed"), "{names:?}");
    assert!(!names.contains(&"data_missing"), "{names:?}");
}
