//! Identify Controller decoder tests: pages built from hand-written spec
//! offsets, independently of [`super::IdCtrlPage`].

use super::*;
use crate::nvme::testutil::*;

fn sample() -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    put_u16(&mut buf, 0, 0x144D);
    put_u16(&mut buf, 2, 0x1028);
    put(&mut buf, 4, b"S4EWNX0R123456      ");
    put(&mut buf, 24, b"SAMSUNG MZQL2960HCJR-00A07              ");
    put(&mut buf, 64, b"GDC5602Q");
    put(&mut buf, 73, &[0x38, 0x25, 0x00]);
    put_u16(&mut buf, 78, 6);
    put_u32(&mut buf, 80, 0x0001_0400);
    put_u32(&mut buf, 92, 0x0000_0300);
    put_u32(&mut buf, 96, 1 << 9);
    put(&mut buf, 112, &[0xAB; 16]);
    put_u16(&mut buf, 256, 0x005F);
    buf[260] = 0x17;
    buf[261] = 0x0E;
    buf[262] = 63;
    buf[263] = 2;
    put_u16(&mut buf, 266, 353);
    put_u16(&mut buf, 268, 0);
    put_u16(&mut buf, 270, 300);
    put_u128(&mut buf, 280, (1u128 << 64) | 0x1000);
    put_u128(&mut buf, 296, 4096);
    put_u16(&mut buf, 322, 1);
    put_u16(&mut buf, 324, 273);
    put_u16(&mut buf, 326, 358);
    put_u32(&mut buf, 328, 0x6000_0003);
    put_u32(&mut buf, 516, 32);
    put_u16(&mut buf, 520, 0x005F);
    buf[525] = 0x07;
    put_u16(&mut buf, 528, 7);
    put_u32(&mut buf, 536, 0x0001_0001);
    put(&mut buf, 768, b"nqn.1994-11.com.samsung:nvme:PM9A3\0junk");
    buf
}

#[test]
fn decodes_every_field_at_its_offset() {
    let id = IdCtrl::parse(&sample()).unwrap();
    assert_eq!(id.vid, 0x144D);
    assert_eq!(id.ssvid, 0x1028);
    assert_eq!(id.serial, "S4EWNX0R123456");
    assert_eq!(id.model, "SAMSUNG MZQL2960HCJR-00A07");
    assert_eq!(id.firmware, "GDC5602Q");
    assert_eq!(id.ieee_oui, 0x002538);
    assert_eq!(id.cntlid, 6);
    assert_eq!(id.version, 0x0001_0400);
    assert_eq!(id.oaes, 0x300);
    assert_eq!(id.ctratt, 0x200);
    assert_eq!(id.fguid, [0xAB; 16]);
    assert_eq!(id.oacs, 0x5F);
    assert_eq!((id.frmw, id.lpa, id.elpe, id.npss), (0x17, 0x0E, 63, 2));
    assert_eq!(id.wctemp_celsius, Some(80.0));
    assert_eq!(id.cctemp_celsius, None);
    assert_eq!(id.mtfa, 300);
    assert_eq!(id.tnvmcap_bytes, 18_446_744_073_709_555_712);
    assert_eq!(id.unvmcap_bytes, 4096);
    assert_eq!(id.hctma, 1);
    assert_eq!(id.mntmt_celsius, Some(0.0));
    assert_eq!(id.mxtmt_celsius, Some(85.0));
    assert_eq!(id.sanicap, 0x6000_0003);
    assert_eq!(id.nn, 32);
    assert_eq!(id.oncs, 0x5F);
    assert_eq!(id.vwc, 7);
    assert_eq!(id.awupf, 7);
    assert_eq!(id.sgls, 0x0001_0001);
    assert_eq!(id.subnqn, "nqn.1994-11.com.samsung:nvme:PM9A3");
}

#[test]
fn capability_helpers() {
    let id = IdCtrl::parse(&sample()).unwrap();
    assert!(id.supports_self_test()); // 0x5F has bit 4
    assert!(id.supports_uuid_list());
    assert_eq!(id.error_log_entries(), 64);
    assert!(id.lpa_extended_data()); // 0x0E has bit 2
    assert_eq!(id.version_string(), "1.4");

    let mut buf = sample();
    put_u16(&mut buf, 256, 0x0007);
    put_u32(&mut buf, 96, 0x0000_01FF);
    buf[261] = 0x03;
    buf[262] = 255;
    put_u32(&mut buf, 80, 0x0001_0301);
    let id = IdCtrl::parse(&buf).unwrap();
    assert!(!id.supports_self_test());
    assert!(!id.supports_uuid_list());
    assert!(!id.lpa_extended_data());
    assert_eq!(id.error_log_entries(), 256);
    assert_eq!(id.version_string(), "1.3.1");
}

