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

/// A multipath drive's subsystem folder with controllers in `states`, and a
/// /dev whose nodes are regular files (so commands fail with ENOTTY, a
/// failure on the path) for the controllers in `nodes`.
fn multipath(root: &Path, states: &[(&str, &str)], nodes: &[&str]) -> (PathBuf, PathBuf) {
    let (subsys, dev) = (root.join("nvme-subsys1"), root.join("dev"));
    std::fs::create_dir_all(&dev).unwrap();
    for (name, state) in states {
        std::fs::create_dir_all(subsys.join(name)).unwrap();
        std::fs::write(subsys.join(name).join("state"), format!("{state}\n")).unwrap();
    }
    for n in nodes {
        std::fs::write(dev.join(n), "").unwrap();
    }
    (subsys, dev)
}

#[test]
fn a_controller_that_is_not_live_is_left_before_it_is_asked() {
    let root = tempfile::tempdir().unwrap();
    let (subsys, dev) = multipath(
        root.path(),
        &[("nvme0", "deleting"), ("nvme1", "live")],
        &["nvme0", "nvme1"],
    );
    let mut src = NvmeLive::for_drive(
        &dev.join("nvme0"),
        &subsys.join("nvme0"),
        Some(&subsys),
        Duration::from_secs(1),
    );
    assert!(src.fetch(NvmeRequest::IdentifyController).is_err());
    assert_eq!(src.origin(), dev.join("nvme1").display().to_string());
}

#[test]
fn a_vanished_controller_fails_over_to_a_live_one_and_back_only_when_live() {
    let root = tempfile::tempdir().unwrap();
    // nvme0's node is gone (ENOENT), nvme2 came later, nvme1 is resetting.
    let (subsys, dev) = multipath(
        root.path(),
        &[("nvme0", "live"), ("nvme1", "resetting"), ("nvme2", "live")],
        &["nvme1", "nvme2"],
    );
    let mut src = NvmeLive::for_drive(
        &dev.join("nvme0"),
        &subsys.join("nvme0"),
        Some(&subsys),
        Duration::from_secs(1),
    );
    // Retried once on nvme2, where the fake node answers ENOTTY.
    let e = src.fetch(NvmeRequest::IdentifyController).unwrap_err();
    assert!(matches!(e, FetchError::Failed(_)), "{e:?}");
    assert_eq!(src.origin(), dev.join("nvme2").display().to_string());
    // Nowhere live to go: it stays.
    std::fs::write(subsys.join("nvme0/state"), "dead\n").unwrap();
    src.fetch(NvmeRequest::IdentifyController).unwrap_err();
    assert_eq!(src.origin(), dev.join("nvme2").display().to_string());
}

#[test]
fn a_single_controller_does_not_fail_over() {
    let root = tempfile::tempdir().unwrap();
    let (subsys, dev) = multipath(
        root.path(),
        &[("nvme0", "live"), ("nvme1", "live")],
        &["nvme1"],
    );
    let mut src = NvmeLive::for_drive(
        &dev.join("nvme0"),
        &subsys.join("nvme0"),
        None,
        Duration::from_secs(1),
    );
    assert!(matches!(
        src.fetch(NvmeRequest::IdentifyController),
        Err(FetchError::Gone(_))
    ));
    assert_eq!(src.origin(), dev.join("nvme0").display().to_string());
}

#[test]
fn the_link_is_read_from_the_polled_controllers_pci_function() {
    let root = tempfile::tempdir().unwrap();
    let function = root.path().join("pci0000:00/0000:00:02.0/0000:01:00.0");
    let ctrl = function.join("nvme/nvme0");
    std::fs::create_dir_all(&ctrl).unwrap();
    std::os::unix::fs::symlink("../..", ctrl.join("device")).unwrap();
    std::fs::write(function.join("current_link_width"), "4\n").unwrap();
    std::fs::write(function.join("aer_dev_fatal"), "TOTAL_ERR_FATAL 2\n").unwrap();
    let mut src = NvmeLive::for_drive(Path::new("/dev/nvme0"), &ctrl, None, Duration::from_secs(1));
    let (pcie, errors) = src.pcie().unwrap();
    assert_eq!(pcie.link.current_width, Some(4));
    assert_eq!(pcie.aer[0].total, 2);
    assert!(errors.is_empty());
    // A fabrics controller has no PCI function; a dump's source reads no sysfs.
    let tcp = root.path().join("virtual/nvme-fabrics/ctl/nvme1");
    std::fs::create_dir_all(&tcp).unwrap();
    std::os::unix::fs::symlink("..", tcp.join("device")).unwrap();
    let mut src = NvmeLive::for_drive(Path::new("/dev/nvme1"), &tcp, None, Duration::from_secs(1));
    assert!(src.pcie().is_none());
    assert!(
        NvmeLive::new(Path::new("/dev/nvme0"), Duration::from_secs(1))
            .pcie()
            .is_none()
    );
}

/// The states the kernel's nvme driver writes to `state`
/// (`nvme_sysfs_show_state`): only deleting and dead are going away; a
/// folder that vanished is too; resetting and connecting come back.
#[test]
fn a_controller_is_dying_when_deleting_dead_or_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nvme9");
    std::fs::create_dir(&dir).unwrap();
    for (state, dying) in [
        ("live", false),
        ("resetting", false),
        ("connecting", false),
        ("new", false),
        ("deleting", true),
        ("deleting (no IO)", true),
        ("dead", true),
    ] {
        std::fs::write(dir.join("state"), format!("{state}\n")).unwrap();
        assert_eq!(is_dying(&dir), dying, "{state}");
    }
    std::fs::remove_file(dir.join("state")).unwrap();
    assert!(!is_dying(&dir), "no state attribute: nothing to go on");
    assert!(is_dying(&tmp.path().join("nvme8")), "the folder is gone");
}

#[test]
fn a_path_failure_on_a_dying_controller_is_the_device_gone() {
    let failed =
        || FetchError::Failed("identify controller on /dev/nvme9: Path Related Status".into());
    assert!(matches!(gone_if_dying(failed(), true), FetchError::Gone(_)));
    assert!(matches!(
        gone_if_dying(failed(), false),
        FetchError::Failed(_)
    ));
    let unsupported = FetchError::Unsupported("log page c0h".into());
    assert!(matches!(
        gone_if_dying(unsupported, true),
        FetchError::Unsupported(_)
    ));
}
