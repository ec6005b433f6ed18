use super::*;

#[test]
fn byte_sum_wraps() {
    assert_eq!(byte_sum(&[]), 0);
    assert_eq!(byte_sum(&[0xFF, 0x01]), 0);
    assert_eq!(byte_sum(&[0x80, 0x80, 0x05]), 5);
}

mod proptests;
