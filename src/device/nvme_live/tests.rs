use super::*;

#[test]
fn smart_log_command_matches_nvme_cli() {
    // nvme-cli `nvme smart-log` sends opcode 02h, nsid ffffffff,
    // cdw10 = 0x007f0002 (NUMDL 127 = 512/4 − 1, LID 02h).
    let (cmd, len) = command_for(NvmeRequest::Log {
        lid: 0x02,
        len: 512,
        uuid_index: 0,
    });
    assert_eq!(len, 512);
    assert_eq!(cmd.opcode, 0x02);
    assert_eq!(cmd.nsid, 0xFFFF_FFFF);
    assert_eq!(cmd.cdw10, 0x007F_0002);
    assert_eq!(cmd.cdw11, 0);
}

#[test]
fn large_log_splits_numd_and_carries_the_uuid_index() {
    // 256 KiB = 65536 dwords → NUMD 65535 = NUMDL ffffh, NUMDU 0;
    // 512 KiB → NUMD 131071 = NUMDL ffffh, NUMDU 1.
    let (cmd, _) = command_for(NvmeRequest::Log {
        lid: 0xC0,
        len: 512 * 1024,
        uuid_index: 3,
    });
    assert_eq!(cmd.cdw10, 0xFFFF_00C0);
    assert_eq!(cmd.cdw11, 1);
    assert_eq!(cmd.cdw14, 3);
}

#[test]
fn identify_uses_cns() {
    let (cmd, len) = command_for(NvmeRequest::UuidList);
    assert_eq!((cmd.opcode, cmd.cdw10, len), (0x06, 0x17, 4096));
}

#[test]
fn a_missing_device_is_gone() {
    let mut src = NvmeLive::new(
        Path::new("/dev/nvme-does-not-exist"),
        Duration::from_secs(1),
    );
    assert!(matches!(
        src.fetch(NvmeRequest::IdentifyController),
        Err(FetchError::Gone(_))
    ));
}
