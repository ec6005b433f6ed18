use super::*;
use crate::nvme;

#[test]
fn smart_log_command_matches_nvme_cli() {
    // nvme-cli `nvme smart-log` sends opcode 02h, nsid ffffffff,
    // cdw10 = 0x007f0002 (NUMDL 127 = 512/4 − 1, LID 02h).
    let (cmd, len) = command_for(NvmeRequest::log(0x02, 512));
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
        lsp: 0,
        lsi: 0,
        offset: 0,
        rae: false,
    });
    assert_eq!(cmd.cdw10, 0xFFFF_00C0);
    assert_eq!(cmd.cdw11, 1);
    assert_eq!(cmd.cdw14, 3);
}

/// The dwords libnvme builds (`nvme_init_get_log_*` in
/// `libnvme/src/nvme/nvme-cmds-base.h`: LSP at CDW10 bits 14:8, RAE bit
/// 15, LSI at CDW11 bits 31:16, LPO in CDW12/13), written out by hand.
#[test]
fn depth_pages_carry_lsp_lsi_offset_and_rae_as_libnvme_does() {
    let pel = |lsp, len, offset| NvmeRequest::Log {
        lid: nvme::LID_PERSISTENT_EVENT,
        len,
        uuid_index: 0,
        lsp,
        lsi: 0,
        offset,
        rae: false,
    };
    // `nvme persistent-event-log -a 1 -l 512`: establish context and read
    let (cmd, _) = command_for(pel(nvme::PEL_ESTABLISH, 512, 0));
    assert_eq!(
        (cmd.nsid, cmd.cdw10, cmd.cdw12),
        (0xFFFF_FFFF, 0x007F_010D, 0)
    );
    // release: LSP 2
    assert_eq!(
        command_for(pel(nvme::PEL_RELEASE, 512, 0)).0.cdw10,
        0x007F_020D
    );
    // 4 KiB at offset 2^32 + 4096: NUMDL 1023, LPOL 4096, LPOU 1
    let (cmd, len) = command_for(pel(nvme::PEL_READ, 4096, (1 << 32) + 4096));
    assert_eq!(
        (cmd.cdw10, cmd.cdw12, cmd.cdw13, len),
        (0x03FF_000D, 4096, 1, 4096)
    );
    // `nvme endurance-log -g 2`: NSID 0, the group in the LSI
    let (cmd, _) = command_for(log512(nvme::LID_ENDURANCE_GROUP, 2, false));
    assert_eq!(
        (cmd.nsid, cmd.cdw10, cmd.cdw11),
        (0, 0x007F_0009, 0x0002_0000)
    );
    // telemetry controller-initiated header, RAE set: NSID 0
    let (cmd, _) = command_for(log512(nvme::LID_TELEMETRY_CTRL, 0, true));
    assert_eq!((cmd.nsid, cmd.cdw10), (0, 0x007F_8008));
    // `nvme fw-log`: NSID ffffffff
    let (cmd, _) = command_for(NvmeRequest::log(nvme::LID_FW_SLOT, 512));
    assert_eq!((cmd.nsid, cmd.cdw10), (0xFFFF_FFFF, 0x007F_0003));
}

/// 512 bytes of `lid` with a Log Specific Identifier and RAE.
fn log512(lid: u8, lsi: u16, rae: bool) -> NvmeRequest {
    NvmeRequest::Log {
        lid,
        len: 512,
        uuid_index: 0,
        lsp: 0,
        lsi,
        offset: 0,
        rae,
    }
}

#[test]
fn identify_uses_cns() {
    let (cmd, len) = command_for(NvmeRequest::UuidList);
    assert_eq!((cmd.opcode, cmd.cdw10, len), (0x06, 0x17, 4096));
    let (cmd, len) = command_for(NvmeRequest::EnduranceGroupList);
    assert_eq!(
        (cmd.opcode, cmd.cdw10, cmd.cdw11, len),
        (0x06, 0x19, 0, 4096)
    );
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
