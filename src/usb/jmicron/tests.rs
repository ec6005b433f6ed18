//! Every expected byte is written from the sources named in the module's
//! documentation, not from this code: smartmontools `scsinvme.cpp`
//! `sntjmicron_device::nvme_pass_through` (`cdb[0] = SAT_ATA_PASSTHROUGH_12`,
//! `cdb[1] = 0x80 | proto`, `sg_put_unaligned_be24(len, &cdb[3])`,
//! `nvm_cmd[0] = 0x454d564e`, `nvm_cmd[2] = opcode`, `nvm_cmd[3] = nsid`,
//! `nvm_cmd[12..17] = cdw10..cdw15`, status `nvm_reply[5] >> 17`, result
//! `nvm_reply[2]`) and opensea-transport `jmicron_nvme_helper.c`
//! `build_JM_NVMe_CDB_And_Payload` (the same bytes by offset: signature at
//! 0, opcode at 8, NSID at 12, CDW10 at 48 … CDW15 at 68, vendor control
//! 0 at 72).

use super::*;

/// Get Log Page 02h, 512 bytes, NSID FFFFFFFFh: CDW10 = LID 02h | NUMDL
/// 127 << 16 (NVMe Base "Get Log Page", NUMD = dwords − 1).
fn smart_log() -> AdminCommand {
    AdminCommand {
        opcode: 0x02,
        nsid: 0xFFFF_FFFF,
        cdw10: 0x007F_0002,
        cdw11: 0,
        cdw12: 0,
        cdw13: 0,
        cdw14: 0,
        cdw15: 0,
    }
}

#[test]
fn the_three_cdbs() {
    // Step 1: A1h, admin | protocol 0, 512 = 00 02 00 big-endian at 3..6.
    assert_eq!(
        command_cdb(),
        [0xA1, 0x80, 0, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0]
    );
    // Step 2: admin | DMA in (2), the data length.
    assert_eq!(
        data_in_cdb(512),
        [0xA1, 0x82, 0, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        data_in_cdb(4096),
        [0xA1, 0x82, 0, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]
    );
    // Step 3: admin | reply (Fh), 512.
    assert_eq!(
        reply_cdb(),
        [0xA1, 0x8F, 0, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0]
    );
}

#[test]
fn the_command_block_of_a_smart_log_read() {
    let b = command_block(&smart_log());
    let mut want = [0u8; 512];
    want[..4].copy_from_slice(b"NVME"); // 4E 56 4D 45 = 454D564Eh little-endian
    want[8] = 0x02; // opcode
    want[12..16].copy_from_slice(&[0xFF; 4]); // NSID
    want[48..52].copy_from_slice(&[0x02, 0x00, 0x7F, 0x00]); // CDW10
    assert_eq!(b, want);
    assert_eq!(b[72], 0, "vendor control 0: issue the command");
}

#[test]
fn every_command_dword_has_its_place() {
    let cmd = AdminCommand {
        opcode: 0x06,
        nsid: 0x0403_0201,
        cdw10: 0x1413_1211,
        cdw11: 0x2423_2221,
        cdw12: 0x3433_3231,
        cdw13: 0x4443_4241,
        cdw14: 0x5453_5251,
        cdw15: 0x6463_6261,
    };
    let b = command_block(&cmd);
    assert_eq!(&b[8..16], &[0x06, 0, 0, 0, 0x01, 0x02, 0x03, 0x04]);
    assert_eq!(&b[16..48], &[0u8; 32]);
    let dwords: Vec<u8> = (1..=6u8)
        .flat_map(|d| [d * 16 + 1, d * 16 + 2, d * 16 + 3, d * 16 + 4])
        .collect();
    assert_eq!(&b[48..72], dwords.as_slice());
    assert!(b[72..].iter().all(|&x| x == 0));
}

/// A reply block with `dw0` at bytes 8..12 and `dw3` at 20..24.
fn reply(sig: &[u8; 4], dw0: u32, dw3: u32) -> Vec<u8> {
    let mut r = vec![0u8; 512];
    r[..4].copy_from_slice(sig);
    r[8..12].copy_from_slice(&dw0.to_le_bytes());
    r[20..24].copy_from_slice(&dw3.to_le_bytes());
    r
}

#[test]
fn a_reply_gives_dword_0_and_the_status() {
    let ok = parse_reply(&reply(b"NVME", 0x1234_5678, 0)).unwrap();
    assert_eq!((ok.dw0, ok.status), (0x1234_5678, 0));
    // Invalid Field in Command with DNR: status 4002h, as bits 31:17.
    let r = parse_reply(&reply(b"NVME", 0, 0x4002 << 17)).unwrap();
    assert_eq!(r.status, 0x4002);
    // The phase tag (bit 16) is not status.
    let r = parse_reply(&reply(b"NVME", 0, 1 << 16)).unwrap();
    assert_eq!(r.status, 0);
}

#[test]
fn a_reply_without_the_signature_is_out_of_spec() {
    let e = parse_reply(&reply(b"NVMF", 0, 0)).unwrap_err();
    assert!(e.to_string().contains("out of spec"), "{e}");
    assert!(matches!(
        parse_reply(&[0u8; 511]),
        Err(ParseError::Length {
            expected: 512,
            got: 511,
            ..
        })
    ));
    // Longer is fine: the block is its first 512 bytes.
    assert!(parse_reply(&reply(b"NVME", 0, 0).repeat(2)).is_ok());
}

#[test]
fn the_self_test_log_is_not_read_past_218h() {
    let mut st = smart_log();
    st.cdw10 = 0x008C_0006; // LID 06h, 564 bytes = 141 dwords
    let e = carries(&st, 564).unwrap_err();
    assert!(e.0.contains("#256"), "{e}");
    assert!(carries(&st, 0x218).is_ok());
    assert!(carries(&smart_log(), 512).is_ok());
    assert!(carries(&smart_log(), 0).is_err());
    assert!(carries(&smart_log(), 65537).is_err());
}
