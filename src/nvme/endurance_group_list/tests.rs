use super::*;
use crate::nvme::testutil::*;

#[test]
fn identifiers_follow_the_count() {
    let mut buf = vec![0u8; 4096];
    put_u16(&mut buf, 0, 3);
    put_u16(&mut buf, 2, 1);
    put_u16(&mut buf, 4, 2);
    put_u16(&mut buf, 6, 0x0100);
    put_u16(&mut buf, 8, 7); // past the count: not listed
    assert_eq!(parse(&buf).unwrap(), vec![1, 2, 0x0100]);
}

#[test]
fn a_count_past_the_capacity_and_zero_ids_are_handled() {
    let mut buf = vec![0u8; 4096];
    put_u16(&mut buf, 0, u16::MAX);
    put_u16(&mut buf, 4094, 9); // the last slot, identifier 2046
    assert_eq!(parse(&buf).unwrap(), vec![9]);
    assert!(parse(&buf[..4095]).is_err());
}

#[test]
fn the_builder_writes_what_the_decoder_reads() {
    let p = EnduranceGroupListPage::of(&[4, 5]);
    assert_eq!(&p.as_bytes()[..6], &[2, 0, 4, 0, 5, 0]);
    assert_eq!(parse(p.as_bytes()).unwrap(), vec![4, 5]);
}
