use super::*;

/// scsi_debug's INQUIRY as the kernel module builds it (`inquiry_vpd`
/// aside): vendor "Linux   ", product "scsi_debug      ", revision "0191".
fn inquiry() -> Vec<u8> {
    let mut b = vec![0u8; 36];
    b[0] = 0x00;
    b[2] = 0x07; // SPC-5
    b[8..16].copy_from_slice(b"Linux   ");
    b[16..32].copy_from_slice(b"scsi_debug      ");
    b[32..36].copy_from_slice(b"0191");
    b
}

#[test]
fn standard_inquiry() {
    let i = Inquiry::parse(&inquiry()).unwrap();
    assert_eq!(
        (i.vendor.as_str(), i.product.as_str(), i.revision.as_str()),
        ("Linux", "scsi_debug", "0191")
    );
    assert!(i.is_disk() && !i.is_ata());
    let mut sat = inquiry();
    sat[8..16].copy_from_slice(b"ATA     ");
    assert!(Inquiry::parse(&sat).unwrap().is_ata());
    let mut cdrom = inquiry();
    cdrom[0] = 0x05;
    assert!(!Inquiry::parse(&cdrom).unwrap().is_disk());
    // Qualifier 011b: not capable of supporting a device here.
    let mut absent = inquiry();
    absent[0] = 0x60;
    assert!(!Inquiry::parse(&absent).unwrap().is_disk());
    assert!(Inquiry::parse(&inquiry()[..35]).is_err());
}

#[test]
fn vpd_pages() {
    let list = [0x00, 0x00, 0x00, 0x04, 0x00, 0x80, 0x83, 0xB1, 0xEE];
    // PAGE LENGTH 4: the trailing byte is not part of the page.
    assert_eq!(vpd_supported(&list).unwrap(), [0x00, 0x80, 0x83, 0xB1]);
    let serial = [0x00, 0x80, 0x00, 0x06, b' ', b'S', b'N', b'4', b'2', 0x00];
    assert_eq!(vpd_unit_serial(&serial).unwrap(), "SN42");
    assert!(vpd_unit_serial(&list).is_err(), "wrong page code");
    // B1h: rotation rate 0001h = non-rotating.
    let mut b1 = vec![0u8; 64];
    b1[1] = 0xB1;
    b1[3] = 0x3C;
    b1[5] = 0x01;
    assert_eq!(vpd_rotation_rate(&b1).unwrap(), Some(1));
    b1[4] = 0x1C;
    b1[5] = 0x20;
    assert_eq!(vpd_rotation_rate(&b1).unwrap(), Some(7200));
}

#[test]
fn naa_designator_of_the_logical_unit() {
    // A T10 vendor-id designator (type 1, ASCII) first, then the NAA
    // (code set 1, association 0, type 3, length 8).
    let mut p = vec![0x00, 0x83, 0x00, 0x00];
    p.extend([0x02, 0x01, 0x00, 0x04, b'A', b'B', b'C', b'D']);
    p.extend([
        0x01, 0x03, 0x00, 0x08, 0x53, 0x33, 0x33, 0x30, 0x00, 0x00, 0x00, 0x01,
    ]);
    // A target-port NAA (association 1) must not be taken.
    let len = (p.len() - 4) as u16;
    p[2..4].copy_from_slice(&len.to_be_bytes());
    assert_eq!(
        vpd_naa(&p).unwrap().as_deref(),
        Some("naa.5333333000000001")
    );
    let mut port_only = vec![0x00, 0x83, 0x00, 0x0C];
    port_only.extend([0x01, 0x13, 0x00, 0x08, 0x50, 0, 0, 0, 0, 0, 0, 2]);
    assert_eq!(vpd_naa(&port_only).unwrap(), None);
    // A descriptor claiming more bytes than there are ends the walk.
    let truncated = [0x00, 0x83, 0x00, 0x06, 0x01, 0x03, 0x00, 0x08, 0x50, 0x00];
    assert_eq!(vpd_naa(&truncated).unwrap(), None);
}

#[test]
fn transport_protocol_from_a_port_designator_with_piv() {
    // scsi_debug's 83h (its `inquiry_vpd_83`): the logical unit's NAA
    // (association 0, no PIV), then a target-port NAA with PIV set and
    // protocol 6 (SAS): byte 0 = 61h, byte 1 = 93h.
    let mut p = vec![0x00, 0x83, 0x00, 0x00];
    p.extend([0x01, 0x03, 0x00, 0x08, 0x53, 0x33, 0x33, 0x30, 0, 0, 0, 1]);
    p.extend([0x61, 0x93, 0x00, 0x08, 0x52, 0x22, 0x22, 0x20, 0, 0, 0, 1]);
    let len = (p.len() - 4) as u16;
    p[2..4].copy_from_slice(&len.to_be_bytes());
    assert_eq!(vpd_protocol(&p).unwrap(), Some(PROTOCOL_SAS));
    assert_eq!(vpd_port_protocols(&p).unwrap(), [PROTOCOL_SAS]);
    // A second port designator, iSCSI (5) with PIV: both, in order.
    let mut two = p.clone();
    two.extend([0x51, 0x94, 0x00, 0x04, 0, 0, 0, 1]);
    let len = (two.len() - 4) as u16;
    two[2..4].copy_from_slice(&len.to_be_bytes());
    assert_eq!(vpd_port_protocols(&two).unwrap(), [6, 5]);
    // PIV clear: the protocol field means nothing.
    p[17] = 0x13;
    assert_eq!(vpd_protocol(&p).unwrap(), None);
    assert!(vpd_port_protocols(&p).unwrap().is_empty());
    // Only a logical-unit designator: no protocol.
    assert_eq!(vpd_protocol(&vpd_page(0x83, &p[4..16])).unwrap(), None);
    assert_eq!(vpd_page(0x80, b"SN"), [0x00, 0x80, 0x00, 0x02, b'S', b'N']);
}

#[test]
fn read_capacity_16() {
    // 1 953 525 167 as the last LBA of 512-byte blocks: a 1 TB disk.
    let mut b = vec![0u8; 32];
    b[4..8].copy_from_slice(&1_953_525_167u32.to_be_bytes());
    b[8..12].copy_from_slice(&512u32.to_be_bytes());
    let c = ReadCapacity16::parse(&b).unwrap();
    assert_eq!((c.last_lba, c.block_len), (1_953_525_167, 512));
    assert_eq!(c.capacity_bytes(), 1_000_204_886_016);
    let max = ReadCapacity16 {
        last_lba: u64::MAX,
        block_len: u32::MAX,
    };
    assert!(max.capacity_bytes() > u128::from(u64::MAX));
}
