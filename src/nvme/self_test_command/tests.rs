use super::*;

// Byte values from NVMe Base 2.0 "Device Self-test command": opcode 14h,
// CDW10 STC 1h / 2h / Fh, NSID FFFFFFFFh for all namespaces (nvme-cli's
// `nvme device-self-test -n 0xffffffff -s 1` sends the same dwords).
#[test]
fn short_extended_and_abort_dwords() {
    for (stc, cdw10) in [(STC_SHORT, 0x1), (STC_EXTENDED, 0x2), (STC_ABORT, 0xF)] {
        let c = command(stc);
        assert_eq!(c.opcode, 0x14);
        assert_eq!(c.nsid, 0xFFFF_FFFF);
        assert_eq!(c.cdw10, cdw10);
    }
}

#[test]
fn only_the_stc_bits_are_sent() {
    assert_eq!(command(0xF2).cdw10, 0x2);
}
