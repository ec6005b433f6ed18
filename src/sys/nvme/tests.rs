use super::*;

#[test]
fn ioctl_number_matches_the_kernel_header() {
    // _IOWR('N', 0x41, 72 bytes): dir 3 << 30 | size 72 << 16 | 'N' << 8 | 0x41.
    let expected: u64 = (3 << 30) | (72 << 16) | ((b'N' as u64) << 8) | 0x41;
    assert_eq!(expected, 0xC048_4E41);
    let nr = nix::request_code_readwrite!(b'N', 0x41, std::mem::size_of::<nvme_admin_cmd>());
    assert_eq!(nr as u64, expected);
}

#[test]
fn a_regular_file_is_refused_by_the_kernel_not_by_a_panic() {
    let f = tempfile::NamedTempFile::new().unwrap();
    let ctrl = Controller::open(f.path()).unwrap();
    let mut buf = [0u8; 512];
    let cmd = AdminCommand {
        opcode: 0x02,
        nsid: 0xFFFF_FFFF,
        cdw10: 0x007F_0002,
        cdw11: 0,
        cdw12: 0,
        cdw13: 0,
        cdw14: 0,
        cdw15: 0,
    };
    match ctrl.admin_read(&cmd, &mut buf, Duration::from_secs(1)) {
        Err(AdminError::Os(e)) => assert_eq!(e.raw_os_error(), Some(libc::ENOTTY)),
        other => panic!("expected ENOTTY, got {other:?}"),
    }
}
