use super::*;

#[test]
fn absent_optional_page_is_unsupported_and_files_are_reread() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = NvmeReplay::new(dir.path());
    let ocp = NvmeRequest::Log {
        lid: 0xC0,
        len: 512,
        uuid_index: 0,
    };
    assert!(matches!(src.fetch(ocp), Err(FetchError::Unsupported(_))));
    std::fs::write(dir.path().join("ocp-smart-log.bin"), [7u8; 512]).unwrap();
    assert_eq!(src.fetch(ocp).unwrap(), vec![7u8; 512]);
    assert!(matches!(
        src.fetch(NvmeRequest::IdentifyController),
        Err(FetchError::Gone(_))
    ));
}

#[test]
fn a_page_file_larger_than_the_cap_is_an_error_not_a_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![0u8; MAX_PAGE_FILE as usize + 1];
    std::fs::write(dir.path().join("smart-log.bin"), &big).unwrap();
    let smart = NvmeRequest::Log {
        lid: nvme::LID_SMART,
        len: 512,
        uuid_index: 0,
    };
    let err = NvmeReplay::new(dir.path()).fetch(smart).unwrap_err();
    assert!(
        matches!(&err, FetchError::Failed(m) if m.contains("larger than")),
        "{err:?}"
    );
    // /dev/zero behind a symlink: refused after the cap, not read forever.
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("smart-data.bin")).unwrap();
    let err = SataReplay::new(dir.path())
        .read(AtaRead::SmartData)
        .unwrap_err();
    assert!(matches!(err, FetchError::Failed(_)), "{err:?}");
    // At the cap it is read.
    std::fs::write(dir.path().join("smart-log.bin"), &big[1..]).unwrap();
    assert_eq!(
        NvmeReplay::new(dir.path()).fetch(smart).unwrap().len(),
        big.len() - 1
    );
}

#[test]
fn scsi_file_names_follow_the_dump_format() {
    assert_eq!(scsi_file_name(ScsiRequest::Vpd(0xB1)), "vpd-b1.bin");
    assert_eq!(
        scsi_file_name(ScsiRequest::Log {
            page: 0x0D,
            subpage: 0
        }),
        "log-0d.bin"
    );
    assert_eq!(
        scsi_file_name(ScsiRequest::Log {
            page: 0x0D,
            subpage: 0x01
        }),
        "log-0d-01.bin"
    );
    assert_eq!(
        scsi_file_name(ScsiRequest::ReadCapacity16),
        "read-capacity-16.bin"
    );
    assert_eq!(scsi_file_name(ScsiRequest::GrownDefects10), "defects.bin");
    let dir = tempfile::tempdir().unwrap();
    let mut src = ScsiReplay::new(dir.path());
    assert!(matches!(
        src.read(ScsiRequest::Inquiry),
        Err(FetchError::Gone(_))
    ));
    assert!(matches!(
        src.read(ScsiRequest::Vpd(0x80)),
        Err(FetchError::Unsupported(_))
    ));
}

#[test]
fn kind_follows_the_files_present() {
    let dir = tempfile::tempdir().unwrap();
    assert!(dump_kind(dir.path()).is_err());
    std::fs::write(dir.path().join("inquiry.bin"), [0u8; 36]).unwrap();
    assert_eq!(dump_kind(dir.path()), Ok(DumpKind::Scsi));
    // A SAT layer's dump may hold both: identify.bin decides.
    std::fs::write(dir.path().join("identify.bin"), [0u8; 512]).unwrap();
    assert_eq!(dump_kind(dir.path()), Ok(DumpKind::Sata));
    std::fs::write(dir.path().join("id-ctrl.bin"), [0u8; 4096]).unwrap();
    assert_eq!(dump_kind(dir.path()), Ok(DumpKind::Nvme));
    assert_eq!(device_name(&dir.path().join("nvme7")), "nvme7");
}
