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
    let e = write_new(&folder.join("meta.toml"), b"x").unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // A dangling link is not followed either (no file appears at its target).
    let target = tmp.path().join("created-through-link");
    std::fs::remove_file(folder.join("meta.toml")).unwrap();
    std::os::unix::fs::symlink(&target, folder.join("meta.toml")).unwrap();
    assert!(write_new(&folder.join("meta.toml"), b"x").is_err());
    assert!(!target.exists());
    // Through the output folder too: the page is refused, the link kept.
    let mut out = Output::new(&folder);
    std::os::unix::fs::symlink(&victim, folder.join("id-ctrl.bin")).unwrap();
    assert!(out.write("id-ctrl.bin", b"x").is_err());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[test]
fn a_device_that_answers_nothing_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    // A regular file standing in for a disk: every page fails.
    let device = tmp.path().join("sdz");
    std::fs::write(&device, [0u8; 512]).unwrap();
    let folder = tmp.path().join("dumps/sdz");
    let e = dump(&device, &folder, Duration::from_secs(1), false).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("no dump written"), "{text}");
    assert!(text.contains("identify: identify device"), "{text}");
    assert!(text.ends_with("nothing was written"), "{text}");
    assert!(!tmp.path().join("dumps").exists(), "a folder was created");
    // Not a drive at all: refused before anything is created.
    let e = dump(
        &tmp.path().join("disk.img"),
        &folder,
        Duration::from_secs(1),
        false,
    );
    assert!(matches!(e, Err(DumpError::Unsupported(_))), "{e:?}");
    assert!(!tmp.path().join("dumps").exists());
}

#[test]
fn undo_removes_the_pages_and_only_the_folders_it_created() {
    let tmp = tempfile::tempdir().unwrap();
    let kept = tmp.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("notes.txt"), "mine").unwrap();
    let mut out = Output::new(&kept.join("a/b"));
    assert!(!kept.join("a").exists(), "nothing before the first page");
    out.write("smart-log.bin", &[0; 512]).unwrap();
    out.write("error-log.bin", &[0; 64]).unwrap();
    assert!(kept.join("a/b/smart-log.bin").is_file());
    assert_eq!(out.undo(), "; what was written is removed");
    assert!(!kept.join("a").exists());
    assert_eq!(
        std::fs::read_to_string(kept.join("notes.txt")).unwrap(),
        "mine"
    );
    // Into a folder that was there: the pages go, the folder stays.
    let mut out = Output::new(&kept);
    out.write("identify.bin", &[0; 512]).unwrap();
    out.undo();
    assert!(kept.is_dir() && !kept.join("identify.bin").exists());
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
