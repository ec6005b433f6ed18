use super::*;

#[test]
fn namespace_and_bare_names_map_to_the_controller() {
    let dev = Path::new("/dev");
    assert_eq!(
        controller_path(Path::new("/dev/nvme0n1"), dev),
        Some("/dev/nvme0".into())
    );
    assert_eq!(
        controller_path(Path::new("/dev/nvme12"), dev),
        Some("/dev/nvme12".into())
    );
    assert_eq!(
        controller_path(Path::new("nvme3n2"), dev),
        Some("/dev/nvme3".into())
    );
    assert_eq!(controller_path(Path::new("/dev/sda"), dev), None);
    assert_eq!(controller_path(Path::new("/dev/nvme-fabrics"), dev), None);
}

#[test]
fn ata_redaction_keeps_the_identify_checksum_valid() {
    let mut id = vec![0x41u8; 512];
    id[510] = 0xA5;
    let sum = id[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
    id[511] = sum.wrapping_neg();
    let out = redacted_ata("identify.bin", &id, true);
    assert_eq!(&out[20..28], b"ERADTCDE");
    assert_eq!(&out[216..224], &[0u8; 8]);
    assert_eq!(out.iter().fold(0u8, |a, &b| a.wrapping_add(b)), 0);
    assert_eq!(redacted_ata("identify.bin", &id, false), id);
}

#[test]
fn a_symlink_planted_in_the_dump_folder_is_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let folder = tmp.path().join("dump");
    std::fs::create_dir(&folder).unwrap();
    std::os::unix::fs::symlink(&victim, folder.join("meta.toml")).unwrap();
    // A regular file standing in for the disk: every page fails (not a
    // SCSI device), then the dump writes meta.toml.
    let device = tmp.path().join("sdz");
    std::fs::write(&device, [0u8; 512]).unwrap();
    let e = dump(&device, &folder, Duration::from_secs(1), false).unwrap_err();
    assert!(
        e.to_string().contains("meta.toml") && e.to_string().contains("not a regular file"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // A dangling link is not followed either (no file appears at its target).
    let target = tmp.path().join("created-through-link");
    std::fs::remove_file(folder.join("meta.toml")).unwrap();
    std::os::unix::fs::symlink(&target, folder.join("meta.toml")).unwrap();
    assert!(dump(&device, &folder, Duration::from_secs(1), false).is_err());
    assert!(!target.exists());
}

#[test]
fn a_regular_file_from_an_earlier_dump_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("smart-log.bin");
    std::fs::write(&path, "an older, longer dump").unwrap();
    write_new(&path, b"new").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let fifo = tmp.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert!(write_new(&fifo, b"x").is_err(), "a FIFO is not replaced");
}

#[test]
fn scsi_redaction_keeps_the_layout() {
    let serial = [
        0x00, 0x80, 0x00, 0x0A, b'S', b'N', b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'7',
    ];
    let out = redacted_scsi("vpd-80.bin", &serial, true);
    assert_eq!(&out[..4], &serial[..4]);
    assert_eq!(&out[4..], b"REDACTED  ");
    let id = [
        0x00, 0x83, 0x00, 0x0C, 0x01, 0x03, 0x00, 0x08, 0x50, 1, 2, 3, 4, 5, 6, 7,
    ];
    let out = redacted_scsi("vpd-83.bin", &id, true);
    assert_eq!(&out[..8], &id[..8]);
    assert_eq!(&out[8..], &[0u8; 8]);
    assert_eq!(redacted_scsi("vpd-83.bin", &id, false), id);
    // Log 18h: one parameter, 4 value bytes then one 48-byte descriptor.
    let mut port = vec![0x18, 0x00, 0x00, 56, 0x00, 0x01, 0x03, 52, 0x06, 0, 1, 1];
    let mut d = vec![0xAAu8; 48];
    d[3] = 44;
    port.extend(&d);
    let out = redacted_scsi("log-18.bin", &port, true);
    assert_eq!(&out[12 + 8..12 + 24], &[0u8; 16]);
    assert_eq!(&out[12 + 24..], &d[24..], "the error counters stay");
    assert_eq!(out.len(), port.len());
    // Two ports, two phys on the first: every descriptor is reached.
    use crate::scsi::log_layout::{LogPageBuilder, SasPhyDescriptor, sas_port_value};
    let mut phy = SasPhyDescriptor::new(0, [1, 2, 3, 4]);
    phy.sas_address.set(0x5000_C500_0000_0001);
    phy.attached_sas_address.set(0x5000_C500_0000_0002);
    let page = LogPageBuilder::new(0x18, 0)
        .param(1, &sas_port_value(1, &[phy, phy]))
        .param(2, &sas_port_value(1, &[phy]))
        .build();
    let out = redacted_scsi("log-18.bin", &page, true);
    for start in [12, 12 + 48, 12 + 96 + 8] {
        assert_eq!(
            &out[start + 8..start + 24],
            &[0u8; 16],
            "descriptor at {start}"
        );
        assert_eq!(&out[start + 32..start + 48], &page[start + 32..start + 48]);
    }
}

#[test]
fn redaction_replaces_the_serial_only() {
    let mut id = vec![b'x'; 4096];
    id[4..24].copy_from_slice(b"S4EVNX0N123456      ");
    let out = redacted(NvmeRequest::IdentifyController, &id);
    assert_eq!(&out[4..24], b"REDACTED            ");
    assert_eq!(&out[..4], b"xxxx");
    assert_eq!(&out[24..], &id[24..]);
}

#[test]
fn the_persistent_event_log_header_serial_is_redacted_too() {
    let log = vec![b'y'; 700];
    let req = NvmeRequest::log(crate::nvme::LID_PERSISTENT_EVENT, 700);
    let out = redacted(req, &log);
    assert_eq!(&out[56..76], b"REDACTED            ");
    assert_eq!(&out[..56], &log[..56]);
    assert_eq!(&out[76..], &log[76..]);
}
