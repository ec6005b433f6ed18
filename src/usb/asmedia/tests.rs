//! Expected bytes written from smartmontools `scsinvme.cpp`
//! `sntasmedia_device::nvme_pass_through` (`cdb[0] = 0xe6`, `cdb[1] =
//! opcode`, `cdb[3] = (uint8_t)cdw10`, `cdb[6] = cdw10_hi >> 8`, `cdb[7] =
//! cdw10_hi`, `cdb[8..11]` = CDW13 and `cdb[12..15]` = CDW12 most
//! significant byte first) and opensea-transport `asmedia_nvme_helper.c`
//! `build_Basic_Passthrough_CDB` (`CDB_6 = M_Byte3(cdw10)`, `CDB_7 =
//! M_Byte2(cdw10)`, `CDB_8 = M_Byte3(cdw13)` …, `CDB_15 = M_Byte0(cdw12)`).

use super::*;

fn cmd(opcode: u8, nsid: u32, cdw10: u32) -> AdminCommand {
    AdminCommand {
        opcode,
        nsid,
        cdw10,
        cdw11: 0,
        cdw12: 0,
        cdw13: 0,
        cdw14: 0,
        cdw15: 0,
    }
}

#[test]
fn identify_controller() {
    let c = cdb(&cmd(0x06, 0, 0x01), 4096).unwrap();
    assert_eq!(c, [0xE6, 0x06, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let ns = cdb(&cmd(0x06, 1, 0x00), 4096).unwrap();
    assert_eq!(
        ns,
        [0xE6, 0x06, 0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
}

#[test]
fn smart_log_and_self_test_log() {
    // LID 02h, NUMDL 7Fh (512 bytes).
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x007F_0002), 512).unwrap();
    assert_eq!(
        c,
        [
            0xE6, 0x02, 0, 0x02, 0, 0, 0x00, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // LID 06h, NUMDL 8Ch (564 bytes = 141 dwords).
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x008C_0006), 564).unwrap();
    assert_eq!(
        c,
        [
            0xE6, 0x02, 0, 0x06, 0, 0, 0x00, 0x8C, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // An error log of 256 entries: NUMDL 0FFFh, its high byte in cdb[6].
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x0FFF_0001), 16384).unwrap();
    assert_eq!((c[6], c[7]), (0x0F, 0xFF));
}

#[test]
fn a_log_page_offset_goes_most_significant_byte_first() {
    let mut c = cmd(0x02, 0xFFFF_FFFF, 0x007F_0002);
    c.cdw12 = 0x1122_3344;
    c.cdw13 = 0x5566_7788;
    let b = cdb(&c, 512).unwrap();
    assert_eq!(&b[8..], &[0x55, 0x66, 0x77, 0x88, 0x11, 0x22, 0x33, 0x44]);
}

#[test]
fn what_the_cdb_cannot_carry_is_refused() {
    let refused = |c: AdminCommand, len| cdb(&c, len).is_err();
    // Identify namespace 2, the UUID list (CNS 17h), another opcode.
    assert!(refused(cmd(0x06, 2, 0x00), 4096));
    assert!(refused(cmd(0x06, 0, 0x17), 4096));
    assert!(refused(cmd(0x14, 0xFFFF_FFFF, 0x1), 0));
    // A namespace's log page; LSP or RAE (cdw10 bits 15:8); CDW11 (NUMDU,
    // LSI) and CDW14 (UUID index).
    assert!(refused(cmd(0x02, 1, 0x007F_0002), 512));
    assert!(refused(cmd(0x02, 0xFFFF_FFFF, 0x007F_8002), 512));
    let mut c = cmd(0x02, 0xFFFF_FFFF, 0x007F_00C0);
    c.cdw14 = 1;
    assert!(refused(c, 512));
    c.cdw14 = 0;
    c.cdw11 = 1 << 16;
    assert!(refused(c, 512));
    // A length that is not NUMD's.
    assert!(refused(cmd(0x02, 0xFFFF_FFFF, 0x007F_0002), 1024));
}
