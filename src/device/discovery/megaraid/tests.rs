//! The PD list at the offsets `megaraid_sas.h` gives (`struct MR_PD_LIST`,
//! `struct MR_PD_ADDRESS`), `/proc/devices` as the kernel prints it, and
//! the hosts sysfs names.

use super::*;

/// One `MR_PD_ADDRESS`: deviceId 00h, enclDeviceId 02h, enclIndex 04h,
/// slotNumber 05h, scsiDevType 06h, connectedPortBitmap 07h, sasAddr[2] 08h.
fn address(device_id: u16, encl: u16, slot: u8, dev_type: u8) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    b[0x00..0x02].copy_from_slice(&device_id.to_le_bytes());
    b[0x02..0x04].copy_from_slice(&encl.to_le_bytes());
    b[0x04] = 1;
    b[0x05] = slot;
    b[0x06] = dev_type;
    b[0x07] = 1;
    b[0x08..0x10].copy_from_slice(&0x5000_c500_a1b2_c3a0u64.to_le_bytes());
    b
}

/// `MR_PD_LIST`: size 00h, count 04h, then the addresses; zero padded to
/// `buf_len` as the exporter's buffer is.
fn list(size: u32, entries: &[Vec<u8>], buf_len: usize) -> Vec<u8> {
    let mut b = size.to_le_bytes().to_vec();
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    entries.iter().for_each(|e| b.extend_from_slice(e));
    b.resize(buf_len.max(b.len()), 0);
    b
}

#[test]
fn the_list_gives_each_disk_its_device_id_enclosure_and_slot() {
    let entries = [
        address(5, 0x00FC, 3, 0x00),
        // An enclosure services device (type 0Dh) is not a drive.
        address(8, 0xFFFF, 0, 0x0D),
        address(0x0100, 0xFFFF, 9, 0x00),
    ];
    let mut entries = entries;
    // A drive that reports no SAS address (sasAddr[0] zero).
    entries[2][0x08..0x10].fill(0);
    let buf = list(8 + 3 * 24, &entries, 1024);
    let PdList::Complete(drives) = parse_pd_list(2, &buf).unwrap() else {
        panic!("the whole list fits");
    };
    assert_eq!(
        drives,
        [
            Pd {
                host_no: 2,
                device_id: 5,
                enclosure: Some(0xFC),
                slot: 3,
                sas_address: Some(0x5000_c500_a1b2_c3a0),
            },
            Pd {
                host_no: 2,
                device_id: 0x100,
                enclosure: None,
                slot: 9,
                sas_address: None,
            },
        ]
    );
    assert_eq!(drives[0].name(), "megaraid2-pd5");
    assert_eq!(drives[1].name(), "megaraid2-pd256");
}

/// A list of IDs below 256, as the kernel's 256-entry table holds them: the
/// ID is the target (smartctl `-d megaraid,N`). A list with a larger ID is
/// QEMU's `(scsi-id << 8) | lun` (`megasas_dcmd_pd_get_list`): scsi-id 1
/// LUN 0 is device 256, reached at target 1, never truncated to target 0.
#[test]
fn a_controller_s_list_decides_how_its_device_ids_are_addressed() {
    let pd = |device_id| Pd {
        host_no: 0,
        device_id,
        enclosure: None,
        slot: 0,
        sas_address: None,
    };
    let real = [pd(0), pd(5), pd(255)];
    assert_eq!(Numbering::of(&real), Numbering::Flat);
    assert_eq!(Numbering::Flat.address(0), (0, 0));
    assert_eq!(Numbering::Flat.address(5), (5, 0));
    assert_eq!(Numbering::Flat.address(255), (255, 0));
    let qemu = [pd(0), pd(0x0100), pd(0x0201)];
    assert_eq!(Numbering::of(&qemu), Numbering::TargetLun);
    assert_eq!(Numbering::TargetLun.address(0), (0, 0));
    assert_eq!(Numbering::TargetLun.address(0x0100), (1, 0));
    assert_eq!(Numbering::TargetLun.address(0x0201), (2, 1));
    assert_eq!(Numbering::of(&[]), Numbering::Flat);
}