#[test]
fn version_two_and_unreported() {
    let mut buf = sample();
    put_u32(&mut buf, 80, 0x0002_0000);
    assert_eq!(IdCtrl::parse(&buf).unwrap().version_string(), "2.0");
    put_u32(&mut buf, 80, 0);
    assert_eq!(IdCtrl::parse(&buf).unwrap().version_string(), "");
}

#[test]
fn needs_1024_bytes() {
    let buf = sample();
    assert!(IdCtrl::parse(&buf[..1024]).is_ok());
    assert_eq!(
        IdCtrl::parse(&buf[..1023]),
        Err(ParseError::Length {
            page: "identify controller",
            expected: 1024,
            got: 1023
        })
    );
}

/// The fields only the page builders write (power states, queue entry
/// sizes, limits) are checked at their spec offsets through the layout.
#[test]
fn layout_places_the_builder_only_fields_at_their_offsets() {
    let mut buf = vec![0u8; 4096];
    buf[72] = 1; // RAB
    buf[77] = 9; // MDTS
    buf[258] = 3; // ACL
    buf[259] = 4; // AERL
    buf[264] = 1; // AVSCC
    buf[265] = 1; // APSTA
    buf[512] = 0x66; // SQES
    buf[513] = 0x44; // CQES
    put_u16(&mut buf, 514, 256); // MAXCMD
    put_u16(&mut buf, 526, 5); // AWUN
    // Power state 2 at 2048 + 2 × 32 = 2112.
    put_u16(&mut buf, 2112, 450);
    buf[2115] = 0x02;
    put_u32(&mut buf, 2116, 2000);
    put_u32(&mut buf, 2120, 25_000);
    put(&mut buf, 2124, &[1, 2, 3, 4]);
    put_u16(&mut buf, 2128, 77);
    buf[2130] = 0x40;
    put_u16(&mut buf, 2132, 88);
    buf[2134] = 0x42;
    // Power state 31 ends the descriptors at byte 3071.
    put_u16(&mut buf, 3040, 0xBEEF);
    buf[3072] = 0xAA; // first vendor specific byte

    let p = IdCtrlPage::ref_from_bytes(&buf).unwrap();
    assert_eq!((p.rab, p.mdts, p.acl, p.aerl), (1, 9, 3, 4));
    assert_eq!((p.avscc, p.apsta, p.sqes, p.cqes), (1, 1, 0x66, 0x44));
    assert_eq!((p.maxcmd.get(), p.awun.get()), (256, 5));
    let ps = &p.psd[2];
    assert_eq!((ps.mp.get(), ps.flags), (450, 0x02));
    assert_eq!((ps.enlat.get(), ps.exlat.get()), (2000, 25_000));
    assert_eq!((ps.rrt, ps.rrl, ps.rwt, ps.rwl), (1, 2, 3, 4));
    assert_eq!(
        (ps.idlp.get(), ps.ips, ps.actp.get(), ps.apws),
        (77, 0x40, 88, 0x42)
    );
    assert_eq!(p.psd[31].mp.get(), 0xBEEF);
    assert_eq!(p.vs[0], 0xAA);
}

#[test]
fn space_padded_pads_and_cuts() {
    assert_eq!(&space_padded::<6>("ab"), b"ab    ");
    assert_eq!(&space_padded::<2>("abc"), b"ab");
}

/// The capability bits and fields the depth pages (03h, 08h, 09h, 0Dh)
/// are gated on, at their layouts.md offsets.
#[test]
fn depth_capabilities_mdts_and_endgidmax() {
    let mut buf = sample();
    let id = IdCtrl::parse(&buf).unwrap();
    // LPA 0Eh: command effects, extended data, telemetry; no PEL
    assert!(id.lpa_extended_data() && id.supports_telemetry());
    assert!(!id.supports_persistent_event_log());
    assert!(!id.supports_endurance_groups()); // CTRATT bit 9 only
    assert_eq!(
        (id.mdts, id.max_transfer_bytes(), id.endgidmax),
        (0, None, 0)
    );
    buf[77] = 5; // 2^5 pages of 4 KiB
    buf[96] |= 1 << 4;
    buf[261] = 0x10;
    put_u16(&mut buf, 340, 2);
    let id = IdCtrl::parse(&buf).unwrap();
    assert!(id.supports_endurance_groups() && id.supports_persistent_event_log());
    assert!(!id.lpa_extended_data() && !id.supports_telemetry());
    assert_eq!(id.max_transfer_bytes(), Some(128 * 1024));
    assert_eq!(id.endgidmax, 2);
}
