use super::*;

#[test]
fn absent_optional_page_is_unsupported_and_files_are_reread() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = NvmeReplay::new(dir.path());
    let ocp = NvmeRequest::log(0xC0, 512);
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
    let smart = NvmeRequest::log(nvme::LID_SMART, 512);
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
fn nvme_depth_file_names_follow_the_dump_format() {
    let name = |req| nvme_file_name(req).unwrap();
    assert_eq!(name(NvmeRequest::log(0x03, 512)), "fw-slot-log.bin");
    assert_eq!(
        name(NvmeRequest::log(0x08, 512)),
        "telemetry-ctrl-header.bin"
    );
    assert_eq!(
        name(NvmeRequest::log(0x0D, 4096)),
        "persistent-event-log.bin"
    );
    let group = |lsi| NvmeRequest::Log {
        lid: 0x09,
        len: 512,
        uuid_index: 0,
        lsp: 0,
        lsi,
        offset: 0,
        rae: false,
    };
    assert_eq!(name(group(1)), "endurance-group-1.bin");
    assert_eq!(name(group(300)), "endurance-group-300.bin");
    assert_eq!(nvme_file_name(NvmeRequest::EnduranceGroupList), None);
}

/// A dump holds the whole persistent event log; each read gets its
/// window of it, and a release reads no file at all.
#[test]
fn the_persistent_event_log_is_answered_in_windows() {
    let dir = tempfile::tempdir().unwrap();
    let log: Vec<u8> = (0..600u32).map(|i| i as u8).collect();
    std::fs::write(dir.path().join("persistent-event-log.bin"), &log).unwrap();
    let read = |lsp, offset, len| NvmeRequest::Log {
        lid: 0x0D,
        len,
        uuid_index: 0,
        lsp,
        lsi: 0,
        offset,
        rae: false,
    };
    let mut src = NvmeReplay::new(dir.path());
    assert_eq!(src.fetch(read(1, 0, 512)).unwrap(), log[..512]);
    assert_eq!(src.fetch(read(0, 512, 4096)).unwrap(), log[512..]);
    assert_eq!(src.fetch(read(0, 9999, 16)).unwrap(), Vec::<u8>::new());
    std::fs::remove_file(dir.path().join("persistent-event-log.bin")).unwrap();
    assert_eq!(src.fetch(read(2, 0, 512)).unwrap(), vec![0u8; 512]);
    assert!(matches!(
        src.fetch(read(1, 0, 512)),
        Err(FetchError::Unsupported(_))
    ));
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