/// Where a drive sits, as storcli shows it (`/c0/e252/s3`) and as sysfs
/// writes a SAS address; nothing for what the list does not give.
#[test]
fn a_drive_s_enclosure_slot_and_sas_address_are_its_place() {
    let pd = Pd {
        host_no: 0,
        device_id: 5,
        enclosure: Some(252),
        slot: 3,
        sas_address: Some(0x5000_c500_a1b2_c3a0),
    };
    let place = pd.place();
    assert_eq!(
        (
            place.enclosure.as_str(),
            place.slot.as_str(),
            place.sas_address.as_str()
        ),
        ("252", "3", "0x5000c500a1b2c3a0")
    );
    // QEMU's megasas: no enclosure, the address it makes for device 0
    // (hw/scsi/megasas.c, megasas_get_sata_addr: 0x1221 << 48 | id << 24).
    let qemu = Pd {
        enclosure: None,
        slot: 0,
        device_id: 0,
        sas_address: Some(0x1221 << 48),
        ..pd
    };
    let place = qemu.place();
    assert_eq!(place.enclosure, "");
    assert_eq!(place.sas_address, "0x1221000000000000");
    let none = Pd {
        sas_address: None,
        ..pd
    };
    assert_eq!(none.place().sas_address, "");
    assert_eq!(
        none.place().pci_address,
        "",
        "the controller's, not the drive's"
    );
}

#[test]
fn a_list_larger_than_the_buffer_asks_for_its_size() {
    let entries: Vec<Vec<u8>> = (0..50).map(|i| address(i, 0xFFFF, i as u8, 0)).collect();
    // The firmware fills what fits and says what the whole list needs.
    let mut buf = list(8 + 50 * 24, &entries, 0);
    buf.truncate(1024);
    assert_eq!(parse_pd_list(0, &buf), Ok(PdList::Needs(8 + 50 * 24)));
    let buf = list(8 + 50 * 24, &entries, 2048);
    assert!(matches!(parse_pd_list(0, &buf), Ok(PdList::Complete(d)) if d.len() == 50));
}

#[test]
fn a_list_that_cannot_be_is_an_error() {
    assert!(parse_pd_list(0, &[0; 7]).is_err(), "no header");
    let mut buf = list(8, &[], 1024);
    buf[4..8].copy_from_slice(&257u32.to_le_bytes());
    assert!(parse_pd_list(0, &buf).is_err(), "more than 256 drives");
    let buf = list(1 << 20, &[], 1024);
    assert!(parse_pd_list(0, &buf).is_err(), "a 1 MiB list");
    let empty = list(8, &[], 1024);
    assert_eq!(parse_pd_list(0, &empty), Ok(PdList::Complete(vec![])));
}

#[test]
fn the_major_is_read_from_the_character_devices_only() {
    let text = "Character devices:\n  1 mem\n  4 /dev/vc/0\n 10 misc\n\
                244 megaraid_sas_ioctl_x\n245 megaraid_sas_ioctl\n\n\
                Block devices:\n  8 sd\n246 megaraid_sas_ioctl\n";
    assert_eq!(ioctl_major(text), Some(245));
    let block_only = "Character devices:\n  1 mem\n\nBlock devices:\n246 megaraid_sas_ioctl\n";
    assert_eq!(ioctl_major(block_only), None);
    assert_eq!(ioctl_major(""), None);
}

#[test]
fn hosts_are_the_scsi_hosts_megaraid_sas_drives() {
    let root = tempfile::tempdir().unwrap();
    for (host, proc_name) in [
        ("host0", "ahci"),
        ("host3", "megaraid_sas\n"),
        ("host12", "megaraid_sas"),
    ] {
        let dir = root.path().join("class/scsi_host").join(host);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("proc_name"), proc_name).unwrap();
    }
    std::fs::create_dir_all(root.path().join("class/scsi_host/host7")).unwrap();
    assert_eq!(hosts(root.path()), [3, 12]);
    assert_eq!(hosts(&root.path().join("nothing")), Vec::<u16>::new());
}
