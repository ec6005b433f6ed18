//! Expected bytes written from smartmontools `scsinvme.cpp`
//! `sntrealtek_device::nvme_pass_through` (`cdb[0] = 0xe4`,
//! `sg_put_unaligned_le16(size, cdb+1)`, `cdb[3] = opcode`, `cdb[4] =
//! (uint8_t)cdw10`; log pages only for NSID FFFFFFFFh or 0 and up to 200h
//! bytes; CDW11..15 zero) and opensea-transport `realtek_nvme_helper.c`
//! `build_Realtek_Basic_NVMe_CDB_And_Payload` (the same bytes).

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
fn identify_controller_and_smart_log() {
    // 4096 = 00 10 little-endian.
    let c = cdb(&cmd(0x06, 0, 0x01), 4096).unwrap();
    assert_eq!(
        c,
        [
            0xE4, 0x00, 0x10, 0x06, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // 512 = 00 02.
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x007F_0002), 512).unwrap();
    assert_eq!(
        c,
        [
            0xE4, 0x00, 0x02, 0x02, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // An error log of 8 entries (512 bytes): LID 01h.
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x007F_0001), 512).unwrap();
    assert_eq!(&c[..5], &[0xE4, 0x00, 0x02, 0x02, 0x01]);
    // 64 bytes: 40 00.
    let c = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x000F_0001), 64).unwrap();
    assert_eq!(&c[..3], &[0xE4, 0x40, 0x00]);
}

#[test]
fn a_log_longer_than_512_bytes_is_not_read() {
    // The self-test log (564 bytes) would come back with stale data.
    let e = cdb(&cmd(0x02, 0xFFFF_FFFF, 0x008C_0006), 564).unwrap_err();
    assert!(e.0.contains("stale"), "{e}");
    assert!(cdb(&cmd(0x02, 0xFFFF_FFFF, 0x0000_0002), 0).is_err());
}

#[test]
fn what_the_cdb_cannot_carry_is_refused() {
    assert!(cdb(&cmd(0x06, 2, 0x00), 4096).is_err());
    assert!(cdb(&cmd(0x06, 1, 0x00), 4096).is_ok());
    assert!(cdb(&cmd(0x06, 0, 0x17), 4096).is_err());
    assert!(cdb(&cmd(0x06, 0, 0x01), 512).is_err());
    assert!(cdb(&cmd(0x02, 1, 0x007F_0002), 512).is_err());
    assert!(cdb(&cmd(0x02, 0xFFFF_FFFF, 0x007F_0102), 512).is_err());
    let mut c = cmd(0x02, 0xFFFF_FFFF, 0x007F_0002);
    c.cdw12 = 512;
    assert!(cdb(&c, 512).is_err());
}
