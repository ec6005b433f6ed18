use super::*;
use crate::nvme::testutil::*;

#[test]
fn nguid_wins_over_eui64_and_zero_is_none() {
    let mut buf = vec![0u8; 4096];
    assert_eq!(IdNs::parse(&buf).unwrap().wwn(), None);
    buf[120..128].copy_from_slice(&[0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a]);
    assert_eq!(
        IdNs::parse(&buf).unwrap().wwn().as_deref(),
        Some("eui.525400123456789a")
    );
    buf[104] = 0x01;
    buf[119] = 0xff;
    assert_eq!(
        IdNs::parse(&buf).unwrap().wwn().as_deref(),
        Some("eui.010000000000000000000000000000ff")
    );
}

/// Every named field at its spec offset, written by hand.
#[test]
fn layout_places_every_named_field_at_its_offset() {
    let mut buf = vec![0u8; 4096];
    put_u64(&mut buf, 0, 1_875_385_008);
    put_u64(&mut buf, 8, 1_875_385_007);
    put_u64(&mut buf, 16, 42);
    buf[24] = 0x1A;
    buf[25] = 1;
    buf[26] = 0x01;
    put_u128(&mut buf, 48, 960_197_124_096);
    put_u32(&mut buf, 92, 7);
    put_u16(&mut buf, 100, 3);
    put_u16(&mut buf, 102, 4);
    put(&mut buf, 104, &[0x11; 16]);
    put(&mut buf, 120, &[0x22; 8]);
    // LBA format 1 at 132: no metadata, 4096-byte blocks, best performance.
    put(&mut buf, 132, &[0x08, 0x00, 12, 0x00]);
    // LBA format 63 at 128 + 63 × 4 = 380.
    put(&mut buf, 380, &[0x00, 0x01, 9, 0x03]);
    buf[3072] = 0xAA;

    let p = IdNsPage::ref_from_bytes(&buf).unwrap();
    assert_eq!(
        (p.nsze.get(), p.ncap.get(), p.nuse.get()),
        (1_875_385_008, 1_875_385_007, 42)
    );
    assert_eq!((p.nsfeat, p.nlbaf, p.flbas), (0x1A, 1, 0x01));
    assert_eq!(p.nvmcap.get(), 960_197_124_096);
    assert_eq!(
        (p.anagrpid.get(), p.nvmsetid.get(), p.endgid.get()),
        (7, 3, 4)
    );
    assert_eq!((p.nguid, p.eui64), ([0x11; 16], [0x22; 8]));
    let f = &p.lbaf[1];
    assert_eq!((f.ms.get(), f.ds, f.rp), (8, 12, 0));
    let f = &p.lbaf[63];
    assert_eq!((f.ms.get(), f.ds, f.rp), (256, 9, 3));
    assert_eq!(p.vs[0], 0xAA);
    let id = IdNs::parse(&buf).unwrap();
    assert_eq!((id.nguid, id.eui64), ([0x11; 16], [0x22; 8]));
}

#[test]
fn short_page_is_an_error() {
    assert!(IdNs::parse(&[0u8; 127]).is_err());
    assert!(IdNs::parse(&[0u8; 128]).is_ok());
}
