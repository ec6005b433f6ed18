use super::*;
use crate::nvme::testutil::*;

const OCP: [u8; 16] = [
    0xc1, 0x94, 0xd5, 0x5b, 0xe0, 0x94, 0x47, 0x94, 0xa2, 0x1d, 0x29, 0x99, 0x8f, 0x56, 0xbe, 0x6f,
];

/// Puts `uuid` into entry `i`: 32-byte header, 32 bytes per entry, UUID
/// at byte 16 of the entry.
fn set_entry(buf: &mut [u8], i: usize, uuid: &[u8; 16]) {
    buf[32 + 32 * i] = 0x01; // header: association
    put(buf, 32 + 32 * i + 16, uuid);
}

#[test]
fn finds_ocp_uuid_as_position_plus_one() {
    let mut buf = vec![0u8; 4096];
    set_entry(&mut buf, 0, &[0x11; 16]);
    set_entry(&mut buf, 1, &[0x22; 16]);
    set_entry(&mut buf, 2, &OCP);
    assert_eq!(parse(&buf).unwrap(), vec![[0x11; 16], [0x22; 16], OCP]);
    assert_eq!(ocp_uuid_index(&buf), Ok(Some(3)));
    assert_eq!(OCP_UUID, OCP);
}

#[test]
fn stops_at_the_first_zero_uuid() {
    let mut buf = vec![0u8; 4096];
    set_entry(&mut buf, 0, &[0x11; 16]);
    // entry 1 is empty, so an OCP UUID after it is not part of the list
    set_entry(&mut buf, 2, &OCP);
    assert_eq!(parse(&buf).unwrap(), vec![[0x11; 16]]);
    assert_eq!(ocp_uuid_index(&buf), Ok(None));
}

#[test]
fn byte_reversed_uuid_matches_and_last_entry_is_127() {
    let mut buf = vec![0u8; 4096];
    for i in 0..126 {
        set_entry(&mut buf, i, &[0x33; 16]);
    }
    let mut rev = OCP;
    rev.reverse();
    set_entry(&mut buf, 126, &rev); // bytes 4064..4095
    assert_eq!(parse(&buf).unwrap().len(), 127);
    assert_eq!(ocp_uuid_index(&buf), Ok(Some(127)));
}

#[test]
fn absent_and_short() {
    assert_eq!(ocp_uuid_index(&[0u8; 4096]), Ok(None));
    assert!(matches!(
        parse(&[0u8; 4095]),
        Err(ParseError::Length { expected: 4096, .. })
    ));
}
